// The collect-mode engine (core/collect/engine.ts) against the real fixture server over stdio: forms from
// new_model_app / edit_model_app, staged with collect_form_data and read back with get_form_data, submitted with
// create_model / update_model, discarded, and sent for remote approval (request_approval, check_approval polled on a
// fake clock). Every call goes through a real Door into a real Workflow: each test checks that the ledger's call
// records are exactly the calls the fixture logged.
import { afterEach, describe, test as nodeTest } from 'node:test';
import assert from 'node:assert/strict';
import { classifyResult } from '../../src/core/plan/classify';
import { CollectEngine, type CollectClock, type CollectHost, type CollectServer } from '../../src/core/collect/engine';
import { getSubmission } from '../../src/core/forms/reducer';
import type { SubmissionRecord, SubmitCall } from '../../src/core/forms/types';
import { initialControls } from '../../src/core/forms/values';
import { Door } from '../../src/core/engine/door';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import type { CancellationToken } from '../../src/core/base/lifecycle';
import type { ToolCallOptions, ToolInvoker } from '../../src/core/engine/invoker';
import type { ToolResult } from '../../src/core/base/toolResult';
import type { WorkflowEvent } from '../../src/core/workflow/workflow';
import { startFixtureStdio, type StdioFixture } from './helpers/fixture';
import { ClientInvoker } from './helpers/inMemoryInvoker';
import { alive, waitFor } from './helpers/mcpFixture';

type Obj = Record<string, unknown>;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Time that moves only when the test says: sleeps wait until {@link advance} passes their due time. */
class FakeClock implements CollectClock {
  private t = 1_700_000_000_000;
  private timers: { due: number; resolve: () => void }[] = [];
  private waiters: (() => void)[] = [];

  now = (): number => this.t;

  sleep = (ms: number, token?: CancellationToken): Promise<void> =>
    new Promise((resolve) => {
      const timer = { due: this.t + ms, resolve };
      this.timers.push(timer);
      token?.onCancellationRequested(() => {
        this.timers = this.timers.filter((x) => x !== timer);
        resolve();
      });
      for (const w of this.waiters.splice(0)) w();
    });

  /** How many sleeps are waiting. */
  get pending(): number {
    return this.timers.length;
  }

  /** Resolves with the delay of the next sleep once one is waiting (at once when one is); rejects after 20 s of real time. */
  async nextSleep(): Promise<number> {
    if (this.timers.length === 0) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no sleep started within 20 s: the engine is not polling on this clock')), 20_000);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return Math.min(...this.timers.map((x) => x.due)) - this.t;
  }

  /** Moves time on by `ms` and wakes every sleep due by then. */
  advance(ms: number): void {
    this.t += ms;
    const due = this.timers.filter((x) => x.due <= this.t);
    this.timers = this.timers.filter((x) => x.due > this.t);
    for (const x of due) x.resolve();
  }
}

/** Lets every queued promise continuation and I/O callback run once. */
const settle = () => new Promise<void>((r) => setImmediate(r));

interface Harness {
  fx: StdioFixture;
  workflow: Workflow;
  sink: MemoryLedgerSink;
  engine: CollectEngine;
  clock: FakeClock;
  /** What the host tells the engine about the fixture; tests change `state` to say it stopped. */
  server: { state: string; tools: CollectServer['tools'] };
  /** Answers the host gives to the engine's confirmations, and the questions it was asked. */
  answers: {
    submit: boolean;
    replace: boolean;
    /** Runs while the submit question is open (the user acts elsewhere meanwhile). */ meanwhile?: () => void;
  };
  asked: { submit: { record: SubmissionRecord; call: SubmitCall }[]; replace: { record: SubmissionRecord; conflict: SubmissionRecord }[] };
  /** Opens a form through the door (as Call Tool does) and hands it to the engine; returns the submission id. */
  openForm(tool: string, args: Obj): Promise<string>;
  record(id: string): SubmissionRecord;
  /** The calls the door recorded (`callSent`), as tool and arguments, in order. */
  doorCalls(): { tool: string; args: Obj }[];
  /** The door's call records and outcomes: `tool:outcome` in order. */
  doorOutcomes(): string[];
  /** The submission events in the ledger, by type, in order. */
  submissionEvents(): WorkflowEvent['type'][];
  /** Asserts that the fixture saw exactly the calls the door recorded, with the same arguments, in the same order. */
  assertEveryCallRecorded(): void;
}

