/**
 * The one message protocol between the extension and the Plangate panel webview.
 *
 * The extension owns all state and posts snapshots (`state`); the webview renders them and posts intents.
 * Intents that can fail carry an `id` that the extension's `reply` echoes. The webview posts `ready` first;
 * the extension posts nothing before it. Both sides switch exhaustively over these unions.
 */
import type { PlanRecord } from '../core/workflow';
import type { StepHint } from '../core/toolHints';
import type { ToolResult } from '../core/toolResult';
import type { ControlValue, FieldChange, SubmissionRecord } from '../core/submissions';

/** A glob of `safety.touches_files` resolved in the workspace. */
export interface TouchedGlobView {
  glob: string;
  /** Files that match now (capped list; `count` is the full number). */
  files: string[];
  count: number;
  /** The glob reaches outside the workspace (absolute path or `..`). */
  outside: boolean;
  /** Why the count is missing or partial (e.g. no workspace folder, cancelled, capped). */
  note?: string;
}

/** A file a step is predicted to change, before approval. */
export interface PredictedView {
  /** 0-based step index. */
  step: number;
  /** Workspace-relative when `inside`. */
  path: string;
  inside: boolean;
  /** Why the path is flagged (outside the workspace). */
  note?: string;
  change: 'create' | 'modify' | 'delete';
  /** `arguments`: the step carries the full content; `dryRun`: its tool previewed the edit. */
  source: 'arguments' | 'dryRun';
  /** The preview failed (e.g. the edit's text is not in the file): the step would fail the same way. */
  error?: string;
}

/** A file the plan actually changed, from its checkpoint against the disk. */
export interface ChangeView {
  path: string;
  kind: 'created' | 'modified' | 'deleted';
  /** Outside the plan's declared `touches_files`. */
  undeclared: boolean;
  /** A code file changed although the plan declared `writes_code: false`. */
  unexpectedCode: boolean;
  revertable: boolean;
  /** Why it cannot be reverted. */
  note?: string;
}

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

/** A plan as the panel shows it: the record, its nested plans, and what the extension resolved around it. */
export interface PlanView {
  record: PlanRecord;
  /** Nested plans of this plan (any depth), by id. */
  children: Record<string, PlanRecord>;
  /** `safety.touches_files`, resolved; undefined while resolving. */
  touched?: TouchedGlobView[];
  /** Predicted file changes (before approval); undefined while predicting. */
  predicted?: PredictedView[];
  /** Actual file changes (after a run); undefined before the run or while computing. */
  changes?: ChangeView[];
  /** Plans this one replaced, oldest first (lineage of re-plans). */
  lineage: { id: string; title: string }[];
  /** Per plan id (this one and its nested plans), each step's tool hints; null for steps that are no server tool. */
  hints?: Record<string, (StepHint | null)[]>;
  /** Prompts the runner waits on (confirm steps, ask_user steps). */
  pending: PendingPrompt[];
  /** The plan is history (finished) or restored from the ledger: no actions but export. */
  readOnly: boolean;
  /**
   * Per plan id (this one and its nested plans) awaiting approval: the approval hash of exactly what the view shows
   * (servers, tool definitions, arguments). Approve sends it back as `shownHash`.
   */
  approvalHashes?: Record<string, string>;
}

/** A tool's plain result, shown as a result card. */
export interface ResultView {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  result?: ToolResult;
  /** The call failed before a result came back (timeout, connection, cancelled). */
  error?: string;
  durationMs?: number;
  /** The result looked like a plan but is not a valid one: the problems, by JSON path. */
  problems?: { path: string; message: string }[];
}

/** The Call Tool form: generated from the tool's input schema. */
export interface CallFormView {
  server: string;
  tool: string;
  title: string;
  description?: string;
  inputSchema: unknown;
  /** The arguments used last time for this tool, to prefill. */
  lastArgs?: Record<string, unknown>;
  /** The call is in flight. */
  busy?: boolean;
  error?: string;
}

/** A server's `elicitation/create` form request, waiting for the user. */
export interface ElicitView {
  server: string;
  message: string;
  /** A flat object schema of primitive properties (the MCP elicitation subset). */
  requestedSchema: unknown;
}

