/**
 * The result card's view model: a call's result a policy rule asks the user to review before its caller reads it
 * (`review: "result"`), with who called and the rule in words. Pure.
 */
import type { ResultReview } from '../engine/door';
import type { ResultCardView } from '../../shared/protocol/review';
import { callerWords, sourceWords } from './callCard';

export function resultCardView(review: ResultReview): ResultCardView {
  const { call, rule, result } = review;
  const by = `${sourceWords(rule.source)} '${rule.id}'`;
  const r = result && typeof result === 'object' ? result : {};
  return {
    server: call.server,
    tool: call.tool,
    caller: callerWords(review),
    because: `Reviewed because: ${rule.reason} (${by})`,
    ruleId: rule.id,
    result: {
      ...(Array.isArray(r.content) ? { content: r.content as unknown[] } : {}),
      ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}),
      ...(r.isError === true ? { isError: true } : {}),
    },
  };
}
