// The ledger stays bounded and always loads: settled history is dropped past the user's size and age limits (never a
// plan that is pending, running, blocked or waiting for its follow-up, nor anything linked to one), compaction is a
// write-fsync-rename, the file is read line by line in chunks (a ledger past V8's string limit loads), and a plan is
// stored once however many events follow it.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalHash } from '../../src/core/plan/approval';
import { compactEntries, MemoryLedgerSink, replay, Workflow, type LedgerEntry } from '../../src/core/workflow/ledger';
import { EMPTY_WORKFLOW, reduce } from '../../src/core/workflow/workflow';
import type { ActionCall } from '../../src/core/plan/plan';
import { getPlan, type PlanPhase, type WorkflowEvent, type WorkflowState } from '../../src/core/workflow/workflow';
import { loadLedger, openFileLedger } from '../../src/node/fileLedger';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.UTC(2026, 0, 1);
const ORIGIN = { server: 'alpha', tool: 'plan_it', args: {}, entrance: 'manual' as const };

/** Builds a ledger with a clock the test moves (`at`), through the real Workflow so every entry is one it accepted. */
class History {
  at = NOW;
  private readonly memory = new MemoryLedgerSink();
  readonly workflow: Workflow;

  /** Records into memory, or through `workflow` (then {@link entries} stays empty). */
  constructor(workflow?: Workflow) {
    this.workflow = workflow ?? new Workflow(this.memory);
  }

  receive(
    planId: string,
    opts: {
      tools?: string[];
      payload?: string;
      bulk?: string;
      followUp?: string;
      status?: 'ok' | 'error';
      replacesId?: string;
      parentId?: string;
      parentStep?: number;
    } = {},
  ): void {
    const next_actions = (opts.tools ?? ['a']).map((tool, i): ActionCall => ({
      tool,
      args: { tool, ...(i === 0 && opts.payload !== undefined && { content: opts.payload }) },
    }));
    const event: WorkflowEvent = {
      type: 'planReceived',
      at: this.at,
      planId,
      origin: opts.bulk === undefined ? ORIGIN : { ...ORIGIN, args: { bulk: opts.bulk } },
      plan: {
        kind: 'orchestrated_plan',
        version: '1',
        status: opts.status ?? 'ok',
        instruction: `Do ${planId}`,
        next_actions,
        ...(opts.followUp && { follow_up: opts.followUp }),
      },
      ...(opts.replacesId && { replacesId: opts.replacesId }),
      ...(opts.parentId && { parentId: opts.parentId, parentStep: opts.parentStep ?? 0 }),
    };
    this.ok(event);
  }
  approve(planId: string): void {
    this.ok({ type: 'approved', at: this.at, planId, approvalHash: approvalHash(getPlan(this.workflow.state, planId)!) });
  }
  start(planId: string, step = 0): void {
    this.ok({ type: 'stepStarted', at: this.at, planId, step, server: 'alpha', crossServer: false });
  }
  succeed(planId: string, step = 0, childPlanId?: string): void {
    this.ok({ type: 'stepSucceeded', at: this.at, planId, step, summary: 'ok', ...(childPlanId && { childPlanId }) });
  }
  /** A one-step plan run to the end (completed, or waiting for its follow-up answer when it has one). */
  run(planId: string, opts: Parameters<History['receive']>[1] = {}): void {
    this.receive(planId, opts);
    this.approve(planId);
    this.start(planId);
    this.succeed(planId);
  }
  ok(event: WorkflowEvent): void {
    assert.ok(
      this.workflow.dispatch(event),
      `${event.type} ${(event as { planId?: string }).planId ?? ''}: ${this.workflow.canApply(event)}`,
    );
  }
  get entries(): LedgerEntry[] {
    return this.memory.entries;
  }
  write(file: string): void {
    writeFileSync(file, this.entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }
}

const phases = (state: WorkflowState) =>
  Object.fromEntries(state.order.map((id) => [id, getPlan(state, id)!.phase])) as Record<string, PlanPhase>;

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'plangate-ledger-bound-'));
  file = join(dir, 'ledger.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('ledger loading, line by line', () => {
  it('gives the same entries whatever the chunk size: lines and multi-byte characters split across chunks, a torn last line', () => {
    const h = new History();
    h.receive('p1', { payload: 'héllo wörld — 日本語 🚀🚀 ' });
    h.receive('p2', { tools: ['x', 'y'], payload: '🚀'.repeat(40) });
    h.ok({ type: 'rejected', at: h.at, planId: 'p2', reason: 'ñope' });
    h.write(file);
    writeFileSync(file, `${readFileSync(file, 'utf8')}not json\n{"seq":9,"event":{"type":"rejec`, { flag: 'w' });
    const whole = loadLedger(file);
    assert.equal(whole.entries.length, 3);
    assert.equal(whole.tornTail, true);
    assert.equal(whole.warnings.length, 2);
    assert.match(whole.warnings[0]!, /line 4 is not JSON/);
    assert.match(whole.warnings[1]!, /line 5 was cut short/);
    assert.deepEqual(whole.entries, h.entries);
    for (const chunkBytes of [1, 2, 3, 4, 5, 7, 13, 64, 1000])
      assert.deepEqual(loadLedger(file, { chunkBytes }), whole, `chunkBytes ${chunkBytes}`);
  });

  it('skips a line longer than the line limit without holding it, and reads on', () => {
    const h = new History();
    h.receive('p1');
    h.receive('p2', { payload: 'x'.repeat(5000) });
    h.receive('p3');
    h.write(file);
    const loaded = loadLedger(file, { chunkBytes: 64, maxLineBytes: 1000 });
    assert.deepEqual(
      loaded.entries.map((e) => e.event.type === 'planReceived' && e.event.planId),
      ['p1', 'p3'],
    );
    assert.match(loaded.warnings[0]!, /line 2 is longer than/);
  });

  it('a ledger larger than the longest string V8 can build (512 MB) still loads, with its pending and interrupted plans', (t) => {
    const h = new History();
    h.receive('waiting');
    h.receive('running', { tools: ['a', 'b'] });
    h.approve('running');
    h.start('running');
    h.write(file);
    // 600 MB of zeros (a sparse file: cheap on disk), as a crash on some file systems leaves, then one more entry.
    const size = statSync(file).size;
    const fd = openSync(file, 'r+');
    const after = `\n${JSON.stringify({ seq: 10, event: { type: 'rejected', at: h.at, planId: 'waiting', reason: 'late' } })}\n`;
    writeSync(fd, after, size + 600 * 1024 * 1024);
    closeSync(fd);
    const stat = statSync(file);
    if (!(stat.blocks * 512 < stat.size / 4)) {
      t.skip('this file system does not keep sparse files sparse');
      return;
    }
    const opened = openFileLedger(file);
    try {
      const state = opened.workflow.state;
      assert.deepEqual(phases(state), { waiting: 'finished', running: 'blocked' });
      assert.equal(getPlan(state, 'waiting')!.rejectReason, 'late');
      assert.equal(getPlan(state, 'running')!.steps[0]!.state, 'unknown');
      assert.equal(opened.warnings.length, 1);
      assert.match(opened.warnings[0]!, new RegExp(`line ${h.entries.length + 1} is longer than 128 MB; it was skipped`));
    } finally {
      opened.dispose();
    }
  });
});

