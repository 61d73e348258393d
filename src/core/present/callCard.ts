/**
 * The single-call card's view model: a call the policy asks about, from any entrance (the agent, an MCP App, Call Tool
 * under a rule that asks), with the deciding rule in words. Also the words of a verdict wherever a plan step shows
 * it. Pure.
 */
import type { CallAsk } from '../engine/door';
import { canAlwaysAllow, narrowestRule } from '../policy/alwaysAllow';
import type { PolicyRule, RuleRef, RuleSource } from '../policy/rules';
import type { PolicyRecord } from '../plan/plan';
import { stepHint } from '../base/toolHints';
import type { CallCardView, PolicyMarkView } from '../../shared/protocol';

/** Who a rule's source is, in words. */
export function sourceWords(source: RuleSource): string {
  switch (source) {
    case 'user':
      return 'your rule';
    case 'workspace':
      return "the workspace's rule";
    case 'default':
      return "Plangate's default";
    case 'tool':
      return "the tool's own declaration";
  }
}

/** Who is calling, in words. */
export function callerWords(ask: Pick<CallAsk, 'entrance' | 'call'>): string {
  if (ask.call.entrance === 'preview') return "The dry-run preview you pressed (the step's arguments with its dry-run flag set)";
  switch (ask.entrance) {
    case 'agent':
      return 'The chat agent';
    case 'app':
      return `An MCP App of server '${ask.call.server}'`;
    case 'call':
      return 'Call Tool';
    case 'plan':
      return 'A plan step';
    case 'recovery':
      return 'A recovery action';
    case 'sampling':
      return `A sampling request of server '${ask.call.server}'`;
  }
}

/** "Asked because: …", "Denied by …: …", "Allowed by …: …". */
export function verdictWords(rule: Pick<RuleRef, 'decision' | 'reason' | 'source' | 'id'>): string {
  const by = rule.source === 'default' || rule.source === 'tool' ? sourceWords(rule.source) : `${sourceWords(rule.source)} '${rule.id}'`;
  switch (rule.decision) {
    case 'deny':
      return `Denied by ${by}: ${rule.reason}`;
    case 'ask':
      return `Asked because: ${rule.reason} (${by})`;
    case 'allow':
      return `Allowed by ${by}: ${rule.reason}`;
  }
}

/**
 * A plan step's mark: shown when a rule or the tool's own declaration decided it. Plangate's defaults show nothing on a
 * step (the approval covers the destructive default's ask, and the step's hint already says "destructive").
 */
export function stepPolicyMark(record: PolicyRecord | undefined): PolicyMarkView | undefined {
  if (!record || (record.source === 'default' && !record.notHonoured)) return undefined;
  const rule = { decision: record.decision, reason: record.reason, source: record.source, id: record.ruleId };
  const loosened = record.notHonoured ? ` · the workspace's rule '${record.notHonoured}' would allow it; your policy stands` : '';
  return { decision: record.decision, ruleId: record.ruleId, text: verdictWords(rule) + loosened };
}

/** The card for a call the policy asks about. `existingIds`: the ids of the user's rules (Always allow's id is new). */
export function callCardView(ask: CallAsk, existingIds: Iterable<string>, now: Date): CallCardView {
  const { call, verdict } = ask;
  // A preview is asked once: an allow rule written from it would also let the plan's steps through.
  const always = canAlwaysAllow(verdict) && call.entrance !== 'preview';
  const hint = stepHint(ask.annotations);
  return {
    server: call.server,
    tool: call.tool,
    caller: callerWords(ask),
    args: call.args,
    ...(hint.effect !== 'unknown' || hint.openWorld ? { hint } : {}),
    because: verdictWords(verdict.rule),
    ruleId: verdict.rule.id,
    ruleSource: sourceWords(verdict.rule.source),
    canAlwaysAllow: always,
    ...(always ? { alwaysRuleText: JSON.stringify(alwaysRule(ask, existingIds, now), null, 2) } : {}),
    ...(verdict.notHonoured
      ? {
          notHonoured: `The workspace policy's rule '${verdict.notHonoured.id}' would allow this call, which loosens your own policy, so it is not honoured: you decide.`,
        }
      : {}),
  };
}

/** The rule Always allow writes for this call. */
export function alwaysRule(ask: Pick<CallAsk, 'call' | 'entrance'>, existingIds: Iterable<string>, now: Date): PolicyRule {
  return narrowestRule({ server: ask.call.server, tool: ask.call.tool, entrance: ask.entrance }, existingIds, now);
}
