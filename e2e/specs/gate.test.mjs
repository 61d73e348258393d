// The gate's promise where the user meets it, in a real VS Code: each step shows the server it runs on; a server that
// redefines a tool after the approval makes the plan ask again (saying what changed) instead of running it; a
// recovery action opens as a one-step plan that runs only after Approve. What ran is read from the fixture's call
// log, what the user sees from the webview.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { callToolFromPalette } from '../lib/servers.mjs';
import { ROOT } from '../lib/env.mjs';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer, withWorkspaceSettings } from '../lib/workspace.mjs';
import { callTool, panel, setTheme, settlePanel, waitForServerRunning } from '../lib/panel.mjs';

const log = callLogBeside('fixture-calls.jsonl');
const BASIC_APP_SERVER = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-basic-vanillajs', 'dist', 'index.js');

const vs = useVSCode({
  name: 'gate',
  workspace: {
    files: {
      'README.md': '# gate workspace\n',
      'notes.txt': 'hello world\n',
      // For the touched-files count: one file counts; one is hidden by files.exclude, one by search.exclude.
      'src/modules/audit/screen.ts': 'export {};\n',
      'src/modules/audit/gen/out.ts': 'export {};\n',
      'src/modules/audit/screen.snap': 'snapshot\n',
    },
    servers: (dir) => ({
      fixture: fixtureServer(dir, { callLog: log.path(dir) }),
      // A real MCP App server published by the protocol's maintainers (the ext-apps "basic" example), over stdio.
      'basic-app': { type: 'stdio', command: 'node', args: [BASIC_APP_SERVER, '--stdio'] },
    }),
  },
  // The user settings file is edited in VS Code's editor by the policy tests: text typed there stays as typed.
  settings: {
    'editor.autoIndent': 'none',
    'editor.autoClosingBrackets': 'never',
    'editor.autoClosingQuotes': 'never',
    'editor.formatOnType': false,
  },
});

afterEach(async (t) => {
  if (/** @type {any} */ (t)?.passed === false) await settlePanel(vs);
});

const { lastSeq, callsAfter } = log.of(() => vs.workspaceDir);
const planOf = (web) => web.locator('main article.top-plan');
const toolsAfter = (since) => callsAfter(since).map(([tool]) => tool);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The tools called after `since`, once there are `count` of them (the fixture flushes its log a little late). */
async function toolsOnceThere(since, count, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  while (toolsAfter(since).length < count && Date.now() < deadline) await sleep(100);
  return toolsAfter(since);
}

test('each step shows the server it runs on before you approve', async () => {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'plan_scaffold');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
  const servers = plan.locator('ol.steps > li.step .step-server');
  await servers.first().waitFor({ timeout: 10_000 });
  assert.deepEqual(
    (await servers.allInnerTexts()).map((t) => t.trim()),
    ['fixture', 'fixture', 'fixture', 'fixture'],
  );
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
  assert.match(
    await notice.innerText(),
    /Step 2 was not sent, and the plan waits for your approval again: server 'fixture' changed the definition of tool 'drifting_tool'/,
  );
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  assert.deepEqual(toolsAfter(since), ['plan_drift', 'redefine_drifting_tool'], 'the redefined tool was not called');
  const steps = plan.locator('ol.steps > li.step');
  assert.deepEqual(
    (await steps.locator('.step-state-text').allInnerTexts()).map((t) => t.trim()),
    ['ok', 'pending'],
  );
  assert.equal(await steps.nth(0).getByRole('button', { name: /Skip/ }).count(), 0, 'a step that ran cannot be marked to skip');
  await vs.screenshot('reapproval-after-drift');

  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await vs.waitForStatus('Plangate: idle', 20_000);
  assert.deepEqual(
    toolsAfter(since),
    ['plan_drift', 'redefine_drifting_tool', 'drifting_tool'],
    'each step ran once, the second after the new approval',
  );
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

test("dry-run previews: sent to the step's server with the flag and labelled so; with plangate.previewWithDryRun off, nothing is sent", async () => {
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
  assert.deepEqual(
    on.calls.map(([tool, args]) => [tool, args.dryRun]),
    [
      ['plan_edit_dry_run', undefined],
      ['edit_text', true],
    ],
  );

  await withSettings({ 'plangate.previewWithDryRun': false }, async () => {
    const off = await preview();
    assert.match(off.text, /Not previewed: dry-run previews are off \(setting plangate\.previewWithDryRun\)/);
    assert.deepEqual(
      off.calls.map(([tool]) => tool),
      ['plan_edit_dry_run'],
      'no dry run was sent',
    );
  });
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
  assert.doesNotMatch(
    text,
    /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2060\uFEFF\u{E0000}-\u{E007F}]/u,
    'no raw invisible character reaches the panel',
  );
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

test('a step marked Skip before approval is never called; the others run in order', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_scaffold');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
  const skip = plan.getByRole('button', { name: 'Skip step 3' });
  await skip.click();
  await plan.locator('li.step[data-step="3"]', { hasText: 'will be skipped' }).waitFor({ timeout: 10_000 });
  assert.equal(await skip.getAttribute('aria-pressed'), 'true');
  await vs.screenshot('skip-before-approval');
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await plan.getByRole('button', { name: 'No', exact: true }).click({ timeout: 30_000 });
  await vs.waitForStatus('Plangate: idle');
  const calls = callsAfter(since);
  assert.deepEqual(
    calls.map(([tool, args]) => [tool, args.name]),
    [
      ['plan_scaffold', undefined],
      ['create_screen', undefined],
      ['create_component', 'OvertimeStartDaySelector'],
      ['create_component', 'PTCHoursOverride'],
    ],
    'step 3 (PayPeriodConfigurator) was not called',
  );
  assert.deepEqual(
    (await plan.locator('ol.steps > li.step .step-state-text').allInnerTexts()).map((t) => t.trim()),
    ['ok', 'ok', 'skipped', 'ok'],
  );
});

test("an argument edit that breaks the tool's input schema is refused, naming the field; nothing is saved or sent", async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_scaffold');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
  const step = plan.locator('li.step[data-step="2"]');
  await step.locator('details.args > summary').click();
  await step.getByRole('button', { name: 'Edit arguments of step 2' }).click();
  await step.getByRole('textbox', { name: 'Arguments of step 2 as JSON' }).fill('{"screen": 42, "name": "Widget"}');
  await step.getByRole('button', { name: 'Save arguments' }).click();
  const error = step.locator('[role=alert]').filter({ hasText: /\S/ });
  await error.first().waitFor({ timeout: 10_000 });
  assert.match(await error.first().innerText(), /\bscreen\b/, 'the message names the field at fault');
  await vs.screenshot('edit-refused');
  assert.equal(await step.locator('.flag.edited').count(), 0, 'the refused edit was not saved');
  await plan.getByRole('button', { name: 'Reject' }).click();
  await vs.waitForStatus('Plangate: idle');
  assert.deepEqual(toolsAfter(since), ['plan_scaffold'], 'nothing was sent');
});

