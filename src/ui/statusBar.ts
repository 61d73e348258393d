import * as vscode from 'vscode';
import { DisposableBase, throttled, type Event } from '../core/base/lifecycle';
import { describeStatus } from '../core/present/workflowWords';
import type { Workflow } from '../core/workflow/ledger';
import { Commands } from './constants';

/** One status bar item with the workflow state in words; clicking it reveals the plan panel. */
export class WorkflowStatusBar extends DisposableBase {
  private readonly item: vscode.StatusBarItem;

  constructor(
    private readonly workflow: Workflow,
    /** Single calls waiting on the policy's card (policyCards.ts): they count as awaiting approval. */
    private readonly pendingCalls?: { readonly pending: number; readonly onDidChange: Event<void> },
  ) {
    super();
    this.item = this._register(vscode.window.createStatusBarItem('plangate.status', vscode.StatusBarAlignment.Left, 90));
    this.item.name = 'Plangate';
    this.item.command = Commands.showPanel;
    // A long run changes the workflow thousands of times; the status bar is redrawn at most ten times a second.
    this._register(this._register(throttled(workflow.onDidChange, 100))(() => this.update()));
    if (pendingCalls) this._register(pendingCalls.onDidChange(() => this.update()));
    this.update();
    this.item.show();
  }

  private shown = '';

  private update(): void {
    const status = describeStatus(this.workflow.state, this.pendingCalls?.pending ?? 0);
    // Every property set is a message to the window: set them only when what they say changed.
    const key = JSON.stringify(status);
    if (key === this.shown) return;
    this.shown = key;
    this.item.text = `${status.icon} Plangate: ${status.text}`;
    this.item.tooltip = status.tooltip;
    this.item.accessibilityInformation = { label: `Plangate: ${status.text}`, role: 'button' };
    this.item.backgroundColor =
      status.state === 'blocked'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : status.state === 'awaiting' || status.state === 'follow_up'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }
}
