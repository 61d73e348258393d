/**
 * The door: the one path by which a `tools/call` leaves Plangate — plan steps, previews, re-plans, Call Tool,
 * collect-mode stage and submit, the agent entrance, and the CLI. Each call names the decision that covers it; the
 * door checks that the decision covers exactly this call (for a plan step: the approved server, the tool's definition
 * as listed at approval, and the approved arguments), records the call in the ledger before sending it and its outcome
 * after, and refuses what is not covered (recorded too, never sent). Timeout, cancel and progress ride on the
 * {@link ToolCallOptions} it passes through. The policy (core/policy) sits here too: a call it denies is refused with the
 * rule's reason; a call it asks about is sent only once something covers the ask — a plan's approval, a Submit that
 * showed the reviewed payload (for Plangate's default and the tool's own declaration), or the user's answer on the
 * single-call card ({@link DoorOptions.ask}). The verdict, its rule and the answer are in the call's ledger record.
 *
 * Pure: no vscode, no I/O of its own (the ledger's sink does the writing).
 */
import { policyEntranceOf, stepPolicyEntrance } from '../base/entrance';
import { canonicalJson, sameJson, sha256Hex } from '../plan/approval';
import type { ServerTools, TaskReport, ToolCallOptions, ToolInvoker } from './invoker';
import type { Workflow } from '../workflow/ledger';
import { ASK_USER_TOOL } from '../plan/plan';
import { resolutionChange, resolutionRecords } from './resolve';
import type { ToolResult } from '../base/toolResult';
import type { PolicyCall, PolicyVerdict } from '../policy/evaluate';
import type { PolicyDecision, PolicyEntrance, RuleRef } from '../policy/rules';
import { failed, hookReason, type HookAnswer, type HookRequest } from '../policy/decisionHook';
import type { AllowLength } from '../policy/alwaysAllow';
import type { PolicyRecord } from '../plan/plan';
import {
  getPlan,
  type CallDecision,
  type CallEntrance,
  type CallOutcomeKind,
  type CallPolicyRecord,
  type HookRecord,
  type ResultReviewRecord,
  type StepResolutionRecord,
  type StepTask,
} from '../workflow/workflow';

/** One call, as its caller asks the door to send it. */
export interface DoorCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  entrance: CallEntrance;
  decision: CallDecision;
}

/**
 * Why the door did not send a call. `drift`: the step's server or tool definition changed since its approval;
 * `denied`: a policy rule denies it (the message carries the rule's reason); `declined`: the user denied it on the
 * single-call card (or the caller gave up waiting).
 */
export type RefusalKind = 'drift' | 'not_covered' | 'denied' | 'declined';

/** The door refused a call: it was not sent (the ledger has the refusal). */
export class GateRefusal extends Error {
  override readonly name = 'GateRefusal';
  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** For `drift`: where the step resolves now. */
    readonly resolution?: StepResolutionRecord,
    /** For `drift`: what changed, in words, without the step's number (the panel says which step). */
    readonly change?: string,
    /** For `denied`: the verdict, with the deciding rule. */
    readonly verdict?: PolicyVerdict,
  ) {
    super(message);
  }
}

/** A call the policy asks about, waiting for the user on the single-call card. */
export interface CallAsk {
  call: DoorCall;
  entrance: PolicyEntrance;
  verdict: PolicyVerdict;
  /** The tool's annotations as its server lists them (untrusted), for the card's hints. */
  annotations?: unknown;
  /** Aborted when the caller gives up (the agent cancelled): the card closes and the call is not sent. */
  signal?: AbortSignal;
  /** The server's identity now (appNetwork.ts `grantKey`), for the narrowest rule an allow writes; absent: not known. */
  serverKey?: string;
  /**
   * The policy's verdict on this same call now (the tool's definition and the server as they are now): a call waiting
   * behind another call's card is settled by an allow only when this says the new rule covers it (askQueue.ts).
   */
  recheck?: () => PolicyVerdict | undefined;
}

