/**
 * A plan's state in the plan panel's words: the one place they are written (the webview shows what it is sent).
 * Pure functions of the reducer's records.
 */
import type { StepStateView } from '../../shared/protocol/plan';
import type { PlanOutcome, PlanPhase, PlanRecord, StepTask, TaskStatus } from '../workflow/workflow';

const PHASE_TEXT: Record<PlanPhase, string> = {
  awaiting_approval: 'Awaiting approval',
  executing: 'Running',
  follow_up: 'Follow-up',
  blocked: 'Blocked',
  finished: 'Finished',
};

const OUTCOME_TEXT: Record<PlanOutcome, string> = {
  completed: 'Completed',
  rejected: 'Rejected',
  stopped: 'Stopped',
  cancelled: 'Cancelled',
  not_ok: 'Nothing to run',
  replaced: 'Replaced by a new plan',
};

const STEP_STATE_TEXT: Record<StepStateView, string> = {
  pending: 'pending',
  awaiting_confirm: 'awaiting confirmation',
  running: 'running',
  ok: 'ok',
  failed: 'failed',
  skipped: 'skipped',
  not_run: 'not run',
  unknown: 'outcome unknown',
};

/** The plan's header badge: its phase, or how it ended once finished ("Awaiting approval", "Rejected", …). */
export function phaseLabel(plan: Pick<PlanRecord, 'phase' | 'outcome'>): string {
  return plan.phase === 'finished' && plan.outcome ? OUTCOME_TEXT[plan.outcome] : PHASE_TEXT[plan.phase];
}

/**
 * The envelope's status, said to be the server's: a plan the user rejected still carried `status: ok` from its
 * server, and "Rejected" beside a bare "status: ok" read as a contradiction.
 */
export function serverStatusLabel(status: string): string {
  return `server said: ${status}`;
}

/** A step's state in the panel's words. */
export function stepStateText(state: StepStateView): string {
  return STEP_STATE_TEXT[state];
}

const TASK_STATUS_TEXT: Record<TaskStatus, string> = {
  working: 'working',
  input_required: 'waiting for input',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A step's MCP task in the panel's words: its status, and what Plangate does about it. */
export function taskWords(task: StepTask, stepState: StepStateView): { statusText: string; note: string } {
  const statusText = TASK_STATUS_TEXT[task.status] ?? String(task.status);
  const ended = task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';
  const note =
    stepState !== 'running'
      ? 'Was running as a task when Plangate stopped: it is watched again once its server is connected and still knows it.'
      : ended
        ? 'The task has ended on the server: Plangate fetches its result.'
        : 'Runs as a task on the server: Cancel stops it there (tasks/cancel); a window reload watches it again.';
  return { statusText, note };
}

/** Where a running plan is: "Running step k of n", else "d of n done". */
export function progressText(plan: Pick<PlanRecord, 'steps'>): string {
  let done = 0;
  let running: number | undefined;
  for (const s of plan.steps) {
    if (s.state === 'ok' || s.state === 'skipped') done++;
    else if (s.state === 'running' && running === undefined) running = s.index;
  }
  return running !== undefined ? `Running step ${running + 1} of ${plan.steps.length}` : `${done} of ${plan.steps.length} done`;
}

/** A plan's state in the panel's switcher, in a word or two. */
export function planBadge(plan: Pick<PlanRecord, 'phase' | 'outcome' | 'plan'>): string {
  if (plan.phase !== 'finished')
    return { awaiting_approval: 'awaiting approval', executing: 'running', follow_up: 'follow-up', blocked: 'blocked' }[plan.phase];
  return {
    completed: 'completed',
    rejected: 'rejected',
    stopped: 'stopped',
    cancelled: 'cancelled',
    not_ok: plan.plan.status,
    replaced: 'replaced',
  }[plan.outcome ?? 'completed'];
}
