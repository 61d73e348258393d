/**
 * The one message protocol between the extension and the Plangate panel webview.
 *
 * A leaf: it imports nothing from the rest of `src/` but its sibling `forms.ts`. The extension owns all state and
 * sends view models that core builds (core/present): the webview renders what it is sent, never a reducer record.
 * The webview posts `ready` first; the extension answers with one snapshot (`state`), then patches (`patch`) that the
 * webview applies to its copy (shared/panelPatch.ts). Intents that can fail carry an `id` that the extension's `reply`
 * echoes. Both sides switch exhaustively over these unions.
 */
import type { CollectFormSchemaView, ControlValue, FieldChange } from './forms';

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
  /**
   * The step's dry run waits for the user: the policy asks about it (or it runs on another server), so it is sent only
   * when the user presses **Preview** (`previewStep`; the single-call card asks where the policy asks). `error` says why.
   */
  press?: boolean;
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

/** One step as the panel shows it. Built by core (core/present/planItem.ts); the webview adds no wording of its own. */
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

/** A `resource_link` of a result, checked (core/base/resourceLink.ts): `server` is the one whose result named it. */
export interface ResourceLinkView {
  server: string;
  uri: string;
  name: string;
  mimeType?: string;
}

/** A tool's plain result, shown as a result card. */
export interface ResultView {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  /** The MCP `CallToolResult` as the server sent it (untrusted). */
  result?: { content?: unknown[]; structuredContent?: unknown; isError?: boolean };
  /** The call failed before a result came back (timeout, connection, cancelled). */
  error?: string;
  durationMs?: number;
  /** The result looked like a plan but is not a valid one: the problems, by JSON path. */
  problems?: { path: string; message: string }[];
  /** The server's app shows this result (below the card). */
  app?: AppSlotView;
  /** Why the server's app is not shown (its page failed to load, has the wrong type, or is too large). */
  appNote?: string;
  /**
   * The collect-mode submission this app is the form of (a form app): the panel says the server's app is shown and
   * offers Plangate's own form instead (`switchForm`).
   */
  formOf?: string;
  /**
   * The server's app (this `ui://` page) showed this result before the window reloaded and is not running now: the
   * panel offers Reopen app (`reopenApp`). Plangate reopens it by itself once its server lists the tool again.
   */
  reopen?: string;
  /** The server's app asks to reach network origins, or declared some Plangate refuses: the notice (appNetwork). */
  network?: AppNetworkView;
}

/**
 * A server app's network notice, built by the app host (src/ui/appHost.ts) from the page's `_meta.ui.csp` and the
 * user's grants. The webview asks with **Allow** / **Keep blocked** while `asking` is not empty and not `kept`.
 */
export interface AppNetworkView {
  server: string;
  /** Declared origins not granted to this server yet (checked: plain origins only). */
  asking: string[];
  /** Declared origins granted to this server: the app may reach them. */
  allowed: string[];
  /** The user pressed Keep blocked for this app: `asking` stays blocked, not asked again while it is open. */
  kept?: boolean;
  /** What the page declared and Plangate refuses, each with why (invalid origins, frames, base URIs, permissions). */
  refused: { value: string; why: string }[];
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
  /** The submission: its form, phase, staged entry, approval and outcome (built by core/present/collectView.ts). */
  record: CollectFormSchemaView;
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
  /** The `ui://` page of the form tool's own app, when the user may switch to it (`switchForm`); absent otherwise. */
  serverApp?: string;
}

/**
 * A single call the policy asks about, waiting for the user's decision (any entrance: the agent's call, an app's, a
 * Call Tool call under a rule that asks). Built by core/present/callCard.ts.
 */
