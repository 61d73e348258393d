/**
 * How a plan ended, in the plan panel's words. Its own module with type-only imports: the webview bundles it, and
 * the workflow module would bring the envelope schema (zod) into the webview with it.
 */
import type { PlanRecord } from './workflow';

/**
 * How a finished plan ended, as the sentence the plan panel shows under it (e.g. "Stopped after 2 steps; the rest
 * did not run."); "" for a plan that has not finished. `describeOutcome` in present.ts is the short form for lists.
 */
export function outcomeSentence(plan: PlanRecord): string {
  const ok = plan.steps.filter((s) => s.state === 'ok').length;
  const steps = (n: number) => `${n} step${n === 1 ? '' : 's'}`;
  switch (plan.outcome) {
    case 'completed':
      return `Completed: ${ok} of ${steps(plan.steps.length)} ran${plan.followUpAnswer ? `; follow-up answered "${plan.followUpAnswer}"` : ''}.`;
    case 'rejected':
      return `Rejected${plan.rejectReason ? `: ${plan.rejectReason.replace(/[.\s]+$/, '')}` : ''}. Nothing ran.`;
    case 'stopped':
      return `Stopped after ${steps(ok)}; the rest did not run.`;
    case 'cancelled':
      return `Cancelled after ${steps(ok)}; the rest did not run.`;
    case 'not_ok':
      return plan.plan.ask
        ? 'Nothing to approve yet: answer the question above to ask the server for a new plan.'
        : plan.plan.recovery_actions?.length
          ? 'Nothing to approve: try a recovery action above, or call the tool again.'
          : 'This plan had nothing to approve.';
    case 'replaced':
      return 'Replaced by a new plan.';
    case undefined:
      return '';
  }
}
