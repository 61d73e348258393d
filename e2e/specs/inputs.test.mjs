// mcp.json inputs in a real VS Code: a password `promptString` and a `pickString` are asked once when the server
// starts, the server receives the values, the password never reaches the log, a window reload reuses the stored
// values, plangate.readMcpJson drops and restores the file's servers, and Plangate: Reset Server Inputs makes the
// next start ask again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { FIXTURE_SERVER } from '../lib/env.mjs';
import { callTool } from '../lib/panel.mjs';
import { readResultCard, treeRow, waitForRow } from '../lib/servers.mjs';
import { useVSCode } from '../lib/vscode.mjs';

const SECRET = 's3cret-token-value';

const vs = useVSCode({
  name: 'inputs',
  workspace: {
    files: {
      'README.md': '# inputs workspace\n',
      '.vscode/mcp.json': {
        inputs: [
          { type: 'promptString', id: 'token', description: 'API token for the fixture', password: true },
          { type: 'pickString', id: 'mode', description: 'Which mode the fixture runs in', options: ['one', 'two'], default: 'one' },
        ],
        servers: {
          fx: {
            type: 'stdio',
            command: 'node',
            args: [FIXTURE_SERVER, '--root', '${workspaceFolder}'],
            env: { GREETING: '${input:token}', MODE: '${input:mode}' },
          },
        },
      },
    },
  },
});

const quickInput = () => ({
  title: vs.page.locator('.quick-input-widget .quick-input-title'),
  input: vs.page.locator('.quick-input-widget .quick-input-box input'),
  rows: vs.page.locator('.quick-input-widget .quick-input-list .monaco-list-row'),
});

/** Calls the fixture's get_env for `name` and returns the text the result card shows. */
async function envOf(name) {
  await callTool(vs, 'get_env', { fill: (form) => form.getByRole('textbox', { name: /^name/ }).fill(name) });
  const card = await readResultCard(vs, 'get_env');
  return card.texts.join('\n');
}

/** Answers the two prompts: the token typed (masked), the mode picked from its list. Returns the mode rows shown. */
async function answerInputs(token, mode) {
  const q = quickInput();
  await q.title.filter({ hasText: 'Plangate: input "token" for an MCP server' }).waitFor({ timeout: 60_000 });
  assert.equal(await q.input.getAttribute('type'), 'password', 'the password input is masked');
  await q.input.fill(token);
  await vs.page.keyboard.press('Enter');
  await q.title.filter({ hasText: 'Plangate: input "mode" for an MCP server' }).waitFor({ timeout: 10_000 });
  const shown = (await q.rows.allInnerTexts()).map((t) => t.trim());
  await vs.screenshot(`pick-${mode}`);
  // As a keyboard user does: type to filter, Enter to take the match.
  await q.input.fill(mode);
  await q.rows.filter({ hasText: mode }).first().waitFor({ timeout: 5000 });
  await vs.page.keyboard.press('Enter');
  await q.title.waitFor({ state: 'hidden', timeout: 5000 });
  return shown;
}

async function waitForRunning(server) {
  await vs.openView('Servers');
  await waitForRow(vs, server, /^running/, 60_000);
}

test('a password prompt and a pick list are asked at start; the server gets both values; the password is not logged', async () => {
  const shown = await answerInputs(SECRET, 'two');
  assert.deepEqual(shown, ['one', 'two'], 'the default comes first');
  await waitForRunning('fx');
  assert.equal(await envOf('MODE'), 'two');
  assert.equal(await envOf('GREETING'), SECRET);
  await vs.screenshot('server-with-inputs');
  const logs = vs.extensionHostLogs().filter((f) => f.includes('plangate'));
  assert.ok(logs.length > 0, 'no Plangate log file');
  for (const file of logs) assert.ok(!fs.readFileSync(file, 'utf8').includes(SECRET), `${file} contains the password input`);
});

test('after a window reload the stored values are used: the server starts without asking again', async () => {
  await vs.page.reload({ waitUntil: 'domcontentloaded' });
  await vs.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await vs.waitForStatus('Plangate: idle', 60_000);
  await waitForRunning('fx');
  assert.equal(await quickInput().title.filter({ hasText: 'Plangate: input' }).count(), 0, 'no input was asked for');
  assert.equal(await envOf('GREETING'), SECRET);
  assert.equal(await envOf('MODE'), 'two');
});

test('plangate.readMcpJson off drops the servers of .vscode/mcp.json; on again brings them back', async () => {
  const settingsFile = path.join(vs.workspaceDir, '.vscode', 'settings.json');
  fs.writeFileSync(settingsFile, JSON.stringify({ 'plangate.readMcpJson': false }));
  await vs.openView('Servers');
  await treeRow(vs, 'fx').waitFor({ state: 'detached', timeout: 30_000 });
  await vs.screenshot('read-mcp-json-off');
  fs.writeFileSync(settingsFile, JSON.stringify({ 'plangate.readMcpJson': true }));
  await waitForRunning('fx');
  assert.equal(await quickInput().title.filter({ hasText: 'Plangate: input' }).count(), 0, 'the stored inputs were used again');
});

test('Reset Server Inputs forgets the values: the server asks again and runs with the new ones', async () => {
  // From the palette (vs.runCommand waits for the palette to close, but the token prompt takes its place at once).
  const palette = await vs.openPalette();
  await palette.fill('>Plangate: Reset Server Inputs');
  await quickInput().rows.filter({ hasText: 'Plangate: Reset Server Inputs' }).first().click();
  await answerInputs('second-token', 'one');
  await waitForRunning('fx');
  assert.equal(await envOf('GREETING'), 'second-token');
  assert.equal(await envOf('MODE'), 'one');
});
