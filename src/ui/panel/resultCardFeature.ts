/**
 * The feature of the result card: a call's result a policy rule asks the user to review before its caller reads it
 * (the door's `review`, core/engine/door.ts). It serves the engine's review broker: each review opens a card (without
 * taking the focus) and resolves with **Pass on** or **Withhold**; closing the card or the panel, or the caller giving
 * up, answers `cancelled` (the result is withheld).
 */
import type * as vscode from 'vscode';
import { Emitter, type Disposable } from '../../core/base/lifecycle';
import type { ResultReview, ResultReviewAnswer } from '../../core/engine/door';
import { resultCardView } from '../../core/present/resultCard';
import type { PanelItem } from '../../shared/protocol/panel';
import type { IntentTable, PanelFeature } from './panelFeature';
import type { ItemModel, PanelItems } from './panelItems';

export class ResultCardFeature implements PanelFeature, Disposable {
  readonly kinds = ['resultCard'] as const;
  private readonly _onDidChangePending = new Emitter<void>();
  /** The number of results waiting for review changed. */
  readonly onDidChangePending = this._onDidChangePending.event;
  private waiting = 0;

  constructor(
    private readonly items: PanelItems,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Results waiting for the user's review now. */
  get pending(): number {
    return this.waiting;
  }

  /** The door's `review`: resolves with the user's answer, or `cancelled` when nobody answers. */
  readonly review = (review: ResultReview): Promise<ResultReviewAnswer> => {
    this.waiting++;
    this._onDidChangePending.fire();
    return new Promise<ResultReviewAnswer>((resolve) => {
      if (review.signal?.aborted) return resolve('cancelled');
      const view = resultCardView(review);
      this.log.info(`Policy: the result of ${review.call.tool} on ${review.call.server} waits for your review (rule '${review.rule.id}').`);
      const id = this.items.newAskId('review');
      const answer = (a: ResultReviewAnswer) => {
        this.log.info(
          `Policy: the result of ${review.call.tool} on ${review.call.server} was ${a === 'pass' ? 'passed on' : a === 'withhold' ? 'withheld' : 'withheld (nobody answered)'}.`,
        );
        resolve(a);
      };
      this.items.ask({ kind: 'resultCard', id, title: `Review ${view.tool}`, view, answer, returnTo: this.items.selected }, false);
      review.signal?.addEventListener(
        'abort',
        () => {
          this.items.remove(id, true);
          resolve('cancelled');
        },
        { once: true },
      );
    }).finally(() => {
      this.waiting--;
      this._onDidChangePending.fire();
    });
  };

  summary(item: ItemModel): { title: string; badge?: string } | undefined {
    return item.kind === 'resultCard' ? { title: item.title, badge: 'awaiting review' } : undefined;
  }

  present(item: ItemModel): PanelItem | undefined {
    return item.kind === 'resultCard' ? { kind: 'resultCard', id: item.id, title: item.title, view: item.view } : undefined;
  }

  /** Closed by the user: withheld. */
  removed(item: ItemModel): void {
    if (item.kind === 'resultCard') item.answer('cancelled');
  }

  webviewClosed(): void {
    for (const item of this.items.all) this.removed(item);
    this.items.dropUnanswerable();
  }

  readonly intents = {
    resultCardAnswer: (m) => {
      const item = this.items.find(m.itemId, 'resultCard');
      if (!item) return 'That result was already reviewed, or its caller stopped waiting.';
      this.items.remove(item.id, true);
      item.answer(m.answer);
      return undefined;
    },
  } satisfies Partial<IntentTable>;

  dispose(): void {
    this._onDidChangePending.dispose();
  }
}
