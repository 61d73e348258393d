/** The plan panel protocol, server apps (MCP Apps): their frames, their network notice, and their intents. */

/**
 * A server app's network notice, built by the app host (src/ui/appHost.ts) from the page's `_meta.ui.csp` and the
 * user's grants. The webview asks with **Allow** / **Keep blocked** while `asking` is not empty and not `kept`.
 */
export interface AppNetworkView {
  server: string;
  /** Declared origins not granted to this server yet (checked: plain origins only). */
  asking: string[];
  /** Declared origins granted to this server: the app may reach them. */
  allowed: string[];
  /** The user pressed Keep blocked for this app: `asking` stays blocked, not asked again while it is open. */
  kept?: boolean;
  /** What the page declared and Plangate refuses, each with why (invalid origins, frames, base URIs, permissions). */
  refused: { value: string; why: string }[];
}

/**
 * Extension → webview, for server apps (MCP Apps). The webview keeps each app's sandboxed iframe apart from the
 * rendered items (re-rendering never reloads an app) and only relays JSON-RPC between the iframe and the extension,
 * where the app's requests are checked (src/ui/appHost.ts).
 */
export type AppToWebview =
  /**
   * Create app `appId`'s iframe from `html` (already carrying its policy and the panel's app nonce). `title` names the
   * frame for screen readers. Sent again after the webview reloads (the app starts afresh).
   */
  | { type: 'appMount'; appId: string; html: string; title: string }
  /** A JSON-RPC message from the host to the app, posted into its iframe as is. */
  | { type: 'appPost'; appId: string; message: unknown }
  /** Remove app `appId`'s iframe (after its teardown request was answered, or timed out). */
  | { type: 'appUnmount'; appId: string };

/** Where a result card shows a server's app (`ResultView.app`). */
export interface AppSlotView {
  appId: string;
  /** The `ui://` page shown. */
  uri: string;
}

/** Webview → extension: server apps (answered by the apps feature, src/ui/panel/appsFeature.ts). */
export type AppsIntent =
  /** Reopen the server app a result item showed before the window reloaded (its `ResultView.reopen`). */
  | { type: 'reopenApp'; id: number; itemId: string }
  /** The network notice of app item `itemId`: Allow (grant its server the asked origins) or Keep blocked. */
  | { type: 'appNetwork'; id: number; itemId: string; allow: boolean }
  /** Open the server app of a plan step that succeeded (its `StepView.app`) with the step's input and result. */
  | { type: 'openStepApp'; id: number; planId: string; step: number }
  /** A JSON-RPC message app `appId`'s iframe posted (unchecked: the extension validates it). */
  | { type: 'appMessage'; appId: string; message: unknown }
  /**
   * App `appId`'s iframe exists: the panel's theme (`light`/`dark`) and the spec's style variables computed from VS Code's
   * colours and fonts, for the app's host context. Sent again when VS Code's theme changes.
   */
  | { type: 'appTheme'; appId: string; theme: 'light' | 'dark'; variables: Record<string, string> };

/**
 * What each of these requests (the intents above that carry an `id`) is answered with when it was done, as vscode-eslint's
 * `RequestType<P, R>` names its result (panel.ts `ReplyOf`). `void`: the reply says only that it was done (what changed
 * comes in the next update). A request that was not done is refused with why, in words (panel.ts `Refusal`).
 */
export interface AppsReplies {
  reopenApp: void;
  appNetwork: void;
  openStepApp: void;
}
