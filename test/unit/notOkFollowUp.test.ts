// Not-ok plans keep their follow-up (MCPFlow: error, blocked and partial plans carry one). A partial plan asks it
// after its checklist, with Yes / No as for an ok plan, and stays not ok once answered; an error or blocked plan asks
// it once a recovery action ran (the recovery plan carries the question), not before. Against the real fixture
// server's MCPFlow examples (plan_status), through the gate, the reducer and the panel's view model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixtureServer, readCallLog } from '../../fixture/fixtureServer';
import { Gate } from '../../src/core/engine/gate';
import { PlanPresenter } from '../../src/core/present/planItem';
import { MemoryLedgerSink, Workflow, parseLedgerEntry, replay } from '../../src/core/workflow/ledger';
import { notOkFollowUpOpen } from '../../src/core/workflow/workflow';
import type { PlanRecord } from '../../src/core/plan/plan';
import { connectInMemory } from './helpers/inMemoryInvoker';

async function setup() {
  const root = mkdtempSync(join(tmpdir(), 'plangate-followup-'));
  const callLog = join(root, 'calls.jsonl');
  const conn = await connectInMemory([{ name: 'fixture', server: createFixtureServer({ root, callLogFile: callLog }) }]);
  let n = 0;
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  const gate = new Gate(workflow, {
    invoker: conn.invoker,
    settings: () => ({ stepTimeoutMs: 5000, allowCrossServer: true }),
    newId: () => `p${++n}`,
  });
  const plan = async (status: string) => {
    const result = await conn.invoker.callTool('fixture', 'plan_status', { status });
    const received = gate.receive({ server: 'fixture', tool: 'plan_status', args: { status }, entrance: 'manual' }, result);
    return (received as { planId: string }).planId;
  };
  const actions = (planId: string) => new PlanPresenter().present(workflow.state, planId)!.plans[planId]!.actions;
  const calls = () => (existsSync(callLog) ? readCallLog(callLog).map((c) => c.tool) : []);
  return {
    gate,
    workflow,
    sink,
    plan,
    actions,
    calls,
    close: async () => {
      gate.dispose();
      await conn.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

test('a partial plan asks its follow-up after the checklist (Yes / No); answered, it stays not ok and the question goes', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const id = await s.plan('partial');
  const record = s.workflow.state.plans[id]!;
  assert.equal(record.outcome, 'not_ok');
  assert.deepEqual(s.actions(id), {
    kind: 'followUp',
    question: 'Continue by wiring API for the completed components?',
    lead: 'The server did part of the work (the checklist above says what).',
  });
  assert.equal(s.gate.followUp(id, 'no'), undefined, 'the answer is taken');
  const answered = s.workflow.state.plans[id]!;
  assert.equal(answered.followUpAnswer, 'no');
  assert.equal(answered.outcome, 'not_ok', 'a partial plan is not completed by answering its follow-up');
  assert.equal(s.actions(id).kind, 'finished');
  assert.match(s.gate.followUp(id, 'yes') ?? '', /applies only while/, 'asked once');
});

test('an error plan does not ask its follow-up before a recovery ran; after its recovery ran, the recovery asks it', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  for (const status of ['error', 'blocked']) {
    const id = await s.plan(status);
    assert.equal(s.actions(id).kind, 'finished', `${status}: nothing ran yet, so no follow-up`);
    assert.match(s.gate.followUp(id, 'yes') ?? '', /applies only while/);
  }
  const id = await s.plan('error');
  const proposed = s.gate.proposeRecovery(id, 0);
  assert.ok('planId' in proposed, JSON.stringify(proposed));
  await s.gate.resolve(proposed.planId);
  assert.equal(s.actions(proposed.planId).kind, 'approve', 'the recovery waits for approval first');
  assert.equal(await s.gate.approve(proposed.planId), undefined);
  const done = (await s.gate.whenSettled(proposed.planId)) as PlanRecord;
  assert.equal(done.steps[0]!.state, 'ok');
  assert.deepEqual(s.calls().slice(-1), ['list_detected_components'], 'the recovery ran');
  assert.equal(done.phase, 'follow_up');
  assert.deepEqual(s.actions(proposed.planId), { kind: 'followUp', question: 'After fixing the component, wire API connections?' });
  assert.equal(s.gate.followUp(proposed.planId, 'yes'), undefined);
  assert.equal(s.workflow.state.plans[proposed.planId]!.outcome, 'completed');
});

test("a partial plan's follow-up goes with its recovery: asked in one place, given back when the recovery is rejected", async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const id = await s.plan('partial');
  assert.equal(s.actions(id).kind, 'followUp');
  const first = s.gate.proposeRecovery(id, 0);
  assert.ok('planId' in first, JSON.stringify(first));
  assert.equal(s.workflow.state.plans[first.planId]!.plan.follow_up, 'Continue by wiring API for the completed components?');
  // The partial plan no longer asks: its question went with the recovery, and its view says so.
  const handed = s.actions(id);
  assert.equal(handed.kind, 'finished');
  assert.match(
    handed.kind === 'finished' ? handed.outcome : '',
    /follow-up question went with the recovery action "Create placeholder \(safe\)"/,
  );
  assert.match(
    s.gate.followUp(id, 'no') ?? '',
    /applies only while/,
    'the partial plan cannot be answered while its recovery holds the question',
  );
  // A second recovery while the first holds the question does not ask it too.
  const second = s.gate.proposeRecovery(id, 0);
  assert.ok('planId' in second);
  assert.equal(s.workflow.state.plans[second.planId]!.plan.follow_up, undefined, 'one question, one place');
  // The first recovery rejected: the question comes back to the partial plan.
  s.gate.reject(first.planId, 'not now');
  assert.equal(s.actions(id).kind, 'followUp', 'given back when the recovery that held it ended without asking');
  assert.equal(s.gate.reject(second.planId), undefined);
  // The next recovery takes it again, runs, asks it; answered there, the partial plan does not ask again.
  const third = s.gate.proposeRecovery(id, 0);
  assert.ok('planId' in third);
  await s.gate.resolve(third.planId);
  assert.equal(await s.gate.approve(third.planId), undefined);
  const ran = s.gate.whenSettled(third.planId);
  // The recovery's step asks first (the fixture marks it so): grant it.
  for (let i = 0; i < 250 && s.workflow.state.plans[third.planId]!.steps[0]!.state !== 'awaiting_confirm'; i++)
    await new Promise((r) => setTimeout(r, 20));
  s.gate.answerConfirm(third.planId, 0, true);
  assert.equal((await ran)!.phase, 'follow_up');
  assert.equal(s.gate.followUp(third.planId, 'no'), undefined);
  assert.equal(s.actions(id).kind, 'finished', 'answered where it was asked: the partial plan does not ask it again');
  assert.equal(s.workflow.state.plans[id]!.followUpAnswer, undefined, "the partial plan's own record keeps no answer it was not given");
});

