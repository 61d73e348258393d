/**
 * What the plan panel shows for a plan and its nested plans: view models built from the workflow state, with every
 * word of a plan's state written here (planWords.ts, outcome.ts, toolHints.ts), never in the webview.
 *
 * Long plans stay cheap: a run changes one step per event, so a step's view is cached by its record (the reducer
 * replaces exactly the records it changes) and rebuilt only when the record or what the view reads beside it (the
 * plan's phase, the tool's hints, the prompt waiting at the step) changed; the approval hash is computed once per
 * plan version. An unchanged step keeps its view object, which lets panelDiff.ts skip it by identity.
 */
import type {
  ChangeView, IssueView, PendingPrompt, PlanActionsView, PlanHeadView, PlanItemView, PlanView, PredictedView, StepHint, StepView, TouchedGlobView,
} from '../../shared/protocol';
import { approvalHash } from '../approval';
import { outcomeSentence } from '../outcome';
import { lineage, nestedPlans } from '../planView';
import { stepHint, summarizeHints } from '../toolHints';
import type { PlanRecord, StepRecord, WorkflowState } from '../workflow';
import { phaseLabel, progressText, serverStatusLabel, stepStateText } from './planWords';

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
}

interface CachedStep {
  view: StepView;
  editable: boolean;
  hint: string;
  prompt: string;
}

/** Builds plan items' view models, reusing what did not change since the last build. One per panel. */
export class PlanPresenter {
  private readonly steps = new WeakMap<StepRecord, CachedStep>();
  private readonly hashes = new WeakMap<PlanRecord, string>();

  /** The plan item of top-level plan `rootId` (its nested plans included); undefined when the plan is unknown. */
  present(state: WorkflowState, rootId: string, extras: PlanItemExtras = {}): PlanItemView | undefined {
    const root = state.plans[rootId];
    if (!root) return undefined;
    const readOnly = extras.readOnly ?? false;
    const records = [root, ...Object.values(nestedPlans(state, rootId))];
    const ids = new Set(records.map((r) => r.id));
    const prompts = new Map<string, PendingPrompt>();
    for (const p of extras.pending ?? []) if (ids.has(p.planId)) prompts.set(`${p.planId}:${p.step}`, p);
    // One annotation lookup per tool and server per build, not one per step.
    const hintsSeen = new Map<string, StepHint | undefined>();
    const hintOf = (record: PlanRecord, step: StepRecord): StepHint | undefined => {
      if (!extras.annotations || step.call.tool === 'ask_user') return undefined;
      const server = step.server ?? record.origin.server;
      const key = `${step.call.tool}\u0000${server}`;
      if (!hintsSeen.has(key)) hintsSeen.set(key, stepHint(extras.annotations(step.call.tool, server)));
      return hintsSeen.get(key);
    };
    const plans: Record<string, PlanView> = {};
    for (const record of records) {
      const hints = record.steps.map((s) => hintOf(record, s));
      const steps = record.steps.map((s, i) => this.step(record, s, hints[i], readOnly, prompts.get(`${record.id}:${s.index}`)));
      const head = planHead(state, record, {
        ...extras, readOnly,
        hints: extras.annotations ? record.steps.map((s, i) => (s.call.tool === 'ask_user' ? null : hints[i]!)) : undefined,
        shownHash: record.phase === 'awaiting_approval' ? this.hash(record) : undefined,
        top: record.id === rootId,
      });
      plans[record.id] = { ...head, steps };
    }
    return { rootId, plans };
  }

  private hash(record: PlanRecord): string {
    let hash = this.hashes.get(record);
    if (hash === undefined) {
      hash = approvalHash(record);
      this.hashes.set(record, hash);
    }
    return hash;
  }

  private step(record: PlanRecord, step: StepRecord, hint: StepHint | undefined, readOnly: boolean, prompt: PendingPrompt | undefined): StepView {
    const editable = record.phase === 'awaiting_approval' && !readOnly;
    const hintKey = hint ? `${hint.effect}${hint.openWorld ? '+o' : ''}${hint.idempotent ? '+i' : ''}` : '';
    const promptKey = prompt ? JSON.stringify(prompt) : '';
    const cached = this.steps.get(step);
    if (cached && cached.editable === editable && cached.hint === hintKey && cached.prompt === promptKey) return cached.view;
    const view = stepView(step, hint, editable, prompt);
    this.steps.set(step, { view, editable, hint: hintKey, prompt: promptKey });
    return view;
  }
}

