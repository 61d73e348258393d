/**
 * Runs an approved plan: resolves every step's server first (nothing runs if a tool is offered nowhere), then runs
 * the steps in order through a {@link ToolInvoker}, reporting every change as a workflow event. It never touches UI:
 * what needs the user (confirm gates, `ask_user` steps, nested plan approval, failure decisions) goes through
 * {@link RunnerHost}.
 *
 * A step runs only from `pending`, and only after its `stepStarted` event was accepted (and so written to the
 * ledger); a step whose outcome is unknown after a restart runs again only after an explicit `retryRequested`.
 */
import { approvalHash, canonicalJson } from '../plan/approval';
import { Door, GateRefusal } from './door';
import type { ToolInvoker } from './invoker';
import { CancellationTokenSource, type CancellationToken } from '../base/lifecycle';
import type { Workflow } from '../workflow/ledger';
import { ASK_USER_TOOL, type OrchestratedPlan } from '../plan/plan';
import { LOCAL_SERVER, resolutionRecords, resolveSteps } from './resolve';
import { resultText, type ToolResult } from '../base/toolResult';
import {
  activeChild,
  currentStep,
  getPlan,
  MAX_PLAN_DEPTH,
  planApprovalHash,
  type PlanRecord,
  type StepRecord,
  type StepTask,
  type WorkflowEvent,
} from '../workflow/workflow';

/** Per-step timeout when none is given (the MCP SDK's default request timeout). */
export const DEFAULT_STEP_TIMEOUT_MS = 60_000;

/** What the runner needs to know about a result: whether it is itself a plan (see classify.ts). */
export type ResultClassification = { kind: 'plan'; plan: OrchestratedPlan } | { kind: string };

/** What the runner asks of the user. Every method may be slow (it waits for a person); all get the run's token. */
export interface RunnerHost {
  /** A `confirm: true` step is reached: true runs it, false stops the plan (that step and later ones not run). */
  confirmStep(plan: PlanRecord, step: StepRecord, token: CancellationToken): Promise<boolean>;
  /**
   * An `ask_user` step (`args: {prompt, fields}`): the user's answers, or undefined when declined (the plan stops).
   * Answered in Plangate, never sent to a server.
   */
  askUser(plan: PlanRecord, step: StepRecord, token: CancellationToken): Promise<Record<string, unknown> | undefined>;
  /**
   * A step's result is a plan, shown as a nested plan awaiting approval. Resolve true to run it (the runner then
   * dispatches `approved` for the child as it stands, unless the host already did), false to reject it (the parent
   * step fails). The host must not run the child itself.
   */
  approveNested(child: PlanRecord, token: CancellationToken): Promise<boolean>;
  /**
   * A step failed. Without this method the runner returns with the plan blocked; the caller later dispatches
   * `retryRequested` / `stepSkipped` / `stopped` and calls {@link runPlan} again.
   */
  onFailure?(plan: PlanRecord, step: StepRecord): Promise<'retry' | 'skip' | 'stop'>;
  /**
   * A nested plan was approved and is about to run its first step: e.g. checkpoint the files it may touch, as for a
   * top-level plan. If it rejects, nothing of the nested plan runs: its first pending step fails with the message.
   */
  beforeNested?(child: PlanRecord): Promise<void>;
}

export interface RunnerDeps {
  invoker: ToolInvoker;
  /**
   * The door every step's call goes through (the extension's and the CLI's one door). Without it the runner makes a
   * door over `invoker` and the workflow, so even a bare run checks and records each call.
   */
  door?: Door;
  host: RunnerHost;
  /** Recognises a result that is itself a plan (`classifyResult` in classify.ts, or a test stand-in). */
  classify: (result: ToolResult) => ResultClassification;
  /** Per-step timeout; progress notifications restart it. Default {@link DEFAULT_STEP_TIMEOUT_MS}. */
  stepTimeoutMs?: number;
  /** A tool found only on another server may run there. Default true. */
  allowCrossServer?: boolean;
  /** Cancels the run: the running call is aborted (the server gets `notifications/cancelled`), the plan is cancelled. */
  token?: CancellationToken;
  /** Clock for event times. Default `Date.now`. */
  now?: () => number;
  /** Ids for nested plans. Default `crypto.randomUUID()`. */
  newId?: () => string;
  /** At most one `stepProgress` event per step in this many ms (the last one at 100 % always goes). Default 200. */
  progressIntervalMs?: number;
  /**
   * Told of a step's result just before the step succeeds with it (not for a failed step, nor one whose result is a
   * plan): the result itself, which the workflow keeps only as a summary (a server app shows it, appHost.ts).
   */
  onStepResult?: (result: StepResult) => void;
}

