/** The plan panel protocol, cards: a single call the policy asks about, a server's elicitation form, and their answers. */
import type { StepHint } from './plan';

/** A server's `elicitation/create` form request, waiting for the user. */
export interface ElicitView {
  server: string;
  message: string;
  /** A flat object schema of primitive properties (the MCP elicitation subset). */
  requestedSchema: unknown;
}

/**
 * A single call the policy asks about, waiting for the user's decision (any entrance: the agent's call, an app's, a
 * Call Tool call under a rule that asks). Built by core/present/callCard.ts.
 */
export interface CallCardView {
  server: string;
  tool: string;
  /** Who is calling, in words: "The chat agent", "An MCP App of server 'x'", "Call Tool". */
  caller: string;
  args: Record<string, unknown>;
  /** The tool's hints (annotations, the server's claims). */
  hint?: StepHint;
  /** "Asked because: …" with the deciding rule's reason, and the rule's id and source in words. */
  because: string;
  ruleId: string;
  ruleSource: string;
  /** Always allow would change the decision next time (only for Plangate's default ask). */
  canAlwaysAllow: boolean;
  /** The rule Always allow writes to the user's settings, as JSON text. */
  alwaysRuleText?: string;
  /**
   * The rule each allow longer than once writes (JSON text): `session` (kept in memory until the window closes),
   * `workspace` (kept in this workspace's state), `always` (the user's settings). Absent: only Allow once (`onlyOnce`).
   */
  allowRules?: Partial<Record<'session' | 'workspace' | 'always', string>>;
  /** Why only Allow once is offered (the tool's own `_meta.approval: "ask"`, a rule that asks), in words. */
  onlyOnce?: string;
  /** How many calls of this caller to this tool wait behind this card, this one included (absent: one). */
  waiting?: number;
  /** A workspace rule would have allowed this and was not honoured (it would loosen the user's policy), in words. */
  notHonoured?: string;
}

/** Webview → extension: the answers on cards (answered by the card feature, src/ui/panel/cardFeature.ts). */
export type CardsIntent =
  /** The user's answer to an elicitation form; `content` only with `accept`. */
  | { type: 'elicitAnswer'; id: number; itemId: string; action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }
  /**
   * The user's answer on a single-call card: Allow once, Always allow (writes the narrowest allow rule to the user's
   * settings), or Deny with an optional note that reaches the caller.
   */
  | {
      type: 'callCardAnswer';
      id: number;
      itemId: string;
      answer: 'once' | 'session' | 'workspace' | 'always' | 'deny';
      note?: string;
      /** With `deny`: refuse every call waiting behind the card, not only the one shown. */
      all?: boolean;
    };

/**
 * What each of these requests (the intents above that carry an `id`) is answered with when it was done, as vscode-eslint's
 * `RequestType<P, R>` names its result (panel.ts `ReplyOf`). `void`: the reply says only that it was done (what changed
 * comes in the next update). A request that was not done is refused with why, in words (panel.ts `Refusal`).
 */
export interface CardsReplies {
  callCardAnswer: void;
  elicitAnswer: void;
}
