// Collect mode (mcp-rune Center-of-Control) in a real VS Code: the fixture server's new_model_app / edit_model_app
// answer with a form schema; Plangate renders it natively in the panel, stages it (collect_form_data, then
// get_form_data), shows the staged entry, and submits create_model / update_model itself. What ran is read from the
// fixture's call log, what the user sees from the webview DOM, the Staged and Plans views and the status bar.
// A second fixture server, "direct", has its forms in `submitMode: "direct"` (no staging: Submit asks, then calls
// create_model). One code-server for the whole file; the tests run in order (the reload test is last).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runDir } from '../lib/env.mjs';
import { freePort, hostHeapAfterGcMB, hostInspectorEnv } from '../lib/hostInspector.mjs';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer, withUserSettings } from '../lib/workspace.mjs';
import { a11yScan, callTool, panel, waitForServerRunning } from '../lib/panel.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The call log lives beside the workspace, not in it.
const log = callLogBeside('fixture-calls.jsonl');
const directLog = callLogBeside('direct-calls.jsonl');

/** The port of the extension host's inspector (e2e/lib/hostInspector.mjs). */
const INSPECT_PORT = await freePort();

const vs = useVSCode({
  name: 'collect-mode',
  // The test hook opens Node's inspector in the extension host (e2e/lib/inspectorProbe.cjs), as longPlan's does: the
  // 50-app check reads the host's heap after a garbage collection.
  env: hostInspectorEnv('collect-mode', INSPECT_PORT),
  workspace: {
    files: { 'README.md': '# collect mode workspace\n' },
    servers: (dir) => ({
      fixture: fixtureServer(dir, { callLog: log.path(dir), args: ['--approval-polls', '2'] }),
      direct: fixtureServer(dir, { callLog: directLog.path(dir), args: ['--submit-mode', 'direct'] }),
    }),
  },
});

const { lastSeq, callsAfter } = log.of(() => vs.workspaceDir);
const direct = directLog.of(() => vs.workspaceDir);

/** Calls a form tool through "Plangate: Call Tool…" with `args` (objects go into their JSON box); returns the panel. */
async function openForm(tool, args) {
  const web = await callTool(vs, tool, {
    fill: async (form) => {
      // The Call Tool form remembers the last arguments: a prefill from an earlier call is cleared unless given.
      const all = tool === 'new_model_app' ? { prefill: '', ...args } : args;
      for (const [key, value] of Object.entries(all)) {
        await form.getByLabel(new RegExp(`^${key}\\b`)).fill(typeof value === 'string' ? value : JSON.stringify(value));
      }
    },
  });
  await web.locator('main div.collect').waitFor({ timeout: 20_000 });
  return web;
}

/** The collect form item shown now. */
const shown = (web) => web.locator('main div.collect');
const field = (web, label, options) => shown(web).locator('form.collect-form').getByLabel(label, options);
const alertText = async (web) => (await shown(web).locator('.action-bar [role=alert]').innerText()).trim();

/** Waits until `fn()` returns a truthy value (polling), or fails with `what`. */
async function until(fn, what, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(150);
  }
}