test('ask_user and confirm steps are answered in the panel: the answers are recorded, never sent; Stop at a confirm runs nothing more', async () => {
  await waitForServerRunning(vs);
  const run = async (atConfirm) => {
    const since = lastSeq();
    const web = await callTool(vs, 'plan_confirm');
    const plan = planOf(web);
    await plan.getByRole('button', { name: 'Approve and run' }).click();
    const form = plan.locator('form.ask-form');
    await form.waitFor({ timeout: 20_000 });
    assert.match(await form.innerText(), /Name the release and pick a channel\./);
    await form.getByLabel(/^release/).fill('2.4.0');
    await form.getByLabel(/^channel/).selectOption('beta');
    await form.getByRole('button', { name: 'Answer' }).click();
    const confirm = plan.getByRole('group', { name: 'Confirm step 3' });
    await confirm.waitFor({ timeout: 20_000 });
    assert.deepEqual(
      await toolsOnceThere(since, 2),
      ['plan_confirm', 'succeed'],
      'nothing runs while the confirm waits; ask_user never reaches the server',
    );
    await vs.screenshot(`confirm-waits-${atConfirm}`);
    await confirm.getByRole('button', { name: atConfirm }).click();
    return { since, plan };
  };

  const granted = await run('Run step');
  await granted.plan.getByRole('button', { name: 'No', exact: true }).click({ timeout: 30_000 });
  await vs.waitForStatus('Plangate: idle');
  assert.deepEqual(toolsAfter(granted.since), ['plan_confirm', 'succeed', 'echo', 'succeed']);
  const answered = await granted.plan.locator('li.step[data-step="2"] .step-summary').innerText();
  assert.match(answered, /Answered: \{"channel":"beta","release":"2\.4\.0"\}/, 'the answers are recorded with the step');

  const refused = await run('Stop');
  await refused.plan.locator('p.outcome').waitFor({ timeout: 20_000 });
  assert.match(await refused.plan.locator('p.outcome').innerText(), /^Stopped/);
  await vs.waitForStatus('Plangate: idle');
  assert.deepEqual(toolsAfter(refused.since), ['plan_confirm', 'succeed'], 'the refused step and the one after it were not called');
});

test('a nested plan opens in place with its own approval, and runs there', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_nested');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).first().click();
  const nested = plan.locator('article.nested-plan');
  await nested.waitFor({ timeout: 20_000 });
  assert.match(await nested.locator('p.instruction').innerText(), /nested/i);
  assert.deepEqual(
    await toolsOnceThere(since, 2),
    ['plan_nested', 'nested_plan_step'],
    "the nested plan's step waits for its own approval",
  );
  await vs.screenshot('nested-plan-in-place');
  await nested.getByRole('button', { name: 'Approve and run' }).click();
  await vs.waitForStatus('Plangate: idle', 30_000);
  const calls = callsAfter(since);
  assert.deepEqual(
    calls.map(([tool, args]) => [tool, args.depth]),
    [
      ['plan_nested', undefined],
      ['nested_plan_step', 1],
      ['nested_plan_step', 0],
    ],
  );
  await plan.locator('p.outcome', { hasText: 'Completed' }).first().waitFor({ timeout: 10_000 });
});

test('not-ok plans: invalid lists its errors with an ask form, error names what is missing, partial shows a checklist and a recovery that asks first', async () => {
  await waitForServerRunning(vs);
  const open = async (status) => {
    const web = await callTool(vs, 'plan_status', { fill: async (form) => form.getByLabel(/^status/).selectOption(status) });
    const plan = planOf(web);
    await plan.locator('p.notice', { hasText: `status "${status}"` }).waitFor({ timeout: 20_000 });
    assert.equal(await plan.getByRole('button', { name: 'Approve and run' }).count(), 0, `a ${status} plan has nothing to approve`);
    return { web, plan };
  };

  const { plan: invalid } = await open('invalid');
  const errors = await invalid.getByRole('region', { name: 'Errors' }).innerText();
  assert.match(errors, /REQUIRED\s+screen: Missing 'screen'/);
  assert.match(errors, /TYPE\s+components: Expected array of strings/);
  await invalid.locator('form.ask-form').getByRole('button', { name: 'Answer and re-plan' }).waitFor();
  await vs.screenshot('not-ok-invalid');

  const { plan: error } = await open('error');
  assert.match(await error.getByRole('region', { name: 'Missing' }).innerText(), /The server needs: componentId/);

  const since = lastSeq();
  const { web: partialWeb, plan: partial } = await open('partial');
  const checklist = partial.getByRole('region', { name: 'Partial results' }).locator('ul.checklist > li');
  assert.deepEqual(
    (await checklist.allInnerTexts()).map((t) => t.trim()),
    [
      'create_screen — ok: Base page created',
      'create_component:PayPeriodConfigurator — skipped: Already exists',
      'create_component:PTCHoursOverride — failed: Template missing',
    ],
  );
  assert.deepEqual(await checklist.evaluateAll((lis) => lis.map((li) => li.className)), [
    'outcome-ok',
    'outcome-skipped',
    'outcome-failed',
  ]);
  await vs.screenshot('not-ok-partial');
  await partial.getByRole('button', { name: 'Create placeholder (safe) (asks first)' }).click();
  const recovery = planOf(partialWeb);
  await recovery.locator('p.instruction', { hasText: 'Recovery action "Create placeholder (safe)"' }).waitFor({ timeout: 10_000 });
  await recovery.getByRole('button', { name: 'Approve and run' }).click();
  const confirm = recovery.getByRole('group', { name: 'Confirm step 1' });
  await confirm.waitFor({ timeout: 20_000 });
  assert.deepEqual(toolsAfter(since), ['plan_status'], 'the recovery action asks before it is sent, even after the approval');
  await confirm.getByRole('button', { name: 'Run step' }).click();
  assert.deepEqual(await toolsOnceThere(since, 2), ['plan_status', 'create_placeholder_component']);
  await vs.waitForStatus('Plangate: idle', 20_000);
});

test('clicking the status bar item brings the panel back', async () => {
  await vs.runCommand('View: Close All Editors');
  await vs.page.locator('.tabs-container .tab', { hasText: 'Plangate' }).waitFor({ state: 'detached', timeout: 10_000 });
  await vs.statusBarItem().click();
  const web = await panel(vs);
  await web.locator('main').waitFor({ timeout: 20_000 });
  await vs.page.locator('.tabs-container .tab.active', { hasText: 'Plangate' }).waitFor({ timeout: 10_000 });
});

