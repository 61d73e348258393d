import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { approvalHash, canonicalJson, sha256Hex } from '../../src/core/plan/approval';
import type { ActionCall, OrchestratedPlan } from '../../src/core/plan/plan';
import {
  activePlans,
  canApply,
  currentStep,
  EMPTY_WORKFLOW,
  getPlan,
  INTERRUPTED_STEP_ERROR,
  MAX_PLAN_DEPTH,
  pendingApprovals,
  planProgress,
  reduce,
  type PlanRecord,
  type WorkflowEvent,
  type WorkflowState,
} from '../../src/core/workflow/workflow';

const ORIGIN = { server: 'alpha', tool: 'plan_it', args: { name: 'x' }, entrance: 'manual' as const };

function envelope(actions: ActionCall[], extra: Partial<OrchestratedPlan> = {}): OrchestratedPlan {
  return {
    kind: 'orchestrated_plan',
    version: '1',
    status: 'ok',
    instruction: 'Scaffold the payroll screen',
    next_actions: actions,
    ...extra,
  };
}
const step = (tool: string, args: Record<string, unknown> = {}, extra: Partial<ActionCall> = {}): ActionCall => ({ tool, args, ...extra });

/** Applies events one by one, failing the test (with the refusal) if one is refused. Freezes every state seen. */
function apply(state: WorkflowState, ...events: WorkflowEvent[]): WorkflowState {
  let s = deepFreeze(state);
  for (const e of events) {
    const why = canApply(s, e);
    assert.equal(why, undefined, `${e.type} was refused: ${why}`);
    s = deepFreeze(reduce(s, deepFreeze(e)));
  }
  return s;
}

