// The plan panel in a real VS Code, driven like a user: Plangate: Call Tool… on the fixture server's plan tools,
// then the panel's buttons. What ran is read from the fixture's call log, what the user sees from the webview
// DOM and the status bar. One code-server for the whole file; the tests run in order and each leaves no plan
// waiting (the reload test is last because it restarts the window).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer } from '../lib/workspace.mjs';
import {
  a11yScan,
  callTool,
  closeOtherItems,
  inOrder,
  panel,
  recordStatus,
  setTheme,
  settlePanel,
  stepStates,
  waitForServerRunning,
} from '../lib/panel.mjs';

const COMPONENTS = ['OvertimeStartDaySelector', 'PayPeriodConfigurator', 'PTCHoursOverride'];
/** plan_scaffold's arguments as the Call Tool form fills them from the tool's schema defaults. */
const SCAFFOLD_DEFAULTS = { components: COMPONENTS, encoding: 'json', screen: 'Payroll' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const log = callLogBeside('fixture-calls.jsonl');

const vs = useVSCode({
  name: 'plan-panel',
  workspace: {
    // One file already matches plan_scaffold's glob src/modules/payroll/**, so the panel has a count to show.
    files: { 'src/modules/payroll/index.ts': 'export {};\n', 'README.md': '# plan panel workspace\n' },
    // The call log lives beside the workspace, not in it: Plangate would list it among the files a plan changed.
    servers: (dir) => ({
      fixture: fixtureServer(dir, { callLog: log.path(dir), args: ['--cancel-log', `${log.path(dir)}.cancelled.jsonl`] }),
    }),
  },
  // What "Preferences: Toggle between Light/Dark Themes" switches between (the harness's light and dark).
  settings: { 'workbench.preferredLightColorTheme': 'Default Light Modern', 'workbench.preferredDarkColorTheme': 'Default Dark Modern' },
});

// A failed test leaves no plan waiting for the next one (after the harness's failure screenshot).
afterEach(async (t) => {
  if (/** @type {any} */ (t)?.passed === false) await settlePanel(vs);
});

/** The fixture's call log; the calls logged after `since` as [tool, args] pairs; the last seq number. */
const { lastSeq, callsAfter } = log.of(() => vs.workspaceDir);

/**
 * Asserts that each element is inside the webview's viewport and that what the user sees at its centre is the element
 * itself, not something over it (the plan's action bar pinned at the bottom, say).
 * @param {[string, import('playwright-core').Locator][]} targets
 */
async function assertInViewUncovered(targets) {
  for (const [what, target] of targets) {
    await target.waitFor({ timeout: 20_000 });
    const seen = await target.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      const top = document.elementFromPoint(x, y);
      return {
        box: { top: Math.round(r.top), bottom: Math.round(r.bottom) },
        viewport: window.innerHeight,
        hit: top === el || el.contains(top),
        over: top
          ? `${top.tagName.toLowerCase()}.${[...top.classList].join('.')} "${(top.textContent ?? '').trim().slice(0, 40)}"`
          : 'nothing',
      };
    });
    assert.ok(seen.box.top >= 0 && seen.box.bottom <= seen.viewport, `${what} is outside the view: ${JSON.stringify(seen)}`);
    assert.ok(seen.hit, `${what} is covered by ${seen.over}`);
  }
}

/** The plan shown now: its article (the top-level plan in the selected item). */
const planOf = (web) => web.locator('main article.top-plan');

