// The gate against the real fixture server (in memory): results become plans, decisions become runs, prompts
// wait for the user, and the fixture's call log shows exactly what ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixtureServer, readCallLog } from '../../fixture/fixtureServer';
import { Gate } from '../../src/core/engine/gate';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import type { PlanRecord } from '../../src/core/workflow/workflow';
import { connectInMemory } from './helpers/inMemoryInvoker';

async function setup(settings = { stepTimeoutMs: 5000, allowCrossServer: true }, beforeRun?: (plan: PlanRecord) => Promise<void>) {
  const root = mkdtempSync(join(tmpdir(), 'plangate-gate-'));
  const callLog = join(root, 'calls.jsonl');
  const conn = await connectInMemory([{ name: 'fixture', server: createFixtureServer({ root, callLogFile: callLog }) }]);
  let n = 0;
  const workflow = new Workflow(new MemoryLedgerSink());
  const gate = new Gate(workflow, { invoker: conn.invoker, settings: () => settings, newId: () => `p${++n}`, beforeRun });
  const calls = () => (existsSync(callLog) ? readCallLog(callLog).map((c) => c.tool) : []);
  const plan = async (tool: string, args: Record<string, unknown> = {}) => {
    const result = await conn.invoker.callTool('fixture', tool, args);
    return gate.receive({ server: 'fixture', tool, args, entrance: 'manual' }, result);
  };
  const settled = (id: string) => gate.whenSettled(id) as Promise<PlanRecord>;
  const waitFor = async (cond: () => boolean, what: string) => {
    for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(cond(), `timed out waiting for ${what}`);
  };
  return {
    root,
    gate,
    workflow,
    calls,
    plan,
    settled,
    waitFor,
    async close() {
      gate.dispose();
      await conn.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

test('an ok plan waits for approval; Approve and run runs every step in order and reaches the follow-up', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const received = await s.plan('plan_scaffold', { screen: 'Payroll' });
  assert.equal(received.kind, 'plan');
  const id = (received as { planId: string }).planId;
  assert.equal(s.workflow.state.plans[id].phase, 'awaiting_approval');
  assert.deepEqual(s.calls(), ['plan_scaffold'], 'nothing runs before approval');
  assert.equal(await s.gate.approve(id), undefined);
  const done = await s.settled(id);
  assert.equal(done.phase, 'follow_up');
  assert.deepEqual(s.calls(), ['plan_scaffold', 'create_screen', 'create_component', 'create_component', 'create_component']);
  assert.equal(s.gate.followUp(id, 'no'), undefined);
  assert.equal(s.workflow.state.plans[id].outcome, 'completed');
  assert.ok(existsSync(join(s.root, 'src/modules/payroll')), 'the steps wrote into the workspace root');
});

test('a note with the approval is trimmed, kept with the plan and in the ledger; a blank one is none', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const first = (await s.plan('plan_scaffold')) as { planId: string };
  assert.equal(await s.gate.approve(first.planId, '  Keep the old grid.  '), undefined);
  assert.equal(s.workflow.state.plans[first.planId].approvalNote, 'Keep the old grid.');
  await s.settled(first.planId);
  const second = (await s.plan('plan_scaffold')) as { planId: string };
  assert.equal(await s.gate.approve(second.planId, '   '), undefined);
  assert.equal(s.workflow.state.plans[second.planId].approvalNote, undefined);
  await s.settled(second.planId);
});

test('Reject runs nothing and records the reason', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_scaffold')) as { planId: string };
  assert.equal(s.gate.reject(planId, 'not today'), undefined);
  assert.equal(s.workflow.state.plans[planId].outcome, 'rejected');
  assert.equal(s.workflow.state.plans[planId].rejectReason, 'not today');
  assert.deepEqual(s.calls(), ['plan_scaffold']);
  assert.match((await s.gate.approve(planId)) ?? '', /only a plan awaiting approval/i, 'a rejected plan cannot be approved later');
});

test('edited arguments are what runs; a skipped step does not run', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_scaffold', { screen: 'Payroll' })) as { planId: string };
  const step1 = s.workflow.state.plans[planId].steps[1];
  assert.equal(s.gate.editArgs(planId, 1, { ...step1.call.args, name: 'EditedName' }), undefined);
  assert.equal(s.gate.markSkip(planId, 2, true), undefined);
  await s.gate.approve(planId);
  await s.settled(planId);
  const log = readCallLog(join(s.root, 'calls.jsonl'));
  const components = log.filter((c) => c.tool === 'create_component').map((c) => c.args.name);
  assert.equal(components.length, 2, 'the skipped step did not run');
  assert.equal(components[0], 'EditedName', 'the edited arguments ran');
  assert.match(s.gate.editArgs(planId, 1, {}) ?? '', /./, 'arguments cannot change after approval');
});

