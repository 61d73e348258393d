/**
 * The panel, and the envelope of the one message protocol between the extension and the Plangate panel webview.
 *
 * A leaf: it imports nothing from the rest of `src/` but `src/shared`. The extension owns all state and
 * sends view models that core builds (core/present): the webview renders what it is sent, never a reducer record.
 * The webview posts `ready` first; the extension answers with one snapshot (`state`), then patches (`patch`) that the
 * webview applies to its copy (shared/panelPatch.ts). Intents that can fail carry an `id` (requests): each names its
 * reply in its feature's `…Replies` table (vscode-eslint's `RequestType<P, R>`), and the extension's one `reply` echoes
 * the id. Both sides switch exhaustively over these unions.
 *
 * Split by feature: each feature's view models and intents in its own file beside this one (plan, files, results,
 * apps, callForm, cards, collect, sampling, review).
 */
import type { AppToWebview, AppsIntent, AppsReplies } from './apps';
import type { CallCardView, CardsIntent, CardsReplies, ElicitView } from './cards';
import type { CallFormIntent, CallFormReplies, CallFormView } from './callForm';
import type { CollectFormView, CollectIntent, CollectReplies } from './collect';
import type { FilesIntent, FilesReplies } from './files';
import type { PlanHeadView, PlanIntent, PlanItemView, PlanReplies, PlanView, StepView } from './plan';
import type { ResultView } from './results';
import type { ResultCardView, ReviewIntent, ReviewReplies } from './review';
import type { SamplingIntent, SamplingReplies, SamplingView } from './sampling';

/** One thing the panel can show. Exactly one is selected at a time. */
export type PanelItem =
  | { kind: 'plan'; id: string; title: string; view: PlanItemView }
  | { kind: 'result'; id: string; title: string; view: ResultView }
  | { kind: 'callForm'; id: string; title: string; view: CallFormView }
  | { kind: 'elicit'; id: string; title: string; view: ElicitView }
  | { kind: 'collectForm'; id: string; title: string; view: CollectFormView }
  | { kind: 'callCard'; id: string; title: string; view: CallCardView }
  | { kind: 'sampling'; id: string; title: string; view: SamplingView }
  | { kind: 'resultCard'; id: string; title: string; view: ResultCardView };

export interface PanelState {
  /** Every open item, newest last; the webview shows a switcher when there is more than one. */
  items: PanelItemSummary[];
  /** The item shown. */
  selected?: PanelItem;
}

/** An open item in the switcher. */
export interface PanelItemSummary {
  id: string;
  kind: PanelItem['kind'];
  title: string;
  /** Its state in a word or two ("awaiting approval", "rejected", …). */
  badge?: string;
}

/**
 * What changed since the previous update: only what is present changed. Built by core/present/panelDiff.ts,
 * applied by shared/panelPatch.ts.
 */
export interface PanelPatch {
  /** The switcher's list, whole. */
  items?: PanelItemSummary[];
  /** The item shown, whole (another item is selected, or an item that is no plan changed); `null`: none. */
  selected?: PanelItem | null;
  /** The selected plan item changed in parts (never together with `selected`). */
  plan?: {
    /** The item it applies to: a patch for another item is not applied (the webview asks for a snapshot). */
    itemId: string;
    title?: string;
    /** Plans whose head changed (their steps did not, unless listed in `steps`). */
    heads?: PlanHeadView[];
    /** Nested plans that appeared, whole. */
    added?: PlanView[];
    /** Nested plans no longer shown. */
    removed?: string[];
    /** Steps that changed, whole. */
    steps?: { planId: string; index: number; view: StepView }[];
  };
}

/** Extension → webview. */
export type ToWebview =
  /**
   * A full snapshot: sent after `ready` and after `resync`. `seq` numbers the updates of this webview load: each
   * update is one more than the last.
   */
  | { type: 'state'; seq: number; state: PanelState }
  /** Changes to the state of update `seq - 1`; a webview that holds another `seq` asks for a snapshot (`resync`). */
  | { type: 'patch'; seq: number; patch: PanelPatch }
  | ReplyMessage
  | AppToWebview;

/**
 * The answer to a request (an intent that carried an `id`), sent once, with its `id`: done (`value`: what the request's
 * reply carries, {@link ReplyOf}; absent when that is `void`, as it is for every request today), or refused with why.
 */
export type ReplyMessage =
  { type: 'reply'; id: number; ok: true; value?: unknown } | { type: 'reply'; id: number; ok: false; error: Refusal };

/** Webview → extension: the panel's own intents (answered by the panel, src/ui/planPanel.ts). */
export type PanelIntent =
  /** The webview has loaded and listens; sent once per load. The extension answers with a snapshot. */
  | { type: 'ready' }
  /**
   * The webview applied update `seq` (and will render it in the next frame). Until it does, the extension holds the
   * next update (for at most a quarter of a second) and lets changes coalesce into it, so a burst of changes never
   * queues more than one update in the extension.
   */
  | { type: 'applied'; seq: number }
  /** The webview holds no state a patch applies to (a patch out of order): the extension sends a snapshot. */
  | { type: 'resync' }
  | { type: 'select'; itemId: string }
  | { type: 'close'; itemId: string }
  | { type: 'openFile'; path: string }
  /**
   * Open the resource a `resource_link` of `server`'s result names (`resources/read` on that server, on the record) in
   * a read-only editor tab. The reply's error says why it could not be shown.
   */
  | { type: 'openResource'; id: number; server: string; uri: string; name?: string };

/**
 * What each of these requests (the intents above that carry an `id`) is answered with when it was done, as vscode-eslint's
 * `RequestType<P, R>` names its result (panel.ts `ReplyOf`). `void`: the reply says only that it was done (what changed
 * comes in the next update). A request that was not done is refused with why, in words (panel.ts `Refusal`).
 */
export interface PanelReplies {
  openResource: void;
}

/** Webview → extension. */
export type FromWebview =
  PanelIntent | PlanIntent | FilesIntent | CallFormIntent | CardsIntent | CollectIntent | SamplingIntent | ReviewIntent | AppsIntent;

/** Every intent type, for exhaustiveness checks. */
export type FromWebviewType = FromWebview['type'];

/** The intents that carry an `id` (requests): each is answered by one `reply` with that id. */
export type RequestIntent = Extract<FromWebview, { id: number }>;
export type RequestType = RequestIntent['type'];
/** The intents without an `id` (notifications): nothing answers them. */
export type NotificationIntent = Exclude<FromWebview, { id: number }>;
/** Request `T` as the webview makes it: the `id` is added when it is posted (webview/base/messaging.ts). */
export type RequestParams<T extends RequestType> = { type: T } & Omit<Extract<RequestIntent, { type: T }>, 'id'>;

type Replies = PanelReplies &
  PlanReplies &
  FilesReplies &
  CallFormReplies &
  CardsReplies &
  CollectReplies &
  SamplingReplies &
  ReviewReplies &
  AppsReplies;

/**
 * What request `T`'s reply carries when it was done: its row in its feature's `…Replies` table (a request without one
 * does not compile here). Never a string: a string is a {@link Refusal}.
 */
export type ReplyOf<T extends RequestType> = Replies[T];

/** Why a request was not done, in words the user reads next to the control that asked (which field, what to do). Never empty. */
export type Refusal = string;

/** A request's reply as the webview's `request` resolves it. */
export type Reply<R> = { ok: true; value: R } | { ok: false; error: Refusal };
