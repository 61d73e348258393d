/**
 * The workflow in words, for the status bar, lists and the CLI. Pure functions of the state.
 */
import { visibleText } from '../../shared/visibleText';
import {
  activeChild,
  activePlans,
  currentStep,
  pendingApprovals,
  planProgress,
  stepLabel,
  type PlanRecord,
  type StepRecord,
  type WorkflowState,
} from '../workflow/workflow';

export type StatusKind = 'idle' | 'awaiting' | 'running' | 'follow_up' | 'blocked';

export interface StatusDescription {
  /** Exactly one of: `idle` · `awaiting approval (n)` · `running k/n` · `follow-up` · `blocked`. */
  text: string;
  /** Every active plan, one line each, then what clicking does. */
  tooltip: string;
  /** A codicon in `$(id)` form. */
  icon: string;
  state: StatusKind;
  /** The plan the text is about (the one to reveal on click); undefined when idle. */
  planId?: string;
}

/** Codicons per state (`sync~spin` spins). */
export const STATUS_ICONS: Record<StatusKind, string> = {
  idle: '$(checklist)', // not a shield: it would read as part of VS Code's Restricted Mode item beside it
  awaiting: '$(bell-dot)',
  running: '$(sync~spin)',
  follow_up: '$(question)',
  blocked: '$(warning)',
};

/**
 * The status bar: when several plans are active the first that applies wins — running > blocked > awaiting >
 * follow-up > idle. Running wins because it changes by itself in a moment (and a blocked plan stays listed in the
 * tooltip); a plan waiting for its nested plan is not "running": the nested plan's own state counts. With several
 * plans in one state, the most recently received is described. `running k/n`: k is the step now running (1-based),
 * n the plan's steps.
 */
/**
 * The status bar's words for the workflow. `pendingCalls`: single calls waiting on the policy's card (they count as
 * awaiting approval, like plans; a run in progress or a blocked plan still comes first).
 */
export function describeStatus(state: WorkflowState, pendingCalls = 0): StatusDescription {
  const active = activePlans(state);
  const running = active.filter((p) => p.phase === 'executing' && !activeChild(state, p));
  const blocked = active.filter((p) => p.phase === 'blocked');
  const awaiting = pendingApprovals(state);
  const followUps = active.filter((p) => p.phase === 'follow_up');
  const tooltip = statusTooltip(state, active);

  const last = (plans: PlanRecord[]) => plans[plans.length - 1];
  if (running.length) {
    const plan = last(running);
    const step = currentStep(plan);
    const { done, total } = planProgress(plan);
    const k = step ? step.index + 1 : done;
    return { text: `running ${k}/${total}`, tooltip, icon: STATUS_ICONS.running, state: 'running', planId: plan.id };
  }
  if (blocked.length) return { text: 'blocked', tooltip, icon: STATUS_ICONS.blocked, state: 'blocked', planId: last(blocked).id };
  if (awaiting.length || pendingCalls > 0) {
    return {
      text: `awaiting approval (${awaiting.length + pendingCalls})`,
      tooltip: pendingCalls > 0 ? `${tooltip}\n${pendingCalls} call${pendingCalls === 1 ? '' : 's'} waiting for your decision` : tooltip,
      icon: STATUS_ICONS.awaiting,
      state: 'awaiting',
      ...(awaiting.length ? { planId: last(awaiting).id } : {}),
    };
  }
  if (followUps.length) return { text: 'follow-up', tooltip, icon: STATUS_ICONS.follow_up, state: 'follow_up', planId: last(followUps).id };
  return { text: 'idle', tooltip, icon: STATUS_ICONS.idle, state: 'idle' };
}

function statusTooltip(state: WorkflowState, active: PlanRecord[]): string {
  if (!active.length) return 'Plangate: no plan is waiting or running.';
  const lines = active.map((plan) => {
    const child = activeChild(state, plan);
    const outcome = child ? `waiting for nested plan "${planTitle(child)}"` : describeOutcome(plan);
    return `• ${planTitle(plan)} — ${outcome}`;
  });
  return ['Plangate', ...lines, '', 'Click to show the plan.'].join('\n');
}

