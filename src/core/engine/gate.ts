/**
 * The gate: where tool results become plans awaiting a decision, and decisions become runs. It owns the
 * prompts a running plan waits on (confirm steps, `ask_user` steps, nested plans) and the cancellation of
 * runs; the workflow (ledger) owns the state. Every entrance that calls a tool and takes in its result — the Call
 * Tool form, a follow-up's re-call, re-plans, the agent's gated calls, `plangate run` — goes through {@link Gate.call};
 * the surfaces only route its outcome. The panel and the CLI approve through {@link Gate.approve}. Pure: no vscode, no
 * I/O of its own.
 */
import { callEntranceOf } from '../base/entrance';
import { classifyResult, type Classification } from '../plan/classify';
import { Door, type DoorOptions } from './door';
import type { ToolInvoker } from './invoker';
import { CancellationTokenSource, DisposableBase, Emitter, type CancellationToken } from '../base/lifecycle';
import type { Workflow } from '../workflow/ledger';
import { ASK_USER_TOOL, type Entrance, type OrchestratedPlan, type Problem, type StepProgress } from '../plan/plan';
import {
  reviewedChangeParts,
  reviewedChangeText,
  type ListedTool,
  type PlanReview,
  type ReviewedResolution,
  type StepReviewChange,
} from './resolve';

export type { PlanReview, StepReviewChange } from './resolve';
import { runPlan, type ResumeTask, type RunnerHost, type StepResult } from './runner';
import type { ToolResult } from '../base/toolResult';
import {
  activePlans,
  followUpCanGo,
  getPlan,
  isTerminalTask,
  planApprovalHash,
  type CallDecision,
  type CallEntrance,
  type PlanOrigin,
  type PlanRecord,
  type StepRecord,
} from '../workflow/workflow';
import type { AskFieldView, PendingPrompt } from '../../shared/protocol/plan';
import { rootPlanId } from '../workflow/planTree';
import { sameJson } from '../plan/approval';
import { askCallArgs } from '../../shared/askCall';

export interface GateOptions {
  invoker: ToolInvoker;
  /** The one door every call goes through; without it the gate makes one over `invoker` and the workflow. */
  door?: Door;
  /** The policy for the door the gate makes: the verdict, the tools' definitions it reads, and the single-call card. */
  policy?: Pick<DoorOptions, 'policy' | 'toolInfo' | 'serverSandboxed' | 'serverKey' | 'ask' | 'decisionHook' | 'review'>;
  /** Read when a plan arrives: let a plan whose every step the user's own rules allow run without asking (off by default). */
  autoApprovePlans?: () => boolean;
  /** Read at each run, so setting changes apply to the next run. */
  settings: () => { stepTimeoutMs: number; allowCrossServer: boolean };
  newId: () => string;
  now?: () => number;
  classify?: (result: unknown, context?: { tool?: string }) => Classification;
  /**
   * Awaited after approval and before the first step of a top-level plan runs (e.g. to checkpoint the files it
   * may touch). If it rejects, nothing runs: the first pending step fails with its message and the plan blocks.
   */
  beforeRun?: (plan: PlanRecord) => Promise<void>;
}

/** A run that broke outside any tool (e.g. the ledger could not be written): the plan was settled, the user must hear. */
export interface RunFailure {
  planId: string;
  message: string;
}

/** What a tool result turned out to be, after the gate took it in. */
export type Received =
  | { kind: 'plan'; planId: string; warnings?: Problem[] }
  /** A valid plan the workflow would not record (`reason` says why); nothing awaits approval. */
  | { kind: 'unrecorded'; reason: string }
  | { kind: 'invalid_plan'; problems: Problem[] }
  | { kind: 'collect_form'; classification: Classification }
  | { kind: 'collect_error'; classification: Classification }
  | { kind: 'plain' };

/**
 * A call a surface makes on someone's behalf — Call Tool, a follow-up's re-call, a re-plan, the agent, the CLI — as one
 * object: what to send, who decided it, and where its result comes from (the plan origin's entrance).
 */
export interface GateCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** Where the call comes from, as a plan it returns records it (`planReceived.origin.entrance`). */
  entrance: Entrance;
  /** What covers the call (the door checks it and the ledger records it). */
  decision: CallDecision;
  /** The plan a returned plan replaces (a re-plan). */
  replacesId?: string;
  /** Aborts the call (the server is told). */
  signal?: AbortSignal;
  /** Default: the step timeout of the gate's settings. */
  timeoutMs?: number;
  onProgress?: (progress: StepProgress) => void;
}

