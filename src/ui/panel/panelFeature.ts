/**
 * What a feature of the panel is (GitLens's webview providers, one per feature): the item kinds it shows, the intents it
 * answers, and what it does when its items come and go. The panel (src/ui/planPanel.ts) gets its features at
 * construction and routes each intent by its `type` to the one feature that answers it.
 */
import type { Event } from '../../core/base/lifecycle';
import type { FromWebview, FromWebviewType, PanelItem, Refusal, ReplyMessage, ReplyOf, RequestType } from '../../shared/protocol/panel';
import type { ItemKind, ItemModel, PersistedApp } from './panelItems';

/**
 * An intent's handler. A request's (an intent that carries an `id`) returns, or resolves with, what its reply carries
 * ({@link ReplyOf}: `undefined` when that is `void`), or a {@link Refusal}: why it was not done; a throw is a refusal too.
 * A notification's returns nothing: no one would read it.
 */
export type IntentHandler<T extends FromWebviewType> = (
  message: Extract<FromWebview, { type: T }>,
) => T extends RequestType ? Awaitable<ReplyOf<T> | Refusal | undefined> : Awaitable<void>;

type Awaitable<T> = T | PromiseLike<T>;

/** A handler for every intent the webview posts: the features' tables together must be this (planPanel.ts). */
export type IntentTable = { [T in FromWebviewType]: IntentHandler<T> };

/** Said when a request was refused without a reason (an empty refusal, or a throw with no message). */
export const NO_REASON = 'That did not work, and no reason was given: see the Plangate log (Output › Plangate), then try again.';

/**
 * The reply to request `id` from what its handler returned (`result`) or threw (`thrown`): a string is a refusal, never an
 * empty one; anything else is done, carrying what it returned (when not `undefined`).
 */
export function replyTo(id: number, outcome: { result: unknown } | { thrown: unknown }): ReplyMessage {
  if ('thrown' in outcome) {
    const text = outcome.thrown instanceof Error ? outcome.thrown.message : String(outcome.thrown ?? '');
    return { type: 'reply', id, ok: false, error: text || NO_REASON };
  }
  const { result } = outcome;
  if (typeof result === 'string') return { type: 'reply', id, ok: false, error: result || NO_REASON };
  return result === undefined ? { type: 'reply', id, ok: true } : { type: 'reply', id, ok: true, value: result };
}

export interface PanelFeature {
  /** The item kinds this feature shows. */
  readonly kinds: readonly ItemKind[];
  /** The view model of one of its items; undefined hides the item (its record is gone). */
  present(item: ItemModel): PanelItem | undefined;
  /**
   * The item in the switcher: its title and its state in a word or two; undefined hides the item (its record is gone).
   * Cheap: asked for every open item on every update, where {@link present} is asked only for the one shown.
   */
  summary(item: ItemModel): { title: string; badge?: string } | undefined;
  /** Fires when something its items show changed outside the ledger (busy, errors, a server's state). */
  readonly onDidChange?: Event<unknown>;
  /** One of its items left the panel: let go of what it holds for it. */
  removed?(item: ItemModel): void;
  /** The webview loaded and listens. */
  webviewReady?(): void;
  /** The user closed the panel: answer what waited in it. */
  webviewClosed?(): void;
  /** After a window reload: bring back its items that were open; what to do once they are all back, if anything. */
  restore?(persisted: { plans: string[]; forms: string[]; apps: PersistedApp[] }): (() => void) | void;
}
