import * as vscode from 'vscode';
import { callRowView, callsGroupDescription, type CallRowView } from '../core/present/callRow';
import { DisposableBase, Emitter, throttled } from '../core/base/lifecycle';
import type { Workflow } from '../core/workflow/ledger';
import { planRowView, type PlanRowView } from '../core/present/planRow';
import { Commands } from './constants';
import { submissionTreeItem } from './collectForms';
import { fireRefresh, lookWithChildren, TopRows } from './treeRefresh';

/** The id of the Calls group row; a call's row is `call:<callId>`. */
export const CALLS_GROUP = 'calls';
const CALL_PREFIX = 'call:';

/**
 * The Plans view: every top-level plan in the ledger, newest first, with server, tool, time, outcome and steps; and
 * above them a **Calls** group with the recent single calls (the agent's, Call Tool's, an app's, …), each with how it
 * ended and the policy's decision with its rule id.
 */
export class PlansView extends DisposableBase implements vscode.TreeDataProvider<string> {
  private readonly _onDidChangeTreeData = this._register(new Emitter<string[] | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event as vscode.Event<string[] | undefined>;
  /** A row's look: its item, and the Calls group's rows under it. */
  private readonly top = new TopRows<string>(
    (id) => id,
    (id) => lookWithChildren<string>(this, id),
  );

  constructor(private readonly workflow: Workflow) {
    super();
    // At most four refreshes a second, however fast a run goes. The rows alone while they stay the same rows
    // (treeRefresh.ts: Export clicked during a refresh of the whole tree lost its row), and of them only those that
    // show something new: a plan's row clicked while another plan runs opens its plan.
    const refresh = () => fireRefresh(this._onDidChangeTreeData, this.top.refresh(this.topRows()));
    this._register(this._register(throttled(workflow.onDidChange, 250))(refresh));
    this._register(this._register(throttled(workflow.onDidRecordCall, 250))(refresh));
  }

  getChildren(element?: string): string[] {
    if (element === CALLS_GROUP) return this.workflow.recentCalls.list().map((c) => `${CALL_PREFIX}${c.callId}`);
    if (element) return [];
    return this.top.show(this.topRows());
  }

  /** The Calls group, then every top-level plan and collect-mode submission, newest first. */
  private topRows(): string[] {
    const calls = this.workflow.recentCalls.list().length > 0 ? [CALLS_GROUP] : [];
    const { plans, order, submissions } = this.workflow.state;
    const planIds = order.filter((id) => plans[id] && plans[id].depth === 0);
    if (Object.keys(submissions).length === 0) return [...calls, ...planIds.reverse()];
    // Collect-mode submissions are listed with the plans, newest first, by when they arrived.
    const rows = [
      ...planIds.map((id) => ({ key: id, at: plans[id].receivedAt })),
      ...Object.values(submissions).map((s) => ({ key: `submission:${s.id}`, at: s.receivedAt })),
    ];
    return [
      ...calls,
      ...rows
        .map((r, i) => ({ ...r, i }))
        .sort((a, b) => b.at - a.at || b.i - a.i)
        .map((r) => r.key),
    ];
  }

  getTreeItem(id: string): vscode.TreeItem {
    if (id === CALLS_GROUP) {
      const item = new vscode.TreeItem('Calls', vscode.TreeItemCollapsibleState.Collapsed);
      item.id = CALLS_GROUP;
      item.description = callsGroupDescription(this.workflow.recentCalls.list());
      item.tooltip = 'Single tool calls (the chat agent, Call Tool, MCP Apps, forms), newest first, with the policy decision on each.';
      item.iconPath = new vscode.ThemeIcon('call-outgoing');
      item.contextValue = 'calls';
      return item;
    }
    if (id.startsWith(CALL_PREFIX)) {
      const call = this.workflow.recentCalls.get(id.slice(CALL_PREFIX.length));
      if (!call) return new vscode.TreeItem('(call no longer listed)');
      return treeItem(callRowView(call, new Date(call.at).toLocaleString()));
    }
    if (id.startsWith('submission:'))
      return submissionTreeItem(this.workflow.state.submissions[id.slice('submission:'.length)], Date.now());
    const record = this.workflow.state.plans[id];
    const item = treeItem(planRowView(record, new Date(record.receivedAt).toLocaleString()));
    item.command = { command: Commands.openPlan, title: 'Open Plan', arguments: [id] };
    return item;
  }
}

/** A row of the view as core words it (a plan's or a call's). */
function treeItem(row: PlanRowView | CallRowView): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
  item.description = row.description;
  item.tooltip = row.tooltip;
  item.iconPath = new vscode.ThemeIcon(row.icon);
  item.contextValue = row.contextValue;
  item.accessibilityInformation = { label: row.accessibilityLabel };
  return item;
}
