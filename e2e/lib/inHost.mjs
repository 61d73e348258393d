// Runs the in-host suites (test/integration) inside a code-server session through Plangate's test hook: code-server
// starts with PLANGATE_TEST_SUITE/PLANGATE_TEST_RESULT set, the browser connects (that starts the extension host),
// the hook runs the bundle after activation and writes the result file. Each in-host test becomes a subtest.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runDir } from './env.mjs';
import { bundleInHostSuite } from './suiteBundle.mjs';
import { launchVSCode } from './vscode.mjs';

/**
 * Bundles the suites, launches a session `name` and waits up to `waitMs` for the result, then reports every in-host
 * test as a subtest of `t` and fails `t` when any failed.
 * - `grep`: PLANGATE_TEST_GREP (a name part, or `!part` to leave tests out).
 * - `settings`: user settings of the session.
 * - `env`: more environment for the session (and so for the extension host the suites run in).
 * - `whileRunning(vs)`: runs in the session while the suites run (e.g. answering VS Code's own dialogs as a user would);
 *   returns a function that stops it.
 * - `whilePassing(vs)`: runs in the session before it closes, only when every in-host test passed (e.g. UI checks);
 *   its value is returned.
 * - `failureDetail(vs)`: text appended to each failing test's message (e.g. VS Code's own logs).
 * - `allowSkips`: an in-host test that skips is reported as skipped and, unless this is true, fails `t`.
 */
/**
 * @param {import('node:test').TestContext} t
 * @param {{ name: string, grep?: string, settings?: Record<string, unknown>, env?: Record<string, string>, waitMs?: number,
 *   whileRunning?: (vs: import('./vscode.mjs').VSCodeSession) => () => Promise<void>,
 *   whilePassing?: (vs: import('./vscode.mjs').VSCodeSession) => Promise<any>,
 *   failureDetail?: (vs: import('./vscode.mjs').VSCodeSession) => string, allowSkips?: boolean }} options
 */
export async function runInHostSuites(
  t,
  { name, grep, settings, env = {}, waitMs = 120_000, whileRunning, whilePassing, failureDetail = (_vs) => '', allowSkips = false },
) {
  const suite = path.join(runDir(), `${name}-suite.js`);
  const { files } = await bundleInHostSuite(suite);
  const resultFile = path.join(runDir(), `${name}-result.json`);
  fs.rmSync(resultFile, { force: true });
  t.diagnostic(`suites: ${files.join(', ')}`);

  const vs = await launchVSCode({
    name,
    workspace: { files: { 'README.md': `# ${name} test workspace\n` } },
    settings,
    env: { ...env, PLANGATE_TEST_SUITE: suite, PLANGATE_TEST_RESULT: resultFile, ...(grep ? { PLANGATE_TEST_GREP: grep } : {}) },
  });
  const stopRunning = whileRunning?.(vs);
  let result;
  let extra;
  try {
    const deadline = Date.now() + waitMs;
    while (!fs.existsSync(resultFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    await stopRunning?.();
    await vs.screenshot(`${name}-done`);
    assert.ok(
      fs.existsSync(resultFile),
      `no result file after ${waitMs / 1000} s: did the extension activate? logs: ${vs.extensionHostLogs().join(', ') || vs.dir}`,
    );
    result = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
    if (result.failed === 0 && whilePassing) extra = await whilePassing(vs);
  } finally {
    await vs.close();
  }

  assert.ok(result.tests.length > 0, 'the in-host suite ran no test');
  for (const r of result.tests) {
    // A skipped in-host test is a node:test skip (counted and named as one in the report), not a pass.
    await t.test(r.name, r.skipped === undefined ? {} : { skip: r.skipped }, () => {
      if (!r.ok) assert.fail(`in the extension host (${r.ms} ms):\n${r.error}${failureDetail(vs)}`);
    });
  }
  assert.equal(result.failed, 0, `${result.failed} of ${result.tests.length} in-host tests failed`);
  // This session gives every in-host test what it needs (Linux's /proc, a workspace folder, someone answering VS Code's
  // dialogs when the caller does): a skip means a check silently did not happen, so it fails unless the caller allows it.
  const skipped = result.tests.filter((r) => r.skipped !== undefined);
  if (!allowSkips)
    assert.deepEqual(
      skipped.map((r) => `${r.name}: ${r.skipped}`),
      [],
      `${skipped.length} in-host test(s) skipped their checks in a session that should run them all`,
    );
  return extra;
}
