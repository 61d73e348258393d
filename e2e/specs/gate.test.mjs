// The gate's promise where the user meets it, in a real VS Code: each step shows the server it runs on; a server that
// redefines a tool after the approval makes the plan ask again (saying what changed) instead of running it; a
// recovery action opens as a one-step plan that runs only after Approve. What ran is read from the fixture's call
// log, what the user sees from the webview.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer } from '../lib/workspace.mjs';
import { callTool, settlePanel, waitForServerRunning } from '../lib/panel.mjs';

const log = callLogBeside('fixture-calls.jsonl');

const vs = useVSCode({
  name: 'gate',
  workspace: {
    files: { 'README.md': '# gate workspace\n', 'notes.txt': 'hello world\n' },
    servers: (dir) => ({ fixture: fixtureServer(dir, { callLog: log.path(dir) }) }),
  },
});

afterEach(async (t) => {
  if (/** @type {any} */ (t)?.passed === false) await settlePanel(vs);
});

const { lastSeq, callsAfter } = log.of(() => vs.workspaceDir);
const planOf = (web) => web.locator('main article.top-plan');
const toolsAfter = (since) => callsAfter(since).map(([tool]) => tool);

test('each step shows the server it runs on before you approve', async () => {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'plan_scaffold');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
  const servers = plan.locator('ol.steps > li.step .step-server');
  await servers.first().waitFor({ timeout: 10_000 });
  assert.deepEqual((await servers.allInnerTexts()).map((t) => t.trim()), ['fixture', 'fixture', 'fixture', 'fixture']);
  assert.match(await servers.first().getAttribute('title'), /Runs on server fixture/);
  await vs.screenshot('server-per-step');
  await plan.getByRole('button', { name: 'Reject' }).click();
  await vs.waitForStatus('Plangate: idle');
});

test('a tool redefined after the approval: the step is not sent, the plan asks again and says why; approving again runs it', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_drift');
  const plan = planOf(web);
  await plan.locator('ol.steps > li.step .step-server').first().waitFor({ timeout: 10_000 });
  await plan.getByRole('button', { name: 'Approve and run' }).click();

  const notice = plan.locator('p.reapproval');
  await notice.waitFor({ timeout: 20_000 });
  assert.match(await notice.innerText(), /Step 2 was not sent, and the plan waits for your approval again: server 'fixture' changed the definition of tool 'drifting_tool'/);
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  assert.deepEqual(toolsAfter(since), ['plan_drift', 'redefine_drifting_tool'], 'the redefined tool was not called');
  const steps = plan.locator('ol.steps > li.step');
  assert.deepEqual((await steps.locator('.step-state-text').allInnerTexts()).map((t) => t.trim()), ['ok', 'pending']);
  assert.equal(await steps.nth(0).getByRole('button', { name: /Skip/ }).count(), 0, 'a step that ran cannot be marked to skip');
  await vs.screenshot('reapproval-after-drift');

  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await vs.waitForStatus('Plangate: idle', 20_000);
  assert.deepEqual(toolsAfter(since), ['plan_drift', 'redefine_drifting_tool', 'drifting_tool'], 'each step ran once, the second after the new approval');
});

test('a recovery action opens as a one-step plan with its server; nothing is sent until Approve and run', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_status', { fill: async (form) => form.getByLabel(/^status/).selectOption('blocked') });
  const blocked = planOf(web);
  await blocked.getByRole('button', { name: 'Choose another output directory' }).click();

  const recovery = planOf(web);
  await recovery.locator('p.instruction', { hasText: 'Recovery action "Choose another output directory"' }).waitFor({ timeout: 10_000 });
  const step = recovery.locator('ol.steps > li.step');
  assert.equal(await step.count(), 1);
  await step.locator('.step-server', { hasText: 'fixture' }).waitFor({ timeout: 10_000 });
  assert.match(await step.locator('.step-label').innerText(), /Choose another output directory/);
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  assert.deepEqual(toolsAfter(since), ['plan_status'], 'the recovery tool is not called before the approval');
  await vs.screenshot('recovery-as-plan');

  await recovery.getByRole('button', { name: 'Approve and run' }).click();
  await step.locator('.step-state-text', { hasText: 'ok' }).waitFor({ timeout: 20_000 });
  assert.deepEqual(toolsAfter(since), ['plan_status', 'select_output_directory']);
});