/** What a call through the gate came to: the call as sent, its result, and what the gate took it in as. */
export interface CallOutcome {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  entrance: Entrance;
  result: ToolResult;
  received: Received;
  durationMs: number;
}

/** The door's name for a call from `entrance` (`callSent.entrance` in the ledger). */
export function doorEntrance(entrance: Entrance): CallEntrance {
  return callEntranceOf(entrance);
}

interface Waiter<T> {
  prompt?: PendingPrompt;
  resolve(value: T): void;
}

/** The longest note kept with an approval (longer text is cut). */
export const MAX_NOTE_CHARS = 4000;

export class Gate extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Fires when the prompts waiting on the user change, or a run starts or ends (state changes come from `workflow.onDidChange`). */
  readonly onDidChange = this._onDidChange.event;

  private readonly confirms = new Map<string, Waiter<boolean>>();
  private readonly asks = new Map<string, Waiter<Record<string, unknown> | undefined>>();
  private readonly nested = new Map<string, Waiter<boolean>>();
  /**
   * Cancellation of the run of each top-level plan that is running now: the one record of which plans run (the runner
   * keeps none; {@link start} never starts a second run of a tree).
   */
  private readonly runs = new Map<string, CancellationTokenSource>();
  /** Tasks whose server is being asked whether it still knows them ({@link resumeTasks}). */
  private readonly asking = new Set<string>();
  private readonly now: () => number;
  private readonly classify: (result: unknown, context?: { tool?: string }) => Classification;
  /** Resolutions in flight, by plan id (approval waits for them). */
  private readonly resolving = new Map<string, Promise<unknown>>();
  /**
   * Per plan awaiting approval: where each step resolved when the user first saw it (or last accepted its change). A
   * resolution that finds a step elsewhere, or its tool redefined, is a change the user must accept before approving.
   */
  private readonly seen = new Map<string, ReviewedResolution[]>();
  /** Per plan: its review as last computed (see {@link review}). */
  private readonly reviews = new Map<string, PlanReview>();
  private readonly _onDidFail = this._register(new Emitter<RunFailure>());
  /** A run broke outside any tool; the plan was settled (failed or cancelled) and the message says what happened. */
  readonly onDidFail = this._onDidFail.event;
  /** The one door for tool calls (also for the surfaces' own calls: Call Tool, collect mode, previews, the agent). */
  readonly door: Door;
  private readonly _onDidStepResult = this._register(new Emitter<StepResult>());
  /** A plan step succeeded with this result (the workflow keeps only its summary): for a server app to show it. */
  readonly onDidStepResult = this._onDidStepResult.event;

  constructor(
    readonly workflow: Workflow,
    private readonly options: GateOptions,
  ) {
    super();
    this.now = options.now ?? Date.now;
    this.classify = options.classify ?? classifyResult;
    this.door =
      options.door ??
      new Door(options.invoker, workflow, {
        allowCrossServer: () => options.settings().allowCrossServer,
        newId: options.newId,
        now: this.now,
        ...options.policy,
      });
  }

  /** The prompts the runs wait on, in the order they were asked. */
  get pending(): PendingPrompt[] {
    return [...this.confirms.values(), ...this.asks.values()].flatMap((w) => (w.prompt ? [w.prompt] : []));
  }

  /** The nested plans a run waits on, awaiting approval like any plan ({@link approve} or {@link reject} decides each). */
  get nestedAwaiting(): string[] {
    return [...this.nested.keys()];
  }

  /** The user has nothing left to decide and nothing runs: finished, at its follow-up, or blocked with no run going on. */
  isSettled(planId: string): boolean {
    const plan = getPlan(this.workflow.state, planId);
    return !plan || plan.phase === 'finished' || plan.phase === 'follow_up' || (plan.phase === 'blocked' && !this.isRunning(planId));
  }

  /** Whether a run of this plan (or of its top-level plan) is going on now. */
  isRunning(planId: string): boolean {
    return this.runs.has(rootPlanId(this.workflow.state, planId));
  }

  /** Takes in a tool result: a plan is recorded (awaiting approval when its status is ok). */
  receive(origin: PlanOrigin, result: unknown, extra: { replacesId?: string } = {}): Received {
    const c = this.classify(result, { tool: origin.tool });
    switch (c.kind) {
      case 'plan': {
        const planId = this.options.newId();
        const event = { type: 'planReceived', at: this.now(), planId, origin, plan: c.plan, replacesId: extra.replacesId } as const;
        if (!this.workflow.dispatch(event))
          return { kind: 'unrecorded', reason: this.workflow.canApply(event) ?? 'the workflow refused it' };
        void this.resolve(planId).then(() => this.autoApprove(planId).catch(() => false));
        return { kind: 'plan', planId, ...(c.warnings?.length ? { warnings: c.warnings } : {}) };
      }
      case 'invalid_plan':
        return { kind: 'invalid_plan', problems: c.problems };
      case 'collect_form':
        return { kind: 'collect_form', classification: c };
      case 'collect_error':
        return { kind: 'collect_error', classification: c };
      default:
        return { kind: 'plain' };
    }
  }

  /**
   * The one use case "call a tool, take in its result": sends the call through the door (checked against its decision,
   * on the record), then takes the result in ({@link receive}): a plan is recorded awaiting approval, a collect form or
   * a plain result is said so. Every surface routes the outcome; none composes the two itself. Rejects when the call was
   * not sent or failed (a {@link GateRefusal}, the connection's error, a timeout or an abort).
   */
  async call(call: GateCall): Promise<CallOutcome> {
    const { server, tool, args, entrance } = call;
    const started = this.now();
    const result = await this.door.call(
      { server, tool, args, entrance: doorEntrance(entrance), decision: call.decision },
      {
        timeoutMs: call.timeoutMs ?? this.options.settings().stepTimeoutMs,
        ...(call.signal ? { signal: call.signal } : {}),
        ...(call.onProgress ? { onProgress: call.onProgress } : {}),
      },
    );
    const received = this.receive({ server, tool, args, entrance }, result, call.replacesId ? { replacesId: call.replacesId } : {});
    return { server, tool, args, entrance, result, received, durationMs: this.now() - started };
  }

  /**
   * `plangate.autoApprovePlans`: approves a plan awaiting approval when the user opted in and the user's own rules allow
   * every step that goes to a server (a workspace rule, Plangate's default allow, an ask or a deny do not count). The
   * ledger records the approval with the rules. Returns whether it approved.
   */
  private async autoApprove(planId: string): Promise<boolean> {
    if (!this.options.autoApprovePlans?.()) return false;
    const plan = getPlan(this.workflow.state, planId);
    const rules = plan && plan.depth === 0 ? autoApprovable(plan) : undefined;
    if (!plan || !rules) return false;
    const note = `Approved without asking: plangate.autoApprovePlans is on and your rules allow every step (${rules.map((r) => `'${r}'`).join(', ')}).`;
    // The rules were evaluated on this resolution, so the approval covers exactly it: one that lands meanwhile (a tool
    // list changed) does not match the hash, the approval is refused and the plan waits in the panel.
    return (await this.approve(planId, note, planApprovalHash(plan), rules)) === undefined;
  }

  /** The server a step runs (or will run) on, for schema lookups: the resolved one, else the issuing server. */
  serverFor(planId: string, step: number): string | undefined {
    const plan = getPlan(this.workflow.state, planId);
    return plan?.steps[step]?.server ?? plan?.origin.server;
  }

  /**
   * Finds (again) where each step of a plan awaiting approval runs: server and tool definition, shown in the panel and
   * covered by the approval. Called when a plan arrives and whenever the servers or their tools change.
   */
  /** Settles when the resolution of plan `planId` going on now is done; undefined when none is going on. */
  resolution(planId: string): Promise<unknown> | undefined {
    return this.resolving.get(planId);
  }

  resolve(planId: string): Promise<unknown> {
    const previous = this.resolving.get(planId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        const before = getPlan(this.workflow.state, planId);
        const resolved = await this.door.resolve(planId);
        await this.noteResolution(planId, before);
        return resolved;
      })
      .catch(() => false)
      .finally(() => {
        if (this.resolving.get(planId) === next) this.resolving.delete(planId);
      });
    this.resolving.set(planId, next);
    return next;
  }

  /** Re-resolves every plan awaiting approval (the servers or their tool lists changed). */
  refreshResolutions(): Promise<unknown> {
    return Promise.all(
      Object.values(this.workflow.state.plans)
        .filter((p) => p.phase === 'awaiting_approval')
        .map((p) => this.resolve(p.id)),
    );
  }

  /**
   * Approves exactly what the plan holds now and starts (or, for a nested plan, lets its parent start) the run.
   * `note`: what the user wrote with the approval (kept in the ledger, passed to the agent); blank is none.
   * `shownHash`: the approval hash of what the panel displayed; when given and the plan has changed since (a server's
   * tool list changed, say), the approval is refused and the user looks again.
   */
  async approve(planId: string, note?: string, shownHash?: string, byPolicy?: string[]): Promise<string | undefined> {
    const first = getPlan(this.workflow.state, planId);
    if (first?.phase === 'awaiting_approval' && (first.resolvedAt === undefined || this.resolving.has(planId))) await this.resolve(planId);
    const plan = getPlan(this.workflow.state, planId);
    if (!plan) return 'That plan no longer exists.';
    if (plan.phase !== 'awaiting_approval')
      return `This plan is ${plan.phase.replace('_', ' ')}; only a plan awaiting approval can be approved.`;
    if (plan.resolvedAt === undefined)
      return 'Plangate could not find out which server runs each step (the servers could not be listed); try again when they are running.';
    const changes = this.review(planId)?.changes ?? [];
    if (changes.length) return changedWhileReviewing(plan, changes);
    if (shownHash !== undefined && shownHash !== planApprovalHash(plan)) {
      return "The plan changed since it was shown (a step's server or tool definition, or an argument); look at it again, then approve.";
    }
    if (byPolicy && !sameList(autoApprovable(plan), byPolicy))
      return 'Your rules no longer allow every step of this plan as they did when it arrived; look at it, then approve.';
    const waiter = this.nested.get(planId);
    const text = note?.trim().slice(0, MAX_NOTE_CHARS);
    const ok = this.workflow.dispatch({
      type: 'approved',
      at: this.now(),
      planId,
      approvalHash: planApprovalHash(plan),
      ...(text ? { note: text } : {}),
      ...(byPolicy ? { byPolicy } : {}),
    });
    if (!ok)
      return this.workflow.canApply({ type: 'approved', at: this.now(), planId, approvalHash: '' }) ?? 'The plan could not be approved.';
    this.seen.delete(planId);
    if (waiter) {
      this.nested.delete(planId);
      waiter.resolve(true);
    } else {
      this.start(planId);
    }
    return undefined;
  }

  /** The review of plan `planId`: steps changed while it waited, and its steps' tool definitions as listed. */
  review(planId: string): PlanReview | undefined {
    return this.reviews.get(planId);
  }

  /**
   * The user looked at what changed at step `step` while the plan waited and accepts it: what the step resolves to now
   * becomes what the user saw. `shownHash`: the approval hash of the view the user accepted it in; refused when the plan
   * changed again since.
   */
  acceptChange(planId: string, step: number, shownHash: string): string | undefined {
    const plan = getPlan(this.workflow.state, planId);
    const seen = this.seen.get(planId);
    if (!plan || plan.phase !== 'awaiting_approval' || !seen) return 'Only a plan awaiting approval has changes to accept.';
    if (!this.review(planId)?.changes.some((c) => c.step === step)) return `Step ${step + 1} has no change to accept.`;
    if (shownHash !== planApprovalHash(plan)) return 'The plan changed again since it was shown; look at it again.';
    seen[step] = resolutionOf(plan.steps[step]);
    this.updateReview(planId, plan);
    this._onDidChange.fire();
    return undefined;
  }

  /**
   * After a resolution of plan `planId` (`before`: the plan as it was shown before it): keeps what the user saw of each
   * step, marks the steps that resolve elsewhere now, and keeps the definitions of the steps' tools as listed.
   */
  private async noteResolution(planId: string, before: PlanRecord | undefined): Promise<void> {
    const plan = getPlan(this.workflow.state, planId);
    if (!plan || plan.phase !== 'awaiting_approval' || plan.resolvedAt === undefined) {
      this.seen.delete(planId);
      if (!plan) this.reviews.delete(planId);
      return;
    }
    if (!this.seen.has(planId)) {
      // The first resolution is what the user first sees; a plan that came back to approval (a drift after an
      // approval, a window reload) was shown as it stood before this resolution.
      const shown = before?.phase === 'awaiting_approval' && before.resolvedAt !== undefined ? before : plan;
      this.seen.set(planId, shown.steps.map(resolutionOf));
    }
    const known = new Map(this.reviews.get(planId)?.definitions ?? []);
    const wanted = new Set<string>();
    for (const s of plan.steps) if (s.toolHash) wanted.add(s.toolHash);
    for (const r of this.seen.get(planId)!) if (r.toolHash) wanted.add(r.toolHash);
    if ([...wanted].some((h) => !known.has(h))) {
      for (const server of await this.door.catalog())
        for (const [name, hash] of server.hashes ?? []) {
          const definition = server.definitions?.get(name);
          if (definition && wanted.has(hash) && !known.has(hash)) known.set(hash, definition);
        }
    }
    for (const h of known.keys()) if (!wanted.has(h)) known.delete(h);
    this.updateReview(planId, getPlan(this.workflow.state, planId) ?? plan, known);
  }

  /** Recomputes the review of `plan` from what the user saw; a new object only when something changed. */
  private updateReview(planId: string, plan: PlanRecord, definitions?: Map<string, ListedTool>): void {
    const old = this.reviews.get(planId);
    const known: ReadonlyMap<string, ListedTool> = definitions ?? old?.definitions ?? new Map();
    const seen = this.seen.get(planId) ?? [];
    const changes: StepReviewChange[] = [];
    for (const step of plan.steps) {
      const was = seen[step.index];
      if (!was || step.state !== 'pending' || step.call.tool === ASK_USER_TOOL) continue;
      const now = resolutionOf(step);
      const parts = reviewedChangeParts(was, now, (h) => known.get(h));
      if (parts.length)
        changes.push({ step: step.index, before: was, after: now, parts, text: reviewedChangeText(was, now, step.call.tool, parts) });
    }
    const same =
      old &&
      JSON.stringify(old.changes) === JSON.stringify(changes) &&
      old.definitions.size === known.size &&
      [...known.keys()].every((h) => old.definitions.has(h));
    if (same) return;
    this.reviews.set(planId, { changes, definitions: known });
    this._onDidChange.fire();
  }

  reject(planId: string, reason?: string): string | undefined {
    const plan = getPlan(this.workflow.state, planId);
    if (!plan || plan.phase !== 'awaiting_approval') return 'Only a plan awaiting approval can be rejected.';
    if (!this.workflow.dispatch({ type: 'rejected', at: this.now(), planId, reason })) return 'The plan could not be rejected.';
    this.seen.delete(planId);
    const waiter = this.nested.get(planId);
    this.nested.delete(planId);
    waiter?.resolve(false);
    return undefined;
  }

  editArgs(planId: string, step: number, args: Record<string, unknown>): string | undefined {
    const event = { type: 'argsEdited', at: this.now(), planId, step, args } as const;
    if (!this.workflow.dispatch(event)) return this.workflow.canApply(event) ?? 'The arguments can no longer be changed.';
    // The policy's verdict on a step can depend on its arguments: resolve again, so the step shows the new one.
    void this.resolve(planId);
    return undefined;
  }

  markSkip(planId: string, step: number, skip: boolean): string | undefined {
    const event = { type: 'skipMarked', at: this.now(), planId, step, skip } as const;
    return this.workflow.dispatch(event) ? undefined : (this.workflow.canApply(event) ?? 'The step can no longer be skipped.');
  }

  /** Cancels the running plan (the running call is aborted; the server is told). */
  cancel(planId: string): string | undefined {
    const root = rootPlanId(this.workflow.state, planId);
    const run = this.runs.get(root);
    if (run) {
      run.cancel();
      return undefined;
    }
    const plan = getPlan(this.workflow.state, planId);
    if (plan?.phase === 'executing') {
      this.workflow.dispatch({ type: 'cancelled', at: this.now(), planId, reason: 'Cancelled by the user' });
      return undefined;
    }
    return 'This plan is not running.';
  }

  /** Blocked plan: runs the failed (or interrupted) step again, then the rest. */
  retry(planId: string): string | undefined {
    return this.resume(planId, 'retryRequested', 'Only a blocked plan can retry its step.', 'The step cannot be retried.');
  }

  /** Blocked plan: marks the failed step skipped and runs the rest. */
  skipFailed(planId: string): string | undefined {
    return this.resume(planId, 'stepSkipped', 'Only a blocked plan can skip its failed step.', 'The step cannot be skipped.');
  }

  /** Applies the user's decision on the blocked step (of the plan or its blocked nested plan) and runs on. */
  private resume(planId: string, type: 'retryRequested' | 'stepSkipped', notBlocked: string, refused: string): string | undefined {
    const plan = getPlan(this.workflow.state, planId);
    const blocked = plan && this.blockedPlan(plan);
    if (!blocked || blocked.blockedStep === undefined) return notBlocked;
    if (!this.workflow.dispatch({ type, at: this.now(), planId: blocked.id, step: blocked.blockedStep })) return refused;
    this.start(blocked.id);
    return undefined;
  }

  /**
   * After a reload: every plan blocked on a step whose call ran as an MCP task (its outcome unknown) whose server still
   * knows the task (`tasks/get`) resumes watching it — the step runs on, nothing is sent again. A task the server does
   * not know (any more), or a server not connected yet, leaves the step as it is (call again when servers connect).
   * Resolves with the ids of the plans resumed.
   */
  async resumeTasks(): Promise<string[]> {
    const status = this.options.invoker.taskStatus?.bind(this.options.invoker);
    if (!status) return [];
    const resumed: string[] = [];
    for (const plan of activePlans(this.workflow.state)) {
      const step = plan.phase === 'blocked' && plan.blockedStep !== undefined ? plan.steps[plan.blockedStep] : undefined;
      if (!step?.task || step.state !== 'unknown' || isTerminalTask(step.task.status) || this.isRunning(plan.id)) continue;
      const server = step.server ?? plan.origin.server;
      const key = `${plan.id}:${step.index}:${step.task.id}`;
      if (this.asking.has(key)) continue;
      this.asking.add(key);
      try {
        const now = await status(server, step.task.id);
        const still = getPlan(this.workflow.state, plan.id);
        if (!now || still?.phase !== 'blocked' || still.blockedStep !== step.index || this.isRunning(plan.id)) continue;
        if (!this.workflow.dispatch({ type: 'taskResumed', at: this.now(), planId: plan.id, step: step.index })) continue;
        this.start(plan.id, { step: step.index });
        resumed.push(plan.id);
      } finally {
        this.asking.delete(key);
      }
    }
    return resumed;
  }

  /** Blocked plan: stops it; the steps not run stay not run. */
  stop(planId: string): string | undefined {
    const plan = getPlan(this.workflow.state, planId);
    const blocked = plan && this.blockedPlan(plan);
    if (!blocked) return 'Only a blocked plan can be stopped.';
    if (!this.workflow.dispatch({ type: 'stopped', at: this.now(), planId: blocked.id })) return 'The plan cannot be stopped.';
    // A stopped nested plan fails its parent's step; the parent is then blocked on it and the user decides there.
    return undefined;
  }

  answerConfirm(planId: string, step: number, granted: boolean): string | undefined {
    const waiter = this.confirms.get(`${planId}:${step}`);
    if (!waiter) return 'That step is not waiting for a confirmation.';
    this.confirms.delete(`${planId}:${step}`);
    this._onDidChange.fire();
    waiter.resolve(granted);
    return undefined;
  }

  answerAskUser(planId: string, step: number, values?: Record<string, unknown>): string | undefined {
    const waiter = this.asks.get(`${planId}:${step}`);
    if (!waiter) return 'That step is not waiting for an answer.';
    this.asks.delete(`${planId}:${step}`);
    this._onDidChange.fire();
    waiter.resolve(values);
    return undefined;
  }

  followUp(planId: string, answer: 'yes' | 'no'): string | undefined {
    const event = { type: 'followUpAnswered', at: this.now(), planId, answer } as const;
    return this.workflow.dispatch(event) ? undefined : (this.workflow.canApply(event) ?? 'There is no follow-up question to answer.');
  }

  /**
   * The plan's `ask` form was answered: calls the planning tool again (through the door) with its arguments plus the
   * answers. `shown`: the arguments the form showed above its button ({@link askCallArgs} of the same view); the answer
   * approves exactly that call, so one that differs from what would be sent is refused and nothing is sent.
   */
  async replan(planId: string, values: Record<string, unknown>, shown: Record<string, unknown>): Promise<CallOutcome> {
    const plan = getPlan(this.workflow.state, planId);
    if (!plan) throw new Error('That plan no longer exists.');
    const args = askCallArgs(plan.origin.args, plan.plan.ask?.fields ?? [], values);
    if (!sameJson(args, shown))
      throw new Error(
        `The call shown above the button is not the one the answer would send to '${plan.origin.tool}' on server '${plan.origin.server}'; nothing was sent. Look at the call again and press Answer and re-plan.`,
      );
    return this.call({
      server: plan.origin.server,
      tool: plan.origin.tool,
      args,
      entrance: 'replan',
      decision: { by: 'user', what: "answered the plan's ask form, which showed this call" },
      replacesId: planId,
    });
  }

  /**
   * Offers one of the plan's recovery actions as a one-step plan, awaiting approval like any plan: shown with its
   * server, tool and arguments, then checkpointed, run through the door, ledgered and summarised. Returns its id.
   */
  proposeRecovery(planId: string, index: number): { planId: string } | { error: string } {
    const plan = getPlan(this.workflow.state, planId);
    const action = plan?.plan.recovery_actions?.[index];
    if (!plan || !action) return { error: 'That recovery action no longer exists.' };
    const label = action.label || action.tool;
    const carries = followUpCanGo(this.workflow.state, plan);
    const recovery: OrchestratedPlan = {
      kind: 'orchestrated_plan',
      version: '1',
      status: 'ok',
      instruction: `Recovery action "${label}" offered by server '${plan.origin.server}' (from ${plan.origin.tool}).`,
      next_actions: [{ ...action, args: action.args ?? {} }],
      ...(plan.plan.safety ? { safety: plan.plan.safety } : {}),
      // The not-ok plan's follow-up ("After fixing the component, wire API connections?") goes with the recovery and is
      // asked once it ran — unless another recovery holds it already: one question, asked in one place.
      ...(carries ? { follow_up: plan.plan.follow_up } : {}),
    };
    const id = this.options.newId();
    const origin: PlanOrigin = { server: plan.origin.server, tool: plan.origin.tool, args: plan.origin.args, entrance: 'recovery' };
    const received = { type: 'planReceived', at: this.now(), planId: id, origin, plan: recovery } as const;
    if (!this.workflow.dispatch(carries ? { ...received, followUpOf: plan.id } : received)) {
      return { error: 'The recovery action could not be opened as a plan.' };
    }
    void this.resolve(id);
    return { planId: id };
  }

  /** Resolves when the plan (top-level) is no longer awaiting approval or running: for callers that wait on a decision. */
  whenSettled(planId: string, token?: CancellationToken): Promise<PlanRecord | undefined> {
    const settled = () => this.isSettled(planId);
    if (settled()) return Promise.resolve(getPlan(this.workflow.state, planId));
    return new Promise((resolve) => {
      const done = () => {
        sub.dispose();
        runSub.dispose();
        cancelSub?.dispose();
        resolve(getPlan(this.workflow.state, planId));
      };
      const sub = this.workflow.onDidChange(() => {
        if (settled()) done();
      });
      const runSub = this.onDidChange(() => {
        if (settled()) done();
      });
      const cancelSub = token?.onCancellationRequested(done);
    });
  }

  override dispose(): void {
    for (const run of this.runs.values()) run.cancel();
    for (const w of [...this.confirms.values(), ...this.nested.values()]) w.resolve(false);
    for (const w of this.asks.values()) w.resolve(undefined);
    super.dispose();
  }

  /** The plan itself when blocked, else its blocked nested plan (the panel's buttons act on the whole tree). */
  private blockedPlan(plan: PlanRecord): PlanRecord | undefined {
    if (plan.phase === 'blocked') {
      const step = plan.blockedStep !== undefined ? plan.steps[plan.blockedStep] : undefined;
      const child = step?.childPlanId ? getPlan(this.workflow.state, step.childPlanId) : undefined;
      return child ? (this.blockedPlan(child) ?? plan) : plan;
    }
    for (const step of plan.steps) {
      const child = step.childPlanId ? getPlan(this.workflow.state, step.childPlanId) : undefined;
      const found = child && this.blockedPlan(child);
      if (found) return found;
    }
    return undefined;
  }

  /** Starts a run of the plan's tree under one cancellation source, unless one is going on. */
  private start(planId: string, resume?: ResumeTask): void {
    const root = rootPlanId(this.workflow.state, planId);
    if (this.runs.has(root)) return; // the running loop picks the change up
    const cts = new CancellationTokenSource();
    this.runs.set(root, cts);
    const settings = this.options.settings();
    // A resumed task's plan ran before the reload: its checkpoint was taken then, and must not be taken again.
    void (resume ? Promise.resolve(true) : this.prepare(root))
      .then((ready) =>
        ready
          ? runPlan(
              this.workflow,
              planId,
              {
                invoker: this.options.invoker,
                host: this.host(),
                classify: (r) => this.classify(r),
                stepTimeoutMs: settings.stepTimeoutMs,
                allowCrossServer: settings.allowCrossServer,
                token: cts.token,
                now: this.now,
                newId: this.options.newId,
                door: this.door,
                onStepResult: (r) => this._onDidStepResult.fire(r),
              },
              resume,
            )
          : undefined,
      )
      .catch((err: unknown) => {
        // The runner settles the plan before it rejects; the user must still hear why (e.g. the ledger is not writable).
        this._onDidFail.fire({ planId, message: err instanceof Error ? err.message : String(err) });
      })
      .finally(() => {
        this.runs.delete(root);
        cts.dispose();
        this._onDidChange.fire();
      });
  }

  /** Runs the beforeRun hook for a top-level plan; on failure blocks the plan on its first pending step. */
  private async prepare(rootId: string): Promise<boolean> {
    const plan = getPlan(this.workflow.state, rootId);
    const beforeRun = this.options.beforeRun;
    if (!plan || !beforeRun) return true;
    try {
      await beforeRun(plan);
      return true;
    } catch (err) {
      const step = getPlan(this.workflow.state, rootId)?.steps.find((s) => s.state === 'pending');
      const message = err instanceof Error ? err.message : String(err);
      if (step)
        this.workflow.dispatch({ type: 'stepFailed', at: this.now(), planId: rootId, step: step.index, error: `Nothing ran: ${message}` });
      return false;
    }
  }

  private host(): RunnerHost {
    const wait = <T>(
      map: Map<string, Waiter<T>>,
      key: string,
      prompt: PendingPrompt | undefined,
      token: CancellationToken,
      onCancel: T,
    ): Promise<T> =>
      new Promise<T>((resolve) => {
        const sub = token.onCancellationRequested(() => {
          map.delete(key);
          this._onDidChange.fire();
          resolve(onCancel);
        });
        map.set(key, {
          prompt,
          resolve: (v) => {
            sub.dispose();
            resolve(v);
          },
        });
        this._onDidChange.fire();
      });
    return {
      confirmStep: (plan, step, token) =>
        wait(this.confirms, `${plan.id}:${step.index}`, { kind: 'confirm', planId: plan.id, step: step.index }, token, false),
      askUser: (plan, step, token) => wait(this.asks, `${plan.id}:${step.index}`, askPrompt(plan, step), token, undefined),
      approveNested: (child, token) => wait(this.nested, child.id, undefined, token, false),
      beforeNested: async (child) => {
        await this.options.beforeRun?.(child);
      },
    };
  }
}

