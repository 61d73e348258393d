import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stepHint, summarizeHints } from '../../src/core/base/toolHints';

test('annotations read with the spec defaults: read-only, else destructive unless destructiveHint is false', () => {
  assert.deepEqual(stepHint({ readOnlyHint: true }), { effect: 'read', openWorld: false, idempotent: false });
  assert.deepEqual(stepHint({ readOnlyHint: true, idempotentHint: true }), { effect: 'read', openWorld: false, idempotent: false });
  assert.deepEqual(stepHint({ destructiveHint: true }), { effect: 'destructive', openWorld: false, idempotent: false });
  assert.deepEqual(stepHint({ readOnlyHint: false, destructiveHint: false, idempotentHint: true }), {
    effect: 'write',
    openWorld: false,
    idempotent: true,
  });
  // Any boolean hint brings the defaults in: not read-only, destructive.
  assert.deepEqual(stepHint({ openWorldHint: true }), { effect: 'destructive', openWorld: true, idempotent: false });
});

test('a tool without boolean hints (or not found) is unknown, and hostile values count as absent', () => {
  for (const a of [
    undefined,
    null,
    'readOnly',
    42,
    {},
    { title: 'Create' },
    { readOnlyHint: 'true', destructiveHint: 0 },
    JSON.parse('{"__proto__":{"readOnlyHint":true}}'),
  ]) {
    assert.deepEqual(stepHint(a), { effect: 'unknown', openWorld: false, idempotent: false }, JSON.stringify(a));
  }
});

test('summarizeHints counts each kind, most dangerous first, says what has no hint, and leaves out steps that are no server tool', () => {
  const hints = [
    stepHint({ destructiveHint: true }),
    stepHint({ readOnlyHint: true }),
    stepHint({ readOnlyHint: true, openWorldHint: true }),
    stepHint({ destructiveHint: false }),
    stepHint({ destructiveHint: false }),
    stepHint(undefined),
    stepHint({}),
    null,
  ];
  assert.equal(
    summarizeHints(hints),
    "By their tools' own account, 1 step may destroy data, 2 write, 2 only read and 2 give no hint; 1 reaches outside systems.",
  );
  assert.equal(summarizeHints([stepHint({ destructiveHint: false })]), "By their tools' own account, 1 step writes.");
  assert.equal(summarizeHints(Array(4).fill(stepHint({ destructiveHint: false }))), "By their tools' own account, 4 steps write.");
  assert.equal(summarizeHints([]), '');
  assert.equal(summarizeHints([null]), '');
});
