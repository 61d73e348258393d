/**
 * The door: the one path by which a `tools/call` leaves Plangate — plan steps, previews, re-plans, Call Tool,
 * collect-mode stage and submit, the agent entrance, and the CLI. Each call names the decision that covers it; the
 * door checks that the decision covers exactly this call (for a plan step: the approved server, the tool's definition
 * as listed at approval, and the approved arguments), records the call in the ledger before sending it and its outcome
 * after, and refuses what is not covered (recorded too, never sent). Timeout, cancel and progress ride on the
 * {@link ToolCallOptions} it passes through. A rule engine (policy) can sit in {@link Door.check}.
 *
 * Pure: no vscode, no I/O of its own (the ledger's sink does the writing).
 */
import { canonicalJson, sameJson, sha256Hex } from './approval';
import type { ServerTools, ToolCallOptions, ToolInvoker } from './invoker';
import type { Workflow } from './ledger';
import { resolutionChange, resolutionRecords } from './resolve';
import type { ToolResult } from './toolResult';
import { getPlan, type CallDecision, type CallEntrance, type CallOutcomeKind, type StepResolutionRecord } from './workflow';

/** One call, as its caller asks the door to send it. */
export interface DoorCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  entrance: CallEntrance;
  decision: CallDecision;
}

/** Why the door did not send a call. `drift`: the step's server or tool definition changed since its approval. */
export type RefusalKind = 'drift' | 'not_covered';

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
  ) {
    super(message);
  }
}

export interface DoorOptions {
  /** Read at each check: whether a step may resolve on another server than the plan's issuer. */
  allowCrossServer: () => boolean;
  newId: () => string;
  now?: () => number;
  /** Told of every call as it is recorded (the extension's log). */
  onCall?: (call: DoorCall & { callId: string }, outcome?: { kind: CallOutcomeKind; detail?: string; durationMs: number }) => void;
}

/** The keys a tool's input schema uses for a dry-run flag (see predict.ts). */
const DRY_RUN_KEYS = ['dryRun', 'dry_run'] as const;

export class Door {
  private readonly now: () => number;

  constructor(
    private readonly invoker: ToolInvoker,
    private readonly workflow: Workflow,
    private readonly options: DoorOptions,
  ) {
    this.now = options.now ?? Date.now;
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
    return resolvePlan(this.workflow, this.invoker, planId, { allowCrossServer: this.options.allowCrossServer(), now: this.now });
  }

  /** Why `call` would be refused now (undefined: it is covered). Sends nothing, records nothing. */
  async check(call: DoorCall): Promise<GateRefusal | undefined> {
    const d = call.decision;
    switch (d.by) {
      case 'user':
      case 'agent':
        // The user saw exactly this call and pressed its button, or VS Code asked under its own rules. The policy
        // engine is the place to narrow these.
        return undefined;
      case 'approval':
        return this.checkStep(call, d.planId, d.step, 'approval');
      case 'preview':
        return this.checkStep(call, d.planId, d.step, 'preview');
    }
  }

  /**
   * Sends `call` if its decision covers it: records `callSent` first (if that record cannot be written, nothing is
   * sent), then `callEnded` with the outcome. Rejects with {@link GateRefusal} when not covered (recorded as refused),
   * or with the call's own error (timeout, cancel, connection).
   */
  async call(call: DoorCall, options?: ToolCallOptions): Promise<ToolResult> {
    const refusal = await this.check(call);
    const callId = this.options.newId();
    const started = this.now();
    this.record(call, callId);
    if (refusal) {
      this.ended(call, callId, 'refused', started, refusal.message);
      throw refusal;
    }
    let result: ToolResult;
    try {
      result = await this.invoker.callTool(call.server, call.tool, call.args, options);
    } catch (err) {
      this.ended(call, callId, 'failed', started, err instanceof Error ? err.message : String(err));
      throw err;
    }
    this.ended(call, callId, result && typeof result === 'object' && result.isError === true ? 'tool_error' : 'ok', started);
    return result;
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

  private record(call: DoorCall, callId: string): void {
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
    });
    if (!recorded)
      throw new GateRefusal(
        'not_covered',
        `The call to '${call.tool}' on server '${call.server}' could not be recorded in the ledger (its arguments are not plain JSON), so it was not sent.`,
      );
    this.options.onCall?.({ ...call, callId });
  }

  private ended(call: DoorCall, callId: string, kind: CallOutcomeKind, started: number, detail?: string): void {
    const durationMs = this.now() - started;
    const clipped = detail === undefined ? undefined : detail.length > 500 ? `${detail.slice(0, 499)}…` : detail;
    try {
      this.workflow.dispatch({
        type: 'callEnded',
        at: this.now(),
        callId,
        outcome: kind,
        durationMs,
        ...(clipped !== undefined ? { detail: clipped } : {}),
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
  options: { allowCrossServer: boolean; now?: () => number },
): Promise<boolean> {
  const catalog = await invoker.catalog();
  const plan = getPlan(workflow.state, planId);
  if (!plan || plan.phase !== 'awaiting_approval') return false;
  return workflow.dispatch({
    type: 'resolved',
    at: (options.now ?? Date.now)(),
    planId,
    steps: resolutionRecords(
      plan.steps.map((s) => s.call),
      plan.origin.server,
      catalog,
      { allowCrossServer: options.allowCrossServer },
    ),
  });
}
