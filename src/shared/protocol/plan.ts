/** The plan panel protocol, plans: a plan item as the panel shows it (built by core/present/planItem.ts), and its intents. */
import type { ChangeView, PredictedView, TouchedGlobView } from './files';
import type { ResourceLinkView } from './results';

/** Something the runner is waiting for the user to answer, shown in place in the plan. */
export type PendingPrompt =
  | { kind: 'confirm'; planId: string; step: number }
  | { kind: 'askUser'; planId: string; step: number; prompt: string; fields: AskFieldView[] };

export interface AskFieldView {
  name: string;
  type: 'string' | 'number' | 'select';
  required: boolean;
  options?: string[];
}

/** The step's effect as its tool declares it (MCP annotations); `unknown` when the tool gives no hint. */
export type StepEffect = 'read' | 'write' | 'destructive' | 'unknown';

/** What a step's tool says about itself through its MCP annotations: the server's hints, not guarantees. */
export interface StepHint {
  effect: StepEffect;
  /** The tool says it reaches outside systems (`openWorldHint: true`). */
  openWorld: boolean;
  /** The tool says calling it twice does no more than once (`idempotentHint: true`); only for tools that change things. */
  idempotent: boolean;
}

/** A plan's phase (the MCPFlow state machine; `finished`: the plan is history, see its outcome). */
export type PlanPhaseView = 'awaiting_approval' | 'executing' | 'follow_up' | 'blocked' | 'finished';
/** How a finished plan ended. */
export type PlanOutcomeView = 'completed' | 'rejected' | 'stopped' | 'cancelled' | 'not_ok' | 'replaced';
/** A step's state. */
export type StepStateView = 'pending' | 'awaiting_confirm' | 'running' | 'ok' | 'failed' | 'skipped' | 'not_run' | 'unknown';

/** A step's MCP task as the panel shows it: the server's status and message as they come, and the task's id. */
export interface StepTaskView {
  /** The server's task id (untrusted text). */
  id: string;
  /** The status in the panel's words ("working", "waiting for input", …). */
  statusText: string;
  /** The server's status message (untrusted text). */
  message?: string;
  /** What Plangate does about it, in words (e.g. "Cancel stops the task on the server."). */
  note: string;
}

/** One step as the panel shows it. Built by core (core/present/planItem.ts); the webview adds no wording of its own. */
export interface StepView {
  /** 0-based position in the plan. */
  index: number;
  /** The step's label, else its tool. */
  label: string;
  tool: string;
  /** The label is not the tool's name: show the tool beside it. */
  hasLabel: boolean;
  state: StepStateView;
  /** The state in the panel's words ("pending", "awaiting confirmation", …). */
  stateText: string;
  /** Resolved server (undefined: not yet, or a step that is no server tool). */
  server?: string;
  /** The tool is not on the issuing server and runs on `server`. */
  crossServer: boolean;
  /** Why no server offers the tool. */
  unresolved?: string;
  /** The tool's hints; undefined without hints, or for a step that is no server tool. */
  hint?: StepHint;
  /** The step asks the user to confirm before it runs. */
  confirm: boolean;
  /** An `ask_user` step: answered in the panel, never sent to a server. */
  asksUser: boolean;
  /** The user changed the arguments. */
  edited: boolean;
  /** The user asked to skip it before approval. */
  skipRequested: boolean;
  progress?: { progress: number; total?: number; message?: string };
  /** The MCP task the step's call runs as (core/present/planItem.ts): shown while it runs, or while its outcome is unknown. */
  task?: StepTaskView;
  error?: string;
  /** The result's text, when the step is ok. */
  summary?: string;
  /** The `resource_link`s of the step's result (while the window holds it): each offers Open (`openResource`). */
  links?: ResourceLinkView[];
  /** The arguments it runs (or ran) with: sent once. */
  args: Record<string, unknown>;
  /** What the server proposed: only when the user edited the arguments (for the diff and Restore proposed). */
  proposedArgs?: Record<string, unknown>;
  /** What the runner waits for the user to answer at this step. */
  prompt?: PendingPrompt;
  /** The nested plan this step's result produced (in the item's `plans`). */
  childPlanId?: string;
  /** The policy's verdict on the step, when a rule (not Plangate's default allow) decided it; a `deny` cannot run. */
  policy?: PolicyMarkView;
  /**
   * The `ui://` page of the step's tool (a server app), for a step that succeeded: the panel offers to open the app
   * with the step's result (`openStepApp`). No frame exists until the user opens it.
   */
  app?: string;
  /**
   * The step's tool as its server listed it when the step was resolved (the definition an approval covers): its title
   * and the first line of its description; the whole definition is the plan's `tools[definition.hash]`. Server text,
   * untrusted. Absent for `ask_user` steps and when the definition is not known (a plan restored from the ledger).
   */
  definition?: ToolSummaryView;
  /**
   * The step's server or its tool's definition changed while the plan waited for approval: Approve is refused until the
   * user accepted the change (`acceptChange`).
   */
  reviewChange?: StepChangeView;
}

