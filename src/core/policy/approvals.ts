/**
 * The standing approvals of the single-call card's session and workspace lengths: each an allow rule (the narrowest,
 * see alwaysAllow.ts) with when and why it was made. Session approvals live in memory until the window closes;
 * workspace approvals are kept in the workspace's state (the extension passes them in and saves what this returns).
 * They weigh as the user's own rules (evaluate.ts): they never lift a rule that asks or denies, nor a tool's own
 * `_meta.approval: "ask"`. Stored data is read back as untrusted: what is not a valid approval is dropped. Pure.
 */
import { parsePolicyValue } from './parse';
import type { PolicyRule, SourcedRule } from './rules';

/** The lengths that Plangate keeps itself (Always allow is a rule in the user's settings). */
export type ApprovalLength = 'session' | 'workspace';

/** One standing approval. */
export interface StandingApproval {
  rule: PolicyRule;
  /** When it was made (ms since the epoch). */
  made: number;
  /** Why, in words: who called, and the card's answer. */
  why: string;
}

/** The approvals of both lengths. */
export interface StandingApprovals {
  session: readonly StandingApproval[];
  workspace: readonly StandingApproval[];
}

export const NO_APPROVALS: StandingApprovals = { session: [], workspace: [] };

/** The most approvals kept per length (each is checked on every call, as a rule). */
export const MAX_APPROVALS = 200;

/** `approvals` with `approval` added to `length` (the oldest dropped past {@link MAX_APPROVALS}). */
export function withApproval(approvals: StandingApprovals, length: ApprovalLength, approval: StandingApproval): StandingApprovals {
  return { ...approvals, [length]: [...approvals[length], approval].slice(-MAX_APPROVALS) };
}

/** `approvals` without the approval whose rule id is `id` (in either length). */
export function withoutApproval(approvals: StandingApprovals, id: string): StandingApprovals {
  return {
    session: approvals.session.filter((a) => a.rule.id !== id),
    workspace: approvals.workspace.filter((a) => a.rule.id !== id),
  };
}

/** `approvals` with every approval of `length` gone (Reset). */
export function resetApprovals(approvals: StandingApprovals, length: ApprovalLength): StandingApprovals {
  return { ...approvals, [length]: [] };
}

/** The approvals as rules for the policy: sourced `session` or `workspaceApproval`, session first. */
export function approvalRules(approvals: StandingApprovals): SourcedRule[] {
  return [
    ...approvals.session.map((a, index): SourcedRule => ({ ...a.rule, source: 'session', index })),
    ...approvals.workspace.map((a, index): SourcedRule => ({ ...a.rule, source: 'workspaceApproval', index })),
  ];
}

/** The ids of every approval (a new rule's id must be unique among them and the user's rules). */
export function approvalIds(approvals: StandingApprovals): string[] {
  return [...approvals.session, ...approvals.workspace].map((a) => a.rule.id);
}

/**
 * Reads stored workspace approvals back (workspace state is the user's, but a value of an older or newer Plangate, or
 * one edited by hand, may be anything): only allow rules that parse as a policy rule, with a time and a reason, are
 * kept.
 */
export function readStoredApprovals(value: unknown): StandingApproval[] {
  if (!Array.isArray(value)) return [];
  const out: StandingApproval[] = [];
  for (const raw of value.slice(0, MAX_APPROVALS)) {
    if (!raw || typeof raw !== 'object') continue;
    const { rule, made, why } = raw as Record<string, unknown>;
    const parsed = parsePolicyValue({ rules: [rule] }, 'workspaceApproval').rules[0];
    if (!parsed || parsed.decision !== 'allow' || typeof made !== 'number' || !Number.isFinite(made) || typeof why !== 'string') continue;
    const { source: _source, index: _index, ...plain } = parsed;
    out.push({ rule: plain, made, why: why.slice(0, 500) });
  }
  return out;
}