/** Asserts the event is refused: canApply gives a reason and reduce returns the very same state. */
function refused(state: WorkflowState, event: WorkflowEvent, pattern?: RegExp): string {
  const why = canApply(state, event);
  assert.ok(why, `${event.type} should have been refused`);
  if (pattern) assert.match(why, pattern);
  assert.equal(reduce(state, event), state);
  return why;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

let clock = 1000;
const at = () => ++clock;
const received = (
  planId: string,
  actions: ActionCall[],
  extra: Partial<OrchestratedPlan> = {},
  more: Partial<Extract<WorkflowEvent, { type: 'planReceived' }>> = {},
): WorkflowEvent => ({ type: 'planReceived', at: at(), planId, origin: ORIGIN, plan: envelope(actions, extra), ...more });
const approve = (state: WorkflowState, planId: string): WorkflowEvent => ({
  type: 'approved',
  at: at(),
  planId,
  approvalHash: approvalHash(getPlan(state, planId)!),
});
const started = (planId: string, s: number, server = 'alpha', crossServer = false): WorkflowEvent => ({
  type: 'stepStarted',
  at: at(),
  planId,
  step: s,
  server,
  crossServer,
});
const succeeded = (planId: string, s: number, summary = 'done'): WorkflowEvent => ({
  type: 'stepSucceeded',
  at: at(),
  planId,
  step: s,
  summary,
});
const failed = (planId: string, s: number, error = 'disk full'): WorkflowEvent => ({
  type: 'stepFailed',
  at: at(),
  planId,
  step: s,
  error,
});

function approvedPlan(actions: ActionCall[], extra: Partial<OrchestratedPlan> = {}, planId = 'p1'): WorkflowState {
  const s = apply(EMPTY_WORKFLOW, received(planId, actions, extra));
  return apply(s, approve(s, planId));
}
const plan = (s: WorkflowState, id = 'p1'): PlanRecord => getPlan(s, id)!;
const states = (s: WorkflowState, id = 'p1') => plan(s, id).steps.map((x) => x.state);

describe('planReceived', () => {
  it('an ok plan awaits approval with every step pending, as proposed', () => {
    const s = apply(
      EMPTY_WORKFLOW,
      received('p1', [step('create_screen', { screen: 'Payroll' }, { label: 'Create screen' }), step('wire_api')]),
    );
    const p = plan(s);
    assert.equal(p.phase, 'awaiting_approval');
    assert.equal(p.depth, 0);
    assert.deepEqual(states(s), ['pending', 'pending']);
    assert.deepEqual(p.steps[0].call, { tool: 'create_screen', args: { screen: 'Payroll' }, label: 'Create screen' });
    assert.deepEqual(p.steps[0].proposed, p.steps[0].call);
    assert.equal(p.steps[0].edited, false);
    assert.equal(p.steps[0].attempts, 0);
    assert.deepEqual(s.order, ['p1']);
    assert.deepEqual(
      pendingApprovals(s).map((x) => x.id),
      ['p1'],
    );
  });

  it('a plan whose status is not ok is finished (not_ok): nothing to approve, its steps not run', () => {
    const s = apply(
      EMPTY_WORKFLOW,
      received('p1', [step('retry_it')], { status: 'error', errors: [{ code: 'NOT_FOUND', message: 'No screen' }] }),
    );
    assert.equal(plan(s).phase, 'finished');
    assert.equal(plan(s).outcome, 'not_ok');
    assert.deepEqual(states(s), ['not_run']);
    assert.deepEqual(activePlans(s), []);
  });

  it('refuses a second plan with the same id, and ids such as __proto__ are plain data', () => {
    const s = apply(EMPTY_WORKFLOW, received('p1', []));
    refused(s, received('p1', []), /already a plan 'p1'/);
    const t = apply(s, received('__proto__', [step('a')]));
    assert.equal(plan(t, '__proto__').steps.length, 1);
    assert.equal(getPlan(EMPTY_WORKFLOW, '__proto__'), undefined);
    assert.equal(getPlan(EMPTY_WORKFLOW, 'constructor'), undefined);
  });

  it('a re-plan replaces a not-ok plan (lineage) and refuses to replace a running one', () => {
    let s = apply(EMPTY_WORKFLOW, received('p1', [], { status: 'invalid', ask: { prompt: 'Which screen?' } }));
    s = apply(s, received('p2', [step('a')], {}, { replacesId: 'p1' }));
    assert.equal(plan(s, 'p1').outcome, 'replaced');
    assert.equal(plan(s, 'p1').replacedById, 'p2');
    assert.equal(plan(s, 'p2').replacesId, 'p1');
    refused(s, received('p3', [], {}, { replacesId: 'p1' }), /already replaced by plan 'p2'/);
    s = apply(s, approve(s, 'p2'));
    refused(s, received('p4', [], {}, { replacesId: 'p2' }), /is running; cancel it/);
    refused(s, received('p5', [], {}, { replacesId: 'nope' }), /no plan 'nope'/);
  });

  it('a plan awaiting approval that is replaced is finished/replaced with its steps not run', () => {
    let s = apply(EMPTY_WORKFLOW, received('p1', [step('a')]));
    s = apply(s, received('p2', [step('a')], {}, { replacesId: 'p1' }));
    assert.equal(plan(s, 'p1').phase, 'finished');
    assert.equal(plan(s, 'p1').outcome, 'replaced');
    assert.deepEqual(states(s, 'p1'), ['not_run']);
  });
});

describe('before approval', () => {
  it('argsEdited marks the step edited only when the arguments differ as data', () => {
    let s = apply(EMPTY_WORKFLOW, received('p1', [step('create_screen', { screen: 'Payroll', components: ['A', 'B'] })]));
    s = apply(s, { type: 'argsEdited', at: at(), planId: 'p1', step: 0, args: { screen: 'Billing', components: ['A', 'B'] } });
    assert.equal(plan(s).steps[0].edited, true);
    assert.deepEqual(plan(s).steps[0].call.args, { screen: 'Billing', components: ['A', 'B'] });
    assert.deepEqual(plan(s).steps[0].proposed.args, { screen: 'Payroll', components: ['A', 'B'] });
    s = apply(s, { type: 'argsEdited', at: at(), planId: 'p1', step: 0, args: { components: ['A', 'B'], screen: 'Payroll' } });
    assert.equal(plan(s).steps[0].edited, false, 'same data in another key order is not an edit');
  });

  it('refuses edits that are not objects, and steps that do not exist', () => {
    const s = apply(EMPTY_WORKFLOW, received('p1', [step('a')]));
    refused(
      s,
      { type: 'argsEdited', at: at(), planId: 'p1', step: 0, args: [] as unknown as Record<string, unknown> },
      /must be a JSON object/,
    );
    refused(s, { type: 'argsEdited', at: at(), planId: 'p1', step: 3, args: {} }, /has no step 3/);
    refused(s, { type: 'skipMarked', at: at(), planId: 'nope', step: 0, skip: true }, /no plan 'nope'/);
  });

  it('approval records the hash, turns skip-marked steps skipped, and is refused when stale or repeated', () => {
    let s = apply(EMPTY_WORKFLOW, received('p1', [step('a'), step('b'), step('c')]));
    const shown = approvalHash(plan(s));
    s = apply(s, { type: 'skipMarked', at: at(), planId: 'p1', step: 1, skip: true });
    refused(s, { type: 'approved', at: at(), planId: 'p1', approvalHash: shown }, /changed since it was shown/);
    s = apply(s, approve(s, 'p1'));
    assert.equal(plan(s).phase, 'executing');
    assert.equal(plan(s).approvalHash, approvalHash(plan(s)));
    assert.ok(plan(s).approvedAt);
    assert.deepEqual(states(s), ['pending', 'skipped', 'pending']);
    refused(s, approve(s, 'p1'), /is executing; approved applies only while it is awaiting approval/);
    refused(s, { type: 'argsEdited', at: at(), planId: 'p1', step: 0, args: { x: 1 } }, /awaiting approval/);
    refused(s, { type: 'skipMarked', at: at(), planId: 'p1', step: 2, skip: true });
  });

  it('an approval of a plan whose every step is skipped completes it at once', () => {
    let s = apply(EMPTY_WORKFLOW, received('p1', [step('a')]));
    s = apply(s, { type: 'skipMarked', at: at(), planId: 'p1', step: 0, skip: true });
    s = apply(s, approve(s, 'p1'));
    assert.equal(plan(s).phase, 'finished');
    assert.equal(plan(s).outcome, 'completed');
  });

  it('rejection finishes the plan with its reason and no step run', () => {
    let s = apply(EMPTY_WORKFLOW, received('p1', [step('a'), step('b')]));
    s = apply(s, { type: 'rejected', at: at(), planId: 'p1', reason: 'wrong screen' });
    assert.equal(plan(s).outcome, 'rejected');
    assert.equal(plan(s).rejectReason, 'wrong screen');
    assert.deepEqual(states(s), ['not_run', 'not_run']);
    refused(s, started('p1', 0), /finished \(rejected\)/);
    refused(s, { type: 'rejected', at: at(), planId: 'p1' });
  });
});

describe('executing', () => {
  it('runs steps in order: started → running (server, attempts), progress, succeeded → ok', () => {
    let s = approvedPlan([step('a'), step('b')]);
    refused(s, started('p1', 1), /is not next/);
    s = apply(s, started('p1', 0, 'beta', true));
    const running = plan(s).steps[0];
    assert.equal(running.state, 'running');
    assert.equal(running.server, 'beta');
    assert.equal(running.crossServer, true);
    assert.equal(running.attempts, 1);
    assert.ok(running.startedAt);
    refused(s, started('p1', 0), /is running; stepStarted needs it pending/);
    s = apply(s, { type: 'stepProgress', at: at(), planId: 'p1', step: 0, progress: { progress: 2, total: 4, message: 'copying' } });
    assert.deepEqual(plan(s).steps[0].progress, { progress: 2, total: 4, message: 'copying' });
    assert.equal(currentStep(plan(s))?.index, 0);
    s = apply(s, succeeded('p1', 0, 'Created src/index.ts'));
    assert.equal(plan(s).steps[0].state, 'ok');
    assert.equal(plan(s).steps[0].summary, 'Created src/index.ts');
    assert.deepEqual(planProgress(plan(s)), { done: 1, total: 2 });
    assert.equal(currentStep(plan(s))?.index, 1);
    refused(s, { type: 'stepProgress', at: at(), planId: 'p1', step: 0, progress: { progress: 3 } }, /is ok/);
    s = apply(s, started('p1', 1), succeeded('p1', 1));
    assert.equal(plan(s).phase, 'finished');
    assert.equal(plan(s).outcome, 'completed');
    assert.ok(plan(s).finishedAt);
  });

  it('with a follow-up, the plan waits for the answer after the last step', () => {
    let s = approvedPlan([step('a')], { follow_up: 'Wire the API now?' });
    s = apply(s, started('p1', 0), succeeded('p1', 0));
    assert.equal(plan(s).phase, 'follow_up');
    refused(s, { type: 'followUpAnswered', at: at(), planId: 'p1', answer: 'maybe' as 'yes' }, /yes or no/);
    s = apply(s, { type: 'followUpAnswered', at: at(), planId: 'p1', answer: 'no' });
    assert.equal(plan(s).outcome, 'completed');
    assert.equal(plan(s).followUpAnswer, 'no');
    refused(s, { type: 'followUpAnswered', at: at(), planId: 'p1', answer: 'yes' });
  });

  it('a confirm step starts only after its confirmation is granted', () => {
    let s = approvedPlan([step('a', {}, { confirm: true }), step('b')]);
    refused(s, started('p1', 0), /needs its own confirmation/);
    s = apply(s, { type: 'confirmRequested', at: at(), planId: 'p1', step: 0 });
    assert.equal(plan(s).steps[0].state, 'awaiting_confirm');
    refused(s, started('p1', 0));
    s = apply(s, { type: 'confirmAnswered', at: at(), planId: 'p1', step: 0, granted: true });
    assert.equal(plan(s).steps[0].state, 'pending');
    assert.ok(plan(s).steps[0].confirmedAt);
    s = apply(s, started('p1', 0));
    assert.equal(plan(s).steps[0].state, 'running');
  });

  it('a declined confirmation stops the plan: that step and later ones not run, earlier ones stay ok', () => {
    let s = approvedPlan([step('a'), step('b', {}, { confirm: true }), step('c')]);
    s = apply(s, started('p1', 0), succeeded('p1', 0), { type: 'confirmRequested', at: at(), planId: 'p1', step: 1 });
    s = apply(s, { type: 'confirmAnswered', at: at(), planId: 'p1', step: 1, granted: false });
    assert.equal(plan(s).phase, 'finished');
    assert.equal(plan(s).outcome, 'stopped');
    assert.deepEqual(states(s), ['ok', 'not_run', 'not_run']);
  });

  it('a failed step blocks the plan; later steps stay pending until stopped', () => {
    let s = approvedPlan([step('a'), step('b'), step('c')]);
    s = apply(s, started('p1', 0), succeeded('p1', 0), started('p1', 1), failed('p1', 1, 'Timed out after 30 s'));
    const p = plan(s);
    assert.equal(p.phase, 'blocked');
    assert.equal(p.blockedStep, 1);
    assert.match(p.blockedReason!, /Step 2 \(b\) failed: Timed out after 30 s/);
    assert.deepEqual(states(s), ['ok', 'failed', 'pending']);
    assert.equal(p.steps[1].error, 'Timed out after 30 s');
    assert.equal(currentStep(p)?.index, 1);
    refused(s, started('p1', 2), /is blocked/);
    refused(s, { type: 'cancelled', at: at(), planId: 'p1' }, /is blocked/);
    refused(s, { type: 'stepSkipped', at: at(), planId: 'p1', step: 2 }, /only that step can be skipped/);
    s = apply(s, { type: 'stopped', at: at(), planId: 'p1' });
    assert.equal(plan(s).outcome, 'stopped');
    assert.deepEqual(states(s), ['ok', 'failed', 'not_run']);
  });

  it('retry runs the blocked step again (attempts count), skip moves past it', () => {
    let s = approvedPlan([step('a'), step('b')]);
    s = apply(s, started('p1', 0), failed('p1', 0));
    refused(s, { type: 'retryRequested', at: at(), planId: 'p1', step: 1 }, /only that step can be retried/);
    s = apply(s, { type: 'retryRequested', at: at(), planId: 'p1', step: 0 });
    assert.equal(plan(s).phase, 'executing');
    assert.equal(plan(s).blockedStep, undefined);
    assert.equal(plan(s).steps[0].state, 'pending');
    s = apply(s, started('p1', 0));
    assert.equal(plan(s).steps[0].attempts, 2);
    assert.equal(plan(s).steps[0].error, undefined);
    s = apply(s, failed('p1', 0), { type: 'stepSkipped', at: at(), planId: 'p1', step: 0 });
    assert.equal(plan(s).phase, 'executing');
    assert.deepEqual(states(s), ['skipped', 'pending']);
    s = apply(s, started('p1', 1), succeeded('p1', 1));
    assert.equal(plan(s).outcome, 'completed');
    refused(s, { type: 'retryRequested', at: at(), planId: 'p1', step: 0 });
    refused(s, { type: 'stopped', at: at(), planId: 'p1' }, /stopped applies only while it is blocked/);
  });

  it('a step may fail before it starts (a missing tool) only when nothing else is in progress', () => {
    let s = approvedPlan([step('a'), step('b'), step('c')]);
    s = apply(s, failed('p1', 2, "tool 'c' is not offered by any connected server"));
    assert.equal(plan(s).blockedStep, 2);
    assert.deepEqual(states(s), ['pending', 'pending', 'failed']);
    assert.equal(plan(s).steps[2].attempts, 0);
    let t = approvedPlan([step('a'), step('b')]);
    t = apply(t, started('p1', 0));
    refused(t, failed('p1', 1), /has a step in progress/);
  });

  it('cancel fails the running step with "Cancelled" and leaves the rest not run', () => {
    let s = approvedPlan([step('a'), step('b'), step('c')]);
    s = apply(s, started('p1', 0), succeeded('p1', 0), started('p1', 1), { type: 'cancelled', at: at(), planId: 'p1' });
    assert.equal(plan(s).outcome, 'cancelled');
    assert.deepEqual(states(s), ['ok', 'failed', 'not_run']);
    assert.equal(plan(s).steps[1].error, 'Cancelled');
    let t = apply(EMPTY_WORKFLOW, received('p2', [step('a')]));
    refused(t, { type: 'cancelled', at: at(), planId: 'p2' }, /awaiting approval/);
    t = apply(t, approve(t, 'p2'), started('p2', 0), { type: 'cancelled', at: at(), planId: 'p2', reason: 'Cancelled by the user' });
    assert.equal(plan(t, 'p2').steps[0].error, 'Cancelled by the user');
  });
});

describe('nested plans', () => {
  function withChild(childActions: ActionCall[], parentActions = [step('plan_more'), step('after')]) {
    let s = approvedPlan(parentActions);
    s = apply(s, started('p1', 0), received('c1', childActions, {}, { parentId: 'p1', parentStep: 0 }));
    return s;
  }

  it('a step that returned a plan is linked to it; the child is one level deeper', () => {
    const s = withChild([step('x')]);
    assert.equal(plan(s, 'c1').depth, 1);
    assert.equal(plan(s, 'c1').parentId, 'p1');
    assert.equal(plan(s, 'c1').parentStep, 0);
    assert.equal(plan(s).steps[0].childPlanId, 'c1');
    refused(s, succeeded('p1', 0), /waiting for its nested plan 'c1'/);
    refused(s, failed('p1', 0), /waiting for its nested plan/);
    refused(s, received('c2', [], {}, { parentId: 'p1', parentStep: 0 }), /already produced plan 'c1'/);
    refused(s, received('c3', [], {}, { parentId: 'p1', parentStep: 1 }), /is not running/);
    refused(s, received('c4', [], {}, { parentId: 'p1' }), /both its parent plan and step/);
  });

  it('when the child completes, the parent step is ok and the parent goes on', () => {
    let s = withChild([step('x')]);
    s = apply(s, approve(s, 'c1'), started('c1', 0), succeeded('c1', 0));
    assert.equal(plan(s, 'c1').outcome, 'completed');
    assert.equal(plan(s).steps[0].state, 'ok');
    assert.equal(plan(s).steps[0].childPlanId, 'c1');
    assert.match(plan(s).steps[0].summary!, /nested plan completed/);
    assert.equal(plan(s).phase, 'executing');
    s = apply(s, started('p1', 1), succeeded('p1', 1));
    assert.equal(plan(s).outcome, 'completed');
  });

  it('a rejected child fails the parent step (the parent is blocked on it)', () => {
    let s = withChild([step('x')]);
    s = apply(s, { type: 'rejected', at: at(), planId: 'c1', reason: 'too risky' });
    assert.equal(plan(s).phase, 'blocked');
    assert.equal(plan(s).steps[0].state, 'failed');
    assert.equal(plan(s).steps[0].error, 'nested plan was rejected: too risky');
  });

  it('a child that is not ok fails the parent step at once', () => {
    let s = approvedPlan([step('plan_more')]);
    s = apply(
      s,
      started('p1', 0),
      received('c1', [], { status: 'error', errors: [{ code: 'INVALID', message: 'bad screen name' }] }, { parentId: 'p1', parentStep: 0 }),
    );
    assert.equal(plan(s).steps[0].state, 'failed');
    assert.equal(plan(s).steps[0].error, "the step returned a plan with status 'error': bad screen name");
  });

  it('a stopped child fails the parent step; a cancelled child cancels the parent', () => {
    let s = withChild([step('x')]);
    s = apply(s, approve(s, 'c1'), started('c1', 0), failed('c1', 0, 'boom'), { type: 'stopped', at: at(), planId: 'c1' });
    assert.equal(plan(s).phase, 'blocked');
    assert.match(plan(s).steps[0].error!, /nested plan was stopped \(Step 1 \(x\) failed: boom\)/);

    let t = withChild([step('x')]);
    t = apply(t, approve(t, 'c1'), started('c1', 0), { type: 'cancelled', at: at(), planId: 'c1' });
    assert.equal(plan(t, 'c1').outcome, 'cancelled');
    assert.equal(plan(t).outcome, 'cancelled');
    assert.deepEqual(states(t), ['failed', 'not_run']);
  });

  it('cancelling the parent cancels the child it waits for', () => {
    let s = withChild([step('x'), step('y')]);
    s = apply(s, approve(s, 'c1'), started('c1', 0), { type: 'cancelled', at: at(), planId: 'p1' });
    assert.equal(plan(s).outcome, 'cancelled');
    assert.equal(plan(s, 'c1').outcome, 'cancelled');
    assert.deepEqual(states(s, 'c1'), ['failed', 'not_run']);
  });

  it(`nests down to depth ${MAX_PLAN_DEPTH} and refuses depth ${MAX_PLAN_DEPTH + 1}`, () => {
    let s = approvedPlan([step('plan_more')], {}, 'd0');
    for (let d = 1; d <= MAX_PLAN_DEPTH; d++) {
      s = apply(s, started(`d${d - 1}`, 0), received(`d${d}`, [step('plan_more')], {}, { parentId: `d${d - 1}`, parentStep: 0 }));
      s = apply(s, approve(s, `d${d}`));
      assert.equal(plan(s, `d${d}`).depth, d);
    }
    s = apply(s, started(`d${MAX_PLAN_DEPTH}`, 0));
    refused(
      s,
      received('too-deep', [], {}, { parentId: `d${MAX_PLAN_DEPTH}`, parentStep: 0 }),
      /nested plan depth 6 exceeds the limit of 5/,
    );
    // Completing the deepest plan completes every ancestor.
    s = apply(s, succeeded(`d${MAX_PLAN_DEPTH}`, 0));
    for (let d = 0; d <= MAX_PLAN_DEPTH; d++) assert.equal(plan(s, `d${d}`).outcome, 'completed', `d${d}`);
  });
});

describe('restored', () => {
  it('a running step becomes unknown and its plan blocked on it; nothing is set to run again', () => {
    let s = approvedPlan([step('a'), step('b'), step('c')]);
    s = apply(s, started('p1', 0), succeeded('p1', 0), started('p1', 1));
    s = apply(s, { type: 'restored', at: at() });
    const p = plan(s);
    assert.deepEqual(states(s), ['ok', 'unknown', 'pending']);
    assert.equal(p.steps[1].error, INTERRUPTED_STEP_ERROR);
    assert.equal(p.phase, 'blocked');
    assert.equal(p.blockedStep, 1);
    assert.match(p.blockedReason!, /was running when Plangate stopped; its outcome is unknown/);
    refused(s, started('p1', 1), /is blocked/);
    refused(s, started('p1', 2), /is blocked/);
    // Only an explicit retry runs it again.
    s = apply(s, { type: 'retryRequested', at: at(), planId: 'p1', step: 1 }, started('p1', 1));
    assert.equal(plan(s).steps[1].attempts, 2);
  });

  it('an interrupted step can be skipped or the plan stopped', () => {
    let s = approvedPlan([step('a'), step('b')]);
    s = apply(s, started('p1', 0), { type: 'restored', at: at() }, { type: 'stepSkipped', at: at(), planId: 'p1', step: 0 });
    assert.deepEqual(states(s), ['skipped', 'pending']);
    let t = approvedPlan([step('a'), step('b')]);
    t = apply(t, started('p1', 0), { type: 'restored', at: at() }, { type: 'stopped', at: at(), planId: 'p1' });
    assert.deepEqual(states(t), ['unknown', 'not_run']);
    assert.equal(plan(t).outcome, 'stopped');
  });

  it('a step awaiting confirmation is pending again, and the plan offers to resume from it', () => {
    let s = approvedPlan([step('a'), step('b', {}, { confirm: true })]);
    s = apply(s, started('p1', 0), succeeded('p1', 0), { type: 'confirmRequested', at: at(), planId: 'p1', step: 1 });
    s = apply(s, { type: 'restored', at: at() });
    assert.deepEqual(states(s), ['ok', 'pending']);
    assert.equal(plan(s).phase, 'blocked');
    assert.equal(plan(s).blockedStep, 1);
    assert.match(plan(s).blockedReason!, /Plangate stopped before step 2 \(b\) ran\. Retry resumes from step 2/);
    s = apply(s, { type: 'retryRequested', at: at(), planId: 'p1', step: 1 });
    assert.equal(plan(s).phase, 'executing');
    refused(s, started('p1', 1), /needs its own confirmation/);
  });

  it('plans awaiting approval or a follow-up stay as they were; with nothing interrupted, restored is refused', () => {
    let s = apply(EMPTY_WORKFLOW, received('p1', [step('a')]));
    let t = approvedPlan([step('a')], { follow_up: 'More?' }, 'p2');
    t = apply(t, started('p2', 0), succeeded('p2', 0));
    s = { ...s, plans: { ...s.plans, ...t.plans }, order: [...s.order, ...t.order] };
    refused(s, { type: 'restored', at: at() }, /Nothing was interrupted/);
    assert.equal(plan(s, 'p1').phase, 'awaiting_approval');
    assert.equal(plan(s, 'p2').phase, 'follow_up');
  });

  it('a parent step waiting for its nested plan keeps waiting; the nested plan is blocked on its interrupted step', () => {
    let s = approvedPlan([step('plan_more'), step('after')]);
    s = apply(s, started('p1', 0), received('c1', [step('x'), step('y')], {}, { parentId: 'p1', parentStep: 0 }));
    s = apply(s, approve(s, 'c1'), started('c1', 0));
    s = apply(s, { type: 'restored', at: at() });
    assert.equal(plan(s).steps[0].state, 'running');
    assert.equal(plan(s).phase, 'executing');
    assert.equal(plan(s, 'c1').phase, 'blocked');
    assert.deepEqual(states(s, 'c1'), ['unknown', 'pending']);
    // Resolving the child lets the parent step settle.
    s = apply(s, { type: 'stepSkipped', at: at(), planId: 'c1', step: 0 }, started('c1', 1), succeeded('c1', 1));
    assert.equal(plan(s).steps[0].state, 'ok');
  });
});

describe('selectors and refusals', () => {
  it('activePlans, pendingApprovals, currentStep and planProgress follow the phases', () => {
    let s = apply(EMPTY_WORKFLOW, received('p1', [step('a'), step('b')]), received('p2', [step('a')]));
    assert.deepEqual(
      pendingApprovals(s).map((p) => p.id),
      ['p1', 'p2'],
    );
    assert.equal(currentStep(plan(s)), undefined);
    s = apply(s, approve(s, 'p1'), started('p1', 0), { type: 'rejected', at: at(), planId: 'p2' });
    assert.deepEqual(
      activePlans(s).map((p) => p.id),
      ['p1'],
    );
    assert.deepEqual(pendingApprovals(s), []);
    assert.equal(currentStep(plan(s))?.state, 'running');
    assert.deepEqual(planProgress(plan(s)), { done: 0, total: 2 });
    assert.equal(currentStep(plan(s, 'p2')), undefined);
  });

  it('never throws on events that are not workflow events', () => {
    const s = apply(EMPTY_WORKFLOW, received('p1', [step('a')]));
    for (const bad of [
      null,
      42,
      {},
      { type: 'bogus', at: 1 },
      { type: 'stepStarted', at: 1 },
      { type: 'approved', at: 1, planId: 'p1' },
      { type: 'planReceived', at: 1, planId: 'x' },
      { type: 'planReceived', at: 1, planId: 'x', origin: ORIGIN, plan: { next_actions: 'no' } },
    ]) {
      const e = bad as unknown as WorkflowEvent;
      assert.ok(canApply(s, e), JSON.stringify(bad));
      assert.equal(reduce(s, e), s);
    }
  });

  it('random event sequences: reduce is total, never mutates, and changes state exactly when canApply allows', () => {
    const planIds = ['p1', 'p2'];
    type Maker = (s: WorkflowState) => WorkflowEvent;
    const arbEvent = fc.oneof<fc.Arbitrary<Maker>[]>(
      fc
        .record({
          id: fc.constantFrom(...planIds),
          n: fc.integer({ min: 0, max: 3 }),
          follow: fc.boolean(),
          confirm: fc.boolean(),
          status: fc.constantFrom('ok', 'ok', 'error'),
        })
        .map(
          ({ id, n, follow, confirm, status }): Maker =>
            () =>
              received(
                id,
                Array.from({ length: n }, (_, i) => step(`t${i}`, { i }, { confirm: confirm && i === 1 })),
                { follow_up: follow ? 'More?' : undefined, status: status as 'ok' },
              ),
        ),
      fc.record({ id: fc.constantFrom(...planIds), fresh: fc.boolean() }).map(({ id, fresh }): Maker => (s) => ({
        type: 'approved',
        at: at(),
        planId: id,
        approvalHash: fresh && getPlan(s, id) ? approvalHash(getPlan(s, id)!) : 'stale',
      })),
      fc
        .record({
          id: fc.constantFrom(...planIds),
          step: fc.integer({ min: -1, max: 3 }),
          kind: fc.constantFrom(
            'argsEdited',
            'skipMarked',
            'confirmRequested',
            'confirmAnswered',
            'stepStarted',
            'stepProgress',
            'stepSucceeded',
            'stepFailed',
            'stepSkipped',
            'retryRequested',
          ),
          flag: fc.boolean(),
        })
        .map(({ id, step: n, kind, flag }): Maker => () => {
          const base = { at: at(), planId: id, step: n };
          switch (kind) {
            case 'argsEdited':
              return { ...base, type: 'argsEdited', args: { i: flag ? 1 : 2 } };
            case 'skipMarked':
              return { ...base, type: 'skipMarked', skip: flag };
            case 'confirmAnswered':
              return { ...base, type: 'confirmAnswered', granted: flag };
            case 'stepStarted':
              return { ...base, type: 'stepStarted', server: 'alpha', crossServer: flag };
            case 'stepProgress':
              return { ...base, type: 'stepProgress', progress: { progress: 1 } };
            case 'stepSucceeded':
              return { ...base, type: 'stepSucceeded', summary: 'ok' };
            case 'stepFailed':
              return { ...base, type: 'stepFailed', error: 'boom' };
            default:
              return { ...base, type: kind } as WorkflowEvent;
          }
        }),
      fc.record({ id: fc.constantFrom(...planIds), kind: fc.constantFrom('rejected', 'stopped', 'cancelled', 'followUpAnswered') }).map(
        ({ id, kind }): Maker =>
          () =>
            (kind === 'followUpAnswered'
              ? { type: kind, at: at(), planId: id, answer: 'yes' }
              : { type: kind, at: at(), planId: id }) as WorkflowEvent,
      ),
      fc.constant<Maker>(() => ({ type: 'restored', at: at() })),
    );
    fc.assert(
      fc.property(fc.array(arbEvent, { maxLength: 40 }), (makers) => {
        let s = deepFreeze(EMPTY_WORKFLOW);
        for (const make of makers) {
          const e = deepFreeze(make(s));
          const why = canApply(s, e);
          const next = deepFreeze(reduce(s, e));
          if (why !== undefined) assert.equal(next, s);
          else assert.notEqual(next, s);
          for (const p of Object.values(next.plans)) {
            // Invariants a user relies on: at most one step in progress per plan, and a blocked plan names its step.
            assert.ok(p.steps.filter((x) => x.state === 'running' || x.state === 'awaiting_confirm').length <= 1);
            if (p.phase === 'blocked') assert.ok(p.blockedStep !== undefined && p.steps[p.blockedStep]);
            if (p.phase === 'awaiting_approval') assert.ok(p.steps.every((x) => x.state === 'pending'));
          }
          s = next;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('approvalHash', () => {
  it('covers the tool and arguments of every step that will run, and nothing else', () => {
    let s = apply(EMPTY_WORKFLOW, received('p1', [step('write_file', { path: 'a.txt', content: 'hi' }), step('noop')]));
    const original = approvalHash(plan(s));
    assert.match(original, /^[0-9a-f]{64}$/);
    s = apply(s, { type: 'argsEdited', at: at(), planId: 'p1', step: 0, args: { path: 'a.txt', content: 'HI' } });
    const edited = approvalHash(plan(s));
    assert.notEqual(edited, original, 'an argument edit must be approved again');
    s = apply(s, { type: 'argsEdited', at: at(), planId: 'p1', step: 0, args: { content: 'hi', path: 'a.txt' } });
    assert.equal(approvalHash(plan(s)), original, 'key order is not a change');
    s = apply(s, { type: 'skipMarked', at: at(), planId: 'p1', step: 1, skip: true });
    assert.notEqual(approvalHash(plan(s)), original, 'skipping a step changes what runs');
    // Labels and step states do not change what runs.
    const relabelled = {
      ...plan(s),
      steps: plan(s).steps.map((x) => ({ ...x, call: { ...x.call, label: 'other' }, state: 'ok' as const })),
    };
    assert.equal(approvalHash(relabelled), approvalHash(plan(s)));
  });

  it('the pure SHA-256 matches node:crypto, including non-ASCII text and block boundaries', () => {
    for (const text of ['', 'abc', 'é ü 漢字 🚀', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(64), 'y'.repeat(1000)]) {
      assert.equal(sha256Hex(text), createHash('sha256').update(text, 'utf8').digest('hex'), JSON.stringify(text.slice(0, 10)));
    }
  });

  it('canonical JSON sorts keys, keeps __proto__ as data and does not throw on odd values', () => {
    assert.equal(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] }), '{"a":[1,{"c":3,"d":2}],"b":1}');
    assert.equal(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":2}')), '{"__proto__":{"x":1},"a":2}');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    assert.equal(canonicalJson(cyclic), '{"a":1,"self":"[Circular]"}');
    assert.equal(canonicalJson({ u: undefined, n: NaN, big: 10n, arr: [undefined] }), '{"arr":[null],"big":"10","n":null}');
  });
});