/** A step's tool in one line, as its server listed it. */
export interface ToolSummaryView {
  /** The definition hash: the key of the whole definition in the plan's `tools`. */
  hash: string;
  /** The tool's `title` (else `annotations.title`), when it gives one. */
  title?: string;
  /** The first non-blank line of the description ('' when it has none). */
  summary: string;
}

/** A tool as its server listed it (`tools/list`), whole. Every field is server text. */
export interface ToolDefinitionView {
  /** The whole description. */
  description: string;
  /** The input schema as indented JSON ('' when it has none). */
  inputSchema: string;
  /** The whole definition as listed (annotations, output schema, `_meta` …), as indented JSON. */
  json: string;
}

/** What changed at a step while its plan waited for approval. */
export interface StepChangeView {
  /** In words, naming the tool and the servers: "server 'fx' changed the description and input schema of tool 'echo'". */
  text: string;
  /** What differs: `server`, `availability`, `description`, `input schema`, `annotations`, … */
  parts: string[];
  /** The server and definition the user saw against those now, line by line; empty when the earlier ones are not known. */
  diff: DiffLineView[];
}

/** One line of a line diff. */
export interface DiffLineView {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** The policy's verdict as a plan step or a card shows it: the decision, the deciding rule and its reason, in words. */
export interface PolicyMarkView {
  decision: 'allow' | 'ask' | 'deny';
  ruleId: string;
  /** "Denied by your rule 'no-rm': …", "Asked because: …" (built by core). */
  text: string;
}

/** An issue of the envelope (`errors`, `warnings`) as the server wrote it. */
export interface IssueView {
  code?: string;
  message: string;
  field?: string;
  hint?: string;
  recoverable?: boolean;
}

/** The decision area under a plan: what the user can do now. */
export type PlanActionsView =
  /** `resolving`: each step's server is not known yet (Approve waits). `shownHash`: the approval hash of what is shown. */
  | { kind: 'approve'; resolving: boolean; shownHash?: string }
  /** `progress`: "Running step k of n" or "k of n done". */
  | { kind: 'running'; progress: string }
  | { kind: 'blocked'; reason: string }
  /** `lead`: said before the question (absent: all steps are done; a partial plan's says part of the work is). */
  | { kind: 'followUp'; question: string; lead?: string }
  /** `outcome`: the sentence saying how it ended ("" when there is none); `exportable`: a top-level plan. */
  | { kind: 'finished'; outcome: string; exportable: boolean };

/** A plan as the panel shows it, without its steps: everything but the steps changes rarely and is sent whole. */
export interface PlanHeadView {
  id: string;
  /** The definitions of the steps' tools as listed, by definition hash (see `StepView.definition`); once per tool. */
  tools?: Record<string, ToolDefinitionView>;
  /** 0: the top-level plan; nested plans are shown inside the step that produced them. */
  depth: number;
  phase: PlanPhaseView;
  outcome?: PlanOutcomeView;
  /** The phase (or the outcome, when finished) in words: "Awaiting approval", "Rejected", … */
  phaseLabel: string;
  /** The envelope's `status` as the server sent it, and in words ("server said: ok"). */
  serverStatus: string;
  serverStatusLabel: string;
  origin: { server: string; tool: string };
  instruction: string;
  /** Plans this one replaced, oldest first (re-plans); top-level plan only. */
  lineage: { id: string; title: string }[];
  /** Step k was not sent and the plan waits for a new approval, in words. */
  reapproval?: string;
  approvalNote?: string;
  /** The Safety card (top-level plans with status ok or a safety section). */
  safety?: {
    writesCode?: boolean;
    globs: string[];
    /** The steps' tool hints summed up ("1 destructive · 2 read-only"); "" when there is nothing to say. */
    hintSummary: string;
    destructive: boolean;
    /** `touches_files`, resolved; undefined while resolving. */
    touched?: TouchedGlobView[];
  };
  /** Predicted file changes, shown while awaiting approval (top-level); undefined while predicting. */
  predicting: boolean;
  predicted?: PredictedView[];
  /** Actual file changes after a run (top-level); undefined before the run or while computing. */
  changes?: ChangeView[];
  /** Some files were put back (a revert happened). */
  reverted: boolean;
  warnings: IssueView[];
  /** A plan whose status is not ok: what the server said instead. */
  notOk?: {
    errors: IssueView[];
    missing: string[];
    partialResults: { step: string; outcome: string; detail?: string }[];
    /**
     * The `ask` form; `answerable`: answering re-plans now. `call`: the planning call the answer makes — its server,
     * tool and first arguments; the form shows them with the answers merged in (shared/askCall.ts) above its button.
     */
    ask?: {
      prompt: string;
      fields: AskFieldView[];
      answerable: boolean;
      call: { server: string; tool: string; args: Record<string, unknown> };
    };
    recovery: { label: string; tool: string; argsText: string; confirm: boolean }[];
    recoveryDisabled: boolean;
  };
  actions: PlanActionsView;
  /** History or restored: nothing to decide, export only. */
  readOnly: boolean;
  /**
   * Before approval: its steps can be marked Skip and their arguments edited. A plan-wide flag, not one per step, so
   * approving a 1,000-step plan changes its head, not 1,000 step views.
   */
  editable: boolean;
  correlationId?: string;
  stepCount: number;
}

/** A plan with its steps. */
export interface PlanView extends PlanHeadView {
  steps: StepView[];
}

/** A plan item: the top-level plan and its nested plans (any depth), each by id. */
export interface PlanItemView {
  rootId: string;
  plans: Record<string, PlanView>;
}

/** Webview → extension: a plan's buttons (answered by the plan feature, src/ui/panel/planFeature.ts). */
export type PlanIntent =
  /** `note`: what the user wrote with the approval (the same box as a rejection's reason). */
  /** `shownHash`: the plan view's `approvalHash` as displayed; the extension refuses the approval if the plan changed since. */
  | { type: 'approve'; id: number; planId: string; note?: string; shownHash?: string }
  | { type: 'reject'; id: number; planId: string; reason?: string }
  /**
   * The user looked at what changed at `step` while the plan waited and accepts it (the step's change mark). `shownHash`:
   * the plan view's approval hash as displayed; refused when the plan changed again since.
   */
  | { type: 'acceptChange'; id: number; planId: string; step: number; shownHash: string }
  /** New arguments for a step, as JSON text typed by the user; validated against the tool's input schema. */
  | { type: 'editArgs'; id: number; planId: string; step: number; argsJson: string }
  | { type: 'resetArgs'; id: number; planId: string; step: number }
  | { type: 'skip'; id: number; planId: string; step: number; skip: boolean }
  | { type: 'cancel'; id: number; planId: string }
  | { type: 'retryStep'; id: number; planId: string }
  | { type: 'skipStep'; id: number; planId: string }
  | { type: 'stop'; id: number; planId: string }
  | { type: 'confirmStep'; id: number; planId: string; step: number; granted: boolean }
  | { type: 'answerAskUser'; id: number; planId: string; step: number; values?: Record<string, string> }
  /**
   * The plan's `ask` form: call the planning tool again with the original arguments plus these answers. `shown`: the
   * arguments the form showed above its button; the extension refuses (sends nothing) when they are not what it sends.
   */
  | { type: 'answerAsk'; id: number; planId: string; values: Record<string, string>; shown: Record<string, unknown> }
  | { type: 'runRecovery'; id: number; planId: string; index: number }
  | { type: 'followUp'; id: number; planId: string; answer: 'yes' | 'no' }
  | { type: 'exportPlan'; planId: string };

/**
 * What each of these requests (the intents above that carry an `id`) is answered with when it was done, as vscode-eslint's
 * `RequestType<P, R>` names its result (panel.ts `ReplyOf`). `void`: the reply says only that it was done (what changed
 * comes in the next update). A request that was not done is refused with why, in words (panel.ts `Refusal`).
 */
export interface PlanReplies {
  approve: void;
  reject: void;
  acceptChange: void;
  editArgs: void;
  resetArgs: void;
  skip: void;
  cancel: void;
  retryStep: void;
  skipStep: void;
  stop: void;
  confirmStep: void;
  answerAskUser: void;
  answerAsk: void;
  runRecovery: void;
  followUp: void;
}