/** An `ask_user` step's `{prompt, fields}` as a prompt the panel can render. */
function askPrompt(plan: PlanRecord, step: StepRecord): PendingPrompt {
  const args = step.call.args as { prompt?: unknown; fields?: unknown };
  const fields: AskFieldView[] = Array.isArray(args.fields)
    ? args.fields.flatMap((f): AskFieldView[] => {
        if (!f || typeof f !== 'object' || typeof (f as { name?: unknown }).name !== 'string') return [];
        const raw = f as { name: string; type?: unknown; required?: unknown; options?: unknown };
        const type = String(raw.type ?? 'string').toLowerCase();
        return [
          {
            name: raw.name,
            type: type === 'number' || type === '1' ? 'number' : type === 'select' || type === '2' ? 'select' : 'string',
            required: raw.required === true,
            options: Array.isArray(raw.options) ? raw.options.map(String) : undefined,
          },
        ];
      })
    : [];
  return { kind: 'askUser', planId: plan.id, step: step.index, prompt: typeof args.prompt === 'string' ? args.prompt : '', fields };
}

/**
 * The ids of the user's own rules that allow every step of `plan` that goes to a server, as resolved now; undefined when
 * a step is not allowed so (a workspace rule, Plangate's default allow, an ask or a deny) or nothing would be sent.
 */
