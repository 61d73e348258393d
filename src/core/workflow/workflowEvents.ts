/**
 * The workflow's vocabulary: every event the reducer (workflow.ts) takes and the ledger stores, the records they carry,
 * the state they build, and the one typed table of event types. Types and constants only, no reduction.
 */
import type { CallEntrance } from '../base/entrance';
import type { SamplingSummary } from '../base/samplingRequest';
import type { OrchestratedPlan, PlanOrigin, PlanRecord, PolicyRecord, StepProgress, TaskStatus } from '../plan/plan';
import { SUBMISSION_EVENT_TYPES, type SubmissionEvent, type Submissions } from '../forms/submissions';

/** Where a step runs, as resolution found it: on a server (with its tool's definition hash), locally, or nowhere. */
export type StepResolutionRecord = { server: string; crossServer: boolean; toolHash?: string; policy?: PolicyRecord } | { missing: string };

/**
 * The ledger's record of one request that left Plangate: a tool call (see door.ts), its task's progress, or a read of
 * a linked resource (engine/linkedResource.ts). Kept in the ledger, never part of a plan's state.
 */
export type CallRecordEvent = Extract<WorkflowEvent, { type: 'callSent' | 'callEnded' | 'callTask' | 'resourceRead' }>;

/** Every event that changes plans or submissions: what listeners of the workflow hear about. */
export type StateEvent = Exclude<WorkflowEvent, CallRecordEvent>;

/** True for the ledger's call records (they change no state). */
export function isCallRecord(event: WorkflowEvent): event is CallRecordEvent {
  return event.type === 'callSent' || event.type === 'callEnded' || event.type === 'callTask' || event.type === 'resourceRead';
}

/** Which path a tool call left Plangate by (core/base/entrance.ts). */
export type { CallEntrance };

/**
 * The decision that covers a call, as the door checked it. `approval`: an approved plan's step (server, tool
 * definition and arguments as approved); `preview`: a dry run of a step of a plan awaiting approval, on its resolved
 * server; `user`: the user pressed a button that showed exactly this call (Call Tool's **Call**, **Submit**, an ask
 * form's answer), `what` names it; `agent`: the chat agent's call through a gated server, which VS Code confirmed
 * under its own rules.
 */
export type CallDecision =
  | { by: 'approval'; planId: string; step: number; approvalHash: string }
  /**
   * A step's dry-run preview before approval. Without `pressed`: sent by itself, only when the policy allows the call
   * outright; `pressed`: the user pressed the step's Preview (an ask goes to the single-call card).
   */
  | { by: 'preview'; planId: string; step: number; pressed?: true }
  | { by: 'user'; what: string }
  | { by: 'agent'; what: string }
  | { by: 'app'; what: string };

/**
 * The policy's part in a call, as the ledger keeps it: its decision and deciding rule; for an `ask`, what covered it —
 * the plan's approval, the button that showed the call, or the single-call card's answer (`once`, `always` with the rule
 * it wrote, `deny` with the user's note, `cancelled` when the caller gave up waiting).
 */
export interface CallPolicyRecord extends PolicyRecord {
  coveredBy?: 'plan' | 'button' | 'card';
  answer?: 'once' | 'session' | 'workspace' | 'always' | 'deny' | 'cancelled';
  /** The rule Always allow wrote to the user's settings. */
  alwaysRule?: string;
  /** The standing approval (session or workspace length) the answer made, or that now covers a call that waited. */
  approvalRule?: string;
  note?: string;
  /** The decision hooks asked about the call, in order, with their answers (see core/policy/decisionHook.ts). */
  hooks?: HookRecord[];
}

/** What one decision hook answered about a call. `failure`: why it counts as `ask` (it did not answer). */
export interface HookRecord {
  name: string;
  /** The user rule that named it. */
  rule: string;
  answer: 'allow' | 'ask' | 'deny';
  reason?: string;
  failure?: string;
  durationMs: number;
}

/** A result a rule asked to review: passed on to the caller or withheld, and by whom (`nobody`: unanswered, withheld). */
export interface ResultReviewRecord {
  rule: string;
  answer: 'passed' | 'withheld';
  by: 'user' | 'nobody';
}

/** How a call ended: `ok`, `tool_error` (an in-band `isError` result), `failed` (timeout, cancel, connection), `refused` (by the door: never sent). */
export type CallOutcomeKind = 'ok' | 'tool_error' | 'failed' | 'refused';