/** A call's result a policy rule asks the user to review before its caller reads it (`review: "result"`). */
export interface ResultReview {
  call: DoorCall;
  entrance: PolicyEntrance;
  /** The rule that asks for the review. */
  rule: RuleRef;
  /** The result as the server sent it (untrusted). */
  result: ToolResult;
  /** Aborted when the caller gives up: the card closes and nothing is passed on. */
  signal?: AbortSignal;
}

/** The user's answer on the result card; `cancelled`: nobody answered (the caller gave up, the panel closed). */
export type ResultReviewAnswer = 'pass' | 'withhold' | 'cancelled';

/** What the caller reads in place of a result the user withheld (or nobody reviewed). */
export function withheldResult(call: Pick<DoorCall, 'server' | 'tool'>, why: 'withheld' | 'unreviewed'): ToolResult {
  const text =
    why === 'withheld'
      ? `The user reviewed the result of '${call.tool}' on server '${call.server}' and withheld it.`
      : `The result of '${call.tool}' on server '${call.server}' is withheld: it must be reviewed by the user first, and nobody reviewed it.`;
  return { content: [{ type: 'text', text }], isError: true };
}

/** Whether a step's dry-run preview may go by itself, waits for the user's Preview, or is denied (see {@link Door.previewClearance}). */
export type PreviewClearance = { kind: 'auto' } | { kind: 'press'; why: string } | { kind: 'denied'; why: string };

/**
 * The user's answer on the card. `session`, `workspace`, `always`: Allow, and the narrowest allow rule of that length
 * was written (its id in `rule`) — for a call that waited behind another's card, the rule the policy now allows it by.
 */
export type CallAskAnswer =
  { answer: 'once' } | { answer: AllowLength; rule?: string } | { answer: 'deny'; note?: string } | { answer: 'cancelled' };

/** The words a deny reaches its caller with: the rule's reason and id. */
export function deniedMessage(call: Pick<DoorCall, 'server' | 'tool'>, verdict: PolicyVerdict): string {
  return `Policy denies calling '${call.tool}' on server '${call.server}': ${verdict.rule.reason} (rule '${verdict.rule.id}').`;
}

/** The ledger's form of a verdict. */
export function policyRecord(verdict: PolicyVerdict): PolicyRecord {
  return {
    decision: verdict.decision,
    ruleId: verdict.rule.id,
    source: verdict.rule.source,
    reason: verdict.rule.reason,
    ...(verdict.notHonoured ? { notHonoured: verdict.notHonoured.id } : {}),
  };
}

export interface DoorOptions {
  /** Read at each check: whether a step may resolve on another server than the plan's issuer. */
  allowCrossServer: () => boolean;
  newId: () => string;
  now?: () => number;
  /** The policy's verdict on a call (absent: no policy; a call is covered by its decision alone). Read at each call. */
  policy?: (call: PolicyCall) => PolicyVerdict;
  /** The tool's definition as its server lists it now (annotations and `_meta`, untrusted), for the policy. */
  toolInfo?: (server: string, tool: string) => { annotations?: unknown; _meta?: unknown } | undefined;
  /** Whether `server` runs in a sandbox now, for rules with `sandboxed` (absent: no server counts as sandboxed). */
  serverSandboxed?: (server: string) => boolean;
  /** The identity of `server` now (appNetwork.ts `grantKey`), for rules with `serverKey` (absent: not known). */
  serverKey?: (server: string) => string | undefined;
  /**
   * Opens the single-call card and resolves with the user's answer (the extension passes a broker's `ask`, which the
   * panel's cards serve once they exist: see core/base/broker.ts). Absent: a call the policy asks about is refused.
   */
  ask?: (ask: CallAsk) => Promise<CallAskAnswer>;
  /**
   * Runs a decision hook a user rule names (the extension passes src/node/decisionHookRunner.ts with the user's
   * `plangate.decisionHooks`). Absent: a rule's hook is not run, and the rule asks.
   */
  decisionHook?: (request: HookRequest) => Promise<HookAnswer>;
  /**
   * Shows a result a rule asks to review and resolves with the user's answer (the extension passes a broker's `ask`,
   * served by the panel's result card). Absent: such a result is withheld.
   */
  review?: (review: ResultReview) => Promise<ResultReviewAnswer>;
  /** Told of every call as it is recorded (the extension's log). */
  onCall?: (call: DoorCall & { callId: string }, outcome?: { kind: CallOutcomeKind; detail?: string; durationMs: number }) => void;
}

