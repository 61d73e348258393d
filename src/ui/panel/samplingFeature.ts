/**
 * The feature of servers' sampling requests in the panel (core/engine/sampling.ts asks, this answers): one item per
 * request, first the request (**Approve** with a model, or **Decline**), then, in the same item, the model's answer
 * for review (**Send** as shown or edited, or **Decline**). Closing the item or the panel, or the server giving up,
 * declines. It is the engine's {@link SamplingUser}.
 */
import { Emitter, type Disposable } from '../../core/base/lifecycle';
import type { SamplingAnswer, SamplingApproval, SamplingAsk, SamplingReview, SamplingUser } from '../../core/engine/sampling';
import { samplingTitle, samplingView } from '../../core/present/samplingItem';
import type { PanelItem } from '../../shared/protocol/panel';
import type { IntentTable, PanelFeature } from './panelFeature';
import type { ItemModel, ItemOf, PanelItems, SamplingButton } from './panelItems';

export class SamplingFeature implements PanelFeature, SamplingUser, Disposable {
  readonly kinds = ['sampling'] as const;
  /** The item of each request, by the engine's sampling id. */
  private readonly bySampling = new Map<string, string>();
  /** The requests waiting for the user's word now (the request, or the answer to review; not while the model works). */
  private readonly waiting = new Set<string>();
  private readonly _onDidChangePending = new Emitter<void>();
  /** The number of requests waiting for the user changed (the status bar counts them as awaiting approval). */
  readonly onDidChangePending = this._onDidChangePending.event;

  constructor(private readonly items: PanelItems) {}

  /** Sampling requests waiting for the user's Approve, Send or Decline now. */
  get pending(): number {
    return this.waiting.size;
  }

  private setWaiting(samplingId: string, waits: boolean): void {
    if (waits === this.waiting.has(samplingId)) return;
    if (waits) this.waiting.add(samplingId);
    else this.waiting.delete(samplingId);
    this._onDidChangePending.fire();
  }

  approve(ask: SamplingAsk, signal: AbortSignal): Promise<SamplingApproval> {
    return this.wait(ask, undefined, signal, (b) => {
      if (b.action === 'approve') {
        const item = this.itemOf(ask.samplingId);
        if (item) {
          // The same item waits for the answer, showing that the model works.
          item.view = samplingView(ask, undefined, true);
          this.items.changed();
        }
        return { action: 'approve', modelId: b.modelId };
      }
      return undefined;
    });
  }

  review(ask: SamplingAsk, answer: SamplingAnswer, signal: AbortSignal): Promise<SamplingReview> {
    return this.wait(ask, answer, signal, (b) => (b.action === 'send' ? { action: 'send', text: b.text } : undefined));
  }

  /**
   * Shows `ask` (at the answer stage with `answer`) in its item, opening it if need be, and resolves with what the
   * user pressed (`accept` maps a button to the result; anything it does not take, or a close, declines).
   */
  private wait<T extends SamplingApproval | SamplingReview>(
    ask: SamplingAsk,
    answer: SamplingAnswer | undefined,
    signal: AbortSignal,
    accept: (b: SamplingButton) => T | undefined,
  ): Promise<T> {
    return new Promise<T>((resolve) => {
      let done = false;
      const finish = (b: SamplingButton) => {
        if (done) return;
        done = true;
        this.setWaiting(ask.samplingId, false);
        signal.removeEventListener('abort', onAbort);
        const result = accept(b);
        if (result) {
          if (result.action === 'send') this.close(ask.samplingId);
          resolve(result);
          return;
        }
        this.close(ask.samplingId);
        resolve({ action: 'decline', ...(b.action === 'closed' && { reason: 'the request was closed unanswered' }) } as T);
      };
      const onAbort = () => finish({ action: 'closed' });
      signal.addEventListener('abort', onAbort, { once: true });
      const view = samplingView(ask, answer);
      const existing = this.itemOf(ask.samplingId);
      // Closed by the user while the model worked: declined, not shown again.
      if (!existing && this.bySampling.has(ask.samplingId)) return finish({ action: 'closed' });
      this.setWaiting(ask.samplingId, true);
      if (existing) {
        existing.view = view;
        existing.answer = finish;
        this.items.select(existing.id);
      } else {
        const id = this.items.newAskId('sampling');
        this.bySampling.set(ask.samplingId, id);
        this.items.ask({ kind: 'sampling', id, title: samplingTitle(ask), view, answer: finish }, true);
      }
      if (signal.aborted) onAbort();
    });
  }

  private itemOf(samplingId: string): ItemOf<'sampling'> | undefined {
    const id = this.bySampling.get(samplingId);
    return id === undefined ? undefined : this.items.find(id, 'sampling');
  }

  private close(samplingId: string): void {
    const id = this.bySampling.get(samplingId);
    this.bySampling.delete(samplingId);
    if (id !== undefined) this.items.remove(id, true);
  }

  summary(item: ItemModel): { title: string; badge?: string } | undefined {
    if (item.kind !== 'sampling') return undefined;
    return { title: item.title, badge: item.view.stage === 'answer' ? 'review the answer' : item.view.busy ? 'model working' : 'asks' };
  }

  present(item: ItemModel): PanelItem | undefined {
    return item.kind === 'sampling' ? { kind: 'sampling', id: item.id, title: item.title, view: item.view } : undefined;
  }

  /** Closed by the user: declined. */
  removed(item: ItemModel): void {
    if (item.kind === 'sampling') item.answer?.({ action: 'closed' });
  }

  /** A closed panel cannot answer: what waits in it is declined, not left hanging. */
  webviewClosed(): void {
    for (const item of [...this.items.all]) this.removed(item);
    this.items.dropUnanswerable();
  }

  readonly intents = {
    samplingAnswer: (m) => {
      const item = this.items.find(m.itemId, 'sampling');
      if (!item?.answer) return 'That request was already answered, or the server stopped waiting.';
      const view = item.view;
      if (m.action === 'approve') {
        if (view.stage !== 'request' || view.busy) return 'This request was approved already.';
        const model = view.models.find((x) => x.id === m.modelId);
        if (!model)
          return view.models.length === 0 ? 'No language model is available: you can only decline.' : 'Choose one of the models listed.';
        const answer = item.answer;
        item.answer = undefined;
        answer({ action: 'approve', modelId: model.id });
        return undefined;
      }
      if (m.action === 'send') {
        if (view.stage !== 'answer' || !view.answer) return 'There is no answer to send: decline the request.';
        if (typeof m.text !== 'string' || m.text.trim() === '') return 'The answer is empty: write one, or decline.';
        item.answer({ action: 'send', text: m.text });
        return undefined;
      }
      item.answer({ action: 'decline' });
      return undefined;
    },
  } satisfies Partial<IntentTable>;

  dispose(): void {
    this._onDidChangePending.dispose();
  }
}
