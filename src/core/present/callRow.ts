/**
 * What the Plans view's **Calls** group shows of one single call, and what an export of calls holds, as plain data: the
 * tool, how it ended, the policy's decision in words with the deciding rule's id, the server and the entrance; the
 * tooltip adds the arguments. A narrow sidebar cuts a row from the right, so the description leads with the outcome and
 * the decision. Pure.
 */
import { visibleText } from '../../shared/visibleText';
import type { RecentCall } from '../workflow/recentCalls';
import type { CallEntrance, CallOutcomeKind, CallPolicyRecord } from '../workflow/workflow';

export interface CallRowView {
  label: string;
  /** E.g. "refused · denied by rule 'no-echo' · fixture · Call Tool". */
  description: string;
  /** Plain text, one fact a line, the decision first. */
  tooltip: string;
  /** A codicon id. */
  icon: string;
  contextValue: 'call';
  accessibilityLabel: string;
}

/** The characters of the arguments' JSON the tooltip shows (the export has them whole). */
export const ARGS_SUMMARY_MAX = 600;

const ENTRANCE_WORDS: Record<CallEntrance, string> = {
  agent: 'chat agent',
  call: 'Call Tool',
  app: 'MCP App',
  collect: 'collect form',
  replan: 'ask form',
  step: 'plan step',
  preview: 'dry-run preview',
};

const OUTCOME_WORDS: Record<CallOutcomeKind, string> = {
  ok: 'ok',
  tool_error: 'tool error',
  failed: 'failed',
  refused: 'refused',
};

const OUTCOME_ICON: Record<CallOutcomeKind, string> = {
  ok: 'pass',
  tool_error: 'error',
  failed: 'error',
  refused: 'circle-slash',
};

/** How an `ask` was answered, in words. */
function answerWords(policy: CallPolicyRecord): string {
  if (policy.coveredBy === 'plan') return "covered by the plan's approval";
  if (policy.coveredBy === 'button') return 'covered by the button that showed this call';
  switch (policy.answer) {
    case 'once':
      return 'allowed once';
    case 'always':
      return `always allowed${policy.alwaysRule ? ` (rule '${policy.alwaysRule}' added)` : ''}`;
    case 'session':
      return `allowed for this session${policy.approvalRule ? ` ('${policy.approvalRule}')` : ''}`;
    case 'workspace':
      return `allowed in this workspace${policy.approvalRule ? ` ('${policy.approvalRule}')` : ''}`;
    case 'deny':
      return `denied by you${policy.note ? `: ${policy.note}` : ''}`;
    case 'cancelled':
      return 'the caller stopped waiting';
    default:
      return 'waiting for your answer';
  }
}

/** A rule's reason without its own closing full stop (the sentence adds one). */
function reasonOf(policy: CallPolicyRecord): string {
  return policy.reason.replace(/[.\s]+$/, '');
}

/** Who decided, with the rule's id: "rule 'x'" for a user's or workspace's rule, the id alone for Plangate's own. */
function ruleName(policy: CallPolicyRecord): string {
  return policy.source === 'user' || policy.source === 'workspace' ? `rule '${policy.ruleId}'` : `'${policy.ruleId}'`;
}

/** The policy's decision on the call in a few words, with the rule id (the row's description). */
export function decisionShort(call: Pick<RecentCall, 'policy'>): string {
  const p = call.policy;
  if (!p) return 'no policy';
  switch (p.decision) {
    case 'allow':
      return `allowed by ${ruleName(p)}`;
    case 'deny':
      return `denied by ${ruleName(p)}`;
    case 'ask':
      return `asked by ${ruleName(p)}, ${answerWords(p).replace(/: .*$/s, '')}`;
  }
}

/**
 * The policy's decision on the call in a sentence, with the rule's id and reason: "Allowed by rule 'x': …", "Asked
 * because: … (rule 'y'); allowed once", "Denied by rule 'z': …".
 */
export function decisionWords(call: Pick<RecentCall, 'policy'>): string {
  const p = call.policy;
  if (!p) return 'No policy decision was recorded for this call.';
  const loosened = p.notHonoured ? ` The workspace's rule '${p.notHonoured}' would have loosened this; your policy stood.` : '';
  switch (p.decision) {
    case 'allow':
      return `Allowed by ${ruleName(p)}: ${reasonOf(p)}.${loosened}`;
    case 'deny':
      return `Denied by ${ruleName(p)}: ${reasonOf(p)}.${loosened}`;
    case 'ask':
      return `Asked because: ${reasonOf(p)} (${ruleName(p)}); ${answerWords(p)}.${loosened}`;
  }
}

/** The call's state in a word: its outcome, or "running" while in flight. */
export function callOutcomeWords(call: Pick<RecentCall, 'outcome'>): string {
  return call.outcome ? OUTCOME_WORDS[call.outcome] : 'running';
}

/** The arguments as one line of JSON, cut at {@link ARGS_SUMMARY_MAX} characters. */
export function argsSummary(args: Record<string, unknown> | undefined): string {
  if (args === undefined) return '(not recorded)';
  let text: string;
  try {
    text = JSON.stringify(args) ?? '';
  } catch {
    text = '(not JSON)';
  }
  const chars = Array.from(text);
  return visibleText(chars.length > ARGS_SUMMARY_MAX ? `${chars.slice(0, ARGS_SUMMARY_MAX - 1).join('')}…` : text);
}

/** The Plans view's row for a single call; `when` is its time as the user reads times. */
export function callRowView(call: RecentCall, when: string): CallRowView {
  const tool = visibleText(call.tool);
  const server = visibleText(call.server);
  const entrance = ENTRANCE_WORDS[call.entrance] ?? visibleText(call.entrance);
  const outcome = callOutcomeWords(call);
  const decision = visibleText(decisionShort(call));
  return {
    label: tool,
    description: `${outcome} · ${decision} · ${server} · ${entrance}`,
    tooltip: [
      visibleText(decisionWords(call), { keepNewlines: true }),
      '',
      `Outcome: ${outcome}${call.detail ? ` — ${visibleText(call.detail)}` : ''}${call.durationMs !== undefined ? ` (${call.durationMs} ms)` : ''}`,
      `Tool: ${tool}`,
      `Server: ${server}`,
      `Called by: ${entrance}`,
      `When: ${when}`,
      `Arguments: ${argsSummary(call.args)}`,
    ].join('\n'),
    icon: call.outcome ? OUTCOME_ICON[call.outcome] : 'sync~spin',
    contextValue: 'call',
    accessibilityLabel: `Call of ${tool} on ${server} by ${entrance}, ${outcome}, ${decision}`,
  };
}

/** The description of the Calls group: how many, and how many of them were refused. */
export function callsGroupDescription(calls: readonly RecentCall[]): string {
  const refused = calls.filter((c) => c.outcome === 'refused').length;
  return `${calls.length} recent${refused ? ` · ${refused} refused` : ''}`;
}

/** One call as an export holds it: the ledger's record with its decision in words and its time in ISO form. */
export function callExport(call: RecentCall): RecentCall & { time: string; decisionText: string } {
  return { ...call, time: new Date(call.at).toISOString(), decisionText: decisionWords(call) };
}