/** A step's successful result, as {@link RunnerDeps.onStepResult} hears it. */
export interface StepResult {
  planId: string;
  step: number;
  server: string;
  tool: string;
  args: Record<string, unknown>;
  result: ToolResult;
}

/** The message of a step that timed out, e.g. "Timed out after 30 s". */
export function timeoutMessage(ms: number): string {
  return `Timed out after ${Number((ms / 1000).toFixed(2))} s`;
}

/**
 * Runs plan `planId` from its first pending step, until it finishes, reaches its follow-up, blocks (without
 * `host.onFailure`) or waits for a nested plan that is not being run. Call it after `approved`, and again after
 * `retryRequested` / `stepSkipped` to continue. Does nothing for a plan in another phase. When a nested plan run on
 * its own completes, its parent plan is continued.
 *
 * One run of a plan (tree) at a time is the caller's to keep: the {@link Gate} tracks the runs going on. Should a caller
 * start a second run of a plan anyway, no step is sent twice: a step starts only from `pending`, and the second run
 * returns at the first `stepStarted` (or `confirmRequested`) the workflow refuses.
 *
 * Missing tools: if a pending step's tool resolves on no server, nothing runs; the first such step fails with the
 * reason (e.g. "tool 'x' is not offered by any connected server …") and the plan is blocked on it (retry after
 * connecting the server, skip the step, or stop).
 *
 * Resolves with the plan's record when the run returns. Rejects only if the ledger cannot be written.
 */
export async function runPlan(workflow: Workflow, planId: string, deps: RunnerDeps, resume?: ResumeTask): Promise<PlanRecord> {
  await runLoop(workflow, planId, deps, resume);
  // A nested plan run on its own (e.g. resumed after a reload): carry on with the plans waiting for it.
  let child = getPlan(workflow.state, planId);
  while (child?.parentId !== undefined && child.parentStep !== undefined) {
    const parent = getPlan(workflow.state, child.parentId);
    if (!parent || parent.steps[child.parentStep]?.childPlanId !== child.id) break;
    const waiting = parent.phase === 'executing' && !activeChild(workflow.state, parent);
    const blockedOnIt = parent.phase === 'blocked' && parent.blockedStep === child.parentStep;
    if (!waiting && !blockedOnIt) break;
    await runLoop(workflow, parent.id, deps);
    child = getPlan(workflow.state, parent.id);
  }
  const record = getPlan(workflow.state, planId);
  if (!record) throw new Error(`There is no plan '${planId}' to run.`);
  return record;
}

/**
 * A run that starts by watching the task of step `step` again (after `taskResumed`: the step is running, its task the
 * server still knows), instead of taking the step as held elsewhere.
 */
export interface ResumeTask {
  step: number;
}

async function runLoop(workflow: Workflow, planId: string, deps: RunnerDeps, resume?: ResumeTask): Promise<void> {
  try {
    await new PlanRun(workflow, planId, deps, resume?.step).run();
  } catch (err) {
    settleAfterError(workflow, planId, err, deps.now ?? Date.now);
  }
}

class PlanRun {
  private readonly token: CancellationToken;
  private readonly now: () => number;
  private missingChecked = false;
  private approvalChecked = false;
  private readonly door: Door;

  constructor(
    private readonly workflow: Workflow,
    private readonly planId: string,
    private readonly deps: RunnerDeps,
    /** The running step whose task this run watches first (see {@link ResumeTask}). */
    private resumeStep?: number,
  ) {
    this.token = deps.token ?? new CancellationTokenSource().token;
    this.now = deps.now ?? Date.now;
    this.door =
      deps.door ??
      new Door(deps.invoker, workflow, {
        allowCrossServer: () => deps.allowCrossServer ?? true,
        newId: defaultId, // call ids: not the plan id source (`deps.newId`), whose sequence tests and callers rely on
        now: this.now,
      });
  }

  private get plan(): PlanRecord | undefined {
    return getPlan(this.workflow.state, this.planId);
  }

