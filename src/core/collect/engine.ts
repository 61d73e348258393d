/**
 * The collect-mode engine, beside the plan gate: a form a tool answered with becomes a submission; **Stage for
 * review** calls collect_form_data then get_form_data (the entry as the server holds it); **Submit** calls
 * create_model / update_model itself, never through the LLM; **Discard** sends nothing; a staged submission can
 * wait for a remote reviewer (request_approval, then check_approval polled with backoff). Every call goes through
 * the door (recorded before and after), every decision is a submission event in the workflow (so in the ledger);
 * what is only transient — an action in flight, the last error, the field problems, polling, drafts — lives here.
 *
 * Pure of VS Code: what needs the user or the outside world comes through {@link CollectHost} (the servers as the
 * extension knows them, the confirmations) and {@link CollectClock} (time and waits, so polling is testable
 * without waiting).
 */
import { sameJson } from '../base/json';
import type { Door } from '../engine/door';
import type { Workflow } from '../workflow/ledger';
import { CancellationTokenSource, DisposableBase, Emitter, type CancellationToken, type Event } from '../base/lifecycle';
import type { CollectFormPayload } from '../plan/collectForm';
import type { PlanOrigin, Problem } from '../plan/plan';
import type { ToolResult } from '../base/toolResult';
import { describeSubmitResult, parseStagedEntry } from '../forms/answers';
import { getSubmission, stagedConflict, stagedSubmissions, submissionModel, submitBlocker } from '../forms/reducer';
import {
  approvalToolsOf,
  checkApprovalArgs,
  parseApprovalCheck,
  parseApprovalRequest,
  pollApproval,
  requestApprovalArgs,
  sleepUnlessCancelled,
  type PollSchedule,
} from './remoteApproval';
import type { ControlValue, FieldChange, StagedEntry, SubmissionEvent, SubmissionRecord, SubmitCall } from '../forms/types';
import { initialControls, readFormControls, stagedChanges, stagedValues, submissionCall } from '../forms/values';

/** An action in flight on a submission. */
export type CollectBusy = 'stage' | 'submit' | 'discard' | 'approval';

/** Who staged a submission when it was not the user's Stage for review: a server's form app (its ui:// page). */
export interface StagedBy {
  app: string;
}

/** A server as the extension knows it now. */
export interface CollectServer {
  /** `running` when calls can go to it; otherwise what it is instead (`starting`, `stopped`, `error`, …). */
  state: string;
  /** The tools it lists, with their input schemas (the approval tools' arguments are fitted to them). */
  tools: readonly { name: string; inputSchema?: unknown }[];
}

/** What the engine needs from whoever shows it (the extension's UI, a test). */
export interface CollectHost {
  /** The server named so, or undefined when it is no longer configured. */
  server(name: string): CollectServer | undefined;
  /**
   * Asked before staging `record` replaces `conflict`, the other submission staged for the same model on the same
   * server (the server keeps one staged entry per model). False: nothing is staged.
   */
  confirmReplace(record: SubmissionRecord, conflict: SubmissionRecord): Promise<boolean>;
  /** Asked before a submit the user has not reviewed on screen (direct mode, or Submit from a list). False: nothing is sent. */
  confirmSubmit(record: SubmissionRecord, call: SubmitCall): Promise<boolean>;
  /** Told what happened, for the log. */
  log?(level: 'info' | 'warn', message: string): void;
}

/** Time and waits (the extension's timers; a fake clock in tests). */
export interface CollectClock {
  now(): number;
  /** Resolves after `ms`, or early when `token` is cancelled. */
  sleep(ms: number, token?: CancellationToken): Promise<void>;
}

/** The system clock: `Date.now` and a timer that a cancellation cuts short. */
export const systemClock: CollectClock = { now: () => Date.now(), sleep: sleepUnlessCancelled };

export interface CollectEngineOptions {
  newId: () => string;
  /** Per-call timeout (the step timeout setting), read at each call. */
  timeoutMs: () => number;
  clock?: CollectClock;
  /** The approval polling schedule (default 1 s, 2 s, 4 s … capped at 30 s). */
  schedule?: PollSchedule;
  /** Drafts kept from an earlier session, by submission id (those of finished submissions are dropped). */
  drafts?: Readonly<Record<string, Record<string, ControlValue>>>;
}

