/** The plan panel protocol, sampling: a server's sampling request as the panel shows it, and its answer. */

/** One piece of a sampling request's message, as the panel shows it (built by core/present/samplingItem.ts). */
export type SamplingPartView =
  | { type: 'text'; text: string }
  /** An image whose bytes were checked to be `mimeType` (PNG, JPEG, GIF, WebP): shown from its data, never a URL. */
  | { type: 'image'; mimeType: string; data: string; bytes: number }
  /** Content not shown (and not sent): what it is and why. */
  | { type: 'unshown'; what: string; problem: string };

/**
 * A server's `sampling/createMessage` request (it asks for a language model's answer), waiting for the user: first the
 * request (`stage: 'request'`: Approve with a model, or Decline), then the model's answer (`stage: 'answer'`: Send as
 * shown or edited, or Decline). Server text is raw here; the webview marks invisible characters.
 */
export interface SamplingView {
  server: string;
  /** The tool call(s) in flight on that server when it asked. */
  calls: string[];
  stage: 'request' | 'answer';
  systemPrompt?: string;
  messages: { role: 'user' | 'assistant'; parts: SamplingPartView[] }[];
  maxTokens: number;
  /** What the server asked for when Plangate uses another limit. */
  maxTokensAsked?: string;
  temperature?: number;
  stopSequences: string[];
  modelHints: string[];
  /** The server's priorities in words ("cost 0.3 · speed 0.8"), if any. */
  priorities?: string;
  /** What Plangate does differently from what the server asked. */
  notes: string[];
  /** Why the user is asked: the policy's deciding rule in words. */
  because: string;
  /** The models the user may choose from (the first is preselected); empty: none is available. */
  models: { id: string; name: string }[];
  /** Stage `request`, after Approve: the model is working. */
  busy?: boolean;
  /** Stage `answer`: the model's answer, and which model gave it. */
  answer?: { text: string; model: string };
  /** Stage `answer`: why there is no answer (only Decline is offered). */
  problem?: string;
}

/** Webview → extension: a sampling request's buttons (answered by the sampling feature, src/ui/panel/samplingFeature.ts). */
export type SamplingIntent =
  /**
   * A sampling request's buttons: `approve` (with the chosen `modelId`) or `decline` the request; then `send` the
   * answer (`text`: as shown or edited) or `decline` it.
   */
  { type: 'samplingAnswer'; id: number; itemId: string; action: 'approve' | 'decline' | 'send'; modelId?: string; text?: string };

/**
 * What each of these requests (the intents above that carry an `id`) is answered with when it was done, as vscode-eslint's
 * `RequestType<P, R>` names its result (panel.ts `ReplyOf`). `void`: the reply says only that it was done (what changed
 * comes in the next update). A request that was not done is refused with why, in words (panel.ts `Refusal`).
 */
export interface SamplingReplies {
  samplingAnswer: void;
}
