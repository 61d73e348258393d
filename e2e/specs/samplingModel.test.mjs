// A server's sampling request answered by a real `vscode.lm` language model in the real VS Code (code-server 4.139.1):
// e2e/fakeModel is a test-only extension linked beside Plangate that registers one model (finalized API
// `lm.registerLanguageModelChatProvider`) whose answer is deterministic and echoes the end of the request. The real
// @modelcontextprotocol/server-everything's trigger-sampling-request asks; the item offers the model, Approve runs it,
// the answer is shown for review, the user edits it and presses Send: the server's tool result carries the edited
// text, and the ledger records the answer as sent and edited.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../lib/env.mjs';
import { ledgerRecords } from '../lib/ledger.mjs';
import { useVSCode } from '../lib/vscode.mjs';
import { callTool, waitForServerRunning } from '../lib/panel.mjs';

const vs = useVSCode({
  name: 'sampling-model',
  extraExtensions: [path.join(ROOT, 'e2e', 'fakeModel')],
  settings: { 'chat.disableAIFeatures': false },
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

const MARKER = ' (checked by a human: E2E-EDIT-7f3a)';

test('Approve runs the chosen model; the answer is reviewed, edited and sent: the server gets the edited text, the ledger says sent and edited', async () => {
  await waitForServerRunning(vs, 'everything');
  const web = await callTool(vs, 'Trigger Sampling Request Tool', {
    fill: async (form) => {
      await form.getByLabel(/^prompt/).fill('name a colour');
    },
  });
  const item = web.locator('.sampling');
  await item.waitFor({ timeout: 20_000 });
  const picker = item.getByLabel('Model');
  await picker.waitFor({ timeout: 10_000 });
  assert.deepEqual(await picker.locator('option').allInnerTexts(), ['E2E Echo (e2e-fake)']);
  await vs.screenshot('sampling-model-request');
  await item.getByRole('button', { name: 'Approve' }).click();

  // VS Code may ask whether Plangate may use another extension's model: a modal in the workbench, answered as a user would.
  const answerBox = item.locator('textarea.sampling-answer');
  const allow = vs.page.locator('.monaco-dialog-box').getByRole('button', { name: 'Allow' });
  await Promise.race([answerBox.waitFor({ timeout: 30_000 }), allow.waitFor({ timeout: 30_000 })]);
  if (await allow.isVisible()) {
    vs.log('VS Code asked to allow the model for Plangate: Allow');
    await vs.screenshot('sampling-model-allow');
    await allow.click();
  }
  await answerBox.waitFor({ timeout: 30_000 });
  const modelAnswer = await answerBox.inputValue();
  assert.match(modelAnswer, /^E2E model answer to: .*context: name a colour$/);
  assert.match(await item.locator('h1').innerText(), /Review the model’s answer/);
  await vs.screenshot('sampling-model-answer');

  await answerBox.click();
  await answerBox.press('End');
  await answerBox.pressSequentially(MARKER);
  await vs.screenshot('sampling-model-edited');
  await item.getByRole('button', { name: 'Send' }).click();
  // The tool's result (server-everything prints the sampling result it got back) shows the edited answer.
  const result = web.locator('main').filter({ hasText: 'LLM sampling result' });
  await result.waitFor({ timeout: 20_000 });
  assert.ok((await result.innerText()).includes(modelAnswer + MARKER), 'the server got the edited answer');
  await vs.screenshot('sampling-model-sent');

  const records = await ledgerRecords(vs, 'samplingDecided');
  assert.equal(records.length, 1);
  assert.equal(records[0].server, 'everything');
  assert.deepEqual(records[0].calls, ['trigger-sampling-request']);
  assert.equal(records[0].by, 'user');
  assert.equal(records[0].outcome, 'sent');
  assert.equal(records[0].edited, true);
  assert.match(records[0].model, /E2E Echo/);
  assert.ok(String(records[0].answer).startsWith('E2E model answer to:'), `the ledger has the answer's beginning: ${records[0].answer}`);
});
