import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalHash } from '../../src/core/plan/approval';
import { MemoryLedgerSink, parseLedgerEntry, replay, Workflow, type LedgerEntry, type LedgerSink } from '../../src/core/workflow/ledger';
import type { ActionCall } from '../../src/core/plan/plan';
import { getPlan, INTERRUPTED_STEP_ERROR, type WorkflowEvent } from '../../src/core/workflow/workflow';
import { FileLedgerSink, loadLedger, openFileLedger } from '../../src/node/fileLedger';
import { resolvePlan } from '../../src/core/engine/door';
import type { ToolInvoker } from '../../src/core/engine/invoker';
import { runPlan } from '../../src/core/engine/runner';

let clock = 0;
const at = () => ++clock;
const ORIGIN = { server: 'alpha', tool: 'plan_it', args: {}, entrance: 'manual' as const };
const received = (planId: string, tools: string[]): WorkflowEvent => ({
  type: 'planReceived',
  at: at(),
  planId,
  origin: ORIGIN,
  plan: {
    kind: 'orchestrated_plan',
    version: '1',
    status: 'ok',
    instruction: 'Do it',
    next_actions: tools.map((tool): ActionCall => ({ tool, args: { tool } })),
  },
});

/** Receives, approves and starts step 0 of a plan (what a run looks like in the ledger just before a crash). */
function startRun(workflow: Workflow, planId = 'p1', tools = ['a', 'b']): void {
  assert.ok(workflow.dispatch(received(planId, tools)));
  assert.ok(workflow.dispatch({ type: 'approved', at: at(), planId, approvalHash: approvalHash(getPlan(workflow.state, planId)!) }));
  assert.ok(workflow.dispatch({ type: 'stepStarted', at: at(), planId, step: 0, server: 'alpha', crossServer: false }));
}

describe('Workflow store', () => {
  it('appends an accepted event before listeners hear of it, and refused events not at all', () => {
    const sink = new MemoryLedgerSink();
    const workflow = new Workflow(sink);
    const seen: { type: string; onDisk: number; seq: number }[] = [];
    workflow.onDidChange(({ event, seq }) => seen.push({ type: event.type, onDisk: sink.entries.length, seq }));
    startRun(workflow);
    assert.deepEqual(seen, [
      { type: 'planReceived', onDisk: 1, seq: 1 },
      { type: 'approved', onDisk: 2, seq: 2 },
      { type: 'stepStarted', onDisk: 3, seq: 3 },
    ]);
    assert.equal(workflow.dispatch({ type: 'stepStarted', at: at(), planId: 'p1', step: 0, server: 'alpha', crossServer: false }), false);
    assert.equal(workflow.dispatch({ type: 'approved', at: at(), planId: 'p1', approvalHash: 'x' }), false);
    assert.equal(sink.entries.length, 3);
    assert.equal(seen.length, 3);
    assert.match(workflow.canApply({ type: 'stopped', at: at(), planId: 'p1' })!, /only while it is blocked/);
    assert.deepEqual(
      sink.entries.map((e) => e.seq),
      [1, 2, 3],
    );
  });

  it('replaying the ledger gives exactly the live state', () => {
    const sink = new MemoryLedgerSink();
    const workflow = new Workflow(sink);
    startRun(workflow);
    workflow.dispatch({ type: 'stepProgress', at: at(), planId: 'p1', step: 0, progress: { progress: 1, total: 2 } });
    workflow.dispatch({ type: 'stepSucceeded', at: at(), planId: 'p1', step: 0, summary: 'ok' });
    workflow.dispatch({ type: 'stepStarted', at: at(), planId: 'p1', step: 1, server: 'alpha', crossServer: false });
    workflow.dispatch({ type: 'stepFailed', at: at(), planId: 'p1', step: 1, error: 'boom' });
    workflow.dispatch(received('p2', ['x']));
    workflow.dispatch({ type: 'rejected', at: at(), planId: 'p2', reason: 'no' });
    assert.deepEqual(replay(sink.entries), workflow.state);
  });

  it('loading a ledger replays it and records `restored`: the running step is unknown, nothing will run again', () => {
    const sink = new MemoryLedgerSink();
    startRun(new Workflow(sink));
    const reloaded = new Workflow(sink, [...sink.entries], { now: () => 99 });
    const plan = getPlan(reloaded.state, 'p1')!;
    assert.equal(plan.phase, 'blocked');
    assert.equal(plan.steps[0].state, 'unknown');
    assert.equal(plan.steps[0].error, INTERRUPTED_STEP_ERROR);
    assert.deepEqual(sink.entries.at(-1), { seq: 4, event: { type: 'restored', at: 99 } });
    assert.equal(reloaded.lastSeq, 4);
    // A second reload has nothing left to restore and appends nothing.
    const again = new Workflow(sink, [...sink.entries]);
    assert.equal(sink.entries.length, 4);
    assert.deepEqual(again.state, reloaded.state);
  });

  it('events dispatched by a listener are delivered after the current one, in order', () => {
    const workflow = new Workflow(new MemoryLedgerSink());
    const heard: string[] = [];
    workflow.onDidChange(({ event }) => {
      heard.push(`a:${event.type}`);
      if (event.type === 'planReceived') workflow.dispatch({ type: 'rejected', at: at(), planId: 'p1' });
    });
    workflow.onDidChange(({ event, state }) => heard.push(`b:${event.type}:${getPlan(state, 'p1')?.phase}`));
    workflow.dispatch(received('p1', ['a']));
    assert.deepEqual(heard, ['a:planReceived', 'b:planReceived:awaiting_approval', 'a:rejected', 'b:rejected:finished']);
  });

  it('when the sink cannot write, the event is not applied and the error reaches the caller', () => {
    const failing: LedgerSink = {
      append: () => {
        throw new Error('ENOSPC: no space left on device');
      },
    };
    const workflow = new Workflow(failing);
    assert.throws(() => workflow.dispatch(received('p1', ['a'])), /ENOSPC/);
    assert.equal(getPlan(workflow.state, 'p1'), undefined);
    assert.equal(workflow.lastSeq, 0);
  });
});