/**
 * Everything a view of one submission needs: the record as the ledger holds it plus what the engine knows beside
 * it. The same fields as the panel's collect-form view.
 */
export interface SubmissionSnapshot {
  record: SubmissionRecord;
  /** Each field's starting value as its control shows it (staged values, else the form's defaults). */
  initial: Record<string, ControlValue>;
  /** Staged: the entry as the server holds it, field by field (updates: against the current values). */
  changes?: FieldChange[];
  /** The call Submit makes now (undefined when an update changes nothing). */
  submitCall?: SubmitCall;
  /** Why Submit is disabled now, in words; undefined when it is enabled. */
  submitBlocker?: string;
  /** The server offers request_approval and check_approval. */
  approvalTools: boolean;
  busy?: CollectBusy;
  /** Approval polling is on: when the next check_approval is due (epoch ms). */
  nextCheckAt?: number;
  /** What went wrong last (stage, approval, submit), in words; cleared by the next action. */
  error?: string;
  /** Problems of the values last read from the form, by field name (`path`). */
  problems?: Problem[];
  /** The server is not running: nothing can be staged or submitted until it is. */
  serverDown?: string;
  /** What the user typed and has not staged or submitted, by field. */
  draft?: Record<string, ControlValue>;
}

/** A reviewer decided on a submission sent for approval. */
export interface ApprovalDecision {
  submissionId: string;
  status: 'approved' | 'rejected';
  reason?: string;
}

