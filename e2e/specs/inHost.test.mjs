// The in-host suites (test/integration/*.test.ts) inside a real VS Code's extension host (code-server 4.139 =
// VS Code 1.139, no Copilot), through Plangate's test hook: code-server starts with PLANGATE_TEST_SUITE /
// PLANGATE_TEST_RESULT set, the browser connects (that starts the extension host), the hook runs the bundle after
// activation and writes the result file. Among them the agent entrance: VS Code's MCP service takes Plangate's gated
// server, starts it, lists its tools in vscode.lm.tools, and vscode.lm.invokeTool calls go through the gate. Then
// the spec checks that VS Code's own MCP server list (MCP: List Servers) shows the gated server.
// Chat features are on in this session (the harness turns them off elsewhere): with them off, the gated server's
// tools never reach vscode.lm.tools in code-server 4.139.1. One session runs every suite.
// Every in-host test is reported here as a subtest of its own; VS Code's MCP logs are attached on failure.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runInHostSuites } from '../lib/inHost.mjs';
import { FIXTURE_SERVER, runDir } from '../lib/env.mjs';

/** VS Code's own logs about MCP servers (the gated server's stderr lands there), newest lines last. */
function mcpLogs(userDataDir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/mcp/i.test(e.name) && e.name.endsWith('.log'))
        out.push(`--- ${p}\n${fs.readFileSync(p, 'utf8').split('\n').slice(-40).join('\n')}`);
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

test('the in-host suites pass inside the real extension host, the agent entrance among them', { timeout: 300_000 }, async (t) => {
  const listed = await runInHostSuites(t, {
    name: 'in-host',
    waitMs: 180_000,
    settings: {
      // The harness turns AI features off; with them off the gated server's tools never reach vscode.lm.tools.
      'chat.disableAIFeatures': false,
      // A Plangate server in user settings: VS Code itself does not know it, so only its gated twin is in its MCP list.
      'plangate.servers': {
        specfixture: { type: 'stdio', command: 'node', args: [FIXTURE_SERVER, '--root', path.join(runDir(), 'specfixture-root')] },
      },
    },
    // VS Code's own MCP list shows the gated twin of the user-settings server, offered by Plangate's provider.
    whilePassing: async (vs) => {
      const rows = await listMcpServers(vs);
      await vs.screenshot('mcp-list-servers');
      await vs.page.keyboard.press('Escape');
      return rows;
    },
    failureDetail: (vs) => `\n\nVS Code's MCP logs:\n${mcpLogs(vs.userDataDir)}`,
  });
  assert.ok(
    listed.some((r) => r.startsWith('specfixture (gated)') && r.includes('Plangate (gated servers)')),
    `MCP: List Servers shows the gated server from Plangate's provider; rows: ${JSON.stringify(listed)}`,
  );
  assert.ok(
    !listed.some((r) => r.startsWith('agentfixture (gated)')),
    `the server the suite turned off is gone from the list; rows: ${JSON.stringify(listed)}`,
  );
});
