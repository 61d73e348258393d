/**
 * The feature of the panel's questions to the user: the policy's single-call card (Allow once, Always allow, Deny) and
 * a server's elicitation form. Each waits for its answer; closing it, or the panel, answers `cancelled` / `cancel`.
 */
import type { ElicitAnswer } from '../../mcp/connection';
import type { CallCardView, ElicitView } from '../../shared/protocol/cards';
import type { PanelItem } from '../../shared/protocol/panel';
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
  showCallCard(view: CallCardView, answer: (a: CallCardAnswer) => Promise<string | undefined>, signal?: AbortSignal): string {
    const id = this.items.newAskId('card');
    this.items.ask({ kind: 'callCard', id, title: cardTitle(view), view, answer, returnTo: this.items.selected }, false);
    signal?.addEventListener('abort', () => this.items.remove(id, true), { once: true });
    return id;
  }

  /** Shows another call, or another count, on the open card `id` (calls waiting behind it: askQueue.ts), in place. */
  updateCallCard(id: string, view: CallCardView): void {
    const item = this.items.find(id, 'callCard');
    if (!item) return;
    item.view = view;
    item.title = cardTitle(view);
    this.items.show(false);
  }

  /** Closes card `id`, unanswered by the user (its calls were settled, or their callers stopped waiting). */
  closeCallCard(id: string): void {
    this.items.remove(id, true);
  }

  /**
   * What a single-call card's buttons do: answers it; the error to show on the card, if any. The card closes when no
   * call waits behind it any more (its owner closes it); after Allow once the next waiting call shows on it.
   */
  async answerCallCard(itemId: string, answer: CallCardAnswer): Promise<string | undefined> {
    const item = this.items.find(itemId, 'callCard');
    if (!item) return 'That call was already decided, or its caller stopped waiting.';
    if (answer.answer !== 'once' && answer.answer !== 'deny' && answer.answer !== 'cancelled' && !item.view.allowRules?.[answer.answer])
      return `Only Allow once or Deny is offered for this call${item.view.onlyOnce ? `: ${item.view.onlyOnce}` : '.'}`;
    return item.answer(answer);
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
    callCardAnswer: (m) =>
      this.answerCallCard(m.itemId, m.answer === 'deny' ? { answer: 'deny', note: m.note, all: m.all === true } : { answer: m.answer }),
    elicitAnswer: (m) => {
      const item = this.items.find(m.itemId, 'elicit');
      if (!item) return 'That request was already answered.';
      this.items.remove(item.id, true);
      item.answer({ action: m.action, content: m.action === 'accept' ? (m.content as ElicitAnswer['content']) : undefined });
    },
  } satisfies Partial<IntentTable>;
}

/** A card's title in the switcher: the tool, and how many calls wait behind it. */
function cardTitle(view: CallCardView): string {
  return view.waiting && view.waiting > 1 ? `Allow ${view.tool}? (${view.waiting} waiting)` : `Allow ${view.tool}?`;
}
