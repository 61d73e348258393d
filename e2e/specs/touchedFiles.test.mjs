// Touched files in a real VS Code: a plan from the fixture server whose steps run on
// @modelcontextprotocol/server-filesystem (cross-server): it edits one file (a dry-run preview the user presses),
// writes another, and writes a third outside its declared globs. The panel predicts the three changes, lists the
// actual ones after the run with the third flagged "undeclared write", and Revert restores the exact bytes and
// removes the files the plan created.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../lib/env.mjs';
import { useVSCode } from '../lib/vscode.mjs';
import { fixtureServer, withUserSettings } from '../lib/workspace.mjs';

const SERVER_FILESYSTEM = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
// CRLF and a byte-order mark: a revert that rewrote text instead of restoring bytes would lose them.
const NOTES = '\ufefftitle\r\nstatus: draft\r\n';

const vs = useVSCode({
  name: 'touched-files',
  workspace: {
    files: { 'notes.md': NOTES, 'src/keep.txt': 'keep\n', 'outside/.keep': '', '.fixture-notes.json': '["from before"]\n' },
    servers: (dir) => ({
      demo: fixtureServer(dir),
      files: { type: 'stdio', command: 'node', args: [SERVER_FILESYSTEM, fs.realpathSync(dir)] },
    }),
  },
});

async function callTool(tool) {
  await vs.openPalette();
  const input = vs.page.locator('.quick-input-widget .quick-input-box input');
  await input.fill('>Plangate: Call Tool');
  await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Plangate: Call Tool' }).first().waitFor();
  await vs.page.keyboard.press('Enter');
  await vs.page.locator('.quick-input-widget input[placeholder="Pick a tool to call"]').waitFor();
  await input.fill(tool);
  await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: tool }).first().waitFor();
  await vs.page.keyboard.press('Enter');
}