describe('ledger retention on open', () => {
  /**
   * Old history of every kind, and one settled plan from yesterday. Only `done` (finished long ago, linked to nothing
   * active) and `gone` (the same, with a nested plan and a re-plan of its own) may go.
   */
  function mixedHistory(): History {
    const h = new History();
    h.at = NOW - 200 * DAY;
    h.run('done');
    h.receive('pending');
    h.run('follow', { followUp: 'Deploy now?' });
    h.receive('blocked', { tools: ['a', 'b'] });
    h.approve('blocked');
    h.start('blocked');
    h.ok({ type: 'stepFailed', at: h.at, planId: 'blocked', step: 0, error: 'boom' });
    // A finished plan replaced by a plan still awaiting approval: dropping the old one would lose the new one.
    h.receive('asked', { status: 'error' });
    h.receive('answered', { replacesId: 'asked' });
    // A finished parent whose nested plan still waits for its follow-up answer.
    h.receive('parent', { tools: ['spawn'] });
    h.approve('parent');
    h.start('parent');
    h.receive('child', { parentId: 'parent', parentStep: 0, followUp: 'Also tests?' });
    h.approve('child');
    h.start('child');
    h.succeed('child');
    // Settled and old, with lineage of its own: goes as a whole.
    h.receive('gone', { tools: ['spawn'] });
    h.approve('gone');
    h.start('gone');
    h.receive('gone-child', { parentId: 'gone', parentStep: 0 });
    h.approve('gone-child');
    h.start('gone-child');
    h.succeed('gone-child');
    h.receive('gone-ask', { status: 'error' });
    h.receive('gone-replan', { replacesId: 'gone-ask' });
    h.ok({ type: 'rejected', at: h.at, planId: 'gone-replan' });
    h.at = NOW - DAY;
    h.run('recent');
    return h;
  }

  it('drops settled history past maxAgeDays, keeps every plan that is pending, running, blocked or waiting for its follow-up, and what they link to', () => {
    const h = mixedHistory();
    h.write(file);
    const before = replay(h.entries);
    assert.deepEqual(phases(before), {
      done: 'finished',
      pending: 'awaiting_approval',
      follow: 'follow_up',
      blocked: 'blocked',
      asked: 'finished',
      answered: 'awaiting_approval',
      parent: 'finished',
      child: 'follow_up',
      gone: 'finished',
      'gone-child': 'finished',
      'gone-ask': 'finished',
      'gone-replan': 'finished',
      recent: 'finished',
    });
    const opened = openFileLedger(file, { retention: { maxAgeDays: 90 }, now: () => NOW });
    try {
      const kept = ['pending', 'follow', 'blocked', 'asked', 'answered', 'parent', 'child', 'recent'];
      assert.deepEqual(opened.workflow.state.order, kept);
      for (const id of kept) assert.deepEqual(getPlan(opened.workflow.state, id), getPlan(before, id), id);
      assert.ok(opened.compaction, 'the compaction is reported');
      assert.equal(opened.compaction.droppedPlans, 5);
      assert.ok(opened.compaction.bytesAfter < opened.compaction.bytesBefore);
      assert.deepEqual(opened.warnings, []);
    } finally {
      opened.dispose();
    }
    // The file itself was rewritten: a plain reload sees the same, and no temporary file is left.
    const reread = loadLedger(file);
    assert.deepEqual(reread.warnings, []);
    assert.deepEqual(replay(reread.entries).order, ['pending', 'follow', 'blocked', 'asked', 'answered', 'parent', 'child', 'recent']);
    assert.equal(existsSync(`${file}.compacting`), false);
  });

  it('past maxSizeMB drops the oldest settled plans first, down to about four fifths of the limit, and never an unsettled one', () => {
    const h = new History();
    // Bulk in the planning call's arguments, which the approval does not hash (hashing is slow in tests).
    const bulk = 'z'.repeat(40 * 1024);
    h.at = NOW - 30 * DAY;
    h.receive('big-pending', { bulk: 'p'.repeat(300 * 1024) });
    for (let i = 0; i < 60; i++) {
      h.at += 60_000;
      h.run(`old-${i}`, { bulk });
    }
    h.write(file);
    assert.ok(statSync(file).size > 2.5 * 1024 * 1024);
    const opened = openFileLedger(file, { retention: { maxSizeMB: 1, maxAgeDays: 90 }, now: () => NOW });
    const order = opened.workflow.state.order;
    opened.dispose();
    const size = statSync(file).size;
    assert.ok(size <= 0.8 * 1024 * 1024, `${size} bytes after compaction`);
    assert.ok(size > 0.6 * 1024 * 1024, `${size} bytes: only what was needed went`);
    assert.equal(order[0], 'big-pending');
    // The newest settled plans are the ones kept, in order.
    const kept = order.slice(1);
    assert.ok(kept.length > 5);
    assert.deepEqual(
      kept,
      Array.from({ length: kept.length }, (_, i) => `old-${60 - kept.length + i}`),
    );
  });

  it('with no settings nothing is dropped; within the limits the file is not rewritten', () => {
    const h = new History();
    h.at = NOW - 400 * DAY;
    h.run('ancient');
    h.write(file);
    const bytes = readFileSync(file);
    openFileLedger(file, { now: () => NOW }).dispose();
    assert.deepEqual(readFileSync(file), bytes);
    openFileLedger(file, { retention: { maxSizeMB: 50, maxAgeDays: 500 }, now: () => NOW }).dispose();
    assert.deepEqual(readFileSync(file), bytes);
  });

  it('a compaction that died before its rename leaves the ledger whole; the stray file is removed', () => {
    const h = mixedHistory();
    h.write(file);
    writeFileSync(`${file}.compacting`, '{"seq":1,"event":{"type":"planRec');
    const opened = openFileLedger(file, { now: () => NOW });
    try {
      assert.deepEqual(opened.workflow.state.order, replay(h.entries).order);
      assert.deepEqual(opened.warnings, []);
    } finally {
      opened.dispose();
    }
    assert.equal(existsSync(`${file}.compacting`), false);
  });

  it('a ledger holding entries this version does not know is not compacted (they would be lost), and says so', () => {
    const h = mixedHistory();
    h.write(file);
    writeFileSync(file, `${readFileSync(file, 'utf8')}${JSON.stringify({ seq: 999, event: { type: 'fromTheFuture', at: NOW } })}\n`);
    const bytes = readFileSync(file);
    const opened = openFileLedger(file, { retention: { maxAgeDays: 90 }, now: () => NOW });
    opened.dispose();
    assert.ok(
      opened.warnings.some((w) => /does not know, so it is not compacted/.test(w)),
      opened.warnings.join('\n'),
    );
    assert.equal(opened.compaction, undefined);
    assert.ok(readFileSync(file).subarray(0, bytes.length).equals(bytes), 'nothing was dropped');
  });
});

