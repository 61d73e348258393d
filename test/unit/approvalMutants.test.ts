// What an approval covers and how a step's place is judged, edge by edge (fast enough for `npm run mutate`, which runs
// this file once per mutant of src/core/plan/approval.ts, src/core/base/json.ts and src/core/engine/resolve.ts):
// canonical JSON's every case, the approval hash moving with each covered part and with nothing else, and the words
// for where a step resolves and what changed since it was approved or reviewed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { approvalHash, toolDefinitionHash } from '../../src/core/plan/approval';
import { canonicalJson, sameJson, sha256Hex } from '../../src/core/base/json';
import {
  LOCAL_SERVER,
  partsInWords,
  resolutionChange,
  resolutionRecords,
  resolveSteps,
  reviewedChangeParts,
  reviewedChangeText,
  type ListedTool,
} from '../../src/core/engine/resolve';
import type { PlanRecord, StepRecord } from '../../src/core/plan/plan';
import type { ServerTools } from '../../src/core/engine/invoker';

describe('canonical JSON', () => {
  test('scalars, as JSON writes them, and what JSON cannot hold', () => {
    assert.equal(canonicalJson(null), 'null');
    assert.equal(canonicalJson(undefined), 'null');
    assert.equal(
      canonicalJson(() => 1),
      'null',
    );
    assert.equal(canonicalJson(Symbol('s')), 'null');
    assert.equal(canonicalJson(true), 'true');
    assert.equal(canonicalJson(false), 'false');
    assert.equal(canonicalJson(0), '0');
    assert.equal(canonicalJson(-1.5), '-1.5');
    assert.equal(canonicalJson(NaN), 'null');
    assert.equal(canonicalJson(Infinity), 'null');
    assert.equal(canonicalJson(12n), '"12"');
    assert.equal(canonicalJson('a"b\n'), '"a\\"b\\n"');
    assert.equal(canonicalJson(new Date(0)), '"1970-01-01T00:00:00.000Z"');
  });

  test('objects: keys sorted, skipped values dropped without stray commas, nested containers closed in order', () => {
    assert.equal(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }], e: {} }), '{"a":[1,{"c":3,"d":2}],"b":1,"e":{}}');
    assert.equal(canonicalJson({ a: undefined, b: 1, c: () => 1, d: Symbol('x'), e: 2 }), '{"b":1,"e":2}');
    assert.equal(canonicalJson({ a: undefined }), '{}');
    assert.equal(canonicalJson({ a: undefined, b: { c: 1 }, d: [] }), '{"b":{"c":1},"d":[]}');
    assert.equal(canonicalJson([undefined, () => 1, 1]), '[null,null,1]');
    assert.equal(canonicalJson([]), '[]');
    assert.equal(canonicalJson([[1], [2, [3]]]), '[[1],[2,[3]]]');
    assert.equal(canonicalJson({ 'a"': 1 }), '{"a\\"":1}');
    assert.equal(canonicalJson(JSON.parse('{"__proto__":{"x":1}}')), '{"__proto__":{"x":1}}');
    assert.equal(canonicalJson({ B: 1, a: 2, _: 3 }), '{"B":1,"_":3,"a":2}', 'by UTF-16 code units');
  });

  test('a cycle becomes "[Circular]"; the same object twice, not a cycle, is written twice', () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    assert.equal(canonicalJson(a), '{"self":"[Circular]","x":1}');
    const arr: unknown[] = [1];
    arr.push(arr);
    assert.equal(canonicalJson(arr), '[1,"[Circular]"]');
    const shared = { k: 1 };
    assert.equal(canonicalJson({ a: shared, b: shared }), '{"a":{"k":1},"b":{"k":1}}');
    assert.equal(canonicalJson([shared, shared]), '[{"k":1},{"k":1}]');
  });

  test('a value nested 20,000 deep is written whole, and differs from one a level shallower', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const text = canonicalJson(deep);
    assert.equal(text.length, 40_001);
    assert.notEqual(text, canonicalJson((deep as unknown[])[0]));
  });

  test('sameJson ignores key order only; sha256Hex is SHA-256 of UTF-8, lowercase hex', () => {
    assert.equal(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 }), true);
    assert.equal(sameJson({ a: 1 }, { a: '1' }), false);
    assert.equal(sameJson([1, 2], [2, 1]), false);
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const text of ['é', '😀 x', 'a'.repeat(1000)])
      assert.equal(sha256Hex(text), createHash('sha256').update(text, 'utf8').digest('hex'));
    assert.match(sha256Hex(''), /^e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855$/);
  });
});

