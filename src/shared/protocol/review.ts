/** The plan panel protocol, result review: a call's result a policy rule asks the user to review, and its answer. */

/**
 * A call's result a policy rule asks the user to review before its caller reads it (`review: "result"`): the content
 * as the server sent it (untrusted), **Pass on** or **Withhold**. Built by core/present/resultCard.ts.
 */
export interface ResultCardView {
  server: string;
  tool: string;
  /** Who called and reads the result, in words: "The chat agent", "A plan step", … */
  caller: string;
  /** "Reviewed because: …" with the rule's reason, id and source in words. */
  because: string;
  ruleId: string;
  /** The MCP `CallToolResult` as the server sent it (untrusted): text, images, resources. */
  result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean };
}

/** Webview → extension: a result card's buttons (answered by the result card feature, src/ui/panel/resultCardFeature.ts). */
export type ReviewIntent =
  /** The user's answer on a result card: pass the result on to its caller, or withhold it (the caller gets a refusal). */
  { type: 'resultCardAnswer'; id: number; itemId: string; answer: 'pass' | 'withhold' };

/**
 * What each of these requests (the intents above that carry an `id`) is answered with when it was done, as vscode-eslint's
 * `RequestType<P, R>` names its result (panel.ts `ReplyOf`). `void`: the reply says only that it was done (what changed
 * comes in the next update). A request that was not done is refused with why, in words (panel.ts `Refusal`).
 */
export interface ReviewReplies {
  resultCardAnswer: void;
}