test('predicted diffs before approval, actual changes with the undeclared write after, and an exact revert', async () => {
  await vs.waitForStatus('Plangate: idle');
  await vs.openView('Servers');
  for (const server of ['demo', 'files']) {
    await vs
      .viewPane('Servers')
      .locator('.monaco-list-row', { hasText: server })
      .filter({ hasText: 'running' })
      .first()
      .waitFor({ timeout: 60_000 });
  }
  const root = fs.realpathSync(vs.workspaceDir);
  const before = fs.readFileSync(path.join(root, 'notes.md'));

  await callTool('plan_cross_server');
  let web = await vs.webview({ title: 'Plangate' });
  await web.getByRole('textbox').first().fill(root);
  await web.getByRole('button', { name: 'Call' }).click();
  await web.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 30_000 });

  // Before approval: three predicted changes; the edit's dry run is a call to another server (files) of a destructive
  // tool, so it waits for Preview, which asks on the card; nothing written yet.
  const predicted = web.getByRole('list', { name: 'Predicted file changes' });
  await predicted.getByRole('button', { name: 'Preview step 1' }).click({ timeout: 30_000 });
  const card = web.locator('main .call-card');
  await card.waitFor({ timeout: 15_000 });
  assert.match(await card.locator('.card-who').innerText(), /dry-run preview you pressed .* calls edit_file on server files/);
  await card.getByRole('button', { name: 'Allow once' }).click();
  await predicted.getByRole('button', { name: 'Open the predicted diff of notes.md' }).waitFor({ timeout: 30_000 });
  const items = await predicted.getByRole('listitem').allInnerTexts();
  assert.equal(items.length, 3, items.join('\n'));
  assert.match(items[0], /notes\.md\s+modify \(from a dry run on server files\)/);
  assert.match(items[1], /src\/new\.txt\s+create/);
  assert.match(items[2], /outside\/undeclared\.txt\s+create/);
  assert.deepEqual(fs.readFileSync(path.join(root, 'notes.md')), before, 'the dry run wrote nothing');
  assert.equal(fs.existsSync(path.join(root, 'src/new.txt')), false);
  // server-filesystem marks edit_file and write_file destructive (MCP annotations): each step and the Safety card say so.
  const steps = web.locator('main article.top-plan ol.steps > li.step');
  assert.deepEqual(
    (await steps.locator('.flag.hint-destructive').allInnerTexts()).map((t) => t.trim()),
    ['destructive', 'destructive', 'destructive'],
  );
  assert.equal((await web.locator('p.tool-hints').innerText()).trim(), "By their tools' own account, 3 steps may destroy data.");
  // The plan came from server demo, its steps run on server files: each step carries the cross-server mark.
  assert.deepEqual(
    (await steps.locator('.flag', { hasText: 'other server' }).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()),
    ['other server: files', 'other server: files', 'other server: files'],
  );
  await vs.screenshot('predicted');

  // The predicted diff opens beside the panel, on virtual documents.
  await predicted.getByRole('button', { name: 'Open the predicted diff of notes.md' }).click();
  await vs.page.locator('.tab', { hasText: 'notes.md (now ↔ predicted by step 1)' }).waitFor({ timeout: 15_000 });
  await vs.screenshot('predicted-diff');

  web = await vs.webview({ title: 'Plangate' });
  await web.getByRole('button', { name: 'Approve and run' }).click();
  const changes = web.getByRole('list', { name: 'Changed files' });
  // The undeclared file is known from the watcher alone, whose event may come after the list is first made.
  await changes.getByRole('listitem').filter({ hasText: 'outside/undeclared.txt' }).waitFor({ timeout: 30_000 });
  const changed = await changes.getByRole('listitem').allInnerTexts();
  assert.equal(changed.length, 3, changed.join('\n'));
  const row = (p) => changed.find((t) => t.includes(p)) ?? '';
  assert.match(row('notes.md'), /modified/);
  assert.doesNotMatch(row('notes.md'), /undeclared write/);
  assert.match(row('src/new.txt'), /created/);
  assert.doesNotMatch(row('src/new.txt'), /undeclared write/);
  assert.match(row('outside/undeclared.txt'), /created.*undeclared write/s);
  assert.notDeepEqual(fs.readFileSync(path.join(root, 'notes.md')), before, 'the edit ran');
  await vs.screenshot('changes');

  // An actual change opens as a diff against the checkpoint.
  await changes.getByRole('button', { name: 'Open diff of notes.md' }).click();
  await vs.page.locator('.tab', { hasText: 'notes.md (before the plan ↔ now)' }).waitFor({ timeout: 15_000 });
  await vs.screenshot('actual-change-diff');

  // The user edits a file the plan created; Revert (whole plan) then asks before overwriting that edit.
  fs.writeFileSync(path.join(root, 'src/new.txt'), 'my own edit\n');
  web = await vs.webview({ title: 'Plangate' });
  await web.getByRole('button', { name: 'Revert', exact: true }).click();
  const dialog = vs.page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(await dialog.innerText(), /Revert the plan's changes to 3 file\(s\)\?/);
  await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
  const conflict = dialog.filter({ hasText: '1 file(s) changed after the plan ran: src/new.txt' });
  await conflict.waitFor({ timeout: 15_000 });
  await vs.screenshot('revert-conflict');
  await conflict.getByRole('button', { name: 'Revert the Others' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 15_000 });
  // The revert runs after the dialog closes, one file after another: wait until it is through (a loaded machine has
  // been seen to take longer than the removal of one file alone would suggest).
  const deadline = Date.now() + 30_000;
  const reverted = () =>
    !fs.existsSync(path.join(root, 'outside/undeclared.txt')) && fs.readFileSync(path.join(root, 'notes.md')).equals(before);
  while (!reverted() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(fs.readFileSync(path.join(root, 'notes.md')), before, 'the others were reverted');
  assert.equal(fs.readFileSync(path.join(root, 'src/new.txt'), 'utf8'), 'my own edit\n', 'the edited file was not overwritten');

  // Per-file Revert of the edited file, this time overwriting the edit on purpose.
  web = await vs.webview({ title: 'Plangate' });
  await web.getByRole('button', { name: 'Revert file src/new.txt' }).click({ timeout: 15_000 });
  await dialog.filter({ hasText: 'Revert src/new.txt to how it was before the plan?' }).waitFor({ timeout: 15_000 });
  await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
  await conflict.waitFor({ timeout: 15_000 });
  await conflict.getByRole('button', { name: 'Revert Anyway' }).click();
  await web.getByText('Reverted: the files match how they were before the plan.').waitFor({ timeout: 30_000 });
  assert.deepEqual(fs.readFileSync(path.join(root, 'notes.md')), before, 'the exact original bytes are back');
  assert.equal(fs.existsSync(path.join(root, 'src/new.txt')), false, 'the created file is removed');
  assert.equal(fs.existsSync(path.join(root, 'outside/undeclared.txt')), false, 'the undeclared file is removed');
  assert.ok(fs.existsSync(path.join(root, 'src/keep.txt')), 'files the plan did not touch stay');
  await vs.screenshot('reverted');
});