describe('parseLedgerEntry', () => {
  it('accepts entries and names what is wrong with the others', () => {
    const good = { seq: 1, event: received('p1', ['a']) };
    assert.deepEqual(parseLedgerEntry(JSON.parse(JSON.stringify(good))), JSON.parse(JSON.stringify(good)));
    const cases: [unknown, RegExp][] = [
      [[], /not a JSON object/],
      [{ seq: 0, event: {} }, /seq is not a positive integer/],
      [{ seq: 1, event: { type: 'launchMissiles', at: 1 } }, /unknown type "launchMissiles"/],
      [
        { seq: 1, event: { type: 'stepStarted', at: 1, planId: 'p', step: 0, server: 'a' } },
        /stepStarted.crossServer is not true or false/,
      ],
      [{ seq: 1, event: { type: 'stepFailed', at: 1, planId: 'p', step: -1, error: 'x' } }, /stepFailed.step is not a step index/],
      [
        {
          seq: 1,
          event: { type: 'planReceived', at: 1, planId: 'p', origin: ORIGIN, plan: { status: 'ok', next_actions: [{ tool: 1 }] } },
        },
        /next_actions holds a step/,
      ],
      [{ seq: 1, event: { type: 'followUpAnswered', at: 1, planId: 'p', answer: 'sure' } }, /yes or no/],
      [{ seq: 1, event: { type: 'restored' } }, /restored.at is not a number/],
      [
        { seq: 1, event: { type: 'approved', at: 1, planId: 'p', approvalHash: 'h', note: { text: 'x' } } },
        /approved.note is not a string/,
      ],
    ];
    for (const [value, pattern] of cases) {
      const r = parseLedgerEntry(value);
      assert.equal(typeof r, 'string', JSON.stringify(value));
      assert.match(r as string, pattern);
    }
  });
});

