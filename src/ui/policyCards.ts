import * as vscode from 'vscode';
import type { Broker } from '../core/base/broker';
import { DisposableBase, Emitter } from '../core/base/lifecycle';
import type { CallAsk, CallAskAnswer } from '../core/engine/door';
import { alwaysRule, callCardView, callerWords } from '../core/present/callCard';
import type { CardFeature } from './panel/cardFeature';
import type { PolicySource } from './policy';

/**
 * The door's `ask` (core/engine/door.ts): opens the single-call card in the panel and resolves with the user's answer. The
 * card is general — any entrance (the agent, an MCP App, Call Tool under a rule that asks) — and closes, unanswered,
 * when the caller stops waiting. **Always allow** writes the narrowest allow rule to the user's settings first and says
 * so; if the rule cannot be written the card stays, with the error.
 */
export class PolicyCards extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** The number of cards waiting changed. */
  readonly onDidChange = this._onDidChange.event;
  private waiting = 0;

  constructor(
    asks: Pick<Broker<(ask: CallAsk) => Promise<CallAskAnswer>>, 'serve'>,
    private readonly panel: Pick<CardFeature, 'showCallCard'>,
    private readonly policy: Pick<PolicySource, 'userRuleIds' | 'addUserRule'>,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    // The door asks through the broker; the cards answer from now until disposed.
    this._register(asks.serve(this.ask));
  }

  /** Cards waiting for the user now (the status bar counts them as awaiting approval). */
  get pending(): number {
    return this.waiting;
  }

  /** The door's `ask`: resolves with the user's answer, or `cancelled` when the caller stops waiting. */
  readonly ask = (ask: CallAsk): Promise<CallAskAnswer> => {
    this.waiting++;
    this._onDidChange.fire();
    return this.show(ask).finally(() => {
      this.waiting--;
      this._onDidChange.fire();
    });
  };

  private show(ask: CallAsk): Promise<CallAskAnswer> {
    const { panel, policy, log } = this;
    return new Promise<CallAskAnswer>((resolve) => {
      if (ask.signal?.aborted) return resolve({ answer: 'cancelled' });
      ask.signal?.addEventListener('abort', () => resolve({ answer: 'cancelled' }), { once: true });
      const view = callCardView(ask, policy.userRuleIds(), new Date());
      log.info(`Policy: ${ask.call.tool} on ${ask.call.server} (${ask.entrance}) waits on the card: ${view.because}`);
      panel.showCallCard(
        view,
        async (a) => {
          if (a.answer !== 'always') {
            resolve(a);
            return undefined;
          }
          const rule = alwaysRule(ask, policy.userRuleIds(), new Date());
          try {
            await policy.addUserRule(rule);
          } catch (err) {
            return `The rule could not be written to your settings: ${err instanceof Error ? err.message : String(err)}`;
          }
          void vscode.window
            .showInformationMessage(
              `Plangate: always allowed — rule '${rule.id}' added to your user settings (plangate.policy): tool '${ask.call.tool}' on server '${ask.call.server}', called by ${callerWords(ask).replace(/^The /, 'the ')} only.`,
              'Open Settings',
            )
            .then((choice) =>
              choice
                ? vscode.commands.executeCommand('workbench.action.openSettingsJson', { revealSetting: { key: 'plangate.policy' } })
                : undefined,
            );
          resolve({ answer: 'always', rule: rule.id });
          return undefined;
        },
        ask.signal,
      );
    });
  }
}
