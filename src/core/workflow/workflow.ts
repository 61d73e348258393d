/**
 * The workflow: every plan Plangate has seen, as state reduced from events.
 *
 * `reduce(state, event) → state` is the only way state changes. The runner and the UI emit events; the
 * ledger stores the same events (append-only), so replaying the ledger rebuilds the state after a reload.
 *
 * Plan phases follow the MCPFlow state machine: NEEDS_PLAN_APPROVAL (`awaiting_approval`), EXECUTING,
 * FOLLOW_UP_PENDING (`follow_up`), BLOCKED, and `finished` (the plan is history; with no active plan the
 * workflow is IDLE).
 */
import { approvalHash } from '../plan/approval';
import { sameJson } from '../base/json';
import { assertNever } from '../base/lifecycle';
import type {
  ActionCall,
  OrchestratedPlan,
  PlanOrigin,
  PlanOutcome,
  PlanPhase,
  PlanRecord,
  StepRecord,
  StepState,
  TaskStatus,
} from '../plan/plan';
import { TASK_STATUSES } from '../plan/plan';
import { canApplySubmission, isSubmissionEvent, reduceSubmissions } from '../forms/submissions';

// The records' types live in plan.ts (approval.ts and submissions.ts need them without importing the reducer).
export type {
  Entrance,
  PlanOrigin,
  PlanOutcome,
  PlanPhase,
  PlanRecord,
  StepProgress,
  StepRecord,
  StepState,
  StepTask,
  TaskStatus,
} from '../plan/plan';

export * from './workflowEvents';
import {
  INTERRUPTED_STEP_ERROR,
  isCallRecord,
  MAX_PLAN_DEPTH,
  WORKFLOW_EVENT_TYPES,
  type StepResolutionRecord,
  type WorkflowEvent,
  type WorkflowState,
} from './workflowEvents';

const EVENT_TYPE_SET: ReadonlySet<string> = new Set(WORKFLOW_EVENT_TYPES);

/** The last approval hash taken of each steps list, with the origin and plan it was taken with. */
const approvalHashes = new WeakMap<readonly StepRecord[], { origin: PlanOrigin; plan: OrchestratedPlan; hash: string }>();

/**
 * {@link approvalHash} of `plan`, remembered for its steps list: records are never changed in place (every event makes
 * new ones), so the same list, origin and plan give the same hash. Checking an approval and then the run it starts
 * hashes a long plan once, not twice.
 */
export function planApprovalHash(plan: PlanRecord): string {
  const memo = approvalHashes.get(plan.steps);
  if (memo && memo.origin === plan.origin && memo.plan === plan.plan) return memo.hash;
  const hash = approvalHash(plan);
  approvalHashes.set(plan.steps, { origin: plan.origin, plan: plan.plan, hash });
  return hash;
}

// ---------------------------------------------------------------------------------------------------------------
// Selectors

/** The plan with this id (own property only: an id such as `__proto__` is plain data). */
export function getPlan(state: WorkflowState, planId: string): PlanRecord | undefined {
  return typeof planId === 'string' && Object.hasOwn(state.plans, planId) ? state.plans[planId] : undefined;
}

/** Plans that are not finished, in the order received. */
export function activePlans(state: WorkflowState): PlanRecord[] {
  return state.order.map((id) => getPlan(state, id)).filter((p): p is PlanRecord => !!p && p.phase !== 'finished');
}

/** Plans waiting for the user's approval, in the order received. */
export function pendingApprovals(state: WorkflowState): PlanRecord[] {
  return activePlans(state).filter((p) => p.phase === 'awaiting_approval');
}

/**
 * The step the plan is at: while executing, the running or confirming step, else the next pending one; while
 * blocked, the step it is blocked on. Undefined in the other phases.
 */
export function currentStep(plan: PlanRecord): StepRecord | undefined {
  if (plan.phase === 'blocked') return plan.blockedStep === undefined ? undefined : plan.steps[plan.blockedStep];
  if (plan.phase !== 'executing') return undefined;
  // One pass (the runner asks before every step): a running or confirming step wins, else the next step.
  let next: StepRecord | undefined;
  let nextFound = false;
  for (const step of plan.steps) {
    if (step.state === 'running' || step.state === 'awaiting_confirm') return step;
    if (nextFound || step.state === 'ok' || step.state === 'skipped') continue;
    nextFound = true;
    if (step.state === 'pending') next = step;
  }
  return next;
}

/** `done`: steps ok or skipped; `total`: all steps. */
export function planProgress(plan: PlanRecord): { done: number; total: number } {
  return { done: plan.steps.filter((s) => s.state === 'ok' || s.state === 'skipped').length, total: plan.steps.length };
}

