// A plan step running as an MCP task, as the workflow keeps it and the panel shows it: the task's id and statuses come
// from the ledger (stepTask), the row shows the server's status and message as they come, a reload leaves the step
// "outcome unknown" with its task kept (until the gate watches it again: taskResumed), and hostile task text is data.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PlanItemView } from '../../src/shared/protocol/plan';
import { approvalHash } from '../../src/core/plan/approval';
import type { OrchestratedPlan } from '../../src/core/plan/plan';
import { PlanPresenter } from '../../src/core/present/planItem';
import { MemoryLedgerSink, Workflow, parseLedgerEntry, type LedgerEntry } from '../../src/core/workflow/ledger';
import { canApply, EMPTY_WORKFLOW, getPlan, reduce, type WorkflowEvent, type WorkflowState } from '../../src/core/workflow/workflow';
import { apply } from './helpers/applyEvents';
import { byClass, installFakeDom, type FakeNode } from './helpers/fakeDom';

let renderPlan: (view: PlanItemView) => FakeNode;
before(async () => {
  installFakeDom([], { open: {}, drafts: {} });
  const view = 'plan/planView';
  renderPlan = ((await import(`../../src/webview/${view}`)) as { renderPlan: typeof renderPlan }).renderPlan;
});

const plan: OrchestratedPlan = {
  kind: 'orchestrated_plan',
  version: '1',
  status: 'ok',
  instruction: 'Research, then finish.',
  next_actions: [
    { tool: 'simulate-research-query', args: { topic: 'tides' }, label: 'Research' },
    { tool: 'succeed', args: {} },
  ],
};

function running(): WorkflowState {
  let s = apply(EMPTY_WORKFLOW, {
    type: 'planReceived',
    at: 1,
    planId: 'p1',
    origin: { server: 'everything', tool: 'planner', args: {}, entrance: 'manual' },
    plan,
  });
  s = apply(s, { type: 'approved', at: 2, planId: 'p1', approvalHash: approvalHash(getPlan(s, 'p1')!) });
  return apply(s, { type: 'stepStarted', at: 3, planId: 'p1', step: 0, server: 'everything', crossServer: false });
}

const task = (status: 'working' | 'input_required' | 'completed', message?: string): WorkflowEvent => ({
  type: 'stepTask',
  at: 4,
  planId: 'p1',
  step: 0,
  callId: 'c1',
  server: 'everything',
  taskId: 't-42',
  status,
  ...(message ? { message } : {}),
});

function rendered(s: WorkflowState): FakeNode {
  return renderPlan(new PlanPresenter().present(s, 'p1')!);
}

describe('a step running as a task in the panel', () => {
  it("shows the task's status and the server's message as they come, and what Cancel does", () => {
    let s = apply(running(), task('working', 'Gathering sources...'));
    let [row] = byClass(rendered(s), 'step-task');
    assert.ok(row, 'the step shows its task');
    assert.equal(row.getAttribute('role'), 'status');
    assert.match(row.textContent, /Task working — Gathering sources\.\.\./);
    assert.match(row.textContent, /Cancel stops it there \(tasks\/cancel\)/);
    s = apply(s, task('input_required', 'Which tide?'));
    [row] = byClass(rendered(s), 'step-task');
    assert.match(row.textContent, /Task waiting for input — Which tide\?/);
  });

  it('a task that ended while its result is fetched says so, not that Cancel stops it', () => {
    const s = apply(running(), task('working', 'Writing the result'), task('completed', 'Writing the result'));
    const [row] = byClass(rendered(s), 'step-task');
    assert.match(row.textContent, /Task completed — Writing the result/);
    assert.match(row.textContent, /The task has ended on the server: Plangate fetches its result\./);
    assert.doesNotMatch(row.textContent, /Cancel stops it/);
  });

  it('a step that is not running shows no task once it is done', () => {
    let s = apply(running(), task('working', 'Gathering sources...'), task('completed'));
    s = apply(s, { type: 'stepSucceeded', at: 5, planId: 'p1', step: 0, summary: 'Report' });
    assert.equal(byClass(rendered(s), 'step-task').length, 0);
  });

  it('hostile task text is data: bidi controls are made visible, markup stays text', () => {
    const s = apply(running(), task('working', '<img src=x onerror=alert(1)>\u202Eevil'));
    const [row] = byClass(rendered(s), 'step-task');
    assert.ok(!row.textContent.includes('\u202E'), 'the bidi override is not passed through');
    assert.match(row.textContent, /<img src=x onerror=alert\(1\)>/);
    assert.equal(byClass(row, 'img').length, 0);
  });
});

