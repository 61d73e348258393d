import * as vscode from 'vscode';
import { DisposableBase } from '../core/base/lifecycle';
import type { ApprovalLength } from '../core/policy/approvals';
import { approvalGroups, type ApprovalGroupView, type ApprovalRowView } from '../core/present/approvalRows';
import type { Workflow } from '../core/workflow/ledger';
import type { ApprovalStore } from './approvals';
import { Commands } from './constants';
import { TopRows } from './treeRefresh';
import type { PolicySource } from './policy';

type Node = ApprovalGroupView | ApprovalRowView;

/**
 * The **Approvals** view in Plangate's container: every allow in force — for this session, in this workspace, always
 * (the user's settings, written by the card or by hand), and the workspace's policy file — with where it lives, when
 * and why it was made and how often it was used (approvalRows.ts). **Revoke** on a row, **Reset** on the session and
 * workspace groups. A tree view, not a panel item: it is a standing list to look at any time beside Servers and Plans,
 * with native inline actions, and the panel is where things that wait for the user go.
 */
export class ApprovalsView extends DisposableBase implements vscode.TreeDataProvider<Node> {
  private readonly changed = this._register(new vscode.EventEmitter<Node[] | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  /** Each group and row as the same object for as long as it is listed (see treeRefresh.ts), by its key. */
  private readonly nodes = new Map<string, Node>();
  /** The groups and their rows, as the tree shows them. */
  private readonly shown = new TopRows<Node>(keyOf);

  constructor(
    private readonly approvals: Pick<ApprovalStore, 'all' | 'onDidChange' | 'revoke' | 'reset'>,
    private readonly policy: Pick<PolicySource, 'current' | 'onDidChange' | 'removeUserRule'>,
    private readonly workflow: Pick<Workflow, 'ruleUses' | 'onDidRecordCall'>,
  ) {
    super();
    // Every recorded call may change a row's count of uses: while the groups and rows stay, the rows are refreshed
    // alone, so a Revoke clicked meanwhile keeps its row (treeRefresh.ts). A polling app records a call every few seconds.
    const refresh = () => this.changed.fire(this.shown.refresh(flat(this.stableGroups()))?.filter((n) => !('rows' in n)));
    this._register(approvals.onDidChange(refresh));
    this._register(policy.onDidChange(refresh));
    this._register(workflow.onDidRecordCall(refresh));
    this._register(vscode.commands.registerCommand(Commands.revokeApproval, (row?: ApprovalRowView) => this.revoke(row)));
    this._register(vscode.commands.registerCommand(Commands.resetApprovals, (group?: ApprovalGroupView) => this.reset(group)));
  }

  groups(): ApprovalGroupView[] {
    const rules = this.policy.current;
    return approvalGroups(this.approvals.all, rules.user, rules.workspace, (id) => this.workflow.ruleUses.get(id));
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      const groups = this.stableGroups();
      this.shown.show(flat(groups));
      return groups;
    }
    return 'rows' in node ? node.rows : [];
  }

  /** {@link groups} with each group and row the object it was before, updated in place. */
  private stableGroups(): ApprovalGroupView[] {
    const listed = new Set<string>();
    const keep = <T extends Node>(view: T): T => {
      const key = keyOf(view);
      listed.add(key);
      const node = this.nodes.get(key) as T | undefined;
      if (!node) {
        this.nodes.set(key, view);
        return view;
      }
      return Object.assign(node, view);
    };
    const groups = this.groups().map((fresh) => {
      const group = keep(fresh);
      group.rows = fresh.rows.map(keep);
      return group;
    });
    for (const key of this.nodes.keys()) if (!listed.has(key)) this.nodes.delete(key);
    return groups;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if ('rows' in node) {
      const item = new vscode.TreeItem(
        node.label,
        node.rows.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `group:${node.id}`;
      item.description = node.description;
      item.tooltip = node.tooltip;
      item.contextValue = node.resettable && node.rows.length ? 'approvalGroup.resettable' : 'approvalGroup';
      item.iconPath = new vscode.ThemeIcon({ session: 'clock', workspace: 'folder', user: 'settings-gear', file: 'file-code' }[node.group]);
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.id = `approval:${node.group}:${node.ruleId}`;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.revocable ? 'approval.revocable' : 'approval';
    item.iconPath = new vscode.ThemeIcon('pass');
    item.accessibilityInformation = { label: `${node.label}, ${node.description}` };
    return item;
  }

  private async revoke(row: ApprovalRowView | undefined): Promise<void> {
    if (!row || !row.revocable) return;
    const done = row.group === 'user' ? await this.policy.removeUserRule(row.ruleId) : await this.approvals.revoke(row.ruleId);
    void vscode.window.showInformationMessage(
      done
        ? `Plangate: '${row.ruleId}' revoked — the next such call asks again.`
        : `Plangate: '${row.ruleId}' was not found (already revoked?).`,
    );
  }

  private async reset(group: ApprovalGroupView | undefined): Promise<void> {
    const length: ApprovalLength | undefined = group?.group === 'session' || group?.group === 'workspace' ? group.group : undefined;
    if (!length) return;
    await this.approvals.reset(length);
    void vscode.window.showInformationMessage(
      `Plangate: every approval ${length === 'session' ? 'for this session' : 'in this workspace'} was reset — those calls ask again.`,
    );
  }
}

function keyOf(node: Node): string {
  return 'rows' in node ? `group:${node.id}` : `approval:${node.group}:${node.ruleId}`;
}

function flat(groups: ApprovalGroupView[]): Node[] {
  return groups.flatMap((g) => [g, ...g.rows]);
}
