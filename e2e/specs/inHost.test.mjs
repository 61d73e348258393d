// The in-host suites (test/integration/*.test.ts) inside code-server's extension host, through Plangate's test
// hook: code-server starts with PLANGATE_TEST_SUITE/PLANGATE_TEST_RESULT set, the browser connects (that is what
// starts the extension host), the hook runs the bundle after activation and writes the result file.
// Every in-host test is reported here as a subtest of its own. The agent entrance suite is left to its own spec
// (agentEntrance.test.mjs): it needs VS Code's chat features on, which the harness turns off everywhere else:
// with them off, the gated server's tools never reached vscode.lm.tools in code-server 4.139.1.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { bundleInHostSuite } from '../lib/suiteBundle.mjs';
import { launchVSCode } from '../lib/vscode.mjs';
import { runDir } from '../lib/env.mjs';

test('the in-host suites pass inside the real extension host', { timeout: 300_000 }, async (t) => {
  const suite = path.join(runDir(), 'in-host-suite.js');
  const { files } = await bundleInHostSuite(suite);
  const resultFile = path.join(runDir(), 'in-host-result.json');
  fs.rmSync(resultFile, { force: true });
  t.diagnostic(`suites: ${files.join(', ')}`);

  const vs = await launchVSCode({
    name: 'in-host',
    workspace: { files: { 'README.md': '# in-host test workspace\n' } },
    env: { PLANGATE_TEST_SUITE: suite, PLANGATE_TEST_RESULT: resultFile, PLANGATE_TEST_GREP: '!agent entrance' },
  });
  let result;
  try {
    const deadline = Date.now() + 120_000;
    while (!fs.existsSync(resultFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    await vs.screenshot('in-host-suite-done');
    assert.ok(fs.existsSync(resultFile), `no result file after 120 s: did the extension activate? logs: ${vs.extensionHostLogs().join(', ') || vs.dir}`);
    result = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
  } finally {
    await vs.close();
  }

  assert.ok(result.tests.length > 0, 'the in-host suite ran no test');
  for (const r of result.tests) {
    await t.test(r.name, () => {
      if (!r.ok) assert.fail(`in the extension host (${r.ms} ms):\n${r.error}`);
    });
  }
  assert.equal(result.failed, 0, `${result.failed} of ${result.tests.length} in-host tests failed`);
});
