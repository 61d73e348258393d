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

/**
 * Answers VS Code's own confirmation dialog ("Run `update_model`"), which VS Code shows before an invokeTool of a tool
 * that is not read-only reaches its server, as a user would: Yes. Only for the fixture's tools the in-host tests call
 * this way (update_model, app_panel); any other dialog is left alone. Returns the stop function; `seen` counts the dialogs answered.
 */
function answerToolConfirmations(vs, seen) {
  let running = true;
  const loop = (async () => {
    const dialog = vs.page.locator('.monaco-dialog-box').filter({ hasText: /update_model|app_panel/ });
    while (running) {
      try {
        if (await dialog.isVisible()) {
          if (seen.length === 0) await vs.screenshot('vscode-confirms-update-model');
          seen.push(await dialog.innerText());
          await dialog.getByRole('button', { name: 'Yes', exact: true }).click({ timeout: 5000 });
          await dialog.waitFor({ state: 'hidden', timeout: 5000 });
        }
      } catch {
        // the page is busy or closing: look again
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

test('the in-host suites pass inside the real extension host, the agent entrance among them', { timeout: 300_000 }, async (t) => {
  const confirmations = [];
  const listed = await runInHostSuites(t, {
    env: { PLANGATE_TEST_CONFIRMS_VSCODE_DIALOGS: '1' },
    whileRunning: (vs) => answerToolConfirmations(vs, confirmations),
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
  if (!process.env.PLANGATE_TEST_GREP)
    assert.equal(
      confirmations.length,
      3,
      `VS Code asked its own confirmation for each of the two update_model calls of the Always allow test and the app_panel call: ${JSON.stringify(confirmations)}`,
    );
  assert.ok(
    !listed.some((r) => r.startsWith('agentfixture (gated)')),
    `the server the suite turned off is gone from the list; rows: ${JSON.stringify(listed)}`,
  );
});