test('a failing step blocks the plan; nothing after it runs; Skip step continues, Stop ends it', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_failing')) as { planId: string };
  await s.gate.approve(planId);
  let record = await s.settled(planId);
  assert.equal(record.phase, 'blocked');
  assert.equal(record.steps[1].state, 'failed');
  assert.equal(record.steps[2].state, 'pending');
  assert.deepEqual(s.calls().slice(1), ['succeed', 'fail']);
  assert.equal(s.gate.retry(planId), undefined);
  record = await s.settled(planId);
  assert.equal(record.phase, 'blocked', 'the retried step fails again');
  assert.deepEqual(s.calls().slice(1), ['succeed', 'fail', 'fail']);
  assert.equal(s.gate.skipFailed(planId), undefined);
  record = await s.settled(planId);
  assert.ok(['finished', 'follow_up'].includes(record.phase));
  assert.equal(record.steps[1].state, 'skipped');
  assert.equal(record.steps[2].state, 'ok');

  const second = (await s.plan('plan_failing')) as { planId: string };
  await s.gate.approve(second.planId);
  await s.settled(second.planId);
  assert.equal(s.gate.stop(second.planId), undefined);
  const stopped = s.workflow.state.plans[second.planId];
  assert.equal(stopped.outcome, 'stopped');
  assert.equal(stopped.steps[2].state, 'not_run');
});

test('confirm and ask_user steps wait for the user in the panel prompts', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_confirm')) as { planId: string };
  const plan = s.workflow.state.plans[planId];
  const confirmIndex = plan.steps.findIndex((st) => st.call.confirm === true);
  const askIndex = plan.steps.findIndex((st) => st.call.tool === 'ask_user');
  assert.ok(confirmIndex >= 0 && askIndex >= 0, 'the fixture plan has a confirm step and an ask_user step');
  await s.gate.approve(planId);
  for (let i = 0; i < 2; i++) {
    await s.waitFor(() => s.gate.pending.length > 0, 'a prompt');
    const prompt = s.gate.pending[0];
    if (prompt.kind === 'confirm') {
      assert.equal(prompt.step, confirmIndex);
      assert.equal(s.gate.answerConfirm(planId, prompt.step, true), undefined);
    } else {
      assert.equal(prompt.step, askIndex);
      assert.ok(prompt.fields.length > 0, 'the ask_user fields are shown');
      const values = Object.fromEntries(prompt.fields.map((f) => [f.name, f.options?.[0] ?? 'x']));
      assert.equal(s.gate.answerAskUser(planId, prompt.step, values), undefined);
    }
  }
  const done = await s.settled(planId);
  assert.notEqual(done.phase, 'blocked');
  assert.ok(!s.calls().includes('ask_user'), 'ask_user is answered locally, never sent to the server');
  assert.equal(done.steps[askIndex].state, 'ok');
});

test('a declined confirmation stops the plan before the step runs', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_confirm')) as { planId: string };
  const confirmIndex = s.workflow.state.plans[planId].steps.findIndex((st) => st.call.confirm === true);
  await s.gate.approve(planId);
  await s.waitFor(() => s.gate.pending.length > 0, 'the ask_user prompt');
  const ask = s.gate.pending[0];
  assert.equal(ask.kind, 'askUser');
  s.gate.answerAskUser(planId, ask.step, { release: 'r1', channel: 'beta' });
  await s.waitFor(() => s.gate.pending.some((p) => p.kind === 'confirm'), 'the confirm prompt');
  const before = s.calls().length;
  s.gate.answerConfirm(planId, confirmIndex, false);
  const done = await s.settled(planId);
  assert.equal(done.outcome, 'stopped');
  assert.equal(s.calls().length, before, 'nothing more ran');
});

test('a nested plan waits for its own approval; approving it runs it, then the parent continues', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_nested', { depth: 1 })) as { planId: string };
  await s.gate.approve(planId);
  await s.waitFor(
    () => Object.values(s.workflow.state.plans).some((p) => p.parentId === planId && p.phase === 'awaiting_approval'),
    'the nested plan',
  );
  const child = Object.values(s.workflow.state.plans).find((p) => p.parentId === planId)!;
  assert.equal(await s.gate.approve(child.id), undefined);
  const done = await s.settled(planId);
  assert.notEqual(done.phase, 'blocked');
  assert.equal(s.workflow.state.plans[child.id].outcome ?? s.workflow.state.plans[child.id].phase, 'completed');
});

test("a nested plan is shown with each step's server, and checkpointed after its approval and before its first step", async (t) => {
  const prepared: string[] = [];
  const s = await setup(undefined, async (plan) => {
    prepared.push(
      `${plan.parentId ? 'nested' : 'top'}:${plan.phase}:${plan.steps.map((st) => st.state).join(',')}:calls=${s.calls().length}`,
    );
  });
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_nested', { depth: 1 })) as { planId: string };
  await s.gate.approve(planId);
  await s.waitFor(
    () =>
      Object.values(s.workflow.state.plans).some(
        (p) => p.parentId === planId && p.phase === 'awaiting_approval' && p.resolvedAt !== undefined,
      ),
    'the nested plan, resolved',
  );
  const child = Object.values(s.workflow.state.plans).find((p) => p.parentId === planId)!;
  assert.ok(
    child.steps.every((st) => st.server === 'fixture'),
    'the nested plan shows the server of each step before its approval',
  );
  const callsBefore = s.calls().length;
  assert.equal(await s.gate.approve(child.id), undefined);
  await s.settled(planId);
  assert.equal(prepared.length, 2, prepared.join(' | '));
  assert.match(prepared[0], /^top:executing:/);
  assert.equal(
    prepared[1],
    `nested:executing:${child.steps.map(() => 'pending').join(',')}:calls=${callsBefore}`,
    'the nested checkpoint is taken before any of its steps runs',
  );
});

