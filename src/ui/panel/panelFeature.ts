/**
 * What a feature of the panel is (GitLens's webview providers, one per feature): the item kinds it shows, the intents it
 * answers, and what it does when its items come and go. The panel (src/ui/planPanel.ts) gets its features at
 * construction and routes each intent by its `type` to the one feature that answers it.
 */
import type { Event } from '../../core/base/lifecycle';
import type { FromWebview, PanelItem } from '../../shared/protocol/panel';
import type { ItemKind, ItemModel, PersistedApp } from './panelItems';

/**
 * An intent's handler. For an intent that carries an `id` (a request), what it returns (or resolves with) is the reply:
 * a string is the error shown next to the control that asked, anything else is success; a throw is an error too.
 */
export type IntentHandler<T extends FromWebview['type']> = (message: Extract<FromWebview, { type: T }>) => unknown;

/** A handler for every intent the webview posts: the features' tables together must be this (planPanel.ts). */
export type IntentTable = { [T in FromWebview['type']]: IntentHandler<T> };

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
