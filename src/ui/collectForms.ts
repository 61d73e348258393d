import type { Door } from '../core/door';
import * as vscode from 'vscode';
import type { CollectFormPayload } from '../core/collectForm';
import type { Workflow } from '../core/ledger';
import { CancellationTokenSource, DisposableBase, Emitter } from '../core/lifecycle';
import type { Problem } from '../core/plan';
import {
  approvalToolsOf, checkApprovalArgs, describeSubmissionState, describeSubmitResult, displayValue, formatAge, getSubmission,
  parseApprovalCheck, parseApprovalRequest, parseStagedEntry, pollApproval, readFormControls, requestApprovalArgs,
  stagedConflict, stagedSubmissions, stagedValues, submissionCall, submissionList, submissionModel, submissionTitle, submitBlocker,
  type ControlValue, type PollSchedule, type StagedEntry, type SubmissionRecord,
} from '../core/submissions';
import { sameJson } from '../core/approval';
import type { ToolResult } from '../core/toolResult';
import type { PlanOrigin } from '../core/workflow';
import type { ServerRegistry } from '../mcp/registry';
import type { CollectFormView, FromWebview } from '../shared/protocol';
import { toCollectFormView } from '../core/present/collectView';
import { Commands } from './constants';
import type { PlanPanel } from './planPanel';

/** Submission commands (hidden from the palette): the Staged view's inline buttons and rows, the Plans view and the approval status item use them. */
export const SubmissionCommands = {
  open: Commands.openSubmission,
  submit: Commands.submitSubmission,
  discard: Commands.discardSubmission,
  // Only from the Staged view's rows and the panel (it needs a server offering approval tools): not contributed.
  requestApproval: 'plangate.requestSubmissionApproval',
} as const;

type Busy = NonNullable<CollectFormView['busy']>;

export interface CollectFormsOptions {
  /** The one door for tool calls (stage, read back, submit, remote approval). */
  door: Door;
  newId: () => string;
  /** Per-call timeout (the step timeout setting). */
  timeoutMs: () => number;
  now?: () => number;
  /** The approval polling schedule (default 1 s, 2 s, 4 s … capped at 30 s). */
  schedule?: PollSchedule;
  /** Where drafts (typed, not yet staged or submitted) are kept across window reloads. */
  memento?: vscode.Memento;
}

const DRAFTS_KEY = 'plangate.collect.drafts';

/**
 * Collect mode (mcp-rune Center-of-Control): opens a form a tool answered with as a panel item, stages it
 * (collect_form_data, then get_form_data for the entry as the server holds it), submits it with create_model /
 * update_model directly (never through the LLM), discards it, and sends it for remote approval (request_approval,
 * then check_approval polled with backoff). Every decision goes to the ledger as a submission event; what is only
 * transient (in flight, last error, polling) lives here. Owns the "waiting for approval" status bar item.
 */
