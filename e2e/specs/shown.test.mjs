// What is approved is what was shown, in a real VS Code (issue 24, items 1, 5 and 9): a dry-run preview the policy
// asks about is not sent before approval — the step offers Preview, which asks on the single-call card; an ask form
// shows the call its answer makes (server / tool and the merged arguments, live) and sends exactly that; the card and a
// plan step show every character of a long argument, the last ones reachable by scrolling. What ran is read from the
// fixture's call log, what the user sees from the webview.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer } from '../lib/workspace.mjs';
import { callTool, settlePanel, waitForServerRunning } from '../lib/panel.mjs';

const log = callLogBeside('fixture-calls.jsonl');

const vs = useVSCode({
  name: 'shown',
  workspace: {
    files: { 'notes.txt': 'hello world\n' },
    servers: (dir) => ({ fixture: fixtureServer(dir, { callLog: log.path(dir) }) }),
  },
  settings: {
    'plangate.policy': { rules: [{ id: 'ask-edits', decision: 'ask', reason: 'edits are reviewed first', tool: 'edit_text' }] },
  },
});

afterEach(async (t) => {
  if (/** @type {any} */ (t)?.passed === false) await settlePanel(vs);
});

const { lastSeq, callsAfter } = log.of(() => vs.workspaceDir);
const planOf = (web) => web.locator('main article.top-plan');
const card = (web) => web.locator('main .call-card');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Scrolls `block` (a <pre> of arguments) into view and to its end; true when `tail`, its last characters, are then
 * inside the block's visible box (what the user can read without anything else).
 * @param {import('playwright-core').Locator} block
 * @param {string} tail
 */
async function tailReadable(block, tail) {
  return block.evaluate((el, tail) => {
    el.scrollIntoView({ block: 'center' });
    el.scrollTop = el.scrollHeight;
    const text = /** @type {Text} */ (el.firstChild);
    const at = text.data.lastIndexOf(tail);
    if (at < 0) return false;
    const range = document.createRange();
    range.setStart(text, at);
    range.setEnd(text, at + tail.length);
    const r = range.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && r.bottom <= window.innerHeight;
  }, tail);
}

test('a preview the policy asks about is not sent before approval; Preview asks on the card, Allow once shows the diff', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_edit_dry_run', { fill: async (form) => form.getByLabel(/^path/).fill('notes.txt') });
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 30_000 });
  const predicted = plan.getByRole('list', { name: 'Predicted file changes' });
  const preview = predicted.getByRole('button', { name: 'Preview step 1' });
  await preview.waitFor({ timeout: 30_000 });
  assert.match(await predicted.innerText(), /policy asks before this call: edits are reviewed first \(rule 'ask-edits'\)/);
  await sleep(1000);
  assert.deepEqual(
    callsAfter(since).map(([tool]) => tool),
    ['plan_edit_dry_run'],
    'no dry run reached the server before anyone decided',
  );
  await preview.scrollIntoViewIfNeeded();
  await vs.screenshot('preview-waits');

  await preview.click();
  const shown = card(web);
  await shown.waitFor({ timeout: 15_000 });
  assert.match(await shown.locator('.card-who').innerText(), /dry-run preview you pressed .* calls edit_text on server fixture/);
  assert.match(await shown.locator('.card-args').innerText(), /"dryRun": true/);
  assert.equal(await shown.getByRole('button', { name: 'Always allow' }).count(), 0, 'a preview is allowed once only');
  await vs.screenshot('preview-card');
  await shown.getByRole('button', { name: 'Allow once' }).click();

  await planOf(web).getByRole('button', { name: 'Open the predicted diff of notes.txt' }).waitFor({ timeout: 30_000 });
  const calls = callsAfter(since);
  assert.deepEqual(
    calls.map(([tool]) => tool),
    ['plan_edit_dry_run', 'edit_text'],
  );
  assert.equal(calls[1][1].dryRun, true, 'the preview was the dry run');
  assert.equal(fs.readFileSync(path.join(vs.workspaceDir, 'notes.txt'), 'utf8'), 'hello world\n', 'nothing written');
  await vs.screenshot('preview-shown');
  await planOf(web).getByRole('button', { name: 'Reject' }).click();
});

test('the ask form shows server / tool and the merged arguments, live; the answer sends exactly them', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_component', { fill: async (form) => form.getByLabel('screen', { exact: true }).fill('Billing') });
  const answer = planOf(web).getByRole('region', { name: 'Your answer' });
  await answer.waitFor({ timeout: 30_000 });
  assert.match(await answer.locator('.ask-call').innerText(), /Answer and re-plan calls fixture \/ plan_component with these arguments/);
  const args = answer.locator('.ask-call-args pre');
  assert.deepEqual(JSON.parse(await args.innerText()), { screen: 'Billing', encoding: 'json' });
  await answer.getByLabel('componentId').selectOption('PayPeriodConfigurator');
  const merged = { screen: 'Billing', encoding: 'json', componentId: 'PayPeriodConfigurator' };
  assert.deepEqual(JSON.parse(await args.innerText()), merged, 'the answer is merged in as the user chooses');
  await answer.scrollIntoViewIfNeeded();
  await vs.screenshot('ask-form-call');
  await answer.getByRole('button', { name: 'Answer and re-plan' }).click();
  await planOf(web)
    .locator('p.instruction', { hasText: 'Add component PayPeriodConfigurator to the Billing screen.' })
    .waitFor({ timeout: 15_000 });
  assert.deepEqual(callsAfter(since).at(-1), ['plan_component', merged], 'the server got exactly what the form showed');
  await planOf(web).getByRole('button', { name: 'Reject' }).click();
});

test('the card shows every character of a 25,000-character argument before Allow once', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const tail = 'LAST-WORDS-OF-THE-CONTENT';
  const content = 'y'.repeat(25_000 - tail.length) + tail;
  const web = await callTool(vs, 'write_file_step', {
    fill: async (form) => {
      await form.getByLabel(/^path/).fill('big.txt');
      await form.getByLabel(/^content/).fill(content);
    },
  });
  const shown = card(web);
  await shown.waitFor({ timeout: 15_000 });
  const block = shown.locator('.card-args');
  assert.equal(await tailReadable(block, tail), true, 'the last characters can be read on the card');
  assert.match(await shown.locator('.args-size').innerText(), /^25,0\d\d characters — all shown; scroll to read them/);
  await vs.screenshot('card-big-args');
  await shown.getByRole('button', { name: 'Allow once' }).click();
  await web.locator('main .result').waitFor({ timeout: 15_000 });
  const calls = callsAfter(since);
  assert.equal(calls.at(-1)?.[0], 'write_file_step');
  assert.equal(calls.at(-1)?.[1].content, content, 'what was sent is what the card showed');
});

test("a plan step's opened arguments show every character of a 60,000-character argument", async () => {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'plan_long_args', { fill: async (form) => form.getByLabel(/^length/).fill('60000') });
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 30_000 });
  const step = plan.locator('ol.steps > li.step').first();
  await step.locator('details.args > summary').click();
  const block = step.locator('details.args pre');
  await block.waitFor();
  assert.equal(await tailReadable(block, ' TAIL: the last words of the argument'), true);
  assert.match(await step.locator('.args-size').innerText(), /^60,0\d\d characters/);
  await vs.screenshot('step-big-args');
  await plan.getByRole('button', { name: 'Reject' }).click();
});