/** The keys a tool's input schema uses for a dry-run flag (see predict.ts). */
const DRY_RUN_KEYS = ['dryRun', 'dry_run'] as const;

export class Door {
  private readonly now: () => number;
  private readonly card: DoorOptions['ask'];

  constructor(
    private readonly invoker: ToolInvoker,
    private readonly workflow: Workflow,
    private readonly options: DoorOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.card = options.ask;
  }

  /** The connected servers and their tools (with definition hashes), in configuration order. */
  catalog(): Promise<readonly ServerTools[]> {
    return this.invoker.catalog();
  }

  /**
   * Resolves where each step of a plan awaiting approval runs now (server and tool definition hash), so the panel shows
   * it and the approval covers it. Returns false when the plan is not awaiting approval (nothing to resolve).
   */
  async resolve(planId: string): Promise<boolean> {
    return resolvePlan(this.workflow, this.invoker, planId, {
      allowCrossServer: this.options.allowCrossServer(),
      now: this.now,
      stepPolicy: this.options.policy ? (server, tool, args, entrance) => this.verdictOf(server, tool, args, entrance) : undefined,
    });
  }

  /** The policy's verdict on a call to `tool` on `server` by `entrance`; undefined without a policy. */
  verdictOf(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    entrance: PolicyEntrance,
    hookAnswers?: Readonly<Record<string, PolicyDecision>>,
  ): PolicyVerdict | undefined {
    if (!this.options.policy) return undefined;
    const info = this.options.toolInfo?.(server, tool);
    const sandboxed = this.options.serverSandboxed?.(server) === true;
    const serverKey = this.options.serverKey?.(server);
    return this.options.policy({
      server,
      tool,
      args,
      entrance,
      annotations: info?.annotations,
      meta: info?._meta,
      sandboxed,
      ...(hookAnswers ? { hookAnswers } : {}),
      ...(serverKey !== undefined ? { serverKey } : {}),
    });
  }

  /**
   * Asks the decision hook of the rule that decides (if it names one), then the policy again with its answer in that
   * rule's place — until the deciding rule's hook has answered (a few hooks at most). The verdict's reason then names
   * the hook and its answer; what each hook answered is in `hooks`.
   */
  private async consultHooks(
    call: DoorCall,
    entrance: PolicyEntrance,
    verdict: PolicyVerdict | undefined,
    hooks: HookRecord[],
    signal?: AbortSignal,
  ): Promise<PolicyVerdict | undefined> {
    const answers: Record<string, PolicyDecision> = {};
    const given = new Map<string, HookAnswer>();
    while (verdict?.rule.hook && verdict.rule.source === 'user' && !Object.hasOwn(answers, verdict.rule.id) && hooks.length < 4) {
      const { id, hook } = verdict.rule;
      const started = this.now();
      let answer: HookAnswer;
      if (!this.options.decisionHook) answer = failed('hooks are not run here');
      else {
        try {
          answer = await this.options.decisionHook({
            hook,
            rule: id,
            server: call.server,
            tool: call.tool,
            args: call.args,
            entrance,
            annotations: this.options.toolInfo?.(call.server, call.tool)?.annotations,
            signal,
          });
        } catch (err) {
          answer = failed(err instanceof Error ? err.message : String(err));
        }
      }
      given.set(id, answer);
      answers[id] = answer.decision;
      hooks.push({
        name: hook,
        rule: id,
        answer: answer.decision,
        ...(answer.reason ? { reason: answer.reason } : {}),
        ...(answer.failure ? { failure: answer.failure } : {}),
        durationMs: this.now() - started,
      });
      verdict = this.verdictOf(call.server, call.tool, call.args, entrance, answers);
    }
    const decided = verdict && given.get(verdict.rule.id);
    if (verdict && decided && verdict.rule.hook)
      verdict = { ...verdict, rule: { ...verdict.rule, reason: hookReason(verdict.rule.hook, decided, verdict.rule.reason) } };
    return verdict;
  }

