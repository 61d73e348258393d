/**
 * The patch that takes the webview from the state it holds to the next one: only what changed, so a step of a
 * 1,000-step plan costs one step's view on the wire, not the plan. shared/panelPatch.ts applies it; applying
 * `diffPanel(a, b)` to `a` gives a state equal to `b` (unit-tested).
 */
import type { PanelItem, PanelPatch, PanelState } from '../../shared/protocol/panel';
import type { PlanHeadView, PlanView } from '../../shared/protocol/plan';

type PlanPatch = NonNullable<PanelPatch['plan']>;

/** The patch from `prev` to `next`; undefined when nothing changed. */
export function diffPanel(prev: PanelState, next: PanelState): PanelPatch | undefined {
  const patch: PanelPatch = {};
  if (prev.items !== next.items && !sameJson(prev.items, next.items)) patch.items = next.items;
  const a = prev.selected;
  const b = next.selected;
  if (a?.kind === 'plan' && b?.kind === 'plan' && a.id === b.id && a.view.rootId === b.view.rootId) {
    const plan = diffPlanItem(a, b);
    if (plan) patch.plan = plan;
  } else if (a !== b && !sameJson(a, b)) {
    patch.selected = b ?? null;
  }
  return Object.keys(patch).length ? patch : undefined;
}

function diffPlanItem(a: Extract<PanelItem, { kind: 'plan' }>, b: Extract<PanelItem, { kind: 'plan' }>): PlanPatch | undefined {
  const out: PlanPatch = { itemId: b.id };
  if (a.title !== b.title) out.title = b.title;
  const heads: PlanHeadView[] = [];
  const added: PlanView[] = [];
  const steps: NonNullable<PlanPatch['steps']> = [];
  for (const [id, plan] of Object.entries(b.view.plans)) {
    const old = Object.hasOwn(a.view.plans, id) ? a.view.plans[id] : undefined;
    if (!old || old.steps.length !== plan.steps.length) {
      added.push(plan);
      continue;
    }
    if (old !== plan && !sameJson(headOf(old), headOf(plan))) heads.push(headOf(plan));
    plan.steps.forEach((step, index) => {
      // Unchanged steps keep their view object (PlanPresenter caches them), so most are skipped without a look inside.
      if (step !== old.steps[index] && !sameJson(step, old.steps[index])) steps.push({ planId: id, index, view: step });
    });
  }
  const removed = Object.keys(a.view.plans).filter((id) => !Object.hasOwn(b.view.plans, id));
  if (heads.length) out.heads = heads;
  if (added.length) out.added = added;
  if (removed.length) out.removed = removed;
  if (steps.length) out.steps = steps;
  return Object.keys(out).length > 1 ? out : undefined;
}

/** A plan view without its steps. */
export function headOf(plan: PlanView): PlanHeadView {
  const { steps: _steps, ...head } = plan;
  return head;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
