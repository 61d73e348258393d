/**
 * The `plangate run --json` report, built from the workflow state after the run. Its shape is a contract that
 * scripts rely on (see the engine issue): keep field names and status words stable.
 */
import type { ToolResult } from '../core/base/toolResult';
import { getPlan, type PlanRecord, type StepRecord, type WorkflowState } from '../core/workflow/workflow';

export type RunStatus = 'completed' | 'failed' | 'rejected' | 'not_a_plan' | 'plan_status' | 'missing_tool';
export type StepOutcome = 'ok' | 'failed' | 'skipped' | 'not_run';

export interface StepReport {
  /** 1-based position in the plan's `next_actions`. */
  index: number;
  tool: string;
  outcome: StepOutcome;
  /** Why the step failed, or (with outcome not_run) why it could not run. */
  error?: string;
  /** The steps of the nested plan this step's result was. */
  nested?: StepReport[];
}

export interface RunReport {
  status: RunStatus;
  /** The plan's own status when it is not ok (status "plan_status"). */
  plan_status?: string;
  /** Every step of the plan, in order. Empty when the result was not a plan. */
  steps: StepReport[];
  /** The plan's follow-up question; only when the plan completed. */
  follow_up?: string;
  /** The tool result itself, when it was not a plan (status "not_a_plan"). */
  result?: ToolResult;
}

function outcomeOf(step: StepRecord): StepOutcome {
  switch (step.state) {
    case 'ok':
      return 'ok';
    case 'failed':
    case 'unknown':
      return 'failed';
    case 'skipped':
      return 'skipped';
    default:
      return 'not_run';
  }
}

/** The steps of `plan` (and, below each step, of its nested plan), as the report lists them. */
export function stepReports(
  state: WorkflowState,
  plan: PlanRecord,
  errors: ReadonlyMap<number, string> = new Map(),
  depth = 0,
): StepReport[] {
  return plan.steps.map((step) => {
    const report: StepReport = { index: step.index + 1, tool: step.call.tool, outcome: outcomeOf(step) };
    const error = step.error ?? errors.get(step.index);
    if (error !== undefined && report.outcome !== 'ok' && report.outcome !== 'skipped') report.error = error;
    const child = step.childPlanId === undefined || depth > 64 ? undefined : getPlan(state, step.childPlanId);
    if (child) report.nested = stepReports(state, child, new Map(), depth + 1);
    return report;
  });
}

/**
 * How a run ended, in the report's words: completed (all steps ok or skipped; the plan may wait for its follow-up),
 * rejected (the plan, or one of its confirm steps, was declined and no step failed), plan_status (its status was not
 * ok), failed (anything else: a step failed, the run was cancelled or stopped).
 */
export function runStatus(plan: PlanRecord): RunStatus {
  if (plan.phase === 'follow_up' || plan.outcome === 'completed') return 'completed';
  if (plan.outcome === 'not_ok') return 'plan_status';
  if (plan.outcome === 'rejected') return 'rejected';
  const failed = plan.steps.some((s) => s.state === 'failed' || s.state === 'unknown');
  if (plan.outcome === 'stopped' && !failed) return 'rejected';
  return 'failed';
}

/** The report of a plan run (or not run) in `state`. `errors` adds reasons to steps that did not run (missing tools). */
export function planReport(
  state: WorkflowState,
  plan: PlanRecord,
  status: RunStatus = runStatus(plan),
  errors?: ReadonlyMap<number, string>,
): RunReport {
  const report: RunReport =
    status === 'plan_status'
      ? { status, plan_status: plan.plan.status, steps: stepReports(state, plan, errors) }
      : { status, steps: stepReports(state, plan, errors) };
  if (status === 'completed' && typeof plan.plan.follow_up === 'string' && plan.plan.follow_up.trim() !== '')
    report.follow_up = plan.plan.follow_up;
  return report;
}
