/** The plan panel protocol, the Call Tool form: the form and its intents. */

/** The Call Tool form: generated from the tool's input schema. */
export interface CallFormView {
  server: string;
  tool: string;
  title: string;
  description?: string;
  inputSchema: unknown;
  /** The arguments used last time for this tool, to prefill. */
  lastArgs?: Record<string, unknown>;
  /** The call is in flight. */
  busy?: boolean;
  error?: string;
}

/** Webview → extension: the Call Tool form (answered by the call form feature, src/ui/panel/callFormFeature.ts). */
export type CallFormIntent =
  | { type: 'callTool'; id: number; itemId: string; args: Record<string, unknown> }
  /** Cancel the call a Call Tool form has in flight (the server is told). */
  | { type: 'cancelCall'; itemId: string };

/**
 * What each of these requests (the intents above that carry an `id`) is answered with when it was done, as vscode-eslint's
 * `RequestType<P, R>` names its result (panel.ts `ReplyOf`). `void`: the reply says only that it was done (what changed
 * comes in the next update). A request that was not done is refused with why, in words (panel.ts `Refusal`).
 */
export interface CallFormReplies {
  callTool: void;
}