export class CollectForms extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Fires when something the panel shows changes that is not in the ledger (busy, errors, polling). */
  readonly onDidChange = this._onDidChange.event;

  private readonly busy = new Map<string, Busy>();
  private readonly errors = new Map<string, string>();
  private readonly problems = new Map<string, Problem[]>();
  private readonly polls = new Map<string, { cts: CancellationTokenSource; nextCheckAt?: number }>();
  private readonly statusItem: vscode.StatusBarItem;
  private readonly now: () => number;
  private readonly drafts: Map<string, Record<string, ControlValue>>;
  private draftTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly workflow: Workflow,
    private readonly registry: ServerRegistry,
    private readonly panel: () => PlanPanel,
    private readonly log: vscode.LogOutputChannel,
    private readonly options: CollectFormsOptions,
  ) {
    super();
    this.now = options.now ?? Date.now;
    this.drafts = new Map(Object.entries(options.memento?.get<Record<string, Record<string, ControlValue>>>(DRAFTS_KEY, {}) ?? {})
      .filter(([id]) => getSubmission(workflow.state.submissions, id)?.phase !== 'finished'));
    this.statusItem = this._register(vscode.window.createStatusBarItem('plangate.approval', vscode.StatusBarAlignment.Left, 89));
    this.statusItem.name = 'Plangate approvals';
    this._register(workflow.onDidChange(({ event }) => {
      if (!('submissionId' in event)) return;
      const record = getSubmission(this.workflow.state.submissions, event.submissionId);
      if (record?.phase === 'finished') {
        this.stopPolling(record.id);
        if (this.drafts.delete(record.id)) this.persistDrafts();
      }
      this.updateStatus();
    }));
    this._register(registry.onDidChange(() => { this.resumePolling(); this._onDidChange.fire(); }));
    this._register(vscode.commands.registerCommand(SubmissionCommands.open, (id: string) => this.show(id, true)));
    this._register(vscode.commands.registerCommand(SubmissionCommands.submit, (id: string) => this.fromView(id, 'submit')));
    this._register(vscode.commands.registerCommand(SubmissionCommands.discard, (id: string) => this.fromView(id, 'discard')));
    this._register(vscode.commands.registerCommand(SubmissionCommands.requestApproval, (id: string) => this.fromView(id, 'requestApproval')));
    this.resumePolling();
    this.updateStatus();
  }

  /** A form tool answered with a form: records it and opens it in the panel. Returns the submission id. */
  open(origin: PlanOrigin, form: CollectFormPayload, options: { focus?: boolean } = {}): string {
    const id = this.options.newId();
    if (!this.workflow.dispatch({ type: 'formReceived', at: this.now(), submissionId: id, origin, form })) {
      throw new Error(`The form from ${origin.server}/${origin.tool} could not be recorded.`);
    }
    this.log.info(`Form received from ${origin.server}/${origin.tool}: ${form.schema.title} (${form.mode}, submit mode ${form.submitMode}) submission ${id.slice(0, 8)}`);
    this.show(id, options.focus ?? true);
    return id;
  }

  /** Opens a submission in the panel. */
  show(id: string, focus = true): void {
    if (getSubmission(this.workflow.state.submissions, id)) this.panel().showCollectForm(id, { focus });
  }

  /** The tab title of a submission's panel item. */
  title(id: string): string {
    const record = getSubmission(this.workflow.state.submissions, id);
    return record ? submissionTitle(record) : 'Form';
  }

  /** The tab badge of a submission's panel item. */
  badge(id: string): string | undefined {
    const record = getSubmission(this.workflow.state.submissions, id);
    return record && describeSubmissionState(record);
  }

  /** What the panel shows for a submission. */
  view(id: string): CollectFormView | undefined {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record) return undefined;
    const conn = this.registry.get(record.origin.server);
    return toCollectFormView(record, {
      approvalTools: !!conn && approvalToolsOf(conn.tools) !== undefined,
      busy: this.busy.get(id), error: this.errors.get(id), problems: this.problems.get(id),
      nextCheckAt: this.polls.get(id)?.nextCheckAt, draft: this.drafts.get(id), serverState: conn?.state,
    });
  }

  /** The panel's collect-form intents. Returns an error text for the webview, or undefined. */
  async handle(message: Extract<FromWebview, { type: 'collectForm' }>): Promise<string | undefined> {
    switch (message.action) {
      case 'stage': return this.stage(message.submissionId, message.controls ?? {});
      case 'submit': return this.submit(message.submissionId, message.controls);
      case 'discard': return this.discard(message.submissionId);
      case 'requestApproval': return this.requestApproval(message.submissionId);
      default: return 'Unknown form action.';
    }
  }

  /** Keeps what the user typed into a field (the panel sends each change), so a window reload loses nothing. */
  saveDraft(id: string, field: string, value: ControlValue): void {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record || record.phase === 'finished' || !record.form.schema.fields.some((f) => f.name === field)) return;
    const draft = this.drafts.get(id) ?? {};
    Object.defineProperty(draft, field, { value, enumerable: true, writable: true, configurable: true });
    this.drafts.set(id, draft);
    this.persistDrafts();
  }

  private persistDrafts(): void {
    if (!this.options.memento || this.draftTimer) return;
    this.draftTimer = setTimeout(() => {
      this.draftTimer = undefined;
      void this.options.memento?.update(DRAFTS_KEY, Object.fromEntries(this.drafts));
    }, 300);
  }

  /** Stage for review: collect_form_data {model, fields, mode}, then get_form_data {model} for the entry the server holds. */
  async stage(id: string, controls: Record<string, unknown>): Promise<string | undefined> {
    const record = this.active(id);
    if (typeof record === 'string') return record;
    if (record.form.submitMode !== 'collect') return 'This form is in direct mode: use Submit.';
    const read = this.read(record, controls);
    if (typeof read === 'string') return read;
    const conflict = stagedConflict(this.workflow.state.submissions, record);
    if (conflict) {
      const model = submissionModel(record);
      const go = await vscode.window.showWarningMessage(
        `A ${model} submission is already staged on "${record.origin.server}".`,
        { modal: true, detail: `"${submissionTitle(conflict)}" was staged ${formatAge(conflict.stagedAt ?? conflict.receivedAt, this.now())}. The server keeps one staged entry per model: staging this form replaces it, and the earlier one can no longer be submitted.` },
        'Stage and Replace');
      if (go !== 'Stage and Replace') return undefined;
    }
    return this.run(id, 'stage', async () => {
      const entry = await this.stageOnServer(record, read);
      this.dispatch({ type: 'formStaged', at: this.now(), submissionId: id, fields: read, entry: entry.entry });
      if (entry.note) this.errors.set(id, entry.note);
    });
  }

  /**
   * Submit: create_model / update_model with the staged values (collect mode) or the form's values after a
   * confirmation (direct mode). A failure is recorded and shown; the form keeps its values.
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
    if (!call) return 'Nothing changed: every value is the record\'s current value, so there is nothing to update.';
    const conn = this.registry.get(record.origin.server);
    if (!conn?.tools.some((t) => t.name === call.tool)) {
      return `Server "${record.origin.server}" does not offer ${call.tool}${conn?.state === 'running' ? '' : ' (it is not running)'}: nothing was submitted.`;
    }
    if (record.form.submitMode === 'direct' || options.confirm) {
      const names = Object.keys(call.args.attributes as Record<string, unknown>);
      const go = await vscode.window.showWarningMessage(
        `Submit "${submissionTitle(record)}" to "${record.origin.server}"?`,
        { modal: true, detail: `Plangate calls ${call.tool}${record.form.recordId !== undefined ? ` for record ${record.form.recordId}` : ''} with ${names.length} attribute${names.length === 1 ? '' : 's'}: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''}.` },
        'Submit');
      if (go !== 'Submit') return undefined;
    }
    let failure: string | undefined;
    const error = await this.run(id, 'submit', async () => {
      let result: ToolResult;
      try {
        result = await this.options.door.call(
          { server: record.origin.server, tool: call.tool, args: call.args, entrance: 'collect', decision: { by: 'user', what: 'pressed Submit on the staged submission it showed' } },
          { timeoutMs: this.options.timeoutMs() },
        );
      } catch (err) {
        failure = `${call.tool} on "${record.origin.server}" failed: ${err instanceof Error ? err.message : String(err)}. The record may or may not have been written: check before you submit again.`;
        this.dispatch({ type: 'formSubmitted', at: this.now(), submissionId: id, ok: false, tool: call.tool, args: call.args, error: failure });
        return;
      }
      const outcome = describeSubmitResult(result);
      if (!outcome.ok) {
        failure = `${call.tool} on "${record.origin.server}" refused it: ${outcome.text}`;
        this.dispatch({ type: 'formSubmitted', at: this.now(), submissionId: id, ok: false, tool: call.tool, args: call.args, error: failure });
        return;
      }
      this.dispatch({ type: 'formSubmitted', at: this.now(), submissionId: id, ok: true, tool: call.tool, args: call.args, result: outcome.text, recordId: outcome.recordId });
    });
    if (failure) this.errors.set(id, failure);
    this._onDidChange.fire();
    return error ?? failure;
  }

  /** Discard: records that nothing is submitted. The server's staged entry stays until it is replaced (no tool clears it). */
  discard(id: string): string | undefined {
    const record = this.active(id);
    if (typeof record === 'string') return record;
    this.stopPolling(id);
    this.clearTransient(id);
    this.dispatch({ type: 'formDiscarded', at: this.now(), submissionId: id });
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
    const tools = approvalToolsOf(this.registry.get(record.origin.server)?.tools ?? []);
    if (!tools) return `Server "${record.origin.server}" offers no request_approval and check_approval tools.`;
    this.stopPolling(id);
    return this.run(id, 'approval', async () => {
      let current = record;
      const held = parseStagedEntry(await this.call(record, 'get_form_data', { model: submissionModel(record) }).catch(() => undefined));
      if (held.kind !== 'entry' || !sameJson(held.entry.fields, stagedValues(record))) {
        const fields = stagedValues(record);
        const entry = await this.stageOnServer(record, fields);
        this.dispatch({ type: 'formStaged', at: this.now(), submissionId: id, fields, entry: entry.entry });
        current = getSubmission(this.workflow.state.submissions, id)!;
        this.log.info(`Submission ${id.slice(0, 8)}: staged again on ${record.origin.server} (the server no longer held it) before requesting approval`);
      }
      const answer = parseApprovalRequest(await this.call(current, tools.request.name, requestApprovalArgs(tools.request.inputSchema, current)));
      if (!answer.ok) throw new Error(`${tools.request.name} on "${record.origin.server}" failed: ${answer.error}`);
      this.dispatch({ type: 'approvalRequested', at: this.now(), submissionId: id, approvalId: answer.id });
      this.startPolling(id);
    });
  }

  /** Submit / Discard / Request approval from a view row: asks first (the review is not on screen there). */
  private async fromView(id: string, action: 'submit' | 'discard' | 'requestApproval'): Promise<void> {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record) return;
    let error: string | undefined;
    if (action === 'submit') error = await this.submit(id, undefined, { confirm: true });
    else if (action === 'requestApproval') error = await this.requestApproval(id);
    else {
      const go = await vscode.window.showWarningMessage(`Discard "${submissionTitle(record)}"?`, { modal: true, detail: 'Nothing is submitted. The ledger keeps a record of the discarded form.' }, 'Discard');
      if (go === 'Discard') error = this.discard(id);
    }
    if (error) {
      const open = 'Open';
      if ((await vscode.window.showErrorMessage(`Plangate: ${error}`, open)) === open) this.show(id);
    }
  }

  /** collect_form_data, then get_form_data; `note` says when the server did not show its entry. */
  private async stageOnServer(record: SubmissionRecord, fields: Record<string, unknown>): Promise<{ entry?: StagedEntry; note?: string }> {
    const model = submissionModel(record);
    const staged = parseStagedEntry(await this.call(record, 'collect_form_data', { model, fields, mode: record.form.mode }));
    if (staged.kind === 'error') throw new Error(`collect_form_data on "${record.origin.server}" failed: ${staged.message}. Nothing was staged; your input is kept.`);
    const held = parseStagedEntry(await this.call(record, 'get_form_data', { model }).catch((err: unknown) => ({ content: [{ type: 'text', text: String(err instanceof Error ? err.message : err) }], isError: true })));
    if (held.kind === 'entry') return { entry: held.entry };
    const note = `Staged, but get_form_data did not return the entry (${held.message}): the review shows the values Plangate staged.`;
    return staged.kind === 'entry' ? { entry: staged.entry, note } : { note };
  }

  private async call(record: SubmissionRecord, tool: string, args: Record<string, unknown>): Promise<ToolResult> {
    const conn = this.registry.get(record.origin.server);
    if (conn?.state !== 'running') throw new Error(`Server "${record.origin.server}" is not running: start it in the Servers view and try again.`);
    if (!conn.tools.some((t) => t.name === tool)) throw new Error(`Server "${record.origin.server}" does not offer ${tool}, which collect mode needs.`);
    return this.options.door.call(
      { server: record.origin.server, tool, args, entrance: 'collect', decision: { by: 'user', what: `collect mode: ${tool} for the form the user filled` } },
      { timeoutMs: this.options.timeoutMs() },
    );
  }

  /** The record if it can still be acted on, else why not. */
  private active(id: string): SubmissionRecord | string {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record) return 'That form no longer exists.';
    if (record.phase === 'finished') return `This form is ${record.outcome ?? 'finished'}.`;
    if (this.busy.has(id)) return 'Wait for the current action to finish.';
    return record;
  }

  /** The form's values, or (after recording the per-field problems for the panel) a summary of what to fix. */
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

  /** Runs an action with its busy state; a thrown error becomes the shown error (and the reply). */
  private async run(id: string, busy: Busy, fn: () => Promise<void>): Promise<string | undefined> {
    this.busy.set(id, busy);
    this.errors.delete(id);
    this._onDidChange.fire();
    try {
      await fn();
      return undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.errors.set(id, message);
      this.log.warn(`Submission ${id.slice(0, 8)} (${busy}): ${message}`);
      return message;
    } finally {
      this.busy.delete(id);
      this._onDidChange.fire();
    }
  }

  private dispatch(event: Parameters<Workflow['dispatch']>[0]): void {
    if (!this.workflow.dispatch(event)) throw new Error(this.workflow.canApply(event) ?? 'The ledger refused the change.');
    if ('submissionId' in event) this.log.info(`${event.type} submission ${event.submissionId.slice(0, 8)}${event.type === 'formSubmitted' ? ` (${event.ok ? 'ok' : `failed: ${event.error}`})` : event.type === 'approvalChecked' ? ` (${event.status})` : ''}`);
  }

  private clearTransient(id: string): void {
    this.errors.delete(id);
    this.problems.delete(id);
  }

  // ---- approval polling ------------------------------------------------------------------------------------

  private startPolling(id: string): void {
    const record = getSubmission(this.workflow.state.submissions, id);
    const tools = record && approvalToolsOf(this.registry.get(record.origin.server)?.tools ?? []);
    if (!record?.approval || record.approval.status !== 'pending' || !tools || this.polls.has(id)) return;
    const approvalId = record.approval.id;
    const cts = new CancellationTokenSource();
    const poll: { cts: CancellationTokenSource; nextCheckAt?: number } = { cts };
    this.polls.set(id, poll);
    this.updateStatus();
    const check = async () => parseApprovalCheck(await this.call(record, tools.check.name, checkApprovalArgs(tools.check.inputSchema, approvalId)));
    void pollApproval(check, {
      schedule: this.options.schedule,
      token: cts.token,
      onWait: (delay) => { poll.nextCheckAt = this.now() + delay; this._onDidChange.fire(); },
    }).then((outcome) => {
      if (this.polls.get(id) !== poll) return;
      this.polls.delete(id);
      cts.dispose();
      const current = getSubmission(this.workflow.state.submissions, id);
      if (outcome.status === 'approved' || outcome.status === 'rejected') {
        if (current?.approval?.id === approvalId && current.approval.status === 'pending') {
          this.workflow.dispatch({ type: 'approvalChecked', at: this.now(), submissionId: id, status: outcome.status, reason: outcome.reason });
          this.log.info(`Submission ${id.slice(0, 8)}: approval ${approvalId} ${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''}`);
          void this.notifyDecision(id, outcome.status, outcome.reason);
        }
      } else if (outcome.status === 'error') {
        this.errors.set(id, `${tools.check.name} on "${record.origin.server}" failed: ${outcome.error}. Request approval again to start over.`);
      }
      this.updateStatus();
      this._onDidChange.fire();
    });
  }

  private stopPolling(id: string): void {
    const poll = this.polls.get(id);
    if (!poll) return;
    this.polls.delete(id);
    poll.cts.cancel();
    poll.cts.dispose();
    this.updateStatus();
    this._onDidChange.fire();
  }

  /** Pending approvals in the ledger (e.g. after a reload) are polled again once their server runs. */
  private resumePolling(): void {
    for (const record of stagedSubmissions(this.workflow.state.submissions)) {
      if (record.approval?.status === 'pending' && !this.polls.has(record.id) && !this.busy.has(record.id) && !this.errors.has(record.id)
        && this.registry.get(record.origin.server)?.state === 'running') this.startPolling(record.id);
    }
  }

  private async notifyDecision(id: string, status: 'approved' | 'rejected', reason?: string): Promise<void> {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record) return;
    const open = 'Open';
    const choice = status === 'approved'
      ? await vscode.window.showInformationMessage(`Plangate: "${submissionTitle(record)}" was approved; you can submit it now.`, open)
      : await vscode.window.showWarningMessage(`Plangate: "${submissionTitle(record)}" was rejected${reason ? `: ${reason}` : ''}.`, open);
    if (choice === open) this.show(id);
  }

  /** The second status bar item: shown while Plangate waits for a reviewer (the workflow item keeps its own text). */
  private updateStatus(): void {
    const waiting = stagedSubmissions(this.workflow.state.submissions).filter((s) => s.approval?.status === 'pending');
    if (waiting.length === 0) {
      this.statusItem.hide();
      return;
    }
    const polling = waiting.filter((s) => this.polls.has(s.id)).length;
    const text = `Plangate: waiting for approval${waiting.length > 1 ? ` (${waiting.length})` : ''}`;
    this.statusItem.text = `$(watch) ${text}`;
    this.statusItem.tooltip = ['Plangate: staged submissions waiting for a reviewer', ...waiting.map((s) => `• ${submissionTitle(s)} on ${s.origin.server}${this.polls.has(s.id) ? '' : ' (not polling: its server is not running, or checking failed)'}`), '', 'Click to open the first one.'].join('\n');
    this.statusItem.accessibilityInformation = { label: `${text}${polling < waiting.length ? `, ${waiting.length - polling} not polling` : ''}`, role: 'button' };
    this.statusItem.command = { command: SubmissionCommands.open, title: 'Open', arguments: [waiting[0]!.id] };
    this.statusItem.show();
  }

  override dispose(): void {
    for (const id of [...this.polls.keys()]) this.stopPolling(id);
    if (this.draftTimer) {
      clearTimeout(this.draftTimer);
      this.draftTimer = undefined;
      void this.options.memento?.update(DRAFTS_KEY, Object.fromEntries(this.drafts));
    }
    super.dispose();
  }
}