async function harness(
  options: { args?: string[]; invoker?: (inner: ToolInvoker, fx: StdioFixture) => ToolInvoker } = {},
): Promise<Harness> {
  const fx = await startFixtureStdio({ args: options.args ?? [] });
  cleanups.push(() => fx.close());
  const inner = new ClientInvoker([{ name: 'fx', client: fx.client }]);
  const invoker = options.invoker ? options.invoker(inner, fx) : inner;
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  let n = 0;
  const clock = new FakeClock();
  const door = new Door(invoker, workflow, { allowCrossServer: () => false, newId: () => `call-${++n}`, now: clock.now });
  const server = { state: 'running', tools: (await fx.client.listTools()).tools };
  const answers: Harness['answers'] = { submit: true, replace: true };
  const asked: Harness['asked'] = { submit: [], replace: [] };
  const host: CollectHost = {
    server: (name) => (name === 'fx' ? server : undefined),
    confirmSubmit: async (record, call) => {
      asked.submit.push({ record, call });
      answers.meanwhile?.();
      return answers.submit;
    },
    confirmReplace: async (record, conflict) => {
      asked.replace.push({ record, conflict });
      return answers.replace;
    },
  };
  let s = 0;
  const engine = new CollectEngine(workflow, door, host, { newId: () => `s${++s}`, timeoutMs: () => 20_000, clock });
  cleanups.push(() => engine.dispose());
  const callSent = () => sink.entries.flatMap(({ event }) => (event.type === 'callSent' ? [event] : []));
  return {
    fx,
    workflow,
    sink,
    engine,
    clock,
    server,
    answers,
    asked,
    async openForm(tool, args) {
      const result = await door.call({ server: 'fx', tool, args, entrance: 'call', decision: { by: 'user', what: 'pressed Call' } });
      const c = classifyResult(result, { tool });
      assert.equal(c.kind, 'collect_form', JSON.stringify(c));
      assert.ok(c.kind === 'collect_form');
      return engine.receive({ server: 'fx', tool, args, entrance: 'manual' }, c.form);
    },
    record: (id) => getSubmission(workflow.state.submissions, id)!,
    doorCalls: () => callSent().map((e) => ({ tool: e.tool, args: e.args! })),
    doorOutcomes() {
      const tools = new Map(callSent().map((e) => [e.callId, e.tool]));
      return sink.entries.flatMap(({ event }) => (event.type === 'callEnded' ? [`${tools.get(event.callId)}:${event.outcome}`] : []));
    },
    submissionEvents: () => sink.entries.map(({ event }) => event.type).filter((t) => !['callSent', 'callEnded'].includes(t)),
    assertEveryCallRecorded() {
      const sent = callSent();
      for (const e of sent) {
        assert.equal(e.server, 'fx');
        assert.equal(e.decision.by, 'user', `${e.tool}: a call the user's button covers`);
        assert.equal(e.entrance, e.tool === 'new_model_app' || e.tool === 'edit_model_app' ? 'call' : 'collect', e.tool);
      }
      assert.deepEqual(
        fx.callLog().map((e) => ({ tool: e.tool, args: e.args })),
        sent.map((e) => ({ tool: e.tool, args: e.args })),
      );
    },
  };
}

/** Every test here is bounded: a broken engine fails it instead of hanging the run. */
const test = (name: string, fn: () => Promise<void>) => nodeTest(name, { timeout: 90_000 }, fn);

const ADA = { name: 'Ada Lovelace', email: 'ada@example.com', status: 'customer', age: '36', tags: ['vip'], channels: ['email'] };

