// The ledger's replay and its reading of stored entries, edge by edge (fast enough for `npm run mutate`, which runs this
// file once per mutant of src/core/workflow/ledger.ts): replay must give exactly the plain fold of the reducer over the
// same entries — plans set aside only once their whole family is finished, put back in received order — and every
// malformed stored entry is refused with words that name its field.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compactEntries,
  durabilityOf,
  MemoryLedgerSink,
  parseLedgerEntry,
  replay,
  Workflow,
  type Durability,
  type LedgerEntry,
} from '../../src/core/workflow/ledger';
import { EMPTY_WORKFLOW, getPlan, reduce, type WorkflowEvent, type WorkflowState } from '../../src/core/workflow/workflow';
import { approvalHash } from '../../src/core/plan/approval';
import type { ActionCall } from '../../src/core/plan/plan';

const fold = (entries: readonly LedgerEntry[]): WorkflowState => entries.reduce((s, e) => reduce(s, e.event), EMPTY_WORKFLOW);

function history<S extends MemoryLedgerSink>(sink: S = new MemoryLedgerSink() as S) {
  const wf = new Workflow(sink);
  let at = 0;
  const ok = (event: Record<string, unknown>) =>
    assert.ok(wf.dispatch({ at: ++at, ...event } as unknown as WorkflowEvent), JSON.stringify(event));
  const receive = (planId: string, steps: ActionCall[] = [{ tool: 't', args: {} }], extra: Record<string, unknown> = {}) =>
    ok({
      type: 'planReceived',
      planId,
      origin: { server: 'a', tool: 'plan', args: {}, entrance: 'manual' },
      plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: planId, next_actions: steps },
      ...extra,
    });
  const resolve = (planId: string) =>
    ok({ type: 'resolved', planId, steps: getPlan(wf.state, planId)!.steps.map(() => ({ server: 'a', crossServer: false })) });
  const approve = (planId: string) => ok({ type: 'approved', planId, approvalHash: approvalHash(getPlan(wf.state, planId)!) });
  const run = (planId: string, step: number, childPlanId?: string) => {
    ok({ type: 'stepStarted', planId, step, server: 'a', crossServer: false });
    ok({ type: 'stepSucceeded', planId, step, summary: 'done', ...(childPlanId ? { childPlanId } : {}) });
  };
  /** An event stored as is, whether the reducer takes it or not (as a ledger written by another version may hold). */
  const raw = (event: Record<string, unknown>) =>
    sink.entries.push({ seq: sink.entries.length + 1000, event: { at: ++at, ...event } as unknown as WorkflowEvent });
  /** A plan received, resolved and approved, its first step started: a plan in the middle of its run. */
  const started = (planId: string, steps?: ActionCall[]) => {
    receive(planId, steps);
    resolve(planId);
    approve(planId);
    ok({ type: 'stepStarted', planId, step: 0, server: 'a', crossServer: false });
  };
  return { sink, wf, ok, raw, receive, resolve, approve, run, started };
}

function sameAsFold(entries: readonly LedgerEntry[]) {
  const replayed = replay(entries);
  const folded = fold(entries);
  assert.deepStrictEqual(replayed, folded);
  assert.deepEqual(Object.keys(replayed.plans), Object.keys(folded.plans), 'plans in received order');
  return replayed;
}

describe('replay is the plain fold', () => {
  test('finished plans set aside and put back; awaiting and running ones kept live', () => {
    const h = history();
    h.receive('p1');
    h.ok({ type: 'rejected', planId: 'p1', reason: 'no' });
    h.receive('p2');
    h.resolve('p2');
    h.approve('p2');
    h.run('p2', 0);
    h.receive('p3');
    h.receive('p4', [
      { tool: 't', args: {} },
      { tool: 'u', args: {} },
    ]);
    h.resolve('p4');
    h.approve('p4');
    h.run('p4', 0);
    const s = sameAsFold(h.sink.entries);
    assert.deepEqual(s.order, ['p1', 'p2', 'p3', 'p4']);
    assert.equal(getPlan(s, 'p1')?.phase, 'finished');
    assert.equal(getPlan(s, 'p4')?.phase, 'executing');
    for (const k of Object.keys(s.plans)) assert.ok(Object.getOwnPropertyDescriptor(s.plans, k)?.writable);
  });

  test('a later event naming a finished plan still applies (revert), and a restore after it', () => {
    const h = history();
    h.receive('p1');
    h.resolve('p1');
    h.approve('p1');
    h.run('p1', 0);
    h.receive('p2');
    h.ok({ type: 'reverted', planId: 'p1', files: ['a.txt'] });
    h.raw({ type: 'restored' });
    h.receive('p3');
    h.raw({ type: 'cancelled', planId: 'p3', reason: 'gone' });
    const s = sameAsFold(h.sink.entries);
    assert.ok(getPlan(s, 'p1'));
  });

  test('a child plan keeps its finished parent live until the family is finished, and replacements join the family', () => {
    const h = history();
    h.started('p1', [
      { tool: 't', args: {} },
      { tool: 'u', args: {} },
    ]);
    h.receive('c1', [{ tool: 't', args: {} }], { parentId: 'p1', parentStep: 0 });
    h.raw({ type: 'stepSucceeded', planId: 'p1', step: 0, summary: 'x', childPlanId: 'c1' });
    h.ok({ type: 'rejected', planId: 'c1' });
    sameAsFold(h.sink.entries);
    h.raw({ type: 'stopped', planId: 'p1' });
    h.receive('r1', [{ tool: 't', args: {} }], { replacesId: 'p1' });
    sameAsFold(h.sink.entries);
    h.ok({ type: 'rejected', planId: 'r1' });
    h.receive('z');
    sameAsFold(h.sink.entries);
  });

  test('call records beside plans, a call naming its plan, and a refused event change nothing', () => {
    const h = history();
    h.receive('p1');
    h.ok({ type: 'callSent', callId: 'c1', server: 'a', tool: 't', entrance: 'call', decision: { by: 'user', what: 'x' }, args: {} });
    h.ok({ type: 'callEnded', callId: 'c1', outcome: 'ok', durationMs: 1 });
    h.ok({ type: 'rejected', planId: 'p1' });
    const entries: LedgerEntry[] = [
      ...h.sink.entries,
      { seq: 99, event: { type: 'approved', at: 99, planId: 'p1', approvalHash: 'x' } },
      { seq: 100, event: { type: 'stepFailed', at: 100, planId: 'nope', step: 0, error: 'e' } },
    ];
    sameAsFold(entries);
  });

  test('an event type this version does not list gets the plain fold', () => {
    const h = history();
    h.receive('p1');
    h.ok({ type: 'rejected', planId: 'p1' });
    const entries: LedgerEntry[] = [...h.sink.entries, { seq: 50, event: { type: 'fromTheFuture', at: 50 } as unknown as WorkflowEvent }];
    sameAsFold(entries);
    assert.deepStrictEqual(replay([]), EMPTY_WORKFLOW);
  });

  test('many finished plans in a row: all put back, in order', () => {
    const h = history();
    for (let i = 0; i < 30; i++) {
      h.receive(`p${i}`);
      if (i % 3 !== 2) h.ok({ type: 'rejected', planId: `p${i}` });
    }
    const s = sameAsFold(h.sink.entries);
    assert.equal(s.order.length, 30);
  });
});

