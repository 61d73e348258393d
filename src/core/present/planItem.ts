/**
 * What the plan panel shows for a plan and its nested plans: view models built from the workflow state, with every
 * word of a plan's state written here (planWords.ts, outcome.ts, toolHints.ts), never in the webview.
 *
 * Long plans stay cheap: a run changes one step per event, so a step's view is cached by its record (the reducer
 * replaces exactly the records it changes) and rebuilt only when the record or what the view reads beside it (the
 * plan's phase, the tool's hints, the prompt waiting at the step) changed; the approval hash is computed once per
 * plan version. An unchanged step keeps its view object, which lets panelDiff.ts skip it by identity.
 */
import { diffLines } from 'diff';
import { stepPolicyMark } from './callCard';
import type { ChangeView, PredictedView, TouchedGlobView } from '../../shared/protocol/files';
import type {
  DiffLineView,
  IssueView,
  PendingPrompt,
  PlanActionsView,
  PlanHeadView,
  PlanItemView,
  PlanView,
  StepChangeView,
  StepHint,
  StepView,
  ToolDefinitionView,
  ToolSummaryView,
} from '../../shared/protocol/plan';
import { approvalHash } from '../plan/approval';
import type { ListedTool, PlanReview, ReviewedResolution, StepReviewChange } from '../engine/resolve';
import { outcomeSentence } from '../workflow/outcome';
import { lineage } from '../workflow/planTree';
import { stepHint, summarizeHints } from '../base/toolHints';
import { followUpHolder, notOkFollowUpOpen, type PlanRecord, type StepRecord, type WorkflowState } from '../workflow/workflow';
import { phaseLabel, progressText, serverStatusLabel, stepStateText, taskWords } from './planWords';
import { planTitle } from './workflowWords';

/** What the extension resolved around a plan item, besides the workflow state. */
export interface PlanItemExtras {
  /** `safety.touches_files`, resolved; undefined while resolving. */
  touched?: TouchedGlobView[];
  /** Prompts the runner waits on (any plan: those of this item are picked). */
  pending?: readonly PendingPrompt[];
  /** History (finished) or restored: nothing to decide, export only. */
  readOnly?: boolean;
  /** Predicted file changes (awaiting approval); undefined while predicting. */
  predicted?: PredictedView[];
  /** Actual file changes after a run; undefined before it or while computing. */
  changes?: ChangeView[];
  /** The MCP annotations of `tool` as the server a step would run on offers it (undefined: no hints, or not offered). */
  annotations?: (tool: string, preferredServer: string) => unknown;
  /**
   * The `ui://` page (server app) of `tool` on `server`, when it carries one and apps are shown. Looked up like the
   * hints (once per tool and server per build, again when the servers' tools change), only for steps that succeeded.
   */
  appOf?: (tool: string, server: string) => string | undefined;
  /**
   * The gate's review of a plan: the steps changed while it waited for approval, and its steps' tool definitions as
   * listed (Gate.review). A step view is rebuilt when its plan's review is another object.
   */
  review?: (planId: string) => PlanReview | undefined;
}

/** What the presenter built for a plan last time, to rebuild only what changed. */
interface PlanCache {
  record: PlanRecord;
  hintsVersion: number;
  withHints: boolean;
  steps: StepView[];
  hints: (StepHint | undefined)[];
  /** The prompt at each step that has one, as JSON. */
  prompts: Map<number, string>;
  hintSummary: string;
  destructive: boolean;
  /** Nested plans of this plan's steps. */
  children: string[];
  /** The review the steps were built with. */
  review: PlanReview | undefined;
}

/**
 * Builds plan items' view models, reusing what did not change since the last build. One per panel: it remembers the
 * last build of each plan, so a run that changes one step per event costs a pass of identity checks over the steps,
 * not a rebuild of every step's view.
 */
export class PlanPresenter {
  private readonly cache = new Map<string, PlanCache>();
  private readonly hashes = new WeakMap<PlanRecord, string>();
  private hintsVersion = 0;

  /** The servers' tools changed: every step's hints are looked up again at the next build. */
  invalidateHints(): void {
    this.hintsVersion++;
  }

  /** Forgets a plan item's plans (the item was closed). */
  forget(planIds: Iterable<string>): void {
    for (const id of planIds) this.cache.delete(id);
  }

