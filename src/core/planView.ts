/**
 * What the plan panel shows for one plan, computed from the workflow state: the record, its nested plans,
 * its lineage and the prompts waiting on the user. Pure, so it is unit-tested without a webview.
 */
import type { ChangeView, PendingPrompt, PlanView, PredictedView, TouchedGlobView } from '../shared/protocol';
import { approvalHash } from './approval';
import { stepHint } from './toolHints';
import { planTitle } from './present';
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
export function lineage(state: WorkflowState, planId: string): { id: string; title: string }[] {
  const out: { id: string; title: string }[] = [];
  let id = state.plans[planId]?.replacesId;
  const seen = new Set<string>();
  while (id && state.plans[id] && !seen.has(id)) {
    seen.add(id);
    out.unshift({ id, title: planTitle(state.plans[id]) });
    id = state.plans[id].replacesId;
  }
  return out;
}

export function toPlanView(
  state: WorkflowState,
  planId: string,
  extras: {
    touched?: TouchedGlobView[]; pending?: readonly PendingPrompt[]; readOnly?: boolean; predicted?: PredictedView[]; changes?: ChangeView[];
    /** The annotations of `tool` as the server a step would run on offers it (undefined: no hints, or not offered). */
    annotations?: (tool: string, preferredServer: string) => unknown;
  } = {},
): PlanView | undefined {
  const record = state.plans[planId];
  if (!record) return undefined;
  const children = nestedPlans(state, planId);
  const ids = new Set([planId, ...Object.keys(children)]);
  return {
    record,
    children,
    touched: extras.touched,
    predicted: extras.predicted,
    changes: extras.changes,
    lineage: lineage(state, planId),
    hints: extras.annotations && Object.fromEntries([record, ...Object.values(children)].map((p) => [p.id, p.steps.map((step) =>
      step.call.tool === 'ask_user' ? null : stepHint(extras.annotations!(step.call.tool, step.server ?? p.origin.server)))])),
    pending: (extras.pending ?? []).filter((p) => ids.has(p.planId)),
    readOnly: extras.readOnly ?? false,
    approvalHashes: Object.fromEntries([record, ...Object.values(children)].filter((p) => p.phase === 'awaiting_approval').map((p) => [p.id, approvalHash(p)])),
  };
}