describe('reading a stored entry', () => {
  const entry = (event: Record<string, unknown>, seq: unknown = 1) => parseLedgerEntry({ seq, event: { at: 1, ...event } });
  const plan = { status: 'ok', next_actions: [{ tool: 't', args: {} }] };
  const origin = { server: 'a', tool: 'p', args: {} };

  test('the envelope: an object, a positive integer seq, an event object', () => {
    assert.equal(parseLedgerEntry(null), 'not a JSON object');
    assert.equal(parseLedgerEntry([]), 'not a JSON object');
    for (const seq of [0, -1, 1.5, '1', null]) assert.equal(entry({ type: 'restored' }, seq), 'seq is not a positive integer', String(seq));
    assert.equal(parseLedgerEntry({ seq: 1, event: [] }), 'event is not an object');
    assert.deepEqual(parseLedgerEntry({ seq: 3, event: { type: 'restored', at: 1 }, extra: 1 }), {
      seq: 3,
      event: { type: 'restored', at: 1 },
    });
  });

  test('type and time', () => {
    assert.equal(entry({ type: 'nope' }), 'event: unknown type "nope"');
    assert.equal(entry({ type: 5 }), 'event: unknown type 5');
    assert.equal(parseLedgerEntry({ seq: 1, event: { type: 'restored', at: Infinity } }), 'event: restored.at is not a number');
    assert.equal(parseLedgerEntry({ seq: 1, event: { type: 'restored', at: '1' } }), 'event: restored.at is not a number');
    assert.equal(entry({ type: 'rejected' }), 'event: rejected.planId is not a string');
  });

  test('call records', () => {
    assert.equal(entry({ type: 'callEnded' }), 'event: callEnded.callId is not a string');
    assert.equal(entry({ type: 'callEnded', callId: 'c' }), 'event: callEnded.outcome is not a string');
    assert.equal(typeof entry({ type: 'callEnded', callId: 'c', outcome: 'ok' }), 'object');
    assert.equal(entry({ type: 'callSent', callId: 5 }), 'event: callSent.callId is not a string');
    assert.equal(entry({ type: 'callSent', callId: 'c', server: 'a' }), 'event: callSent needs a server and a tool');
    assert.equal(entry({ type: 'callSent', callId: 'c', tool: 't' }), 'event: callSent needs a server and a tool');
    assert.equal(entry({ type: 'callSent', callId: 'c', server: 'a', tool: 't' }), 'event: callSent.decision is not a decision');
    assert.equal(
      entry({ type: 'callSent', callId: 'c', server: 'a', tool: 't', decision: { by: 1 } }),
      'event: callSent.decision is not a decision',
    );
    assert.equal(typeof entry({ type: 'callSent', callId: 'c', server: 'a', tool: 't', decision: { by: 'user' } }), 'object');
  });

  test('a received plan', () => {
    const bad = (e: Record<string, unknown>) => entry({ type: 'planReceived', planId: 'p', origin, plan, ...e });
    assert.equal(typeof bad({}), 'object');
    for (const o of [null, { ...origin, server: 1 }, { ...origin, tool: 1 }, { ...origin, args: [] }])
      assert.equal(bad({ origin: o }), 'event: planReceived.origin is not {server, tool, args}');
    for (const p of [null, { ...plan, status: 1 }, { ...plan, next_actions: {} }])
      assert.equal(bad({ plan: p }), 'event: planReceived.plan is not a parsed plan');
    for (const a of [[5], [{ tool: 1, args: {} }], [{ tool: 't', args: [] }]])
      assert.equal(bad({ plan: { ...plan, next_actions: a } }), 'event: planReceived.plan.next_actions holds a step without tool and args');
    assert.equal(bad({ parentId: 1 }), 'event: planReceived.parentId is not a string');
    assert.equal(bad({ parentStep: 1.5 }), 'event: planReceived.parentStep is not an integer');
    assert.equal(bad({ replacesId: 1 }), 'event: planReceived.replacesId is not a string');
    assert.equal(typeof bad({ parentId: 'x', parentStep: 0, replacesId: 'y' }), 'object');
  });

  test('each event type with its fields', () => {
    const p = { planId: 'p' };
    const cases: [Record<string, unknown>, string | undefined][] = [
      [{ type: 'argsEdited', ...p, step: 0, args: {} }, undefined],
      [{ type: 'argsEdited', ...p, step: -1, args: {} }, 'argsEdited.step is not a step index'],
      [{ type: 'argsEdited', ...p, step: 0.5, args: {} }, 'argsEdited.step is not a step index'],
      [{ type: 'argsEdited', ...p, step: 0, args: [] }, 'argsEdited.args is not an object'],
      [{ type: 'skipMarked', ...p, step: 0, skip: true }, undefined],
      [{ type: 'skipMarked', ...p, step: 0, skip: 'y' }, 'skipMarked.skip is not true or false'],
      [{ type: 'approved', ...p, approvalHash: 'h' }, undefined],
      [{ type: 'approved', ...p }, 'approved.approvalHash is not a string'],
      [{ type: 'approved', ...p, approvalHash: 'h', note: 1 }, 'approved.note is not a string'],
      [{ type: 'rejected', ...p, reason: 1 }, 'rejected.reason is not a string'],
      [{ type: 'rejected', ...p }, undefined],
      [{ type: 'confirmAnswered', ...p, step: 0, granted: 1 }, 'confirmAnswered.granted is not true or false'],
      [{ type: 'confirmAnswered', ...p, granted: true }, 'confirmAnswered.step is not a step index'],
      [{ type: 'stepStarted', ...p, step: 0, server: 'a', crossServer: false }, undefined],
      [{ type: 'stepStarted', ...p, step: 0, crossServer: false }, 'stepStarted.server is not a string'],
      [{ type: 'stepStarted', ...p, step: 0, server: 'a' }, 'stepStarted.crossServer is not true or false'],
      [{ type: 'stepProgress', ...p, step: 0, progress: { progress: 1, total: 2, message: 'm' } }, undefined],
      [{ type: 'stepProgress', ...p, step: 0, progress: { progress: '1' } }, 'stepProgress.progress is not {progress, total?, message?}'],
      [
        { type: 'stepProgress', ...p, step: 0, progress: { progress: 1, total: '2' } },
        'stepProgress.progress is not {progress, total?, message?}',
      ],
      [
        { type: 'stepProgress', ...p, step: 0, progress: { progress: 1, message: 2 } },
        'stepProgress.progress is not {progress, total?, message?}',
      ],
      [{ type: 'stepProgress', ...p, step: 0, progress: [] }, 'stepProgress.progress is not {progress, total?, message?}'],
      [{ type: 'stepProgress', ...p, progress: { progress: 1 } }, 'stepProgress.step is not a step index'],
      [{ type: 'stepSucceeded', ...p, step: 0, summary: 's' }, undefined],
      [{ type: 'stepSucceeded', ...p, step: 0 }, 'stepSucceeded.summary is not a string'],
      [{ type: 'stepSucceeded', ...p, step: 0, summary: 's', childPlanId: 1 }, 'stepSucceeded.childPlanId is not a string'],
      [{ type: 'stepFailed', ...p, step: 0, error: 'e' }, undefined],
      [{ type: 'stepFailed', ...p, step: 0 }, 'stepFailed.error is not a string'],
      [{ type: 'confirmRequested', ...p }, 'confirmRequested.step is not a step index'],
      [{ type: 'stepSkipped', ...p }, 'stepSkipped.step is not a step index'],
      [{ type: 'retryRequested', ...p }, 'retryRequested.step is not a step index'],
      [{ type: 'retryRequested', ...p, step: 0 }, undefined],
      [{ type: 'cancelled', ...p, reason: 1 }, 'cancelled.reason is not a string'],
      [{ type: 'followUpAnswered', ...p, answer: 'yes' }, undefined],
      [{ type: 'followUpAnswered', ...p, answer: 'no' }, undefined],
      [{ type: 'followUpAnswered', ...p, answer: 'maybe' }, 'followUpAnswered.answer is not yes or no'],
      [{ type: 'stopped', ...p }, undefined],
    ];
    for (const [event, problem] of cases) {
      const r = entry(event);
      if (problem === undefined) assert.equal(typeof r, 'object', `${JSON.stringify(event)}: ${String(r)}`);
      else assert.equal(r, `event: ${problem}`, JSON.stringify(event));
    }
  });
});

