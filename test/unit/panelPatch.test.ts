// Patches between panel states (core/present/panelDiff.ts builds them, shared/panelPatch.ts applies them in the
// webview): applying the patch from A to B to A gives B, a patch holds only what changed, and a patch that does not
// fit the state held is refused (the webview then asks for a snapshot).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { approvalHash } from '../../src/core/plan/approval';
import type { ActionCall, OrchestratedPlan } from '../../src/core/plan/plan';
import { diffPanel } from '../../src/core/present/panelDiff';
import { PlanPresenter } from '../../src/core/present/planItem';
import { applyPatch, stepKey } from '../../src/shared/panelPatch';
import type { PanelState } from '../../src/shared/protocol/panel';
import { EMPTY_WORKFLOW, getPlan, type WorkflowEvent, type WorkflowState } from '../../src/core/workflow/workflow';
import { apply } from './helpers/applyEvents';

let clock = 0;
const at = () => ++clock;
const ORIGIN = { server: 'alpha', tool: 'plan_it', args: {}, entrance: 'manual' as const };
const envelope = (n: number): OrchestratedPlan => ({
  kind: 'orchestrated_plan',
  version: '1',
  status: 'ok',
  instruction: 'Many steps',
  follow_up: 'Again?',
  next_actions: Array.from({ length: n }, (_, i): ActionCall => ({ tool: 'noop', args: { i } })),
});

function panelState(
  presenter: PlanPresenter,
  s: WorkflowState,
  planId = 'p',
  items = [{ id: `plan:${planId}`, kind: 'plan' as const, title: 'Many steps' }],
): PanelState {
  return { items, selected: { kind: 'plan', id: `plan:${planId}`, title: 'Many steps', view: presenter.present(s, planId)! } };
}

function received(n: number): WorkflowState {
  const s = apply(EMPTY_WORKFLOW, { type: 'planReceived', at: at(), planId: 'p', origin: ORIGIN, plan: envelope(n) });
  return apply(s, {
    type: 'resolved',
    at: at(),
    planId: 'p',
    steps: getPlan(s, 'p')!.steps.map(() => ({ server: 'alpha', crossServer: false })),
  });
}

type Step = (s: WorkflowState) => WorkflowEvent;
const approveEvent =
  (id: string): Step =>
  (s) => ({ type: 'approved', at: at(), planId: id, approvalHash: approvalHash(getPlan(s, id)!) });

/** The events of a whole run of plan `p` (step 2 answers with a nested plan, which runs too), each made from the state before it. */
function runEvents(n: number): Step[] {
  const out: Step[] = [approveEvent('p')];
  for (let step = 0; step < n; step++) {
    out.push(() => ({ type: 'stepStarted', at: at(), planId: 'p', step, server: 'alpha', crossServer: false }));
    out.push(() => ({ type: 'stepProgress', at: at(), planId: 'p', step, progress: { progress: 1, total: 2, message: 'half' } }));
    if (step === 1) {
      out.push(() => ({ type: 'planReceived', at: at(), planId: 'c', origin: ORIGIN, plan: envelope(1), parentId: 'p', parentStep: 1 }));
      out.push((s) => ({
        type: 'resolved',
        at: at(),
        planId: 'c',
        steps: getPlan(s, 'c')!.steps.map(() => ({ server: 'alpha', crossServer: false })),
      }));
      out.push(approveEvent('c'));
      out.push(() => ({ type: 'stepStarted', at: at(), planId: 'c', step: 0, server: 'alpha', crossServer: false }));
      out.push(() => ({ type: 'stepSucceeded', at: at(), planId: 'c', step: 0, summary: 'nested done' }));
      out.push(() => ({ type: 'followUpAnswered', at: at(), planId: 'c', answer: 'no' }));
    } else {
      out.push(() => ({ type: 'stepSucceeded', at: at(), planId: 'p', step, summary: `step ${step} done` }));
    }
  }
  out.push(() => ({ type: 'followUpAnswered', at: at(), planId: 'p', answer: 'no' }));
  return out;
}