  /**
   * Dispatches `event`, a literal made for this call, stamped with the time and the plan in place: spreading events of a
   * dozen shapes into a new object (`{...event, at, planId}`) took V8's slow path and was the runner's largest
   * self time in the engine bench's profile. The workflow records a copy, never the object itself.
   */
  private dispatch(event: DistributiveOmit<WorkflowEvent, 'at' | 'planId'>): boolean {
    const stamped = event as { at?: number; planId?: string };
    stamped.at = this.now();
    stamped.planId = this.planId;
    return this.workflow.dispatch(stamped as WorkflowEvent);
  }

  async run(): Promise<void> {
    for (;;) {
      const plan = this.plan;
      if (!plan) return;
      if (plan.phase === 'blocked') {
        if (!(await this.decide(plan))) return;
        continue;
      }
      if (plan.phase !== 'executing') return;
      if (this.token.isCancellationRequested) {
        this.dispatch({ type: 'cancelled' });
        continue;
      }
      const step = currentStep(plan);
      const resumed = step?.state === 'running' && step.index === this.resumeStep ? step.task : undefined;
      this.resumeStep = undefined;
      // A step that is not pending is held elsewhere: another run, the user (a confirmation), or a nested plan its
      // result produced that nobody runs now. Or nothing is left. Except the step whose task this run resumes.
      if (!step || (step.state !== 'pending' && !resumed)) return;
      // What runs must be what was approved. The hash covers every step, so check it once per run, not per
      // step (a per-step check made long plans quadratic); the reducer refuses edits after approval anyway.
      if (!this.approvalChecked && plan.approvalHash !== planApprovalHash(plan)) {
        this.dispatch({
          type: 'stepFailed',
          step: step.index,
          error:
            "The plan's steps no longer match what was approved, so nothing more runs. Stop the plan and ask the server for a new one.",
        });
        continue;
      }
      this.approvalChecked = true;
      if (resumed) {
        // Sent before Plangate stopped, with its approval: only watched now (no tools/call, no confirmation again).
        await this.call(step.index, step.server ?? plan.origin.server, resumed);
        continue;
      }
      if (!this.missingChecked && !(await this.checkMissing())) continue;
      this.missingChecked = true;
      const local = step.call.tool === ASK_USER_TOOL;

      if (step.call.confirm === true && step.confirmedAt === undefined) {
        if (!this.dispatch({ type: 'confirmRequested', step: step.index })) return;
        const granted = await settle(() => this.deps.host.confirmStep(this.plan!, this.plan!.steps[step.index], this.token), false);
        if (this.token.isCancellationRequested) continue;
        if (this.plan?.steps[step.index]?.state === 'awaiting_confirm')
          this.dispatch({ type: 'confirmAnswered', step: step.index, granted: granted === true });
        continue;
      }

      if (local) {
        if (!this.dispatch({ type: 'stepStarted', step: step.index, server: LOCAL_SERVER, crossServer: false })) return;
        await this.askUser(step.index);
        continue;
      }
      // The door checks the step as it sends it: still on its approved server, with its tool's definition as approved.
      // If not, the step is not sent and the plan waits for a new approval (the ledger shows the start and the refusal).
      const current = this.plan!.steps[step.index];
      const server = current.server ?? this.plan!.origin.server;
      if (!this.dispatch({ type: 'stepStarted', step: step.index, server, crossServer: current.crossServer === true })) return;
      await this.call(step.index, server);
      if (this.plan?.phase === 'awaiting_approval') return; // drifted: a new approval starts a new run
    }
  }

  /** Blocked: asks `host.onFailure` and applies the decision; false when there is no host decision to apply. */
  private async decide(plan: PlanRecord): Promise<boolean> {
    const onFailure = this.deps.host.onFailure;
    if (!onFailure || plan.blockedStep === undefined) return false;
    const step = plan.steps[plan.blockedStep];
    const decision = await settle(() => onFailure.call(this.deps.host, plan, step), 'stop');
    const now = this.plan;
    if (now !== plan && now?.phase !== 'blocked') return true; // someone else decided meanwhile
    this.missingChecked = false; // check again: servers may have changed
    const index = plan.blockedStep;
    const accepted =
      decision === 'retry'
        ? this.dispatch({ type: 'retryRequested', step: index })
        : decision === 'skip'
          ? this.dispatch({ type: 'stepSkipped', step: index })
          : this.dispatch({ type: 'stopped' });
    return accepted;
  }