describe('how soon each event must be on disk', () => {
  class DurabilitySink extends MemoryLedgerSink {
    readonly durability: (Durability | undefined)[] = [];
    override append(entry: LedgerEntry, _json?: string, durability?: Durability): void {
      super.append(entry);
      this.durability.push(durability);
    }
  }
  const call = { server: 'a', tool: 't', entrance: 'call', decision: { by: 'user', what: 'x' }, args: {} };
  const task = { server: 'a', taskId: 'tk', status: 'working' };

  /** Dispatches each event after `setup` and returns the durability the sink was asked for, by label. */
  function durabilities(h: ReturnType<typeof history<DurabilitySink>>, events: [string, Record<string, unknown>][]) {
    const out: Record<string, Durability | undefined> = {};
    for (const [label, event] of events) {
      const before = h.sink.durability.length;
      assert.ok(h.wf.dispatch({ at: 1, ...event } as unknown as WorkflowEvent), label);
      assert.equal(h.sink.durability.length, before + 1, label);
      out[label] = h.sink.durability.at(-1);
    }
    return { out, wf: h.wf };
  }

  test('a call record, a read, a task id and a restore are synced before the call leaves; progress is lossy', () => {
    const h = history(new DurabilitySink());
    h.started('p', [
      { tool: 't', args: {} },
      { tool: 'u', args: {} },
    ]);
    const { out } = durabilities(h, [
      ['callSent', { type: 'callSent', callId: 'c1', ...call }],
      ['callEnded', { type: 'callEnded', callId: 'c1', outcome: 'ok', durationMs: 1 }],
      ['resourceRead', { type: 'resourceRead', callId: 'r1', server: 'a', uri: 'file:///x', outcome: 'ok' }],
      ['callTask', { type: 'callTask', callId: 'c2', ...task }],
      ['stepTask', { type: 'stepTask', planId: 'p', step: 0, callId: 'c3', ...task }],
      ['stepProgress', { type: 'stepProgress', planId: 'p', step: 0, progress: { progress: 1 } }],
      ['samplingDecided', { type: 'samplingDecided', samplingId: 's1', server: 'a', outcome: 'declined', request: {} }],
      ['restored', { type: 'restored' }],
    ]);
    assert.deepEqual(out, {
      callSent: 'now',
      callEnded: 'turn',
      resourceRead: 'now',
      callTask: 'now',
      stepTask: 'now',
      stepProgress: 'lossy',
      samplingDecided: 'turn',
      restored: 'now',
    });
  });

  test('only the event that ends a running plan is synced: not its receipt, approval, a step start or a middle step', () => {
    const steps = [
      { tool: 't', args: {} },
      { tool: 'u', args: {} },
    ];
    const origin = { server: 'a', tool: 'plan', args: {}, entrance: 'manual' };
    const plan = { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'r', next_actions: steps };
    const h = history(new DurabilitySink());
    h.receive('p', steps);
    h.resolve('p');
    h.receive('q');
    const hash = approvalHash(getPlan(h.wf.state, 'p')!);
    const { out, wf } = durabilities(h, [
      ['rejected', { type: 'rejected', planId: 'q' }],
      ['approved', { type: 'approved', planId: 'p', approvalHash: hash }],
      ['stepStarted', { type: 'stepStarted', planId: 'p', step: 0, server: 'a', crossServer: false }],
      ['middleStep', { type: 'stepSucceeded', planId: 'p', step: 0, summary: 'x' }],
      ['lastStarted', { type: 'stepStarted', planId: 'p', step: 1, server: 'a', crossServer: false }],
      ['lastStep', { type: 'stepSucceeded', planId: 'p', step: 1, summary: 'y' }],
      ['planReceived', { type: 'planReceived', planId: 'r', origin, plan }],
    ]);
    assert.equal(getPlan(wf.state, 'p')?.phase, 'finished');
    assert.deepEqual(out, {
      rejected: 'turn',
      approved: 'turn',
      stepStarted: 'turn',
      middleStep: 'turn',
      lastStarted: 'turn',
      lastStep: 'now',
      planReceived: 'turn',
    });
  });

  test('pure: a plan executing before and not after is settled now, whatever the event says', () => {
    const h = history();
    h.receive('p');
    h.resolve('p');
    h.approve('p');
    const executing = h.wf.state;
    h.run('p', 0);
    const finished = h.wf.state;
    const ev = { type: 'stepSucceeded', at: 1, planId: 'p', step: 0, summary: 'x' } as WorkflowEvent;
    assert.equal(durabilityOf(executing, ev, finished), 'now');
    assert.equal(durabilityOf(executing, ev, executing), 'turn');
    assert.equal(durabilityOf(finished, ev, finished), 'turn');
    assert.equal(durabilityOf(executing, { ...ev, planId: 'other' } as WorkflowEvent, finished), 'turn');
  });
});