  /** The plan item of top-level plan `rootId` (its nested plans included); undefined when the plan is unknown. */
  present(state: WorkflowState, rootId: string, extras: PlanItemExtras = {}): PlanItemView | undefined {
    const root = state.plans[rootId];
    if (!root) return undefined;
    const readOnly = extras.readOnly ?? false;
    const prompts = new Map<string, Map<number, PendingPrompt>>();
    for (const p of extras.pending ?? []) {
      if (!prompts.has(p.planId)) prompts.set(p.planId, new Map());
      prompts.get(p.planId)!.set(p.step, p);
    }
    // One annotation lookup per tool and server per build, not one per step.
    const hintsSeen = new Map<string, StepHint>();
    const hintOf = (record: PlanRecord, step: StepRecord): StepHint | undefined => {
      if (!extras.annotations || step.call.tool === 'ask_user') return undefined;
      const server = step.server ?? record.origin.server;
      const key = `${step.call.tool}\u0000${server}`;
      let hint = hintsSeen.get(key);
      if (!hint) hintsSeen.set(key, (hint = stepHint(extras.annotations(step.call.tool, server))));
      return hint;
    };
    const appsSeen = new Map<string, string | undefined>();
    const appOf = (record: PlanRecord, step: StepRecord): string | undefined => {
      if (!extras.appOf || step.state !== 'ok' || step.call.tool === 'ask_user' || step.childPlanId) return undefined;
      const server = step.server ?? record.origin.server;
      const key = `${step.call.tool}\u0000${server}`;
      if (!appsSeen.has(key)) appsSeen.set(key, extras.appOf(step.call.tool, server));
      return appsSeen.get(key);
    };
    const plans: Record<string, PlanView> = {};
    const queue = [root];
    for (let record = queue.shift(); record; record = queue.shift()) {
      if (Object.hasOwn(plans, record.id)) continue;
      const review = extras.review?.(record.id);
      const c = this.steps(record, prompts.get(record.id), extras.annotations !== undefined, hintOf, appOf, review);
      const head = planHead(state, record, {
        ...extras,
        tools: this.tools(record, review),
        readOnly,
        hintSummary: c.withHints ? { text: c.hintSummary, destructive: c.destructive } : undefined,
        shownHash: record.phase === 'awaiting_approval' ? this.hash(record) : undefined,
        top: record.id === rootId,
      });
      plans[record.id] = { ...head, steps: c.steps };
      for (const id of c.children) if (state.plans[id]) queue.push(state.plans[id]);
    }
    return { rootId, plans };
  }

  private readonly definitionViews = new WeakMap<ListedTool, ToolDefinitionView>();

  /** The whole definitions of the steps' tools of `record`, by hash (each built once per listed definition). */
  private tools(record: PlanRecord, review: PlanReview | undefined): Record<string, ToolDefinitionView> | undefined {
    if (!review || review.definitions.size === 0) return undefined;
    const out: Record<string, ToolDefinitionView> = {};
    const add = (hash: string | undefined) => {
      const d = hash === undefined ? undefined : review.definitions.get(hash);
      if (!d || Object.hasOwn(out, hash!)) return;
      let view = this.definitionViews.get(d);
      if (!view) this.definitionViews.set(d, (view = definitionView(d)));
      out[hash!] = view;
    };
    for (const step of record.steps) add(step.toolHash);
    return Object.keys(out).length ? out : undefined;
  }

  private hash(record: PlanRecord): string {
    let hash = this.hashes.get(record);
    if (hash === undefined) {
      hash = approvalHash(record);
      this.hashes.set(record, hash);
    }
    return hash;
  }