  /** The entrance a call comes by, as policy rules name it. */
  policyEntrance(call: DoorCall): PolicyEntrance {
    const d = call.decision;
    if (d.by === 'approval' || d.by === 'preview') return stepPolicyEntrance(getPlan(this.workflow.state, d.planId)?.origin.entrance);
    return policyEntranceOf(call.entrance);
  }

  /**
   * Why `call` would be refused now (undefined: it is covered, or the policy asks and the card is yet to answer).
   * Sends nothing, records nothing.
   */
  async check(call: DoorCall): Promise<GateRefusal | undefined> {
    return this.checkWith(call, this.verdictOf(call.server, call.tool, call.args, this.policyEntrance(call)));
  }

  private async checkWith(call: DoorCall, verdict: PolicyVerdict | undefined): Promise<GateRefusal | undefined> {
    if (verdict?.decision === 'deny') return new GateRefusal('denied', deniedMessage(call, verdict), undefined, undefined, verdict);
    const d = call.decision;
    switch (d.by) {
      case 'user':
      case 'agent':
      case 'app':
        // The user saw exactly this call and pressed its button, or the agent or a server's app called; the policy
        // narrows these (an ask is answered in call(), on the card; an app's calls are asked by default).
        return undefined;
      case 'approval':
        return this.checkStep(call, d.planId, d.step, 'approval');
      case 'preview': {
        const refusal = await this.checkStep(call, d.planId, d.step, 'preview');
        if (refusal || d.pressed) return refusal;
        // Nobody approved the plan yet: a preview goes by itself only where the policy allows the call outright.
        const wait = previewWait(verdict, getPlan(this.workflow.state, d.planId)?.steps[d.step]);
        return wait
          ? new GateRefusal(
              'not_covered',
              `Step ${d.step + 1}: its preview is not sent by itself, because ${wait}; press Preview to decide.`,
            )
          : undefined;
      }
    }
  }

  /**
   * Whether the dry-run preview of step `step` (the call `tool` on `server` with `args`, its flag set) may go by itself
   * now (`auto`), waits for the user to press the step's Preview (`press`: why, in words), or is denied by the policy
   * (`denied`: the rule's words; never sent, even when pressed). Sends nothing, records nothing.
   */
  previewClearance(planId: string, step: number, server: string, tool: string, args: Record<string, unknown>): PreviewClearance {
    const call: DoorCall = { server, tool, args, entrance: 'preview', decision: { by: 'preview', planId, step } };
    const verdict = this.verdictOf(server, tool, args, this.policyEntrance(call));
    if (verdict?.decision === 'deny')
      return { kind: 'denied', why: `Not previewed: ${deniedMessage(call, verdict).replace(/^Policy denies/, 'the policy denies')}` };
    const wait = previewWait(verdict, getPlan(this.workflow.state, planId)?.steps[step]);
    return wait ? { kind: 'press', why: `Not previewed by itself: ${wait}.` } : { kind: 'auto' };
  }