describe('reading a stored entry: records beside plans', () => {
  const entry = (event: Record<string, unknown>) => parseLedgerEntry({ seq: 1, event: { at: 1, ...event } });
  const check = (cases: [Record<string, unknown>, string | undefined][]) => {
    for (const [event, problem] of cases) {
      const r = entry(event);
      if (problem === undefined) assert.deepEqual(r, { seq: 1, event: { at: 1, ...event } }, `${JSON.stringify(event)}: ${String(r)}`);
      else assert.equal(r, `event: ${problem}`, JSON.stringify(event));
    }
  };

  test('a resource read needs its id, server and URI', () => {
    const read = { type: 'resourceRead', callId: 'r', server: 'a', uri: 'file:///x', outcome: 'ok' };
    const problem = 'resourceRead needs an id, a server and a URI';
    check([
      [read, undefined],
      [{ ...read, callId: undefined }, problem],
      [{ ...read, server: 1 }, problem],
      [{ ...read, uri: null }, problem],
    ]);
  });

  test("a task record needs the call, the server, the task's id and status; a step's task also its plan and step", () => {
    const callTask = { type: 'callTask', callId: 'c', server: 'a', taskId: 't', status: 'working' };
    const stepTask = { ...callTask, type: 'stepTask', planId: 'p', step: 0 };
    check([
      [callTask, undefined],
      [{ ...callTask, message: 'half way' }, undefined],
      [{ ...callTask, callId: 1 }, 'callTask needs a call id, a server and a task id'],
      [{ ...callTask, server: undefined }, 'callTask needs a call id, a server and a task id'],
      [{ ...callTask, taskId: 2 }, 'callTask needs a call id, a server and a task id'],
      [{ ...callTask, status: 'sleeping' }, 'callTask.status is not a task status'],
      [{ ...callTask, status: undefined }, 'callTask.status is not a task status'],
      [{ ...callTask, message: 5 }, 'callTask.message is not a string'],
      [stepTask, undefined],
      [{ ...stepTask, status: 'completed', message: 'done' }, undefined],
      [{ ...stepTask, taskId: undefined }, 'stepTask needs a call id, a server and a task id'],
      [{ ...stepTask, status: 'x' }, 'stepTask.status is not a task status'],
      [{ ...stepTask, message: false }, 'stepTask.message is not a string'],
      [{ ...stepTask, planId: undefined }, 'stepTask.planId is not a string'],
      [{ ...stepTask, step: undefined }, 'stepTask.step is not a step index'],
      [{ ...stepTask, step: -1 }, 'stepTask.step is not a step index'],
      [{ type: 'taskResumed', planId: 'p', step: 0 }, undefined],
      [{ type: 'taskResumed', planId: 'p' }, 'taskResumed.step is not a step index'],
    ]);
  });

  test('a sampling decision needs its id, server, outcome and request', () => {
    const decided = { type: 'samplingDecided', samplingId: 's', server: 'a', outcome: 'declined', request: { messages: [] } };
    const problem = 'samplingDecided needs samplingId, server, outcome and request';
    check([
      [decided, undefined],
      [{ ...decided, samplingId: 1 }, problem],
      [{ ...decided, server: undefined }, problem],
      [{ ...decided, outcome: true }, problem],
      [{ ...decided, request: [] }, problem],
      [{ ...decided, request: undefined }, problem],
    ]);
  });

  test('a submission event is checked as one (it has no plan)', () => {
    check([
      [{ type: 'formStaged', submissionId: 's', fields: {} }, undefined],
      [{ type: 'formStaged', submissionId: 's' }, 'formStaged.fields is not an object'],
      [{ type: 'formStaged', fields: {} }, 'formStaged.submissionId is not a string'],
      [{ type: 'approvalRequested', submissionId: 's', approvalId: 'a' }, undefined],
    ]);
  });

  test('a cancel without a reason, and a plan whose second step has no tool', () => {
    check([
      [{ type: 'cancelled', planId: 'p' }, undefined],
      [{ type: 'cancelled', planId: 'p', reason: 'user' }, undefined],
      [
        {
          type: 'planReceived',
          planId: 'p',
          origin: { server: 'a', tool: 'p', args: {} },
          plan: { status: 'ok', next_actions: [{ tool: 't', args: {} }, { args: {} }] },
        },
        'planReceived.plan.next_actions holds a step without tool and args',
      ],
      [
        {
          type: 'planReceived',
          planId: 'p',
          origin: { server: 'a', tool: 'p', args: {} },
          plan: { status: 'ok', next_actions: [] },
          followUpOf: 3,
        },
        'planReceived.followUpOf is not a string',
      ],
    ]);
  });
});