test('follow-up Yes without a chat model offers to ask the server again; accepting calls the planning tool again with the same arguments', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_confirm');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  const form = plan.locator('form.ask-form');
  await form.waitFor({ timeout: 20_000 });
  await form.getByLabel(/^release/).fill('1.0');
  await form.getByLabel(/^channel/).selectOption('stable');
  await form.getByRole('button', { name: 'Answer' }).click();
  await plan.getByRole('group', { name: 'Confirm step 3' }).getByRole('button', { name: 'Run step' }).click({ timeout: 20_000 });
  await plan.getByRole('button', { name: 'Yes', exact: true }).click({ timeout: 30_000 });
  const toast = vs.page.locator('.notifications-toasts .notification-toast', { hasText: 'Announce the release?' });
  await toast.waitFor({ timeout: 15_000 });
  await vs.screenshot('follow-up-yes-offer');
  const before = toolsAfter(since).length;
  await toast.getByRole('button').filter({ hasNotText: /^$/ }).first().click();
  const tools = await toolsOnceThere(since, before + 1);
  assert.equal(tools[before], 'plan_confirm', `Yes called the planning tool again: ${JSON.stringify(tools)}`);
  const again = planOf(await panel(vs));
  await again.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 20_000 });
  await again.getByRole('button', { name: 'Reject' }).click();
  await vs.waitForStatus('Plangate: idle');
});

test('the touched-files count honours files.exclude and search.exclude; a glob reaching outside the workspace is flagged', async () => {
  await waitForServerRunning(vs);
  await withSettings({ 'files.exclude': { '**/gen': true }, 'search.exclude': { '**/*.snap': true } }, async () => {
    const web = await callTool(vs, 'plan_scaffold', { fill: async (form) => form.getByLabel(/^screen/).fill('Audit') });
    const plan = planOf(web);
    const glob = plan.locator('ul.globs > li', { hasText: 'src/modules/audit/**' });
    await glob.filter({ hasText: /— \d+ files?/ }).waitFor({ timeout: 20_000 });
    assert.match((await glob.innerText()).replace(/\s+/g, ' '), /src\/modules\/audit\/\*\* — 1 file/);
    await glob.locator('summary').first().click();
    assert.deepEqual(
      (await glob.locator('ul.files > li').allInnerTexts()).map((t) => t.trim()),
      ['src/modules/audit/screen.ts'],
    );
    await vs.screenshot('touched-count-excludes');
    await plan.getByRole('button', { name: 'Reject' }).click();
    await vs.waitForStatus('Plangate: idle');
  });
  const web = await callTool(vs, 'plan_edit_dry_run', { fill: async (form) => form.getByLabel(/^path/).fill('../elsewhere/notes.txt') });
  const plan = planOf(web);
  const outside = plan.locator('ul.globs > li', { hasText: '../elsewhere/notes.txt' });
  await outside.waitFor({ timeout: 20_000 });
  assert.match(await outside.innerText(), /outside the workspace/);
  await vs.screenshot('touched-outside-glob');
  await plan.getByRole('button', { name: 'Reject' }).click();
  await vs.waitForStatus('Plangate: idle');
});

test("a server's elicitation is a form in the panel: Accept sends the values, Decline and Cancel send their action and no content", async () => {
  await waitForServerRunning(vs);
  const answer = async (action, fill) => {
    await callToolFromPalette(vs, 'elicit_name'); // no arguments: called at once, no Call Tool form
    const web = await panel(vs);
    const form = web.getByRole('form', { name: 'Request from fixture' });
    await form.waitFor({ timeout: 20_000 });
    assert.match(await web.locator('main').innerText(), /Who is asking\?/);
    if (fill) await fill(form);
    await form.getByRole('button', { name: action, exact: true }).click();
    // The tool's answer comes back as its result card: "action: …" and "content: …".
    const deadline = Date.now() + 20_000;
    let text = '';
    while (Date.now() < deadline) {
      text = (
        await web
          .locator('main .result pre.text-block')
          .allInnerTexts()
          .catch(() => [])
      ).join('\n');
      if (text.startsWith(`action: ${action.toLowerCase()}`)) return text;
      await sleep(200);
    }
    throw new Error(`no result card for ${action}; last: ${text}`);
  };
  const accepted = await answer('Accept', async (form) => {
    await form.getByLabel(/^Name/).fill('Ada Lovelace');
    await form.getByLabel(/^Age/).fill('36');
    await vs.screenshot('elicitation-form');
  });
  assert.equal(accepted, 'action: accept\ncontent: {"name":"Ada Lovelace","age":36}');
  assert.equal(await answer('Decline'), 'action: decline\ncontent: null');
  assert.equal(await answer('Cancel'), 'action: cancel\ncontent: null');
});

test('a URL-mode elicitation asks in a dialog before anything opens: Decline answers decline, Open answers accept', async () => {
  await waitForServerRunning(vs);
  const ask = async (button, want) => {
    const web = await callTool(vs, 'elicit_url', { fill: async (form) => form.getByLabel(/^url/).fill('http://127.0.0.1:9/sign-in') });
    const dialog = vs.page
      .locator('.monaco-dialog-box')
      .filter({ hasText: 'Server "fixture" asks you to open a page: Sign in to the example service to continue.' });
    await dialog.waitFor({ timeout: 20_000 });
    assert.match(await dialog.innerText(), /http:\/\/127\.0\.0\.1:9\/sign-in/, 'the dialog shows the address before anything opens');
    await vs.screenshot(`url-elicitation-${button}`);
    // (Where Open sends the page is the browser's business: code-server hands it to VS Code's opener; not asserted here.)
    await dialog.getByRole('button', { name: button, exact: true }).click();
    const deadline = Date.now() + 20_000;
    let text = '';
    while (Date.now() < deadline && text !== want) {
      text = (
        await web
          .locator('main .result pre.text-block')
          .allInnerTexts()
          .catch(() => [])
      ).join('\n');
      if (text !== want) await sleep(200);
    }
    return { text };
  };
  assert.equal((await ask('Decline', 'action: decline')).text, 'action: decline');
  assert.equal((await ask('Open', 'action: accept')).text, 'action: accept');
});

/** Workspace settings for the length of `fn` (see withWorkspaceSettings). */
const withSettings = (settings, fn) => withWorkspaceSettings(vs.workspaceDir, settings, fn);

test('plangate.stepTimeoutSeconds: a step that runs past it fails with a timeout and blocks the plan', async () => {
  await waitForServerRunning(vs);
  await withSettings({ 'plangate.stepTimeoutSeconds': 2 }, async () => {
    const since = lastSeq();
    const web = await callTool(vs, 'plan_hang');
    const plan = planOf(web);
    const started = Date.now();
    await plan.getByRole('button', { name: 'Approve and run' }).click();
    await plan.getByRole('button', { name: 'Retry step' }).waitFor({ timeout: 20_000 });
    const waited = Date.now() - started;
    assert.match(await plan.locator('li.step[data-step="2"] .step-error').innerText(), /tim(ed|es) out|timeout/i);
    assert.ok(waited < 15_000, `the hanging step failed after ${waited} ms, not after about 2 s`);
    await vs.screenshot('step-timeout');
    await plan.getByRole('button', { name: 'Stop', exact: true }).click();
    await vs.waitForStatus('Plangate: idle', 20_000);
    assert.deepEqual(toolsAfter(since), ['plan_hang', 'succeed', 'hang'], 'the step after the timed-out one never ran');
  });
});

