/**
 * The policy's rule model: what a rule matches and what it decides. A rule comes from the user's settings
 * (`plangate.policy`) or the workspace file `.vscode/plangate-policy.json` (trusted workspaces only); Plangate adds its
 * own defaults (destructive tools are asked) and a tool's own declaration (`_meta.approval: "ask"`). Pure data.
 */

import { POLICY_ENTRANCES, type PolicyEntrance } from '../base/entrance';

/** What a rule decides: run without asking, ask the user first, or refuse. */
export type PolicyDecision = 'allow' | 'ask' | 'deny';

/** Deny beats ask beats allow, whatever the order of the rules. */
export const DECISION_RANK: Readonly<Record<PolicyDecision, number>> = { allow: 0, ask: 1, deny: 2 };

/** The entrance a call comes by, as rules name it (core/base/entrance.ts). */
export { POLICY_ENTRANCES, type PolicyEntrance };

/**
 * Where a rule comes from. `default`: Plangate's own; `tool`: the tool's `_meta.approval` declaration; `session` and
 * `workspaceApproval`: an allow the user gave on the single-call card for this session (memory) or in this workspace
 * (workspace state) — the user's own word, so it weighs as the user's rules do (core/policy/approvals.ts).
 */
export type RuleSource = 'user' | 'workspace' | 'default' | 'tool' | 'session' | 'workspaceApproval';

/** The tool's annotations a rule can require (each as the MCP hint reads, see core/base/toolHints.ts). */
export interface AnnotationCondition {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
}

/**
 * One condition on the call's arguments. `path`: a JSON path (`$.path`, `$.files[*]`, `$.options.target`, or the same
 * without `$.`). It holds when any value found there satisfies every test given: `glob` (a picomatch glob, matched
 * against the value as a path relative to the workspace when it lies inside, else against the value as written; and
 * against where it leads on disk when a link makes that differ, see evaluate.ts), `pattern` (a JavaScript regular
 * expression, tested on the value's text on RE2, see pattern.ts), `outsideWorkspace` (the value, as a path, resolves
 * outside — or inside, with `false` — the workspace folder, links on disk followed).
 */
export interface ArgCondition {
  path: string;
  glob?: string;
  pattern?: string;
  outsideWorkspace?: boolean;
}

/** A rule as written (both sources share the shape). Absent conditions match everything. */
export interface PolicyRule {
  id: string;
  decision: PolicyDecision;
  /** Shown wherever the rule decides ("asked because: …"), and sent to the caller with a deny. */
  reason: string;
  /** A glob over server names (as configured); names are not paths (see nameGlob.ts). */
  server?: string;
  /** A glob over tool names; names are not paths (see nameGlob.ts). */
  tool?: string;
  /**
   * The server's identity (core/apps/appNetwork.ts `grantKey`: its name and the hash of its command line or URL). The
   * card writes it so that a later server of the same name, started another way, inherits nothing. An allow rule with
   * it does not hold where the identity is not known; a deny or ask rule does.
   */
  serverKey?: string;
  annotations?: AnnotationCondition;
  /** Every condition must hold. */
  args?: ArgCondition[];
  /** The entrances it applies to (all when absent). */
  entrance?: PolicyEntrance[];
  /**
   * Whether it applies only to calls of servers running in a sandbox (`true`) or only to servers running without one
   * (`false`); to both when absent. A server whose sandbox state is not known counts as not sandboxed.
   */
  sandboxed?: boolean;
  /**
   * `"result"`: the call's result is shown to the user before its caller reads it (for the agent: before it reaches the
   * model); the user passes it on or withholds it. Any matching rule that does not deny asks for the review.
   */
  review?: 'result';
  /**
   * The name of a decision hook (the user's setting `plangate.decisionHooks`) that answers allow, ask or deny for the
   * calls this rule matches, in place of the rule's own `ask`. User rules only; a hook that fails means ask.
   */
  hook?: string;
}

/** A rule with where it came from (its position in its source, for problems and the "loosens" notice). */
export interface SourcedRule extends PolicyRule {
  source: RuleSource;
  /** Index in its source's `rules`. */
  index: number;
}

/** A rule as the panel, the ledger and the agent name it: the id, its source and its reason. */
export interface RuleRef {
  id: string;
  source: RuleSource;
  decision: PolicyDecision;
  reason: string;
  /** The decision hook the rule hands its decision to (see {@link PolicyRule.hook}). */
  hook?: string;
}

/** The rules of both sources, in order: the user's first. */
export interface PolicyRules {
  user: readonly SourcedRule[];
  workspace: readonly SourcedRule[];
  /** The standing approvals of the card's session and workspace lengths: weighed with the user's rules. */
  approvals?: readonly SourcedRule[];
}

export const EMPTY_RULES: PolicyRules = { user: [], workspace: [] };

export function refOf(rule: Pick<SourcedRule, 'id' | 'source' | 'decision' | 'reason' | 'hook'>): RuleRef {
  return { id: rule.id, source: rule.source, decision: rule.decision, reason: rule.reason, ...(rule.hook ? { hook: rule.hook } : {}) };
}