test('the hand-over is on the record: a replayed ledger gives the same holder, and a stored event cannot take a held question', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const id = await s.plan('partial');
  const proposed = s.gate.proposeRecovery(id, 0);
  assert.ok('planId' in proposed);
  const received = s.sink.entries.find((e) => e.event.type === 'planReceived' && e.event.planId === proposed.planId)!.event;
  assert.equal((received as { followUpOf?: string }).followUpOf, id);
  const replayed = replay(s.sink.entries);
  assert.equal(replayed.plans[id]!.followUpWith, proposed.planId);
  assert.equal(notOkFollowUpOpen(replayed.plans[id]!, replayed), false);
  const again = new Workflow(new MemoryLedgerSink());
  for (const e of s.sink.entries) again.dispatch(e.event);
  const steal = { ...(received as object), planId: 'thief' } as typeof received;
  assert.match(again.canApply(steal) ?? '', /no unanswered follow-up that another plan does not already carry/);
  const altered = {
    ...(received as object),
    planId: 'altered',
    plan: { ...(received as { plan: object }).plan, follow_up: 'Delete everything?' },
  };
  assert.ok(again.canApply(altered as typeof received), 'a plan carrying a different question is refused');
  assert.equal(
    parseLedgerEntry({ seq: 1, event: { ...(received as object), followUpOf: 7 } }),
    'event: planReceived.followUpOf is not a string',
  );
});