test('plangate.allowCrossServerSteps off: the cross-server plan does not run, and its steps say why', async () => {
  await withUserSettings(vs, { 'plangate.allowCrossServerSteps': false }, async () => {
    const root = fs.realpathSync(vs.workspaceDir);
    const before = fs.readFileSync(path.join(root, 'notes.md'));
    await callTool('plan_cross_server');
    const web = await vs.webview({ title: 'Plangate' });
    await web.getByRole('textbox').first().fill(root);
    await web.getByRole('button', { name: 'Call', exact: true }).click();
    const plan = web.locator('main article.top-plan');
    const unresolved = plan.locator('ol.steps > li.step .step-unresolved');
    await unresolved.first().waitFor({ timeout: 30_000 });
    assert.equal(await unresolved.count(), 3);
    assert.match(await unresolved.first().getAttribute('title'), /cross-server steps are off \(setting plangate\.allowCrossServerSteps\)/);
    await vs.screenshot('cross-server-off');
    // Approving it runs nothing: the plan blocks on its first step and says why.
    await plan.getByRole('button', { name: 'Approve and run' }).click();
    const reason = plan.locator('p.blocked-reason');
    await reason.waitFor({ timeout: 15_000 });
    assert.match(await reason.innerText(), /cross-server steps are off \(setting plangate\.allowCrossServerSteps\).*Nothing ran\./s);
    await plan.getByRole('button', { name: 'Stop', exact: true }).click();
    assert.deepEqual(fs.readFileSync(path.join(root, 'notes.md')), before, 'nothing was written');
    assert.equal(fs.existsSync(path.join(root, 'src/new.txt')), false);
  });
});

test('a file that was there, rewritten through a temporary file renamed over it by a step that never names it: modified, never created, so Revert cannot remove it', async () => {
  const root = fs.realpathSync(vs.workspaceDir);
  const notes = path.join(root, '.fixture-notes.json');
  assert.equal(fs.readFileSync(notes, 'utf8'), '["from before"]\n');
  await callTool('plan_remember');
  const web = await vs.webview({ title: 'Plangate' });
  await web.getByRole('button', { name: 'Call', exact: true }).click();
  const plan = web.locator('main article.top-plan', { hasText: 'Remember a note.' });
  await plan.getByRole('button', { name: 'Approve and run' }).click({ timeout: 30_000 });
  const changes = plan.getByRole('list', { name: 'Changed files' });
  // The list is made when the run stops and grows when the watcher tells late of a change made during the run (a
  // loaded machine's watcher can be seconds behind): wait for the notes file's row.
  await changes.getByRole('listitem').filter({ hasText: '.fixture-notes.json' }).waitFor({ timeout: 30_000 });
  const changed = await changes.getByRole('listitem').allInnerTexts();
  assert.deepEqual(JSON.parse(fs.readFileSync(notes, 'utf8')), ['from before', 'remembered'], 'the step ran');
  // The fixture's own call log (.plangate-calls.jsonl, written beside) is listed too: only the notes file is judged here.
  const row = changed.filter((t) => t.includes('.fixture-notes.json'));
  assert.equal(row.length, 1, changed.join('\n'));
  assert.match(row[0], /modified/, 'the file was there before the plan');
  assert.doesNotMatch(row[0], /created/);
  assert.doesNotMatch(row[0], /Revert file/, 'Plangate has no copy of it from before, so it offers no revert of it');
  assert.ok(
    changed.every((t) => !t.includes('.tmp')) && fs.readdirSync(root).every((name) => !name.endsWith('.tmp')),
    'the temporary file is gone, and no row names it',
  );
  await vs.screenshot('renamed-over');
  // Plangate has no copy of a file the plan never named, so nothing reverts it; above all, nothing removes it. With
  // nothing revertable (the fixture's call log is outside the checkpoint too), no Revert is offered: the list says why.
  assert.equal(await plan.getByRole('button', { name: /Revert/ }).count(), 0);
  await plan.getByText('None of these can be reverted: Plangate has no copy of them from before the plan.').waitFor();
  assert.ok(fs.existsSync(notes), 'the file the plan rewrote is still there');
});