  /**
   * Sends `call` if its decision covers it: records `callSent` first (if that record cannot be written, nothing is
   * sent), then `callEnded` with the outcome. Rejects with {@link GateRefusal} when not covered (recorded as refused),
   * or with the call's own error (timeout, cancel, connection).
   */
  async call(call: DoorCall, options?: ToolCallOptions): Promise<ToolResult> {
    const entrance = this.policyEntrance(call);
    const hooks: HookRecord[] = [];
    const verdict = await this.consultHooks(
      call,
      entrance,
      this.verdictOf(call.server, call.tool, call.args, entrance),
      hooks,
      options?.signal,
    );
    let refusal = await this.checkWith(call, verdict);
    let policy: CallPolicyRecord | undefined = verdict && { ...policyRecord(verdict), ...(hooks.length ? { hooks } : {}) };
    if (!refusal && verdict && policy && verdict.decision === 'ask') {
      const covered = coverOf(call, verdict);
      if (covered) policy.coveredBy = covered;
      else {
        options?.onProgress?.({ progress: 0, message: `Waiting for your decision in the Plangate panel: ${call.tool} on ${call.server}` });
        const answer = await this.askUser({
          call,
          entrance,
          verdict,
          annotations: this.options.toolInfo?.(call.server, call.tool)?.annotations,
          signal: options?.signal,
          serverKey: this.options.serverKey?.(call.server),
          recheck: () => this.verdictOf(call.server, call.tool, call.args, entrance),
        });
        policy = {
          ...policy,
          coveredBy: 'card',
          answer: answer.answer,
          ...(answer.answer === 'always' && answer.rule ? { alwaysRule: answer.rule } : {}),
          ...((answer.answer === 'session' || answer.answer === 'workspace') && answer.rule ? { approvalRule: answer.rule } : {}),
          ...(answer.answer === 'deny' && answer.note ? { note: answer.note.slice(0, 2000) } : {}),
        };
        if (answer.answer === 'deny')
          refusal = new GateRefusal(
            'declined',
            `The user denied the call to '${call.tool}' on server '${call.server}'${answer.note?.trim() ? `: ${answer.note.trim().slice(0, 2000)}` : '.'}`,
          );
        else if (answer.answer === 'cancelled')
          refusal = new GateRefusal(
            'declined',
            `The call to '${call.tool}' on server '${call.server}' was cancelled while it waited for a decision.`,
          );
      }
    }
    const callId = this.options.newId();
    const started = this.now();
    this.record(call, callId, policy);
    if (refusal) {
      this.ended(call, callId, 'refused', started, refusal.message);
      throw refusal;
    }
    return this.send(call, callId, started, options, undefined, verdict?.review && { rule: verdict.review, entrance });
  }

  /**
   * Watches again the task a plan step's call created before Plangate stopped (the step's `task`, resumed by the gate
   * after the server said it still knows it): sends no `tools/call`, records the task's new statuses, and ends the
   * original call's record (`callEnded` with its id) when the task ends. Rejects as {@link call} does.
   */
  async resume(call: DoorCall, task: StepTask, options?: ToolCallOptions): Promise<ToolResult> {
    if (call.decision.by !== 'approval')
      throw new GateRefusal('not_covered', `Only a plan step's task is watched again after a reload, not a call by '${call.decision.by}'.`);
    const known: TaskReport = { taskId: task.id, status: task.status, ...(task.message !== undefined ? { message: task.message } : {}) };
    // A rule that reviews this step's result holds after a reload too: the policy as it stands now is asked again.
    const entrance = this.policyEntrance(call);
    const review = this.verdictOf(call.server, call.tool, call.args, entrance)?.review;
    return this.send(
      call,
      task.callId,
      this.now(),
      { ...options, task: { ...options?.task, resume: task.id } },
      known,
      review && { rule: review, entrance },
    );
  }