describe('ledger retention while running', () => {
  it('compacts when the file grows past its size limit; the live state stays what a reload of the file gives', () => {
    const start = NOW;
    let clock = start;
    const opened = openFileLedger(file, { retention: { maxSizeMB: 1 }, now: () => clock });
    const w = opened.workflow;
    const origin = { ...ORIGIN, args: { bulk: 'y'.repeat(30 * 1024) } }; // not hashed by the approval: keeps the test fast
    const dispatch = (e: WorkflowEvent) => assert.ok(w.dispatch(e), `${e.type}: ${w.canApply(e)}`);
    dispatch({
      type: 'planReceived',
      at: clock,
      planId: 'keep-me',
      origin: ORIGIN,
      plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'wait', next_actions: [{ tool: 't', args: {} }] },
    });
    let largest = 0;
    for (let i = 0; i < 150; i++) {
      clock += 20 * 60_000; // each plan is older than the recent window by the time the next ones come
      const planId = `run-${i}`;
      dispatch({
        type: 'planReceived',
        at: clock,
        planId,
        origin,
        plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'go', next_actions: [{ tool: 't', args: {} }] },
      });
      dispatch({ type: 'approved', at: clock, planId, approvalHash: approvalHash(getPlan(w.state, planId)!) });
      dispatch({ type: 'stepStarted', at: clock, planId, step: 0, server: 'alpha', crossServer: false });
      for (let k = 0; k < 20; k++)
        dispatch({ type: 'stepProgress', at: clock, planId, step: 0, progress: { progress: k, total: 20, message: 'working' } });
      dispatch({ type: 'stepSucceeded', at: clock, planId, step: 0, summary: 'ok' });
      largest = Math.max(largest, statSync(file).size);
    }
    const live = w.state;
    opened.dispose();
    assert.ok(largest < 1.4 * 1024 * 1024, `the file never grew past ${largest} bytes`);
    assert.ok(opened.sink.lastCompaction, 'a compaction ran');
    const reloaded = loadLedger(file);
    assert.deepEqual(reloaded.warnings, []);
    assert.deepEqual(replay(reloaded.entries), live);
    assert.equal(live.order[0], 'keep-me');
    assert.equal(getPlan(live, 'keep-me')!.phase, 'awaiting_approval');
    assert.equal(live.order.at(-1), 'run-149');
    // Superseded progress went with the compaction: a kept plan's step shows its last progress only once.
    const progressOf = (id: string) => reloaded.entries.filter((e) => e.event.type === 'stepProgress' && e.event.planId === id).length;
    assert.equal(progressOf(String(live.order[1])), 1);
    assert.equal(getPlan(live, String(live.order[1]))!.steps[0]!.progress?.progress, 19);
  });
});