test('a plan shows its instruction, globs with counts and steps; edited arguments are what runs; the follow-up asks Yes/No', async () => {
  await waitForServerRunning(vs);
  const status = await recordStatus(vs);
  const since = lastSeq();

  const web = await callTool(vs, 'plan_scaffold');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
  await vs.waitForStatus('Plangate: awaiting approval (1)');

  // What the server proposes, as text the user reads.
  await plan.locator('p.instruction', { hasText: 'Scaffold Payroll screen and components.' }).waitFor();
  const glob = plan.locator('ul.globs > li').filter({ hasText: 'src/modules/payroll/**' });
  // Before the run the count is what matches now, not what the plan touches ("0 files" read as "touches nothing").
  await glob.locator('summary', { hasText: /^src\/modules\/payroll\/\*\* — 1 file matches now$/ }).waitFor({ timeout: 10_000 });
  await glob.locator('summary').click();
  await glob.locator('ul.files', { hasText: 'src/modules/payroll/index.ts' }).waitFor();
  const steps = plan.locator('ol.steps > li.step');
  assert.deepEqual(await steps.locator('.step-label').allInnerTexts(), [
    'Create the Payroll screen',
    ...COMPONENTS.map((c) => `Create component ${c}`),
  ]);
  assert.deepEqual(await steps.locator('.step-state-text').allInnerTexts(), ['pending', 'pending', 'pending', 'pending']);
  // What the steps' tools say about themselves (their MCP annotations), per step and summed up under Safety.
  assert.deepEqual(
    (await steps.locator('.flag.hint-write').allInnerTexts()).map((t) => t.trim()),
    Array(4).fill('writes'),
  );
  assert.equal((await plan.locator('p.tool-hints').innerText()).trim(), "By their tools' own account, 4 steps write.");
  await vs.screenshot('dark-awaiting-approval');

  // Edit step 2: Edit arguments → change the JSON → Save arguments. The step says "edited" and shows the diff.
  const step2 = steps.nth(1);
  await step2.locator('summary').getByText('Arguments', { exact: true }).click();
  await step2.locator('pre.json', { hasText: '"OvertimeStartDaySelector"' }).waitFor();
  await step2.getByRole('button', { name: 'Edit arguments of step 2' }).click();
  const area = step2.getByRole('textbox', { name: 'Arguments of step 2 as JSON' });
  assert.deepEqual(JSON.parse(await area.inputValue()), { screen: 'Payroll', name: 'OvertimeStartDaySelector' });
  await area.fill('{ "screen": "Payroll", "name": "EditedWidget" }');
  await step2.getByRole('button', { name: 'Save arguments' }).click();
  await step2.locator('.flag.edited').waitFor();
  await step2.getByRole('textbox').waitFor({ state: 'detached' });
  const diff = step2.getByLabel('Argument changes');
  assert.match(await diff.innerText(), /^-\s+"name": "OvertimeStartDaySelector"\n\+\s+"name": "EditedWidget"$/m);
  await vs.screenshot('dark-step-edited');

  // A note goes with the approval: it is kept with the plan and shown above its steps.
  await plan.getByRole('textbox', { name: 'Note with your decision (optional)' }).fill('Keep the old grid for now.');
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  // (the quotation marks of <q> are CSS, not text)
  await plan.locator('p.approval-note', { hasText: 'Approved with your note: Keep the old grid for now.' }).waitFor({ timeout: 10_000 });

  // The follow-up appears with Yes / No once every step ran.
  const followUp = plan.locator('p.follow-up');
  await followUp.waitFor({ timeout: 20_000 });
  assert.match(await followUp.innerText(), /All steps are done\.\s+Wire the new components to the API now\?/);
  await plan.getByRole('button', { name: 'Yes', exact: true }).waitFor();
  await plan.getByRole('button', { name: 'No', exact: true }).waitFor();
  assert.deepEqual(await steps.locator('.step-state-text').allInnerTexts(), ['ok', 'ok', 'ok', 'ok']);
  await vs.waitForStatus('Plangate: follow-up');

  // The server got the steps in order, step 2 with the EDITED arguments; the files say the same.
  assert.deepEqual(callsAfter(since), [
    // The Call Tool form starts each field at the schema's default, and sends what it shows.
    ['plan_scaffold', SCAFFOLD_DEFAULTS],
    ['create_screen', { screen: 'Payroll', components: COMPONENTS }],
    ['create_component', { screen: 'Payroll', name: 'EditedWidget' }],
    ['create_component', { screen: 'Payroll', name: 'PayPeriodConfigurator' }],
    ['create_component', { screen: 'Payroll', name: 'PTCHoursOverride' }],
  ]);
  const payroll = path.join(vs.workspaceDir, 'src/modules/payroll');
  assert.ok(fs.existsSync(path.join(payroll, 'EditedWidget.tsx')), 'the edited step did not write EditedWidget.tsx');
  assert.ok(!fs.existsSync(path.join(payroll, 'OvertimeStartDaySelector.tsx')), 'the proposed (unedited) arguments ran');
  // The glob is counted again now that the steps wrote files.
  await glob.locator('summary', { hasText: /— 4 files$/ }).waitFor({ timeout: 10_000 });
  // What the run changed, and Revert, are on screen with the follow-up, not under the fold or behind its pinned bar.
  await web.locator('body').evaluate(() => window.scrollTo(0, 0));
  await assertInViewUncovered([
    ['the Changes heading', plan.getByRole('heading', { name: /^Changes \(\d+\)$/ })],
    ['Revert', plan.getByRole('button', { name: 'Revert', exact: true })],
    ['the follow-up Yes', plan.getByRole('button', { name: 'Yes', exact: true })],
  ]);
  await vs.screenshot('dark-follow-up');
  await setTheme(vs, 'light', web);
  await vs.page.mouse.move(200, 700);
  await assertInViewUncovered([
    ['the Changes heading', plan.getByRole('heading', { name: /^Changes \(\d+\)$/ })],
    ['Revert', plan.getByRole('button', { name: 'Revert', exact: true })],
  ]);
  await vs.screenshot('light-follow-up');
  await setTheme(vs, 'dark', web);

  await plan.getByRole('button', { name: 'No', exact: true }).click();
  await plan.locator('p.outcome', { hasText: 'Completed: 4 of 4 steps ran; follow-up answered "no".' }).waitFor();
  await vs.waitForStatus('Plangate: idle');

  const seen = await status.stop();
  const running = seen.filter((t) => /^Plangate: running \d\/4$/.test(t));
  // Four fast steps may all run between two frames of the workbench; the plan_slow test below catches
  // "running k/n" for sure. Here: the order of what was seen.
  assert.ok(
    inOrder(seen, ['Plangate: awaiting approval (1)', ...(running.length ? [running[0]] : []), 'Plangate: follow-up', 'Plangate: idle']),
    `status bar texts out of order: ${JSON.stringify(seen)}`,
  );
  console.log(`[plan-panel] status bar during plan_scaffold: ${JSON.stringify(seen)}`);
});

