/**
 * The normalised MCPFlow `orchestrated_plan` envelope, as the rest of Plangate sees it after parsing
 * (see envelope.ts). Enums are lowercase strings whatever the server sent (numbers, PascalCase);
 * `next_actions` is always an array; unknown fields are kept.
 */
import type { PlanEntrance } from '../base/entrance';

export const PLAN_STATUSES = ['ok', 'error', 'invalid', 'blocked', 'partial'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export const ASK_FIELD_TYPES = ['string', 'number', 'select'] as const;
export type AskFieldType = (typeof ASK_FIELD_TYPES)[number];

export const PARTIAL_OUTCOMES = ['ok', 'skipped', 'failed'] as const;
export type PartialOutcome = (typeof PARTIAL_OUTCOMES)[number];

/** A tool call the plan proposes (a step in `next_actions`, or a recovery action). */
export interface ActionCall {
  tool: string;
  /** Always an object after parsing (`{}` when the server sent none). */
  args: Record<string, unknown>;
  label?: string;
  /** The step needs its own confirmation when it is reached. */
  confirm?: boolean;
  [extra: string]: unknown;
}

export interface Issue {
  code: string;
  message: string;
  field?: string;
  hint?: string;
  recoverable?: boolean;
  [extra: string]: unknown;
}

export interface PartialResult {
  step: string;
  outcome: PartialOutcome;
  detail?: string;
  [extra: string]: unknown;
}

export interface AskField {
  name: string;
  type: AskFieldType;
  required?: boolean;
  options?: string[];
  [extra: string]: unknown;
}

export interface Ask {
  prompt: string;
  fields?: AskField[];
  [extra: string]: unknown;
}

export interface Safety {
  writes_code?: boolean;
  /** Globs relative to the workspace, e.g. `src/modules/payroll/**`. */
  touches_files?: string[];
  [extra: string]: unknown;
}

export interface OrchestratedPlan {
  kind: 'orchestrated_plan';
  /** Always "1" after parsing (a number 1 is accepted and normalised). */
  version: string;
  status: PlanStatus;
  instruction: string;
  next_actions: ActionCall[];
  follow_up?: string;
  errors?: Issue[];
  warnings?: Issue[];
  missing?: string[];
  partial_results?: PartialResult[];
  ask?: Ask;
  recovery_actions?: ActionCall[];
  safety?: Safety;
  affected_paths?: string[];
  correlation_id?: string;
  [extra: string]: unknown;
}

/** One problem found in input, with the JSON path it concerns, e.g. `next_actions[1].tool`. */
export interface Problem {
  /** JSON path relative to the envelope; `""` means the envelope itself. */
  path: string;
  message: string;
}

/** The conventional local step: `tool: "ask_user"` with `args: {prompt, fields}`; never sent to a server. */
export const ASK_USER_TOOL = 'ask_user';

// ——— The workflow's records of a plan (reduced from ledger events in workflow.ts) ———

/** Per-step state. `unknown`: the step was running when the process died; its outcome is unknown. */
export type StepState = 'pending' | 'awaiting_confirm' | 'running' | 'ok' | 'failed' | 'skipped' | 'not_run' | 'unknown';

export type PlanPhase = 'awaiting_approval' | 'executing' | 'follow_up' | 'blocked' | 'finished';

/**
 * How a finished plan ended. `completed`: every step ok or skipped; `rejected`: not approved; `stopped`: the
 * user stopped after a failure; `cancelled`: cancelled while running; `not_ok`: the plan's status was not ok
 * (error/invalid/blocked/partial), so it had nothing to approve; `replaced`: a re-plan (ask form) replaced it.
 */
export type PlanOutcome = 'completed' | 'rejected' | 'stopped' | 'cancelled' | 'not_ok' | 'replaced';

/** Where the planning call came from (core/base/entrance.ts holds every view of an entrance and the mappings). */
export type Entrance = PlanEntrance;

/** The tool call whose result was the plan. */
export interface PlanOrigin {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  entrance: Entrance;
}

/** A task's status as MCP 2025-11-25 names it (`tasks/get`). Terminal: completed, failed, cancelled. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** Every {@link TaskStatus}, for validating what a server or a stored event says. */
export const TASK_STATUSES: readonly TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/**
 * The MCP task a step's call runs as (the server answered `tools/call` with a task): its id, the call it belongs to, and
 * the last status the server reported. Kept in the ledger, so that after a reload the step resumes watching the task
 * (`tasks/get`, `tasks/result`) instead of coming back as "outcome unknown".
 */
export interface StepTask {
  /** The server's task id (untrusted text). */
  id: string;
  /** The door's id of the call that created it (`callSent.callId`). */
  callId: string;
  status: TaskStatus;
  /** The server's status message (untrusted, clipped). */
  message?: string;
}

export interface StepProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** A policy decision as the ledger keeps it: the decision, the deciding rule's id, source and reason. */
export interface PolicyRecord {
  decision: 'allow' | 'ask' | 'deny';
  ruleId: string;
  source: 'user' | 'workspace' | 'default' | 'tool' | 'session' | 'workspaceApproval';
  reason: string;
  /** A workspace rule that would have loosened the user's decision and was not honoured. */
  notHonoured?: string;
}

export interface StepRecord {
  /** 0-based position in `next_actions`. */
  index: number;
  /** The call as the server proposed it. */
  proposed: ActionCall;
  /** The call as it will run (or ran): `proposed` with the user's argument edits. */
  call: ActionCall;
  /** True when the user changed `call.args` from `proposed.args`. */
  edited: boolean;
  state: StepState;
  /** The user asked before approval to skip this step. */
  skipRequested: boolean;
  /**
   * The server the step runs on: resolved when the plan is shown (before approval, so the approval covers it), and
   * again when a re-check before the step finds it elsewhere (then the plan waits for a new approval).
   */
  server?: string;
  /** The step's tool was not on the issuing server and resolved on another one. */
  crossServer?: boolean;
  /** SHA-256 of the tool's definition as `server` listed it at resolution (name, description, schemas, annotations, _meta). */
  toolHash?: string;
  /** Why the step's tool resolves on no server (set by resolution; such a plan runs nothing). */
  unresolved?: string;
  /** What the policy decided for the step at resolution (a deny is marked before approval; the door checks again before it runs). */
  policy?: PolicyRecord;
  progress?: StepProgress;
  /** The MCP task the step's call runs as, while it runs (and after a reload, until it is resumed or retried). */
  task?: StepTask;
  /** A short text of the step's result (first text block, truncated). */
  summary?: string;
  error?: string;
  /** The id of the nested plan this step's result produced. */
  childPlanId?: string;
  startedAt?: number;
  endedAt?: number;
  /** When the user granted this step's own confirmation (`confirm: true` steps start only after it). */
  confirmedAt?: number;
  /** How many times the step was started (retries count). */
  attempts: number;
}

export interface PlanRecord {
  id: string;
  origin: PlanOrigin;
  plan: OrchestratedPlan;
  receivedAt: number;
  phase: PlanPhase;
  outcome?: PlanOutcome;
  steps: StepRecord[];
  /** Nested plan: the plan and step whose result this plan was. Depth 0 is a top-level plan. */
  parentId?: string;
  parentStep?: number;
  depth: number;
  /** Lineage: the plan this one replaced (a re-plan after an `ask` form). */
  replacesId?: string;
  replacedById?: string;
  /**
   * Hash of exactly what was approved: the issuing server and tool, the instruction, the globs, and per non-skipped
   * step its server, its tool's definition hash and its arguments (see approval.ts).
   */
  approvalHash?: string;
  /** When each step's server was last resolved (undefined: not yet; approval waits for it). */
  resolvedAt?: number;
  /** Set while a plan that was running waits for a new approval because a step's server or tool definition changed. */
  reapproval?: { step: number; change: string };
  approvedAt?: number;
  /** What the user wrote with the approval, if anything. */
  approvalNote?: string;
  /** Approved without asking (`plangate.autoApprovePlans`): the ids of the user's rules that allowed every step. */
  approvedByPolicy?: string[];
  rejectReason?: string;
  /** Index of the step the plan is blocked on (failed, unknown, or interrupted). */
  blockedStep?: number;
  /** Why the plan is blocked, in words. */
  blockedReason?: string;
  followUpAnswer?: 'yes' | 'no';
  /** The plan (a recovery) that took this not-ok plan's follow-up question with it; see `followUpHolder`. */
  followUpWith?: string;
  finishedAt?: number;
  /** Files put back to the plan's checkpoint (workspace-relative), one record per revert, in order. */
  reverts?: { at: number; files: string[] }[];
}