describe('what is recorded is the event as JSON data', () => {
  class Money {
    constructor(readonly cents: number) {}
    toJSON() {
      return `${this.cents / 100} EUR`;
    }
  }
  const sent = (args: unknown, extra: Record<string, unknown> = {}) =>
    ({
      type: 'callSent',
      at: 1,
      callId: 'c',
      server: 'a',
      tool: 't',
      entrance: 'call',
      decision: { by: 'user', what: 'x' },
      args,
      ...extra,
    }) as unknown as WorkflowEvent;

  /** `value` with every plain object in it given a null prototype (what the fast copy takes like a plain one). */
  const bare = (value: unknown): unknown =>
    Object.getPrototypeOf(value) === Object.prototype
      ? Object.assign(Object.create(null) as object, Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, bare(v)])))
      : value;

  test('each value the fast copy must not take as is comes out as JSON gives it', () => {
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { x: 1, y: { z: 'z' } });
    const cases: [string, WorkflowEvent][] = [
      ['NaN', sent({ n: NaN })],
      ['NaN with no finite number beside it', sent({ n: NaN }, { at: NaN })],
      ['Infinity', sent({ n: -Infinity })],
      ['-0', sent({ n: -0 })],
      ['a Date', sent({ d: new Date(0) })],
      ['a class with toJSON', sent({ price: new Money(150) })],
      ['an array', sent({ list: [1, undefined, { a: NaN }] })],
      ['deep nesting', sent({ a: { b: { c: { d: -0 } } } })],
      ['undefined, null, text, booleans', sent({ u: undefined, z: null, s: 's', t: true, f: false }, { note: undefined })],
      ['a null prototype', sent(nullProto)],
      ['a Date in objects with a null prototype', bare(sent({ d: new Date(0) })) as WorkflowEvent],
      ['a function', sent({ x: 1 }, { callback: () => 1 })],
      ['a __proto__ key', sent(JSON.parse('{"__proto__": {"polluted": true}, "x": 1}'))],
    ];
    for (const [label, event] of cases) {
      const sink = new MemoryLedgerSink();
      const texts: string[] = [];
      const wf = new Workflow({ append: (entry, json) => (sink.append(entry), texts.push(json!)) });
      assert.ok(wf.dispatch(event), label);
      const expected = JSON.parse(JSON.stringify(event)) as WorkflowEvent;
      const stored = sink.entries[0]!.event;
      assert.deepStrictEqual(stored, expected, label);
      assert.deepStrictEqual(JSON.parse(texts[0]!), { seq: 1, event: expected }, label);
      assert.equal(Object.getPrototypeOf(stored), Object.prototype, label);
      assert.equal(Object.getPrototypeOf((stored as unknown as { args: object }).args), Object.prototype, label);
      const args = (stored as unknown as { args: object }).args;
      assert.deepEqual(
        Object.getOwnPropertyDescriptors(args),
        Object.getOwnPropertyDescriptors((expected as unknown as { args: object }).args),
        label,
      );
      assert.equal(({} as Record<string, unknown>).polluted, undefined, label);
    }
  });

  test('an event that is not JSON data is refused and nothing is appended', () => {
    const sink = new MemoryLedgerSink();
    const wf = new Workflow(sink);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const bad: [string, unknown][] = [
      ['a cycle', sent(cyclic)],
      ['a bigint', sent({ n: 1n })],
      ['nothing as JSON', { ...(sent({}) as object), toJSON: () => undefined }],
    ];
    for (const [label, event] of bad) {
      assert.equal(
        wf.canApply(event as WorkflowEvent),
        'The event is not plain JSON data (a cycle or a bigint), so it cannot be recorded.',
        label,
      );
      assert.equal(wf.dispatch(event as WorkflowEvent), false, label);
    }
    assert.equal(sink.entries.length, 0);
    assert.equal(wf.lastSeq, 0);
  });
});

