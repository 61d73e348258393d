// What the user reviews is what an approval covers, in a real VS Code: each step shows its tool as the server lists
// it (title, first line of its description, the whole definition on demand); a server that redefines a step's tool
// while the plan is on screen gets the step marked "changed while you were reviewing", with what changed; Approve and
// run is refused until the user accepted the change, and nothing reaches the server meanwhile (the fixture's call
// log); after Accept change the plan runs — the new definition, which the user has now seen.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer, withWorkspaceSettings } from '../lib/workspace.mjs';
import { callTool, settlePanel, waitForServerRunning } from '../lib/panel.mjs';

const log = callLogBeside('fixture-calls.jsonl');

const vs = useVSCode({
  name: 'review',
  workspace: {
    files: { 'README.md': '# review workspace\n' },
    servers: (dir) => ({ fixture: fixtureServer(dir, { callLog: log.path(dir) }) }),
  },
});

afterEach(async (t) => {
  if (/** @type {any} */ (t)?.passed === false) await settlePanel(vs);
});

const { lastSeq, toolsAfter, toolsOnceThere } = log.of(() => vs.workspaceDir);
/** @param {import('playwright-core').FrameLocator} web */
const planOf = (web) => web.locator('main article.top-plan');
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** Calls plan_review_redefine and waits until its step shows its tool as listed. */
async function showPlan() {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'plan_review_redefine');
  const plan = planOf(web);
  const step = plan.locator('ol.steps > li.step').first();
  const tool = step.locator('details.tool-def > summary');
  await tool.filter({ hasText: 'harmless — says' }).waitFor({ timeout: 15_000 });
  return { web, plan, step, tool };
}

/** The server redefines review_say (the fixture watches for this file), then sends tools/list_changed. */
function redefine() {
  fs.writeFileSync(path.join(vs.workspaceDir, 'redefine-review-echo'), '');
}

test('a step shows its tool as the server lists it; a redefinition while you review is marked, Approve is refused until you accept it, then the new definition runs', async () => {
  const since = lastSeq();
  const { plan, step, tool } = await showPlan();
  assert.equal(
    (await tool.innerText()).replace(/\s+/g, ' ').trim(),
    'Tool of step 1, as the server lists it: Say — Step: harmless — says its message back.',
  );
  assert.equal(await step.locator('.flag.hint-read').count(), 1, "the tool's hint: read-only");

  // Keyboard: the summary takes focus and Enter opens the whole definition.
  await tool.focus();
  await vs.page.keyboard.press('Enter');
  const body = step.locator('.tool-def-body');
  await body.locator('pre.text-block', { hasText: 'Nothing is written anywhere.' }).waitFor({ timeout: 5000 });
  assert.match(await body.locator('pre.json').first().innerText(), /"message"/);
  assert.doesNotMatch(await body.locator('pre.json').first().innerText(), /"force"/);
  await vs.screenshot('step-tool-definition');

  redefine();
  const mark = step.locator('.review-change');
  await mark.waitFor({ timeout: 20_000 });
  assert.match(
    (await mark.innerText()).replace(/\s+/g, ' '),
    /Changed while you were reviewing: server 'fixture' changed the description and input schema of tool 'review_say'\./,
  );
  await tool.filter({ hasText: 'deletes the repository' }).waitFor({ timeout: 5000 });
  assert.equal(await step.locator('.flag.hint-read').count(), 1, 'the hints did not change: only the description and schema say it');
  await mark.getByText('See what changed').click();
  const diff = mark.locator('pre.diff');
  assert.match(
    await diff
      .locator('.removed')
      .allInnerTexts()
      .then((t) => t.join('')),
    /harmless — says/,
  );
  assert.match(
    await diff
      .locator('.added')
      .allInnerTexts()
      .then((t) => t.join('')),
    /deletes the repository[\s\S]*"force"/,
  );
  await vs.screenshot('step-changed-while-reviewing');

  await plan.getByRole('button', { name: 'Approve and run' }).click();
  const refusal = plan.locator('[id^=actions-error-]');
  await refusal.filter({ hasText: 'changed while you were reviewing' }).waitFor({ timeout: 10_000 });
  assert.match(
    await refusal.innerText(),
    /step 1 \(Say hello, review_say\) changed while you were reviewing: server 'fixture' changed the description and input schema of tool 'review_say'/,
  );
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  await sleep(500);
  assert.deepEqual(toolsAfter(since), ['plan_review_redefine'], 'nothing was sent to the server');
  await vs.screenshot('approve-refused');

  await step.getByRole('button', { name: 'Accept the change to step 1' }).click();
  await mark.waitFor({ state: 'detached', timeout: 10_000 });
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await vs.waitForStatus('Plangate: idle', 20_000);
  assert.deepEqual(await toolsOnceThere(since, 2), ['plan_review_redefine', 'review_say']);
  await step.locator('.step-summary', { hasText: 'deleted the repository (hello, force: false)' }).waitFor({ timeout: 10_000 });
});

test('the changed mark and the tool definition in the light theme', async () => {
  await withWorkspaceSettings(vs.workspaceDir, { 'workbench.colorTheme': 'Default Light Modern' }, async () => {
    const { plan, step, tool } = await showPlan();
    redefine();
    const mark = step.locator('.review-change');
    await mark.waitFor({ timeout: 20_000 });
    await tool.click();
    await step.locator('.tool-def-body').getByText('Input schema').waitFor({ timeout: 5000 });
    await mark.getByText('See what changed').click();
    await vs.screenshot('light-changed-while-reviewing');
    await plan.getByRole('button', { name: 'Reject' }).click();
    await vs.waitForStatus('Plangate: idle');
  });
});