export interface WorkflowState {
  plans: Readonly<Record<string, PlanRecord>>;
  /** Plan ids in the order they were received. */
  order: readonly string[];
  /** Collect-mode submissions by id (see submissions.ts, which reduces their events). */
  submissions: Submissions;
}

export type WorkflowEvent =
  | {
      type: 'planReceived';
      at: number;
      planId: string;
      origin: PlanOrigin;
      plan: OrchestratedPlan;
      parentId?: string;
      parentStep?: number;
      replacesId?: string;
      /**
       * The not-ok plan whose follow-up question this plan carries (a recovery action's plan): the question goes with
       * it, so that it is asked in one place — not in both plans at once.
       */
      followUpOf?: string;
    }
  | { type: 'argsEdited'; at: number; planId: string; step: number; args: Record<string, unknown> }
  | { type: 'skipMarked'; at: number; planId: string; step: number; skip: boolean }
  /** `note`: what the user wrote with the approval (instructions, caveats), for the record and the agent. */
  /** `byPolicy`: nobody pressed Approve; `plangate.autoApprovePlans` let the user's rules (their ids) approve it. */
  | { type: 'approved'; at: number; planId: string; approvalHash: string; note?: string; byPolicy?: string[] }
  | { type: 'rejected'; at: number; planId: string; reason?: string }
  | { type: 'confirmRequested'; at: number; planId: string; step: number }
  | { type: 'confirmAnswered'; at: number; planId: string; step: number; granted: boolean }
  | { type: 'resolved'; at: number; planId: string; steps: StepResolutionRecord[] }
  | { type: 'stepDrifted'; at: number; planId: string; step: number; resolution: StepResolutionRecord; change: string }
  /**
   * `args` and `argsHash` (SHA-256 of their canonical JSON): the call's own arguments. Absent for an approved plan step,
   * whose arguments are the plan's, pinned by `planId`, `step` and the decision's approval hash.
   */
  | {
      type: 'callSent';
      at: number;
      callId: string;
      server: string;
      tool: string;
      entrance: CallEntrance;
      decision: CallDecision;
      argsHash?: string;
      args?: Record<string, unknown>;
      planId?: string;
      step?: number;
      /** The policy's decision on the call, with the deciding rule; `answer`: what the user chose on the single-call card. */
      policy?: CallPolicyRecord;
    }
  | {
      type: 'callEnded';
      at: number;
      callId: string;
      outcome: CallOutcomeKind;
      detail?: string;
      durationMs: number;
      /** The result was reviewed before its caller read it (a rule's `review: "result"`). */
      review?: ResultReviewRecord;
    }
  /**
   * The user opened a `resource_link` of `server`'s result: `resources/read` of `uri` is sent to that server. Recorded
   * before it is sent (a read is no tool call: no decision covers it beyond the user's click, and it changes no state).
   * `callId`: the read's own id (the ledger's compaction drops it with the rest of settled history).
   */
  | { type: 'resourceRead'; at: number; callId: string; server: string; uri: string }
  /**
   * The server runs call `callId` (not a plan step's) as an MCP task (`tools/call` answered with a task), or reported a
   * new status of it: recorded by the door when the task is created and whenever its status or message changes.
   */
  | { type: 'callTask'; at: number; callId: string; server: string; taskId: string; status: TaskStatus; message?: string }
  /**
   * The same for the call of a plan step: the step keeps the task, so that after a reload it resumes watching it
   * rather than coming back as "outcome unknown".
   */
  | {
      type: 'stepTask';
      at: number;
      planId: string;
      step: number;
      callId: string;
      server: string;
      taskId: string;
      status: TaskStatus;
      message?: string;
    }
  /**
   * After a reload, the server still knows the task of the step the plan is blocked on (its outcome was unknown): the
   * step runs again, watched rather than sent (`tasks/get`, then `tasks/result`); nothing is sent twice.
   */
  | { type: 'taskResumed'; at: number; planId: string; step: number }
  | { type: 'stepStarted'; at: number; planId: string; step: number; server: string; crossServer: boolean }
  | { type: 'stepProgress'; at: number; planId: string; step: number; progress: StepProgress }
  | { type: 'stepSucceeded'; at: number; planId: string; step: number; summary: string; childPlanId?: string }
  | { type: 'stepFailed'; at: number; planId: string; step: number; error: string }
  | { type: 'stepSkipped'; at: number; planId: string; step: number }
  | { type: 'retryRequested'; at: number; planId: string; step: number }
  | { type: 'stopped'; at: number; planId: string }
  | { type: 'cancelled'; at: number; planId: string; reason?: string }
  | { type: 'followUpAnswered'; at: number; planId: string; answer: 'yes' | 'no' }
  /** Files of an approved plan were put back to its checkpoint (restored, or removed when the plan created them). */
  | { type: 'reverted'; at: number; planId: string; files: string[] }
  | { type: 'restored'; at: number }
  /** A server's sampling request, answered or refused (see {@link SamplingRecord}): on the record, in no plan's state. */
  | SamplingRecord
  /** Collect-mode submissions: formReceived, formStaged, formSubmitted, formDiscarded, approvalRequested, approvalChecked. */
  | SubmissionEvent;