/** One step's view model. */
export function stepView(step: StepRecord, hint: StepHint | undefined, editable: boolean, prompt?: PendingPrompt): StepView {
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
    editable,
    args: step.call.args,
  };
  if (step.server !== undefined) view.server = step.server;
  if (step.unresolved !== undefined) view.unresolved = step.unresolved;
  if (hint) view.hint = hint;
  if (step.state === 'running' && step.progress) view.progress = { ...step.progress };
  if (step.error) view.error = step.error;
  if (step.summary && step.state === 'ok') view.summary = step.summary;
  if (step.edited) view.proposedArgs = step.proposed.args;
  if (prompt) view.prompt = prompt;
  if (step.childPlanId) view.childPlanId = step.childPlanId;
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
  options: PlanItemExtras & { hints?: (StepHint | null)[]; shownHash?: string; top: boolean },
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
    lineage: top ? lineage(state, record.id) : [],
    predicting: top && awaiting && options.predicted === undefined,
    reverted: (record.reverts?.length ?? 0) > 0,
    warnings: (plan.warnings ?? []).map(issue),
    actions: actionsOf(record, readOnly, options.shownHash),
    readOnly,
    stepCount: record.steps.length,
  };
  if (record.outcome) head.outcome = record.outcome;
  if (record.reapproval && awaiting) head.reapproval = `Step ${record.reapproval.step + 1} was not sent, and the plan waits for your approval again: ${record.reapproval.change}`;
  if (record.approvalNote) head.approvalNote = record.approvalNote;
  if (top && (plan.status === 'ok' || plan.safety)) {
    const hints = options.hints;
    head.safety = {
      globs: plan.safety?.touches_files ?? [],
      hintSummary: hints ? summarizeHints(hints) : '',
      destructive: hints?.some((h) => h?.effect === 'destructive') ?? false,
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
      partialResults: (plan.partial_results ?? []).map((r) => ({ step: String(r.step), outcome: String(r.outcome), ...(r.detail ? { detail: String(r.detail) } : {}) })),
      recovery: (plan.recovery_actions ?? []).map((a) => ({ label: a.label || a.tool, tool: a.tool, argsText: `Calls ${a.tool} ${JSON.stringify(a.args)}`, confirm: a.confirm === true })),
      recoveryDisabled: readOnly && record.outcome !== 'not_ok',
    };
    if (plan.ask) {
      head.notOk.ask = {
        prompt: plan.ask.prompt,
        fields: (plan.ask.fields ?? []).map((f) => ({ name: f.name, type: f.type, required: Boolean(f.required), ...(f.options ? { options: f.options } : {}) })),
        answerable: !readOnly && record.phase === 'finished' && record.outcome === 'not_ok',
      };
    }
  }
  if (plan.correlation_id) head.correlationId = plan.correlation_id;
  return head;
}

/** What the user can do with the plan now. */
function actionsOf(record: PlanRecord, readOnly: boolean, shownHash: string | undefined): PlanActionsView {
  const finished = (): PlanActionsView => ({ kind: 'finished', outcome: record.outcome ? outcomeSentence(record) : '', exportable: record.depth === 0 });
  if (readOnly) return finished();
  switch (record.phase) {
    case 'awaiting_approval': return { kind: 'approve', resolving: record.resolvedAt === undefined, ...(shownHash ? { shownHash } : {}) };
    case 'executing': return { kind: 'running', progress: progressText(record) };
    case 'blocked': {
      const step = record.blockedStep !== undefined ? record.steps[record.blockedStep] : undefined;
      return { kind: 'blocked', reason: record.blockedReason ?? (step ? `Step ${step.index + 1} (${step.call.label || step.call.tool}) failed.` : 'The plan stopped at a failed step.') };
    }
    case 'follow_up': return { kind: 'followUp', question: record.plan.follow_up ?? '' };
    case 'finished': return finished();
  }
}
