// A server's sampling request in the real VS Code (code-server 4.139.1): the real
// @modelcontextprotocol/server-everything's trigger-sampling-request, called from Call Tool, opens its own panel item.
// code-server has no language model, so the item says so plainly and offers Decline only; Decline reaches the server as
// the refusal (the tool's result shows it). Screenshots in dark and light.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../lib/env.mjs';
import { ledgerRecords } from '../lib/ledger.mjs';
import { useVSCode } from '../lib/vscode.mjs';
import { callTool, setTheme, waitForServerRunning } from '../lib/panel.mjs';

const vs = useVSCode({
  name: 'sampling',
  workspace: {
    servers: {
      everything: {
        type: 'stdio',
        command: 'node',
        args: [path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
      },
    },
  },
});

test('a sampling request is its own panel item: who asks, from which call, the marked text; the status bar counts it as awaiting approval; no model: Decline, and the server gets the refusal', async () => {
  await waitForServerRunning(vs, 'everything');
  const web = await callTool(vs, 'Trigger Sampling Request Tool', {
    fill: async (form) => {
      await form.getByLabel(/^prompt/).fill('name a colour \u202eevil');
    },
  });
  const item = web.locator('.sampling');
  await item.waitFor({ timeout: 20_000 });
  assert.match(await item.locator('h1').innerText(), /A server asks for a model’s answer/);
  assert.match(await item.locator('.card-who').innerText(), /Server everything asks during its tool call\s*trigger-sampling-request/);
  assert.match(await item.locator('.sampling-message.system').innerText(), /You are a helpful test server\./);
  assert.match(await item.locator('.sampling-message.user').innerText(), /name a colour ⟨U\+202E⟩evil/);
  assert.match(await item.innerText(), /Token limit: 100/);
  assert.match(await item.innerText(), /No language model is available in VS Code/);
  assert.equal(await item.getByRole('button', { name: 'Approve' }).count(), 0);
  // The request waits for the user: the status bar says so (it said "idle" while a request waited).
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  await vs.screenshot('sampling-dark');
  await setTheme(vs, 'light', web);
  await vs.screenshot('sampling-light');
  await item.getByRole('button', { name: 'Decline' }).click();
  await web.locator('main').filter({ hasText: 'User rejected sampling request' }).waitFor({ timeout: 20_000 });
  await vs.waitForStatus('Plangate: idle');
  await vs.screenshot('sampling-declined');
  const records = await ledgerRecords(vs, 'samplingDecided');
  assert.equal(records.length, 1);
  assert.equal(records[0].server, 'everything');
  assert.equal(records[0].by, 'user');
  assert.equal(records[0].outcome, 'declined');
  assert.equal(records[0].answer, undefined);
});
