/**
 * Applies the extension's patches (protocol/panel.ts `PanelPatch`) to the panel state the webview holds, and says what
 * changed so that only that is rendered again. Pure: the input state is not mutated.
 */
import type { PanelPatch, PanelState } from './protocol/panel';
import type { PlanView } from './protocol/plan';

/** What a patch changed, for rendering: `selected` (the item shown, whole), or plan heads and steps by key. */
export interface PanelChanges {
  items: boolean;
  selected: boolean;
  /** Plan ids whose head changed (their step rows did not, unless listed in `steps`). */
  heads: Set<string>;
  /** Step keys (`stepKey`) whose row changed. */
  steps: Set<string>;
}

/** A step row's key. */
export function stepKey(planId: string, index: number): string {
  return `${planId}\u0000${index}`;
}

/** No change: nothing to render. */
export function noChanges(): PanelChanges {
  return { items: false, selected: false, heads: new Set(), steps: new Set() };
}

/** `a` and then `b` (for changes applied between two renders). */
export function mergeChanges(a: PanelChanges, b: PanelChanges): PanelChanges {
  return {
    items: a.items || b.items,
    selected: a.selected || b.selected,
    heads: new Set([...a.heads, ...b.heads]),
    steps: new Set([...a.steps, ...b.steps]),
  };
}

/**
 * The state after `patch`, and what changed; undefined when the patch does not apply to `state` (a plan patch for an
 * item that is not the one shown): the webview then asks for a snapshot.
 */
export function applyPatch(state: PanelState, patch: PanelPatch): { state: PanelState; changes: PanelChanges } | undefined {
  const changes = noChanges();
  let next: PanelState = state;
  if (patch.items) {
    next = { ...next, items: patch.items };
    changes.items = true;
  }
  if (patch.selected !== undefined) {
    next = { ...next, selected: patch.selected ?? undefined };
    changes.selected = true;
  }
  if (patch.plan) {
    const item = next.selected;
    const p = patch.plan;
    if (item?.kind !== 'plan' || item.id !== p.itemId) return undefined;
    const plans: Record<string, PlanView> = { ...item.view.plans };
    for (const id of p.removed ?? []) delete plans[id];
    for (const plan of p.added ?? []) {
      plans[plan.id] = plan;
      changes.heads.add(plan.id);
      plan.steps.forEach((_, i) => changes.steps.add(stepKey(plan.id, i)));
    }
    for (const head of p.heads ?? []) {
      const old = Object.hasOwn(plans, head.id) ? plans[head.id] : undefined;
      if (!old) return undefined;
      plans[head.id] = { ...head, steps: old.steps };
      changes.heads.add(head.id);
    }
    const copied = new Set<string>();
    for (const { planId, index, view } of p.steps ?? []) {
      const old = Object.hasOwn(plans, planId) ? plans[planId] : undefined;
      if (!old || index < 0 || index >= old.steps.length) return undefined;
      // Copy a plan's steps once per patch, not once per changed step.
      const plan = copied.has(planId) ? old : { ...old, steps: old.steps.slice() };
      copied.add(planId);
      plan.steps[index] = view;
      plans[planId] = plan;
      changes.steps.add(stepKey(planId, index));
    }
    next = { ...next, selected: { ...item, title: p.title ?? item.title, view: { ...item.view, plans } } };
    // A nested plan that appeared or went away shows inside its parent's step row, whose own patch re-renders it.
    if (p.title !== undefined) changes.items = true;
  }
  return { state: next, changes };
}
