import * as vscode from 'vscode';
import { DisposableBase, Emitter, throttled } from '../core/lifecycle';
import type { Workflow } from '../core/ledger';
import { planRowView } from '../core/planRow';
import { Commands } from './constants';
import { submissionTreeItem } from './collectForms';

/** The Plans view: every top-level plan in the ledger, newest first, with server, tool, time, outcome and steps. */
export class PlansView extends DisposableBase implements vscode.TreeDataProvider<string> {
  private readonly _onDidChangeTreeData = this._register(new Emitter<string | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event as vscode.Event<string | undefined>;

  constructor(private readonly workflow: Workflow) {
    super();
    // Each refresh sends every row to the window again: at most four a second, however fast a run goes.
    this._register(this._register(throttled(workflow.onDidChange, 250))(() => this._onDidChangeTreeData.fire(undefined)));
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
    return rows
      .map((r, i) => ({ ...r, i }))
      .sort((a, b) => b.at - a.at || b.i - a.i)
      .map((r) => r.key);
  }

  getTreeItem(id: string): vscode.TreeItem {
    if (id.startsWith('submission:'))
      return submissionTreeItem(this.workflow.state.submissions[id.slice('submission:'.length)], Date.now());
    const record = this.workflow.state.plans[id];
    const row = planRowView(record, new Date(record.receivedAt).toLocaleString());
    const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    item.description = row.description;
    item.tooltip = row.tooltip;
    item.iconPath = new vscode.ThemeIcon(row.icon);
    item.contextValue = row.contextValue;
    item.command = { command: Commands.openPlan, title: 'Open Plan', arguments: [id] };
    item.accessibilityInformation = { label: row.accessibilityLabel };
    return item;
  }
}
