/**
 * The single-call card's view model: a call the policy asks about, from any entrance (the agent, an MCP App, Call Tool
 * under a rule that asks), with the deciding rule in words. Also the words of a verdict wherever a plan step shows
 * it. Pure.
 */
import type { CallAsk } from '../engine/door';
import { ALLOW_LENGTHS, narrowestRule, whyOnlyOnce, type AllowLength } from '../policy/alwaysAllow';
import type { PolicyRule, RuleRef, RuleSource } from '../policy/rules';
import type { PolicyRecord } from '../plan/plan';
import { stepHint } from '../base/toolHints';
import type { CallCardView } from '../../shared/protocol/cards';
import type { PolicyMarkView } from '../../shared/protocol/plan';

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
    case 'session':
      return 'your approval for this session';
    case 'workspaceApproval':
      return 'your approval in this workspace';
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

/** Who is calling, in words for the middle of a sentence: "the chat agent", "an MCP App of server 'x'", "Call Tool". */
export function callerMidSentence(ask: Pick<CallAsk, 'entrance' | 'call'>): string {
  return midSentence(callerWords(ask));
}

/** Words that open a sentence, for its middle: a leading "The", "An" or "A" in lower case (names keep theirs). */
export function midSentence(words: string): string {
  return words.replace(/^(The|An|A) /, (article) => article.toLowerCase());
}

/** "Asked because: …", "Denied by …: …", "Allowed by …: …". */
export function verdictWords(rule: Pick<RuleRef, 'decision' | 'reason' | 'source' | 'id'>): string {
  const by = rule.source === 'default' || rule.source === 'tool' ? sourceWords(rule.source) : `${sourceWords(rule.source)} '${rule.id}'`;
  // (session and workspace approvals are named by their id too: Revoke in the Approvals view finds them by it)
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

/**
 * The card for a call the policy asks about. `existingIds`: the ids of the user's rules and the standing approvals (an
 * allow's id is new); `waiting`: how many calls of this caller to this tool wait behind the card (askQueue.ts).
 */
export function callCardView(ask: CallAsk, existingIds: Iterable<string>, now: Date, waiting = 1): CallCardView {
  const { call, verdict } = ask;
  // A preview is asked once: an allow rule written from it would also let the plan's steps through.
  const onlyOnce =
    call.entrance === 'preview'
      ? 'a dry-run preview is asked each time: an allow rule would let the step itself through'
      : whyOnlyOnce(verdict);
  const always = onlyOnce === undefined;
  const ids = [...existingIds];
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
    ...(always ? { alwaysRuleText: JSON.stringify(alwaysRule(ask, ids, now), null, 2) } : {}),
    ...(always
      ? { allowRules: Object.fromEntries(ALLOW_LENGTHS.map((l) => [l, JSON.stringify(alwaysRule(ask, ids, now, l), null, 2)])) }
      : { onlyOnce: `Only Allow once: ${onlyOnce}.` }),
    ...(waiting > 1 ? { waiting } : {}),
    ...(verdict.notHonoured
      ? {
          notHonoured: `The workspace policy's rule '${verdict.notHonoured.id}' would allow this call, which loosens your own policy, so it is not honoured: you decide.`,
        }
      : {}),
  };
}

/** The rule an allow of `length` (Always allow by default) writes for this call: this server (by identity), tool, entrance. */
export function alwaysRule(
  ask: Pick<CallAsk, 'call' | 'entrance' | 'serverKey'>,
  existingIds: Iterable<string>,
  now: Date,
  length: AllowLength = 'always',
): PolicyRule {
  return narrowestRule(
    {
      server: ask.call.server,
      tool: ask.call.tool,
      entrance: ask.entrance,
      ...(ask.serverKey !== undefined ? { serverKey: ask.serverKey } : {}),
    },
    existingIds,
    now,
    length,
  );
}
