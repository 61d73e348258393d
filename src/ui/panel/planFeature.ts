/**
 * The plan feature of the panel: a plan item's view (core/present/planItem.ts, with its touched globs and files) and
 * its intents, each one call of the Gate's public methods; the files' intents go to the plans' files.
 */
import type { Event } from '../../core/base/lifecycle';
import { DisposableBase } from '../../core/base/lifecycle';
import type { CallOutcome, Gate } from '../../core/engine/gate';
import { parseEditedArgs } from '../../core/engine/validateArgs';
import { resourceLinksOf } from '../../core/base/resourceLink';
import { PlanPresenter } from '../../core/present/planItem';
import { planBadge } from '../../core/present/planWords';
import { planTitle } from '../../core/present/workflowWords';
import { nestedPlans, rootPlanId } from '../../core/workflow/planTree';
import type { ChangeView, PredictedView, TouchedGlobView } from '../../shared/protocol/files';
import type { PanelItem } from '../../shared/protocol/panel';
import type { PlanItemView } from '../../shared/protocol/plan';
import type { ResourceLinkView } from '../../shared/protocol/results';
import type { IntentTable, PanelFeature } from './panelFeature';
import type { ItemModel, PanelItems, PlanTreePort } from './panelItems';

/** The plans' files as the panel uses them: predictions before approval, changes after a run, diffs and revert. */
export interface PlanFilesPort {
  readonly onDidChange: Event<unknown>;
  predicted(planId: string): PredictedView[] | undefined;
  changed(planId: string): ChangeView[] | undefined;
  /** Sends step `step`'s dry run (the user pressed Preview); the error in words, or undefined. */
  previewStep(planId: string, step: number): Promise<string | undefined>;
  openPredicted(planId: string, index: number): Promise<void>;
  openChange(planId: string, path: string): Promise<void>;
  /** Reverts one file or the whole plan, after the user confirms. */
  revert(planId: string, path?: string): Promise<unknown>;
}

/** A plan's `touches_files` globs resolved in the workspace (ui/touchedFiles.ts). */
export interface TouchedPort {
  resolve(planId: string, globs: readonly string[]): Promise<TouchedGlobView[]>;
  forget(planId: string): void;
}

/** The servers' tools as the panel checks them: hints (annotations) and argument edits (input schemas). */
export interface ToolCatalog {
  /** The tool `name` as the running server a step would use offers it (`preferredServer` first). */
  findTool(name: string, preferredServer: string): { tool: { annotations?: unknown } } | undefined;
  /** A configured server and the tools it lists now. */
  get(server: string): { tools: readonly { name: string; inputSchema?: unknown }[] } | undefined;
  /** Fires when servers start, stop or change their tools (the steps' hints may change). */
  readonly onDidChange: Event<unknown>;
}

/** Where a plan's answers lead outside the plan: a re-plan's result that is no plan, and the follow-up's Yes. */
export interface PlanCalls {
  /** Routes a result the gate classified (after a re-plan). */
  show(outcome: CallOutcome): void;
  /** The user answered Yes to a plan's follow-up question. */
  followUpYes(planId: string): Promise<void>;
}

export interface PlanFeatureDeps {
  gate: Gate;
  items: PanelItems;
  files: PlanFilesPort;
  touched: TouchedPort;
  tools: ToolCatalog;
  calls: PlanCalls;
  exportPlan(planId: string): Promise<void>;
  /** The `ui://` page of `tool` on `server` when it carries one and apps are shown (a step offers Open app). */
  appPage?(server: string, tool: string): string | undefined;
}

/** Workflow events after which a plan's globs are counted again (its steps may have written files). */
const RECOUNT_AFTER = new Set(['stepSucceeded', 'stepFailed', 'cancelled', 'stopped', 'reverted']);
/** At most this many steps' resource links are kept (in memory: a window reload forgets them, as it does results). */
const MAX_STEP_LINKS = 500;

/** What the panel's items need to know of the plans, from the gate's workflow. */
export function planTree(gate: Pick<Gate, 'workflow' | 'resolution'>): PlanTreePort {
  return {
    rootOf: (planId) => rootPlanId(gate.workflow.state, planId),
    finished: (planId) => gate.workflow.state.plans[planId]?.phase === 'finished',
    resolution: (planId) => gate.resolution(planId),
  };
}