/**
 * The nested plan the given plan is waiting for: its running step produced a plan that is still awaiting
 * approval, executing or blocked. A plan waiting on a child is not running by itself.
 */
export function activeChild(state: WorkflowState, plan: PlanRecord): PlanRecord | undefined {
  const step = plan.steps.find((s) => s.state === 'running' && s.childPlanId !== undefined);
  const child = step?.childPlanId === undefined ? undefined : getPlan(state, step.childPlanId);
  return child && isActiveChildPhase(child.phase) ? child : undefined;
}

/** The label of a step as users see it: its `label`, else its tool. */
export function stepLabel(step: StepRecord): string {
  const label = step.call.label ?? step.proposed.label;
  return typeof label === 'string' && label.trim() !== '' ? label : step.call.tool;
}

/** The first pending step all of whose predecessors are ok or skipped (the only step allowed to start). */
function nextStep(plan: PlanRecord): StepRecord | undefined {
  for (const step of plan.steps) {
    if (step.state === 'ok' || step.state === 'skipped') continue;
    return step.state === 'pending' ? step : undefined;
  }
  return undefined;
}

function isActiveChildPhase(phase: PlanPhase): boolean {
  return phase === 'awaiting_approval' || phase === 'executing' || phase === 'blocked';
}

// ---------------------------------------------------------------------------------------------------------------
// Refusals

/**
 * Why `event` does not apply to `state`, in words for the user or the log; undefined when it applies.
 * {@link reduce} leaves the state unchanged exactly when this returns a reason. Never throws.
 */