const STATE_ICON: Record<string, string> = {
  'not staged': 'edit', 'not submitted': 'edit', staged: 'inbox', 'waiting for approval': 'watch', approved: 'verified', rejected: 'circle-slash',
  'submit failed': 'error', submitted: 'pass', discarded: 'trash', replaced: 'arrow-swap',
};

/** A submission as a tree row (Staged and Plans views): title, server · model · state · age, the values in the tooltip. */
export function submissionTreeItem(record: SubmissionRecord, now: number, options: { collapsible?: boolean } = {}): vscode.TreeItem {
  const state = describeSubmissionState(record);
  const item = new vscode.TreeItem(submissionTitle(record), options.collapsible ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  const when = record.phase === 'finished' ? record.finishedAt ?? record.receivedAt : record.stagedAt ?? record.receivedAt;
  item.description = `${record.origin.server} · ${submissionModel(record)} · ${state} · ${formatAge(when, now)}`;
  const tooltip = new vscode.MarkdownString(undefined, false);
  tooltip.appendText(`${submissionTitle(record)} — ${state}\nServer: ${record.origin.server}\nModel: ${submissionModel(record)}\n`);
  tooltip.appendText(`Form received: ${new Date(record.receivedAt).toLocaleString()}${record.stagedAt ? `\nStaged: ${new Date(record.stagedAt).toLocaleString()}` : ''}\n`);
  const values = record.submitted ? (record.submitted.args.attributes as Record<string, unknown> | undefined) : record.fields;
  if (values && Object.keys(values).length) {
    tooltip.appendText('\n');
    for (const [k, v] of Object.entries(values).slice(0, 20)) tooltip.appendText(`${k}: ${displayValue(v).slice(0, 120)}\n`);
  }
  if (record.approval?.reason) tooltip.appendText(`\nReviewer: ${record.approval.reason}\n`);
  if (record.lastError && record.phase !== 'finished') tooltip.appendText(`\nLast submit failed: ${record.lastError}\n`);
  if (record.result) tooltip.appendText(`\nResult: ${record.result}\n`);
  item.tooltip = tooltip;
  item.iconPath = new vscode.ThemeIcon(STATE_ICON[state] ?? 'note');
  item.contextValue = `submission.${record.phase}`;
  item.command = { command: SubmissionCommands.open, title: 'Open', arguments: [record.id] };
  item.accessibilityInformation = { label: `Submission ${submissionTitle(record)}, ${state}, ${record.origin.server}, ${submissionModel(record)}` };
  return item;
}

/** All submissions, newest first (for the Plans view's history). */
export function submissionHistory(workflow: Workflow): SubmissionRecord[] {
  return submissionList(workflow.state.submissions).reverse();
}

/** What the plan panel needs from {@link CollectForms}. */
export type CollectFormHost = Pick<CollectForms, 'view' | 'title' | 'badge' | 'handle' | 'saveDraft' | 'onDidChange'>;
