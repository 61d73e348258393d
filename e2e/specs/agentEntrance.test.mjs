// The agent entrance in a real VS Code (code-server 4.139 = VS Code 1.139, no Copilot): runs the in-host suite
// "agent entrance" (test/integration/agentEntrance.test.ts) through Plangate's test hook — VS Code's MCP service
// takes Plangate's gated server, starts it, lists its tools in vscode.lm.tools, and vscode.lm.invokeTool calls go
// through the gate — then checks that VS Code's own MCP server list (MCP: List Servers) shows the gated server.
// Every in-host test is reported here as a subtest of its own; VS Code's MCP logs are attached on failure.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { bundleInHostSuite } from '../lib/suiteBundle.mjs';
import { launchVSCode } from '../lib/vscode.mjs';
import { FIXTURE_SERVER, runDir } from '../lib/env.mjs';

/** VS Code's own logs about MCP servers (the gated server's stderr lands there), newest lines last. */
function mcpLogs(userDataDir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/mcp/i.test(e.name) && e.name.endsWith('.log')) out.push(`--- ${p}\n${fs.readFileSync(p, 'utf8').split('\n').slice(-40).join('\n')}`);
    }
  };
  try {
    walk(path.join(userDataDir, 'logs'));
  } catch {
    // no logs yet
  }
  return out.join('\n');
}

/**
 * Runs MCP: List Servers from the palette and returns the rows of the quick pick it opens. (vs.runCommand waits for
 * the palette to close, but this command replaces it with a quick pick of its own.)
 */
async function listMcpServers(vs) {
  const input = await vs.openPalette();
  await input.fill('>MCP: List Servers');
  const command = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'MCP: List Servers' }).first();
  await command.waitFor({ state: 'visible', timeout: 10_000 });
  await command.click();
  const rows = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: /\(gated\)|Add Server/ });
  await rows.first().waitFor({ state: 'visible', timeout: 15_000 });
  return (await vs.page.locator('.quick-input-list .monaco-list-row').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
}

test('the agent entrance works inside the real extension host', { timeout: 300_000 }, async (t) => {
  const suite = path.join(runDir(), 'agent-entrance-suite.js');
  await bundleInHostSuite(suite);
  const resultFile = path.join(runDir(), 'agent-entrance-result.json');
  fs.rmSync(resultFile, { force: true });

  const vs = await launchVSCode({
    name: 'agent-entrance',
    workspace: { files: { 'README.md': '# agent entrance test workspace\n' } },
    settings: {
      // The harness turns AI features off; the in-host tests pass either way, but VS Code hides its MCP commands then.
      'chat.disableAIFeatures': false,
      // A Plangate server in user settings: VS Code itself does not know it, so only its gated twin is in its MCP list.
      'plangate.servers': { specfixture: { type: 'stdio', command: 'node', args: [FIXTURE_SERVER, '--root', path.join(runDir(), 'specfixture-root')] } },
    },
    env: { PLANGATE_TEST_SUITE: suite, PLANGATE_TEST_RESULT: resultFile, PLANGATE_TEST_GREP: 'agent entrance' },
  });
  let result;
  let listed = [];
  try {
    const deadline = Date.now() + 180_000;
    while (!fs.existsSync(resultFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    await vs.screenshot('agent-entrance-done');
    assert.ok(fs.existsSync(resultFile), `no result file after 180 s: did the extension activate? logs: ${vs.extensionHostLogs().join(', ') || vs.dir}`);
    result = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
    if (result.failed === 0) {
      // VS Code's own MCP list shows the gated twin of the user-settings server, offered by Plangate's provider.
      listed = await listMcpServers(vs);
      await vs.screenshot('mcp-list-servers');
      await vs.page.keyboard.press('Escape');
    }
  } finally {
    await vs.close();
  }

  assert.ok(result.tests.length > 0, 'the in-host suite ran no test');
  for (const r of result.tests) {
    await t.test(r.name, () => {
      if (!r.ok) assert.fail(`in the extension host (${r.ms} ms):\n${r.error}\n\nVS Code's MCP logs:\n${mcpLogs(vs.userDataDir)}`);
    });
  }
  assert.equal(result.failed, 0, `${result.failed} of ${result.tests.length} in-host tests failed`);
  assert.ok(listed.some((r) => r.startsWith('specfixture (gated)') && r.includes('Plangate (gated servers)')),
    `MCP: List Servers shows the gated server from Plangate's provider; rows: ${JSON.stringify(listed)}`);
  assert.ok(!listed.some((r) => r.startsWith('agentfixture (gated)')), `the server the suite turned off is gone from the list; rows: ${JSON.stringify(listed)}`);
});