test('Cancel aborts the running step; the plan ends cancelled with later steps not run', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_hang')) as { planId: string };
  await s.gate.approve(planId);
  await s.waitFor(
    () => s.workflow.state.plans[planId].steps.some((st) => st.state === 'running' && st.call.tool === 'hang'),
    'the hanging step',
  );
  assert.equal(s.gate.cancel(planId), undefined);
  const done = await s.settled(planId);
  assert.equal(done.outcome, 'cancelled');
  assert.ok(done.steps.slice(-1).every((st) => st.state === 'not_run'));
});

test('an error plan has nothing to approve; its ask form re-plans with the answers and the new plan replaces it', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_component', { screen: 'Payroll' })) as { planId: string };
  const first = s.workflow.state.plans[planId];
  assert.equal(first.plan.status, 'error');
  assert.equal(first.outcome, 'not_ok');
  const options = first.plan.ask?.fields?.find((f) => f.name === 'componentId')?.options ?? [];
  assert.ok(options.length > 0, 'the ask form offers the known components');
  const outcome = await s.gate.replan(planId, { componentId: options[0] }, { screen: 'Payroll', componentId: options[0] });
  assert.equal(outcome.received.kind, 'plan');
  const next = s.workflow.state.plans[(outcome.received as { planId: string }).planId];
  assert.equal(next.plan.status, 'ok');
  assert.equal(next.replacesId, planId, 'lineage is kept');
  assert.deepEqual(outcome.args, { screen: 'Payroll', componentId: options[0] }, 'original arguments plus the answers');
  assert.equal(s.workflow.state.plans[planId].outcome, 'replaced');
});

test('a recovery action is a one-step plan: shown with its server, nothing sent until it is approved, then run and recorded', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_status', { status: 'error' })) as { planId: string };
  const actions = s.workflow.state.plans[planId].plan.recovery_actions ?? [];
  assert.ok(actions.length > 0);
  const proposed = s.gate.proposeRecovery(planId, 0);
  assert.ok('planId' in proposed, JSON.stringify(proposed));
  await s.gate.resolve(proposed.planId);
  const recovery = s.workflow.state.plans[proposed.planId];
  assert.equal(recovery.phase, 'awaiting_approval');
  assert.equal(recovery.origin.entrance, 'recovery');
  assert.deepEqual(
    recovery.steps.map((st) => [st.call.tool, st.server]),
    [[actions[0].tool, 'fixture']],
    'the one step, with the server it runs on',
  );
  assert.deepEqual(s.calls(), ['plan_status'], 'nothing is sent before the approval');
  assert.equal(await s.gate.approve(proposed.planId), undefined);
  const done = await s.settled(proposed.planId);
  assert.equal(done.steps[0].state, 'ok');
  assert.deepEqual(s.calls(), ['plan_status', actions[0].tool], 'exactly the approved action ran');
});

test('a missing tool stops the plan before anything runs', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_cross_server', { root: s.root })) as { planId: string };
  await s.gate.approve(planId);
  const done = await s.settled(planId);
  assert.equal(done.phase, 'blocked');
  assert.match(done.steps[0].error ?? '', /not offered|Nothing ran/);
  assert.deepEqual(s.calls(), ['plan_cross_server'], 'no step ran');
});

test('the beforeRun hook runs after approval and before the first step; when it fails nothing runs', async (t) => {
  const seen: string[] = [];
  let fail = true;
  const s = await setup(undefined, async (plan) => {
    seen.push(`${plan.phase}:${plan.steps.map((st) => st.state).join(',')}`);
    if (fail) throw new Error('the checkpoint could not be written (disk full)');
  });
  t.after(() => s.close());
  const { planId } = (await s.plan('plan_failing')) as { planId: string };
  await s.gate.approve(planId);
  const blocked = await s.settled(planId);
  assert.equal(blocked.phase, 'blocked');
  assert.match(blocked.steps[0].error ?? '', /Nothing ran: the checkpoint could not be written \(disk full\)/);
  assert.deepEqual(s.calls(), ['plan_failing'], 'no step ran');
  assert.deepEqual(seen, ['executing:pending,pending,pending']);
  fail = false;
  s.gate.retry(planId);
  await s.settled(planId);
  assert.deepEqual(s.calls().slice(1), ['succeed', 'fail'], 'after a retry with a working hook the steps run');
});