  /**
   * Sends a recorded call (or watches its task), records every change of its task's status, then its end. A plan step
   * prefers a task where the tool offers one (it gains `tasks/cancel` and a watch that survives a reload); a single
   * call runs as a task only where the tool requires it (it would pay a poll's latency for nothing it can use).
   */
  private async send(
    call: DoorCall,
    callId: string,
    started: number,
    options?: ToolCallOptions,
    known?: TaskReport,
    /** A rule asks that the result be reviewed before the caller reads it. */
    reviewBy?: { rule: RuleRef; entrance: PolicyEntrance },
  ): Promise<ToolResult> {
    let last = known;
    const onTask = (task: TaskReport) => {
      if (!last || last.taskId !== task.taskId || last.status !== task.status || last.message !== task.message) {
        last = task;
        this.recordTask(call, callId, task);
      }
      options?.task?.onTask?.(task);
    };
    const task = { ...options?.task, ...(call.decision.by === 'approval' ? { prefer: true } : {}), onTask };
    let result: ToolResult;
    try {
      result = await this.invoker.callTool(call.server, call.tool, call.args, { ...options, task });
    } catch (err) {
      this.ended(call, callId, 'failed', started, err instanceof Error ? err.message : String(err));
      throw err;
    }
    const kind = result && typeof result === 'object' && result.isError === true ? 'tool_error' : 'ok';
    if (!reviewBy) {
      this.ended(call, callId, kind, started);
      return result;
    }
    // A rule asks to review the result: the caller reads it only once the user passed it on.
    const durationMs = this.now() - started;
    options?.onProgress?.({
      progress: 1,
      message: `Waiting for your review of the result in the Plangate panel: ${call.tool} on ${call.server}`,
    });
    const answer = await this.reviewResult({ call, entrance: reviewBy.entrance, rule: reviewBy.rule, result, signal: options?.signal });
    const review: ResultReviewRecord = {
      rule: reviewBy.rule.id,
      answer: answer === 'pass' ? 'passed' : 'withheld',
      by: answer === 'cancelled' ? 'nobody' : 'user',
    };
    this.ended(call, callId, kind, started, undefined, review, durationMs);
    return answer === 'pass' ? result : withheldResult(call, answer === 'withhold' ? 'withheld' : 'unreviewed');
  }

  /** Shows the result for review; without a card, or when the caller already gave up, the answer is `cancelled`. */
  private async reviewResult(review: ResultReview): Promise<ResultReviewAnswer> {
    if (!this.options.review || review.signal?.aborted) return 'cancelled';
    try {
      return await this.options.review(review);
    } catch {
      return 'cancelled';
    }
  }

  /**
   * Puts a task's id and status on the record: for a plan step on the step (`stepTask`), else beside the call
   * (`callTask`). A record the workflow refuses (the step was cancelled meanwhile) or cannot write is left out: the
   * worst that costs is a step that reads "outcome unknown" after a reload, as without tasks.
   */
  private recordTask(call: DoorCall, callId: string, task: TaskReport): void {
    const d = call.decision;
    const message =
      task.message === undefined ? {} : { message: task.message.length > 500 ? `${task.message.slice(0, 499)}…` : task.message };
    const base = { at: this.now(), callId, server: call.server, taskId: task.taskId, status: task.status, ...message };
    try {
      this.workflow.dispatch(
        d.by === 'approval' ? { type: 'stepTask', planId: d.planId, step: d.step, ...base } : { type: 'callTask', ...base },
      );
    } catch {
      /* see above */
    }
  }