test('create: every field type rendered from the schema, checked before staging, staged, reviewed, submitted', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await openForm('new_model_app', { model: 'Contact', mode: 'form' });
  const form = shown(web);
  await form.getByRole('heading', { name: 'Create Contact' }).waitFor();
  // Fieldsets, descriptions, required marks and defaults as the schema says.
  assert.deepEqual(await form.locator('fieldset.form-section > legend').allInnerTexts(), ['Contact details (required)', 'Preferences']);
  await form.getByText('Who the contact is and how to reach them.').waitFor();
  assert.equal(await field(web, /^Status/).inputValue(), 'lead', 'a select shows its default');
  assert.equal(await form.getByRole('checkbox', { name: 'Email' }).isChecked(), true, 'a checkbox group shows its default');
  assert.equal(await field(web, /^Best time to call/).inputValue(), '09:30');
  assert.equal(await field(web, 'Favorite color', { exact: true }).inputValue(), '#3366ff');
  assert.equal(await field(web, /^Name/).getAttribute('placeholder'), 'e.g. Ada Lovelace');
  await vs.screenshot('contact-form-empty');

  await field(web, /^Name/).fill('Grace Hopper');
  await field(web, /^Bio/).fill('Wrote the first compiler.\nAdmiral.');
  await field(web, /^Age/).fill('85');
  await form.getByRole('checkbox', { name: 'VIP' }).check();
  await form.getByRole('textbox', { name: /^Email/ }).fill('not-an-email');
  await field(web, /^Website/).fill('https://example.com/grace');
  await field(web, /^Status/).selectOption('partner');
  await field(web, /^Tags/).selectOption(['beta', 'vip']);
  await form.getByRole('checkbox', { name: 'Phone' }).check();
  await field(web, /^Birthday/).fill('1906-12-09');
  await field(web, /^Next meeting/).fill('2030-02-01T09:15');
  await field(web, /^Best time to call/).fill('08:45');

  // Checked before anything is sent: the message names the field, the form keeps what was typed.
  await form.getByRole('button', { name: 'Stage for review' }).click();
  await form.locator('.field-error', { hasText: 'Email must be an email address' }).waitFor();
  assert.match(await alertText(web), /Fix this field first: Email must be an email address.*Nothing was sent/);
  assert.equal(await form.getByRole('textbox', { name: /^Email/ }).getAttribute('aria-invalid'), 'true');
  assert.equal(await field(web, /^Name/).inputValue(), 'Grace Hopper');
  assert.deepEqual(
    callsAfter(since).map(([tool]) => tool),
    ['new_model_app'],
    'nothing was staged',
  );
  await vs.screenshot('contact-form-invalid');

  await form.getByRole('textbox', { name: /^Email/ }).fill('grace@example.com');
  const violations = await a11yScan(web);
  assert.deepEqual(
    violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    [],
    'the form has no accessibility violations',
  );
  await vs.screenshot('contact-form-filled');
  await form.getByRole('button', { name: 'Stage for review' }).click();

  const review = form.getByRole('table', { name: 'Staged entry' });
  await review.waitFor({ timeout: 15_000 });
  await form.getByText(/As fixture holds it \(get_form_data\): 13 fields\./).waitFor();
  const rows = await review.locator('tbody tr').allInnerTexts();
  assert.equal(rows.length, 13, rows.join('\n'));
  assert.match(rows.find((r) => r.startsWith('Tags')) ?? '', /beta, vip/);
  assert.match(rows.find((r) => r.startsWith('VIP')) ?? '', /yes/);
  await vs.screenshot('contact-staged-review');

  const fields = {
    name: 'Grace Hopper',
    bio: 'Wrote the first compiler.\nAdmiral.',
    age: 85,
    vip: true,
    email: 'grace@example.com',
    website: 'https://example.com/grace',
    favorite_color: '#3366ff',
    status: 'partner',
    tags: ['beta', 'vip'],
    channels: ['email', 'phone'],
    birthday: '1906-12-09',
    next_meeting: '2030-02-01T09:15',
    call_time: '08:45',
  };
  assert.deepEqual(callsAfter(since).slice(1), [
    ['collect_form_data', { model: 'Contact', fields, mode: 'create' }],
    ['get_form_data', { model: 'Contact' }],
  ]);

  // The Staged view lists it with its server, model and age.
  await vs.openView('Staged');
  const staged = await until(async () => (await vs.viewItems('Staged')).find((i) => i.label === 'Create Contact'), 'the Staged view row');
  assert.match(staged.description, /^fixture · Contact · staged · just now$/);
  assert.deepEqual(
    await vs.viewItemActions('Staged', 'Create Contact'),
    ['Submit', 'Open in the Panel', 'Discard'],
    'the row offers its actions inline',
  );
  await vs.screenshot('staged-view');

  // Submitted from the Staged view's own inline button (the panel's Submit is clicked in the tests below).
  await vs.clickViewItemAction('Staged', 'Create Contact', 'Submit');
  // Away from the review, the view's Submit asks first (a modal naming what will be called).
  const dialog = vs.page.locator('.monaco-dialog-box').filter({ hasText: 'Submit "Create Contact" to "fixture"?' });
  await dialog.waitFor({ timeout: 10_000 });
  await vs.screenshot('staged-view-submit-confirm');
  await dialog.getByRole('button', { name: 'Submit', exact: true }).click();
  await form.getByRole('heading', { name: 'Submitted' }).waitFor({ timeout: 15_000 });
  await form.getByText(/Plangate called create_model on fixture: created c-\d+\./).waitFor();
  assert.deepEqual(
    callsAfter(since).slice(3),
    [['create_model', { model: 'Contact', attributes: fields }]],
    'exactly the typed fields, submitted directly',
  );
  await until(async () => !(await vs.viewItems('Staged')).some((i) => i.label === 'Create Contact'), 'the Staged view to empty');
  await vs.openView('Plans');
  // The Plans view redraws at most four times a second, so it may follow the Staged view by a moment.
  const history = await until(
    async () => (await vs.viewItems('Plans')).find((i) => i.label === 'Create Contact' && /· submitted ·/.test(i.description)),
    'the Plans view row to say submitted',
  );
  assert.match(history.description, /^fixture · Contact · submitted · /);
  assert.match(await vs.statusBarText(), /^Plangate: idle$/, 'the workflow status item keeps its own words');
  await vs.screenshot('contact-submitted');
});

