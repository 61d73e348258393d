// The plan panel before and after a run, as the user reads it (issue 29's panel frictions): after Approve and run, what
// the run changed (Changes, with Revert) comes before the Safety card and the steps — below them it sat under the
// fold, behind the follow-up bar pinned at the bottom; before the run, a glob's count says it is what matches now, so
// "0 files" no longer reads as "touches nothing"; the tools' hints read as a sentence.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeView, TouchedGlobView } from '../../src/shared/protocol/files';
import type { PlanItemView } from '../../src/shared/protocol/plan';
import { approvalHash } from '../../src/core/plan/approval';
import type { OrchestratedPlan } from '../../src/core/plan/plan';
import { PlanPresenter } from '../../src/core/present/planItem';
import { stepHint } from '../../src/core/base/toolHints';
import { EMPTY_WORKFLOW, getPlan, type WorkflowState } from '../../src/core/workflow/workflow';
import { apply } from './helpers/applyEvents';
import { byClass, find, installFakeDom, type FakeNode } from './helpers/fakeDom';

let renderPlan: (view: PlanItemView) => FakeNode;
before(async () => {
  installFakeDom([], { open: {}, drafts: {} });
  // A computed path: the root type check (no DOM types) must not follow it into the webview.
  const view = 'plan/planView';
  renderPlan = ((await import(`../../src/webview/${view}`)) as { renderPlan: typeof renderPlan }).renderPlan;
});

const plan: OrchestratedPlan = {
  kind: 'orchestrated_plan',
  version: '1',
  status: 'ok',
  instruction: 'Scaffold Payroll screen and components.',
  safety: { writes_code: true, touches_files: ['src/modules/payroll/**'] },
  next_actions: [
    { tool: 'create_screen', args: { screen: 'Payroll' } },
    { tool: 'create_component', args: { name: 'A' } },
  ],
  follow_up: 'Wire the new components to the API now?',
};

function received(): WorkflowState {
  return apply(EMPTY_WORKFLOW, {
    type: 'planReceived',
    at: 1,
    planId: 'p1',
    origin: { server: 'fixture', tool: 'plan_scaffold', args: {}, entrance: 'manual' },
    plan,
  });
}

function ran(): WorkflowState {
  let s = received();
  s = apply(s, { type: 'approved', at: 2, planId: 'p1', approvalHash: approvalHash(getPlan(s, 'p1')!) });
  for (const step of [0, 1])
    s = apply(
      s,
      { type: 'stepStarted', at: 3 + step, planId: 'p1', step, server: 'fixture', crossServer: false },
      { type: 'stepSucceeded', at: 3 + step, planId: 'p1', step, summary: 'ok' },
    );
  return s;
}

const glob = (count: number): TouchedGlobView[] => [{ glob: 'src/modules/payroll/**', files: [], count, outside: false }];
const change: ChangeView = {
  path: 'src/modules/payroll/A.tsx',
  kind: 'created',
  undeclared: false,
  unexpectedCode: false,
  revertable: true,
};

/** The top-level plan's sections and its action bar, in the order they are on screen, by their label. */
function order(root: FakeNode): string[] {
  const [article] = find(root, (n) => n.tagName === 'article');
  return article!.childNodes
    .map((n) => n.attributes.get('aria-label') ?? (n.className.includes('action-bar') ? 'actions' : ''))
    .filter((label) => label !== '');
}

describe('after the run', () => {
  it('Changes (with Revert) come before Safety and the steps, so the follow-up bar does not cover them', () => {
    const s = ran();
    assert.equal(s.plans.p1!.phase, 'follow_up');
    const view = new PlanPresenter().present(s, 'p1', { changes: [change], touched: glob(1) })!;
    const root = renderPlan(view);
    const sections = order(root);
    assert.deepEqual(sections.slice(0, 2), ['Changes (1)', 'Safety'], `sections in order: ${sections.join(', ')}`);
    assert.ok(sections.indexOf('Changes (1)') < sections.indexOf('Steps (2)'), sections.join(', '));
    const [changes] = find(root, (n) => n.attributes.get('aria-label') === 'Changes (1)');
    assert.ok(
      find(changes!, (n) => n.tagName === 'button' && n.textContent.trim() === 'Revert').length === 1,
      'Revert is in the Changes section',
    );
    // After the run a glob's count is a plain count.
    assert.match(find(root, (n) => n.tagName === 'summary')[0]!.textContent, /— 1 file$/);
  });
});

describe('after the run, nothing revertable', () => {
  it('no Revert when no change can be reverted (none is in the checkpoint); it says why instead', () => {
    const outside: ChangeView = {
      path: '.fixture-notes.json',
      kind: 'modified',
      undeclared: true,
      unexpectedCode: false,
      revertable: false,
      note: 'no copy from before',
    };
    const root = renderPlan(new PlanPresenter().present(ran(), 'p1', { changes: [outside], touched: glob(0) })!);
    const [changes] = find(root, (n) => n.attributes.get('aria-label') === 'Changes (1)');
    assert.equal(find(changes!, (n) => n.tagName === 'button' && /Revert/.test(n.textContent)).length, 0);
    assert.match(changes!.textContent, /None of these can be reverted: Plangate has no copy of them from before the plan\./);
    // One revertable change among them brings Revert back.
    const both = renderPlan(new PlanPresenter().present(ran(), 'p1', { changes: [outside, change], touched: glob(1) })!);
    const [section] = find(both, (n) => n.attributes.get('aria-label') === 'Changes (2)');
    assert.equal(find(section!, (n) => n.tagName === 'button' && n.textContent.trim() === 'Revert').length, 1);
  });
});

describe('before the run', () => {
  it("a glob's count says it is what matches now: none is 'no file matches yet', not '0 files'", () => {
    const s = received();
    const none = renderPlan(new PlanPresenter().present(s, 'p1', { touched: glob(0) })!);
    const [summary] = find(none, (n) => n.tagName === 'summary');
    assert.equal(summary!.textContent, 'src/modules/payroll/** — no file matches yet');
    const one = renderPlan(new PlanPresenter().present(s, 'p1', { touched: glob(1) })!);
    assert.equal(find(one, (n) => n.tagName === 'summary')[0]!.textContent, 'src/modules/payroll/** — 1 file matches now');
    const three = renderPlan(new PlanPresenter().present(s, 'p1', { touched: glob(3) })!);
    assert.equal(find(three, (n) => n.tagName === 'summary')[0]!.textContent, 'src/modules/payroll/** — 3 files match now');
  });

  it('a glob outside the workspace is not searched: no count, the flag and why', () => {
    const outside: TouchedGlobView[] = [
      {
        glob: 'src/modules/payroll/**',
        files: [],
        count: 0,
        outside: true,
        note: 'it climbs out of the workspace with ".."; not searched',
      },
    ];
    const root = renderPlan(new PlanPresenter().present(received(), 'p1', { touched: outside })!);
    assert.equal(
      find(root, (n) => n.tagName === 'summary')[0]!.textContent.replace(/\s+/g, ' '),
      'src/modules/payroll/** — outside the workspace (it climbs out of the workspace with ".."; not searched)',
    );
  });

  it("the steps' tools' hints read as one sentence", () => {
    const write = stepHint({ destructiveHint: false });
    const view = new PlanPresenter().present(received(), 'p1', { annotations: () => ({ destructiveHint: false }) })!;
    assert.equal(write.effect, 'write');
    const root = renderPlan(view);
    const [hints] = byClass(root, 'tool-hints');
    assert.equal(hints!.textContent.trim(), "By their tools' own account, 2 steps write.");
  });
});