export interface CallCardView {
  server: string;
  tool: string;
  /** Who is calling, in words: "The chat agent", "An MCP App of server 'x'", "Call Tool". */
  caller: string;
  args: Record<string, unknown>;
  /** The tool's hints (annotations, the server's claims). */
  hint?: StepHint;
  /** "Asked because: …" with the deciding rule's reason, and the rule's id and source in words. */
  because: string;
  ruleId: string;
  ruleSource: string;
  /** Always allow would change the decision next time (only for Plangate's default ask). */
  canAlwaysAllow: boolean;
  /** The rule Always allow writes to the user's settings, as JSON text. */
  alwaysRuleText?: string;
  /**
   * The rule each allow longer than once writes (JSON text): `session` (kept in memory until the window closes),
   * `workspace` (kept in this workspace's state), `always` (the user's settings). Absent: only Allow once (`onlyOnce`).
   */
  allowRules?: Partial<Record<'session' | 'workspace' | 'always', string>>;
  /** Why only Allow once is offered (the tool's own `_meta.approval: "ask"`, a rule that asks), in words. */
  onlyOnce?: string;
  /** How many calls of this caller to this tool wait behind this card, this one included (absent: one). */
  waiting?: number;
  /** A workspace rule would have allowed this and was not honoured (it would loosen the user's policy), in words. */
  notHonoured?: string;
}

/** One piece of a sampling request's message, as the panel shows it (built by core/present/samplingItem.ts). */
export type SamplingPartView =
  | { type: 'text'; text: string }
  /** An image whose bytes were checked to be `mimeType` (PNG, JPEG, GIF, WebP): shown from its data, never a URL. */
  | { type: 'image'; mimeType: string; data: string; bytes: number }
  /** Content not shown (and not sent): what it is and why. */
  | { type: 'unshown'; what: string; problem: string };

/**
 * A server's `sampling/createMessage` request (it asks for a language model's answer), waiting for the user: first the
 * request (`stage: 'request'`: Approve with a model, or Decline), then the model's answer (`stage: 'answer'`: Send as
 * shown or edited, or Decline). Server text is raw here; the webview marks invisible characters.
 */
export interface SamplingView {
  server: string;
  /** The tool call(s) in flight on that server when it asked. */
  calls: string[];
  stage: 'request' | 'answer';
  systemPrompt?: string;
  messages: { role: 'user' | 'assistant'; parts: SamplingPartView[] }[];
  maxTokens: number;
  /** What the server asked for when Plangate uses another limit. */
  maxTokensAsked?: string;
  temperature?: number;
  stopSequences: string[];
  modelHints: string[];
  /** The server's priorities in words ("cost 0.3 · speed 0.8"), if any. */
  priorities?: string;
  /** What Plangate does differently from what the server asked. */
  notes: string[];
  /** Why the user is asked: the policy's deciding rule in words. */
  because: string;
  /** The models the user may choose from (the first is preselected); empty: none is available. */
  models: { id: string; name: string }[];
  /** Stage `request`, after Approve: the model is working. */
  busy?: boolean;
  /** Stage `answer`: the model's answer, and which model gave it. */
  answer?: { text: string; model: string };
  /** Stage `answer`: why there is no answer (only Decline is offered). */
  problem?: string;
}

/**
 * A call's result a policy rule asks the user to review before its caller reads it (`review: "result"`): the content
 * as the server sent it (untrusted), **Pass on** or **Withhold**. Built by core/present/resultCard.ts.
 */
export interface ResultCardView {
  server: string;
  tool: string;
  /** Who called and reads the result, in words: "The chat agent", "A plan step", … */
  caller: string;
  /** "Reviewed because: …" with the rule's reason, id and source in words. */
  because: string;
  ruleId: string;
  /** The MCP `CallToolResult` as the server sent it (untrusted): text, images, resources. */
  result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean };
}

/** One thing the panel can show. Exactly one is selected at a time. */
export type PanelItem =
  | { kind: 'plan'; id: string; title: string; view: PlanItemView }
  | { kind: 'result'; id: string; title: string; view: ResultView }
  | { kind: 'callForm'; id: string; title: string; view: CallFormView }
  | { kind: 'elicit'; id: string; title: string; view: ElicitView }
  | { kind: 'collectForm'; id: string; title: string; view: CollectFormView }
  | { kind: 'callCard'; id: string; title: string; view: CallCardView }
  | { kind: 'sampling'; id: string; title: string; view: SamplingView }
  | { kind: 'resultCard'; id: string; title: string; view: ResultCardView };