describe('the approval hash', () => {
  const step = (index: number, over: Partial<StepRecord> = {}): StepRecord => ({
    index,
    proposed: { tool: `t${index}`, args: { n: index } },
    call: { tool: `t${index}`, args: { n: index } },
    edited: false,
    state: 'pending',
    skipRequested: false,
    server: 'a',
    crossServer: false,
    toolHash: `h${index}`,
    attempts: 0,
    ...over,
  });
  const plan = (over: Partial<PlanRecord> = {}) =>
    ({
      origin: { server: 'a', tool: 'plan', args: {}, entrance: 'manual' },
      plan: {
        kind: 'orchestrated_plan',
        version: '1',
        status: 'ok',
        instruction: 'do',
        next_actions: [],
        safety: { touches_files: ['src/**'] },
      },
      steps: [step(0), step(1)],
      ...over,
    }) as PlanRecord;

  test('it is the hash of exactly the covered parts', () => {
    const p = plan();
    const covered = {
      origin: ['a', 'plan'],
      instruction: 'do',
      touches: ['src/**'],
      steps: [
        [0, 'a', 'h0', 't0', { n: 0 }],
        [1, 'a', 'h1', 't1', { n: 1 }],
      ],
    };
    assert.equal(approvalHash(p), sha256Hex(canonicalJson(covered)));
    assert.equal(approvalHash({ steps: [] }), sha256Hex(canonicalJson({ origin: null, instruction: null, touches: null, steps: [] })));
    assert.equal(
      approvalHash({ steps: [step(0, { server: undefined, toolHash: undefined })] }),
      sha256Hex(canonicalJson({ origin: null, instruction: null, touches: null, steps: [[0, null, null, 't0', { n: 0 }]] })),
    );
  });

  test('each covered part moves it; a skipped step is left out; the proposed arguments and the state do not count', () => {
    const base = approvalHash(plan());
    const moved = [
      plan({ origin: { server: 'b', tool: 'plan', args: {}, entrance: 'manual' } }),
      plan({ origin: { server: 'a', tool: 'plan2', args: {}, entrance: 'manual' } }),
      plan({ plan: { ...plan().plan, instruction: 'other' } }),
      plan({ plan: { ...plan().plan, safety: { touches_files: ['**'] } } }),
      plan({ steps: [step(0, { server: 'b' }), step(1)] }),
      plan({ steps: [step(0, { toolHash: 'hx' }), step(1)] }),
      plan({ steps: [step(0, { call: { tool: 'tx', args: { n: 0 } } }), step(1)] }),
      plan({ steps: [step(0, { call: { tool: 't0', args: { n: 9 } } }), step(1)] }),
      plan({ steps: [step(0, { index: 5 }), step(1)] }),
      plan({ steps: [step(0, { skipRequested: true }), step(1)] }),
    ];
    for (const [i, p] of moved.entries()) assert.notEqual(approvalHash(p), base, `case ${i}`);
    assert.equal(approvalHash(plan({ steps: [step(0, { skipRequested: true }), step(1)] })), approvalHash(plan({ steps: [step(1)] })));
    assert.equal(approvalHash(plan({ steps: [step(0, { state: 'ok', proposed: { tool: 'x', args: {} } }), step(1)] })), base);
    assert.equal(approvalHash(plan({ origin: { server: 'a', tool: 'plan', args: { other: 1 }, entrance: 'agent' } })), base);
  });

  test('a tool definition hash covers every field of the definition, in any key order', () => {
    const d: ListedTool = { name: 't', description: 'd', inputSchema: { type: 'object' } };
    assert.equal(toolDefinitionHash(d), sha256Hex(canonicalJson(d)));
    assert.equal(toolDefinitionHash({ inputSchema: { type: 'object' }, description: 'd', name: 't' }), toolDefinitionHash(d));
    assert.notEqual(toolDefinitionHash({ ...d, _meta: { x: 1 } }), toolDefinitionHash(d));
  });
});