describe('a plan is stored once', () => {
  it('a 1 MB plan appears once in the ledger through approval, steps, a nested plan, a re-plan, a reload and a compaction', () => {
    const marker = 'BIG-PAYLOAD-';
    const payload = marker + 'q'.repeat(1024 * 1024);
    const first = openFileLedger(file, { now: () => NOW + 1 });
    const h = new History(first.workflow);
    h.at = NOW - 100 * DAY;
    h.receive('big', { tools: ['write', 'spawn', 'hang'], payload });
    h.approve('big');
    h.start('big', 0);
    h.ok({ type: 'stepProgress', at: h.at, planId: 'big', step: 0, progress: { progress: 1 } });
    h.succeed('big', 0);
    h.start('big', 1);
    h.receive('nested', { parentId: 'big', parentStep: 1 });
    h.approve('nested');
    h.start('nested');
    h.succeed('nested');
    h.start('big', 2);
    h.ok({ type: 'stepFailed', at: h.at, planId: 'big', step: 2, error: 'boom' });
    h.ok({ type: 'stopped', at: h.at, planId: 'big' });
    h.receive('ask', { status: 'error' });
    h.receive('replan', { replacesId: 'ask' });
    first.dispose();
    const count = () => readFileSync(file, 'utf8').split(marker).length - 1;
    assert.equal(count(), 1);
    assert.ok(statSync(file).size < payload.length + 20 * 1024, `${statSync(file).size} bytes for a ${payload.length}-byte plan`);
    // A reload and a compaction (which drops the old settled `big` family) never write it again.
    const second = openFileLedger(file, { now: () => NOW });
    second.dispose();
    assert.equal(count(), 1);
    const third = openFileLedger(file, { retention: { maxAgeDays: 1 }, now: () => NOW });
    third.dispose();
    assert.equal(count(), 0);
    assert.deepEqual(third.workflow.state.order, ['ask', 'replan']);
  });
});