export class CollectEngine extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Fires when something a view shows changes that is not in the ledger (busy, errors, problems, polling, drafts). */
  readonly onDidChange: Event<void> = this._onDidChange.event;
  private readonly _onDidDecide = this._register(new Emitter<ApprovalDecision>());
  /** Fires when a reviewer's decision is recorded. */
  readonly onDidDecide: Event<ApprovalDecision> = this._onDidDecide.event;
  private readonly _onDidChangeDrafts = this._register(new Emitter<void>());
  /** Fires when a draft changes or is dropped (the host persists {@link drafts}). */
  readonly onDidChangeDrafts: Event<void> = this._onDidChangeDrafts.event;

  private readonly busy = new Map<string, CollectBusy>();
  private readonly errors = new Map<string, string>();
  private readonly problems = new Map<string, Problem[]>();
  private readonly polls = new Map<string, { cts: CancellationTokenSource; nextCheckAt?: number }>();
  private readonly draftMap: Map<string, Record<string, ControlValue>>;
  private readonly clock: CollectClock;

  constructor(
    private readonly workflow: Workflow,
    private readonly door: Pick<Door, 'call'>,
    private readonly host: CollectHost,
    private readonly options: CollectEngineOptions,
  ) {
    super();
    this.clock = options.clock ?? systemClock;
    this.draftMap = new Map(
      Object.entries(options.drafts ?? {}).filter(([id]) => {
        const record = getSubmission(workflow.state.submissions, id);
        return record !== undefined && record.phase !== 'finished';
      }),
    );
    this._register(
      workflow.onDidChange(({ event }) => {
        if (!('submissionId' in event)) return;
        const record = getSubmission(this.workflow.state.submissions, event.submissionId);
        if (record?.phase !== 'finished') return;
        this.stopPolling(record.id);
        if (this.draftMap.delete(record.id)) this._onDidChangeDrafts.fire();
      }),
    );
    this.resumePolling();
  }

  /** A form tool answered with a form: records it as a new submission and returns its id. */
  receive(origin: PlanOrigin, form: CollectFormPayload): string {
    const id = this.options.newId();
    if (!this.workflow.dispatch({ type: 'formReceived', at: this.clock.now(), submissionId: id, origin, form })) {
      throw new Error(`The form from ${origin.server}/${origin.tool} could not be recorded.`);
    }
    this.log(
      'info',
      `Form received from ${origin.server}/${origin.tool}: ${form.schema.title} (${form.mode}, submit mode ${form.submitMode}) submission ${id.slice(0, 8)}`,
    );
    return id;
  }

  /** What a view of submission `id` shows now; undefined when there is no such submission. */
  snapshot(id: string): SubmissionSnapshot | undefined {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record) return undefined;
    const server = this.host.server(record.origin.server);
    const staged = record.phase === 'staged' || (record.phase === 'finished' && record.fields !== undefined);
    const values = record.form.submitMode === 'collect' ? stagedValues(record) : undefined;
    const call = values && record.phase === 'staged' ? submissionCall(record, values) : undefined;
    const snapshot: SubmissionSnapshot = {
      record,
      initial: initialControls(record),
      approvalTools: !!server && approvalToolsOf(server.tools) !== undefined,
      submitBlocker:
        record.phase === 'finished'
          ? undefined
          : (submitBlocker(record) ??
            (record.phase === 'staged' && !call ? "Nothing changed: the staged values are the record's current values." : undefined)),
    };
    if (staged && values) snapshot.changes = stagedChanges(record.form, values);
    if (call) snapshot.submitCall = call;
    const busy = this.busy.get(id);
    if (busy) snapshot.busy = busy;
    const error = this.errors.get(id);
    if (error) snapshot.error = error;
    const problems = this.problems.get(id);
    if (problems?.length) snapshot.problems = problems;
    const poll = this.polls.get(id);
    if (poll?.nextCheckAt !== undefined) snapshot.nextCheckAt = poll.nextCheckAt;
    const draft = this.draftMap.get(id);
    if (draft && record.phase !== 'finished') snapshot.draft = draft;
    if (record.phase !== 'finished') {
      const down = serverDown(record.origin.server, server);
      if (down) snapshot.serverDown = down;
    }
    return snapshot;
  }

  /** Whether check_approval is being polled for submission `id`. */
  isPolling(id: string): boolean {
    return this.polls.has(id);
  }

  // ---- drafts ------------------------------------------------------------------------------------------------

  /** Keeps what the user typed into a field, so a window reload loses nothing. False when there is no such open field. */
  saveDraft(id: string, field: string, value: ControlValue): boolean {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record || record.phase === 'finished' || !record.form.schema.fields.some((f) => f.name === field)) return false;
    const draft = this.draftMap.get(id) ?? {};
    // Field names are server data: `__proto__` must stay a plain key.
    Object.defineProperty(draft, field, { value, enumerable: true, writable: true, configurable: true });
    this.draftMap.set(id, draft);
    this._onDidChangeDrafts.fire();
    return true;
  }

  /** Every draft, by submission id (what the host persists). */
  drafts(): Record<string, Record<string, ControlValue>> {
    return Object.fromEntries(this.draftMap);
  }

  // ---- the actions ------------------------------------------------------------------------------------------
  // Each returns the error in words (also kept for the view), or undefined when it went through or the user declined.

  /** Stage for review: collect_form_data {model, fields, mode}, then get_form_data {model} for the entry the server holds. */
  async stage(id: string, controls: Record<string, unknown>, by?: StagedBy): Promise<string | undefined> {
    let record = this.active(id);
    if (typeof record === 'string') return record;
    if (record.form.submitMode !== 'collect') return 'This form is in direct mode: use Submit.';
    const read = this.read(record, controls);
    if (typeof read === 'string') return read;
    const conflict = stagedConflict(this.workflow.state.submissions, record);
    if (conflict) {
      if (!(await this.host.confirmReplace(record, conflict))) return undefined;
      record = this.active(id);
      if (typeof record === 'string') return record;
    }
    const current = record;
    return this.run(id, 'stage', async () => {
      const entry = await this.stageOnServer(current, read, by);
      this.dispatch({ type: 'formStaged', at: this.clock.now(), submissionId: id, fields: read, entry: entry.entry });
      if (entry.note) this.errors.set(id, entry.note);
    });
  }

  /**
   * Submit: create_model / update_model with the staged values (collect mode) or the form's values after the host's
   * confirmation (direct mode, or `confirm`). A failure is recorded and shown; the form keeps its values.
   */
  async submit(id: string, controls?: Record<string, unknown>, options: { confirm?: boolean } = {}): Promise<string | undefined> {
    const record = this.active(id);
    if (typeof record === 'string') return record;
    const blocker = submitBlocker(record);
    if (blocker) return blocker;
    let values: Record<string, unknown>;
    if (record.form.submitMode === 'collect') values = stagedValues(record);
    else {
      const read = this.read(record, controls ?? {});
      if (typeof read === 'string') return read;
      values = read;
    }
    const call = submissionCall(record, values);
    if (!call) return "Nothing changed: every value is the record's current value, so there is nothing to update.";
    const server = this.host.server(record.origin.server);
    if (!server?.tools.some((t) => t.name === call.tool)) {
      return `Server "${record.origin.server}" does not offer ${call.tool}${server?.state === 'running' ? '' : ' (it is not running)'}: nothing was submitted.`;
    }
    if (record.form.submitMode === 'direct' || options.confirm) {
      if (!(await this.host.confirmSubmit(record, call))) return undefined;
      const now = this.active(id);
      if (typeof now === 'string') return now;
      if (now !== record) return 'The form changed while Plangate asked: review it and press Submit again.';
    }
    const serverName = record.origin.server;
    let failure: string | undefined;
    /** Records a failed submit (the ledger keeps what was tried and why it failed) and keeps its message for the form. */
    const fail = (message: string): void => {
      failure = message;
      this.dispatch({
        type: 'formSubmitted',
        at: this.clock.now(),
        submissionId: id,
        ok: false,
        tool: call.tool,
        args: call.args,
        error: message,
      });
    };
    const error = await this.run(id, 'submit', async () => {
      let result: ToolResult;
      try {
        result = await this.door.call(
          {
            server: serverName,
            tool: call.tool,
            args: call.args,
            entrance: 'collect',
            decision: { by: 'user', what: 'pressed Submit on the staged submission it showed' },
          },
          { timeoutMs: this.options.timeoutMs() },
        );
      } catch (err) {
        return fail(
          `${call.tool} on "${serverName}" failed: ${messageOf(err)}. The record may or may not have been written: check before you submit again.`,
        );
      }
      const outcome = describeSubmitResult(result);
      if (!outcome.ok) return fail(`${call.tool} on "${serverName}" refused it: ${outcome.text}`);
      this.dispatch({
        type: 'formSubmitted',
        at: this.clock.now(),
        submissionId: id,
        ok: true,
        tool: call.tool,
        args: call.args,
        result: outcome.text,
        recordId: outcome.recordId,
      });
    });
    if (failure) {
      this.errors.set(id, failure);
      this._onDidChange.fire();
    }
    return error ?? failure;
  }

  /** Discard: records that nothing is submitted. The server's staged entry stays until it is replaced (no tool clears it). */
  discard(id: string): string | undefined {
    const record = this.active(id);
    if (typeof record === 'string') return record;
    this.stopPolling(id);
    this.errors.delete(id);
    this.problems.delete(id);
    this.dispatch({ type: 'formDiscarded', at: this.clock.now(), submissionId: id });
    return undefined;
  }

  /**
   * Request approval: makes sure the server still holds this staged entry (it is lost when the server restarts;
   * then it is staged again), calls request_approval, and polls check_approval with backoff until it decides.
   */
  async requestApproval(id: string): Promise<string | undefined> {
    const record = this.active(id);
    if (typeof record === 'string') return record;
    if (record.phase !== 'staged') return 'Stage the form for review first; the staged entry is what the reviewer approves.';
    const tools = approvalToolsOf(this.host.server(record.origin.server)?.tools ?? []);
    if (!tools) return `Server "${record.origin.server}" offers no request_approval and check_approval tools.`;
    this.stopPolling(id);
    return this.run(id, 'approval', async () => {
      let current = record;
      const held = parseStagedEntry(await this.call(record, 'get_form_data', { model: submissionModel(record) }).catch(() => undefined));
      if (held.kind !== 'entry' || !sameJson(held.entry.fields, stagedValues(record))) {
        const fields = stagedValues(record);
        const entry = await this.stageOnServer(record, fields);
        this.dispatch({ type: 'formStaged', at: this.clock.now(), submissionId: id, fields, entry: entry.entry });
        current = getSubmission(this.workflow.state.submissions, id)!;
        this.log(
          'info',
          `Submission ${id.slice(0, 8)}: staged again on ${record.origin.server} (the server no longer held it) before requesting approval`,
        );
      }
      const answer = parseApprovalRequest(
        await this.call(current, tools.request.name, requestApprovalArgs(tools.request.inputSchema, current)),
      );
      if (!answer.ok) throw new Error(`${tools.request.name} on "${record.origin.server}" failed: ${answer.error}`);
      this.dispatch({ type: 'approvalRequested', at: this.clock.now(), submissionId: id, approvalId: answer.id });
      this.startPolling(id);
    });
  }

  /** Pending approvals in the ledger (e.g. after a reload) are polled again once their server runs. Call when servers change. */
  resumePolling(): void {
    for (const record of stagedSubmissions(this.workflow.state.submissions)) {
      if (
        record.approval?.status === 'pending' &&
        !this.polls.has(record.id) &&
        !this.busy.has(record.id) &&
        !this.errors.has(record.id) &&
        this.host.server(record.origin.server)?.state === 'running'
      )
        this.startPolling(record.id);
    }
  }

  // ---- the calls ---------------------------------------------------------------------------------------------

  /** collect_form_data, then get_form_data; `note` says when the server did not show its entry. */
  private async stageOnServer(
    record: SubmissionRecord,
    fields: Record<string, unknown>,
    by?: StagedBy,
  ): Promise<{ entry?: StagedEntry; note?: string }> {
    const model = submissionModel(record);
    const notStaged = (message: string) =>
      new Error(
        `collect_form_data on "${record.origin.server}" failed: ${message.replace(/[.\s]+$/, '')}. Nothing was staged; your input is kept.`,
      );
    let stagedResult: ToolResult;
    try {
      stagedResult = await this.call(record, 'collect_form_data', { model, fields, mode: record.form.mode }, by);
    } catch (err) {
      throw err instanceof NotSent ? err : notStaged(messageOf(err));
    }
    const staged = parseStagedEntry(stagedResult);
    if (staged.kind === 'error') throw notStaged(staged.message);
    const held = parseStagedEntry(
      await this.call(record, 'get_form_data', { model }, by).catch((err: unknown) => ({
        content: [{ type: 'text', text: messageOf(err) }],
        isError: true,
      })),
    );
    if (held.kind === 'entry') return { entry: held.entry };
    const note = `Staged, but get_form_data did not return the entry (${held.message}): the review shows the values Plangate staged.`;
    return staged.kind === 'entry' ? { entry: staged.entry, note } : { note };
  }

  /**
   * One collect-mode call through the door; refused here (nothing sent) when the server is not running or lacks the tool.
   * Staged `by` a server's form app: its collect_form_data is the app's call (entrance `app`, asked as an app's calls
   * are), and the read-back after it is recorded as the app's doing too, not as the user's.
   */
  private async call(record: SubmissionRecord, tool: string, args: Record<string, unknown>, by?: StagedBy): Promise<ToolResult> {
    const server = this.host.server(record.origin.server);
    if (server?.state !== 'running')
      throw new NotSent(`Server "${record.origin.server}" is not running: start it in the Servers view and try again.`);
    if (!server.tools.some((t) => t.name === tool))
      throw new NotSent(`Server "${record.origin.server}" does not offer ${tool}, which collect mode needs.`);
    return this.door.call(
      {
        server: record.origin.server,
        tool,
        args,
        ...(by
          ? {
              entrance: tool === 'collect_form_data' ? 'app' : 'collect',
              decision: { by: 'app', what: `collect mode: ${tool} for the form the app ${by.app} collected (its Done)` },
            }
          : { entrance: 'collect', decision: { by: 'user', what: `collect mode: ${tool} for the form the user filled` } }),
      },
      { timeoutMs: this.options.timeoutMs() },
    );
  }

  // ---- transient state ---------------------------------------------------------------------------------------

  /** The record if it can still be acted on, else why not. */
  private active(id: string): SubmissionRecord | string {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record) return 'That form no longer exists.';
    if (record.phase === 'finished') return `This form is ${record.outcome ?? 'finished'}.`;
    if (this.busy.has(id)) return 'Wait for the current action to finish.';
    return record;
  }

  /** The form's values, or (after recording the per-field problems for the view) a summary of what to fix. */
  private read(record: SubmissionRecord, controls: Record<string, unknown>): Record<string, unknown> | string {
    const { values, problems } = readFormControls(record.form, controls);
    this.errors.delete(record.id);
    if (problems.length) {
      const summary = `Fix ${problems.length === 1 ? 'this field' : `these ${problems.length} fields`} first: ${problems.map((p) => p.message).join('; ')}. Nothing was sent.`;
      this.problems.set(record.id, problems);
      this.errors.set(record.id, summary);
      this._onDidChange.fire();
      return summary;
    }
    this.problems.delete(record.id);
    return values;
  }

  /** Runs an action with its busy state; a thrown error becomes the shown error (and the reply). Never leaves it busy. */
  private async run(id: string, busy: CollectBusy, fn: () => Promise<void>): Promise<string | undefined> {
    this.busy.set(id, busy);
    this.errors.delete(id);
    this._onDidChange.fire();
    try {
      await fn();
      return undefined;
    } catch (err) {
      const message = messageOf(err);
      this.errors.set(id, message);
      this.log('warn', `Submission ${id.slice(0, 8)} (${busy}): ${message}`);
      return message;
    } finally {
      this.busy.delete(id);
      this._onDidChange.fire();
    }
  }

  private dispatch(event: SubmissionEvent): void {
    if (!this.workflow.dispatch(event)) throw new Error(this.workflow.canApply(event) ?? 'The ledger refused the change.');
    this.log(
      'info',
      `${event.type} submission ${event.submissionId.slice(0, 8)}${event.type === 'formSubmitted' ? ` (${event.ok ? 'ok' : `failed: ${event.error}`})` : event.type === 'approvalChecked' ? ` (${event.status})` : ''}`,
    );
  }

  private log(level: 'info' | 'warn', message: string): void {
    this.host.log?.(level, message);
  }

  // ---- approval polling --------------------------------------------------------------------------------------

  private startPolling(id: string): void {
    const record = getSubmission(this.workflow.state.submissions, id);
    const tools = record && approvalToolsOf(this.host.server(record.origin.server)?.tools ?? []);
    if (!record?.approval || record.approval.status !== 'pending' || !tools || this.polls.has(id)) return;
    const approvalId = record.approval.id;
    const cts = new CancellationTokenSource();
    const poll: { cts: CancellationTokenSource; nextCheckAt?: number } = { cts };
    this.polls.set(id, poll);
    this._onDidChange.fire();
    const check = async () =>
      parseApprovalCheck(await this.call(record, tools.check.name, checkApprovalArgs(tools.check.inputSchema, approvalId)));
    void pollApproval(check, {
      schedule: this.options.schedule,
      token: cts.token,
      sleep: (ms, token) => this.clock.sleep(ms, token),
      onWait: (delay) => {
        poll.nextCheckAt = this.clock.now() + delay;
        this._onDidChange.fire();
      },
    }).then((outcome) => {
      if (this.polls.get(id) !== poll) return;
      this.polls.delete(id);
      cts.dispose();
      const current = getSubmission(this.workflow.state.submissions, id);
      if (outcome.status === 'approved' || outcome.status === 'rejected') {
        if (current?.approval?.id === approvalId && current.approval.status === 'pending') {
          this.workflow.dispatch({
            type: 'approvalChecked',
            at: this.clock.now(),
            submissionId: id,
            status: outcome.status,
            reason: outcome.reason,
          });
          this.log(
            'info',
            `Submission ${id.slice(0, 8)}: approval ${approvalId} ${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''}`,
          );
          this._onDidDecide.fire(
            outcome.reason !== undefined
              ? { submissionId: id, status: outcome.status, reason: outcome.reason }
              : { submissionId: id, status: outcome.status },
          );
        }
      } else if (outcome.status === 'error') {
        this.errors.set(
          id,
          `${tools.check.name} on "${record.origin.server}" failed: ${outcome.error}. Request approval again to start over.`,
        );
      }
      this._onDidChange.fire();
    });
  }

  private stopPolling(id: string): void {
    const poll = this.polls.get(id);
    if (!poll) return;
    this.polls.delete(id);
    poll.cts.cancel();
    poll.cts.dispose();
    this._onDidChange.fire();
  }

  override dispose(): void {
    for (const id of [...this.polls.keys()]) this.stopPolling(id);
    super.dispose();
  }
}

/** A call the engine did not send: its server is not running or lacks the tool (the message says which). */
class NotSent extends Error {
  override readonly name = 'NotSent';
}

/** Why nothing can be sent to `name` now, in words; undefined when it runs. */
function serverDown(name: string, server: CollectServer | undefined): string | undefined {
  if (!server) return `Server "${name}" is no longer configured.`;
  return server.state === 'running' ? undefined : `Server "${name}" is ${server.state}: start it in the Servers view to stage or submit.`;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