function autoApprovable(plan: PlanRecord): string[] | undefined {
  if (plan.phase !== 'awaiting_approval' || plan.resolvedAt === undefined) return undefined;
  const steps = plan.steps.filter((s) => s.call.tool !== ASK_USER_TOOL && !s.skipRequested);
  if (steps.length === 0 || !steps.every((s) => s.policy?.decision === 'allow' && s.policy.source === 'user')) return undefined;
  return [...new Set(steps.map((s) => s.policy!.ruleId))];
}

function sameList(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return !!a && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Where a step resolves now, as a reviewer sees it. */
function resolutionOf(step: StepRecord | undefined): ReviewedResolution {
  if (!step) return {};
  return {
    ...(step.server !== undefined ? { server: step.server } : {}),
    ...(step.toolHash !== undefined ? { toolHash: step.toolHash } : {}),
    ...(step.unresolved !== undefined ? { unresolved: step.unresolved } : {}),
  };
}

/** Why an approval is refused while steps changed during review, naming each step and what changed. */
function changedWhileReviewing(plan: PlanRecord, changes: readonly StepReviewChange[]): string {
  const steps = changes.map((c) => {
    const step = plan.steps[c.step];
    const label = step?.call.label && step.call.label !== step.call.tool ? `${step.call.label}, ` : '';
    return `step ${c.step + 1} (${label}${step?.call.tool ?? ''}) changed while you were reviewing: ${c.text}`;
  });
  return `The plan changed since it was shown: ${steps.join('; ')}. See what changed at the step, press Accept change, then approve.`;
}
