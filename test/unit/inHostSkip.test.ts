// An in-host test that calls skip() is reported as skipped with its reason, not counted as passed: the e2e harness
// (e2e/lib/inHost.mjs) turns it into a node:test skip and fails the in-host spec on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runRegistered, skip, test as inHostTest } from '../../test/integration/suite';

test('runRegistered reports a skip as skipped with its reason, and does not count it as passed', async () => {
  inHostTest('checks something', () => assert.ok(true));
  inHostTest('cannot check here', () => skip('no /proc on this platform'));
  const result = await runRegistered({ vscode: undefined as never, api: undefined, extension: undefined as never });
  assert.deepEqual(
    result.tests.map((t) => [t.name, t.ok, t.skipped]),
    [
      ['checks something', true, undefined],
      ['cannot check here', true, 'no /proc on this platform'],
    ],
  );
  assert.equal(result.passed, 1, 'a skipped test was counted as passed');
  assert.equal(result.failed, 0);
});