test('while a plan runs the status bar reads "running k/n" and the panel shows the running step and Cancel', async () => {
  const status = await recordStatus(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_slow', {
    fill: async (form) => form.getByLabel('ms', { exact: true }).fill('6000'),
  });
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  await plan.getByRole('button', { name: 'Approve and run' }).click();

  await vs.waitForStatus('Plangate: running 2/3', 10_000);
  await plan.locator('.actions', { hasText: 'Running step 2 of 3' }).waitFor();
  await plan.getByRole('button', { name: 'Cancel' }).waitFor();
  const bar = plan.getByRole('progressbar', { name: 'Step 2 progress' });
  await bar.waitFor();
  // The bar moves with the server's notifications/progress (slow sends 5 over the 6 s), not just stands there:
  // watched in the panel's own page (a poll from here would be slower than the step on a loaded machine).
  const values = /** @type {number[]} */ (
    await bar.evaluate(
      (el) =>
        new Promise((resolve) => {
          const seen = [Number(/** @type {HTMLProgressElement} */ (el).value)];
          const started = Date.now();
          const look = () => {
            const now = /** @type {HTMLProgressElement | null} */ (document.querySelector('progress[aria-label="Step 2 progress"]'));
            if (now && Number(now.value) !== seen[seen.length - 1]) seen.push(Number(now.value));
            if (seen.length >= 2 || !now || Date.now() - started > 10_000) resolve(seen);
            else setTimeout(look, 10);
          };
          look();
        }),
    )
  );
  await vs.screenshot('dark-running');
  assert.ok(values.length >= 2 && values[values.length - 1] > values[0], `the progress bar's value moves: ${JSON.stringify(values)}`);

  await vs.waitForStatus('Plangate: idle', 15_000); // plan_slow has no follow-up: it finishes
  await plan.locator('p.outcome', { hasText: 'Completed: 3 of 3 steps ran.' }).waitFor();
  const seen = await status.stop();
  assert.ok(
    inOrder(seen, ['Plangate: awaiting approval (1)', 'Plangate: running 2/3', 'Plangate: idle']),
    `status bar texts: ${JSON.stringify(seen)}`,
  );
  assert.deepEqual(
    callsAfter(since).map(([tool]) => tool),
    ['plan_slow', 'succeed', 'slow', 'succeed'],
  );
});

