/**
 * A plan's place among the others: its top-level plan, its nested plans and its lineage of re-plans. Pure; the
 * panel's view models are built from these in present/planItem.ts.
 */
import type { PlanRecord, WorkflowState } from './workflow';

/** The top-level plan a (possibly nested) plan belongs to. */
export function rootPlanId(state: WorkflowState, planId: string): string {
  let id = planId;
  const seen = new Set<string>();
  while (state.plans[id]?.parentId && !seen.has(id)) {
    seen.add(id);
    id = state.plans[id].parentId!;
  }
  return id;
}

/** Every nested plan below `planId`, by id. */
export function nestedPlans(state: WorkflowState, planId: string): Record<string, PlanRecord> {
  const out: Record<string, PlanRecord> = {};
  const queue = [planId];
  while (queue.length) {
    const record = state.plans[queue.shift()!];
    for (const step of record?.steps ?? []) {
      const child = step.childPlanId ? state.plans[step.childPlanId] : undefined;
      if (child && !out[child.id]) {
        out[child.id] = child;
        queue.push(child.id);
      }
    }
  }
  return out;
}

/** Plans this one replaced, oldest first. */
export function lineage(state: WorkflowState, planId: string): PlanRecord[] {
  const out: PlanRecord[] = [];
  let id = state.plans[planId]?.replacesId;
  const seen = new Set<string>();
  while (id && state.plans[id] && !seen.has(id)) {
    seen.add(id);
    out.unshift(state.plans[id]);
    id = state.plans[id].replacesId;
  }
  return out;
}