test('Export as JSON writes the plan with its steps and outcome to the file chosen in the save dialog', async () => {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'plan_failing');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await plan.getByRole('button', { name: 'Stop', exact: true }).click({ timeout: 20_000 });
  await plan.getByRole('button', { name: 'Export as JSON' }).click({ timeout: 20_000 });
  // code-server's save dialog is a quick input holding the proposed path (plan-<id>.json in the workspace).
  const input = vs.page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  // The dialog shows the folder first and fills in the file name a moment later.
  let proposed = '';
  for (let i = 0; i < 50 && !/\.json$/.test(proposed); i++) {
    proposed = await input.inputValue();
    if (!/\.json$/.test(proposed)) await sleep(200);
  }
  assert.match(proposed, /plan-[0-9a-f-]+\.json$/);
  await vs.page.keyboard.press('Enter');
  await vs.page.locator('.notifications-toasts .notification-toast', { hasText: 'plan exported to' }).first().waitFor({ timeout: 15_000 });
  const file = path.join(vs.workspaceDir, path.basename(proposed));
  const data = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.rmSync(file);
  assert.equal(data.exportedBy, 'Plangate');
  assert.equal(data.plan.plan.instruction, 'Run three steps; the second one fails.');
  assert.equal(data.plan.outcome, 'stopped');
  assert.deepEqual(
    data.plan.steps.map((st) => [st.call.tool, st.state]),
    [
      ['succeed', 'ok'],
      ['fail', 'failed'],
      ['succeed', 'not_run'],
    ],
  );
  assert.equal(data.plan.origin.server, 'fixture');
  assert.deepEqual(data.nested, {});
});

test('a window reload in the middle of a step comes back blocked on that step, its outcome unknown, and runs nothing again', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  let web = await callTool(vs, 'plan_hang');
  await planOf(web).getByRole('button', { name: 'Approve and run' }).click();
  await planOf(web).locator('li.step[data-step="2"].state-running').waitFor({ timeout: 20_000 });
  assert.deepEqual(await toolsOnceThere(since, 3), ['plan_hang', 'succeed', 'hang']);

  await vs.page.reload({ waitUntil: 'domcontentloaded' });
  await vs.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await vs.waitForStatus(/blocked/, 60_000);
  web = await panel(vs, 60_000);
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Retry step' }).waitFor({ timeout: 30_000 });
  assert.deepEqual(
    (await plan.locator('ol.steps > li.step .step-state-text').allInnerTexts()).map((t) => t.trim()),
    ['ok', 'outcome unknown', 'pending'],
  );
  assert.match(await plan.locator('li.step[data-step="2"] .step-error').innerText(), /outcome unknown/);
  await vs.screenshot('reload-mid-step-blocked');
  await sleep(1500);
  assert.deepEqual(toolsAfter(since), ['plan_hang', 'succeed', 'hang'], 'nothing ran again after the reload');
  await plan.getByRole('button', { name: 'Stop', exact: true }).click();
  await vs.waitForStatus('Plangate: idle', 20_000);
});

// Server apps (MCP Apps): the fixture's app page (fixture/appTools.ts) in the panel, reached through the webview's
// frames. Every status the app shows is an <output id>; what reached the server is read from the call log.
const appFrame = (web) => web.frameLocator('#apps iframe.app-frame:not([hidden])');
/** The single-call card the policy shows (for an app's calls, Call Tool's and the agent's). */
const card = (web) => web.locator('main .call-card');
const appDialog = (text) => vs.page.locator('.monaco-dialog-box').filter({ hasText: text });

/**
 * Presses `button` in the app and waits until its status reads `want` (a RegExp). The press is a click event dispatched
 * in the app's own document, not a mouse click at a point of the page: late in a long session (many panel items, a
 * window reload before), Chromium here has delivered such mouse clicks on a frame shown after it was hidden to the
 * panel under it instead (the app never heard it; the panel's tab strip took the focus). The app tests before this one
 * click with the mouse.
 */
async function appSays(app, button, want, timeout = 20_000) {
  if (button) await app.getByRole('button', { name: button, exact: true }).dispatchEvent('click');
  const status = app.locator('#status');
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline && !want.test(text)) {
    text = await status.innerText({ timeout: 2000 }).catch(() => '');
    if (!want.test(text)) await sleep(150);
  }
  assert.match(text, want);
  return text;
}

test("a server's app renders from a Call Tool result; its call asks on the policy's card: Deny sends nothing, Allow once sends it once", async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'app_panel', { fill: async (form) => form.getByLabel(/^label/).fill('Ada') });
  await web.locator('main .result .app-caption').waitFor({ timeout: 20_000 });
  assert.match(await web.locator('main .result .app-caption').innerText(), /ui:\/\/fixture\/panel-app/);
  const app = appFrame(web);
  await app.locator('#result', { hasText: 'App panel for Ada' }).waitFor({ timeout: 20_000 });
  assert.equal(await app.locator('#input').innerText(), '{"label":"Ada"}');
  assert.equal(await app.locator('#theme').innerText(), 'dark');
  await vs.screenshot('app-dark');

  // The theme follows VS Code's, told to the running app.
  await setTheme(vs, 'light', web);
  await app.locator('#theme', { hasText: 'light' }).waitFor({ timeout: 15_000 });
  await vs.screenshot('app-light');
  await setTheme(vs, 'dark', web);

  // The app's call waits on the single-call card (Plangate's default for an app's calls), once, not in a second prompt.
  await app.getByRole('button', { name: 'Call app_echo', exact: true }).click();
  const shown = card(web);
  await shown.waitFor({ timeout: 15_000 });
  assert.match(await shown.locator('.card-who').innerText(), /An MCP App of server 'fixture' calls app_echo on server fixture/);
  assert.match(await shown.locator('.card-because').innerText(), /Asked because: the app of server 'fixture' asked for this call/);
  assert.match(await shown.locator('.card-args').innerText(), /"text": "from the app"/, 'the card shows the arguments');
  assert.equal(await vs.page.locator('.monaco-dialog-box').count(), 0, 'no modal besides the card');
  await vs.screenshot('app-call-asks');
  await shown.getByLabel('Note for the caller').fill('not now');
  await shown.getByRole('button', { name: 'Deny' }).click();
  // The card goes, the app comes back, and it hears the refusal with the user's note.
  await appSays(app, null, /app_echo refused: .*The user denied the call to 'app_echo' on server 'fixture': not now/);
  assert.deepEqual(toolsAfter(since), ['app_panel'], 'nothing was sent when the user said no');

  await app.getByRole('button', { name: 'Call app_echo', exact: true }).click();
  await shown.waitFor({ timeout: 15_000 });
  await shown.getByRole('button', { name: 'Allow once' }).click();
  await appSays(app, null, /^app_echo: echo: from the app$/);
  assert.deepEqual(await toolsOnceThere(since, 2), ['app_panel', 'app_echo']);
  assert.deepEqual(callsAfter(since)[1], ['app_echo', { text: 'from the app' }]);
});

