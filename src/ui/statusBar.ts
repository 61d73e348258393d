import * as vscode from 'vscode';
import { DisposableBase, throttled, type Event } from '../core/base/lifecycle';
import type { AttentionView } from '../core/present/attention';
import { describeStatus, STATUS_ICONS, type StatusKind } from '../core/present/workflowWords';
import type { Workflow } from '../core/workflow/ledger';
import { Commands } from './constants';

/**
 * One status bar item with the workflow state in words; clicking it reveals the plan panel. While the window is not
 * focused and something waits for the user (attention.ts), it says what waits and for how long, on the warning colour.
 */
export class WorkflowStatusBar extends DisposableBase {
  private readonly item: vscode.StatusBarItem;

  constructor(
    private readonly workflow: Workflow,
    /** Single calls waiting on the policy's card (policyCards.ts): they count as awaiting approval. */
    private readonly pendingCalls?: { readonly pending: number; readonly onDidChange: Event<void> },
    private readonly attention?: { readonly view: AttentionView | undefined; readonly onDidChange: Event<void> },
  ) {
    super();
    this.item = this._register(vscode.window.createStatusBarItem('plangate.status', vscode.StatusBarAlignment.Left, 90));
    this.item.name = 'Plangate';
    this.item.command = Commands.showPanel;
    // A long run changes the workflow thousands of times; the status bar is redrawn at most ten times a second.
    this._register(this._register(throttled(workflow.onDidChange, 100))(() => this.update()));
    if (pendingCalls) this._register(pendingCalls.onDidChange(() => this.update()));
    if (attention) this._register(attention.onDidChange(() => this.update()));
    this.update();
    this.item.show();
  }

  private shown = '';

  private update(): void {
    const waiting = this.attention?.view;
    if (waiting) return this.show(`${STATUS_ICONS.awaiting} Plangate: ${waiting.text}`, waiting.text, waiting.tooltip, 'awaiting');
    const status = describeStatus(this.workflow.state, this.pendingCalls?.pending ?? 0);
    this.show(`${status.icon} Plangate: ${status.text}`, status.text, status.tooltip, status.state);
  }

  private show(text: string, words: string, tooltip: string, state: StatusKind): void {
    // Every property set is a message to the window: set them only when what they say changed.
    const key = JSON.stringify([text, tooltip, state]);
    if (key === this.shown) return;
    this.shown = key;
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: `Plangate: ${words}`, role: 'button' };
    this.item.backgroundColor =
      state === 'blocked'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : state === 'awaiting' || state === 'follow_up'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
  }
}