  private async checkStep(call: DoorCall, planId: string, index: number, kind: 'approval' | 'preview'): Promise<GateRefusal | undefined> {
    const plan = getPlan(this.workflow.state, planId);
    const step = plan?.steps[index];
    if (!plan || !step) return new GateRefusal('not_covered', `There is no step ${index + 1} of plan '${planId}' to cover this call.`);
    if (kind === 'approval') {
      if (plan.phase !== 'executing' || plan.approvalHash === undefined)
        return new GateRefusal('not_covered', `Plan '${planId}' is not approved and running, so its step ${index + 1} may not be sent.`);
      if (call.decision.by === 'approval' && call.decision.approvalHash !== plan.approvalHash)
        return new GateRefusal('not_covered', `Step ${index + 1}: the approval it carries is not the plan's current one.`);
      if (step.state !== 'pending' && step.state !== 'running')
        return new GateRefusal('not_covered', `Step ${index + 1} is ${step.state}; only a step about to run may be sent.`);
      if (call.args !== step.call.args && !sameJson(call.args, step.call.args))
        return new GateRefusal('not_covered', `Step ${index + 1}: these arguments are not the approved ones.`);
    } else {
      if (plan.phase !== 'awaiting_approval') return new GateRefusal('not_covered', `A preview is only for a plan awaiting approval.`);
      const flagged = DRY_RUN_KEYS.some((k) => call.args[k] === true);
      const rest = Object.fromEntries(Object.entries(call.args).filter(([k]) => !(DRY_RUN_KEYS as readonly string[]).includes(k)));
      const proposed = Object.fromEntries(Object.entries(step.call.args).filter(([k]) => !(DRY_RUN_KEYS as readonly string[]).includes(k)));
      if (!flagged || !sameJson(rest, proposed))
        return new GateRefusal(
          'not_covered',
          `Step ${index + 1}: a preview sends the step's own arguments with its dry-run flag set, nothing else.`,
        );
      if (step.crossServer && !this.options.allowCrossServer())
        return new GateRefusal('not_covered', `Step ${index + 1} would run on another server, and cross-server steps are off.`);
    }
    if (call.tool !== step.call.tool)
      return new GateRefusal('not_covered', `Step ${index + 1} calls '${step.call.tool}', not '${call.tool}'.`);
    if (step.server === undefined)
      return new GateRefusal('drift', `Step ${index + 1}: its server was not resolved when the plan was shown.`);
    if (call.server !== step.server)
      return new GateRefusal('not_covered', `Step ${index + 1} was approved for server '${step.server}', not '${call.server}'.`);
    const [now] = resolutionRecords([step.call], plan.origin.server, await this.invoker.catalog(), {
      allowCrossServer: this.options.allowCrossServer(),
    });
    const change = resolutionChange(step, now, step.call.tool);
    return change ? new GateRefusal('drift', `Step ${index + 1}: ${change}.`, now, change) : undefined;
  }

  /** Asks on the card; without a card, or when the caller already gave up, the answer is `cancelled`. */
  private async askUser(ask: CallAsk): Promise<CallAskAnswer> {
    if (!this.card || ask.signal?.aborted) return { answer: 'cancelled' };
    try {
      return await this.card(ask);
    } catch {
      return { answer: 'cancelled' };
    }
  }

  private record(call: DoorCall, callId: string, policy?: CallPolicyRecord): void {
    const d = call.decision;
    const recorded = this.workflow.dispatch({
      type: 'callSent',
      at: this.now(),
      callId,
      server: call.server,
      tool: call.tool,
      entrance: call.entrance,
      decision: d,
      ...(d.by === 'approval' || d.by === 'preview' ? { planId: d.planId, step: d.step } : {}),
      // An approved step's arguments are in the plan's record already, pinned by its approval hash (the door checked
      // they are the approved ones), so the record names them and hashes nothing; every other call (a preview adds
      // its dry-run flag) keeps its own, and their hash.
      ...(d.by === 'approval' ? {} : { args: call.args, argsHash: sha256Hex(canonicalJson(call.args)) }),
      ...(policy ? { policy } : {}),
    });
    if (!recorded)
      throw new GateRefusal(
        'not_covered',
        `The call to '${call.tool}' on server '${call.server}' could not be recorded in the ledger (its arguments are not plain JSON), so it was not sent.`,
      );
    this.options.onCall?.({ ...call, callId });
  }