export interface PanelState {
  /** Every open item, newest last; the webview shows a switcher when there is more than one. */
  items: PanelItemSummary[];
  /** The item shown. */
  selected?: PanelItem;
}

/** An open item in the switcher. */
export interface PanelItemSummary {
  id: string;
  kind: PanelItem['kind'];
  title: string;
  /** Its state in a word or two ("awaiting approval", "rejected", …). */
  badge?: string;
}

/**
 * What changed since the previous update: only what is present changed. Built by core/present/panelDiff.ts,
 * applied by shared/panelPatch.ts.
 */
export interface PanelPatch {
  /** The switcher's list, whole. */
  items?: PanelItemSummary[];
  /** The item shown, whole (another item is selected, or an item that is no plan changed); `null`: none. */
  selected?: PanelItem | null;
  /** The selected plan item changed in parts (never together with `selected`). */
  plan?: {
    /** The item it applies to: a patch for another item is not applied (the webview asks for a snapshot). */
    itemId: string;
    title?: string;
    /** Plans whose head changed (their steps did not, unless listed in `steps`). */
    heads?: PlanHeadView[];
    /** Nested plans that appeared, whole. */
    added?: PlanView[];
    /** Nested plans no longer shown. */
    removed?: string[];
    /** Steps that changed, whole. */
    steps?: { planId: string; index: number; view: StepView }[];
  };
}

/** Extension → webview. */
export type ToWebview =
  /**
   * A full snapshot: sent after `ready` and after `resync`. `seq` numbers the updates of this webview load: each
   * update is one more than the last.
   */
  | { type: 'state'; seq: number; state: PanelState }
  /** Changes to the state of update `seq - 1`; a webview that holds another `seq` asks for a snapshot (`resync`). */
  | { type: 'patch'; seq: number; patch: PanelPatch }
  /** The answer to an intent that carried an `id`. */
  | { type: 'reply'; id: number; ok: boolean; error?: string }
  | AppToWebview;

/**
 * Extension → webview, for server apps (MCP Apps). The webview keeps each app's sandboxed iframe apart from the
 * rendered items (re-rendering never reloads an app) and only relays JSON-RPC between the iframe and the extension,
 * where the app's requests are checked (src/ui/appHost.ts).
 */
export type AppToWebview =
  /**
   * Create app `appId`'s iframe from `html` (already carrying its policy and the panel's app nonce). `title` names the
   * frame for screen readers. Sent again after the webview reloads (the app starts afresh).
   */
  | { type: 'appMount'; appId: string; html: string; title: string }
  /** A JSON-RPC message from the host to the app, posted into its iframe as is. */
  | { type: 'appPost'; appId: string; message: unknown }
  /** Remove app `appId`'s iframe (after its teardown request was answered, or timed out). */
  | { type: 'appUnmount'; appId: string };

/** Where a result card shows a server's app (`ResultView.app`). */
export interface AppSlotView {
  appId: string;
  /** The `ui://` page shown. */
  uri: string;
}