describe('replay', () => {
  it('gives exactly the plain fold of the reducer, with finished plans set aside on the way (nesting, re-plans, restores)', () => {
    const h = new History();
    h.at = NOW - 10 * DAY;
    h.run('early');
    h.receive('interrupted', { tools: ['a', 'b'] });
    h.approve('interrupted');
    h.start('interrupted');
    // A reload: `restored` marks the running step unknown, then history goes on.
    const sink = new MemoryLedgerSink();
    h.entries.forEach((e) => sink.append(e));
    const reloaded = new Workflow(sink, [...h.entries], { now: () => NOW - 9 * DAY });
    const more = new History(reloaded);
    more.at = NOW - 9 * DAY;
    more.ok({ type: 'stepSkipped', at: more.at, planId: 'interrupted', step: 0 });
    more.run('later', { followUp: 'Again?' });
    more.ok({ type: 'followUpAnswered', at: more.at, planId: 'later', answer: 'no' });
    more.receive('p', { tools: ['spawn'] });
    more.approve('p');
    more.start('p');
    more.receive('c', { parentId: 'p', parentStep: 0 });
    more.ok({ type: 'cancelled', at: more.at, planId: 'p' });
    more.receive('ask', { status: 'error' });
    more.receive('re', { replacesId: 'ask' });
    const all = [...sink.entries];
    const entries = [...all, ...mixedHistoryEntries()];
    const fold = entries.reduce((state, entry) => reduce(state, entry.event), EMPTY_WORKFLOW);
    assert.deepEqual(replay(entries), fold);
    assert.deepEqual(replay(entries).order, fold.order);
    assert.deepEqual(replay(all), reloaded.state);
  });
});

/** A second, independent history (ids prefixed so they do not meet the first one's). */
function mixedHistoryEntries(): LedgerEntry[] {
  const h = new History();
  h.at = NOW - 5 * DAY;
  h.run('m-done');
  h.receive('m-blocked', { tools: ['a', 'b'] });
  h.approve('m-blocked');
  h.start('m-blocked');
  h.ok({ type: 'stepFailed', at: h.at, planId: 'm-blocked', step: 0, error: 'boom' });
  h.ok({ type: 'retryRequested', at: h.at, planId: 'm-blocked', step: 0 });
  h.run('m-after');
  return h.entries.map((e, i) => ({ ...e, seq: 1000 + i }));
}

describe('compactEntries', () => {
  it('drops nothing (returns undefined) when every old plan is still linked to an unsettled one', () => {
    const h = new History();
    h.at = NOW - 200 * DAY;
    h.receive('asked', { status: 'error' });
    h.receive('answered', { replacesId: 'asked' });
    assert.equal(
      compactEntries(
        h.entries,
        h.entries.map(() => 100),
        { maxAgeMs: DAY, maxBytes: 1, now: NOW },
      ),
      undefined,
    );
  });

  it('never drops what changed within the recent window, even past the size limit', () => {
    const h = new History();
    h.run('a');
    h.run('b');
    assert.equal(
      compactEntries(
        h.entries,
        h.entries.map(() => 1000),
        { maxBytes: 10, now: NOW + 60_000 },
      ),
      undefined,
    );
    const later = compactEntries(
      h.entries,
      h.entries.map(() => 1000),
      { maxBytes: 10, now: NOW + 60 * 60_000 },
    );
    assert.deepEqual(later?.droppedPlans.sort(), ['a', 'b']);
    assert.deepEqual(later?.kept, []);
  });
});