describe('file ledger', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'plangate-ledger-'));
    file = join(dir, 'sub', 'ledger.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one JSON line per event (creating the folder) and reads them back', () => {
    const opened = openFileLedger(file);
    startRun(opened.workflow);
    opened.dispose();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.deepEqual(JSON.parse(lines[2]).event.type, 'stepStarted');
    const loaded = loadLedger(file);
    assert.equal(loaded.entries.length, 3);
    assert.deepEqual(loaded.warnings, []);
    assert.equal(loaded.tornTail, false);
  });

  it('a missing file is an empty ledger', () => {
    assert.deepEqual(loadLedger(join(dir, 'nope.jsonl')), { entries: [], warnings: [], tornTail: false });
  });

  it('reopening after a crash mid-step: the step is unknown, the plan blocked, the `restored` entry is on disk', () => {
    const first = openFileLedger(file);
    startRun(first.workflow);
    first.dispose(); // the process "dies" here: no stepSucceeded/stepFailed was written
    const second = openFileLedger(file, { now: () => 5 });
    const plan = getPlan(second.workflow.state, 'p1')!;
    assert.equal(plan.steps[0].state, 'unknown');
    assert.deepEqual(
      plan.steps.map((s) => s.state),
      ['unknown', 'pending'],
    );
    assert.equal(plan.phase, 'blocked');
    second.dispose();
    const entries = loadLedger(file).entries;
    assert.deepEqual(entries.at(-1), { seq: 4, event: { type: 'restored', at: 5 } });
    assert.deepEqual(replay(entries), second.workflow.state);
  });

  it('a torn last line is reported, cut off on reopen, and the next entry starts on a line of its own', () => {
    const first = openFileLedger(file);
    startRun(first.workflow);
    first.dispose();
    appendFileSync(file, '{"seq":4,"event":{"type":"stepSucc');
    const loaded = loadLedger(file);
    assert.equal(loaded.tornTail, true);
    assert.equal(loaded.entries.length, 3);
    assert.match(loaded.warnings[0], /line 4 was cut short/);
    const second = openFileLedger(file);
    assert.equal(second.tornTail, true);
    second.dispose();
    const after = loadLedger(file);
    assert.equal(after.tornTail, false);
    assert.deepEqual(after.warnings, []);
    assert.equal(after.entries.at(-1)!.event.type, 'restored');
  });

  it('a complete last line missing only its newline is kept', () => {
    const entry: LedgerEntry = { seq: 1, event: received('p1', ['a']) };
    writeFileSync(file.replace('sub/', ''), JSON.stringify(entry));
    const path = file.replace('sub/', '');
    const sink = new FileLedgerSink(path);
    sink.append({ seq: 2, event: { type: 'rejected', at: at(), planId: 'p1' } });
    sink.dispose();
    const loaded = loadLedger(path);
    assert.deepEqual(
      loaded.entries.map((e) => e.seq),
      [1, 2],
    );
    assert.deepEqual(loaded.warnings, []);
  });

  it('skips unparsable and invalid lines in the middle with a warning naming the line', () => {
    const good = (seq: number, event: WorkflowEvent) => JSON.stringify({ seq, event });
    writeFileSync(
      file.replace('sub/', ''),
      [
        good(1, received('p1', ['a'])),
        'not json at all',
        JSON.stringify({ seq: 3, event: { type: 'teleport', at: 1 } }),
        good(4, { type: 'rejected', at: 5, planId: 'p1' }),
        '',
      ].join('\n'),
    );
    const loaded = loadLedger(file.replace('sub/', ''));
    assert.deepEqual(
      loaded.entries.map((e) => e.seq),
      [1, 4],
    );
    assert.equal(loaded.warnings.length, 2);
    assert.match(loaded.warnings[0], /line 2 is not JSON/);
    assert.match(loaded.warnings[1], /line 3 is not a ledger entry \(event: unknown type "teleport"\)/);
    assert.equal(loaded.tornTail, false);
    assert.equal(getPlan(replay(loaded.entries), 'p1')!.outcome, 'rejected');
  });

  it('a closed sink refuses to append (so nothing runs unrecorded)', () => {
    const opened = openFileLedger(file);
    opened.dispose();
    assert.throws(() => opened.workflow.dispatch(received('p1', ['a'])), /ledger .* is closed/);
    assert.equal(getPlan(opened.workflow.state, 'p1'), undefined);
  });
});

describe('Workflow records data, not references', () => {
  it("later changes to the caller's objects do not reach the state; non-JSON events are refused", () => {
    const sink = new MemoryLedgerSink();
    const workflow = new Workflow(sink);
    const args = { path: 'a.txt' };
    const event = received('p1', ['write_file']);
    (event as { plan: { next_actions: ActionCall[] } }).plan.next_actions[0].args = args;
    (event as { plan: { follow_up?: string } }).plan.follow_up = undefined;
    workflow.dispatch(event);
    args.path = '/etc/passwd';
    assert.deepEqual(getPlan(workflow.state, 'p1')!.steps[0].call.args, { path: 'a.txt' });
    assert.deepEqual(replay(JSON.parse(JSON.stringify(sink.entries)) as LedgerEntry[]), workflow.state);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const bad = { type: 'argsEdited', at: at(), planId: 'p1', step: 0, args: cyclic } as WorkflowEvent;
    assert.match(workflow.canApply(bad)!, /not plain JSON data/);
    assert.equal(workflow.dispatch(bad), false);
    assert.equal(sink.entries.length, 1);
  });
});

