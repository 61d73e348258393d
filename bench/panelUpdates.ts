/**
 * The plan panel's cost per workflow event during a 1,000-step run, on the extension's side and on the wire, before
 * and after incremental updates, side by side in this run. "Before" is the update path this replaced, reproduced
 * here as it was (core/workflow/planTree.ts `toPlanView`, posted whole by ui/planPanel.ts): per event, the selected plan's
 * records with every step's hints looked up again, and the whole snapshot serialised. "After" is the panel's path
 * now: PlanPresenter (step views reused by record), diffPanel against the state the webview holds, and the patch
 * serialised. The plan is the fixture's real `plan_big` answer; three small plans await approval beside it (the
 * switcher lists them). The webview's own rendering needs a DOM and is measured in e2e/specs/longPlan.test.mjs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalHash } from '../src/core/plan/approval';
import { classifyResult } from '../src/core/plan/classify';
import type { OrchestratedPlan } from '../src/core/plan/plan';
import { lineage, nestedPlans } from '../src/core/workflow/planTree';
import { diffPanel } from '../src/core/present/panelDiff';
import { PlanPresenter } from '../src/core/present/planItem';
import { planBadge } from '../src/core/present/planWords';
import { planTitle } from '../src/core/present/workflowWords';
import { stepHint } from '../src/core/base/toolHints';
import type { ToolResult } from '../src/core/base/toolResult';
import { EMPTY_WORKFLOW, getPlan, reduce, type WorkflowEvent, type WorkflowState } from '../src/core/workflow/workflow';
import type { PanelState, ToWebview } from '../src/shared/protocol/panel';
import { figure, ms, type Figure } from './figure';
import { rawFixtureClient } from './servers';
import { interleave } from './stats';

const STEPS = 1000;
/** Events timed per side and run: a slice of the run's middle (the whole run takes the old path half a minute). */
const WINDOW = 200;