test('an app cannot call a model-only tool, reach the network or the webview, or navigate; a link asks first', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'app_panel', { fill: async (form) => form.getByLabel(/^label/).fill('Bo') });
  const app = appFrame(web);
  await app.locator('#result', { hasText: 'App panel for Bo' }).waitFor({ timeout: 20_000 });

  await appSays(app, 'Call a model-only tool', /app_panel refused: .*not meant for apps/);
  assert.equal(await vs.page.locator('.monaco-dialog-box').count(), 0, 'no dialog: refused before asking');
  await appSays(app, 'Fetch', /^network blocked$/);
  await appSays(app, 'Reach the webview', /^webview not reached$/);
  // A frame the app makes inside its own posts a fake empty panel to the panel's document: ignored.
  await appSays(app, 'Spoof the panel', /^spoof sent$/);
  await sleep(1000);
  assert.match(await web.locator('main .result .origin').innerText(), /fixture · app_panel/, 'the panel still shows its own state');

  // Navigating its own frame away only restarts the app (its page is put back, with its input and result again).
  await app.getByRole('button', { name: 'Navigate', exact: true }).dispatchEvent('click');
  await app.locator('#status', { hasText: /^ready$/ }).waitFor({ timeout: 15_000 });
  await app.locator('#result', { hasText: 'App panel for Bo' }).waitFor({ timeout: 15_000 });
  assert.equal(await app.locator('h2').innerText(), 'Fixture app');
  assert.match(await web.locator('main .result .origin').innerText(), /fixture · app_panel/);

  await app.getByRole('button', { name: 'Open link', exact: true }).dispatchEvent('click');
  const dialog = appDialog("The app of server 'fixture' wants to open a link.");
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(await dialog.innerText(), /https:\/\/example\.com\/from-app/);
  await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
  await appSays(app, null, /^link not opened$/);
  assert.deepEqual(toolsAfter(since), ['app_panel'], 'the app sent nothing to the server');
});

test('an app page of the wrong type or over the size cap: the plain result with a note; closing an app removes its frame', async () => {
  await waitForServerRunning(vs);
  await callToolFromPalette(vs, 'app_bad_mime'); // no arguments: called at once, no form
  let web = await panel(vs);
  const note = web.locator('main .result .app-note');
  await note.waitFor({ timeout: 20_000 });
  assert.match(await note.innerText(), /is not shown: its type is "text\/html", not "text\/html;profile=mcp-app"/);
  assert.match(await web.locator('main .result pre.text-block').first().innerText(), /A result whose app is not shown/);
  await vs.screenshot('app-fallback-note');
  await callToolFromPalette(vs, 'app_too_big');
  await web.locator('main .result .app-note', { hasText: 'larger than' }).waitFor({ timeout: 30_000 });

  web = await callTool(vs, 'app_panel', { fill: async (form) => form.getByLabel(/^label/).fill('Cy') });
  await appFrame(web).locator('#result', { hasText: 'App panel for Cy' }).waitFor({ timeout: 20_000 });
  const frames = web.locator('#apps iframe.app-frame');
  const before = await frames.count();
  await web.getByRole('button', { name: 'Close app_panel result' }).first().click();
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && (await frames.count()) >= before) await sleep(150);
  assert.equal(await frames.count(), before - 1, 'the closed result took its app frame with it');
});

test("a real MCP App server's page (the ext-apps basic example) renders; its button's tool call asks first, then goes through", async () => {
  await waitForServerRunning(vs, 'basic-app');
  await callToolFromPalette(vs, 'Get Time'); // its title; no arguments: called at once
  const web = await panel(vs);
  await web.locator('main .result .app-caption', { hasText: 'ui://get-time/mcp-app.html' }).waitFor({ timeout: 20_000 });
  const app = appFrame(web);
  const time = app.locator('#server-time');
  const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;
  const deadline = Date.now() + 20_000;
  let first = '';
  while (Date.now() < deadline && !iso.test(first)) first = (await time.innerText({ timeout: 2000 }).catch(() => '')).trim();
  assert.match(first, iso, 'the app shows the time from its tool result');
  await vs.screenshot('basic-app');
  await sleep(1100); // the next time differs by at least a second
  await app.getByRole('button', { name: 'Get Server Time' }).click();
  await card(web).waitFor({ timeout: 15_000 });
  assert.match(await card(web).locator('.card-who').innerText(), /An MCP App of server 'basic-app' calls get-time/);
  await card(web).getByRole('button', { name: 'Allow once' }).click();
  let second = first;
  const until = Date.now() + 15_000;
  while (Date.now() < until && second === first) second = (await time.innerText({ timeout: 2000 }).catch(() => first)).trim();
  assert.notEqual(second, first, 'the allowed call went through and its result reached the app');
  assert.match(second, iso);
});

test("a plan step on an app tool offers Open app once it ran: its app shows the step's input and result, and its calls still ask", async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_app', { fill: async (form) => form.getByLabel(/^label/).fill('Dee') });
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 20_000 });
  const openButtons = plan.getByRole('button', { name: /^Open the app of step/ });
  assert.equal(await openButtons.count(), 0, 'nothing to open before the steps ran');
  const frames = web.locator('#apps iframe.app-frame');
  const framesBefore = await frames.count();
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await vs.waitForStatus('Plangate: idle', 30_000);
  const open = plan.getByRole('button', { name: 'Open the app of step 2' });
  await open.waitFor({ timeout: 15_000 });
  assert.equal(await openButtons.count(), 1, 'only the step whose tool has an app offers it');
  assert.equal(await frames.count(), framesBefore, 'no frame until the user opens the app');
  await vs.screenshot('plan-step-open-app');

  await open.click();
  const app = appFrame(web);
  await app.locator('#result', { hasText: 'App panel for Dee' }).waitFor({ timeout: 20_000 });
  assert.equal(await app.locator('#input').innerText(), '{"label":"Dee"}', "the step's arguments are the app's tool input");
  assert.match(await web.locator('main .result .origin').innerText(), /fixture · app_panel/);
  assert.match(await web.locator('nav.switcher .tab.selected').innerText(), /app_panel · step 2/);
  await vs.screenshot('plan-step-app');

  // The app's call goes through the door as any app's: asked on the card first.
  await app.getByRole('button', { name: 'Call app_echo', exact: true }).dispatchEvent('click');
  await card(web).waitFor({ timeout: 15_000 });
  await card(web).getByRole('button', { name: 'Allow once' }).click();
  await appSays(app, null, /^app_echo: echo: from the app$/);
  assert.deepEqual(
    await toolsOnceThere(since, 4),
    ['plan_app', 'succeed', 'app_panel', 'app_echo'],
    'the step ran once; opening its app ran nothing',
  );

  // Open app again shows the same app, not a second one.
  const count = await frames.count();
  await web.locator('nav.switcher .tab-button', { hasText: 'Say hello, then show the fixture app' }).click();
  await open.waitFor({ timeout: 15_000 });
  await open.click();
  await app.locator('#result', { hasText: 'App panel for Dee' }).waitFor({ timeout: 20_000 });
  assert.equal(await frames.count(), count, 'no second frame for the same step');
});