/**
 * A form app's Done stages through collect_form_data, which is the app's call: the single-call card asks (as for any
 * call an app makes), showing the fields; Allow once lets it go.
 */
async function allowAppStaging(web) {
  const card = web.locator('main .call-card');
  await card.waitFor({ timeout: 15_000 });
  assert.match(await card.locator('.card-who').innerText(), /An MCP App of server 'fixture' calls collect_form_data on server fixture/);
  await vs.screenshot('form-app-staging-asks');
  await card.getByRole('button', { name: 'Allow once' }).click();
}

test("with plangate.preferServerApps the server's form app replaces the native form: its Done stages the submission, Submit sends once", async () => {
  await waitForServerRunning(vs);
  await withUserSettings(vs, { 'plangate.preferServerApps': true }, async () => {
    const since = lastSeq();
    const web = await callTool(vs, 'new_model_app', {
      fill: async (form) => {
        await form.getByLabel(/^model\b/).fill('Contact');
        await form.getByLabel(/^mode\b/).fill('form');
        await form.getByLabel(/^prefill\b/).fill('');
      },
    });
    const app = web.frameLocator('#apps iframe.app-frame:not([hidden])');
    await app.locator('#status', { hasText: 'ready: collect' }).waitFor({ timeout: 20_000 });
    assert.equal(await web.locator('main div.collect').count(), 0, 'no native form beside the app');
    await app.getByLabel('Name', { exact: true }).fill('Alan Turing');
    await app.getByLabel('Email', { exact: true }).fill('alan@example.com');
    await vs.screenshot('form-app-filled');
    await app.getByRole('button', { name: 'Done', exact: true }).click();
    await allowAppStaging(web);
    await app.locator('#status', { hasText: /^collected: .*Staged for review in Plangate/ }).waitFor({ timeout: 15_000 });
    const calls = callsAfter(since);
    assert.deepEqual(
      calls.map(([tool]) => tool),
      ['new_model_app', 'collect_form_data', 'get_form_data'],
      'staged through the collect engine; nothing created yet',
    );
    assert.equal(/** @type {any} */ (calls[1][1]).fields.name, 'Alan Turing');

    await vs.openView('Staged');
    const staged = await until(async () => (await vs.viewItems('Staged')).find((i) => i.label === 'Create Contact'), 'the Staged view row');
    assert.match(staged.description, /^fixture · Contact · staged/);
    await vs.screenshot('form-app-staged');
    await vs.clickViewItemAction('Staged', 'Create Contact', 'Submit');
    const dialog = vs.page.locator('.monaco-dialog-box').filter({ hasText: 'Submit "Create Contact" to "fixture"?' });
    await dialog.waitFor({ timeout: 10_000 });
    await dialog.getByRole('button', { name: 'Submit', exact: true }).click();
    await until(async () => callsAfter(since).length === 4, 'the submit call', 15_000);
    const submitted = callsAfter(since).slice(3);
    assert.equal(submitted.length, 1, 'Submit sends once');
    assert.equal(submitted[0][0], 'create_model');
    assert.equal(/** @type {any} */ (submitted[0][1]).attributes.name, 'Alan Turing');
    await until(async () => !(await vs.viewItems('Staged')).some((i) => i.label === 'Create Contact'), 'the Staged view to empty');
  });
});