  /** The plan's step views: those of the last build where the step's record and what the view reads beside it are the same. */
  private steps(
    record: PlanRecord,
    prompts: Map<number, PendingPrompt> | undefined,
    withHints: boolean,
    hintOf: (record: PlanRecord, step: StepRecord) => StepHint | undefined,
    appOf: (record: PlanRecord, step: StepRecord) => string | undefined = () => undefined,
    review?: PlanReview,
  ): PlanCache {
    const promptKeys = new Map<number, string>();
    for (const [index, p] of prompts ?? []) promptKeys.set(index, JSON.stringify(p));
    const old = this.cache.get(record.id);
    const whole =
      !old ||
      old.hintsVersion !== this.hintsVersion ||
      old.withHints !== withHints ||
      old.steps.length !== record.steps.length ||
      old.review !== review;
    if (!whole && old.record === record && sameMap(old.prompts, promptKeys)) return old;
    const changed = new Set<number>();
    if (!whole) {
      if (old.record.steps !== record.steps) {
        for (let i = 0; i < record.steps.length; i++) if (record.steps[i] !== old.record.steps[i]) changed.add(i);
      }
      for (const i of new Set([...old.prompts.keys(), ...promptKeys.keys()])) if (old.prompts.get(i) !== promptKeys.get(i)) changed.add(i);
    }
    let steps: StepView[];
    let hints: (StepHint | undefined)[];
    let hintsChanged = whole;
    let childrenChanged = whole;
    if (whole) {
      hints = record.steps.map((s) => hintOf(record, s));
      steps = record.steps.map((s, i) => stepView(s, hints[i], prompts?.get(s.index), appOf(record, s), review));
    } else {
      steps = changed.size ? old.steps.slice() : old.steps;
      hints = old.hints;
      for (const i of changed) {
        const step = record.steps[i]!;
        const hint = hintOf(record, step);
        if (!sameHint(hint, old.hints[i])) {
          if (!hintsChanged) hints = hints.slice();
          hints[i] = hint;
          hintsChanged = true;
        }
        steps[i] = stepView(step, hint, prompts?.get(i), appOf(record, step), review);
        if (steps[i]!.childPlanId !== old.steps[i]!.childPlanId) childrenChanged = true;
      }
    }
    const summary =
      hintsChanged || !old
        ? {
            text: withHints ? summarizeHints(record.steps.map((s, i) => (s.call.tool === 'ask_user' ? null : hints[i]!))) : '',
            destructive: hints.some((h) => h?.effect === 'destructive'),
          }
        : { text: old.hintSummary, destructive: old.destructive };
    const entry: PlanCache = {
      record,
      hintsVersion: this.hintsVersion,
      withHints,
      steps,
      hints,
      prompts: promptKeys,
      hintSummary: summary.text,
      destructive: summary.destructive,
      children: childrenChanged || !old ? steps.flatMap((s) => (s.childPlanId ? [s.childPlanId] : [])) : old.children,
      review,
    };
    this.cache.set(record.id, entry);
    return entry;
  }
}

function sameHint(a: StepHint | undefined, b: StepHint | undefined): boolean {
  return a === b || (!!a && !!b && a.effect === b.effect && a.openWorld === b.openWorld && a.idempotent === b.idempotent);
}