test('dry-run previews: sent to the step\'s server with the flag and labelled so; with plangate.previewWithDryRun off, nothing is sent', async () => {
  await waitForServerRunning(vs);
  const preview = async () => {
    const since = lastSeq();
    const web = await callTool(vs, 'plan_edit_dry_run', { fill: async (form) => form.getByLabel(/^path/).fill('notes.txt') });
    const plan = planOf(web);
    const predicted = plan.getByRole('list', { name: 'Predicted file changes' });
    await predicted.getByRole('listitem').first().waitFor({ timeout: 20_000 });
    const text = (await predicted.getByRole('listitem').first().innerText()).replace(/\s+/g, ' ');
    const calls = callsAfter(since);
    await plan.getByRole('button', { name: 'Reject' }).click();
    await vs.waitForStatus('Plangate: idle');
    return { text, calls };
  };
  const on = await preview();
  assert.match(on.text, /notes\.txt modify \(from a dry run on server fixture\)/);
  assert.deepEqual(on.calls.map(([tool, args]) => [tool, args.dryRun]), [['plan_edit_dry_run', undefined], ['edit_text', true]]);

  const settingsFile = path.join(vs.workspaceDir, '.vscode', 'settings.json');
  const saved = fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile, 'utf8') : undefined;
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  fs.writeFileSync(settingsFile, JSON.stringify({ ...(saved ? JSON.parse(saved) : {}), 'plangate.previewWithDryRun': false }, null, 2));
  try {
    await new Promise((r) => setTimeout(r, 1500)); // VS Code reads the changed settings file
    const off = await preview();
    assert.match(off.text, /Not previewed: dry-run previews are off \(setting plangate\.previewWithDryRun\)/);
    assert.deepEqual(off.calls.map(([tool]) => tool), ['plan_edit_dry_run'], 'no dry run was sent');
  } finally {
    if (saved === undefined) fs.rmSync(settingsFile); else fs.writeFileSync(settingsFile, saved);
  }
  assert.equal(fs.readFileSync(path.join(vs.workspaceDir, 'notes.txt'), 'utf8'), 'hello world\n', 'nothing was written');
});

test('invisible and bidi characters from the server are shown as marks in the instruction, labels, arguments and globs', async () => {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'plan_invisible');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
  const instruction = await plan.locator('p.instruction').innerText();
  assert.match(instruction, /report⟨U\+202E⟩fdp\.exe⟨U\+202C⟩/);
  assert.match(instruction, /Delete⟨U\+200B⟩ nothing⟨U\+E0041⟩/);
  assert.match(await plan.locator('ol.steps > li.step .step-label').first().innerText(), /Rename ⟨U\+2067⟩x⟨U\+2069⟩/);
  const text = await plan.innerText();
  assert.doesNotMatch(text, /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2060\uFEFF\u{E0000}-\u{E007F}]/u, 'no raw invisible character reaches the panel');
  // Native UI too: the Plans view's row (a tree item, not the webview) shows the marks, not reordered text.
  await vs.openView('Plans');
  const row = vs.viewPane('Plans').locator('.monaco-list-row', { hasText: 'Rename the report' }).first();
  await row.waitFor({ timeout: 10_000 });
  const rowText = await row.innerText();
  assert.match(rowText, /report⟨U\+202E⟩fdp/);
  assert.doesNotMatch(rowText, /[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/u);
  await vs.screenshot('invisible-characters');
  await plan.getByRole('button', { name: 'Reject' }).click();
  await vs.waitForStatus('Plangate: idle');
});