describe('where a step runs', () => {
  const catalog: ServerTools[] = [
    { server: 'a', tools: ['w', 'both'], hashes: new Map([['w', 'hw']]) },
    {
      server: 'b',
      tools: ['r', 'both'],
      hashes: new Map([
        ['r', 'hr'],
        ['both', 'hb'],
      ]),
    },
    { server: 'c', tools: ['r'] },
  ];

  test('the issuer first, then the others in order; ask_user is local; a hash only when known', () => {
    const r = resolveSteps(
      [
        { tool: 'w', args: {} },
        { tool: 'both', args: {} },
        { tool: 'r', args: {} },
        { tool: 'ask_user', args: {} },
      ],
      'a',
      catalog,
      { allowCrossServer: true },
    );
    assert.deepEqual(r, {
      ok: true,
      resolutions: [
        { server: 'a', crossServer: false, local: false, toolHash: 'hw' },
        { server: 'a', crossServer: false, local: false },
        { server: 'b', crossServer: true, local: false, toolHash: 'hr' },
        { server: LOCAL_SERVER, crossServer: false, local: true },
      ],
    });
    assert.equal(LOCAL_SERVER, '(answered in Plangate)');
    assert.deepEqual(resolveSteps([{ tool: 'r', args: {} }], 'c', catalog, { allowCrossServer: false }), {
      ok: true,
      resolutions: [{ server: 'c', crossServer: false, local: false }],
    });
  });

  test('what resolves nowhere, each reason in words; one missing step stops them all', () => {
    const r = resolveSteps(
      [
        { tool: 'w', args: {} },
        { tool: '', args: {} },
        { tool: 5 as unknown as string, args: {} },
        { tool: 'r', args: {} },
        { tool: 'zz', args: {} },
      ],
      'a',
      catalog,
      { allowCrossServer: false },
    );
    assert.deepEqual(r, {
      ok: false,
      missing: [
        { index: 1, tool: '', reason: 'Step 2 names no tool.' },
        { index: 2, tool: '', reason: 'Step 3 names no tool.' },
        {
          index: 3,
          tool: 'r',
          reason:
            "tool 'r' is only offered by server 'b' (server 'a' does not offer it), and cross-server steps are off (setting plangate.allowCrossServerSteps); turn it on or connect a server that offers it.",
        },
        {
          index: 4,
          tool: 'zz',
          reason:
            "tool 'zz' is not offered by any connected server (server 'a' does not offer it); connect a server that offers it, or skip the step.",
        },
      ],
    });
    const gone = resolveSteps([{ tool: 'zz', args: {} }], 'x', catalog, { allowCrossServer: true });
    assert.equal(
      gone.ok === false && gone.missing[0]!.reason,
      "tool 'zz' is not offered by any connected server (server 'x' is not connected); connect a server that offers it, or skip the step.",
    );
    const elsewhere = resolveSteps([{ tool: 'w', args: {} }], 'x', catalog, { allowCrossServer: true });
    assert.deepEqual(elsewhere, { ok: true, resolutions: [{ server: 'a', crossServer: true, local: false, toolHash: 'hw' }] });
  });

  test('records: one per step, missing with its reason, no hash key when unknown', () => {
    assert.deepEqual(
      resolutionRecords(
        [
          { tool: 'w', args: {} },
          { tool: 'both', args: {} },
          { tool: 'zz', args: {} },
        ],
        'a',
        catalog,
        { allowCrossServer: true },
      ),
      [
        { server: 'a', crossServer: false, toolHash: 'hw' },
        { server: 'a', crossServer: false },
        {
          missing:
            "tool 'zz' is not offered by any connected server (server 'a' does not offer it); connect a server that offers it, or skip the step.",
        },
      ],
    );
    assert.equal('toolHash' in resolutionRecords([{ tool: 'both', args: {} }], 'a', catalog, { allowCrossServer: true })[0]!, false);
  });

  test('what changed since approval, in words; nothing when nothing did', () => {
    const ok = { server: 'a', crossServer: false, toolHash: 'h' };
    assert.equal(resolutionChange({ server: 'a', toolHash: 'h' }, ok, 't'), undefined);
    assert.equal(resolutionChange({ server: 'a' }, { server: 'a', crossServer: false }, 't'), undefined);
    assert.equal(resolutionChange({ unresolved: 'gone' }, { missing: 'm' }, 't'), undefined, 'it was missing when approved and still is');
    assert.equal(
      resolutionChange({ server: 'a', toolHash: 'h' }, { missing: 'm' }, 't'),
      "tool 't' is no longer offered where it was approved: m",
    );
    assert.equal(resolutionChange({}, { missing: 'm' }, 't'), "tool 't' is no longer offered where it was approved: m");
    assert.equal(resolutionChange({}, ok, 't'), "the step's server was not resolved when the plan was approved; it now runs on server 'a'");
    assert.equal(
      resolutionChange({ server: 'b', toolHash: 'h' }, ok, 't'),
      "tool 't' now resolves on server 'a', not on server 'b' as approved",
    );
    const changed = "server 'a' changed the definition of tool 't' (description, schema or annotations) since the approval";
    assert.equal(resolutionChange({ server: 'a', toolHash: 'x' }, ok, 't'), changed);
    assert.equal(resolutionChange({ server: 'a' }, ok, 't'), changed);
    assert.equal(resolutionChange({ server: 'a', toolHash: 'h' }, { server: 'a', crossServer: false }, 't'), changed);
  });
});