/** A collect-mode form (mcp-rune) and its submission: the form, the staged review, approval and outcome. */
export interface CollectFormView {
  /** The submission as the ledger holds it (its form, phase, staged entry, approval, outcome). */
  record: SubmissionRecord;
  /** Each field's starting value as its control shows it (staged values, else the form's defaults). */
  initial: Record<string, ControlValue>;
  /** Staged: the entry as the server holds it, field by field (updates: against the current values). */
  changes?: FieldChange[];
  /** The call Submit makes now (undefined when an update changes nothing). */
  submitCall?: { tool: string; args: Record<string, unknown> };
  /** Why Submit is disabled now, in words; undefined when it is enabled. */
  submitBlocker?: string;
  /** The server offers request_approval and check_approval. */
  approvalTools: boolean;
  /** An action in flight. */
  busy?: 'stage' | 'submit' | 'discard' | 'approval';
  /** Approval polling is on: when the next check_approval is due (epoch ms). */
  nextCheckAt?: number;
  /** What went wrong last (stage, approval, submit), in words; cleared by the next action. */
  error?: string;
  /** Problems of the values last read from the form, by field name (`path`). */
  problems?: { path: string; message: string }[];
  /** The server is not running: nothing can be staged or submitted until it is. */
  serverDown?: string;
  /** What the user typed and has not staged or submitted, by field (kept by the extension across window reloads). */
  draft?: Record<string, ControlValue>;
}

/** One thing the panel can show. Exactly one is selected at a time. */
export type PanelItem =
  | { kind: 'plan'; id: string; title: string; view: PlanView }
  | { kind: 'result'; id: string; title: string; view: ResultView }
  | { kind: 'callForm'; id: string; title: string; view: CallFormView }
  | { kind: 'elicit'; id: string; title: string; view: ElicitView }
  | { kind: 'collectForm'; id: string; title: string; view: CollectFormView };

export interface PanelState {
  /** Every open item, newest last; the webview shows a switcher when there is more than one. */
  items: { id: string; kind: PanelItem['kind']; title: string; badge?: string }[];
  /** The item shown. */
  selected?: PanelItem;
}

/** Extension → webview. */
export type ToWebview =
  /** A full snapshot; sent after `ready` and after every change. */
  | { type: 'state'; state: PanelState }
  /** The answer to an intent that carried an `id`. */
  | { type: 'reply'; id: number; ok: boolean; error?: string };

/** Webview → extension. */
export type FromWebview =
  /** The webview has loaded and listens; sent once per load. */
  | { type: 'ready' }
  | { type: 'select'; itemId: string }
  | { type: 'close'; itemId: string }
  /** `note`: what the user wrote with the approval (the same box as a rejection's reason). */
  /** `shownHash`: the plan view's `approvalHash` as displayed; the extension refuses the approval if the plan changed since. */
  | { type: 'approve'; id: number; planId: string; note?: string; shownHash?: string }
  | { type: 'reject'; id: number; planId: string; reason?: string }
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
  /** The plan's `ask` form: call the planning tool again with the original arguments plus these answers. */
  | { type: 'answerAsk'; id: number; planId: string; values: Record<string, string> }
  | { type: 'runRecovery'; id: number; planId: string; index: number }
  | { type: 'followUp'; id: number; planId: string; answer: 'yes' | 'no' }
  | { type: 'exportPlan'; planId: string }
  | { type: 'callTool'; id: number; itemId: string; args: Record<string, unknown> }
  /** Cancel the call a Call Tool form has in flight (the server is told). */
  | { type: 'cancelCall'; itemId: string }
  /** Opens predicted change `index` of the plan as a diff (now ↔ predicted). */
  | { type: 'openPredicted'; planId: string; index: number }
  /** Opens an actual change as a diff (checkpoint ↔ disk). */
  | { type: 'openChange'; planId: string; path: string }
  /** Reverts one file (`path`) or the whole plan, after the user confirms. */
  | { type: 'revert'; id: number; planId: string; path?: string }
  /** The user's answer to an elicitation form; `content` only with `accept`. */
  | { type: 'elicitAnswer'; id: number; itemId: string; action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }
  | { type: 'openFile'; path: string }
  /**
   * A collect form's buttons: `stage` (Stage for review, with the form's `controls`), `submit` (Submit: the staged
   * values in collect mode, the form's `controls` in direct mode), `discard`, `requestApproval`.
   */
  | { type: 'collectForm'; id: number; submissionId: string; action: 'stage' | 'submit' | 'discard' | 'requestApproval'; controls?: Record<string, ControlValue> }
  /** The user changed a collect form's field: the extension keeps the draft (the webview keeps it too, in its state). */
  | { type: 'collectDraft'; submissionId: string; field: string; value: ControlValue };

/** Every intent type, for exhaustiveness checks. */
export type FromWebviewType = FromWebview['type'];
