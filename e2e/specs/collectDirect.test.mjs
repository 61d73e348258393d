// Collect mode's other half in a real VS Code: a server whose forms are in `submitMode: "direct"` (the fixture with
// --submit-mode direct). There is no staging: Submit asks for confirmation in a modal dialog, Cancel there sends
// nothing, and Submit calls create_model once with what was typed. What ran is read from the fixture's call log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer } from '../lib/workspace.mjs';
import { callTool, waitForServerRunning } from '../lib/panel.mjs';

const log = callLogBeside('direct-calls.jsonl');

const vs = useVSCode({
  name: 'collect-direct',
  workspace: {
    files: { 'README.md': '# collect mode, direct\n' },
    servers: (dir) => ({ fixture: fixtureServer(dir, { callLog: log.path(dir), args: ['--submit-mode', 'direct'] }) }),
  },
});

const { lastSeq, callsAfter } = log.of(() => vs.workspaceDir);

test('direct mode: no staging; Submit asks first, Cancel sends nothing, Submit calls create_model once', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'new_model_app', {
    fill: async (form) => {
      await form.getByLabel(/^model\b/).fill('Contact');
      await form.getByLabel(/^mode\b/).fill('form');
    },
  });
  const form = web.locator('main div.collect');
  await form.getByRole('heading', { name: 'Create Contact' }).waitFor({ timeout: 20_000 });
  await form.getByText('submits directly').waitFor();
  assert.equal(await form.getByRole('button', { name: 'Stage for review' }).count(), 0, 'direct mode offers no staging');
  await form.locator('form.collect-form').getByLabel(/^Name/).fill('Ada Lovelace');
  await form.getByRole('textbox', { name: /^Email/ }).fill('ada@example.com');

  const dialog = vs.page.locator('.monaco-dialog-box');
  await form.getByRole('button', { name: 'Submit', exact: true }).click();
  await dialog.filter({ hasText: 'Submit "Create Contact" to "fixture"?' }).waitFor({ timeout: 10_000 });
  assert.match(await dialog.innerText(), /Plangate calls create_model with \d+ attributes?: .*name.*email/s);
  await vs.screenshot('direct-confirm');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.deepEqual(
    callsAfter(since).map(([tool]) => tool),
    ['new_model_app'],
    'Cancel sent nothing',
  );
  assert.equal(await form.locator('form.collect-form').getByLabel(/^Name/).inputValue(), 'Ada Lovelace', 'the form keeps what was typed');

  await form.getByRole('button', { name: 'Submit', exact: true }).click();
  await dialog.getByRole('button', { name: 'Submit' }).click();
  await form.getByRole('heading', { name: 'Submitted' }).waitFor({ timeout: 15_000 });
  const calls = callsAfter(since);
  assert.deepEqual(
    calls.map(([tool]) => tool),
    ['new_model_app', 'create_model'],
    'no collect_form_data: nothing was staged',
  );
  const attributes = calls[1][1].attributes;
  assert.equal(attributes.name, 'Ada Lovelace');
  assert.equal(attributes.email, 'ada@example.com');
  await vs.screenshot('direct-submitted');
});