export function canApply(state: WorkflowState, event: WorkflowEvent): string | undefined {
  if (!event || typeof event !== 'object' || typeof (event as { type?: unknown }).type !== 'string') return 'Not a workflow event.';
  if (!EVENT_TYPE_SET.has(event.type)) return `Unknown workflow event '${String(event.type)}'.`;
  if (event.type === 'restored') return restoreAll(state) === state ? 'Nothing was interrupted.' : undefined;
  if (isSubmissionEvent(event)) return canApplySubmission(state.submissions ?? {}, event);
  if (event.type === 'planReceived') return canReceive(state, event);
  if (event.type === 'callSent') {
    return typeof event.callId === 'string' && typeof event.server === 'string' && typeof event.tool === 'string' && !!event.decision
      ? undefined
      : 'A call record needs an id, a server, a tool and the decision that covers it.';
  }
  if (event.type === 'callEnded') return typeof event.callId === 'string' ? undefined : 'A call record needs its id.';
  if (event.type === 'resourceRead')
    return typeof event.callId === 'string' && typeof event.server === 'string' && typeof event.uri === 'string'
      ? undefined
      : 'A resource read needs an id, a server and a URI.';
  if (event.type === 'callTask') return taskRecordProblem(event);
  if (event.type === 'samplingDecided')
    return typeof event.samplingId === 'string' && typeof event.server === 'string' && typeof event.outcome === 'string'
      ? undefined
      : 'A sampling record needs an id, a server and an outcome.';

  const plan = getPlan(state, event.planId);
  if (!plan) return `There is no plan '${String(event.planId)}'.`;
  const name = `Plan '${plan.id}'`;
  const phaseIs = (...phases: PlanPhase[]) =>
    phases.includes(plan.phase)
      ? undefined
      : `${name} is ${phaseWords(plan)}; ${event.type} applies only while it is ${phases.map(phaseWordsOf).join(' or ')}.`;

  let step: StepRecord | undefined;
  if ('step' in event) {
    step = Number.isInteger(event.step) ? plan.steps[event.step] : undefined;
    if (!step) return `${name} has no step ${String(event.step)} (it has ${plan.steps.length}).`;
  }
  const stepName = step ? `Step ${step.index + 1} (${stepLabel(step)})` : '';
  const stepIs = (...states: StepState[]) =>
    step && states.includes(step.state) ? undefined : `${stepName} is ${step?.state}; ${event.type} needs it ${states.join(' or ')}.`;

  switch (event.type) {
    case 'argsEdited':
      if (!isPlainObject(event.args)) return `${stepName}: the arguments must be a JSON object.`;
      return phaseIs('awaiting_approval') ?? stepIs('pending');
    case 'skipMarked':
      if (typeof event.skip !== 'boolean') return `${stepName}: skip must be true or false.`;
      return phaseIs('awaiting_approval') ?? stepIs('pending');
    case 'resolved':
      if (!Array.isArray(event.steps) || event.steps.length !== plan.steps.length)
        return `${name}: a resolution must name one place per step (${plan.steps.length}).`;
      return phaseIs('awaiting_approval');
    case 'stepDrifted':
      if (!event.resolution || typeof event.change !== 'string')
        return `${stepName}: a drift must say where the step resolves now and what changed.`;
      return phaseIs('executing') ?? stepIs('pending', 'running');
    case 'approved': {
      const refusal = phaseIs('awaiting_approval');
      if (refusal) return refusal;
      if (event.approvalHash !== planApprovalHash(plan))
        return `${name} changed since it was shown (the approval does not cover its current steps); review it and approve again.`;
      if (event.note !== undefined && typeof event.note !== 'string') return `${name}: the note with the approval must be text.`;
      return undefined;
    }
    case 'rejected':
      return phaseIs('awaiting_approval');
    case 'confirmRequested':
      return phaseIs('executing') ?? stepIs('pending') ?? notNext(plan, step!);
    case 'confirmAnswered':
      if (typeof event.granted !== 'boolean') return `${stepName}: the answer must be granted or declined.`;
      return phaseIs('executing') ?? stepIs('awaiting_confirm');
    case 'stepStarted':
      if (typeof event.server !== 'string' || event.server === '') return `${stepName}: the server it runs on is missing.`;
      return (
        phaseIs('executing') ??
        stepIs('pending') ??
        notNext(plan, step!) ??
        (step!.call.confirm === true && step!.confirmedAt === undefined
          ? `${stepName} needs its own confirmation before it starts.`
          : undefined)
      );
    case 'stepProgress':
      return phaseIs('executing') ?? stepIs('running');
    case 'stepTask':
      return (
        taskRecordProblem(event) ??
        phaseIs('executing') ??
        stepIs('running') ??
        (step!.task && step!.task.id !== event.taskId ? `${stepName} runs as another task.` : undefined)
      );
    case 'taskResumed':
      if (!step!.task) return `${stepName} did not run as a task, so there is no task to resume.`;
      if (isTerminalTask(step!.task.status)) return `${stepName}: its task had already ended (${step!.task.status}).`;
      return (
        phaseIs('blocked') ??
        (event.step === plan.blockedStep ? undefined : `${name} is blocked on step ${(plan.blockedStep ?? 0) + 1}, not on this one.`) ??
        stepIs('unknown')
      );
    case 'stepSucceeded':
      return phaseIs('executing') ?? stepIs('running') ?? waitingOnChild(state, step!, stepName);
    case 'stepFailed': {
      const refusal = phaseIs('executing') ?? stepIs('running', 'pending');
      if (refusal) return refusal;
      if (step!.state === 'pending' && plan.steps.some((s) => s.state === 'running' || s.state === 'awaiting_confirm')) {
        return `${name} has a step in progress; ${stepName} can only fail before it starts when nothing else runs.`;
      }
      return waitingOnChild(state, step!, stepName);
    }
    case 'stepSkipped':
      if (plan.phase === 'blocked') {
        return event.step === plan.blockedStep
          ? undefined
          : `${name} is blocked on step ${(plan.blockedStep ?? 0) + 1}; only that step can be skipped.`;
      }
      if (plan.phase === 'executing' && step!.state === 'pending' && step!.skipRequested) return undefined;
      return `${stepName} cannot be skipped now: only the step a plan is blocked on, or a step marked to skip, can be.`;
    case 'retryRequested':
      return (
        phaseIs('blocked') ??
        (event.step === plan.blockedStep
          ? undefined
          : `${name} is blocked on step ${(plan.blockedStep ?? 0) + 1}; only that step can be retried.`)
      );
    case 'stopped':
      return phaseIs('blocked');
    case 'cancelled':
      return phaseIs('executing');
    case 'followUpAnswered':
      if (event.answer !== 'yes' && event.answer !== 'no') return `${name}: the follow-up answer must be yes or no.`;
      return notOkFollowUpOpen(plan, state) ? undefined : phaseIs('follow_up');
    case 'reverted':
      if (!Array.isArray(event.files) || event.files.length === 0 || !event.files.every((f) => typeof f === 'string' && f !== ''))
        return `${name}: a revert must list the files it put back.`;
      if (plan.approvedAt === undefined) return `${name} was never approved, so it changed no files to revert.`;
      return plan.phase === 'executing' ? `${name} is executing; cancel it before reverting its files.` : undefined;
    default:
      return assertNever(event, 'workflow event');
  }
}

/** What is wrong with a task record's ids and status (undefined: nothing). */
function taskRecordProblem(event: {
  callId: unknown;
  server: unknown;
  taskId: unknown;
  status: unknown;
  message?: unknown;
}): string | undefined {
  if (typeof event.callId !== 'string' || typeof event.server !== 'string' || typeof event.taskId !== 'string' || event.taskId === '')
    return 'A task record needs the call id, the server and the task id.';
  if (!(TASK_STATUSES as readonly unknown[]).includes(event.status))
    return `A task record's status must be one of ${TASK_STATUSES.join(', ')}.`;
  if (event.message !== undefined && typeof event.message !== 'string') return "A task record's message must be text.";
  return undefined;
}