export class PlanFeature extends DisposableBase implements PanelFeature {
  readonly kinds = ['plan'] as const;
  private readonly presenter = new PlanPresenter();
  private readonly touchedViews = new Map<string, TouchedGlobView[]>();
  /** The `resource_link`s of steps' results, by `planId:step` (the workflow keeps only a summary of a result). */
  private readonly stepLinks = new Map<string, ResourceLinkView[]>();

  constructor(private readonly deps: PlanFeatureDeps) {
    super();
    const { gate, items, files, tools } = deps;
    this._register(
      gate.onDidStepResult((r) => {
        const links = resourceLinksOf(r.result.content).map((l) => ({ ...l, server: r.server }));
        if (!links.length) return;
        this.stepLinks.set(`${r.planId}:${r.step}`, links);
        for (const old of [...this.stepLinks.keys()].slice(0, Math.max(0, this.stepLinks.size - MAX_STEP_LINKS)))
          this.stepLinks.delete(old);
      }),
    );
    this._register(
      gate.workflow.onDidChange(({ event }) => {
        // What the globs match changes when a plan's steps ran: count again once it is no longer running.
        if (RECOUNT_AFTER.has(event.type) && 'planId' in event) this.refreshTouched(event.planId);
        items.changed();
      }),
    );
    this._register(gate.onDidChange(() => items.changed()));
    this._register(files.onDidChange(() => items.changed()));
    this._register(
      tools.onDidChange(() => {
        // A server's tools changed: the steps' hints may have too.
        this.presenter.invalidateHints();
        if (items.all.some((i) => i.kind === 'plan')) items.changed();
      }),
    );
  }

  present(item: ItemModel): PanelItem | undefined {
    if (item.kind !== 'plan') return undefined;
    const { gate, files, tools, appPage } = this.deps;
    const state = gate.workflow.state;
    const record = state.plans[item.planId];
    if (!record) return undefined;
    this.resolveTouched(item.planId);
    const view = this.presenter.present(state, item.planId, {
      touched: this.touchedViews.get(item.planId),
      pending: gate.pending,
      readOnly: record.phase === 'finished' && record.outcome !== 'not_ok',
      predicted: record.phase === 'awaiting_approval' ? files.predicted(item.planId) : undefined,
      changes: record.approvedAt !== undefined && record.phase !== 'executing' ? files.changed(item.planId) : undefined,
      annotations: (tool: string, preferred: string) => tools.findTool(tool, preferred)?.tool.annotations,
      appOf: appPage ? (tool: string, server: string) => appPage(server, tool) : undefined,
      review: (planId: string) => gate.review(planId),
    });
    return view && { kind: 'plan', id: item.id, title: planTitle(record, 40), view: this.withLinks(view) };
  }

  /** The view with each succeeded step's resource links (new step objects: the presenter's views are kept as they are). */
  private withLinks(view: PlanItemView): PlanItemView {
    if (!this.stepLinks.size) return view;
    const plans = { ...view.plans };
    for (const [planId, plan] of Object.entries(plans)) {
      if (!plan.steps.some((s) => s.state === 'ok' && this.stepLinks.has(`${planId}:${s.index}`))) continue;
      plans[planId] = {
        ...plan,
        steps: plan.steps.map((s) => {
          const links = s.state === 'ok' ? this.stepLinks.get(`${planId}:${s.index}`) : undefined;
          return links ? { ...s, links } : s;
        }),
      };
    }
    return { ...view, plans };
  }

  summary(item: ItemModel): { title: string; badge?: string } | undefined {
    const record = item.kind === 'plan' ? this.deps.gate.workflow.state.plans[item.planId] : undefined;
    return record && { title: planTitle(record, 40), badge: planBadge(record) };
  }

  /** The newest top-level plan still active (awaiting approval, running, blocked, asking its follow-up). */
  activePlan(): string | undefined {
    const state = this.deps.gate.workflow.state;
    return [...state.order].reverse().find((id) => state.plans[id]?.depth === 0 && state.plans[id].phase !== 'finished');
  }

  removed(item: ItemModel): void {
    if (item.kind !== 'plan') return;
    this.deps.touched.forget(item.planId);
    this.touchedViews.delete(item.planId);
    this.resolving.delete(item.planId);
    this.presenter.forget([item.planId, ...Object.keys(nestedPlans(this.deps.gate.workflow.state, item.planId))]);
  }

