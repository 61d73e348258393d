// README claims where the user meets them, in a real VS Code, each checked by what the user sees and by what reached
// the fixture server (its call log): every encoding of a plan the fixture offers opens in the panel; a plan opens
// again from the Plans view and exports from its row; the card names the workspace rule that was not honoured;
// plangate.autoApprovePlans runs a plan your rules allow without asking; plangate.serverApps.enabled off gives the
// plain result; closing an app withdraws its waiting card; an app that keeps navigating its frame away loses it
// after three tries.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer, withUserSettings } from '../lib/workspace.mjs';
import { callTool, panel, settlePanel, waitForServerRunning } from '../lib/panel.mjs';

const log = callLogBeside('fixture-calls.jsonl');

const vs = useVSCode({
  name: 'claims',
  workspace: {
    files: { 'README.md': '# README claims workspace\n' },
    servers: (dir) => ({ fixture: fixtureServer(dir, { callLog: log.path(dir) }) }),
  },
});

afterEach(async (t) => {
  if (/** @type {any} */ (t)?.passed === false) await settlePanel(vs);
});

const { lastSeq, callsAfter, toolsAfter, toolsOnceThere } = log.of(() => vs.workspaceDir);
const planOf = (web) => web.locator('main article.top-plan');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const appFrame = (web) => web.frameLocator('#apps iframe.app-frame:not([hidden])');
const card = (web) => web.locator('main .call-card');

test('every encoding of a plan the fixture offers (fenced, structured, PascalCase, numeric, string statuses) opens in the panel', async () => {
  await waitForServerRunning(vs);
  for (const encoding of ['fenced', 'structured', 'pascal', 'numeric', 'string']) {
    const since = lastSeq();
    const web = await callTool(vs, 'plan_scaffold', { fill: (form) => form.getByLabel(/^encoding/).selectOption(encoding) });
    const plan = planOf(web);
    await plan.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 20_000 });
    assert.equal(await plan.locator('ol.steps > li.step').count(), 4, `${encoding}: the plan's four steps`);
    assert.match(await plan.innerText(), /Payroll/, `${encoding}: the plan's instruction`);
    if (encoding === 'pascal') await vs.screenshot('claims-encoding-pascal');
    await plan.getByRole('button', { name: 'Reject' }).click();
    await vs.waitForStatus('Plangate: idle');
    const calls = callsAfter(since);
    assert.deepEqual(
      calls.map(([tool]) => tool),
      ['plan_scaffold'],
      `${encoding}: only the planning call was sent`,
    );
    assert.equal(calls[0][1].encoding, encoding, 'the form sent the encoding chosen');
  }
});

test('the Plans view opens a plan again (Open Plan) and exports it from its row (Export Plan as JSON)', async () => {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'plan_failing');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await plan.getByRole('button', { name: 'Stop', exact: true }).click({ timeout: 20_000 });
  await vs.waitForStatus('Plangate: idle');
  await vs.runCommand('View: Close All Editors');
  await vs.page.locator('.tabs-container .tab', { hasText: 'Plangate' }).waitFor({ state: 'detached', timeout: 10_000 });

  await vs.openView('Plans');
  const pane = vs.viewPane('Plans');
  const row = pane.locator('.monaco-list-row', { hasText: /stopped/ }).first();
  await row.waitFor({ timeout: 15_000 });
  const label = (await row.locator('.label-name').innerText()).trim();
  await row.click();
  const again = planOf(await panel(vs));
  await again.locator('p.outcome').waitFor({ timeout: 20_000 });
  assert.match(await again.innerText(), /Run three steps; the second one fails\./, 'Open Plan shows the plan clicked');
  await vs.screenshot('claims-open-plan-from-view');

  await vs.clickViewItemAction('Plans', label, 'Export Plan as JSON');
  const input = vs.page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
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
  assert.equal(data.plan.plan.instruction, 'Run three steps; the second one fails.');
  assert.equal(data.plan.outcome, 'stopped');
});

test('the card says which workspace rule was not honoured when it would loosen your policy', async () => {
  await waitForServerRunning(vs);
  const policyFile = path.join(vs.workspaceDir, '.vscode', 'plangate-policy.json');
  fs.writeFileSync(
    policyFile,
    JSON.stringify({ rules: [{ id: 'repo-writes-freely', decision: 'allow', reason: 'the repo says so', tool: 'write_file_step' }] }),
  );
  try {
    await sleep(1500); // the file watcher reads it
    const since = lastSeq();
    const web = await callTool(vs, 'write_file_step', {
      fill: async (form) => {
        await form.getByLabel(/^path/).fill('claims-loosen.txt');
        await form.getByLabel(/^content/).fill('x\n');
      },
    });
    const shown = card(web);
    await shown.waitFor({ timeout: 15_000 });
    assert.match(
      await shown.locator('.card-loosens').innerText(),
      /The workspace policy's rule 'repo-writes-freely' would allow this call, which loosens your own policy, so it is not honoured: you decide\./,
    );
    await vs.screenshot('claims-card-not-honoured');
    await shown.getByRole('button', { name: 'Deny' }).click();
    await web.locator('main .result', { hasText: "The user denied the call to 'write_file_step'" }).waitFor({ timeout: 15_000 });
    assert.deepEqual(toolsAfter(since), [], 'the workspace allow did not send it');
  } finally {
    fs.rmSync(policyFile, { force: true });
    await sleep(1500);
  }
});