/**
 * The panel webview's side after a full garbage collection: the heap in use of the renderer its document runs in (the
 * DevTools protocol session of the webview's frame when Chromium runs it out of process, else the page's), and the
 * iframes left in its document.
 */
async function webviewMemory(web) {
  const frame = await (await web.locator('body').elementHandle())?.ownerFrame();
  if (!frame) throw new Error('the panel webview has no frame');
  let cdp;
  let where = "the webview frame's own renderer";
  try {
    cdp = await vs.page.context().newCDPSession(frame);
  } catch {
    cdp = await vs.page.context().newCDPSession(vs.page);
    where = "the window's renderer";
  }
  try {
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    const { usedSize } = await cdp.send('Runtime.getHeapUsage');
    const frames = await web.locator('body').evaluate(() => ({
      all: document.querySelectorAll('iframe').length,
      apps: document.querySelectorAll('#apps iframe.app-frame').length,
    }));
    return { heapMB: Math.round((usedSize / 1024 / 1024) * 10) / 10, where, frames: frames.all, appFrames: frames.apps };
  } finally {
    await cdp.detach().catch(() => {});
  }
}

test(
  '50 apps opened and closed from a plan leave no frame behind; the extension host heap and the webview heap are recorded',
  { timeout: 600_000 },
  async () => {
    const N = 50;
    await waitForServerRunning(vs);
    const web = await callTool(vs, 'plan_app', {
      fill: async (form) => {
        await form.getByLabel(/^label/).fill('many');
        await form.getByLabel(/^count/).fill(String(N));
      },
    });
    const plan = web.locator('main article.top-plan');
    await plan.getByRole('button', { name: 'Approve and run' }).click({ timeout: 20_000 });
    await plan.getByRole('button', { name: `Open the app of step ${N + 1}`, exact: true }).waitFor({ timeout: 60_000 });
    await sleep(2000);
    const hostBefore = await hostHeapAfterGcMB(INSPECT_PORT);
    const viewBefore = await webviewMemory(web);

    const app = web.frameLocator('#apps iframe.app-frame:not([hidden])');
    const started = Date.now();
    for (let i = 1; i <= N; i++) {
      await plan.getByRole('button', { name: `Open the app of step ${i + 1}`, exact: true }).click({ timeout: 15_000 });
      await app.locator('#result', { hasText: new RegExp(`^App panel for many ${i}$`) }).waitFor({ timeout: 20_000 });
      await web.getByRole('button', { name: `Close app_panel · step ${i + 1}`, exact: true }).click();
    }
    const cycleMs = Math.round((Date.now() - started) / N);
    // Each close tears its app down (ui/resource-teardown, answered) before its frame goes.
    await until(async () => (await webviewMemory(web)).appFrames === viewBefore.appFrames, 'every app frame to go', 30_000);
    await sleep(2000);
    const hostAfter = await hostHeapAfterGcMB(INSPECT_PORT);
    const viewAfter = await webviewMemory(web);
    const figures = {
      apps: N,
      msPerOpenAndClose: cycleMs,
      extensionHostHeapMB: { before: hostBefore, after: hostAfter, growth: Number((hostAfter - hostBefore).toFixed(1)) },
      webviewHeapMB: {
        before: viewBefore.heapMB,
        after: viewAfter.heapMB,
        growth: Number((viewAfter.heapMB - viewBefore.heapMB).toFixed(1)),
        in: viewAfter.where,
      },
      iframesInWebview: {
        before: viewBefore.frames,
        after: viewAfter.frames,
        appFramesBefore: viewBefore.appFrames,
        appFramesAfter: viewAfter.appFrames,
      },
    };
    fs.writeFileSync(path.join(runDir(), 'apps-memory.json'), JSON.stringify(figures, null, 2));
    console.log(`50-app check: ${JSON.stringify(figures)}`);
    assert.equal(viewAfter.appFrames, viewBefore.appFrames, 'no app frame of these 50 is left');
    assert.equal(viewAfter.frames, viewBefore.frames, 'no iframe of any kind is left');
    assert.ok(hostAfter - hostBefore < 20, `the extension host's heap grew from ${hostBefore} to ${hostAfter} MB after collection`);
    assert.ok(
      viewAfter.heapMB - viewBefore.heapMB < 20,
      `the webview's heap (${viewAfter.where}) grew from ${viewBefore.heapMB} to ${viewAfter.heapMB} MB after collection`,
    );
  },
);