  /** After a reload: the plans that were open and are still active (awaiting approval, blocked, …) come back. */
  restore(persisted: { plans: string[] }): void {
    const state = this.deps.gate.workflow.state;
    const active = state.order.filter((id) => state.plans[id]?.depth === 0 && state.plans[id].phase !== 'finished');
    for (const planId of new Set([...persisted.plans, ...active]))
      if (state.plans[planId]) this.deps.items.restore({ kind: 'plan', id: `plan:${planId}`, planId });
  }

  readonly intents = {
    approve: (m) => this.deps.gate.approve(m.planId, m.note, m.shownHash),
    reject: (m) => this.deps.gate.reject(m.planId, m.reason),
    acceptChange: (m) => this.deps.gate.acceptChange(m.planId, m.step, m.shownHash),
    editArgs: (m) => {
      const { gate, tools } = this.deps;
      const step = gate.workflow.state.plans[m.planId]?.steps[m.step];
      if (!step) return 'That step no longer exists.';
      const schema = tools.get(gate.serverFor(m.planId, m.step) ?? '')?.tools.find((t) => t.name === step.call.tool)?.inputSchema;
      const edited = parseEditedArgs(step.call.tool, schema, m.argsJson);
      return 'error' in edited ? edited.error : gate.editArgs(m.planId, m.step, edited.args);
    },
    resetArgs: (m) => {
      const step = this.deps.gate.workflow.state.plans[m.planId]?.steps[m.step];
      return step ? this.deps.gate.editArgs(m.planId, m.step, step.proposed.args) : 'That step no longer exists.';
    },
    skip: (m) => this.deps.gate.markSkip(m.planId, m.step, m.skip),
    cancel: (m) => this.deps.gate.cancel(m.planId),
    retryStep: (m) => this.deps.gate.retry(m.planId),
    skipStep: (m) => this.deps.gate.skipFailed(m.planId),
    stop: (m) => this.deps.gate.stop(m.planId),
    confirmStep: (m) => this.deps.gate.answerConfirm(m.planId, m.step, m.granted),
    answerAskUser: (m) => this.deps.gate.answerAskUser(m.planId, m.step, m.values),
    answerAsk: async (m) => {
      const { gate, items, calls } = this.deps;
      const outcome = await gate.replan(m.planId, m.values, m.shown);
      if (outcome.received.kind === 'plan') items.replacePlan(m.planId, outcome.received.planId);
      else calls.show(outcome);
    },
    runRecovery: (m) => {
      const { gate, items } = this.deps;
      if (!gate.workflow.state.plans[m.planId]?.plan.recovery_actions?.[m.index]) return 'That recovery action no longer exists.';
      // A recovery action is a one-step plan: shown with its server, tool and arguments, approved like any plan.
      const proposed = gate.proposeRecovery(m.planId, m.index);
      if ('error' in proposed) return proposed.error;
      items.showPlan(proposed.planId, { focus: true });
    },
    followUp: async (m) => {
      const error = this.deps.gate.followUp(m.planId, m.answer);
      if (error) return error;
      if (m.answer === 'yes') await this.deps.calls.followUpYes(m.planId);
    },
    exportPlan: (m) => this.deps.exportPlan(m.planId),
    previewStep: (m) => this.deps.files.previewStep(m.planId, m.step),
    openPredicted: (m) => this.deps.files.openPredicted(m.planId, m.index),
    openChange: (m) => this.deps.files.openChange(m.planId, m.path),
    revert: async (m) => {
      await this.deps.files.revert(m.planId, m.path);
    },
  } satisfies Partial<IntentTable>;

  private refreshTouched(planId: string): void {
    const state = this.deps.gate.workflow.state;
    const root = rootPlanId(state, planId);
    const plan = state.plans[root];
    if (!plan || plan.phase === 'executing' || !this.touchedViews.has(root)) return;
    this.touchedViews.delete(root);
    this.deps.touched.forget(root);
    this.resolveTouched(root);
  }

  /** Counts a plan's globs in the workspace once (again after its steps ran); the view updates when they are counted. */
  private resolveTouched(planId: string): void {
    const record = this.deps.gate.workflow.state.plans[planId];
    const globs = record?.plan.safety?.touches_files ?? [];
    if (!globs.length || this.touchedViews.has(planId) || this.resolving.has(planId)) return;
    this.resolving.add(planId);
    void this.deps.touched.resolve(planId, globs).then((views) => {
      this.resolving.delete(planId);
      this.touchedViews.set(planId, views);
      this.deps.items.changed();
    });
  }

  private readonly resolving = new Set<string>();
}