test('Cancel clicked mid-step: the server is told (notifications/cancelled), the plan says cancelled, later steps never run', async () => {
  const since = lastSeq();
  const cancelledLog = `${log.path(vs.workspaceDir)}.cancelled.jsonl`;
  const cancelledBefore = fs.existsSync(cancelledLog) ? fs.readFileSync(cancelledLog, 'utf8').trim().split('\n').filter(Boolean).length : 0;
  const web = await callTool(vs, 'plan_slow', { fill: async (form) => form.getByLabel('ms', { exact: true }).fill('20000') });
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await vs.waitForStatus('Plangate: running 2/3', 10_000);
  await plan.getByRole('progressbar', { name: 'Step 2 progress' }).waitFor();
  await plan.getByRole('button', { name: 'Cancel' }).click();

  await vs.waitForStatus('Plangate: idle', 10_000);
  await plan.locator('p.outcome', { hasText: /Cancelled/ }).waitFor();
  const states = (await plan.locator('ol.steps > li.step .step-state-text').allInnerTexts()).map((t) => t.trim());
  assert.equal(states[0], 'ok');
  assert.notEqual(states[2], 'ok', `step 3 must not run: ${states.join(', ')}`);
  const told = fs
    .readFileSync(cancelledLog, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .slice(cancelledBefore)
    .map((l) => JSON.parse(l).tool);
  assert.deepEqual(told, ['slow'], 'the server received notifications/cancelled for the running step');
  assert.deepEqual(
    callsAfter(since).map(([tool]) => tool),
    ['plan_slow', 'succeed', 'slow'],
    'the third step was never called',
  );
});

test('a failing step blocks the plan: Retry step, Skip step and Stop, the error shown, and nothing after it runs', async () => {
  const since = lastSeq();
  const web = await callTool(vs, 'plan_failing');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).click();

  const actions = plan.getByRole('group', { name: 'Plan actions' });
  for (const name of ['Retry step', 'Skip step', 'Stop'])
    await actions.getByRole('button', { name, exact: true }).waitFor({ timeout: 20_000 });
  await vs.waitForStatus('Plangate: blocked');
  const steps = plan.locator('ol.steps > li.step');
  assert.deepEqual(await steps.locator('.step-state-text').allInnerTexts(), ['ok', 'failed', 'pending']);
  assert.match(await steps.nth(1).locator('.step-error').innerText(), /Step 2 failed on purpose/);
  assert.match(await plan.locator('.blocked-reason').innerText(), /Step 2 failed on purpose/);
  await vs.screenshot('dark-blocked');

  await sleep(1000); // give a wrongly continuing runner the time to call step 3
  const ran = () => callsAfter(since).map(([tool, args]) => `${tool} ${args.message ?? ''}`.trim());
  assert.deepEqual(ran(), ['plan_failing', 'succeed step 1 ok', 'fail Step 2 failed on purpose']);

  await actions.getByRole('button', { name: 'Stop', exact: true }).click();
  await plan.locator('p.outcome', { hasText: 'Stopped after 1 step; the rest did not run.' }).waitFor();
  assert.deepEqual(await steps.locator('.step-state-text').allInnerTexts(), ['ok', 'failed', 'not run']);
  await vs.waitForStatus('Plangate: idle');
  assert.deepEqual(ran(), ['plan_failing', 'succeed step 1 ok', 'fail Step 2 failed on purpose']);
});

