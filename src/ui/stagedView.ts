import * as vscode from 'vscode';
import { DisposableBase, Emitter } from '../core/base/lifecycle';
import type { Workflow } from '../core/workflow/ledger';
import { getSubmission, stagedSubmissions, submitBlocker } from '../core/forms/reducer';
import { approvalToolsOf } from '../core/collect/remoteApproval';
import type { ServerRegistry } from '../mcp/registry';
import { SubmissionCommands, submissionTreeItem } from './collectForms';
import { fireRefresh, lookWithChildren, TopRows } from './treeRefresh';

type Action = 'open' | 'submit' | 'requestApproval' | 'discard';
const ACTION_SEP = '\u0000';

/**
 * The Staged view: collect-mode submissions staged for review (from the ledger, so they survive reloads), newest
 * first, with server, model, state and age. Each row has Submit, Open in the Panel and Discard as inline buttons
 * (package.json menus) and expands into the same actions as rows, plus Request approval when the server offers it,
 * so the keyboard reaches every one of them.
 */
export class StagedView extends DisposableBase implements vscode.TreeDataProvider<string> {
  private readonly _onDidChangeTreeData = this._register(new Emitter<string[] | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event as vscode.Event<string[] | undefined>;
  /** A row's look: its item and its action rows' items. */
  private readonly top = new TopRows<string>(
    (id) => id,
    (id) => lookWithChildren<string>(this, id),
  );

  constructor(
    private readonly workflow: Workflow,
    private readonly registry: ServerRegistry,
  ) {
    super();
    // The rows alone while they stay the same rows (treeRefresh.ts: Submit clicked during a refresh of the whole
    // tree lost its row), and of them only those that show something new: the registry changes many times while
    // servers start, and a staged row shows of it only whether its server offers Request approval.
    const refresh = () => fireRefresh(this._onDidChangeTreeData, this.top.refresh(this.topRows()));
    this._register(
      workflow.onDidChange(({ event }) => {
        if ('submissionId' in event) refresh();
      }),
    );
    this._register(registry.onDidChange(refresh));
    // Ages ("5 min ago") move on by themselves.
    const timer = setInterval(() => {
      if (stagedSubmissions(this.workflow.state.submissions).length) refresh();
    }, 60_000);
    this._register({ dispose: () => clearInterval(timer) });
  }

  /** The staged submissions, newest first. */
  private topRows(): string[] {
    return stagedSubmissions(this.workflow.state.submissions)
      .reverse()
      .map((s) => s.id);
  }

  getChildren(element?: string): string[] {
    const { submissions } = this.workflow.state;
    if (!element) return this.top.show(this.topRows());
    const record = getSubmission(submissions, element);
    if (!record || record.phase !== 'staged') return [];
    const actions: Action[] = ['open', 'submit'];
    if (approvalToolsOf(this.registry.get(record.origin.server)?.tools ?? [])) actions.push('requestApproval');
    actions.push('discard');
    return actions.map((a) => `${element}${ACTION_SEP}${a}`);
  }

  getTreeItem(key: string): vscode.TreeItem {
    const [id, action] = key.split(ACTION_SEP) as [string, Action | undefined];
    const record = getSubmission(this.workflow.state.submissions, id);
    if (!record) return new vscode.TreeItem('(gone)');
    if (!action) return submissionTreeItem(record, Date.now(), { collapsible: true });
    const blocker = action === 'submit' ? submitBlocker(record) : undefined;
    const spec: Record<Action, { label: string; icon: string; command: string; description?: string }> = {
      open: { label: 'Open in the panel', icon: 'go-to-file', command: SubmissionCommands.open },
      submit: { label: 'Submit', icon: 'check', command: SubmissionCommands.submit, description: blocker },
      requestApproval: {
        label: record.approval?.status === 'pending' ? 'Request approval again' : 'Request approval',
        icon: 'person',
        command: SubmissionCommands.requestApproval,
      },
      discard: { label: 'Discard', icon: 'trash', command: SubmissionCommands.discard },
    };
    const s = spec[action];
    const item = new vscode.TreeItem(s.label, vscode.TreeItemCollapsibleState.None);
    item.iconPath = new vscode.ThemeIcon(s.icon);
    if (s.description) item.description = s.description;
    item.command = { command: s.command, title: s.label, arguments: [id] };
    item.contextValue = `submission.action.${action}`;
    item.accessibilityInformation = {
      label: `${s.label}: ${record.form.schema.title}${s.description ? ` (${s.description})` : ''}`,
      role: 'button',
    };
    return item;
  }
}