/** A local HTTP server answering any origin (CORS `*`), counting the requests it saw. */
async function countingServer() {
  /** @type {string[]} */
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'text/plain' });
    res.end('ok');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  return { port: /** @type {import('node:net').AddressInfo} */ (server.address()).port, seen, close: () => server.close() };
}

test("an app's declared origin: blocked until the user allows it for the server, then reached; an undeclared one stays blocked", async () => {
  await waitForServerRunning(vs);
  const declared = await countingServer();
  const other = await countingServer();
  try {
    let web = await callTool(vs, 'app_network', {
      fill: async (form) => {
        await form.getByLabel(/^declared/).fill(String(declared.port));
        await form.getByLabel(/^other/).fill(String(other.port));
      },
    });
    const origin = `http://127.0.0.1:${declared.port}`;
    let notice = web.locator('main .result .app-network');
    await notice.waitFor({ timeout: 20_000 });
    assert.equal((await notice.innerText()).replace(/\s+/g, ' ').trim(), `fixture’s app asks to reach: ${origin} Allow Keep blocked`);
    assert.match((await notice.getAttribute('title')) ?? '', /Plangate: Reset Server App Network Access/);
    let app = appFrame(web);
    // On load, and again on the app's button: both blocked, and nothing reached either server.
    await app.locator('#declared', { hasText: 'blocked (1)' }).waitFor({ timeout: 20_000 });
    await app.locator('#other', { hasText: 'blocked (1)' }).waitFor({ timeout: 20_000 });
    await app.getByRole('button', { name: 'Fetch again' }).dispatchEvent('click');
    await app.locator('#declared', { hasText: 'blocked (2)' }).waitFor({ timeout: 20_000 });
    await app.locator('#other', { hasText: 'blocked (2)' }).waitFor({ timeout: 20_000 });
    await vs.screenshot('app-network-asks');
    assert.deepEqual([declared.seen, other.seen], [[], []], 'no request left the app before Allow');

    // Something typed in a native form (Call Tool's, not sent) must outlive the reload Allow causes.
    const typed = new Error('form filled, not called');
    await callTool(vs, 'app_panel', {
      fill: async (form) => {
        await form.getByLabel(/^label/).fill('typed before Allow');
        throw typed;
      },
    }).catch((err) => {
      if (err !== typed) throw err;
    });
    // The harness marks the panel's frame anew for each lookup: the locators follow the new mark.
    web = await panel(vs);
    notice = web.locator('main .result .app-network');
    app = appFrame(web);
    await web.locator('nav.switcher .tab-button', { hasText: 'app_network result' }).click();
    await notice.waitFor({ timeout: 15_000 });

    // Allow, from the keyboard: the panel loads again with the grant and the app starts afresh, fetching on load.
    await notice.getByRole('button', { name: 'Allow', exact: true }).focus();
    await vs.page.keyboard.press('Enter');
    const allowed = web.locator('main .result .app-network', { hasText: 'Allowed:' });
    await allowed.waitFor({ timeout: 20_000 });
    assert.equal((await allowed.innerText()).replace(/\s+/g, ' ').trim(), `Allowed: ${origin}`);
    assert.equal(await web.getByRole('button', { name: 'Allow', exact: true }).count(), 0, 'nothing left to ask');
    await app.locator('#declared', { hasText: 'reached (1)' }).waitFor({ timeout: 20_000 });
    await app.locator('#other', { hasText: 'blocked (1)' }).waitFor({ timeout: 20_000 });
    await app.getByRole('button', { name: 'Fetch again' }).dispatchEvent('click');
    await app.locator('#declared', { hasText: 'reached (2)' }).waitFor({ timeout: 20_000 });
    await app.locator('#other', { hasText: 'blocked (2)' }).waitFor({ timeout: 20_000 });
    await vs.screenshot('app-network-allowed');
    assert.deepEqual(declared.seen, ['/declared?try=1', '/declared?try=2'], 'the allowed origin got the requests after Allow');
    assert.deepEqual(other.seen, [], 'the undeclared origin got none');
    await web.locator('nav.switcher .tab-button', { hasText: 'Call app_panel' }).click();
    assert.equal(
      await web
        .locator('form.call-form')
        .getByLabel(/^label/)
        .inputValue({ timeout: 15_000 }),
      'typed before Allow',
      'the draft in the native form survived the reload',
    );
    await web.locator('nav.switcher .tab-button', { hasText: 'app_network result' }).click();
    await notice.waitFor({ timeout: 15_000 });

    // Reset forgets the grant: the app asks again and reaches nothing.
    await vs.runCommand('Plangate: Reset Server App Network Access');
    await web.locator('main .result .app-network', { hasText: 'asks to reach' }).waitFor({ timeout: 20_000 });
    await app.locator('#declared', { hasText: 'blocked (1)' }).waitFor({ timeout: 20_000 });
    assert.equal(declared.seen.length, 2, 'nothing more reached the origin after the reset');
    // Keep blocked: the notice says so and stops asking.
    await web.getByRole('button', { name: 'Keep blocked', exact: true }).click();
    await web.locator('main .result .app-network', { hasText: `Kept blocked: ${origin}` }).waitFor({ timeout: 15_000 });
    assert.equal(await web.getByRole('button', { name: 'Allow', exact: true }).count(), 0);
  } finally {
    declared.close();
    other.close();
  }
});

// Policy (allow / ask / deny by rule). Call Tool is an entrance like the agent's: a destructive tool is asked on the
// single-call card, which is the same card the agent's and an app's calls get.
const userSettingsFile = () => path.join(vs.userDataDir, 'User', 'settings.json');
const policyFile = () => path.join(vs.workspaceDir, '.vscode', 'plangate-policy.json');

/** Calls write_file_step from Call Tool with `file` as its path; returns the panel once the card shows. */
async function cardFor(file) {
  const web = await callTool(vs, 'write_file_step', {
    fill: async (form) => {
      await form.getByLabel(/^path/).fill(file);
      await form.getByLabel(/^content/).fill('written by the policy test\n');
    },
  });
  await card(web).waitFor({ timeout: 15_000 });
  return web;
}

