// What is approved is what can be read (issue 24, items 5 and 9): the single-call card and a plan step show every
// character of their arguments (a scrolling block, its size said), not the first 20,000 or 50,000 while the button
// sends them all; an ask form shows the call its answer makes — server / tool and the arguments with the answers merged
// in, live. The renderers build nodes through a tiny `document`, so a stand-in that records nodes is enough to read what
// the user would see.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallCardView } from '../../src/shared/protocol/cards';
import type { PlanItemView } from '../../src/shared/protocol/plan';
import { PlanPresenter } from '../../src/core/present/planItem';
import type { OrchestratedPlan } from '../../src/core/plan/plan';
import { EMPTY_WORKFLOW } from '../../src/core/workflow/workflow';
import { apply } from './helpers/applyEvents';
import { byClass, find, installFakeDom, type FakeNode } from './helpers/fakeDom';

let renderPlan: (view: PlanItemView) => unknown;
let renderCallCard: (itemId: string, view: CallCardView) => unknown;
const posted: unknown[] = [];
before(async () => {
  // Step 1's arguments open, as after the user unfolded them.
  installFakeDom(posted, { open: { 'args:p1:0': true }, drafts: {} });
  const webview = (name: string) => import(`../../src/webview/${name}`) as Promise<Record<string, unknown>>;
  renderPlan = (await webview('plan/planView')).renderPlan as typeof renderPlan;
  renderCallCard = (await webview('callCard')).renderCallCard as typeof renderCallCard;
});

/** A string of `n` characters that ends with a marker the user must be able to read. */
const long = (n: number, end: string) => 'x'.repeat(n - end.length) + end;

describe('every argument is shown', () => {
  it('the single-call card shows all of a 30,000-character argument, and says its size', () => {
    const view: CallCardView = {
      server: 'demo',
      tool: 'write_file',
      caller: 'The chat agent',
      args: { path: 'a.txt', content: long(30_000, 'THE-END-rm -rf ~') },
      because: 'Asked because: destructive',
      ruleId: 'plangate:destructive',
      ruleSource: "Plangate's default",
      canAlwaysAllow: false,
    };
    const card = renderCallCard('c1', view) as FakeNode;
    const [args] = byClass(card, 'card-args');
    assert.ok(args, 'the arguments block');
    const sent = JSON.stringify(view.args, null, 2);
    assert.equal(args.textContent, sent, 'every character the button sends is on the card');
    assert.match(args.textContent, /THE-END-rm -rf ~"\n}$/);
    assert.equal(args.attributes.get('tabindex'), '0', 'the block scrolls by keyboard too');
    assert.match(byClass(card, 'args-size')[0]!.textContent, new RegExp(`^${sent.length.toLocaleString('en-US')} characters`));
  });

  it("a plan step's opened arguments show all of a 60,000-character argument, and say its size", () => {
    const plan: OrchestratedPlan = {
      kind: 'orchestrated_plan',
      version: '1',
      status: 'ok',
      instruction: 'write a big file',
      next_actions: [{ tool: 'write_file', args: { path: 'big.txt', content: long(60_000, 'TAIL-MARKER') } }],
    };
    const s = apply(EMPTY_WORKFLOW, {
      type: 'planReceived',
      at: 1,
      planId: 'p1',
      origin: { server: 'demo', tool: 'plan', args: {}, entrance: 'manual' },
      plan,
    });
    const view = new PlanPresenter().present(s, 'p1')!;
    const root = renderPlan(view) as FakeNode;
    const [args] = find(root, (n) => n.attributes.get('aria-label') === 'Arguments of step 1');
    assert.ok(args, 'the opened arguments block');
    assert.match(args.textContent, /TAIL-MARKER"\n}$/, 'the last characters are there');
    assert.equal(args.textContent.length, JSON.stringify(plan.next_actions[0]!.args, null, 2).length);
    assert.match(byClass(root, 'args-size')[0]!.textContent, /^60,0\d\d characters/);
  });
});

describe('the ask form shows the call its answer makes', () => {
  it('server / tool, and the arguments with the answers merged in, updated as the user types', () => {
    const plan: OrchestratedPlan = {
      kind: 'orchestrated_plan',
      version: '1',
      status: 'error',
      instruction: 'Which component?',
      next_actions: [],
      ask: { prompt: 'Which one?', fields: [{ name: 'count', type: 'number', required: true }] },
    };
    const s = apply(EMPTY_WORKFLOW, {
      type: 'planReceived',
      at: 1,
      planId: 'p1',
      origin: { server: 'planner', tool: 'plan_deploy', args: { service: 'billing', count: 1 }, entrance: 'manual' },
      plan,
    });
    const view = new PlanPresenter().present(s, 'p1')!;
    assert.equal(view.plans.p1!.notOk?.ask?.answerable, true, 'the form is answerable');
    const root = renderPlan(view) as FakeNode;
    assert.match(byClass(root, 'ask-call-target')[0]!.textContent, /^planner \/ plan_deploy$/);
    const callArgs = () => byClass(byClass(root, 'ask-call-args')[0]!, 'args-full')[0]!.textContent;
    assert.deepEqual(JSON.parse(callArgs()), { service: 'billing', count: 1 }, 'before any answer: the first arguments');
    const [form] = find(root, (n) => n.tagName === 'form');
    const [input] = form!.elements;
    input!.value = '7';
    form!.dispatch('input');
    assert.deepEqual(JSON.parse(callArgs()), { service: 'billing', count: 7 }, 'the answer merged in, as a number');
    form!.dispatch('submit');
    const answer = posted.at(-1) as { type: string; values: Record<string, string>; shown: Record<string, unknown> };
    assert.equal(answer.type, 'answerAsk');
    assert.deepEqual({ ...answer.values }, { count: '7' });
    assert.deepEqual(answer.shown, { service: 'billing', count: 7 }, 'the answer carries the call it showed');
  });
});