/** A plan's title: the first line of its instruction (cut at `max`), else "<tool> plan". */
export function planTitle(plan: PlanRecord, max = 60): string {
  const instruction = typeof plan.plan.instruction === 'string' ? plan.plan.instruction : '';
  const first =
    instruction
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  const text = first || `${plan.origin.tool} plan`;
  // Shown in native UI too (the Plans view, tabs, notifications): invisible and bidi characters as marks.
  return clip(visibleText(text), max);
}

/** A step's state in a few words, e.g. "running (3/10: copying)", "failed: Timed out after 30 s". */
export function describeStep(step: StepRecord): string {
  switch (step.state) {
    case 'pending':
      return step.skipRequested ? 'will be skipped' : 'pending';
    case 'awaiting_confirm':
      return 'waiting for your confirmation';
    case 'running': {
      const p = step.progress;
      if (!p) return 'running';
      const amount = p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`;
      return `running (${amount}${p.message ? `: ${clip(p.message, 60)}` : ''})`;
    }
    case 'ok':
      return step.summary ? `ok: ${clip(firstLine(step.summary), 80)}` : 'ok';
    case 'failed':
      return `failed: ${clip(firstLine(step.error ?? 'no message'), 120)}`;
    case 'skipped':
      return 'skipped';
    case 'not_run':
      return 'not run';
    case 'unknown':
      return 'outcome unknown (it was running when Plangate stopped)';
  }
}

/** How the plan stands or ended, in a few words, e.g. "running step 2 of 3 (write_file)", "stopped after step 2 failed". */
export function describeOutcome(plan: PlanRecord): string {
  const total = plan.steps.length;
  switch (plan.phase) {
    case 'awaiting_approval':
      return `awaiting approval (${total} step${total === 1 ? '' : 's'})`;
    case 'executing': {
      const step = currentStep(plan);
      if (!step) return 'running';
      const what = `step ${step.index + 1} of ${total} (${stepLabel(step)})`;
      return step.state === 'awaiting_confirm' ? `waiting for your confirmation of ${what}` : `running ${what}`;
    }
    case 'blocked':
      return `blocked: ${plan.blockedReason ?? `at step ${(plan.blockedStep ?? 0) + 1}`}`;
    case 'follow_up':
      return `done; follow-up: ${clip(plan.plan.follow_up ?? '', 80)}`;
    case 'finished':
      break;
  }
  const failed = plan.steps.find((s) => s.state === 'failed' || s.state === 'unknown');
  switch (plan.outcome) {
    case 'completed': {
      const skipped = plan.steps.filter((s) => s.state === 'skipped').length;
      const answer = plan.followUpAnswer ? `; follow-up answered ${plan.followUpAnswer}` : '';
      return `completed${skipped ? ` (${skipped} skipped)` : ''}${answer}`;
    }
    case 'rejected':
      return plan.rejectReason ? `rejected: ${clip(plan.rejectReason, 80)}` : 'rejected';
    case 'stopped': {
      if (failed) return `stopped after step ${failed.index + 1} ${failed.state === 'unknown' ? 'was interrupted' : 'failed'}`;
      const declined = plan.steps.find((s) => s.state === 'not_run');
      return declined ? `stopped at step ${declined.index + 1}` : 'stopped';
    }
    case 'cancelled':
      return failed ? `cancelled during step ${failed.index + 1}` : 'cancelled';
    case 'not_ok': {
      const first = plan.plan.errors?.[0]?.message;
      return `status ${plan.plan.status}${typeof first === 'string' && first ? `: ${clip(firstLine(first), 80)}` : ''}`;
    }
    case 'replaced':
      return plan.replacedById ? `replaced by plan ${plan.replacedById}` : 'replaced';
    default:
      return 'finished';
  }
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? ''
  );
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