export async function panelUpdateFigures(log: (line: string) => void): Promise<Figure[]> {
  log(`panel updates: a ${STEPS}-step plan from the fixture…`);
  const dir = mkdtempSync(join(tmpdir(), 'plangate-bench-panel-'));
  let plan: OrchestratedPlan;
  let tools: { name: string; annotations?: unknown }[];
  try {
    const client = await rawFixtureClient(dir);
    try {
      const received = classifyResult((await client.callTool({ name: 'plan_big', arguments: { steps: STEPS } })) as ToolResult);
      if (received.kind !== 'plan') throw new Error('plan_big did not classify as a plan');
      plan = received.plan;
      tools = (await client.listTools()).tools;
    } finally {
      await client.close().catch(() => undefined);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // As the extension's registry answers it: the tool's annotations from the server's tool list.
  const annotations = (tool: string) => tools.find((t) => t.name === tool)?.annotations;

  const origin = { server: 'fixture', tool: 'plan_big', args: { steps: STEPS }, entrance: 'manual' as const };
  let s: WorkflowState = EMPTY_WORKFLOW;
  const put = (e: WorkflowEvent) => {
    s = reduce(s, e);
  };
  for (const id of ['a', 'b', 'c'])
    put({ type: 'planReceived', at: 1, planId: id, origin, plan: { ...plan, next_actions: plan.next_actions.slice(0, 3) } });
  put({ type: 'planReceived', at: 2, planId: 'big', origin, plan });
  put({ type: 'resolved', at: 3, planId: 'big', steps: getPlan(s, 'big')!.steps.map(() => ({ server: 'fixture', crossServer: false })) });
  put({ type: 'approved', at: 4, planId: 'big', approvalHash: approvalHash(getPlan(s, 'big')!) });
  // The states of the run (reduced once, outside the timing: the reducer's cost is the same on both sides).
  const states: WorkflowState[] = [s];
  for (let step = 0; step < STEPS; step++) {
    put({ type: 'stepStarted', at: 10 + step, planId: 'big', step, server: 'fixture', crossServer: false });
    states.push(s);
    put({ type: 'stepSucceeded', at: 10 + step, planId: 'big', step, summary: `ok ${step}` });
    states.push(s);
  }
  const items = (state: WorkflowState) =>
    ['a', 'b', 'c', 'big'].map((id) => ({
      id: `plan:${id}`,
      kind: 'plan' as const,
      title: planTitle(state.plans[id]!, 40),
      badge: planBadge(state.plans[id]!),
    }));
  const from = STEPS - WINDOW / 2;
  const window = states.slice(from, from + WINDOW);

  let bytesBefore = 0;
  let bytesAfter = 0;
  const before = () => {
    bytesBefore = 0;
    for (const state of window) {
      const selected = {
        kind: 'plan',
        id: 'plan:big',
        title: planTitle(state.plans.big!, 40),
        view: legacyPlanView(state, 'big', annotations),
      };
      bytesBefore += JSON.stringify({ type: 'state', state: { items: items(state), selected } }).length;
    }
  };
  const presenter = new PlanPresenter();
  const snapshot = (state: WorkflowState): PanelState => ({
    items: items(state),
    selected: {
      kind: 'plan',
      id: 'plan:big',
      title: planTitle(state.plans.big!, 40),
      view: presenter.present(state, 'big', { annotations })!,
    },
  });
  const after = () => {
    bytesAfter = 0;
    let held = snapshot(states[from - 1]!);
    let seq = 0;
    for (const state of window) {
      const next = snapshot(state);
      const patch = diffPanel(held, next);
      held = next;
      if (patch) bytesAfter += JSON.stringify({ type: 'patch', seq: ++seq, patch } satisfies ToWebview).length;
    }
  };
  log(`panel updates: ${WINDOW} events of the run, before and after…`);
  const t = await interleave(after, before, { warmup: 2, runs: 9, budgetMs: 30_000 });
  const per = (v: number) => ms(v / WINDOW);
  return [
    figure(
      'panel_update_cost_1000_steps',
      `panel update per event, ${STEPS}-step run: incremental / whole snapshot`,
      t.ratio,
      'x',
      0.1,
      0.02, // 0.052× measured: far inside; the band only absorbs timer noise
      `medians of ${t.a.length} interleaved runs of ${WINDOW} events (steps ${from / 2 + 1}–${(from + WINDOW) / 2}): after ${per(t.medianA)}, before ${per(t.medianB)} per event (view model + diff + JSON vs view model + JSON)`,
    ),
    figure(
      'panel_update_bytes_1000_steps',
      `panel update bytes per event, ${STEPS}-step run: patch / whole snapshot`,
      bytesAfter / bytesBefore,
      'x',
      0.01,
      0, // bytes: the same events give the same patches
      `${(bytesAfter / WINDOW / 1024).toFixed(2)} KB per event now, ${(bytesBefore / WINDOW / 1024).toFixed(1)} KB before`,
    ),
  ];
}

/** The update path before incremental updates (core/workflow/planTree.ts `toPlanView` as it was), for the "before" side. */
function legacyPlanView(state: WorkflowState, planId: string, annotations: (tool: string, server: string) => unknown) {
  const record = state.plans[planId]!;
  const children = nestedPlans(state, planId);
  const plans = [record, ...Object.values(children)];
  return {
    record,
    children,
    lineage: lineage(state, planId),
    hints: Object.fromEntries(
      plans.map((p) => [
        p.id,
        p.steps.map((step) =>
          step.call.tool === 'ask_user' ? null : stepHint(annotations(step.call.tool, step.server ?? p.origin.server)),
        ),
      ]),
    ),
    pending: [],
    readOnly: false,
    approvalHashes: Object.fromEntries(plans.filter((p) => p.phase === 'awaiting_approval').map((p) => [p.id, approvalHash(p)])),
  };
}