describe('replay never hides what a restore must see', () => {
  test('a plan still running at its last event is marked interrupted by the restore after it, alone or beside a finished parent', () => {
    const h = history();
    h.started('p1', [
      { tool: 't', args: {} },
      { tool: 'u', args: {} },
    ]);
    h.receive('done');
    h.ok({ type: 'rejected', planId: 'done' });
    h.started('solo');
    h.receive('z');
    h.raw({ type: 'restored' });
    const s = sameAsFold(h.sink.entries);
    assert.equal(getPlan(s, 'solo')?.steps[0]?.state, 'unknown', 'a sent step is never shown as not started, nor as running');
    assert.equal(getPlan(s, 'p1')?.steps[0]?.state, 'unknown');
  });

  test('a plan finished early in its family is not set aside while the family goes on', () => {
    const h = history();
    h.receive('p1');
    h.ok({ type: 'rejected', planId: 'p1' });
    h.receive('r1', [{ tool: 't', args: {} }], { replacesId: 'p1' });
    h.resolve('r1');
    h.approve('r1');
    h.run('r1', 0);
    const s = sameAsFold(h.sink.entries);
    assert.equal(getPlan(s, 'r1')?.phase, 'finished');
    assert.equal(getPlan(s, 'r1')?.steps[0]?.state, 'ok', 'the finished step of a settled plan is kept');
  });

  test('a running replacement keeps the finished plan it replaced live, and the restore reaches it', () => {
    const h = history();
    h.receive('p1');
    h.ok({ type: 'rejected', planId: 'p1' });
    h.receive('r1', [{ tool: 't', args: {} }], { replacesId: 'p1' });
    h.resolve('r1');
    h.approve('r1');
    h.ok({ type: 'stepStarted', planId: 'r1', step: 0, server: 'a', crossServer: false });
    h.receive('z');
    h.raw({ type: 'restored' });
    const s = sameAsFold(h.sink.entries);
    assert.equal(getPlan(s, 'r1')?.steps[0]?.state, 'unknown');
  });

  test('the plans put back look exactly like the fold’s, property by property', () => {
    const h = history();
    for (const id of ['a', 'b', 'c']) h.receive(id);
    h.ok({ type: 'rejected', planId: 'a' });
    h.ok({ type: 'rejected', planId: 'c' });
    const s = sameAsFold(h.sink.entries);
    assert.deepStrictEqual(Object.getOwnPropertyDescriptors(s.plans), Object.getOwnPropertyDescriptors(fold(h.sink.entries).plans));
  });
});

describe('the store', () => {
  const call = (callId: string, extra: Record<string, unknown> = {}) =>
    ({
      type: 'callSent',
      at: 1,
      callId,
      server: 'a',
      tool: 't',
      entrance: 'call',
      decision: { by: 'user', what: 'x' },
      args: {},
      policy: { decision: 'allow', ruleId: 'r1' },
      ...extra,
    }) as unknown as WorkflowEvent;

  test('a loaded ledger rebuilds the list of single calls and the uses of each rule', () => {
    const entries: LedgerEntry[] = [
      { seq: 1, event: call('c1') },
      { seq: 2, event: { type: 'callEnded', at: 2, callId: 'c1', outcome: 'ok', durationMs: 3 } as WorkflowEvent },
      { seq: 7, event: call('c2') },
    ];
    const wf = new Workflow(new MemoryLedgerSink(), entries);
    assert.deepEqual(
      wf.recentCalls.list().map((c) => [c.callId, c.outcome]),
      [
        ['c2', undefined],
        ['c1', 'ok'],
      ],
    );
    assert.equal(wf.ruleUses.get('r1')?.count, 2);
    assert.equal(wf.lastSeq, 7, 'nothing was interrupted, so no restore was appended');
  });

  test('a call record is announced to call listeners only, when the list changed; state listeners hear of plan events', () => {
    const wf = new Workflow(new MemoryLedgerSink());
    const changes: string[] = [];
    const calls: string[] = [];
    wf.onDidChange((c) => changes.push(`${c.event.type}#${c.seq}`));
    wf.onDidRecordCall((e) => calls.push(`${e.type}:${e.callId}`));
    const before = wf.state;
    assert.ok(wf.dispatch(call('c1')));
    assert.ok(wf.dispatch({ type: 'callEnded', at: 2, callId: 'c1', outcome: 'ok', durationMs: 1 } as WorkflowEvent));
    assert.ok(wf.dispatch({ type: 'callEnded', at: 3, callId: 'unknown', outcome: 'ok', durationMs: 1 } as WorkflowEvent));
    assert.ok(wf.dispatch(call('step', { decision: { by: 'approval', what: 'plan' } })));
    assert.equal(wf.state, before, 'a call record changes no state');
    assert.deepEqual(calls, ['callSent:c1', 'callEnded:c1']);
    assert.deepEqual(changes, []);
    assert.equal(wf.lastSeq, 4);
    assert.equal(wf.ruleUses.get('r1')?.count, 2);
  });

  test('compaction runs once per outermost dispatch, after every listener heard every event (those listeners dispatched too)', () => {
    const heard: number[] = [];
    const compactedAfter: number[][] = [];
    const sink = new MemoryLedgerSink() as MemoryLedgerSink & { compact(): undefined };
    sink.compact = () => {
      compactedAfter.push([...heard]);
      return undefined;
    };
    const h = history(sink);
    h.wf.onDidChange((c) => {
      heard.push(c.seq);
      if (c.event.type === 'planReceived' && c.event.planId === 'p') h.ok({ type: 'rejected', planId: 'p' });
    });
    h.receive('p');
    assert.deepEqual(compactedAfter, [[1, 2]]);
  });

  test('the state a compacting sink returns becomes the state', () => {
    const sink = new MemoryLedgerSink() as MemoryLedgerSink & { compact(): WorkflowState | undefined };
    const replacement: { state?: WorkflowState } = {};
    sink.compact = () => replacement.state;
    const h = history(sink);
    h.receive('p');
    const kept = h.wf.state;
    h.receive('q');
    replacement.state = kept;
    h.receive('r');
    assert.equal(h.wf.state, kept);
  });

  test('an unrecorded event settles the window without touching the ledger; a refused one changes nothing', () => {
    const h = history();
    h.started('p');
    const changes: [string, number][] = [];
    h.wf.onDidChange((c) => changes.push([c.event.type, c.seq]));
    const entries = h.sink.entries.length;
    const seq = h.wf.lastSeq;
    assert.equal(h.wf.applyUnrecorded({ type: 'stepFailed', at: 9, planId: 'p', step: 5, error: 'x' } as WorkflowEvent), false);
    assert.equal(h.wf.applyUnrecorded({ type: 'stepFailed', at: 9, planId: 'p', step: 0, error: 'ledger failed' } as WorkflowEvent), true);
    assert.equal(getPlan(h.wf.state, 'p')?.steps[0]?.state, 'failed');
    assert.deepEqual(changes, [['stepFailed', seq]]);
    assert.ok(h.wf.applyUnrecorded(call('c9')));
    assert.deepEqual(changes, [['stepFailed', seq]], 'a call record is not announced as a change');
    assert.equal(h.sink.entries.length, entries);
    assert.equal(h.wf.lastSeq, seq);
  });

  test('after dispose no listener hears anything', () => {
    const h = history();
    let heard = 0;
    h.wf.onDidChange(() => heard++);
    h.wf.onDidRecordCall(() => heard++);
    h.wf.dispose();
    h.receive('p');
    assert.ok(h.wf.dispatch(call('c1')));
    assert.equal(heard, 0);
  });
});