test('plangate.autoApprovePlans: a plan whose every step your rules allow runs without Approve; off, it waits', async () => {
  await waitForServerRunning(vs);
  const mine = {
    'plangate.policy': { rules: [{ id: 'claims-allow-fixture', decision: 'allow', reason: 'the test fixture', server: 'fixture' }] },
  };
  // Off (the default), the same rules: the plan waits for Approve and run.
  await withUserSettings(vs, mine, async () => {
    await sleep(1000);
    const since = lastSeq();
    const web = await callTool(vs, 'plan_scaffold');
    const plan = planOf(web);
    await plan.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 20_000 });
    await sleep(1500);
    assert.deepEqual(toolsAfter(since), ['plan_scaffold'], 'a step ran without approval while autoApprovePlans was off');
    await plan.getByRole('button', { name: 'Reject' }).click();
    await vs.waitForStatus('Plangate: idle');
  });
  await withUserSettings(vs, { ...mine, 'plangate.autoApprovePlans': true }, async () => {
    await sleep(1000);
    const since = lastSeq();
    const web = await callTool(vs, 'plan_scaffold');
    const plan = planOf(web);
    await plan.locator('p.follow-up').waitFor({ timeout: 30_000 });
    assert.deepEqual(await toolsOnceThere(since, 5), [
      'plan_scaffold',
      'create_screen',
      'create_component',
      'create_component',
      'create_component',
    ]);
    await vs.screenshot('claims-auto-approved');
    await plan.getByRole('button', { name: 'No', exact: true }).click();
    await vs.waitForStatus('Plangate: idle');
  });
});

test('plangate.serverApps.enabled off gives the plain result card without the app; on, the app shows', async () => {
  await waitForServerRunning(vs);
  await withUserSettings(vs, { 'plangate.serverApps.enabled': false }, async () => {
    await sleep(1000);
    const since = lastSeq();
    const web = await callTool(vs, 'app_panel', { fill: (form) => form.getByLabel(/^label/).fill('Off') });
    await web.locator('main .result', { hasText: 'App panel for Off' }).waitFor({ timeout: 20_000 });
    await sleep(1500);
    assert.equal(await web.locator('main .result .app-caption').count(), 0, 'an app caption under the result');
    assert.equal(await web.locator('#apps iframe.app-frame').count(), 0, 'an app frame in the panel');
    assert.deepEqual(toolsAfter(since), ['app_panel']);
    await vs.screenshot('claims-apps-off');
  });
  await sleep(1000);
  const web = await callTool(vs, 'app_panel', { fill: (form) => form.getByLabel(/^label/).fill('On') });
  await appFrame(web).locator('#result', { hasText: 'App panel for On' }).waitFor({ timeout: 20_000 });
});

test('closing an app withdraws its waiting card; nothing is sent', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'app_panel', { fill: (form) => form.getByLabel(/^label/).fill('Closing') });
  const app = appFrame(web);
  await app.locator('#result', { hasText: 'App panel for Closing' }).waitFor({ timeout: 20_000 });
  await app.getByRole('button', { name: 'Call app_echo', exact: true }).dispatchEvent('click');
  await card(web).waitFor({ timeout: 15_000 });
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  // This app's item is the newest of the app_panel results.
  await web
    .getByRole('button', { name: /^Close app_panel/ })
    .last()
    .click();
  await card(web).waitFor({ state: 'detached', timeout: 15_000 });
  await vs.waitForStatus('Plangate: idle');
  await sleep(1000);
  assert.deepEqual(toolsAfter(since), ['app_panel'], 'the withdrawn call was sent');
  await vs.screenshot('claims-app-closed-card-withdrawn');
});

test('an app that navigates its frame away is put back, and after three tries loses its frame', async () => {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'app_panel', { fill: (form) => form.getByLabel(/^label/).fill('Roamer') });
  const app = appFrame(web);
  await app.locator('#result', { hasText: 'App panel for Roamer' }).waitFor({ timeout: 20_000 });
  const frames = web.locator('#apps iframe.app-frame');
  const before = await frames.count();
  for (let i = 1; i <= 3; i++) {
    await app.getByRole('button', { name: 'Navigate', exact: true }).dispatchEvent('click');
    await app.locator('#result', { hasText: 'App panel for Roamer' }).waitFor({ timeout: 15_000 });
    assert.equal(await frames.count(), before, `put back after try ${i}`);
  }
  await app.getByRole('button', { name: 'Navigate', exact: true }).dispatchEvent('click');
  for (let i = 0; i < 50 && (await frames.count()) === before; i++) await sleep(200);
  assert.equal(await frames.count(), before - 1, 'the fourth navigation away did not cost the app its frame');
  await vs.screenshot('claims-app-lost-frame');
});

test('Plangate keeps the results of the last 50 app steps: of 51, the first one can no longer be opened, the next one can', async () => {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'plan_app', {
    fill: async (form) => {
      await form.getByLabel(/^label/).fill('kept');
      await form.getByLabel(/^count/).fill('51');
    },
  });
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).click({ timeout: 20_000 });
  // Step 1 says hello; steps 2 to 52 are the 51 app steps, so step 2's result is the one dropped.
  await plan.getByRole('button', { name: 'Open the app of step 52', exact: true }).waitFor({ timeout: 60_000 });
  await plan.getByRole('button', { name: 'Open the app of step 2', exact: true }).click();
  await web
    .getByText(/no longer holds the result of step 2 \(it keeps the last 50 results of steps with apps\)/)
    .waitFor({ timeout: 15_000 });
  await vs.screenshot('claims-app-step-dropped');
  await plan.getByRole('button', { name: 'Open the app of step 3', exact: true }).click();
  await appFrame(web)
    .locator('#result', { hasText: /^App panel for kept 2$/ })
    .waitFor({ timeout: 20_000 });
});