test('policy: a destructive tool asks on the card, saying why; Deny sends nothing and the note reaches the caller; Allow once runs it once', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  let web = await cardFor('policy-once.txt');
  const shown = card(web);
  assert.match(await shown.locator('.card-who').innerText(), /Call Tool calls write_file_step on server fixture/);
  assert.match(
    await shown.locator('.card-because').innerText(),
    /Asked because: tool 'write_file_step' says it may destroy data \(destructiveHint\), and destructive tools are asked by default/,
  );
  assert.match(await shown.locator('.card-args').innerText(), /"path": "policy-once\.txt"/);
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  await vs.screenshot('policy-card');
  await shown.getByLabel('Note for the caller').fill('not before the review');
  await shown.getByRole('button', { name: 'Deny' }).click();
  await web
    .locator('main .result')
    .filter({ hasText: "The user denied the call to 'write_file_step' on server 'fixture': not before the review" })
    .waitFor({ timeout: 15_000 });
  await sleep(500);
  assert.deepEqual(toolsAfter(since), [], 'Deny: nothing reached the server');
  assert.equal(fs.existsSync(path.join(vs.workspaceDir, 'policy-once.txt')), false);

  web = await cardFor('policy-once.txt');
  await card(web).getByRole('button', { name: 'Allow once' }).click();
  await web.locator('main .result').waitFor({ timeout: 15_000 });
  assert.deepEqual(await toolsOnceThere(since, 1), ['write_file_step']);
  assert.equal(fs.readFileSync(path.join(vs.workspaceDir, 'policy-once.txt'), 'utf8'), 'written by the policy test\n');
});

test('policy: Always allow writes the narrowest rule to the user settings and shows it; the next call runs without the card', async () => {
  // The rule it writes stays in the user settings for the rest of this session (no later test calls write_file_step
  // from Call Tool); the settings editor that would take it out again keeps the command palette shut here.
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await cardFor('policy-always.txt');
  const always = card(web).locator('details.card-always');
  await always.locator('summary').click();
  assert.match(await always.locator('pre').innerText(), /"tool": "write_file_step"/);
  await card(web).getByRole('button', { name: 'Always allow' }).click();
  await vs.page
    .locator('.notifications-toasts .notification-toast', { hasText: "rule 'allow-fixture-write-file-step' added to your user settings" })
    .first()
    .waitFor({ timeout: 15_000 });
  await vs.screenshot('policy-always-allowed');
  const settings = JSON.parse(fs.readFileSync(userSettingsFile(), 'utf8'));
  assert.deepEqual(settings['plangate.policy']?.rules, [
    {
      id: 'allow-fixture-write-file-step',
      decision: 'allow',
      reason: settings['plangate.policy'].rules[0].reason,
      server: 'fixture',
      tool: 'write_file_step',
      entrance: ['call'],
    },
  ]);
  assert.deepEqual(await toolsOnceThere(since, 1), ['write_file_step']);

  const next = await callTool(vs, 'write_file_step', {
    fill: async (form) => {
      await form.getByLabel(/^path/).fill('policy-always.txt');
      await form.getByLabel(/^content/).fill('again\n');
    },
  });
  await next.locator('main .result').waitFor({ timeout: 15_000 });
  assert.equal(await card(next).count(), 0, 'no card: the rule allowed it');
  assert.deepEqual(await toolsOnceThere(since, 2), ['write_file_step', 'write_file_step']);
});

test("policy: a plan step that the workspace policy denies is marked before approval and never runs; the plan stops there with the rule's reason", async () => {
  await waitForServerRunning(vs);
  fs.writeFileSync(
    policyFile(),
    JSON.stringify({
      rules: [{ id: 'no-components', decision: 'deny', reason: 'components are made by hand here', tool: 'create_component' }],
    }),
  );
  try {
    await sleep(1500); // the file watcher reads it
    const since = lastSeq();
    const web = await callTool(vs, 'plan_scaffold');
    const plan = planOf(web);
    const marks = plan.locator('ol.steps > li.step .step-policy.policy-deny');
    await marks.first().waitFor({ timeout: 15_000 });
    assert.match(
      await marks.first().innerText(),
      /Cannot run: Denied by the workspace's rule 'no-components': components are made by hand here/,
    );
    assert.equal(await plan.locator('li.step[data-step="1"] .step-policy').count(), 0, 'the allowed step carries no mark');
    await vs.screenshot('policy-denied-step');
    await plan.getByRole('button', { name: 'Approve and run' }).click();
    await plan.getByRole('button', { name: 'Stop', exact: true }).waitFor({ timeout: 20_000 });
    assert.match(
      await plan.locator('li.step[data-step="2"] .step-error').innerText(),
      /Not sent: Policy denies calling 'create_component'.*components are made by hand here \(rule 'no-components'\)/,
    );
    assert.deepEqual(toolsAfter(since), ['plan_scaffold', 'create_screen'], 'the denied step was never sent');
    await plan.getByRole('button', { name: 'Stop', exact: true }).click();
    await vs.waitForStatus('Plangate: idle', 20_000);
  } finally {
    fs.rmSync(policyFile(), { force: true });
  }
});

/**
 * Replaces the user settings file's text the way a user does: in VS Code's own editor of it, saved. (A write to the
 * file from outside is not read by code-server while it runs.) Closes the editor after.
 */
async function editUserSettings(text) {
  await vs.runCommand('Preferences: Open User Settings (JSON)');
  const editor = vs.page.locator('.monaco-editor[data-uri$="/User/settings.json"]').first();
  await editor.waitFor({ timeout: 15_000 });
  await editor.click();
  await vs.page.keyboard.press('Control+A');
  await vs.page.keyboard.press('Delete');
  await vs.page.keyboard.insertText(text);
  await vs.page.keyboard.press('Control+S');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && fs.readFileSync(userSettingsFile(), 'utf8') !== text) await sleep(100);
  assert.equal(fs.readFileSync(userSettingsFile(), 'utf8'), text, 'the settings file was saved');
  // The settings file may open in a modal editor, which keeps the command palette from opening: Escape closes that
  // one; a settings file in an ordinary editor tab is closed from the palette.
  await editor.click();
  await vs.page.keyboard.press('Escape');
  if (
    !(await editor.waitFor({ state: 'hidden', timeout: 3000 }).then(
      () => true,
      () => false,
    ))
  ) {
    await vs.runCommand('View: Close Editor');
    await editor.waitFor({ state: 'hidden', timeout: 10_000 });
  }
}

test('policy: a mistake in your own plangate.policy shows in the Problems panel at its place in the user settings file', async () => {
  const before = fs.readFileSync(userSettingsFile(), 'utf8');
  const settings = JSON.parse(before);
  settings['plangate.policy'] = {
    rules: [
      { id: 'mine', decision: 'alow', reason: 'a typo' },
      { id: 'ghost', server: 'no-such-server', decision: 'ask', reason: 'a server that is not configured' },
    ],
  };
  const text = JSON.stringify(settings, null, 2);
  const lines = text.split('\n');
  const typoLine = lines.findIndex((l) => l.includes('"alow"')) + 1;
  const typoCol = lines[typoLine - 1].indexOf('"alow"') + 1;
  await editUserSettings(text);
  const rows = vs.page.locator('.markers-panel .monaco-list-row');
  try {
    await vs.runCommand('View: Toggle Problems').catch(() => vs.runCommand('Problems: Focus on Problems View'));
    const typo = rows.filter({ hasText: `Rule 'mine': "decision" must be "allow", "ask" or "deny".` });
    await typo.first().waitFor({ timeout: 20_000 });
    assert.match(await typo.first().innerText(), new RegExp(`Ln ${typoLine}, Col ${typoCol}`));
    await rows.filter({ hasText: 'no-such-server' }).first().waitFor({ timeout: 10_000 });
    assert.ok((await rows.filter({ hasText: 'settings.json' }).count()) > 0, 'the problems are listed under settings.json');
    await vs.screenshot('policy-user-problems');
  } finally {
    await editUserSettings(before);
  }
  // Fixed: the problems go.
  await rows.filter({ hasText: "Rule 'mine'" }).first().waitFor({ state: 'detached', timeout: 20_000 });
});