function sameMap(a: Map<number, string>, b: Map<number, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/**
 * One step's view model; `app`: the page of its tool's server app (shown for a step that succeeded); `review`: the
 * gate's review of its plan (the tool's definition as listed, and what changed while the plan waited).
 */
export function stepView(
  step: StepRecord,
  hint: StepHint | undefined,
  prompt?: PendingPrompt,
  app?: string,
  review?: PlanReview,
): StepView {
  const label = typeof step.call.label === 'string' && step.call.label ? step.call.label : '';
  const view: StepView = {
    index: step.index,
    label: label || step.call.tool,
    tool: step.call.tool,
    hasLabel: label !== '',
    state: step.state,
    stateText: stepStateText(step.state),
    crossServer: step.crossServer === true,
    confirm: step.call.confirm === true,
    asksUser: step.call.tool === 'ask_user',
    edited: step.edited,
    skipRequested: step.skipRequested,
    args: step.call.args,
  };
  if (step.server !== undefined) view.server = step.server;
  if (step.unresolved !== undefined) view.unresolved = step.unresolved;
  if (hint) view.hint = hint;
  if (step.state === 'running' && step.progress) view.progress = { ...step.progress };
  if (step.task && (step.state === 'running' || step.state === 'unknown'))
    view.task = { id: step.task.id, ...taskWords(step.task, step.state), ...(step.task.message ? { message: step.task.message } : {}) };
  if (step.error) view.error = step.error;
  if (step.summary && step.state === 'ok') view.summary = step.summary;
  if (step.edited) view.proposedArgs = step.proposed.args;
  if (prompt) view.prompt = prompt;
  if (step.childPlanId) view.childPlanId = step.childPlanId;
  const mark = stepPolicyMark(step.policy); // policy: the step's verdict from resolution (core/present/callCard.ts)
  if (mark) view.policy = mark;
  if (app && step.state === 'ok') view.app = app;
  const listed = step.toolHash !== undefined && step.call.tool !== 'ask_user' ? review?.definitions.get(step.toolHash) : undefined;
  if (listed) view.definition = toolSummary(step.toolHash!, listed);
  const change = step.state === 'pending' ? review?.changes.find((c) => c.step === step.index) : undefined;
  if (change && review) view.reviewChange = changeView(change, review.definitions);
  return view;
}

/** A listed tool's title and the first line of its description (server text, shown as it is, marked by the webview). */
function toolSummary(hash: string, tool: ListedTool): ToolSummaryView {
  const annotations = tool.annotations as { title?: unknown } | undefined;
  const title = typeof tool.title === 'string' && tool.title ? tool.title : typeof annotations?.title === 'string' ? annotations.title : '';
  const description = typeof tool.description === 'string' ? tool.description : '';
  const summary = description.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return { hash, ...(title ? { title } : {}), summary: summary.trim() };
}

/** A listed tool whole: its description, its input schema and all of it as indented JSON. */
export function definitionView(tool: ListedTool): ToolDefinitionView {
  return {
    description: typeof tool.description === 'string' ? tool.description : '',
    inputSchema: tool.inputSchema === undefined ? '' : JSON.stringify(tool.inputSchema, null, 2),
    json: JSON.stringify(tool, null, 2),
  };
}

const changeViews = new WeakMap<StepReviewChange, StepChangeView>();

/** Unchanged lines shown on each side of a change in a step's "what changed". */
const DIFF_CONTEXT = 3;

/** A step's change during review: in words, and the server and definition seen against those now, line by line. */
export function changeView(change: StepReviewChange, definitions: ReadonlyMap<string, ListedTool>): StepChangeView {
  const cached = changeViews.get(change);
  if (cached) return cached;
  const text = (r: ReviewedResolution): string | undefined => {
    if (r.server === undefined) return `(offered by no server: ${r.unresolved ?? 'it resolves nowhere'})\n`;
    const d = r.toolHash === undefined ? undefined : definitions.get(r.toolHash);
    return d ? `server: ${r.server}\n${JSON.stringify(d, null, 2)}\n` : undefined;
  };
  const before = text(change.before);
  const after = text(change.after);
  const diff: DiffLineView[] = [];
  if (before !== undefined && after !== undefined)
    for (const part of diffLines(before, after)) {
      const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
      const lines = part.value.split('\n');
      if (lines.at(-1) === '') lines.pop();
      // Unchanged runs keep DIFF_CONTEXT lines on each side of a change; the rest is counted, not shown.
      if (kind === 'same' && lines.length > 2 * DIFF_CONTEXT + 1) {
        const hidden = lines.length - 2 * DIFF_CONTEXT;
        lines.splice(DIFF_CONTEXT, hidden, `⋯ ${hidden} unchanged lines`);
      }
      for (const line of lines) diff.push({ kind, text: line });
    }
  const view: StepChangeView = { text: `Changed while you were reviewing: ${change.text}.`, parts: [...change.parts], diff };
  changeViews.set(change, view);
  return view;
}

const issue = (i: { code?: unknown; message?: unknown; field?: unknown; hint?: unknown; recoverable?: unknown }): IssueView => {
  const view: IssueView = { message: String(i.message ?? '') };
  if (i.code !== undefined && i.code !== '') view.code = String(i.code);
  if (i.field) view.field = String(i.field);
  if (i.hint) view.hint = String(i.hint);
  if (i.recoverable === false) view.recoverable = false;
  return view;
};

/** A plan's head: everything the panel shows of it but its steps. */
export function planHead(
  state: WorkflowState,
  record: PlanRecord,
  options: PlanItemExtras & {
    hintSummary?: { text: string; destructive: boolean };
    shownHash?: string;
    top: boolean;
    tools?: Record<string, ToolDefinitionView>;
  },
): PlanHeadView {
  const plan = record.plan;
  const readOnly = options.readOnly ?? false;
  const top = options.top;
  const awaiting = record.phase === 'awaiting_approval';
  const head: PlanHeadView = {
    id: record.id,
    depth: record.depth,
    phase: record.phase,
    phaseLabel: phaseLabel(record),
    serverStatus: String(plan.status),
    serverStatusLabel: serverStatusLabel(String(plan.status)),
    origin: { server: record.origin.server, tool: record.origin.tool },
    instruction: typeof plan.instruction === 'string' ? plan.instruction : '',
    lineage: top ? lineage(state, record.id).map((p) => ({ id: p.id, title: planTitle(p) })) : [],
    predicting: top && awaiting && options.predicted === undefined,
    reverted: (record.reverts?.length ?? 0) > 0,
    warnings: (plan.warnings ?? []).map(issue),
    actions: actionsOf(state, record, readOnly, options.shownHash),
    readOnly,
    editable: awaiting && !readOnly,
    stepCount: record.steps.length,
  };
  if (record.outcome) head.outcome = record.outcome;
  if (options.tools) head.tools = options.tools;
  if (record.reapproval && awaiting)
    head.reapproval = `Step ${record.reapproval.step + 1} was not sent, and the plan waits for your approval again: ${record.reapproval.change}`;
  if (record.approvalNote) head.approvalNote = record.approvalNote;
  if (top && (plan.status === 'ok' || plan.safety)) {
    head.safety = {
      globs: plan.safety?.touches_files ?? [],
      hintSummary: options.hintSummary?.text ?? '',
      destructive: options.hintSummary?.destructive ?? false,
    };
    if (plan.safety?.writes_code !== undefined) head.safety.writesCode = plan.safety.writes_code;
    if (options.touched) head.safety.touched = options.touched;
  }
  if (top && awaiting && options.predicted) head.predicted = options.predicted;
  if (top && options.changes) head.changes = options.changes;
  if (plan.status !== 'ok') {
    head.notOk = {
      errors: (plan.errors ?? []).map(issue),
      missing: (plan.missing ?? []).map(String),
      partialResults: (plan.partial_results ?? []).map((r) => ({
        step: String(r.step),
        outcome: String(r.outcome),
        ...(r.detail ? { detail: String(r.detail) } : {}),
      })),
      recovery: (plan.recovery_actions ?? []).map((a) => ({
        label: a.label || a.tool,
        tool: a.tool,
        argsText: `Calls ${a.tool} ${JSON.stringify(a.args)}`,
        confirm: a.confirm === true,
      })),
      recoveryDisabled: readOnly && record.outcome !== 'not_ok',
    };
    if (plan.ask) {
      head.notOk.ask = {
        prompt: plan.ask.prompt,
        fields: (plan.ask.fields ?? []).map((f) => ({
          name: f.name,
          type: f.type,
          required: Boolean(f.required),
          ...(f.options ? { options: f.options } : {}),
        })),
        answerable: !readOnly && record.phase === 'finished' && record.outcome === 'not_ok',
        call: { server: record.origin.server, tool: record.origin.tool, args: record.origin.args },
      };
    }
  }
  if (plan.correlation_id) head.correlationId = plan.correlation_id;
  return head;
}

/** A finished plan whose follow-up went with a recovery action's plan says where the question is asked. */
function handedOn(state: WorkflowState, record: PlanRecord, view: PlanActionsView): PlanActionsView {
  const holder = followUpHolder(state, record);
  if (view.kind !== 'finished' || !holder || holder.followUpAnswer !== undefined) return view;
  const step = holder.steps[0]?.call;
  const name = step ? step.label || step.tool : planTitle(holder);
  const where = `Its follow-up question went with the recovery action "${name}", which asks it once it has run.`;
  return { ...view, outcome: view.outcome ? `${view.outcome} ${where}` : where };
}

/** What the user can do with the plan now. */
function actionsOf(state: WorkflowState, record: PlanRecord, readOnly: boolean, shownHash: string | undefined): PlanActionsView {
  const finished = (): PlanActionsView => ({
    kind: 'finished',
    outcome: record.outcome ? outcomeSentence(record) : '',
    exportable: record.depth === 0,
  });
  if (readOnly) return finished();
  switch (record.phase) {
    case 'awaiting_approval':
      return { kind: 'approve', resolving: record.resolvedAt === undefined, ...(shownHash ? { shownHash } : {}) };
    case 'executing':
      return { kind: 'running', progress: progressText(record) };
    case 'blocked': {
      const step = record.blockedStep !== undefined ? record.steps[record.blockedStep] : undefined;
      return {
        kind: 'blocked',
        reason:
          record.blockedReason ??
          (step ? `Step ${step.index + 1} (${step.call.label || step.call.tool}) failed.` : 'The plan stopped at a failed step.'),
      };
    }
    case 'follow_up':
      return { kind: 'followUp', question: record.plan.follow_up ?? '' };
    case 'finished':
      return notOkFollowUpOpen(record, state)
        ? {
            kind: 'followUp',
            question: record.plan.follow_up ?? '',
            lead: 'The server did part of the work (the checklist above says what).',
          }
        : handedOn(state, record, finished());
  }
}
