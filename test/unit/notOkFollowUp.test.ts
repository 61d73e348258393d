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
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import type { PlanRecord } from '../../src/core/plan/plan';
import { connectInMemory } from './helpers/inMemoryInvoker';

async function setup() {
  const root = mkdtempSync(join(tmpdir(), 'plangate-followup-'));
  const callLog = join(root, 'calls.jsonl');
  const conn = await connectInMemory([{ name: 'fixture', server: createFixtureServer({ root, callLogFile: callLog }) }]);
  let n = 0;
  const workflow = new Workflow(new MemoryLedgerSink());
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