test('after a failure, Retry step calls the failed step again and Skip step runs the rest (the call log shows exactly that)', async () => {
  const since = lastSeq();
  const web = await callTool(vs, 'plan_failing');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  const actions = plan.getByRole('group', { name: 'Plan actions' });
  const ran = () => callsAfter(since).map(([tool]) => tool);
  await actions.getByRole('button', { name: 'Retry step', exact: true }).waitFor({ timeout: 20_000 });
  assert.deepEqual(ran(), ['plan_failing', 'succeed', 'fail']);

  await actions.getByRole('button', { name: 'Retry step', exact: true }).click();
  // The retried step fails again (it always does): blocked once more, the step called a second time, step 3 not yet.
  for (let i = 0; i < 100 && ran().length < 4; i++) await sleep(100);
  await actions.getByRole('button', { name: 'Skip step', exact: true }).waitFor({ timeout: 20_000 });
  assert.deepEqual(ran(), ['plan_failing', 'succeed', 'fail', 'fail']);

  await actions.getByRole('button', { name: 'Skip step', exact: true }).click();
  await vs.waitForStatus('Plangate: follow-up', 20_000);
  assert.deepEqual(await stepStates(plan, ['ok', 'skipped', 'ok']), ['ok', 'skipped', 'ok']);
  assert.deepEqual(ran(), ['plan_failing', 'succeed', 'fail', 'fail', 'succeed'], 'the skipped step is not called again; step 3 ran once');
  await plan.getByRole('button', { name: 'No', exact: true }).click();
  await vs.waitForStatus('Plangate: idle');
});

test('Reject runs nothing: the call log shows only the planning call', async () => {
  const since = lastSeq();
  const web = await callTool(vs, 'plan_scaffold');
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
  await plan.getByRole('textbox', { name: 'Note with your decision (optional)' }).fill('not today');
  await plan.getByRole('button', { name: 'Reject' }).click();
  await plan.locator('p.outcome', { hasText: 'Rejected: not today. Nothing ran.' }).waitFor();
  await vs.waitForStatus('Plangate: idle');
  assert.equal(await plan.getByRole('button', { name: 'Approve and run' }).count(), 0);
  await sleep(500);
  assert.deepEqual(callsAfter(since), [['plan_scaffold', SCAFFOLD_DEFAULTS]]);
});

test('an ask form re-plans: the answer is merged into the original arguments and a new ok plan replaces the old one', async () => {
  const since = lastSeq();
  const web = await callTool(vs, 'plan_component', { fill: async (form) => form.getByLabel('screen', { exact: true }).fill('Billing') });
  const plan = planOf(web);
  await plan.locator('p.instruction', { hasText: 'Cannot proceed: no componentId given.' }).waitFor();
  await plan.getByRole('region', { name: 'Errors' }).filter({ hasText: 'No componentId given' }).waitFor();
  const answer = plan.getByRole('region', { name: 'Your answer' });
  await answer.getByText('Choose a valid component or create a placeholder.').waitFor();
  await answer.getByLabel('componentId').selectOption('PayPeriodConfigurator');
  await vs.screenshot('dark-ask-form');
  await answer.getByRole('button', { name: 'Answer and re-plan' }).click();

  await plan
    .locator('p.instruction', { hasText: 'Add component PayPeriodConfigurator to the Billing screen.' })
    .waitFor({ timeout: 15_000 });
  await plan.locator('.badge', { hasText: 'server said: ok' }).waitFor();
  await plan.locator('p.lineage', { hasText: 'Replaces 1 earlier plan' }).waitFor();
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  assert.deepEqual(await plan.locator('ol.steps > li.step .step-label').allInnerTexts(), [
    'Create component PayPeriodConfigurator',
    'Report',
  ]);
  assert.deepEqual(callsAfter(since), [
    ['plan_component', { screen: 'Billing', encoding: 'json' }],
    ['plan_component', { screen: 'Billing', encoding: 'json', componentId: 'PayPeriodConfigurator' }],
  ]);

  await plan.getByRole('button', { name: 'Reject' }).click();
  await vs.waitForStatus('Plangate: idle');
});

