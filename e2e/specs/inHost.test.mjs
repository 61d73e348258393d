// The in-host suites (test/integration/*.test.ts) inside code-server's extension host, through Plangate's test
// hook: code-server starts with PLANGATE_TEST_SUITE/PLANGATE_TEST_RESULT set, the browser connects (that is what
// starts the extension host), the hook runs the bundle after activation and writes the result file.
// Every in-host test is reported here as a subtest of its own. The agent entrance suite is left to its own spec
// (agentEntrance.test.mjs): it needs VS Code's chat features on, which the harness turns off everywhere else:
// with them off, the gated server's tools never reached vscode.lm.tools in code-server 4.139.1.
import { test } from 'node:test';
import { runInHostSuites } from '../lib/inHost.mjs';

test('the in-host suites pass inside the real extension host', { timeout: 300_000 }, async (t) => {
  await runInHostSuites(t, { name: 'in-host', grep: '!agent entrance' });
});