  /** The door call of step `index` as approved. */
  private doorCall(plan: PlanRecord, index: number) {
    const step = plan.steps[index];
    return {
      server: step.server ?? plan.origin.server,
      tool: step.call.tool,
      args: step.call.args,
      entrance: 'step' as const,
      decision: { by: 'approval' as const, planId: plan.id, step: index, approvalHash: plan.approvalHash ?? '' },
    };
  }

  /** The door refused step `index`: a drift waits for a new approval; anything else fails the step. */
  private refused(index: number, refusal: GateRefusal): void {
    if (refusal.kind === 'drift' && refusal.resolution) {
      this.dispatch({ type: 'stepDrifted', step: index, resolution: refusal.resolution, change: refusal.change ?? refusal.message });
    } else {
      this.dispatch({ type: 'stepFailed', step: index, error: `Not sent: ${refusal.message}` });
    }
  }

  /** Checks every pending step's tool is offered somewhere; on a missing tool fails the first such step (nothing runs). */
  private async checkMissing(): Promise<boolean> {
    const plan = this.plan!;
    const pending = plan.steps.filter((s) => s.state === 'pending');
    let catalog;
    try {
      catalog = await this.door.catalog();
    } catch (err) {
      this.dispatch({
        type: 'stepFailed',
        step: pending[0].index,
        error: `Could not list the tools of the connected servers (${errorMessage(err)}); nothing ran.`,
      });
      return false;
    }
    const result = resolveSteps(
      pending.map((s) => s.call),
      plan.origin.server,
      catalog,
      { allowCrossServer: this.deps.allowCrossServer ?? true },
    );
    if (!result.ok) {
      const [first, ...others] = result.missing;
      const also = others.length ? ` Also missing: ${others.map((m) => `step ${pending[m.index].index + 1} '${m.tool}'`).join(', ')}.` : '';
      this.dispatch({ type: 'stepFailed', step: pending[first.index].index, error: `${first.reason} Nothing ran.${also}` });
      return false;
    }
    return true;
  }

  private async askUser(index: number): Promise<void> {
    const answers = await settle(() => this.deps.host.askUser(this.plan!, this.plan!.steps[index], this.token), undefined);
    if (this.token.isCancellationRequested) {
      this.dispatch({ type: 'cancelled' });
      return;
    }
    if (answers === undefined || answers === null || typeof answers !== 'object') {
      this.dispatch({ type: 'stepFailed', step: index, error: 'Declined: the question was not answered, so the plan stopped.' });
      this.dispatch({ type: 'stopped' });
      return;
    }
    this.dispatch({ type: 'stepSucceeded', step: index, summary: clip(`Answered: ${canonicalJson(answers)}`, 200) });
  }

  private async call(index: number, server: string, resume?: StepTask): Promise<void> {
    const step = this.plan!.steps[index];
    const timeoutMs = Math.max(1, this.deps.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS);
    const controller = new AbortController();
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The step's timeout stands still while the server waits for the user (an elicitation form is open).
    let waitingForUser = false;
    const arm = () => {
      clearTimeout(timer);
      if (!waitingForUser)
        timer = setTimeout(() => {
          timedOut = true;
          abort(timeoutMessage(timeoutMs));
        }, timeoutMs);
    };
    const onWaitingForUser = (waiting: boolean) => {
      if (settled) return;
      waitingForUser = waiting;
      arm();
    };
    // The race below ends when the call is aborted here (timeout, cancel), without waiting for the door's promise to
    // reject: resolved directly rather than through an 'abort' listener on the signal, which costs more than the rest.
    let stopWaiting: (outcome: { error: unknown }) => void = () => undefined;
    const aborted = new Promise<{ error: unknown }>((resolve) => {
      stopWaiting = resolve;
    });
    const abort = (reason: string) => {
      if (controller.signal.aborted) return;
      controller.abort(reason);
      stopWaiting({ error: reason });
    };
    const cancelListener = this.token.onCancellationRequested(() => abort('Cancelled by the user'));
    if (this.token.isCancellationRequested) abort('Cancelled by the user');
    const interval = this.deps.progressIntervalMs ?? 200;
    let lastProgress = -Infinity;
    let settled = false;
    const onProgress = (progress: { progress: number; total?: number; message?: string }) => {
      if (settled || controller.signal.aborted) return;
      arm();
      const t = Date.now();
      const final = progress.total !== undefined && progress.progress >= progress.total;
      if (t - lastProgress < interval && !final) return;
      lastProgress = t;
      const clean: { progress: number; total?: number; message?: string } = { progress: Number(progress.progress) };
      if (typeof progress.total === 'number') clean.total = progress.total;
      if (typeof progress.message === 'string') clean.message = clip(progress.message, 500);
      try {
        this.dispatch({ type: 'stepProgress', step: index, progress: clean });
      } catch {
        /* progress is not worth failing the step */
      }
    };

    let outcome: { result: ToolResult } | { error: unknown };
    arm();
    try {
      // A task's every status poll is a sign of life: it restarts the step's timeout, as progress does.
      const options = {
        signal: controller.signal,
        timeoutMs: timeoutMs + 1000,
        onProgress,
        onWaitingForUser,
        task: { onTask: () => (settled || controller.signal.aborted ? undefined : arm()) },
      };
      const doorCall = { ...this.doorCall(this.plan!, index), server };
      const call = resume ? this.door.resume(doorCall, resume, options) : this.door.call(doorCall, options);
      outcome = await Promise.race([
        call.then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ),
        aborted,
      ]);
    } catch (error) {
      outcome = { error }; // the invoker threw synchronously
    } finally {
      settled = true;
      clearTimeout(timer);
      cancelListener.dispose();
    }