test('hostile text from a server renders as text: no element, no script, no dialog', async () => {
  const dialogs = [];
  const onDialog = (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss().catch(() => {});
  };
  vs.page.on('dialog', onDialog);
  try {
    const before = await panel(vs);
    // The webview's sandbox has no allow-modals, so an alert there would not even reach page.on('dialog'):
    // record calls of the dialog functions inside the panel's document as well.
    await before.locator('body').evaluate(() => {
      const w = /** @type {any} */ (window);
      w.__e2eDialogs = [];
      for (const fn of ['alert', 'confirm', 'prompt'])
        w[fn] = (...a) => {
          w.__e2eDialogs.push([fn, ...a.map(String)]);
        };
    });
    const since = lastSeq();
    const web = await callTool(vs, 'plan_xss');
    const plan = planOf(web);
    await plan.getByRole('button', { name: 'Approve and run' }).waitFor();
    await sleep(1000); // an onerror handler would have fired by now

    assert.equal(await plan.locator('p.instruction').innerText(), '<img src=x onerror=alert(1)>');
    await plan.getByText('<script>alert(1)</script> step', { exact: true }).waitFor();
    await plan.getByText('[click me](javascript:alert(1))', { exact: true }).waitFor();
    // "__proto__" in arguments is shown as a key, like any other.
    const step1 = plan.locator('ol.steps > li.step').first();
    await step1.locator('summary').getByText('Arguments', { exact: true }).click();
    await step1.locator('pre.json', { hasText: '"__proto__": {' }).waitFor();
    const dom = await plan.evaluate(() => {
      const doc = document;
      return {
        img: doc.querySelectorAll('img').length,
        scripts: [...doc.querySelectorAll('script')].map((s) => s.getAttribute('src') ?? `inline: ${s.textContent.slice(0, 60)}`),
        styles: [...doc.querySelectorAll('style')].map((s) => `${s.id || '(no id)'}: ${s.textContent.slice(0, 60)}`),
        links: doc.querySelectorAll('a[href]').length,
        handlers: [...doc.querySelectorAll('*')].flatMap((el) =>
          [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName}[${a.name}]`),
        ),
        dialogs: /** @type {any} */ (window).__e2eDialogs,
        polluted: {}.polluted,
        stillVisible: getComputedStyle(doc.body).display !== 'none' && getComputedStyle(doc.getElementById('root')).display !== 'none',
      };
    });
    assert.equal(dom.img, 0, 'an <img> element exists in the panel');
    // Only the panel's own bundle and the script VS Code puts into every webview (acquireVsCodeApi).
    const foreign = dom.scripts.filter((s) => !/\/dist\/webview\.js$/.test(s) && !/^inline: [\s\S]*acquireVsCodeApi/.test(s));
    assert.deepEqual(foreign, [], "scripts in the panel that are neither its bundle nor VS Code's");
    // VS Code puts one <style id="_defaultStyles"> into every webview; the panel itself has none.
    assert.deepEqual(
      dom.styles.filter((s) => !s.startsWith('_defaultStyles:')),
      [],
      'a <style> element was injected',
    );
    assert.equal(dom.links, 0, 'a link was made from server text');
    assert.deepEqual(dom.handlers, [], 'elements carry inline event handlers');
    assert.deepEqual(dom.dialogs, [], 'the panel called a dialog function');
    assert.equal(dom.polluted, undefined, 'Object.prototype was polluted');
    assert.ok(dom.stillVisible, 'server CSS hid the panel');
    assert.deepEqual(dialogs, [], 'a dialog opened');
    await vs.screenshot('dark-xss');

    await plan.getByRole('button', { name: 'Reject' }).click();
    await vs.waitForStatus('Plangate: idle');
    assert.deepEqual(
      callsAfter(since).map(([tool]) => tool),
      ['plan_xss'],
    );
  } finally {
    vs.page.off('dialog', onDialog);
  }
});

test('the panel in light and dark themes: screenshots, and no serious or critical axe violations', async () => {
  // Four plans open at once, one per state worth looking at: awaiting approval with an edited step, blocked
  // after a failure, an ask form, and a completed plan with the files it changed. The switcher picks between them.
  let web = await callTool(vs, 'plan_status', { fill: async (form) => form.getByLabel(/^status/).selectOption('ok') });
  let plan = planOf(web);
  const step1 = plan.locator('ol.steps > li.step').first();
  await step1.locator('summary').getByText('Arguments', { exact: true }).click();
  await step1.getByRole('button', { name: 'Edit arguments of step 1' }).click();
  await step1
    .getByRole('textbox', { name: 'Arguments of step 1 as JSON' })
    .fill('{ "screen": "Payroll", "components": ["PayPeriodConfigurator"] }');
  await step1.getByRole('button', { name: 'Save arguments' }).click();
  await step1.locator('.flag.edited').waitFor();

  web = await callTool(vs, 'plan_failing');
  plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await plan.getByRole('button', { name: 'Retry step' }).waitFor({ timeout: 20_000 });

  web = await callTool(vs, 'plan_component');
  await planOf(web).getByRole('button', { name: 'Answer and re-plan' }).waitFor();

  web = await callTool(vs, 'plan_scaffold', {
    fill: async (form) => {
      await form.getByLabel(/^screen/).fill('Audit');
      await form.getByLabel(/^components/).fill('["Ledger"]');
    },
  });
  plan = planOf(web);
  await plan.locator('p.instruction', { hasText: 'Scaffold Audit screen and components.' }).waitFor();
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await plan.getByRole('button', { name: 'No', exact: true }).click({ timeout: 20_000 });
  await plan.locator('p.outcome', { hasText: 'Completed: 2 of 2 steps ran' }).waitFor();
  // The completed state shows what the plan changed: files it created under the screen's folder, none undeclared.
  const changed = plan.getByRole('list', { name: 'Changed files' });
  await changed.waitFor({ timeout: 20_000 });
  const changedRows = (await changed.getByRole('listitem').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  assert.ok(changedRows.length > 0 && changedRows.every((r) => /^src\/modules\/audit\/\S+ created\b/.test(r)), JSON.stringify(changedRows));
  assert.ok(
    changedRows.every((r) => !r.includes('undeclared write')),
    JSON.stringify(changedRows),
  );

  // Only these stay in the panel's switcher (earlier tests' finished plans are closed).
  /** @type {[string, RegExp][]} */
  const states = [
    ['awaiting', /Scaffold Payroll screen and components\. · awaiting approval$/],
    ['blocked', /Run three steps; the second one fails\. · blocked$/],
    ['ask', /Cannot proceed: no componentId given\. · error$/],
    ['completed', /Scaffold Audit screen and components\. · completed$/],
  ];
  await closeOtherItems(web, (text) => states.some(([, tab]) => tab.test(text)));
  const switcher = web.getByRole('navigation', { name: 'Open items' });
  assert.equal(await switcher.locator('button.tab-button').count(), states.length);
  const report = [];
  const check = async (theme, state) => {
    await vs.page.mouse.move(200, 700); // off the panel: scan and shoot the resting state, not a hover
    const shot = await vs.screenshot(`${theme}-${state}`);
    report.push({ theme, state, shot, violations: await a11yScan(web) });
  };
  for (const theme of ['light', 'dark']) {
    await setTheme(vs, theme, web);
    for (const [state, tab] of states) {
      await switcher.locator('button.tab-button').filter({ hasText: tab }).click();
      await switcher.locator('button.tab-button[aria-current="page"]').filter({ hasText: tab }).waitFor();
      await planOf(web).getByRole('group', { name: 'Plan actions' }).waitFor();
      await web.locator('body').evaluate(() => window.scrollTo(0, 0));
      await check(theme, state);
      if (state === 'awaiting') {
        // The edited step's diff, scrolled into view (axe judges the contrast of what it can see).
        await planOf(web)
          .getByLabel('Argument changes')
          .evaluate((el) => el.scrollIntoView({ block: 'center' }));
        await check(theme, 'awaiting-diff');
      }
    }
  }
  for (const { theme, state, shot, violations } of report) {
    console.log(`[plan-panel] ${theme}/${state}: ${shot}`);
    for (const v of violations) {
      console.log(`  axe ${v.impact} ${v.id}: ${v.help} (${v.nodes.length} node${v.nodes.length === 1 ? '' : 's'})`);
      for (const n of v.nodes.slice(0, 4))
        console.log(`    ${n.target.join(' ')} — ${(n.failureSummary ?? '').split('\n').slice(1).join(' ').trim()}`);
    }
  }
  const serious = report.flatMap(({ theme, state, violations }) =>
    violations
      .filter((v) => ['serious', 'critical'].includes(v.impact))
      .map(
        (v) =>
          `${theme}/${state}: ${v.impact} ${v.id} (${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 3)
            .join(', ')})`,
      ),
  );
  assert.deepEqual(serious, [], 'serious or critical accessibility violations in the plan panel');

  // Leave nothing waiting: stop the blocked plan, reject the edited one.
  await switcher.locator('button.tab-button').filter({ hasText: states[1][1] }).click();
  await planOf(web).getByRole('button', { name: 'Stop', exact: true }).click();
  await switcher.locator('button.tab-button').filter({ hasText: states[0][1] }).click();
  await planOf(web).getByRole('button', { name: 'Reject' }).click();
  await vs.waitForStatus('Plangate: idle');
});

// One window reload for both things a reload must bring back (each reload of the workbench costs the machine as
// much as a new session).
test("a window reload brings back a plan awaiting approval, with a working Approve and run, and an open server app: its page read afresh from the server, the tool's input and result replayed, nothing called again", async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  let web = await callTool(vs, 'app_panel', { fill: async (form) => form.getByLabel(/^label/).fill('Eve') });
  let app = web.frameLocator('#apps iframe.app-frame:not([hidden])');
  await app.locator('#result', { hasText: 'App panel for Eve' }).waitFor({ timeout: 20_000 });
  web = await callTool(vs, 'plan_failing');
  await planOf(web).getByRole('button', { name: 'Approve and run' }).waitFor();
  await vs.waitForStatus('Plangate: awaiting approval (1)');

  await vs.page.reload({ waitUntil: 'domcontentloaded' });
  await vs.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await vs.waitForStatus('Plangate: awaiting approval (1)', 60_000);
  web = await panel(vs, 60_000);
  const switcher = web.getByRole('navigation', { name: 'Open items' });
  const planTab = switcher.locator('button.tab-button').filter({ hasText: /Run three steps; the second one fails\. · awaiting approval$/ });
  await planTab.click({ timeout: 30_000 });
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 30_000 });
  await plan.locator('p.instruction', { hasText: 'Run three steps; the second one fails.' }).waitFor();
  assert.deepEqual(await plan.locator('ol.steps > li.step .step-state-text').allInnerTexts(), ['pending', 'pending', 'pending']);
  await vs.screenshot('dark-after-reload');

  // The app's item is back at once, saying what it was; the app comes back by itself once the server runs again.
  await switcher
    .locator('button.tab-button')
    .filter({ hasText: /app_panel/ })
    .click();
  await web.locator('main .result .origin', { hasText: 'fixture · app_panel' }).waitFor({ timeout: 30_000 });
  app = web.frameLocator('#apps iframe.app-frame:not([hidden])');
  await app.locator('#result', { hasText: 'App panel for Eve' }).waitFor({ timeout: 60_000 });
  assert.equal(await app.locator('#input').innerText(), '{"label":"Eve"}', "the tool's input, replayed");
  assert.match(await web.locator('main .result .app-caption').innerText(), /ui:\/\/fixture\/panel-app/);
  assert.equal(await web.locator('main .result .app-reopen').count(), 0, 'reopened: no Reopen app left');
  await vs.screenshot('app-after-reload');
  assert.deepEqual(
    callsAfter(since).map(([tool]) => tool),
    ['app_panel', 'plan_failing'],
    "nothing was called again: the app tool's result was replayed, the plan waits",
  );

  // The restored plan is live: approving it runs the plan (the fixture server was restarted with the window).
  await waitForServerRunning(vs);
  await planTab.click();
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await plan.getByRole('button', { name: 'Retry step' }).waitFor({ timeout: 20_000 });
  for (let i = 0; i < 50 && callsAfter(since).length < 4; i++) await sleep(100);
  assert.deepEqual(
    callsAfter(since).map(([tool]) => tool),
    ['app_panel', 'plan_failing', 'succeed', 'fail'],
  );
  await plan.getByRole('button', { name: 'Stop', exact: true }).click();
  await vs.waitForStatus('Plangate: idle');
});
