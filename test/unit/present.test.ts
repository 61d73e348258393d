import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { approvalHash } from '../../src/core/plan/approval';
import { outcomeSentence } from '../../src/core/workflow/outcome';
import { describeOutcome, describeStatus, describeStep, planTitle } from '../../src/core/present/workflowWords';
import type { ActionCall, OrchestratedPlan } from '../../src/core/plan/plan';
import { EMPTY_WORKFLOW, getPlan, type WorkflowState } from '../../src/core/workflow/workflow';
import { apply } from './helpers/applyEvents';

let clock = 0;
const at = () => ++clock;
const ORIGIN = { server: 'alpha', tool: 'plan_scaffold', args: {}, entrance: 'manual' as const };
const envelope = (actions: ActionCall[], extra: Partial<OrchestratedPlan> = {}): OrchestratedPlan => ({
  kind: 'orchestrated_plan',
  version: '1',
  status: 'ok',
  instruction: 'Scaffold the payroll screen\nand its components',
  next_actions: actions,
  ...extra,
});
const steps = (...tools: string[]) => tools.map((tool): ActionCall => ({ tool, args: {} }));

const receive = (s: WorkflowState, id: string, actions: ActionCall[], extra: Partial<OrchestratedPlan> = {}) =>
  apply(s, { type: 'planReceived', at: at(), planId: id, origin: ORIGIN, plan: envelope(actions, extra) });
const approve = (s: WorkflowState, id: string) =>
  apply(s, { type: 'approved', at: at(), planId: id, approvalHash: approvalHash(getPlan(s, id)!) });
const start = (s: WorkflowState, id: string, step: number) =>
  apply(s, { type: 'stepStarted', at: at(), planId: id, step, server: 'alpha', crossServer: false });
const succeed = (s: WorkflowState, id: string, step: number) =>
  apply(s, { type: 'stepSucceeded', at: at(), planId: id, step, summary: 'Wrote src/a.ts\nmore' });
const fail = (s: WorkflowState, id: string, step: number) =>
  apply(s, { type: 'stepFailed', at: at(), planId: id, step, error: 'Timed out after 30 s' });

describe('describeStatus', () => {
  it('says idle with no active plan', () => {
    const status = describeStatus(EMPTY_WORKFLOW);
    assert.equal(status.text, 'idle');
    assert.equal(status.state, 'idle');
    assert.equal(status.icon, '$(checklist)');
    assert.match(status.tooltip, /no plan is waiting or running/);
    assert.equal(status.planId, undefined);
  });

  it('counts plans awaiting approval', () => {
    let s = receive(EMPTY_WORKFLOW, 'p1', steps('a'));
    s = receive(s, 'p2', steps('a'));
    const status = describeStatus(s);
    assert.equal(status.text, 'awaiting approval (2)');
    assert.equal(status.state, 'awaiting');
    assert.equal(status.planId, 'p2');
    assert.match(status.tooltip, /Scaffold the payroll screen — awaiting approval \(1 step\)/);
  });

  it('running k/n names the step that runs now, and wins over every other state', () => {
    let s = receive(EMPTY_WORKFLOW, 'waiting', steps('a'));
    s = receive(s, 'broken', steps('a'));
    s = fail(start(approve(s, 'broken'), 'broken', 0), 'broken', 0);
    s = receive(s, 'p1', steps('a', 'b', 'c'));
    s = start(approve(s, 'p1'), 'p1', 0);
    assert.equal(describeStatus(s).text, 'running 1/3');
    s = start(succeed(s, 'p1', 0), 'p1', 1);
    const status = describeStatus(s);
    assert.equal(status.text, 'running 2/3');
    assert.equal(status.icon, '$(sync~spin)');
    assert.equal(status.planId, 'p1');
    assert.match(status.tooltip, /running step 2 of 3 \(b\)/);
    assert.match(status.tooltip, /blocked: Step 1 \(a\) failed: Timed out after 30 s/);
    assert.match(status.tooltip, /awaiting approval/);
  });

  it('blocked wins over awaiting approval and follow-up', () => {
    let s = receive(EMPTY_WORKFLOW, 'f', steps('a'), { follow_up: 'Wire the API?' });
    s = succeed(start(approve(s, 'f'), 'f', 0), 'f', 0);
    assert.equal(describeStatus(s).text, 'follow-up');
    assert.equal(describeStatus(s).icon, '$(question)');
    s = receive(s, 'w', steps('a'));
    assert.equal(describeStatus(s).text, 'awaiting approval (1)');
    s = receive(s, 'b', steps('a'));
    s = fail(start(approve(s, 'b'), 'b', 0), 'b', 0);
    const status = describeStatus(s);
    assert.equal(status.text, 'blocked');
    assert.equal(status.state, 'blocked');
    assert.equal(status.icon, '$(warning)');
  });

  it('a plan waiting for its nested plan is not "running": the nested plan counts', () => {
    let s = receive(EMPTY_WORKFLOW, 'p1', steps('plan_more', 'b'));
    s = start(approve(s, 'p1'), 'p1', 0);
    s = apply(s, {
      type: 'planReceived',
      at: at(),
      planId: 'c1',
      origin: ORIGIN,
      plan: envelope(steps('x')),
      parentId: 'p1',
      parentStep: 0,
    });
    const status = describeStatus(s);
    assert.equal(status.text, 'awaiting approval (1)');
    assert.equal(status.planId, 'c1');
    assert.match(status.tooltip, /waiting for nested plan/);
  });
});

