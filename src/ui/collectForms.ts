import * as vscode from 'vscode';
import type { CollectFormPayload } from '../core/plan/collectForm';
import { CollectEngine, type CollectHost } from '../core/collect/engine';
import { getSubmission, stagedSubmissions, submissionList, submissionModel } from '../core/forms/reducer';
import type { PollSchedule } from '../core/collect/remoteApproval';
import type { ControlValue, SubmissionRecord } from '../core/forms/types';
import { describeSubmissionState, displayValue, formatAge, submissionTitle } from '../core/forms/words';
import type { Door } from '../core/engine/door';
import type { PlanOrigin } from '../core/plan/plan';
import type { Workflow } from '../core/workflow/ledger';
import { DisposableBase, Emitter } from '../core/base/lifecycle';
import type { ToolResult } from '../core/base/toolResult';
import type { ServerRegistry } from '../mcp/registry';
import type { CollectFormView } from '../shared/protocol/collect';
import type { FromWebview } from '../shared/protocol/panel';
import { toCollectFormView } from '../core/present/collectView';
import { Commands } from './constants';

/** Submission commands (hidden from the palette): the Staged view's inline buttons and rows, the Plans view and the approval status item use them. */
export const SubmissionCommands = {
  open: Commands.openSubmission,
  submit: Commands.submitSubmission,
  discard: Commands.discardSubmission,
  // Only from the Staged view's rows and the panel (it needs a server offering approval tools): not contributed.
  requestApproval: 'plangate.requestSubmissionApproval',
} as const;

export interface CollectFormsOptions {
  /** The one door for tool calls (stage, read back, submit, remote approval). */
  door: Door;
  newId: () => string;
  /** Per-call timeout (the step timeout setting). */
  timeoutMs: () => number;
  /** The approval polling schedule (default 1 s, 2 s, 4 s … capped at 30 s). */
  schedule?: PollSchedule;
  /** Where drafts (typed, not yet staged or submitted) are kept across window reloads. */
  memento?: vscode.Memento;
}

const DRAFTS_KEY = 'plangate.collect.drafts';

/** Where a submission is shown (the plan panel). */
export interface CollectFormPanel {
  showCollectForm(submissionId: string, title: string, options: { focus?: boolean }): void;
}

/**
 * Collect mode in VS Code, over the core engine (core/collect/engine.ts, which stages, submits, discards and polls
 * for approval through the door): the submission commands, the modal confirmations, the "waiting for approval"
 * status bar item, the reviewer's decision as a notification, drafts kept in the workspace memento, and the
 * panel's collect-form views and intents.
 */