describe('Workflow records each event as its JSON', () => {
  it('what is stored and what the sink is given as text are exactly the JSON round trip of the event, whatever it holds', () => {
    const texts: string[] = [];
    const sink = new MemoryLedgerSink();
    const workflow = new Workflow({
      append: (entry, json) => {
        sink.append(entry);
        texts.push(json ?? '');
      },
    });
    const withProto = JSON.parse('{"__proto__": {"polluted": true}, "plain": 1}') as Record<string, unknown>;
    const tricky: Record<string, unknown>[] = [
      { flat: 'x', n: 1.5, yes: true, nothing: null, gone: undefined },
      { negativeZero: -0, notANumber: Number.NaN, infinite: Infinity },
      { nested: { deeper: { deepest: { a: 1 } } }, list: [1, undefined, () => 1] },
      { when: new Date(0), fn: () => 1, sym: Symbol('s'), '2': 'integer key', b: 'after' },
      withProto,
      Object.assign(Object.create(null) as Record<string, unknown>, { bare: 'no prototype' }),
      { toJSON: () => ({ replaced: true }) },
    ];
    tricky.forEach((args, i) => {
      const event = {
        type: 'callSent',
        at: at(),
        callId: `c${i}`,
        server: 'alpha',
        tool: 'echo',
        entrance: 'call',
        decision: { by: 'user', what: 'test', extra: undefined },
        args,
      } as WorkflowEvent;
      assert.ok(workflow.dispatch(event), `event ${i} was refused`);
      const stored = sink.entries[i]!;
      const expected = JSON.parse(JSON.stringify({ seq: i + 1, event })) as unknown;
      assert.deepEqual(stored, expected, `event ${i} is not stored as its JSON`);
      assert.deepEqual(JSON.parse(texts[i]!), expected, `event ${i}'s text is not its JSON`);
      assert.equal(Object.getPrototypeOf(stored.event), Object.prototype);
    });
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'a "__proto__" key stays data');
    assert.deepEqual(Object.keys((sink.entries[4]!.event as { args: object }).args), ['__proto__', 'plain']);
  });
});

describe('file ledger: what is on disk when a call leaves', () => {
  it("each step's start and its call record are in the file before the call is sent; the outcome follows after", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-ledger-order-'));
    try {
      const file = join(dir, 'ledger.jsonl');
      const opened = openFileLedger(file);
      const onDisk: string[][] = [];
      const trail = () =>
        loadLedger(file).entries.map(({ event }) => `${event.type}${'step' in event && event.step !== undefined ? `#${event.step}` : ''}`);
      const invoker: ToolInvoker = {
        catalog: async () => [{ server: 'alpha', tools: ['a', 'b'] }],
        callTool: async () => {
          onDisk.push(trail());
          return { content: [{ type: 'text', text: 'done' }] };
        },
      };
      const workflow = opened.workflow;
      assert.ok(workflow.dispatch(received('p1', ['a', 'b'])));
      assert.ok(await resolvePlan(workflow, invoker, 'p1', { allowCrossServer: true }));
      assert.ok(
        workflow.dispatch({ type: 'approved', at: at(), planId: 'p1', approvalHash: approvalHash(getPlan(workflow.state, 'p1')!) }),
      );
      const done = await runPlan(workflow, 'p1', {
        invoker,
        classify: () => ({ kind: 'plain' }),
        host: { confirmStep: async () => true, askUser: async () => undefined, approveNested: async () => false },
      });
      assert.equal(done.outcome, 'completed');
      assert.deepEqual(onDisk[0]!.slice(-2), ['stepStarted#0', 'callSent#0']);
      assert.deepEqual(onDisk[1]!.slice(-4), ['callEnded', 'stepSucceeded#0', 'stepStarted#1', 'callSent#1']);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(trail().slice(-2), ['callEnded', 'stepSucceeded#1'], 'what had no partner is written by the end of the turn');
      opened.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