describe('describeStep / describeOutcome / planTitle', () => {
  it('puts each step state in words', () => {
    let s = receive(EMPTY_WORKFLOW, 'p1', steps('a', 'b'));
    s = start(approve(s, 'p1'), 'p1', 0);
    s = apply(s, { type: 'stepProgress', at: at(), planId: 'p1', step: 0, progress: { progress: 3, total: 10, message: 'copying' } });
    const p = () => getPlan(s, 'p1')!;
    assert.equal(describeStep(p().steps[0]), 'running (3/10: copying)');
    assert.equal(describeStep(p().steps[1]), 'pending');
    s = succeed(s, 'p1', 0);
    assert.equal(describeStep(p().steps[0]), 'ok: Wrote src/a.ts');
    s = fail(start(s, 'p1', 1), 'p1', 1);
    assert.equal(describeStep(p().steps[1]), 'failed: Timed out after 30 s');
    s = apply(s, { type: 'stopped', at: at(), planId: 'p1' });
    assert.equal(describeOutcome(p()), 'stopped after step 2 failed');
  });

  it('describes how plans end', () => {
    let s = receive(EMPTY_WORKFLOW, 'ok', steps('a', 'b'));
    s = apply(s, { type: 'skipMarked', at: at(), planId: 'ok', step: 1, skip: true });
    s = succeed(start(approve(s, 'ok'), 'ok', 0), 'ok', 0);
    assert.equal(describeOutcome(getPlan(s, 'ok')!), 'completed (1 skipped)');
    s = receive(s, 'no', steps('a'));
    s = apply(s, { type: 'rejected', at: at(), planId: 'no', reason: 'wrong folder' });
    assert.equal(describeOutcome(getPlan(s, 'no')!), 'rejected: wrong folder');
    s = receive(s, 'err', [], { status: 'error', errors: [{ code: 'NOT_FOUND', message: 'No such screen' }] });
    assert.equal(describeOutcome(getPlan(s, 'err')!), 'status error: No such screen');
    s = receive(s, 'c', steps('a'));
    s = apply(start(approve(s, 'c'), 'c', 0), { type: 'cancelled', at: at(), planId: 'c' });
    assert.equal(describeOutcome(getPlan(s, 'c')!), 'cancelled during step 1');
    s = receive(s, 'wait', steps('a'));
    assert.equal(describeOutcome(getPlan(s, 'wait')!), 'awaiting approval (1 step)');
  });

  it('says how a finished plan ended as the panel sentence, and nothing before it ends', () => {
    let s = receive(EMPTY_WORKFLOW, 'ok', steps('a', 'b'));
    assert.equal(outcomeSentence(getPlan(s, 'ok')!), '');
    s = apply(s, { type: 'skipMarked', at: at(), planId: 'ok', step: 1, skip: true });
    s = succeed(start(approve(s, 'ok'), 'ok', 0), 'ok', 0);
    assert.equal(outcomeSentence(getPlan(s, 'ok')!), 'Completed: 1 of 2 steps ran.');
    s = receive(s, 'one', steps('a'));
    s = succeed(start(approve(s, 'one'), 'one', 0), 'one', 0);
    assert.equal(outcomeSentence(getPlan(s, 'one')!), 'Completed: 1 of 1 step ran.');
    s = receive(s, 'no', steps('a'));
    s = apply(s, { type: 'rejected', at: at(), planId: 'no', reason: 'wrong folder. ' });
    assert.equal(outcomeSentence(getPlan(s, 'no')!), 'Rejected: wrong folder. Nothing ran.');
    s = receive(s, 'st', steps('a', 'b'));
    s = apply(fail(start(approve(s, 'st'), 'st', 0), 'st', 0), { type: 'stopped', at: at(), planId: 'st' });
    assert.equal(outcomeSentence(getPlan(s, 'st')!), 'Stopped after 0 steps; the rest did not run.');
    s = receive(s, 'ask', [], { status: 'error', ask: { prompt: 'Which screen?', fields: [] } });
    assert.match(outcomeSentence(getPlan(s, 'ask')!), /^Nothing to approve yet: answer the question/);
    s = receive(s, 'rec', [], { status: 'error', recovery_actions: [{ tool: 'list_screens', args: {} }] });
    assert.match(outcomeSentence(getPlan(s, 'rec')!), /^Nothing to approve: try a recovery action/);
  });

  it('titles a plan by its instruction, else its tool', () => {
    const s = receive(EMPTY_WORKFLOW, 'p1', steps('a'));
    assert.equal(planTitle(getPlan(s, 'p1')!), 'Scaffold the payroll screen');
    const t = receive(EMPTY_WORKFLOW, 'p2', steps('a'), { instruction: '' });
    assert.equal(planTitle(getPlan(t, 'p2')!), 'plan_scaffold plan');
    const u = receive(EMPTY_WORKFLOW, 'p3', steps('a'), { instruction: 'x'.repeat(100) });
    assert.equal(planTitle(getPlan(u, 'p3')!).length, 60);
  });
});