export class CollectForms extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Fires when something the panel shows changes that is not in the ledger (busy, errors, polling, server state). */
  readonly onDidChange = this._onDidChange.event;

  private readonly engine: CollectEngine;
  private readonly statusItem: vscode.StatusBarItem;
  private draftTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly workflow: Workflow,
    registry: ServerRegistry,
    private readonly panel: CollectFormPanel,
    log: vscode.LogOutputChannel,
    private readonly options: CollectFormsOptions,
  ) {
    super();
    const host: CollectHost = {
      server: (name) => registry.get(name),
      confirmReplace: async (record, conflict) => {
        const go = await vscode.window.showWarningMessage(
          `A ${submissionModel(record)} submission is already staged on "${record.origin.server}".`,
          {
            modal: true,
            detail: `"${submissionTitle(conflict)}" was staged ${formatAge(conflict.stagedAt ?? conflict.receivedAt, Date.now())}. The server keeps one staged entry per model: staging this form replaces it, and the earlier one can no longer be submitted.`,
          },
          'Stage and Replace',
        );
        return go === 'Stage and Replace';
      },
      confirmSubmit: async (record, call) => {
        const names = Object.keys(call.args.attributes as Record<string, unknown>);
        const go = await vscode.window.showWarningMessage(
          `Submit "${submissionTitle(record)}" to "${record.origin.server}"?`,
          {
            modal: true,
            detail: `Plangate calls ${call.tool}${record.form.recordId !== undefined ? ` for record ${record.form.recordId}` : ''} with ${names.length} attribute${names.length === 1 ? '' : 's'}: ${names.slice(0, 12).join(', ')}${names.length > 12 ? ', …' : ''}.`,
          },
          'Submit',
        );
        return go === 'Submit';
      },
      log: (level, message) => (level === 'warn' ? log.warn(message) : log.info(message)),
    };
    this.engine = this._register(
      new CollectEngine(workflow, options.door, host, {
        newId: options.newId,
        timeoutMs: options.timeoutMs,
        schedule: options.schedule,
        drafts: options.memento?.get<Record<string, Record<string, ControlValue>>>(DRAFTS_KEY, {}),
      }),
    );
    this.statusItem = this._register(vscode.window.createStatusBarItem('plangate.approval', vscode.StatusBarAlignment.Left, 89));
    this.statusItem.name = 'Plangate approvals';
    this._register(
      this.engine.onDidChange(() => {
        this.updateStatus();
        this._onDidChange.fire();
      }),
    );
    this._register(this.engine.onDidChangeDrafts(() => this.persistDrafts()));
    this._register(this.engine.onDidDecide(({ submissionId, status, reason }) => void this.notifyDecision(submissionId, status, reason)));
    this._register(
      workflow.onDidChange(({ event }) => {
        if ('submissionId' in event) this.updateStatus();
      }),
    );
    this._register(
      registry.onDidChange(() => {
        this.engine.resumePolling();
        this._onDidChange.fire();
      }),
    );
    this._register(vscode.commands.registerCommand(SubmissionCommands.open, (id: string) => this.show(id, true)));
    this._register(vscode.commands.registerCommand(SubmissionCommands.submit, (id: string) => this.fromView(id, 'submit')));
    this._register(vscode.commands.registerCommand(SubmissionCommands.discard, (id: string) => this.fromView(id, 'discard')));
    this._register(
      vscode.commands.registerCommand(SubmissionCommands.requestApproval, (id: string) => this.fromView(id, 'requestApproval')),
    );
    this.updateStatus();
  }

  /** A form tool answered with a form: records it and opens it in the panel. Returns the submission id. */
  open(origin: PlanOrigin, form: CollectFormPayload, options: { focus?: boolean } = {}): string {
    const id = this.engine.receive(origin, form);
    this.show(id, options.focus ?? true);
    return id;
  }

  /** A form tool answered with a form that the server's app will show: records it without opening the native form. */
  receive(origin: PlanOrigin, form: CollectFormPayload): string {
    return this.engine.receive(origin, form);
  }

  /**
   * The server's form app `app` (its ui:// page) collected its fields (its Done): stages the submission for review as
   * the native form's Stage for review does, but as the app's doing — the ledger's entrance is the app, and the policy
   * asks as it does for an app's calls. Returns the error in words, or undefined.
   */
  stageFromApp(id: string, fields: Record<string, unknown>, app: string): Promise<string | undefined> {
    return this.engine.stage(id, fields, { app });
  }

  /**
   * What the server's form app is shown with when the user switches a submission to it: the form tool's call, and its
   * result with the values the user has so far — staged, then typed and not staged — as the form's defaults, so that
   * switching loses nothing typed. Undefined when the submission is gone or finished.
   */
  formFor(id: string): { server: string; tool: string; args: Record<string, unknown>; title: string; result: ToolResult } | undefined {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record || record.phase === 'finished') return undefined;
    const defaults = { ...record.form.defaults, ...(record.fields ?? {}), ...(this.engine.drafts()[id] ?? {}) };
    return {
      server: record.origin.server,
      tool: record.origin.tool,
      args: record.origin.args,
      title: submissionTitle(record),
      result: { content: [{ type: 'text', text: JSON.stringify({ ...record.form, defaults }) }] },
    };
  }

  /** The server and tool whose result a submission's form is. */
  origin(id: string): { server: string; tool: string } | undefined {
    const record = getSubmission(this.workflow.state.submissions, id);
    return record && { server: record.origin.server, tool: record.origin.tool };
  }

  /** Opens a submission in the panel. */
  show(id: string, focus = true): void {
    if (getSubmission(this.workflow.state.submissions, id)) this.panel.showCollectForm(id, this.title(id), { focus });
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
    const snapshot = this.engine.snapshot(id);
    return snapshot && toCollectFormView(snapshot);
  }

  /** The panel's collect-form intents. Returns an error text for the webview, or undefined. */
  async handle(message: Extract<FromWebview, { type: 'collectForm' }>): Promise<string | undefined> {
    switch (message.action) {
      case 'stage':
        return this.engine.stage(message.submissionId, message.controls ?? {});
      case 'submit':
        return this.engine.submit(message.submissionId, message.controls);
      case 'discard':
        return this.engine.discard(message.submissionId);
      case 'requestApproval':
        return this.engine.requestApproval(message.submissionId);
      default:
        return 'Unknown form action.';
    }
  }

  /** Keeps what the user typed into a field (the panel sends each change), so a window reload loses nothing. */
  saveDraft(id: string, field: string, value: ControlValue): void {
    this.engine.saveDraft(id, field, value);
  }

  private persistDrafts(): void {
    if (!this.options.memento || this.draftTimer) return;
    this.draftTimer = setTimeout(() => {
      this.draftTimer = undefined;
      void this.options.memento?.update(DRAFTS_KEY, this.engine.drafts());
    }, 300);
  }

  /** Submit / Discard / Request approval from a view row: asks first (the review is not on screen there). */
  private async fromView(id: string, action: 'submit' | 'discard' | 'requestApproval'): Promise<void> {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record) return;
    let error: string | undefined;
    if (action === 'submit') error = await this.engine.submit(id, undefined, { confirm: true });
    else if (action === 'requestApproval') error = await this.engine.requestApproval(id);
    else {
      const go = await vscode.window.showWarningMessage(
        `Discard "${submissionTitle(record)}"?`,
        { modal: true, detail: 'Nothing is submitted. The ledger keeps a record of the discarded form.' },
        'Discard',
      );
      if (go === 'Discard') error = this.engine.discard(id);
    }
    if (error) {
      const open = 'Open';
      if ((await vscode.window.showErrorMessage(`Plangate: ${error}`, open)) === open) this.show(id);
    }
  }

  private async notifyDecision(id: string, status: 'approved' | 'rejected', reason?: string): Promise<void> {
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record) return;
    const open = 'Open';
    const choice =
      status === 'approved'
        ? await vscode.window.showInformationMessage(`Plangate: "${submissionTitle(record)}" was approved; you can submit it now.`, open)
        : await vscode.window.showWarningMessage(
            `Plangate: "${submissionTitle(record)}" was rejected${reason ? `: ${reason}` : ''}.`,
            open,
          );
    if (choice === open) this.show(id);
  }

  /** The second status bar item: shown while Plangate waits for a reviewer (the workflow item keeps its own text). */
  private updateStatus(): void {
    const waiting = stagedSubmissions(this.workflow.state.submissions).filter((s) => s.approval?.status === 'pending');
    if (waiting.length === 0) {
      this.statusItem.hide();
      return;
    }
    const polling = waiting.filter((s) => this.engine.isPolling(s.id)).length;
    const text = `Plangate: waiting for approval${waiting.length > 1 ? ` (${waiting.length})` : ''}`;
    this.statusItem.text = `$(watch) ${text}`;
    this.statusItem.tooltip = [
      'Plangate: staged submissions waiting for a reviewer',
      ...waiting.map(
        (s) =>
          `• ${submissionTitle(s)} on ${s.origin.server}${this.engine.isPolling(s.id) ? '' : ' (not polling: its server is not running, or checking failed)'}`,
      ),
      '',
      'Click to open the first one.',
    ].join('\n');
    this.statusItem.accessibilityInformation = {
      label: `${text}${polling < waiting.length ? `, ${waiting.length - polling} not polling` : ''}`,
      role: 'button',
    };
    this.statusItem.command = { command: SubmissionCommands.open, title: 'Open', arguments: [waiting[0]!.id] };
    this.statusItem.show();
  }

  override dispose(): void {
    if (this.draftTimer) {
      clearTimeout(this.draftTimer);
      this.draftTimer = undefined;
      void this.options.memento?.update(DRAFTS_KEY, this.engine.drafts());
    }
    super.dispose();
  }
}