describe('collect engine against the fixture server', () => {
  test('stage → the staged review as the server holds it → submit creates the record', async () => {
    const h = await harness();
    const id = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    assert.equal(h.engine.snapshot(id)?.submitBlocker, 'Stage the form for review first.');
    assert.equal(h.engine.snapshot(id)?.initial.status, 'lead', "the form's default shows in its control");

    const busy: (string | undefined)[] = [];
    const sub = h.engine.onDidChange(() => busy.push(h.engine.snapshot(id)?.busy));
    assert.equal(await h.engine.stage(id, ADA), undefined);
    sub.dispose();
    assert.ok(busy.includes('stage'), 'the view saw the stage in flight');
    const staged = h.record(id);
    assert.equal(staged.phase, 'staged');
    const fields = { name: 'Ada Lovelace', age: 36, email: 'ada@example.com', status: 'customer', tags: ['vip'], channels: ['email'] };
    assert.deepEqual(staged.fields, fields);
    assert.deepEqual(staged.entry?.fields, fields, 'the entry is what get_form_data answered');
    assert.deepEqual(h.doorCalls().slice(1), [
      { tool: 'collect_form_data', args: { model: 'Contact', fields, mode: 'create' } },
      { tool: 'get_form_data', args: { model: 'Contact' } },
    ]);

    const view = h.engine.snapshot(id)!;
    assert.equal(view.busy, undefined);
    assert.equal(view.error, undefined);
    assert.equal(view.submitBlocker, undefined);
    assert.deepEqual(
      view.changes?.map((c) => [c.name, c.after]),
      Object.entries(fields),
    );
    assert.deepEqual(view.submitCall, { tool: 'create_model', args: { model: 'Contact', attributes: fields } });
    assert.equal(view.initial.age, '36', 'the staged values show in the controls');

    assert.equal(await h.engine.submit(id), undefined);
    const done = h.record(id);
    assert.equal(done.outcome, 'submitted');
    assert.match(done.recordId!, /^c-\d+$/);
    assert.deepEqual(done.submitted, { tool: 'create_model', args: { model: 'Contact', attributes: fields } });
    assert.equal(h.asked.submit.length, 0, 'a reviewed collect-mode submit needs no further confirmation');
    const read = (await h.fx.client.callTool({
      name: 'get_record',
      arguments: { model: 'Contact', record_id: done.recordId! },
    })) as ToolResult;
    const row = JSON.parse((read.content as { text: string }[])[0]!.text) as { record: Obj };
    assert.equal(row.record.name, 'Ada Lovelace', 'the record is on the server');
    assert.deepEqual(h.submissionEvents(), ['formReceived', 'formStaged', 'formSubmitted']);
    assert.deepEqual(h.doorOutcomes(), ['new_model_app:ok', 'collect_form_data:ok', 'get_form_data:ok', 'create_model:ok']);
    assert.equal(await h.engine.submit(id), 'This form is submitted.', 'nothing is sent twice');
    // get_record above went around the door, on purpose (the test reading the server's records).
    assert.deepEqual(
      h.fx
        .callLog()
        .map((e) => e.tool)
        .filter((t) => t !== 'get_record'),
      h.doorCalls().map((c) => c.tool),
    );
  });

  test('a value the form refuses is not sent; the problem names the field', async () => {
    const h = await harness();
    const id = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    const error = await h.engine.stage(id, { ...ADA, email: 'not-an-email' });
    assert.match(error!, /^Fix this field first: Email must be an email address.*Nothing was sent\.$/);
    assert.deepEqual(
      h.engine.snapshot(id)?.problems?.map((p) => p.path),
      ['email'],
    );
    assert.equal(h.record(id).phase, 'open');
    assert.deepEqual(
      h.doorCalls().map((c) => c.tool),
      ['new_model_app'],
    );
    h.assertEveryCallRecorded();
  });

  test('discard: finished as discarded, nothing submitted, nothing sent afterwards', async () => {
    const h = await harness();
    const id = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    assert.equal(h.engine.saveDraft(id, 'name', 'Ada'), true);
    assert.deepEqual(h.engine.snapshot(id)?.draft, { name: 'Ada' });
    assert.equal(await h.engine.stage(id, ADA), undefined);
    const before = h.doorCalls().length;
    assert.equal(h.engine.discard(id), undefined);
    const record = h.record(id);
    assert.equal(record.phase, 'finished');
    assert.equal(record.outcome, 'discarded');
    assert.equal(record.submitAttempts, 0);
    assert.deepEqual(h.engine.drafts(), {}, 'a finished submission keeps no draft');
    assert.equal(h.engine.snapshot(id)?.submitBlocker, undefined, 'a finished form shows no blocker');
    assert.equal(await h.engine.submit(id), 'This form is discarded.');
    assert.equal(await h.engine.stage(id, ADA), 'This form is discarded.');
    assert.equal(h.engine.saveDraft(id, 'name', 'x'), false);
    assert.equal(h.doorCalls().length, before, 'discard sends nothing, and nothing goes out after it');
    assert.deepEqual(h.submissionEvents(), ['formReceived', 'formStaged', 'formDiscarded']);
    h.assertEveryCallRecorded();
  });

  test('an update that changes nothing cannot be submitted; a changed field goes out alone with record_id', async () => {
    const h = await harness();
    const id = await h.openForm('edit_model_app', { model: 'Contact', record_id: 'c-1' });
    const current = initialControls(h.record(id));
    assert.equal(current.name, 'Ada Lovelace');
    assert.equal(await h.engine.stage(id, current), undefined);
    const view = h.engine.snapshot(id)!;
    assert.equal(view.submitCall, undefined);
    assert.equal(view.submitBlocker, "Nothing changed: the staged values are the record's current values.");
    assert.ok(view.changes!.length > 0 && view.changes!.every((c) => !c.changed), 'every row is shown, none changed');
    assert.equal(await h.engine.submit(id), "Nothing changed: every value is the record's current value, so there is nothing to update.");
    assert.ok(!h.doorCalls().some((c) => c.tool === 'update_model'), 'no update_model was sent');
    assert.equal(h.record(id).submitAttempts, 0);

    assert.equal(await h.engine.stage(id, { ...current, name: 'Augusta Ada King' }), undefined);
    assert.deepEqual(
      h.engine
        .snapshot(id)
        ?.changes?.filter((c) => c.changed)
        .map((c) => [c.name, c.before, c.after]),
      [['name', 'Ada Lovelace', 'Augusta Ada King']],
    );
    assert.equal(await h.engine.submit(id), undefined);
    assert.deepEqual(h.doorCalls().at(-1), {
      tool: 'update_model',
      args: { model: 'Contact', attributes: { name: 'Augusta Ada King' }, record_id: 'c-1' },
    });
    assert.equal(h.record(id).outcome, 'submitted');
    assert.equal(h.record(id).recordId, 'c-1');
    h.assertEveryCallRecorded();
  });

  test('direct mode: Submit asks first; refused sends nothing, granted creates the record', async () => {
    const h = await harness({ args: ['--submit-mode', 'direct'] });
    const id = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    assert.equal(h.record(id).form.submitMode, 'direct');
    assert.equal(await h.engine.stage(id, ADA), 'This form is in direct mode: use Submit.');
    assert.equal(h.engine.snapshot(id)?.submitBlocker, undefined, 'direct mode submits from the form');

    h.answers.submit = false;
    assert.equal(await h.engine.submit(id, ADA), undefined, 'declining is not an error');
    assert.equal(h.asked.submit.length, 1);
    assert.equal(h.asked.submit[0]!.call.tool, 'create_model');
    assert.deepEqual(
      Object.keys(h.asked.submit[0]!.call.args.attributes as Obj),
      ['name', 'age', 'email', 'status', 'tags', 'channels'],
      'the question shows what would be sent',
    );
    assert.deepEqual(
      h.doorCalls().map((c) => c.tool),
      ['new_model_app'],
      'refused: nothing was sent',
    );
    assert.equal(h.record(id).phase, 'open');
    assert.equal(h.record(id).submitAttempts, 0);

    h.answers.submit = true;
    assert.equal(await h.engine.submit(id, ADA), undefined);
    assert.equal(h.asked.submit.length, 2);
    assert.deepEqual(
      h.doorCalls().map((c) => c.tool),
      ['new_model_app', 'create_model'],
    );
    assert.equal(h.record(id).outcome, 'submitted');
    assert.deepEqual(h.submissionEvents(), ['formReceived', 'formSubmitted']);
    h.assertEveryCallRecorded();
  });

  test('a form discarded while the submit question is open sends nothing when the answer comes', async () => {
    const h = await harness({ args: ['--submit-mode', 'direct'] });
    const id = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    h.answers.meanwhile = () => {
      assert.equal(h.engine.discard(id), undefined);
    };
    assert.equal(await h.engine.submit(id, ADA), 'This form is discarded.');
    assert.equal(h.asked.submit.length, 1);
    assert.deepEqual(
      h.doorCalls().map((c) => c.tool),
      ['new_model_app'],
      'nothing was submitted',
    );
    assert.deepEqual(h.submissionEvents(), ['formReceived', 'formDiscarded']);
    h.assertEveryCallRecorded();
  });

  test('the server refuses a submit (422): recorded as a failed attempt, the form stays staged, the error names the server', async () => {
    const h = await harness();
    const id = await h.openForm('new_model_app', { model: 'Project', mode: 'form', prefill: { contact_id: 'c-404' } });
    assert.equal(await h.engine.stage(id, { name: 'Apollo' }), undefined);
    const error = await h.engine.submit(id);
    assert.match(error!, /^create_model on "fx" refused it: Validation failed \(422\) for Project: "contact_id" names no Contact/);
    assert.equal(h.engine.snapshot(id)?.error, error);
    assert.equal(h.record(id).phase, 'staged');
    assert.equal(h.record(id).submitAttempts, 1);
    assert.equal(h.record(id).lastError, error);
    assert.deepEqual(h.doorOutcomes().at(-1), 'create_model:tool_error');
    h.assertEveryCallRecorded();
  });

  test('staging over another staged submission of the same model asks first; refused keeps both as they were', async () => {
    const h = await harness();
    const first = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    const second = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    assert.equal(await h.engine.stage(first, ADA), undefined);
    const sent = h.doorCalls().length;
    h.answers.replace = false;
    assert.equal(await h.engine.stage(second, { ...ADA, name: 'Grace Hopper' }), undefined);
    assert.equal(h.asked.replace.length, 1);
    assert.equal(h.asked.replace[0]!.conflict.id, first);
    assert.equal(h.doorCalls().length, sent, 'refused: nothing was staged');
    assert.equal(h.record(first).phase, 'staged');
    h.answers.replace = true;
    assert.equal(await h.engine.stage(second, { ...ADA, name: 'Grace Hopper' }), undefined);
    assert.equal(h.record(first).outcome, 'replaced');
    assert.equal(h.record(second).phase, 'staged');
    h.assertEveryCallRecorded();
  });

  test('remote approval, approved: check_approval polled at 1 s, 2 s, 4 s on the clock; Submit unlocks', async () => {
    const h = await harness({ args: ['--approval-polls', '2'] });
    const id = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    assert.equal(await h.engine.requestApproval(id), 'Stage the form for review first; the staged entry is what the reviewer approves.');
    assert.equal(await h.engine.stage(id, ADA), undefined);
    assert.equal(h.engine.snapshot(id)?.approvalTools, true);
    const decided = new Promise((resolve) => h.engine.onDidDecide(resolve));
    const t0 = h.clock.now();
    assert.equal(await h.engine.requestApproval(id), undefined);
    assert.equal(h.record(id).approval?.status, 'pending');
    assert.equal(h.engine.isPolling(id), true);
    assert.equal(h.engine.snapshot(id)?.submitBlocker, 'Waiting for the reviewer to approve it.');
    assert.equal(await h.engine.submit(id), 'Waiting for the reviewer to approve it.');
    // The server still held the staged entry: it is not staged again before asking.
    assert.deepEqual(
      h
        .doorCalls()
        .slice(3)
        .map((c) => c.tool),
      ['get_form_data', 'request_approval'],
    );

    const checks = () => h.doorCalls().filter((c) => c.tool === 'check_approval').length;
    for (const [i, delay] of [1000, 2000, 4000].entries()) {
      assert.equal(await h.clock.nextSleep(), delay, `wait ${i + 1}`);
      assert.equal(h.engine.snapshot(id)?.nextCheckAt, h.clock.now() + delay, 'the view says when the next check is due');
      h.clock.advance(delay - 1);
      await settle();
      assert.equal(checks(), i, `no check before its time (wait ${i + 1})`);
      h.clock.advance(1);
      if (i < 2) await h.clock.nextSleep();
    }
    assert.deepEqual(await decided, { submissionId: id, status: 'approved' });
    assert.equal(h.clock.now() - t0, 7000);
    assert.equal(checks(), 3);
    assert.deepEqual(
      h
        .doorCalls()
        .filter((c) => c.tool === 'check_approval')
        .map((c) => c.args),
      [{ approval_id: 'apr-1' }, { approval_id: 'apr-1' }, { approval_id: 'apr-1' }],
    );
    assert.equal(h.record(id).approval?.status, 'approved');
    assert.equal(h.engine.isPolling(id), false);
    const view = h.engine.snapshot(id)!;
    assert.equal(view.nextCheckAt, undefined);
    assert.equal(view.submitBlocker, undefined);
    assert.equal(h.clock.pending, 0, 'polling stopped');

    assert.equal(await h.engine.submit(id), undefined);
    assert.equal(h.record(id).outcome, 'submitted');
    assert.deepEqual(h.submissionEvents(), ['formReceived', 'formStaged', 'approvalRequested', 'approvalChecked', 'formSubmitted']);
    h.assertEveryCallRecorded();
  });

  test('remote approval, rejected: the reason is recorded and shown, Submit stays locked and sends nothing', async () => {
    const h = await harness({ args: ['--approval-polls', '1'] });
    const id = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    assert.equal(await h.engine.stage(id, { ...ADA, name: 'REJECT ME' }), undefined);
    const decided = new Promise((resolve) => h.engine.onDidDecide(resolve));
    assert.equal(await h.engine.requestApproval(id), undefined);
    assert.equal(await h.clock.nextSleep(), 1000);
    h.clock.advance(1000);
    assert.equal(await h.clock.nextSleep(), 2000, 'pending once: the next wait doubles');
    h.clock.advance(2000);
    const reason = 'The reviewer rejected it: name is "REJECT ME"';
    assert.deepEqual(await decided, { submissionId: id, status: 'rejected', reason });
    assert.equal(h.record(id).approval?.reason, reason);
    const blocker = `The reviewer rejected it: ${reason}. Change the form and stage it again, then request approval again.`;
    assert.equal(h.engine.snapshot(id)?.submitBlocker, blocker);
    assert.equal(await h.engine.submit(id), blocker);
    assert.ok(!h.doorCalls().some((c) => c.tool === 'create_model'), 'nothing was submitted');
    assert.equal(h.clock.pending, 0);
    h.assertEveryCallRecorded();
  });

  test('discarding while approval is polled stops the polling', async () => {
    const h = await harness({ args: ['--approval-polls', '5'] });
    const id = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    assert.equal(await h.engine.stage(id, ADA), undefined);
    assert.equal(await h.engine.requestApproval(id), undefined);
    await h.clock.nextSleep();
    assert.equal(h.engine.discard(id), undefined);
    assert.equal(h.engine.isPolling(id), false);
    assert.equal(h.clock.pending, 0, 'the wait was cancelled');
    h.clock.advance(60_000);
    await settle();
    assert.ok(!h.doorCalls().some((c) => c.tool === 'check_approval'), 'no check after the discard');
    h.assertEveryCallRecorded();
  });

  test('the server dies mid-stage: not left busy, nothing staged, the error names the server; then nothing is sent to it', async () => {
    let killed = false;
    const h = await harness({
      invoker: (inner, fx) => ({
        catalog: () => inner.catalog(),
        async callTool(server: string, tool: string, args: Obj, options?: ToolCallOptions) {
          if (tool === 'collect_form_data' && !killed) {
            // The server process dies just as the stage goes out (the host still believes it runs).
            killed = true;
            const pid = fx.transport.pid!;
            process.kill(pid, 'SIGKILL');
            await waitFor(() => !alive(pid), 'the fixture process to exit');
          }
          return inner.callTool(server, tool, args, options);
        },
      }),
    });
    const id = await h.openForm('new_model_app', { model: 'Contact', mode: 'form' });
    const error = await h.engine.stage(id, ADA);
    assert.match(error!, /^collect_form_data on "fx" failed: .+\. Nothing was staged; your input is kept\.$/);
    const view = h.engine.snapshot(id)!;
    assert.equal(view.busy, undefined, 'not left busy');
    assert.equal(view.error, error);
    assert.equal(h.record(id).phase, 'open');
    assert.deepEqual(h.submissionEvents(), ['formReceived']);
    assert.deepEqual(h.doorOutcomes(), ['new_model_app:ok', 'collect_form_data:failed'], 'the door recorded the call and its failure');

    // The extension learns the server stopped: the view says so, and the engine sends nothing.
    h.server.state = 'stopped';
    assert.equal(h.engine.snapshot(id)?.serverDown, 'Server "fx" is stopped: start it in the Servers view to stage or submit.');
    assert.equal(await h.engine.stage(id, ADA), 'Server "fx" is not running: start it in the Servers view and try again.');
    assert.equal(h.engine.snapshot(id)?.busy, undefined);
    assert.equal(h.doorCalls().length, 2, 'nothing more went to the door');
  });
});
