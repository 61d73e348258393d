import * as vscode from 'vscode';
import type { Broker } from '../core/base/broker';
import { DisposableBase, Emitter } from '../core/base/lifecycle';
import type { CallAsk, CallAskAnswer } from '../core/engine/door';
import { AskQueue } from '../core/engine/askQueue';
import { approvalIds } from '../core/policy/approvals';
import type { AllowLength } from '../core/policy/alwaysAllow';
import { alwaysRule, callCardView, callerMidSentence } from '../core/present/callCard';
import type { ApprovalStore } from './approvals';
import type { CardFeature } from './panel/cardFeature';
import type { PolicySource } from './policy';

/**
 * The door's `ask` (core/engine/door.ts): the single-call card in the panel. The card is general — any entrance (the
 * agent, an MCP App, Call Tool under a rule that asks). Calls of one caller to one tool wait behind one card that says
 * how many wait (core/engine/askQueue.ts). Its allows: once; for this session and in this workspace (standing
 * approvals, ApprovalStore); always (the narrowest allow rule in the user's settings, said so). If a rule cannot be
 * written the card stays, with the error. When the rules change (a rule written by hand, say) the waiting calls they
 * now allow are let go.
 */
export class PolicyCards extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** The number of calls waiting changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly queue: AskQueue;
  /** The open card of each group. */
  private readonly cards = new Map<string, string>();

  constructor(
    asks: Pick<Broker<(ask: CallAsk) => Promise<CallAskAnswer>>, 'serve'>,
    private readonly panel: Pick<CardFeature, 'showCallCard' | 'updateCallCard' | 'closeCallCard'>,
    private readonly policy: Pick<PolicySource, 'userRuleIds' | 'addUserRule' | 'onDidChange' | 'ready'>,
    private readonly approvals: Pick<ApprovalStore, 'all' | 'add'>,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.queue = new AskQueue({
      surface: {
        show: (key, head, waiting) => this.showCard(key, head, waiting),
        close: (key) => {
          const id = this.cards.get(key);
          this.cards.delete(key);
          if (id) this.panel.closeCallCard(id);
          this._onDidChange.fire();
        },
      },
      allow: (length, ask) => this.allow(length, ask),
    });
    // The door asks through the broker; the cards answer from now until disposed.
    this._register(asks.serve(this.queue.ask));
    this._register(policy.onDidChange(() => this.queue.settleCovered()));
  }

  /** Calls waiting for the user now (the status bar counts them as awaiting approval). */
  get pending(): number {
    return this.queue.waiting;
  }

  private ids(): string[] {
    return [...this.policy.userRuleIds(), ...approvalIds(this.approvals.all)];
  }

  private showCard(key: string, head: CallAsk, waiting: number): void {
    const view = callCardView(head, this.ids(), new Date(), waiting);
    const open = this.cards.get(key);
    if (open) this.panel.updateCallCard(open, view);
    else {
      this.log.info(`Policy: ${head.call.tool} on ${head.call.server} (${head.entrance}) waits on the card: ${view.because}`);
      this.cards.set(
        key,
        this.panel.showCallCard(view, (a) => this.queue.answer(key, a)),
      );
    }
    this._onDidChange.fire();
  }

  /** Writes the narrowest allow rule of `length` for `ask`; its id. */
  private async allow(length: AllowLength, ask: CallAsk): Promise<string> {
    const rule = alwaysRule(ask, this.ids(), new Date(), length);
    const who = callerMidSentence(ask);
    if (length !== 'always') {
      await this.approvals.add(length, {
        rule,
        made: Date.now(),
        why: `${who} called ${ask.call.tool}; you chose ${length === 'session' ? 'Allow for this session' : 'Allow in this workspace'}`,
      });
      this.log.info(
        `Policy: ${rule.id} — ${ask.call.tool} on ${ask.call.server} allowed ${length === 'session' ? 'for this session' : 'in this workspace'}, for ${who} only.`,
      );
      return rule.id;
    }
    try {
      await this.policy.addUserRule(rule);
    } catch (err) {
      throw new Error(`The rule could not be written to your settings: ${err instanceof Error ? err.message : String(err)}`);
    }
    void vscode.window
      .showInformationMessage(
        `Plangate: always allowed — rule '${rule.id}' added to your user settings (plangate.policy): tool '${ask.call.tool}' on server '${ask.call.server}', called by ${who} only.`,
        'Open Settings',
      )
      .then((choice) =>
        choice
          ? vscode.commands.executeCommand('workbench.action.openSettingsJson', { revealSetting: { key: 'plangate.policy' } })
          : undefined,
      );
    return rule.id;
  }
}
