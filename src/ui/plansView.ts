import * as vscode from 'vscode';
import { visibleText } from '../shared/visibleText';
import { DisposableBase, Emitter } from '../core/lifecycle';
import type { Workflow } from '../core/ledger';
import { planTitle } from '../core/present';
import type { PlanRecord } from '../core/workflow';
import { Commands } from './constants';
import { submissionTreeItem } from './collectForms';

const PHASE_ICON: Record<PlanRecord['phase'], string> = {
  awaiting_approval: 'question',
  executing: 'sync~spin',
  follow_up: 'comment-discussion',
  blocked: 'warning',
  finished: 'history',
};
const OUTCOME_ICON: Record<NonNullable<PlanRecord['outcome']>, string> = {
  completed: 'pass',
  rejected: 'circle-slash',
  stopped: 'debug-stop',
  cancelled: 'close',
  not_ok: 'error',
  replaced: 'arrow-swap',
};

/** The Plans view: every top-level plan in the ledger, newest first, with server, tool, time, outcome and steps. */
export class PlansView extends DisposableBase implements vscode.TreeDataProvider<string> {
  private readonly _onDidChangeTreeData = this._register(new Emitter<string | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event as vscode.Event<string | undefined>;

  constructor(private readonly workflow: Workflow) {
    super();
    this._register(workflow.onDidChange(() => this._onDidChangeTreeData.fire(undefined)));
  }

  getChildren(element?: string): string[] {
    if (element) return [];
    const { plans, order, submissions } = this.workflow.state;
    const planIds = order.filter((id) => plans[id] && plans[id].depth === 0);
    if (Object.keys(submissions).length === 0) return planIds.reverse();
    // Collect-mode submissions are listed with the plans, newest first, by when they arrived.
    const rows = [
      ...planIds.map((id) => ({ key: id, at: plans[id].receivedAt })),
      ...Object.values(submissions).map((s) => ({ key: `submission:${s.id}`, at: s.receivedAt })),
    ];
    return rows.map((r, i) => ({ ...r, i })).sort((a, b) => b.at - a.at || b.i - a.i).map((r) => r.key);
  }

  getTreeItem(id: string): vscode.TreeItem {
    if (id.startsWith('submission:')) return submissionTreeItem(this.workflow.state.submissions[id.slice('submission:'.length)], Date.now());
    const record = this.workflow.state.plans[id];
    const item = new vscode.TreeItem(planTitle(record), vscode.TreeItemCollapsibleState.None);
    const done = record.steps.filter((s) => s.state === 'ok').length;
    const state = record.phase === 'finished' ? (record.outcome ?? 'finished') : record.phase.replace('_', ' ');
    const when = new Date(record.receivedAt).toLocaleString();
    item.description = visibleText(`${record.origin.server} · ${record.origin.tool} · ${state} · ${done}/${record.steps.length}`);
    item.tooltip = new vscode.MarkdownString(undefined, false);
    item.tooltip.appendText(`${visibleText(record.plan.instruction || record.origin.tool, { keepNewlines: true })}\n\n`);
    item.tooltip.appendText(`Server: ${visibleText(record.origin.server)}\nTool: ${visibleText(record.origin.tool)}\nReceived: ${when}\nState: ${state}\nSteps ok: ${done} of ${record.steps.length}`);
    item.iconPath = new vscode.ThemeIcon(record.phase === 'finished' && record.outcome ? OUTCOME_ICON[record.outcome] : PHASE_ICON[record.phase]);
    item.contextValue = record.phase === 'finished' ? 'plan.finished' : 'plan.active';
    item.command = { command: Commands.openPlan, title: 'Open Plan', arguments: [id] };
    item.accessibilityInformation = { label: `Plan ${planTitle(record)}, ${state}, ${record.origin.server}, ${record.origin.tool}` };
    return item;
  }
}