/** Webview → extension. */
export type FromWebview =
  /** The webview has loaded and listens; sent once per load. The extension answers with a snapshot. */
  | { type: 'ready' }
  /**
   * The webview applied update `seq` (and will render it in the next frame). Until it does, the extension holds the
   * next update (for at most a quarter of a second) and lets changes coalesce into it, so a burst of changes never
   * queues more than one update in the extension.
   */
  | { type: 'applied'; seq: number }
  /** The webview holds no state a patch applies to (a patch out of order): the extension sends a snapshot. */
  | { type: 'resync' }
  | { type: 'select'; itemId: string }
  | { type: 'close'; itemId: string }
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
  | { type: 'exportPlan'; planId: string }
  | { type: 'callTool'; id: number; itemId: string; args: Record<string, unknown> }
  /** Cancel the call a Call Tool form has in flight (the server is told). */
  | { type: 'cancelCall'; itemId: string }
  /** The user pressed a step's **Preview** (its `PredictedView.press`): send its dry run through the door. */
  | { type: 'previewStep'; id: number; planId: string; step: number }
  /** Opens predicted change `index` of the plan as a diff (now ↔ predicted). */
  | { type: 'openPredicted'; planId: string; index: number }
  /** Opens an actual change as a diff (checkpoint ↔ disk). */
  | { type: 'openChange'; planId: string; path: string }
  /** Reverts one file (`path`) or the whole plan, after the user confirms. */
  | { type: 'revert'; id: number; planId: string; path?: string }
  /** The user's answer to an elicitation form; `content` only with `accept`. */
  | { type: 'elicitAnswer'; id: number; itemId: string; action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }
  /**
   * A sampling request's buttons: `approve` (with the chosen `modelId`) or `decline` the request; then `send` the
   * answer (`text`: as shown or edited) or `decline` it.
   */
  | { type: 'samplingAnswer'; id: number; itemId: string; action: 'approve' | 'decline' | 'send'; modelId?: string; text?: string }
  | { type: 'openFile'; path: string }
  /**
   * Open the resource a `resource_link` of `server`'s result names (`resources/read` on that server, on the record) in
   * a read-only editor tab. The reply's error says why it could not be shown.
   */
  | { type: 'openResource'; id: number; server: string; uri: string; name?: string }
  /**
   * A collect form's buttons: `stage` (Stage for review, with the form's `controls`), `submit` (Submit: the staged
   * values in collect mode, the form's `controls` in direct mode), `discard`, `requestApproval`.
   */
  | {
      type: 'collectForm';
      id: number;
      submissionId: string;
      action: 'stage' | 'submit' | 'discard' | 'requestApproval';
      controls?: Record<string, ControlValue>;
    }
  /**
   * The user's answer on a single-call card: Allow once, Always allow (writes the narrowest allow rule to the user's
   * settings), or Deny with an optional note that reaches the caller.
   */
  | {
      type: 'callCardAnswer';
      id: number;
      itemId: string;
      answer: 'once' | 'session' | 'workspace' | 'always' | 'deny';
      note?: string;
      /** With `deny`: refuse every call waiting behind the card, not only the one shown. */
      all?: boolean;
    }
  /** The user's answer on a result card: pass the result on to its caller, or withhold it (the caller gets a refusal). */
  | { type: 'resultCardAnswer'; id: number; itemId: string; answer: 'pass' | 'withhold' }
  /** The user changed a collect form's field: the extension keeps the draft (the webview keeps it too, in its state). */
  | { type: 'collectDraft'; submissionId: string; field: string; value: ControlValue }
  /**
   * Switch a collect-mode form between Plangate's form (`native`) and the server's form app (`app`) in place (item
   * `itemId`). The submission is the same either way: what was staged stays staged.
   */
  | { type: 'switchForm'; id: number; itemId: string; to: 'app' | 'native' }
  /** Reopen the server app a result item showed before the window reloaded (its `ResultView.reopen`). */
  | { type: 'reopenApp'; id: number; itemId: string }
  /** The network notice of app item `itemId`: Allow (grant its server the asked origins) or Keep blocked. */
  | { type: 'appNetwork'; id: number; itemId: string; allow: boolean }
  /** Open the server app of a plan step that succeeded (its `StepView.app`) with the step's input and result. */
  | { type: 'openStepApp'; id: number; planId: string; step: number }
  /** A JSON-RPC message app `appId`'s iframe posted (unchecked: the extension validates it). */
  | { type: 'appMessage'; appId: string; message: unknown }
  /**
   * App `appId`'s iframe exists: the panel's theme (`light`/`dark`) and the spec's style variables computed from VS Code's
   * colours and fonts, for the app's host context. Sent again when VS Code's theme changes.
   */
  | { type: 'appTheme'; appId: string; theme: 'light' | 'dark'; variables: Record<string, string> };

/** Every intent type, for exhaustiveness checks. */
export type FromWebviewType = FromWebview['type'];