describe('compaction keeps what it must', () => {
  const FORM = {
    schema: {
      model: 'Contact',
      title: 'Create Contact',
      fieldsets: [{ key: 'd', title: 'Details', description: '', required: true, groups: ['default'] }],
      fields: [{ name: 'name', label: 'Name', group: 'default', required: true, type: 'text' }],
    },
    defaults: {},
    mode: 'create',
    submitMode: 'collect',
  };
  const formOrigin = { server: 'demo', tool: 'new_model_app', args: {}, entrance: 'manual' };
  const single = (callId: string, extra: Record<string, unknown> = {}) => ({
    type: 'callSent',
    callId,
    server: 'a',
    tool: 't',
    entrance: 'call',
    decision: { by: 'user', what: 'x' },
    args: {},
    ...extra,
  });
  const ids = (entries: readonly LedgerEntry[]) =>
    entries.map(({ event }) => {
      const e = event as unknown as Record<string, string>;
      return `${e.type}:${e.callId ?? e.planId ?? e.submissionId ?? ''}`;
    });
  const ONE = (n: number) => Array.from({ length: n }, () => 1);

  test('only settled history goes: not a call in flight, a plan waiting, a plan whose step call is in flight, or an open submission', () => {
    const h = history();
    h.receive('p1');
    h.ok({ type: 'rejected', planId: 'p1' });
    h.ok(single('inflight'));
    h.ok(single('ended'));
    h.ok({ type: 'callEnded', callId: 'ended', outcome: 'ok', durationMs: 1 });
    h.ok({ type: 'resourceRead', callId: 'read', server: 'a', uri: 'file:///x', outcome: 'ok' });
    h.receive('waiting');
    h.started('p3');
    h.ok(single('stepcall', { planId: 'p3', step: 0, decision: { by: 'approval', what: 'p3' } }));
    h.ok({ type: 'stepSucceeded', planId: 'p3', step: 0, summary: 'ok' });
    h.ok({ type: 'formReceived', submissionId: 'done', origin: formOrigin, form: FORM });
    h.ok({ type: 'formDiscarded', submissionId: 'done' });
    h.ok({ type: 'formReceived', submissionId: 'open', origin: formOrigin, form: FORM });
    h.raw({ type: 'formDiscarded', submissionId: 'ghost' }); // refused when live: names no submission
    const entries = h.sink.entries;
    assert.equal(getPlan(h.wf.state, 'p3')?.phase, 'finished');
    const c = compactEntries(entries, ONE(entries.length), { now: 1e9, maxAgeMs: 1, keepRecentMs: 0 })!;
    assert.ok(c);
    assert.deepEqual(ids(c.kept), [
      'callSent:inflight',
      'planReceived:waiting',
      'planReceived:p3',
      'resolved:p3',
      'approved:p3',
      'stepStarted:p3',
      'callSent:stepcall',
      'stepSucceeded:p3',
      'formReceived:open',
    ]);
    assert.deepEqual(c.droppedPlans, ['p1']);
    assert.deepEqual(c.droppedSubmissions, ['done', 'ghost']);
    assert.equal(c.droppedEntries, entries.length - c.kept.length);
    assert.equal(c.keptBytes, c.kept.length);
    assert.deepStrictEqual(c.state, replay(c.kept));
    assert.deepEqual(getPlan(c.state, 'p3'), getPlan(h.wf.state, 'p3'));
  });

  test('a restore goes with the plans it touched, and stays while it touched a kept one', () => {
    const h = history();
    h.receive('old');
    h.ok({ type: 'rejected', planId: 'old' });
    h.started('p1');
    h.raw({ type: 'restored' });
    const interrupted = [...h.sink.entries];
    h.raw({ type: 'stopped', planId: 'p1' });
    h.raw({
      type: 'planReceived',
      planId: 'live',
      origin: { server: 'a', tool: 'plan', args: {} },
      plan: { status: 'ok', next_actions: [] },
    });
    const policy = { now: 1e9, maxAgeMs: 1, keepRecentMs: 0 };
    const whileBlocked = compactEntries(interrupted, ONE(interrupted.length), policy)!;
    assert.deepEqual(ids(whileBlocked.kept), ['planReceived:p1', 'resolved:p1', 'approved:p1', 'stepStarted:p1', 'restored:']);
    assert.deepStrictEqual(whileBlocked.state, fold(whileBlocked.kept));
    assert.equal(getPlan(whileBlocked.state, 'p1')?.steps[0]?.state, 'unknown');
    const entries = h.sink.entries;
    assert.equal(getPlan(fold(entries), 'p1')?.phase, 'finished');
    const settled = compactEntries(entries, ONE(entries.length), policy)!;
    assert.deepEqual(ids(settled.kept), ['planReceived:live']);
    assert.deepEqual(settled.droppedPlans, ['old', 'p1']);
  });

  test('progress: only the last of a run of the same step is kept', () => {
    const h = history();
    h.started('p', [
      { tool: 't', args: {} },
      { tool: 'u', args: {} },
    ]);
    for (const progress of [1, 2, 3]) h.ok({ type: 'stepProgress', planId: 'p', step: 0, progress: { progress } });
    h.ok({ type: 'stepSucceeded', planId: 'p', step: 0, summary: 'x' });
    h.ok({ type: 'stepStarted', planId: 'p', step: 1, server: 'a', crossServer: false });
    h.ok({ type: 'stepProgress', planId: 'p', step: 1, progress: { progress: 1 } });
    h.ok({ type: 'stepProgress', planId: 'p', step: 1, progress: { progress: 2 } });
    const entries = h.sink.entries;
    const c = compactEntries(entries, ONE(entries.length), { now: 0 })!;
    assert.deepEqual(
      c.kept.filter((e) => e.event.type === 'stepProgress').map((e) => e.seq),
      [entries[6]!.seq, entries[10]!.seq],
    );
    assert.equal(c.droppedEntries, 3);
    assert.deepEqual(c.droppedPlans, []);
    assert.deepStrictEqual(c.state, fold(entries));
  });

  test('a settled plan linked to an unsettled one stays: the plan it replaced, and its finished child', () => {
    const h = history();
    h.receive('x');
    h.ok({ type: 'rejected', planId: 'x' });
    h.receive('p1');
    h.ok({ type: 'rejected', planId: 'p1' });
    h.receive('r1', [{ tool: 't', args: {} }], { replacesId: 'p1' });
    h.started('parent', [
      { tool: 't', args: {} },
      { tool: 'u', args: {} },
    ]);
    h.receive('child', [{ tool: 't', args: {} }], { parentId: 'parent', parentStep: 0 });
    h.ok({ type: 'rejected', planId: 'child' });
    const entries = h.sink.entries;
    assert.equal(getPlan(h.wf.state, 'child')?.phase, 'finished');
    const c = compactEntries(entries, ONE(entries.length), { now: 1e9, maxAgeMs: 1, keepRecentMs: 0 })!;
    assert.deepEqual(c.droppedPlans, ['x']);
    assert.deepEqual(c.state.order, ['p1', 'r1', 'parent', 'child']);
    assert.deepStrictEqual(c.state, replay(c.kept));
  });

  test('ages: kept while younger than keepRecentMs (dropped at exactly it), and past maxAgeMs (not at exactly it)', () => {
    const h = history();
    h.receive('a'); // at 1
    h.ok({ type: 'rejected', planId: 'a' }); // at 2
    h.receive('b'); // at 3
    h.ok({ type: 'rejected', planId: 'b' }); // at 4
    h.receive('live'); // at 5
    const entries = h.sink.entries;
    const dropped = (policy: { now: number; maxAgeMs?: number; keepRecentMs?: number; maxBytes?: number }) =>
      compactEntries(entries, ONE(entries.length), policy)?.droppedPlans ?? [];
    // a's last event is 98 ms old at 100, b's 96.
    assert.deepEqual(dropped({ now: 100, maxAgeMs: 1, keepRecentMs: 96 }), ['a', 'b']);
    assert.deepEqual(dropped({ now: 100, maxAgeMs: 1, keepRecentMs: 97 }), ['a']);
    assert.deepEqual(dropped({ now: 100, maxAgeMs: 1, keepRecentMs: 99 }), []);
    assert.deepEqual(dropped({ now: 100, maxAgeMs: 96, keepRecentMs: 0 }), ['a']);
    assert.deepEqual(dropped({ now: 100, maxAgeMs: 98, keepRecentMs: 0 }), []);
    assert.equal(compactEntries(entries, ONE(entries.length), { now: 100, keepRecentMs: 0 }), undefined, 'no limit: nothing goes');
    assert.deepEqual(dropped({ now: 100, maxAgeMs: 0, keepRecentMs: 0 }), [], 'a zero age is no limit');
    assert.deepEqual(dropped({ now: 1e9 }), [], 'the default keeps ten minutes… of a clock at 1e9: old enough, but no limit set');
    assert.deepEqual(dropped({ now: 1e9, maxAgeMs: 1 }), ['a', 'b']);
    assert.deepEqual(dropped({ now: 4 + 10 * 60_000 - 1, maxAgeMs: 1 }), ['a']);
  });

  test('size: oldest settled families first, down to COMPACT_TO of the limit, after what age already dropped', () => {
    const h = history();
    for (const id of ['a', 'b', 'c', 'd']) {
      h.receive(id);
      h.ok({ type: 'rejected', planId: id });
    }
    h.receive('live');
    const entries = h.sink.entries; // 9 entries, 10 bytes each: 90
    const bytes = entries.map(() => 10);
    const dropped = (maxBytes: number, maxAgeMs?: number) =>
      compactEntries(entries, bytes, { now: 100, keepRecentMs: 0, maxBytes, ...(maxAgeMs ? { maxAgeMs } : {}) })?.droppedPlans ?? [];
    // Families a, b, c, d (20 bytes each, last events 2, 4, 6, 8 ms: 98, 96, 94, 92 ms old) and live (10): 90 bytes.
    assert.deepEqual(dropped(90), [], 'at the limit nothing goes');
    assert.deepEqual(dropped(89), ['a'], 'over it: down to 71.2 (70)');
    assert.deepEqual(dropped(87.5), ['a'], '70 is exactly COMPACT_TO of 87.5: enough');
    assert.deepEqual(dropped(87.4), ['a', 'b']);
    assert.deepEqual(dropped(62.5), ['a', 'b'], 'down to exactly 50');
    assert.deepEqual(dropped(80, 96), ['a'], 'age dropped a, and the 70 bytes left are under the limit');
    assert.deepEqual(dropped(60, 96), ['a', 'b', 'c'], 'age dropped a; then b and c to get under 48');
  });

  test('size: the family whose last event is oldest goes first, whenever it began', () => {
    const h = history();
    h.receive('a');
    h.receive('b');
    h.ok({ type: 'rejected', planId: 'b' });
    h.receive('c');
    h.ok({ type: 'rejected', planId: 'c' });
    h.ok({ type: 'rejected', planId: 'a' });
    h.receive('live');
    const entries = h.sink.entries; // 70 bytes; last events: b 3, c 5, a 6
    const dropped = (maxBytes: number) =>
      compactEntries(
        entries,
        entries.map(() => 10),
        { now: 100, keepRecentMs: 0, maxBytes },
      )?.droppedPlans ?? [];
    assert.deepEqual(dropped(69), ['b']);
    assert.deepEqual(dropped(40), ['b', 'c']);
  });
});