    if ('error' in outcome) {
      if (outcome.error instanceof GateRefusal) this.refused(index, outcome.error);
      else if (timedOut) this.dispatch({ type: 'stepFailed', step: index, error: timeoutMessage(timeoutMs) });
      else if (this.token.isCancellationRequested) this.dispatch({ type: 'cancelled' });
      else this.dispatch({ type: 'stepFailed', step: index, error: callErrorMessage(outcome.error, server, timeoutMs) });
      return;
    }
    const result = outcome.result && typeof outcome.result === 'object' ? outcome.result : {};
    if (result.isError === true) {
      this.dispatch({
        type: 'stepFailed',
        step: index,
        error: resultText(result, 2000) || `Tool '${step.call.tool}' on server '${server}' reported an error without a message.`,
      });
      return;
    }
    let classified: ResultClassification;
    try {
      classified = this.deps.classify(result);
    } catch {
      classified = { kind: 'unclassified' };
    }
    if (classified.kind === 'plan' && 'plan' in classified && classified.plan) {
      await this.nested(index, server, classified.plan);
      return;
    }
    if (this.deps.onStepResult) {
      try {
        this.deps.onStepResult({ planId: this.plan!.id, step: index, server, tool: step.call.tool, args: step.call.args, result });
      } catch {
        /* a listener's failure is not the step's */
      }
    }
    this.dispatch({ type: 'stepSucceeded', step: index, summary: summarize(result) });
  }

  /** The step's result is a plan: open it as a nested plan, get it approved, run it; the reducer settles the step. */
  private async nested(index: number, server: string, plan: OrchestratedPlan): Promise<void> {
    const parent = this.plan!;
    const step = parent.steps[index];
    const depth = parent.depth + 1;
    if (depth > MAX_PLAN_DEPTH) {
      this.dispatch({ type: 'stepFailed', step: index, error: `nested plan depth ${depth} exceeds the limit of ${MAX_PLAN_DEPTH}` });
      return;
    }
    const childId = (this.deps.newId ?? defaultId)();
    const received: WorkflowEvent = {
      type: 'planReceived',
      at: this.now(),
      planId: childId,
      plan,
      parentId: parent.id,
      parentStep: index,
      origin: { server, tool: step.call.tool, args: step.call.args, entrance: 'step' },
    };
    const refusal = this.workflow.canApply(received);
    if (refusal !== undefined || !this.workflow.dispatch(received)) {
      this.dispatch({
        type: 'stepFailed',
        step: index,
        error: `The step returned a plan that could not be opened: ${refusal ?? 'refused'}`,
      });
      return;
    }
    let child = getPlan(this.workflow.state, childId)!;
    if (child.phase !== 'awaiting_approval') return; // a plan that is not ok: its parent step already failed
    // Like any plan, a nested one is shown with the server of each step, so its approval covers them.
    try {
      const catalog = await this.door.catalog();
      this.workflow.dispatch({
        type: 'resolved',
        at: this.now(),
        planId: childId,
        steps: resolutionRecords(
          child.steps.map((s) => s.call),
          server,
          catalog,
          { allowCrossServer: this.deps.allowCrossServer ?? true },
        ),
      });
    } catch {
      /* unresolved: the door will not send its steps until it is resolved and approved */
    }
    child = getPlan(this.workflow.state, childId)!;
    const approved = await settle(() => this.deps.host.approveNested(child, this.token), false);
    if (this.token.isCancellationRequested) {
      this.dispatch({ type: 'cancelled' }); // cascades to the child
      return;
    }
    const now = getPlan(this.workflow.state, childId)!;
    if (now.phase === 'awaiting_approval') {
      const event: WorkflowEvent =
        approved === true
          ? { type: 'approved', at: this.now(), planId: childId, approvalHash: approvalHash(now) }
          : { type: 'rejected', at: this.now(), planId: childId };
      this.workflow.dispatch(event);
    }
    let after = getPlan(this.workflow.state, childId)!;
    if (after.phase === 'executing' && this.deps.host.beforeNested) {
      try {
        await this.deps.host.beforeNested(after);
      } catch (err) {
        const first = after.steps.find((s) => s.state === 'pending');
        if (first)
          this.workflow.dispatch({
            type: 'stepFailed',
            at: this.now(),
            planId: childId,
            step: first.index,
            error: `Nothing ran: ${errorMessage(err)}`,
          });
      }
      after = getPlan(this.workflow.state, childId)!;
    }
    if (after.phase === 'executing' || after.phase === 'blocked') await runLoop(this.workflow, childId, this.deps);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Awaits `fn()`, turning a throw or rejection into `fallback` (host code must not break the run). */
async function settle<T>(fn: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await fn();
  } catch {
    return fallback;
  }
}