  private ended(
    call: DoorCall,
    callId: string,
    kind: CallOutcomeKind,
    started: number,
    detail?: string,
    review?: ResultReviewRecord,
    duration?: number,
  ): void {
    const durationMs = duration ?? this.now() - started;
    const clipped = detail === undefined ? undefined : detail.length > 500 ? `${detail.slice(0, 499)}…` : detail;
    try {
      this.workflow.dispatch({
        type: 'callEnded',
        at: this.now(),
        callId,
        outcome: kind,
        durationMs,
        ...(clipped !== undefined ? { detail: clipped } : {}),
        ...(review ? { review } : {}),
      });
    } finally {
      this.options.onCall?.({ ...call, callId }, { kind, detail: clipped, durationMs });
    }
  }
}

/** Dispatches `resolved` for plan `planId` from `invoker`'s catalog now; false when the plan is not awaiting approval. */
export async function resolvePlan(
  workflow: Workflow,
  invoker: Pick<ToolInvoker, 'catalog'>,
  planId: string,
  options: {
    allowCrossServer: boolean;
    now?: () => number;
    /** The policy's verdict on a step where it resolved (marked on the step: a deny shows before approval). */
    stepPolicy?: (server: string, tool: string, args: Record<string, unknown>, entrance: PolicyEntrance) => PolicyVerdict | undefined;
  },
): Promise<boolean> {
  const catalog = await invoker.catalog();
  const plan = getPlan(workflow.state, planId);
  if (!plan || plan.phase !== 'awaiting_approval') return false;
  const entrance: PolicyEntrance = stepPolicyEntrance(plan.origin.entrance);
  const steps = resolutionRecords(
    plan.steps.map((s) => s.call),
    plan.origin.server,
    catalog,
    { allowCrossServer: options.allowCrossServer },
  ).map((r, i): StepResolutionRecord => {
    const step = plan.steps[i];
    if ('missing' in r || !options.stepPolicy || !step || step.call.tool === ASK_USER_TOOL) return r;
    const verdict = options.stepPolicy(r.server, step.call.tool, step.call.args, entrance);
    return verdict ? { ...r, policy: policyRecord(verdict) } : r;
  });
  return workflow.dispatch({ type: 'resolved', at: (options.now ?? Date.now)(), planId, steps });
}

/**
 * Why a step's preview does not go by itself (undefined: it may): the policy asks about the call, or the step runs on
 * another server than the plan's (the plan's server chose a call to a server it is not).
 */
function previewWait(verdict: PolicyVerdict | undefined, step: { server?: string; crossServer?: boolean } | undefined): string | undefined {
  if (verdict && verdict.decision !== 'allow') {
    const by = verdict.rule.source === 'user' || verdict.rule.source === 'workspace' ? ` (rule '${verdict.rule.id}')` : '';
    return `the policy asks before this call: ${verdict.rule.reason.replace(/[.\s]+$/, '')}${by}`;
  }
  if (step?.crossServer) return `the step runs on server '${step.server ?? '?'}', not on the plan's own server`;
  return undefined;
}

/**
 * What covers an `ask` without the card: a plan's approval covers its steps (never their previews, which come before
 * it); a button that showed
 * exactly this call as a reviewed payload (a collect form's Submit, an ask form's answer) covers Plangate's default and
 * the tool's own declaration, not a user's or workspace's ask rule. Call Tool's generic form covers nothing: the card
 * asks, as for the agent's calls.
 */
function coverOf(call: DoorCall, verdict: PolicyVerdict): CallPolicyRecord['coveredBy'] {
  const d = call.decision;
  if (d.by === 'approval') return 'plan';
  if (d.by === 'preview') return undefined; // a preview comes before any approval: its ask is the card's (pressed only)
  const reviewed = call.entrance === 'collect' || call.entrance === 'replan'; // never an app's or the agent's call
  if (d.by === 'user' && reviewed && (verdict.rule.source === 'default' || verdict.rule.source === 'tool')) return 'button';
  return undefined;
}