/** Whether a task with this status has ended (its result, if any, is ready). */
export function isTerminalTask(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

function canReceive(state: WorkflowState, event: Extract<WorkflowEvent, { type: 'planReceived' }>): string | undefined {
  if (typeof event.planId !== 'string' || event.planId === '') return 'A plan needs an id.';
  if (getPlan(state, event.planId)) return `There is already a plan '${event.planId}'.`;
  if (!event.plan || typeof event.plan !== 'object' || !Array.isArray(event.plan.next_actions))
    return `Plan '${event.planId}' has no next_actions list.`;
  if (!event.origin || typeof event.origin !== 'object' || typeof event.origin.server !== 'string')
    return `Plan '${event.planId}' does not say which server it came from.`;
  if ((event.parentId === undefined) !== (event.parentStep === undefined))
    return `Plan '${event.planId}': a nested plan needs both its parent plan and step.`;
  if (event.parentId !== undefined) {
    const parent = getPlan(state, event.parentId);
    if (!parent) return `Plan '${event.planId}': there is no parent plan '${event.parentId}'.`;
    const step = Number.isInteger(event.parentStep) ? parent.steps[event.parentStep!] : undefined;
    if (!step) return `Plan '${event.planId}': parent plan '${parent.id}' has no step ${String(event.parentStep)}.`;
    if (parent.phase !== 'executing' || step.state !== 'running')
      return `Plan '${event.planId}': step ${step.index + 1} of plan '${parent.id}' is not running, so it cannot have produced a plan.`;
    if (step.childPlanId !== undefined)
      return `Plan '${event.planId}': step ${step.index + 1} of plan '${parent.id}' already produced plan '${step.childPlanId}'.`;
    if (parent.depth + 1 > MAX_PLAN_DEPTH) return `nested plan depth ${parent.depth + 1} exceeds the limit of ${MAX_PLAN_DEPTH}`;
  }
  if (event.followUpOf !== undefined) {
    const from = getPlan(state, event.followUpOf);
    if (!from) return `Plan '${event.planId}': there is no plan '${event.followUpOf}' whose follow-up it could carry.`;
    if (!followUpCanGo(state, from))
      return `Plan '${event.planId}': plan '${from.id}' has no unanswered follow-up that another plan does not already carry.`;
    if (typeof event.plan.follow_up !== 'string' || event.plan.follow_up !== from.plan.follow_up)
      return `Plan '${event.planId}' must carry plan '${from.id}'s follow-up question as it is.`;
  }
  if (event.replacesId !== undefined) {
    const old = getPlan(state, event.replacesId);
    if (!old) return `Plan '${event.planId}': there is no plan '${event.replacesId}' to replace.`;
    if (old.replacedById !== undefined) return `Plan '${old.id}' was already replaced by plan '${old.replacedById}'.`;
    if (old.phase === 'executing') return `Plan '${old.id}' is running; cancel it before replacing it.`;
  }
  return undefined;
}

function notNext(plan: PlanRecord, step: StepRecord): string | undefined {
  return nextStep(plan)?.index === step.index
    ? undefined
    : `Step ${step.index + 1} (${stepLabel(step)}) is not next: every earlier step must be ok or skipped first.`;
}

function waitingOnChild(state: WorkflowState, step: StepRecord, stepName: string): string | undefined {
  const child = step.childPlanId === undefined ? undefined : getPlan(state, step.childPlanId);
  return child && isActiveChildPhase(child.phase) ? `${stepName} is waiting for its nested plan '${child.id}'.` : undefined;
}

const PHASE_WORDS: Record<PlanPhase, string> = {
  awaiting_approval: 'awaiting approval',
  executing: 'executing',
  follow_up: 'awaiting its follow-up answer',
  blocked: 'blocked',
  finished: 'finished',
};
function phaseWordsOf(phase: PlanPhase): string {
  return PHASE_WORDS[phase];
}
function phaseWords(plan: PlanRecord): string {
  return plan.phase === 'finished' && plan.outcome ? `finished (${plan.outcome})` : PHASE_WORDS[plan.phase];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------------------
// The reducer

/**
 * The next workflow state. Pure and total: an event that does not apply (see {@link canApply}) returns `state`
 * itself, unchanged; otherwise a new state (inputs are never mutated). Nested plans: when a child plan reaches its
 * follow-up or finishes, the parent step that produced it follows (ok when the child completed, cancelled with it,
 * failed otherwise), so the runner never has to report the parent step itself.
 */
export function reduce(state: WorkflowState, event: WorkflowEvent): WorkflowState {
  return canApply(state, event) === undefined ? reduceAccepted(state, event) : state;
}

/**
 * The state after `event`, which {@link canApply} has just accepted for `state` (the store checks each event once, not
 * twice). Calling it with an event that does not apply is a bug: use {@link reduce}.
 */
export function reduceAccepted(state: WorkflowState, event: WorkflowEvent): WorkflowState {
  if (event.type === 'restored') return restoreAll(state);
  if (isSubmissionEvent(event)) return { ...state, submissions: reduceSubmissions(state.submissions ?? {}, event) };
  if (event.type === 'planReceived') return receive(state, event);
  if (isCallRecord(event)) return state; // on the record (the ledger), not in any plan's state
  if (event.type === 'samplingDecided') return state; // likewise

  const at = event.at;
  const plan = getPlan(state, event.planId)!;
  let next: PlanRecord;
  switch (event.type) {
    case 'argsEdited':
      next = withStep(plan, event.step, (s) => ({
        ...s,
        call: { ...s.call, args: event.args },
        edited: !sameJson(event.args, s.proposed.args),
      }));
      break;
    case 'skipMarked':
      next = withStep(plan, event.step, (s) => ({ ...s, skipRequested: event.skip }));
      break;
    case 'resolved':
      next = {
        ...plan,
        resolvedAt: at,
        steps: plan.steps.map((s, i) => (s.state === 'pending' ? withResolution(s, event.steps[i]) : s)),
      };
      break;
    case 'stepDrifted':
      next = {
        ...withStep(plan, event.step, (s) => ({ ...withResolution(s, event.resolution), state: 'pending' })),
        phase: 'awaiting_approval',
        reapproval: { step: event.step, change: event.change },
        resolvedAt: at,
      };
      break;
    case 'approved':
      next = settle(
        {
          ...plan,
          reapproval: undefined,
          phase: 'executing',
          approvalHash: event.approvalHash,
          approvedAt: at,
          ...(event.note ? { approvalNote: event.note } : {}),
          ...(Array.isArray(event.byPolicy) ? { approvedByPolicy: event.byPolicy.map(String) } : {}),
          // The same list when nothing is skipped: what was approved is then the very list the hash was taken of.
          steps: plan.steps.some((s) => s.skipRequested)
            ? plan.steps.map((s) => (s.skipRequested ? { ...s, state: 'skipped' as const } : s))
            : plan.steps,
        },
        at,
      );
      break;
    case 'rejected':
      next = {
        ...plan,
        phase: 'finished',
        outcome: 'rejected',
        rejectReason: event.reason,
        finishedAt: at,
        steps: plan.steps.map((s) => ({ ...s, state: 'not_run' as const })),
      };
      break;
    case 'confirmRequested':
      next = withStep(plan, event.step, (s) => ({ ...s, state: 'awaiting_confirm' }));
      break;
    case 'confirmAnswered':
      next = event.granted
        ? withStep(plan, event.step, (s) => ({ ...s, state: 'pending', confirmedAt: at }))
        : finish(
            {
              ...plan,
              steps: plan.steps.map((s) =>
                s.index >= event.step && s.state !== 'ok' && s.state !== 'skipped' ? { ...s, state: 'not_run' as const } : s,
              ),
            },
            'stopped',
            at,
          );
      break;
    case 'stepStarted':
      next = withStep(plan, event.step, (s) => ({
        ...s,
        state: 'running',
        server: event.server,
        crossServer: event.crossServer === true,
        startedAt: at,
        attempts: s.attempts + 1,
        endedAt: undefined,
        error: undefined,
        summary: undefined,
        progress: undefined,
        childPlanId: undefined,
        task: undefined,
      }));
      break;
    case 'stepProgress':
      next = withStep(plan, event.step, (s) => ({ ...s, progress: event.progress }));
      break;
    case 'stepTask': {
      const task = {
        id: event.taskId,
        callId: event.callId,
        status: event.status,
        ...(event.message !== undefined ? { message: event.message } : {}),
      };
      next = withStep(plan, event.step, (s) => ({ ...s, task }));
      break;
    }
    case 'taskResumed':
      next = {
        ...withStep(plan, event.step, (s) => ({ ...s, state: 'running', error: undefined, endedAt: undefined })),
        phase: 'executing',
        blockedStep: undefined,
        blockedReason: undefined,
      };
      break;
    case 'stepSucceeded':
      next = settle(
        withStep(plan, event.step, (s) => ({
          ...s,
          state: 'ok',
          summary: event.summary,
          childPlanId: event.childPlanId ?? s.childPlanId,
          endedAt: at,
        })),
        at,
      );
      break;
    case 'stepFailed':
      next = failStep(plan, event.step, String(event.error), at);
      break;
    case 'stepSkipped':
      next = settle(
        {
          ...withStep(plan, event.step, (s) => ({ ...s, state: 'skipped', endedAt: s.endedAt ?? at })),
          phase: 'executing',
          blockedStep: undefined,
          blockedReason: undefined,
        },
        at,
      );
      break;
    case 'retryRequested':
      next = {
        ...withStep(plan, event.step, (s) => ({ ...s, state: 'pending' })),
        phase: 'executing',
        blockedStep: undefined,
        blockedReason: undefined,
      };
      break;
    case 'stopped':
      next = finish(plan, 'stopped', at);
      break;
    case 'cancelled':
      return propagate(cancelDown(state, plan.id, event.reason, at), plan.id, at);
    case 'followUpAnswered':
      // A partial plan's follow-up is answered after its checklist: the plan stays as it ended (not ok).
      next =
        plan.phase === 'finished'
          ? { ...plan, followUpAnswer: event.answer }
          : { ...plan, phase: 'finished', outcome: 'completed', followUpAnswer: event.answer, finishedAt: at };
      break;
    case 'reverted':
      next = { ...plan, reverts: [...(plan.reverts ?? []), { at, files: [...event.files] }] };
      break;
    default:
      return assertNever(event, 'workflow event');
  }
  return propagate(put(state, next), plan.id, at);
}

function receive(state: WorkflowState, event: Extract<WorkflowEvent, { type: 'planReceived' }>): WorkflowState {
  const at = event.at;
  const ok = event.plan.status === 'ok';
  const steps: StepRecord[] = event.plan.next_actions.map((action, index) => {
    const call = normaliseCall(action);
    return newStep(index, call, ok ? 'pending' : 'not_run');
  });
  const parent = event.parentId === undefined ? undefined : getPlan(state, event.parentId);
  const record: PlanRecord = {
    id: event.planId,
    origin: event.origin,
    plan: event.plan,
    receivedAt: at,
    phase: ok ? 'awaiting_approval' : 'finished',
    outcome: ok ? undefined : 'not_ok',
    finishedAt: ok ? undefined : at,
    steps,
    depth: parent ? parent.depth + 1 : 0,
    parentId: parent ? parent.id : undefined,
    parentStep: parent ? event.parentStep : undefined,
    replacesId: event.replacesId,
  };
  let next: WorkflowState = { ...state, plans: { ...state.plans, [record.id]: record }, order: [...state.order, record.id] };
  if (parent)
    next = put(
      next,
      withStep(parent, event.parentStep!, (s) => ({ ...s, childPlanId: record.id })),
    );
  if (event.replacesId !== undefined) {
    const old = getPlan(next, event.replacesId)!;
    const replaced: PlanRecord =
      old.phase === 'finished' && old.outcome !== 'not_ok'
        ? { ...old, replacedById: record.id }
        : { ...finish(old, 'replaced', at), replacedById: record.id, finishedAt: old.finishedAt ?? at };
    next = propagate(put(next, replaced), old.id, at);
  }
  if (event.followUpOf !== undefined) next = put(next, { ...getPlan(next, event.followUpOf)!, followUpWith: record.id });
  // A child that is not ok is finished at once: its parent step fails here.
  return propagate(next, record.id, at);
}

/**
 * A step as received, with every key of {@link StepRecord} present from the start and in one order (those not set yet
 * undefined). Each event makes a new record by spreading the old one (`{...s, state: 'running', …}`); records that
 * all have one shape are copied on V8's fast path, while records that gained their keys in different orders along the
 * way took its slow one: 2.4-2.9 ms against 1.0-1.1 ms per 200-step run of the reducer's copies (Node 20).
 */
function newStep(index: number, call: ActionCall, state: StepState): StepRecord {
  return {
    index,
    proposed: call,
    call,
    edited: false,
    state,
    skipRequested: false,
    server: undefined,
    crossServer: undefined,
    toolHash: undefined,
    unresolved: undefined,
    policy: undefined,
    progress: undefined,
    task: undefined,
    summary: undefined,
    error: undefined,
    childPlanId: undefined,
    startedAt: undefined,
    endedAt: undefined,
    confirmedAt: undefined,
    attempts: 0,
  };
}

/** `args` is always an object on a step, whatever a stored event held. */
function normaliseCall(action: ActionCall): ActionCall {
  const args = isPlainObject(action?.args) ? action.args : {};
  return { ...action, tool: String(action?.tool ?? ''), args };
}

/** The step with the server, definition hash or missing reason that resolution found. */
function withResolution(step: StepRecord, r: StepResolutionRecord | undefined): StepRecord {
  if (!r) return step;
  if ('missing' in r)
    return { ...step, server: undefined, crossServer: undefined, toolHash: undefined, unresolved: String(r.missing), policy: undefined };
  return { ...step, server: r.server, crossServer: r.crossServer === true, toolHash: r.toolHash, unresolved: undefined, policy: r.policy };
}

function put(state: WorkflowState, plan: PlanRecord): WorkflowState {
  return { ...state, plans: { ...state.plans, [plan.id]: plan } };
}

function withStep(plan: PlanRecord, index: number, update: (step: StepRecord) => StepRecord): PlanRecord {
  // steps[i].index === i always (the plan's steps are built in order and never reordered): copy, replace one.
  const steps = plan.steps.slice();
  steps[index] = update(steps[index]!);
  return { ...plan, steps };
}

/**
 * Whether a plan that came back `partial` waits for the answer to its follow-up: MCPFlow's partial plans carry one
 * ("Continue by wiring API for the completed components?"), asked after the checklist of what ran, with Yes / No as
 * for an ok plan. (An error or blocked plan's follow-up is asked after its recovery ran: the recovery plan carries it.)
 * Not while a recovery action's plan holds the question ({@link followUpHolder}): one question, asked in one place.
 */
export function notOkFollowUpOpen(plan: PlanRecord, state: WorkflowState): boolean {
  return plan.plan.status === 'partial' && followUpCanGo(state, plan);
}

/**
 * Whether a not-ok plan's follow-up is unanswered and free: no other plan (a recovery it went with) holds it. A
 * recovery holds it until it ends; one that ended without asking it (rejected, cancelled, stopped) gives it back.
 */
export function followUpCanGo(state: WorkflowState, plan: PlanRecord): boolean {
  return (
    plan.phase === 'finished' &&
    plan.outcome === 'not_ok' &&
    typeof plan.plan.follow_up === 'string' &&
    plan.plan.follow_up.trim() !== '' &&
    plan.followUpAnswer === undefined &&
    plan.replacedById === undefined &&
    followUpHolder(state, plan) === undefined
  );
}

/** The plan holding `plan`'s follow-up question now: the recovery it went with, until that one ended without it. */
export function followUpHolder(state: WorkflowState, plan: PlanRecord): PlanRecord | undefined {
  const holder = plan.followUpWith === undefined ? undefined : getPlan(state, plan.followUpWith);
  if (!holder) return undefined;
  // Answered there: held for good (the question was asked and answered). Ended without an answer: given back.
  return holder.phase === 'finished' && holder.followUpAnswer === undefined ? undefined : holder;
}

/** Executing with every step ok or skipped → follow-up (when the plan has one) or completed. */
function settle(plan: PlanRecord, at: number): PlanRecord {
  if (plan.phase !== 'executing' || !allDone(plan.steps)) return plan;
  const followUp = typeof plan.plan.follow_up === 'string' && plan.plan.follow_up.trim() !== '';
  return followUp ? { ...plan, phase: 'follow_up' } : { ...plan, phase: 'finished', outcome: 'completed', finishedAt: at };
}

/** Every step ok or skipped. From the end: while a plan runs, its last steps are the ones not done yet. */
function allDone(steps: readonly StepRecord[]): boolean {
  for (let i = steps.length - 1; i >= 0; i--) {
    const state = steps[i]!.state;
    if (state !== 'ok' && state !== 'skipped') return false;
  }
  return true;
}

/** Finished with `outcome`; steps that never started become not_run. */
function finish(plan: PlanRecord, outcome: PlanOutcome, at: number): PlanRecord {
  return {
    ...plan,
    phase: 'finished',
    outcome,
    finishedAt: at,
    steps: plan.steps.map((s) => (s.state === 'pending' || s.state === 'awaiting_confirm' ? { ...s, state: 'not_run' as const } : s)),
  };
}

function failStep(plan: PlanRecord, index: number, error: string, at: number): PlanRecord {
  const failed = withStep(plan, index, (s) => ({ ...s, state: 'failed', error, endedAt: at, progress: undefined }));
  const step = failed.steps[index];
  return { ...failed, phase: 'blocked', blockedStep: index, blockedReason: `Step ${index + 1} (${stepLabel(step)}) failed: ${error}` };
}

/**
 * Cancels plan `planId` (executing, blocked or awaiting approval): the running step fails with "Cancelled", steps
 * that never started become not_run, and the nested plan its running step is waiting for is cancelled too.
 */
function cancelDown(state: WorkflowState, planId: string, reason: string | undefined, at: number): WorkflowState {
  const plan = getPlan(state, planId);
  if (!plan || plan.phase === 'finished') return state;
  const child = activeChild(state, plan);
  const error = !reason ? 'Cancelled' : /^cancel/i.test(reason) ? reason : `Cancelled: ${reason}`;
  const cancelled = finish(
    {
      ...plan,
      steps: plan.steps.map((s) =>
        s.state === 'running' ? { ...s, state: 'failed' as const, error, endedAt: at, progress: undefined } : s,
      ),
    },
    'cancelled',
    at,
  );
  const next = put(state, cancelled);
  return child ? cancelDown(next, child.id, reason === undefined ? 'its parent plan was cancelled' : reason, at) : next;
}

/**
 * When plan `childId` has reached its follow-up or finished, the parent step that is still running for it follows:
 * completed → ok; cancelled → the parent is cancelled too; otherwise the step fails and the parent is blocked.
 */
function propagate(state: WorkflowState, childId: string, at: number): WorkflowState {
  const child = getPlan(state, childId);
  if (!child || child.parentId === undefined || child.parentStep === undefined) return state;
  if (child.phase !== 'follow_up' && child.phase !== 'finished') return state;
  const parent = getPlan(state, child.parentId);
  const step = parent?.steps[child.parentStep];
  if (!parent || !step || parent.phase !== 'executing' || step.state !== 'running' || step.childPlanId !== child.id) return state;

  if (child.phase === 'follow_up' || child.outcome === 'completed') {
    const n = child.steps.length;
    const done = settle(
      withStep(parent, step.index, (s) => ({
        ...s,
        state: 'ok',
        summary: `nested plan completed (${n} step${n === 1 ? '' : 's'})`,
        endedAt: at,
      })),
      at,
    );
    return propagate(put(state, done), parent.id, at);
  }
  if (child.outcome === 'cancelled') return propagate(cancelDown(state, parent.id, 'its nested plan was cancelled', at), parent.id, at);
  return put(state, failStep(parent, step.index, childFailure(child), at));
}

function childFailure(child: PlanRecord): string {
  switch (child.outcome) {
    case 'rejected':
      return `nested plan was rejected${child.rejectReason ? `: ${child.rejectReason}` : ''}`;
    case 'stopped':
      return child.blockedReason ? `nested plan was stopped (${child.blockedReason})` : 'nested plan was stopped';
    case 'not_ok': {
      const first = child.plan.errors?.[0]?.message;
      const detail = typeof first === 'string' && first ? first : child.plan.instruction;
      return `the step returned a plan with status '${child.plan.status}'${detail ? `: ${detail}` : ''}`;
    }
    case 'replaced':
      return `nested plan was replaced by plan '${child.replacedById}'`;
    default:
      return `nested plan ended (${child.outcome ?? child.phase})`;
  }
}

/**
 * After a reload or restart nothing is running any more. A running step's outcome is unknown (its plan is blocked on
 * it: the user retries = re-runs explicitly, skips or stops); a step awaiting confirmation is pending again; an
 * executing plan between steps is blocked on its next step ("resume from step k"). A step waiting for an active
 * nested plan keeps waiting (its call returned: the child plan is its outcome). Returns `state` when nothing changes.
 */
function restoreAll(state: WorkflowState): WorkflowState {
  let next = state;
  for (const id of state.order) {
    const plan = getPlan(next, id);
    if (!plan || (plan.phase !== 'executing' && plan.phase !== 'blocked')) continue;
    const waiting = activeChild(next, plan) !== undefined;
    let changed = false;
    let blockedOn: { index: number; reason: string } | undefined;
    const steps = plan.steps.map((s): StepRecord => {
      if (s.state === 'awaiting_confirm') {
        changed = true;
        return { ...s, state: 'pending' };
      }
      if (s.state !== 'running' || waiting) return s;
      changed = true;
      blockedOn ??= {
        index: s.index,
        reason:
          s.task && !isTerminalTask(s.task.status)
            ? `Step ${s.index + 1} (${stepLabel(s)}) was running as task ${s.task.id} when Plangate stopped. Plangate watches the task again once its server is connected and still knows it; until then its outcome is unknown (Retry runs it again; Skip or Stop leave it as it is).`
            : `Step ${s.index + 1} (${stepLabel(s)}) was running when Plangate stopped; its outcome is unknown. Retry runs it again; Skip or Stop leave it as it is.`,
      };
      return { ...s, state: 'unknown', error: INTERRUPTED_STEP_ERROR, progress: undefined };
    });
    let restored: PlanRecord = changed ? { ...plan, steps } : plan;
    if (!blockedOn && restored.phase === 'executing' && !waiting) {
      const pending = nextStep(restored);
      if (pending)
        blockedOn = {
          index: pending.index,
          reason: `Plangate stopped before step ${pending.index + 1} (${stepLabel(pending)}) ran. Retry resumes from step ${pending.index + 1}; Stop ends the plan.`,
        };
    }
    if (blockedOn) restored = { ...restored, phase: 'blocked', blockedStep: blockedOn.index, blockedReason: blockedOn.reason };
    if (restored !== plan) next = put(next, restored);
  }
  return next;
}
