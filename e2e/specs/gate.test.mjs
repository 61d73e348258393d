// The gate's promise where the user meets it, in a real VS Code: each step shows the server it runs on; a server that
// redefines a tool after the approval makes the plan ask again (saying what changed) instead of running it; a
// recovery action opens as a one-step plan that runs only after Approve. What ran is read from the fixture's call
// log, what the user sees from the webview.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer } from '../lib/workspace.mjs';
import { callTool, settlePanel, waitForServerRunning } from '../lib/panel.mjs';

const log = callLogBeside('fixture-calls.jsonl');

const vs = useVSCode({
  name: 'gate',
  workspace: {
    files: { 'README.md': '# gate workspace\n' },
    servers: (dir) => ({ fixture: fixtureServer(dir, { callLog: log.path(dir) }) }),
  },
});

afterEach(async (t) => {
  if (t?.passed === false) await settlePanel(vs);
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