describe('panel patches', () => {
  it('take the webview from each state of a run to the next, event by event', () => {
    let s = received(5);
    const presenter = new PlanPresenter();
    let held = panelState(presenter, s);
    let patches = 0;
    for (const make of runEvents(5)) {
      const event = make(s);
      s = apply(s, event);
      const next = panelState(presenter, s);
      const patch = diffPanel(held, next);
      if (!patch) {
        assert.deepEqual(held, next, `${event.type}: no patch although the state changed`);
        continue;
      }
      patches++;
      const applied = applyPatch(held, patch);
      assert.ok(applied, `${event.type}: the patch applies`);
      assert.deepEqual(
        JSON.parse(JSON.stringify(applied.state)),
        JSON.parse(JSON.stringify(next)),
        `${event.type}: applying the patch gives the next state`,
      );
      held = applied.state;
    }
    assert.ok(patches >= 15, `a patch per visible change (${patches})`);
  });

  it('carry one step and the plan head when one step of a 1,000-step plan starts, not the plan', () => {
    let s = received(1000);
    s = apply(s, { type: 'approved', at: at(), planId: 'p', approvalHash: approvalHash(getPlan(s, 'p')!) });
    const presenter = new PlanPresenter();
    const before = panelState(presenter, s);
    s = apply(s, { type: 'stepStarted', at: at(), planId: 'p', step: 0, server: 'alpha', crossServer: false });
    const patch = diffPanel(before, panelState(presenter, s))!;
    assert.equal(patch.items, undefined);
    assert.equal(patch.selected, undefined);
    assert.deepEqual(
      patch.plan?.steps?.map((x) => [x.planId, x.index, x.view.stateText]),
      [['p', 0, 'running']],
    );
    assert.deepEqual(
      patch.plan?.heads?.map((x) => x.actions),
      [{ kind: 'running', progress: 'Running step 1 of 1000' }],
    );
    const size = JSON.stringify(patch).length;
    assert.ok(size < 2_000, `the patch is ${size} characters`);
    const applied = applyPatch(before, patch)!;
    assert.deepEqual([...applied.changes.steps], [stepKey('p', 0)]);
    assert.deepEqual([...applied.changes.heads], ['p']);
    assert.equal(applied.changes.selected, false);
  });

  it('send nothing when nothing the panel shows changed', () => {
    const s = received(3);
    const presenter = new PlanPresenter();
    assert.equal(diffPanel(panelState(presenter, s), panelState(presenter, s)), undefined);
    assert.equal(diffPanel(panelState(presenter, s), panelState(new PlanPresenter(), s)), undefined, 'equal views built apart');
  });

  it('send the item whole when another one is selected, and the switcher when the list changes', () => {
    const s = apply(received(2), { type: 'planReceived', at: at(), planId: 'q', origin: ORIGIN, plan: envelope(1) });
    const presenter = new PlanPresenter();
    const items = [
      { id: 'plan:p', kind: 'plan' as const, title: 'Many steps' },
      { id: 'plan:q', kind: 'plan' as const, title: 'Many steps', badge: 'awaiting approval' },
    ];
    const a = panelState(presenter, s, 'p', items.slice(0, 1));
    const b = panelState(presenter, s, 'q', items);
    const patch = diffPanel(a, b)!;
    assert.deepEqual(patch.items, items);
    assert.equal(patch.selected && patch.selected.kind === 'plan' ? patch.selected.view.rootId : undefined, 'q');
    const applied = applyPatch(a, patch)!;
    assert.deepEqual(applied.state, b);
    assert.equal(applied.changes.selected, true);
    assert.equal(applied.changes.items, true);
    assert.deepEqual(diffPanel(b, { items: [] }), { items: [], selected: null });
    assert.deepEqual(applyPatch(b, { items: [], selected: null })!.state, { items: [], selected: undefined });
  });

  it('refuse a plan patch for an item the webview does not show, or a step it does not hold', () => {
    const s = received(2);
    const presenter = new PlanPresenter();
    const held = panelState(presenter, s);
    const step = held.selected!.kind === 'plan' ? held.selected!.view.plans.p!.steps[0]! : undefined;
    assert.equal(applyPatch(held, { plan: { itemId: 'plan:other', steps: [{ planId: 'p', index: 0, view: step! }] } }), undefined);
    assert.equal(applyPatch(held, { plan: { itemId: 'plan:p', steps: [{ planId: 'p', index: 7, view: step! }] } }), undefined);
    assert.equal(applyPatch(held, { plan: { itemId: 'plan:p', steps: [{ planId: 'nope', index: 0, view: step! }] } }), undefined);
    assert.equal(applyPatch({ items: [] }, { plan: { itemId: 'plan:p' } }), undefined);
  });

  it('leave the state it was given as it was', () => {
    let s = received(3);
    const presenter = new PlanPresenter();
    const held = panelState(presenter, s);
    const copy = JSON.parse(JSON.stringify(held));
    s = apply(s, { type: 'skipMarked', at: at(), planId: 'p', step: 1, skip: true });
    const applied = applyPatch(held, diffPanel(held, panelState(presenter, s))!)!;
    assert.deepEqual(JSON.parse(JSON.stringify(held)), copy);
    assert.equal(applied.state.selected?.kind === 'plan' && applied.state.selected.view.plans.p!.steps[1]!.skipRequested, true);
  });
});