const STATE_ICON: Record<string, string> = {
  'not staged': 'edit',
  'not submitted': 'edit',
  staged: 'inbox',
  'waiting for approval': 'watch',
  approved: 'verified',
  rejected: 'circle-slash',
  'submit failed': 'error',
  submitted: 'pass',
  discarded: 'trash',
  replaced: 'arrow-swap',
};

/** A submission as a tree row (Staged and Plans views): title, server · model · state · age, the values in the tooltip. */
export function submissionTreeItem(record: SubmissionRecord, now: number, options: { collapsible?: boolean } = {}): vscode.TreeItem {
  const state = describeSubmissionState(record);
  const item = new vscode.TreeItem(
    submissionTitle(record),
    options.collapsible ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
  );
  const when = record.phase === 'finished' ? (record.finishedAt ?? record.receivedAt) : (record.stagedAt ?? record.receivedAt);
  item.description = `${record.origin.server} · ${submissionModel(record)} · ${state} · ${formatAge(when, now)}`;
  const tooltip = new vscode.MarkdownString(undefined, false);
  tooltip.appendText(`${submissionTitle(record)} — ${state}\nServer: ${record.origin.server}\nModel: ${submissionModel(record)}\n`);
  tooltip.appendText(
    `Form received: ${new Date(record.receivedAt).toLocaleString()}${record.stagedAt ? `\nStaged: ${new Date(record.stagedAt).toLocaleString()}` : ''}\n`,
  );
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
  item.accessibilityInformation = {
    label: `Submission ${submissionTitle(record)}, ${state}, ${record.origin.server}, ${submissionModel(record)}`,
  };
  return item;
}

/** All submissions, newest first (for the Plans view's history). */
export function submissionHistory(workflow: Workflow): SubmissionRecord[] {
  return submissionList(workflow.state.submissions).reverse();
}

/** What the plan panel needs from {@link CollectForms}. */
export type CollectFormHost = Pick<CollectForms, 'view' | 'title' | 'badge' | 'handle' | 'saveDraft' | 'onDidChange' | 'origin'>;