/**
 * The ledger's record of one `sampling/createMessage` request: which server asked, during which tool call, what it
 * asked (a summary: counts and the beginning of its text, never its images), the policy's part, who decided, and
 * what went back: the answer (`sent`, its beginning; `edited` when the user changed the model's words) or a refusal
 * (`declined` by the user, `refused` without asking: by a deny rule, past the limits, or with nobody to ask).
 */
export interface SamplingRecord {
  type: 'samplingDecided';
  at: number;
  samplingId: string;
  server: string;
  /** The tool call(s) in flight on that server when it asked. */
  calls?: string[];
  request: SamplingSummary;
  policy?: PolicyRecord;
  /** Who decided: the user (in the panel or on the terminal), a policy rule, or Plangate itself (limits, nobody to ask). */
  by: 'user' | 'policy' | 'plangate';
  outcome: 'sent' | 'declined' | 'refused';
  reason?: string;
  model?: string;
  answer?: string;
  answerChars?: number;
  edited?: boolean;
}

export const EMPTY_WORKFLOW: WorkflowState = { plans: {}, order: [], submissions: {} };

/** The deepest nesting allowed: a top-level plan has depth 0, a plan produced by one of its steps depth 1, … */
export const MAX_PLAN_DEPTH = 5;

/** The error a step gets when it was running while Plangate stopped (window reload, crash). */
export const INTERRUPTED_STEP_ERROR = 'outcome unknown: it was running when Plangate stopped';

/** What the rest of the model may assume of one event type. */
export interface EventTraits {
  /**
   * The event touches only the plans, submission or call it names (`restored` excepted, which touches only
   * unfinished plans): the ledger's replay sets finished plans aside only while every event in the history is so.
   */
  readonly planLocal: boolean;
}

const SUBMISSION_TRAITS: EventTraits = { planLocal: true };

/**
 * The one table of event types: every {@link WorkflowEvent} type with its traits, checked by the compiler both ways (a
 * type missing from the table, or a name in it that is no event, does not compile). The lists other modules need
 * are read from it.
 */
export const WORKFLOW_EVENTS = {
  resolved: { planLocal: true },
  stepDrifted: { planLocal: true },
  callSent: { planLocal: true },
  callEnded: { planLocal: true },
  resourceRead: { planLocal: true },
  callTask: { planLocal: true },
  stepTask: { planLocal: true },
  taskResumed: { planLocal: true },
  planReceived: { planLocal: true },
  argsEdited: { planLocal: true },
  skipMarked: { planLocal: true },
  approved: { planLocal: true },
  rejected: { planLocal: true },
  confirmRequested: { planLocal: true },
  confirmAnswered: { planLocal: true },
  stepStarted: { planLocal: true },
  stepProgress: { planLocal: true },
  stepSucceeded: { planLocal: true },
  stepFailed: { planLocal: true },
  stepSkipped: { planLocal: true },
  retryRequested: { planLocal: true },
  stopped: { planLocal: true },
  cancelled: { planLocal: true },
  followUpAnswered: { planLocal: true },
  reverted: { planLocal: true },
  restored: { planLocal: true },
  samplingDecided: { planLocal: true },
  ...(Object.fromEntries(SUBMISSION_EVENT_TYPES.map((t) => [t, SUBMISSION_TRAITS])) as Record<SubmissionEvent['type'], EventTraits>),
} as const satisfies Record<WorkflowEvent['type'], EventTraits>;

/** Every event type, for validating stored events. */
export const WORKFLOW_EVENT_TYPES = Object.keys(WORKFLOW_EVENTS) as readonly WorkflowEvent['type'][];