test("the panel's toggle switches a form between Plangate's form and the server's app in place, keeping what was typed and what was staged", async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await openForm('new_model_app', { model: 'Contact', mode: 'form' });
  const toggle = web.locator('main .form-toggle');
  await toggle.waitFor({ timeout: 10_000 });
  assert.match(
    await toggle.innerText(),
    /Shown: Plangate’s form\. The server also offers its own app for it \(ui:\/\/fixture\/new-model-app\)/,
    'says which one is shown',
  );
  await field(web, /^Name/).fill('Katherine Johnson');
  await sleep(800); // the typed value reaches the extension as a draft
  await toggle.getByRole('button', { name: 'Show the server’s app' }).click();
  const app = web.frameLocator('#apps iframe.app-frame:not([hidden])');
  await app.locator('#status', { hasText: 'ready: collect' }).waitFor({ timeout: 20_000 });
  assert.equal(await web.locator('main div.collect').count(), 0, 'the app takes the native form’s place');
  assert.match(await toggle.innerText(), /Shown: the server’s app \(ui:\/\/fixture\/new-model-app\)/);
  assert.equal(await app.getByLabel('Name', { exact: true }).inputValue(), 'Katherine Johnson', 'what was typed in Plangate’s form');
  await app.getByLabel('Email', { exact: true }).fill('kj@example.com');
  await vs.screenshot('form-toggle-app');
  await app.getByRole('button', { name: 'Done', exact: true }).click();
  await allowAppStaging(web);
  await app.locator('#status', { hasText: /^collected: / }).waitFor({ timeout: 15_000 });

  // Back to Plangate's form: the staged submission is there, reviewed as any.
  await toggle.getByRole('button', { name: 'Show Plangate’s form' }).click();
  const entry = shown(web).getByRole('table', { name: 'Staged entry' });
  await entry.waitFor({ timeout: 15_000 });
  assert.match(await entry.innerText(), /Katherine Johnson/);
  assert.match(await entry.innerText(), /kj@example\.com/);
  await vs.screenshot('form-toggle-native-staged');

  // And to the app again: the same app, kept open meanwhile (it still says what it did), no new call.
  const frames = web.locator('#apps iframe.app-frame');
  const open = await frames.count();
  await toggle.getByRole('button', { name: 'Show the server’s app' }).click();
  await app.locator('#status', { hasText: /^collected: / }).waitFor({ timeout: 15_000 });
  assert.equal(await frames.count(), open, 'the same app, not a second one');
  assert.deepEqual(
    callsAfter(since).map(([tool]) => tool),
    ['new_model_app', 'collect_form_data', 'get_form_data'],
    'switching called nothing',
  );

  // Discarded from Plangate's form, and closed: the hidden app goes with its item.
  await toggle.getByRole('button', { name: 'Show Plangate’s form' }).click();
  await shown(web).getByRole('button', { name: 'Discard' }).click();
  await shown(web)
    .locator('.badge', { hasText: /discarded/i })
    .waitFor({ timeout: 15_000 });
  await web.getByRole('button', { name: 'Close Create Contact' }).last().click();
  await until(async () => (await frames.count()) === open - 1, 'the app frame to go with its form');
  assert.equal(callsAfter(since).length, 3, 'nothing was submitted');
});

