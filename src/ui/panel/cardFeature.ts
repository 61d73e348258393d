/**
 * The feature of the panel's questions to the user: the policy's single-call card (Allow once, Always allow, Deny) and
 * a server's elicitation form. Each waits for its answer; closing it, or the panel, answers `cancelled` / `cancel`.
 */
import type { ElicitAnswer } from '../../mcp/connection';
import type { CallCardView, ElicitView, PanelItem } from '../../shared/protocol';
import type { IntentTable, PanelFeature } from './panelFeature';
import type { CallCardAnswer, ItemModel, PanelItems } from './panelItems';

export class CardFeature implements PanelFeature {
  readonly kinds = ['callCard', 'elicit'] as const;

  constructor(private readonly items: PanelItems) {}

  /**
   * Shows a server's elicitation request as a form and resolves with the user's answer. Closing the form or the
   * panel answers `cancel`.
   */
  elicit(view: ElicitView): Promise<ElicitAnswer> {
    return new Promise((resolve) => {
      const id = this.items.newAskId('elicit');
      this.items.ask({ kind: 'elicit', id, title: `${view.server} asks`, view, answer: resolve }, true);
    });
  }

  /**
   * Shows a single call the policy asks about (policyCards.ts) and takes the user's answer: `answer` resolves with an
   * error to show on the card, or undefined once it is done (the card then closes). The card closes, unanswered, when
   * `signal` aborts (the caller gave up); closing it, or the panel, answers `cancelled`.
   */
  showCallCard(view: CallCardView, answer: (a: CallCardAnswer) => Promise<string | undefined>, signal?: AbortSignal): void {
    const id = this.items.newAskId('card');
    this.items.ask({ kind: 'callCard', id, title: `Allow ${view.tool}?`, view, answer, returnTo: this.items.selected }, false);
    signal?.addEventListener('abort', () => this.items.remove(id, true), { once: true });
  }

  /** What a single-call card's buttons do: answers it and closes it; the error to show on the card, if any. */
  async answerCallCard(itemId: string, answer: CallCardAnswer): Promise<string | undefined> {
    const item = this.items.find(itemId, 'callCard');
    if (!item) return 'That call was already decided, or its caller stopped waiting.';
    if (answer.answer === 'always' && !item.view.canAlwaysAllow) return 'Always allow is not offered for this call: Allow once or Deny.';
    const error = await item.answer(answer);
    if (error) return error;
    this.items.remove(item.id, true);
    return undefined;
  }

  summary(item: ItemModel): { title: string } | undefined {
    return this.kinds.some((k) => k === item.kind) ? { title: (item as { title: string }).title } : undefined;
  }

  present(item: ItemModel): PanelItem | undefined {
    if (item.kind === 'callCard') return { kind: 'callCard', id: item.id, title: item.title, view: item.view };
    if (item.kind === 'elicit') return { kind: 'elicit', id: item.id, title: item.title, view: item.view };
    return undefined;
  }

  /** Closed by the user: unanswered. */
  removed(item: ItemModel): void {
    if (item.kind === 'elicit') item.answer({ action: 'cancel' });
    if (item.kind === 'callCard') void item.answer({ answer: 'cancelled' });
  }

  /** A closed panel cannot answer: what waits in it is cancelled, not left hanging. */
  webviewClosed(): void {
    for (const item of this.items.all) this.removed(item);
    this.items.dropUnanswerable();
  }

  readonly intents = {
    callCardAnswer: (m) => this.answerCallCard(m.itemId, m.answer === 'deny' ? { answer: 'deny', note: m.note } : { answer: m.answer }),
    elicitAnswer: (m) => {
      const item = this.items.find(m.itemId, 'elicit');
      if (!item) return 'That request was already answered.';
      this.items.remove(item.id, true);
      item.answer({ action: m.action, content: m.action === 'accept' ? (m.content as ElicitAnswer['content']) : undefined });
    },
  } satisfies Partial<IntentTable>;
}