test('policy: a workspace policy file with a mistake shows it in the Problems panel with its line; a rule that loosens your policy is flagged', async () => {
  fs.writeFileSync(
    policyFile(),
    [
      '{',
      '  // a broken rule and a loosening one',
      '  "rules": [',
      '    { "id": "typo", "decision": "alow", "reason": "x" },',
      '    { "id": "repo-allows-all", "decision": "allow", "reason": "the repository says so" }',
      '  ]',
      '}',
    ].join('\n'),
  );
  try {
    await vs.page
      .locator('.notifications-toasts .notification-toast', { hasText: 'would loosen your own policy' })
      .first()
      .waitFor({ timeout: 15_000 });
    await vs.runCommand('View: Toggle Problems').catch(() => vs.runCommand('Problems: Focus on Problems View'));
    const rows = vs.page.locator('.markers-panel .monaco-list-row');
    const typo = rows.filter({ hasText: `Rule 'typo': "decision" must be "allow", "ask" or "deny".` });
    await typo.first().waitFor({ timeout: 15_000 });
    assert.match(await typo.first().innerText(), /Ln 4, Col 33/);
    await rows.filter({ hasText: "Rule 'repo-allows-all' would loosen your own policy" }).first().waitFor({ timeout: 10_000 });
    await vs.screenshot('policy-problems');
  } finally {
    fs.rmSync(policyFile(), { force: true });
  }
});

/** Accepts code-server's save dialog (a quick input holding the proposed path) once the name matches; returns the file. */
async function acceptSaveDialog(name) {
  const input = vs.page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  // The dialog shows the folder first and fills in the file name a moment later.
  let proposed = '';
  for (let i = 0; i < 50 && !name.test(proposed); i++) {
    proposed = await input.inputValue();
    if (!name.test(proposed)) await sleep(200);
  }
  assert.match(proposed, name);
  await vs.page.keyboard.press('Enter');
  return path.join(vs.workspaceDir, path.basename(proposed));
}

test('policy: the Plans view lists a denied and an allowed call with their rule ids; Export Calls as JSON writes both with them', async () => {
  await waitForServerRunning(vs);
  fs.writeFileSync(
    policyFile(),
    JSON.stringify({
      rules: [
        { id: 'no-echo-here', decision: 'deny', reason: 'echo is not for this repository', tool: 'echo' },
        { id: 'succeed-ok', decision: 'allow', reason: 'succeed only reports success', tool: 'succeed' },
      ],
    }),
  );
  try {
    await sleep(1500); // the file watcher reads it
    const since = lastSeq();
    let web = await callTool(vs, 'echo', { fill: (form) => form.getByLabel(/^message/).fill('policy-calls') });
    await web.locator('main .result').filter({ hasText: "Policy denies calling 'echo'" }).waitFor({ timeout: 15_000 });
    web = await callTool(vs, 'succeed', { fill: (form) => form.getByLabel(/^message/).fill('policy-calls') });
    await web.locator('main .result').filter({ hasText: 'policy-calls' }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await toolsOnceThere(since, 1), ['succeed'], 'the denied call never reached the server');

    const pane = await vs.openView('Plans');
    const group = pane.locator('.monaco-list-row', { has: vs.page.locator('.label-name', { hasText: /^Calls$/ }) }).first();
    await group.waitFor({ timeout: 15_000 });
    if ((await group.getAttribute('aria-expanded')) !== 'true') await group.click();
    const rowOf = async (label) =>
      (await vs.viewItems('Plans')).find((i) => i.label === label && /· fixture · Call Tool$/.test(i.description));
    let denied;
    let allowed;
    for (let i = 0; i < 50 && !(denied && allowed); i++) {
      [denied, allowed] = [await rowOf('echo'), await rowOf('succeed')];
      if (!(denied && allowed)) await sleep(200);
    }
    assert.equal(denied?.description, "refused · denied by rule 'no-echo-here' · fixture · Call Tool");
    assert.equal(allowed?.description, "ok · allowed by rule 'succeed-ok' · fixture · Call Tool");
    const items = (await vs.viewItems('Plans')).map((i) => i.label);
    assert.ok(items.indexOf('succeed') < items.indexOf('echo'), `newest first: ${JSON.stringify(items)}`);
    await vs.screenshot('policy-calls-in-plans-view');

    // The denied call's row alone, then the whole group.
    await vs.clickViewItemAction('Plans', 'echo', 'Export Calls as JSON');
    const one = await acceptSaveDialog(/call-[0-9a-f-]{8}\.json$/);
    await vs.page
      .locator('.notifications-toasts .notification-toast', { hasText: 'call exported to' })
      .first()
      .waitFor({ timeout: 15_000 });
    const single = JSON.parse(fs.readFileSync(one, 'utf8'));
    fs.rmSync(one);
    assert.equal(single.exportedBy, 'Plangate');
    assert.deepEqual(
      single.calls.map((c) => [c.tool, c.outcome, c.policy.decision, c.policy.ruleId, c.policy.source]),
      [['echo', 'refused', 'deny', 'no-echo-here', 'workspace']],
    );
    assert.equal(single.calls[0].decisionText, "Denied by rule 'no-echo-here': echo is not for this repository.");
    assert.deepEqual(single.calls[0].args, { message: 'policy-calls' });

    await vs.clickViewItemAction('Plans', 'Calls', 'Export Calls as JSON');
    const all = await acceptSaveDialog(/calls-\d{4}-\d{2}-\d{2}\.json$/);
    await vs.page
      .locator('.notifications-toasts .notification-toast', { hasText: 'calls exported to' })
      .first()
      .waitFor({ timeout: 15_000 });
    const data = JSON.parse(fs.readFileSync(all, 'utf8'));
    fs.rmSync(all);
    const mine = data.calls.filter((c) => c.args?.message === 'policy-calls');
    assert.deepEqual(
      mine.map((c) => [c.tool, c.outcome, c.policy.decision, c.policy.ruleId]),
      [
        ['succeed', 'ok', 'allow', 'succeed-ok'],
        ['echo', 'refused', 'deny', 'no-echo-here'],
      ],
    );
  } finally {
    fs.rmSync(policyFile(), { force: true });
  }
});