test('create with prefill: hidden values are shown and merged into create_model; remote approval gates Submit', async () => {
  const since = lastSeq();
  const web = await openForm('new_model_app', { model: 'Project', mode: 'form', prefill: { contact_id: 'c-1' } });
  const form = shown(web);
  await form.getByRole('heading', { name: 'Create Project' }).waitFor();
  await form.getByText(/Belongs to: Ada Lovelace \(Contact c-1\)/).waitFor();
  await form.getByText(/Also submitted, not shown as fields: contact_id = c-1/).waitFor();
  await field(web, /^Name/).fill('Apollo');
  await field(web, /^Description/).fill('To the moon');
  await field(web, /^Budget/).fill('1200');
  await form.getByRole('button', { name: 'Stage for review' }).click();
  await form.getByRole('table', { name: 'Staged entry' }).waitFor({ timeout: 15_000 });

  // Sent for approval: Submit waits; a second status bar item says so; the workflow item is unchanged.
  await form.getByRole('button', { name: 'Request approval' }).click();
  const approvalItem = vs.page.locator('[id="plangate.plangate.plangate.approval"]');
  await approvalItem.waitFor({ state: 'visible', timeout: 15_000 });
  assert.match((await approvalItem.innerText()).trim(), /Plangate: waiting for approval$/);
  assert.equal(await vs.statusBarText(), 'Plangate: idle');
  await form
    .getByRole('status')
    .filter({ hasText: /Waiting for the reviewer \(approval apr-1/ })
    .waitFor();
  await form.getByText('Waiting for the reviewer to approve it.').waitFor();
  assert.equal(await form.getByRole('button', { name: 'Submit', exact: true }).isDisabled(), true, 'Submit waits for the approval');
  await vs.screenshot('project-waiting-for-approval');

  await form.getByText('Approved by the reviewer.').waitFor({ timeout: 30_000 });
  await approvalItem.waitFor({ state: 'hidden', timeout: 10_000 });
  await form.getByRole('button', { name: 'Submit', exact: true }).click();
  await form.getByRole('heading', { name: 'Submitted' }).waitFor({ timeout: 15_000 });

  const calls = callsAfter(since);
  const fields = { name: 'Apollo', description: 'To the moon', budget: 1200 };
  assert.deepEqual(
    calls.filter(([t]) => t === 'collect_form_data'),
    [['collect_form_data', { model: 'Project', fields, mode: 'create' }]],
    'staged once: the server still held it when approval was asked',
  );
  assert.deepEqual(
    calls.filter(([t]) => t === 'request_approval'),
    [['request_approval', { model: 'Project' }]],
  );
  assert.deepEqual(
    calls.filter(([t]) => t === 'check_approval').map(([, a]) => a),
    [{ approval_id: 'apr-1' }, { approval_id: 'apr-1' }, { approval_id: 'apr-1' }],
    'pending, pending, approved',
  );
  assert.deepEqual(
    calls.at(-1),
    ['create_model', { model: 'Project', attributes: { contact_id: 'c-1', ...fields } }],
    'the hidden values merged under the typed fields',
  );
  await vs.screenshot('project-submitted');
});

test('edit: the form shows the current record; the review shows each change; update_model gets record_id and only the changes', async () => {
  const since = lastSeq();
  const web = await openForm('edit_model_app', { model: 'Contact', record_id: 'c-1' });
  const form = shown(web);
  await form.getByRole('heading', { name: 'Edit Contact' }).waitFor();
  assert.equal(await field(web, /^Name/).inputValue(), 'Ada Lovelace');
  assert.equal(await field(web, /^Next meeting/).inputValue(), '2030-01-15T10:00');
  assert.deepEqual(await field(web, /^Tags/).evaluate((s) => Array.from(s.selectedOptions, (o) => o.value)), ['vip']);
  await field(web, /^Name/).fill('Augusta Ada King');
  await field(web, /^Age/).fill('37');
  await form.getByRole('button', { name: 'Stage for review' }).click();

  const review = form.getByRole('table', { name: 'Staged entry' });
  await review.waitFor({ timeout: 15_000 });
  await form.getByText(/: 2 of 13 fields change\./).waitFor();
  const changed = await review.locator('tbody tr.changed').allInnerTexts();
  assert.equal(changed.length, 2, changed.join('\n'));
  assert.match(changed[0], /Name\s+Ada Lovelace\s+Augusta Ada King changed/);
  assert.match(changed[1], /Age\s+36\s+37 changed/);
  await vs.screenshot('edit-staged-review');

  await form.getByRole('button', { name: 'Submit', exact: true }).click();
  await form.getByRole('heading', { name: 'Submitted' }).waitFor({ timeout: 15_000 });
  const calls = callsAfter(since);
  assert.equal(calls[1][0], 'collect_form_data');
  assert.equal(calls[1][1].mode, 'update');
  assert.deepEqual(calls.at(-1), [
    'update_model',
    { model: 'Contact', attributes: { name: 'Augusta Ada King', age: 37 }, record_id: 'c-1' },
  ]);
});

test("a server-side validation error keeps the staged form and what was typed, and shows the server's message", async () => {
  // A form tool's own error reads as what to do next.
  let web = await callTool(vs, 'new_model_app', {
    fill: async (form) => {
      await form.getByLabel(/^model\b/).fill('Nope');
      await form.getByLabel(/^mode\b/).fill('form');
      await form.getByLabel(/^prefill\b/).fill('');
    },
  });
  await web.getByText('fixture has no model "Nope". Call new_model_app again with one of: Contact, Project.').waitFor({ timeout: 15_000 });

  const since = lastSeq();
  web = await openForm('new_model_app', { model: 'Project', mode: 'form', prefill: { contact_id: 'c-999' } });
  const form = shown(web);
  await form.getByRole('heading', { name: 'Create Project' }).waitFor();
  await field(web, /^Name/).fill('Ghost project');
  await field(web, /^Budget/).fill('5');
  await form.getByRole('button', { name: 'Stage for review' }).click();
  await form.getByRole('table', { name: 'Staged entry' }).waitFor({ timeout: 15_000 });
  await form.getByRole('button', { name: 'Submit', exact: true }).click();
  await until(
    async () => /refused it: Validation failed \(422\) for Project: "contact_id" names no Contact/.test(await alertText(web)),
    'the 422 message',
  );
  assert.equal(await form.locator('.badge').innerText(), 'Staged for review', 'still staged: nothing was lost');
  await vs.screenshot('server-validation-error');
  await form.getByRole('button', { name: 'Edit form' }).click();
  assert.equal(await field(web, /^Name/).inputValue(), 'Ghost project');
  assert.equal(await field(web, /^Budget/).inputValue(), '5');
  assert.equal(callsAfter(since).at(-1)[0], 'create_model');
  await form.getByRole('button', { name: 'Discard' }).click();
  await form.getByRole('heading', { name: 'Discarded' }).waitFor();
  assert.equal(callsAfter(since).at(-1)[0], 'create_model', 'Discard submits nothing');
});

test('direct mode: no staging; Submit asks first, Cancel sends nothing, Submit calls create_model once', async () => {
  await waitForServerRunning(vs, 'direct');
  const since = direct.lastSeq();
  const web = await callTool(vs, 'new_model_app', {
    nth: 1, // the second server offering it: "direct"
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
  await dialog.filter({ hasText: 'Submit "Create Contact" to "direct"?' }).waitFor({ timeout: 10_000 });
  assert.match(await dialog.innerText(), /Plangate calls create_model with \d+ attributes?: .*name.*email/s);
  await vs.screenshot('direct-confirm');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.deepEqual(
    direct.callsAfter(since).map(([tool]) => tool),
    ['new_model_app'],
    'Cancel sent nothing',
  );
  assert.equal(await form.locator('form.collect-form').getByLabel(/^Name/).inputValue(), 'Ada Lovelace', 'the form keeps what was typed');

  await form.getByRole('button', { name: 'Submit', exact: true }).click();
  await dialog.getByRole('button', { name: 'Submit' }).click();
  await form.getByRole('heading', { name: 'Submitted' }).waitFor({ timeout: 15_000 });
  const calls = direct.callsAfter(since);
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

test('one staged entry per model: staging a second one warns and replaces; staged submissions and drafts survive a reload', async () => {
  let web = await openForm('new_model_app', { model: 'Contact', mode: 'form' });
  await field(web, /^Name/).fill('First Person');
  await shown(web)
    .getByRole('textbox', { name: /^Email/ })
    .fill('first@example.com');
  await shown(web).getByRole('button', { name: 'Stage for review' }).click();
  await shown(web).getByRole('table', { name: 'Staged entry' }).waitFor({ timeout: 15_000 });

  web = await openForm('new_model_app', { model: 'Contact', mode: 'form' });
  await field(web, /^Name/).fill('Second Person');
  await shown(web)
    .getByRole('textbox', { name: /^Email/ })
    .fill('second@example.com');
  const since = lastSeq();
  await shown(web).getByRole('button', { name: 'Stage for review' }).click();
  const dialog = vs.page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(await dialog.innerText(), /A Contact submission is already staged on "fixture"\./);
  await vs.screenshot('replace-warning');
  await dialog.getByRole('button', { name: 'Stage and Replace' }).click();
  web = await panel(vs);
  await shown(web).getByRole('table', { name: 'Staged entry' }).waitFor({ timeout: 15_000 });
  assert.equal(callsAfter(since)[0][1].fields.name, 'Second Person');
  await vs.openView('Plans');
  await until(
    async () => (await vs.viewItems('Plans')).some((i) => i.label === 'Create Contact' && /· replaced ·/.test(i.description)),
    'the replaced row in Plans',
  );

  // A third form, typed into but not staged.
  web = await openForm('new_model_app', { model: 'Contact', mode: 'form' });
  await field(web, /^Name/).fill('Unsaved Draft');
  await field(web, /^Age/).fill('41');
  await sleep(1000);

  await vs.page.reload({ waitUntil: 'domcontentloaded' });
  await vs.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await vs.waitForStatus('Plangate: idle', 60_000);
  web = await panel(vs, 60_000);
  await shown(web).waitFor({ timeout: 30_000 });
  assert.equal(await field(web, /^Name/).inputValue(), 'Unsaved Draft', 'the draft came back with the panel');
  assert.equal(await field(web, /^Age/).inputValue(), '41');
  await vs.screenshot('draft-after-reload');

  // The staged row is drawn again once its server lists its tools (Request approval appears under it), and VS Code
  // lets go of a row's click while it draws it again: the row is clicked once the server runs.
  await waitForServerRunning(vs, 'fixture', 60_000);
  await vs.openView('Staged');
  const rows = await until(
    async () => {
      const items = await vs.viewItems('Staged');
      return items.length ? items : undefined;
    },
    'the Staged view after the reload',
    30_000,
  );
  assert.deepEqual(
    rows.map((r) => r.label),
    ['Create Contact'],
  );
  assert.match(rows[0].description, /^fixture · Contact · staged · /);
  await vs.viewPane('Staged').locator('.monaco-list-row').first().click();
  web = await panel(vs);
  await shown(web).getByRole('table', { name: 'Staged entry' }).waitFor({ timeout: 15_000 });
  assert.match(await shown(web).getByRole('table', { name: 'Staged entry' }).innerText(), /Second Person/);
  // Discarded from the Staged view's inline button; the panel follows.
  const before = lastSeq();
  await vs.openView('Staged');
  await vs.clickViewItemAction('Staged', 'Create Contact', 'Discard');
  const discard = vs.page.locator('.monaco-dialog-box').filter({ hasText: 'Discard "Create Contact"?' });
  await discard.waitFor({ timeout: 10_000 });
  await discard.getByRole('button', { name: 'Discard', exact: true }).click();
  await shown(web).getByRole('heading', { name: 'Discarded' }).waitFor({ timeout: 15_000 });
  assert.deepEqual(callsAfter(before), [], 'Discard sends nothing to the server');
  await until(async () => (await vs.viewItems('Staged')).length === 0, 'the Staged view to empty');
});