describe('the ledger keeps the task; a reload leaves it to be watched again', () => {
  it('after a reload the step is "outcome unknown" with its task and says it will be watched again; taskResumed runs it on', () => {
    const sink = new MemoryLedgerSink();
    const live = new Workflow(sink);
    for (const e of [
      {
        type: 'planReceived',
        at: 1,
        planId: 'p1',
        origin: { server: 'everything', tool: 'planner', args: {}, entrance: 'manual' },
        plan,
      } as WorkflowEvent,
    ])
      assert.ok(live.dispatch(e));
    assert.ok(live.dispatch({ type: 'approved', at: 2, planId: 'p1', approvalHash: approvalHash(getPlan(live.state, 'p1')!) }));
    assert.ok(live.dispatch({ type: 'stepStarted', at: 3, planId: 'p1', step: 0, server: 'everything', crossServer: false }));
    assert.ok(live.dispatch(task('working', 'Analyzing content...')));
    // Reload: the entries, as a file ledger would read them back.
    const entries = sink.entries.map((e) => parseLedgerEntry(JSON.parse(JSON.stringify(e))) as LedgerEntry);
    const reloaded = new Workflow(new MemoryLedgerSink(), entries);
    const p = getPlan(reloaded.state, 'p1')!;
    assert.equal(p.phase, 'blocked');
    assert.equal(p.steps[0].state, 'unknown');
    assert.deepEqual(p.steps[0].task, { id: 't-42', callId: 'c1', status: 'working', message: 'Analyzing content...' });
    assert.match(p.blockedReason ?? '', /running as task t-42 when Plangate stopped\. Plangate watches the task again/);
    const [row] = byClass(renderPlan(new PlanPresenter().present(reloaded.state, 'p1')!), 'step-task');
    assert.match(row.textContent, /watched again once its server is connected/);
    assert.ok(reloaded.dispatch({ type: 'taskResumed', at: 9, planId: 'p1', step: 0 }));
    const after = getPlan(reloaded.state, 'p1')!;
    assert.equal(after.phase, 'executing');
    assert.equal(after.steps[0].state, 'running');
  });

  it('taskResumed is refused for a step without a task, one whose task ended, and one the plan is not blocked on', () => {
    let s = running();
    s = reduce(s, { type: 'restored', at: 5 });
    assert.match(canApply(s, { type: 'taskResumed', at: 6, planId: 'p1', step: 0 }) ?? '', /did not run as a task/);
    s = apply(running(), task('completed'));
    s = reduce(s, { type: 'restored', at: 5 });
    assert.match(canApply(s, { type: 'taskResumed', at: 6, planId: 'p1', step: 0 }) ?? '', /already ended/);
    s = apply(running(), task('working'));
    assert.match(canApply(s, { type: 'taskResumed', at: 6, planId: 'p1', step: 0 }) ?? '', /is executing/);
  });

  it('a retried step starts afresh: its old task is dropped, so a new call is a new task', () => {
    let s = reduce(apply(running(), task('working')), { type: 'restored', at: 5 });
    s = apply(
      s,
      { type: 'retryRequested', at: 6, planId: 'p1', step: 0 },
      { type: 'stepStarted', at: 7, planId: 'p1', step: 0, server: 'everything', crossServer: false },
    );
    assert.equal(getPlan(s, 'p1')!.steps[0].task, undefined);
  });

  it('a stored task record with a status no task has, or a plan step without its plan, is refused when read back', () => {
    assert.equal(typeof parseLedgerEntry({ seq: 1, event: { ...task('working'), status: 'done' } }), 'string');
    assert.equal(
      typeof parseLedgerEntry({
        seq: 1,
        event: { type: 'stepTask', at: 1, step: 0, callId: 'c', server: 's', taskId: 't', status: 'working' },
      }),
      'string',
    );
    assert.notEqual(typeof parseLedgerEntry({ seq: 1, event: task('working') }), 'string');
  });
});