function defaultId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return c?.randomUUID ? c.randomUUID() : `plan-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : String(err);
}

/** A failed call in words: "Server 'x' closed the connection", "Timed out after 30 s", else the error's message. */
export function callErrorMessage(err: unknown, server: string, timeoutMs: number): string {
  const message = errorMessage(err).trim();
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === -32000 || /connection closed|closed the connection|not connected|ECONNRESET|EPIPE|socket hang up/i.test(message)) {
    return `Server '${server}' closed the connection`;
  }
  if (code === -32001 && /timed out/i.test(message)) return timeoutMessage(timeoutMs);
  return clip(message || 'The call failed without a message.', 2000);
}

function summarize(result: ToolResult): string {
  const text = resultText(result, 200);
  if (text) return text;
  if (result.structuredContent !== undefined) return clip(canonicalJson(result.structuredContent), 200);
  const n = Array.isArray(result.content) ? result.content.length : 0;
  return n ? `ok (${n} non-text content block${n === 1 ? '' : 's'})` : 'ok (empty result)';
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Something broke in the run path itself (not a tool: a tool's failure is the step's outcome). The plan must not stay
 * "running": the running step (or the next pending one) fails with the reason. If even that cannot be recorded, the
 * workflow settles it in memory and the error goes on to the caller, who shows it.
 */
function settleAfterError(workflow: Workflow, planId: string, err: unknown, now: () => number): void {
  const plan = getPlan(workflow.state, planId);
  if (!plan || plan.phase !== 'executing') {
    if (plan) return;
    throw err;
  }
  const step =
    plan.steps.find((s) => s.state === 'running' || s.state === 'awaiting_confirm') ?? plan.steps.find((s) => s.state === 'pending');
  if (!step) throw err;
  const event: WorkflowEvent = {
    type: 'stepFailed',
    at: now(),
    planId,
    step: step.index,
    error: clip(`Plangate could not finish this step: ${errorMessage(err)}. The plan stopped here; see the log.`, 2000),
  };
  const cancel: WorkflowEvent = { type: 'cancelled', at: now(), planId, reason: event.error };
  try {
    if (!workflow.dispatch(event)) workflow.dispatch(cancel);
  } catch (writeError) {
    if (!workflow.applyUnrecorded(event)) workflow.applyUnrecorded(cancel);
    throw new Error(
      `The ledger could not be written (${errorMessage(writeError)}); plan '${planId}' was stopped at step ${step.index + 1}, and that is not on the record.`,
    );
  }
}