describe('what changed during review', () => {
  const defs = new Map<string, ListedTool>([
    ['h1', { name: 't', title: 'T', description: 'd', inputSchema: { a: 1 }, outputSchema: {}, annotations: {}, _meta: {}, extra: 1 }],
    [
      'h2',
      {
        name: 't',
        title: 'T2',
        description: 'd2',
        inputSchema: { a: 2 },
        outputSchema: { o: 1 },
        annotations: { x: 1 },
        _meta: { m: 1 },
        extra: 2,
      },
    ],
    ['h3', { name: 't', title: 'T', description: 'd', inputSchema: { a: 1 }, outputSchema: {}, annotations: {}, _meta: {}, extra: 1 }],
  ]);
  const of = (h: string) => defs.get(h);

  test('parts: availability, server, each part of the definition in order, other fields, or the definition as a whole', () => {
    assert.deepEqual(reviewedChangeParts({ server: 'a' }, {}, of), ['availability']);
    assert.deepEqual(reviewedChangeParts({}, { server: 'a' }, of), ['availability']);
    assert.deepEqual(reviewedChangeParts({}, {}, of), []);
    assert.deepEqual(reviewedChangeParts({ server: 'a', toolHash: 'h1' }, { server: 'a', toolHash: 'h1' }, of), []);
    assert.deepEqual(reviewedChangeParts({ server: 'a', toolHash: 'h1' }, { server: 'b', toolHash: 'h1' }, of), ['server']);
    assert.deepEqual(reviewedChangeParts({ server: 'a', toolHash: 'h1' }, { server: 'a', toolHash: 'h2' }, of), [
      'title',
      'description',
      'input schema',
      'output schema',
      'annotations',
      '_meta',
      'other fields',
    ]);
    assert.deepEqual(reviewedChangeParts({ server: 'a', toolHash: 'h1' }, { server: 'b', toolHash: 'h2' }, of).slice(0, 2), [
      'server',
      'title',
    ]);
    assert.deepEqual(
      reviewedChangeParts({ server: 'a', toolHash: 'h1' }, { server: 'a', toolHash: 'h3' }, of),
      ['definition'],
      'hashes differ, parts alike',
    );
    assert.deepEqual(reviewedChangeParts({ server: 'a', toolHash: 'h1' }, { server: 'b', toolHash: 'h3' }, of), ['server']);
    assert.deepEqual(reviewedChangeParts({ server: 'a', toolHash: 'h1' }, { server: 'a', toolHash: 'unknown' }, of), ['definition']);
    assert.deepEqual(reviewedChangeParts({ server: 'a' }, { server: 'a', toolHash: 'h1' }, of), ['definition']);
    assert.deepEqual(reviewedChangeParts({ server: 'a', toolHash: 'h1' }, { server: 'a' }, of), ['definition']);
    assert.deepEqual(reviewedChangeParts({ server: 'a', toolHash: 'unknown' }, { server: 'b', toolHash: 'h1' }, of), ['server']);
  });

  test('words: a list, and the change naming tool and servers', () => {
    assert.equal(partsInWords([]), '');
    assert.equal(partsInWords(['a']), 'a');
    assert.equal(partsInWords(['a', 'b']), 'a and b');
    assert.equal(partsInWords(['a', 'b', 'c']), 'a, b and c');
    assert.equal(reviewedChangeText({ server: 'a' }, { unresolved: 'why' }, 't', []), "tool 't' is no longer offered by any server: why");
    assert.equal(reviewedChangeText({ server: 'a' }, {}, 't', []), "tool 't' is no longer offered by any server: it resolves nowhere");
    assert.equal(reviewedChangeText({}, { server: 'b' }, 't', []), "tool 't' is now offered by server 'b'");
    assert.equal(
      reviewedChangeText({ server: 'a' }, { server: 'b' }, 't', ['server']),
      "tool 't' now resolves on server 'b', not on server 'a'",
    );
    assert.equal(
      reviewedChangeText({ server: 'a' }, { server: 'b' }, 't', ['server', 'title', 'description']),
      "tool 't' now resolves on server 'b', not on server 'a' (and its title and description changed)",
    );
    assert.equal(
      reviewedChangeText({ server: 'a' }, { server: 'a' }, 't', ['description', 'input schema']),
      "server 'a' changed the description and input schema of tool 't'",
    );
  });
});
