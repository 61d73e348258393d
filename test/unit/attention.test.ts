// Attention (issue 28): when a card or a plan waits and the window is not focused, the status bar, a badge and one
// notification per wait say so, with how long it waited; nothing while the window is focused. The words
// (core/present/attention.ts) and the wiring (ui/attention.ts) against a fake window, a fake clock and a fake timer.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../src/core/base/lifecycle';
import { approvalHash } from '../../src/core/plan/approval';
import type { ActionCall } from '../../src/core/plan/plan';
import {
  attentionView,
  cardWaits,
  noteFirstSeen,
  noticeSafe,
  noticeText,
  planWaits,
  waitWords,
  type Wait,
} from '../../src/core/present/attention';
import { EMPTY_WORKFLOW, getPlan, type WorkflowState } from '../../src/core/workflow/workflow';
import { Attention, ATTENTION_TICK_MS } from '../../src/ui/attention';
import { apply } from './helpers/applyEvents';

const MIN = 60_000;
const ORIGIN = { server: 'alpha', tool: 'plan_scaffold', args: {}, entrance: 'manual' as const };
const steps = (...tools: string[]) => tools.map((tool, i): ActionCall => ({ tool, args: {}, ...(i === 1 ? { confirm: true } : {}) }));
const receive = (s: WorkflowState, id: string, at: number, instruction = 'Scaffold the payroll screen') =>
  apply(s, {
    type: 'planReceived',
    at,
    planId: id,
    origin: ORIGIN,
    plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction, next_actions: steps('a', 'b'), follow_up: 'Open it?' },
  });
const approve = (s: WorkflowState, id: string, at: number) =>
  apply(s, { type: 'approved', at, planId: id, approvalHash: approvalHash(getPlan(s, id)!) });
const card = (key: string, what = `Allow ${key}?`): Wait => ({ key: `card:${key}`, kind: 'card', what, open: { item: key } });

describe('attention words', () => {
  it('says how long in minutes, hours and days, never in seconds (the words change at most once a minute)', () => {
    assert.equal(waitWords(0), '<1 min');
    assert.equal(waitWords(59_999), '<1 min');
    assert.equal(waitWords(MIN), '1 min');
    assert.equal(waitWords(59 * MIN + 59_000), '59 min');
    assert.equal(waitWords(60 * MIN), '1 h');
    assert.equal(waitWords(65 * MIN), '1 h 5 min');
    assert.equal(waitWords(49 * 60 * MIN), '2 d');
    assert.equal(waitWords(-5), '<1 min', 'a clock that went back is no negative wait');
  });

  it('nothing waits: no view', () => {
    assert.equal(attentionView([], new Map(), 1000), undefined);
  });

  it('one card: singular, and the time since it was first seen', () => {
    const seen = noteFirstSeen(new Map(), [card('one')], 1000);
    const view = attentionView([card('one')], seen, 1000 + 2 * MIN + 5000)!;
    assert.equal(view.count, 1);
    assert.equal(view.text, '1 card waiting · 2 min');
    assert.match(view.tooltip, /^Plangate — waiting for you:\n• Allow one\? · 2 min\n/);
  });

  it('several waits: plural, cards and plans counted apart, the longest wait in the text and first in the list', () => {
    const t0 = 10 * MIN;
    let s = receive(EMPTY_WORKFLOW, 'p1', t0);
    s = receive(s, 'p2', t0 + 3 * MIN, 'Second plan');
    const waits = [card('c1'), ...planWaits(s), card('c2')];
    const seen = noteFirstSeen(new Map(), waits, t0 + 4 * MIN);
    const view = attentionView(waits, seen, t0 + 9 * MIN)!;
    assert.equal(view.text, '2 cards and 2 plans waiting · 9 min');
    assert.deepEqual(
      view.waits.map((w) => [w.key, w.waited]),
      [
        ['plan:p1:approval', '9 min'],
        ['plan:p2:approval', '6 min'],
        ['card:c1', '5 min'],
        ['card:c2', '5 min'],
      ],
    );
    assert.match(view.tooltip, /• Plan "Scaffold the payroll screen" waits for your approval · 9 min/);
  });

  it('a first-seen time is kept while the thing waits, and forgotten when it stops', () => {
    let seen = noteFirstSeen(new Map(), [card('a')], 100);
    seen = noteFirstSeen(seen, [card('a'), card('b')], 500);
    assert.deepEqual(
      [...seen],
      [
        ['card:a', 100],
        ['card:b', 500],
      ],
    );
    seen = noteFirstSeen(seen, [card('b')], 900);
    seen = noteFirstSeen(seen, [card('a'), card('b')], 1200);
    assert.equal(seen.get('card:a'), 1200, 'a card that came back waits afresh');
  });

  it('plans wait for approval, a step confirmation, a follow-up, and when blocked — each since its record says', () => {
    let s = receive(EMPTY_WORKFLOW, 'p', 1000);
    assert.deepEqual(
      planWaits(s).map((w) => [w.key, w.since]),
      [['plan:p:approval', 1000]],
    );
    s = approve(s, 'p', 2000);
    assert.deepEqual(planWaits(s), [], 'an approved plan that runs waits for nobody');
    s = apply(s, { type: 'stepStarted', at: 2100, planId: 'p', step: 0, server: 'alpha', crossServer: false });
    s = apply(s, { type: 'stepSucceeded', at: 3000, planId: 'p', step: 0, summary: 'ok' });
    s = apply(s, { type: 'confirmRequested', at: 3001, planId: 'p', step: 1 });
    const confirm = planWaits(s);
    assert.deepEqual(
      confirm.map((w) => [w.key, w.since]),
      [['plan:p:confirm:1:0', 3000]],
    );
    assert.match(confirm[0]!.what, /step 2 \(b\) waits for your confirmation/);
    s = apply(s, { type: 'confirmAnswered', at: 4000, planId: 'p', step: 1, granted: true });
    s = apply(s, { type: 'stepStarted', at: 4001, planId: 'p', step: 1, server: 'alpha', crossServer: false });
    const failed = apply(s, { type: 'stepFailed', at: 5000, planId: 'p', step: 1, error: 'boom' });
    assert.deepEqual(
      planWaits(failed).map((w) => [w.key, w.since, w.what]),
      [['plan:p:blocked:1:1', 5000, 'Plan "Scaffold the payroll screen" is blocked at step 2']],
    );
    s = apply(s, { type: 'stepSucceeded', at: 6000, planId: 'p', step: 1, summary: 'ok' });
    assert.deepEqual(
      planWaits(s).map((w) => [w.key, w.since]),
      [['plan:p:follow_up', 6000]],
    );
    assert.deepEqual(planWaits(s)[0]!.open, { plan: 'p' });
  });

  it("the panel's cards are waits that open their item", () => {
    const waits = cardWaits([
      { id: 'card:1', kind: 'callCard', title: 'Allow read_file? (3 waiting)' },
      { id: 'review:2', kind: 'resultCard', title: 'Review fetch' },
    ]);
    assert.deepEqual(
      waits.map((w) => [w.key, w.kind, w.what, w.open]),
      [
        ['card:card:1', 'card', 'Allow read_file? (3 waiting)', { item: 'card:1' }],
        ['card:review:2', 'card', 'Review fetch', { item: 'review:2' }],
      ],
    );
  });

  it('a notification names one wait, or the first of several; server text cannot make a link or hide characters', () => {
    const seen = noteFirstSeen(new Map(), [card('x', 'Allow [open](command:workbench.action.quit)\u202e?')], 0);
    const one = attentionView([card('x', 'Allow [open](command:workbench.action.quit)\u202e?')], seen, 3 * MIN)!;
    const text = noticeText(one.waits);
    assert.equal(text, 'Plangate: Allow ［open］(command:workbench.action.quit)⟨U+202E⟩? (waiting 3 min).');
    assert.doesNotMatch(text, /\[[^\]]*\]\(/, 'no markdown link survives');
    const two = attentionView([card('a'), card('b')], noteFirstSeen(new Map(), [card('a'), card('b')], 0), MIN)!;
    assert.equal(noticeText(two.waits), 'Plangate: 2 things wait for you — Allow a? (waiting 1 min), and 1 more.');
    assert.equal(noticeSafe('x'.repeat(200)).length, 80);
  });
});

/** A fake window, clock, timer and notification list around one {@link Attention}. */
function harness(options: { focused?: boolean; notify?: boolean } = {}) {
  let focused = options.focused ?? true;
  let now = 1_000_000;
  let waits: Wait[] = [];
  const focus = new Emitter<boolean>();
  const changed = new Emitter<void>();
  const timers = new Set<{ ms: number; tick: () => void }>();
  const notices: { text: string; open: () => void }[] = [];
  const opened: string[] = [];
  const attention = new Attention({
    window: {
      get focused() {
        return focused;
      },
      onDidChangeFocus: focus.event,
    },
    waits: { current: () => waits, onDidChange: changed.event },
    notify: (text, open) => notices.push({ text, open }),
    notifyEnabled: () => options.notify ?? true,
    open: (w) => opened.push(w.key),
    now: () => now,
    every: (ms, tick) => {
      const t = { ms, tick };
      timers.add(t);
      return { dispose: () => timers.delete(t) };
    },
  });
  let views = 0;
  attention.onDidChange(() => views++);
  return {
    attention,
    notices,
    opened,
    timers,
    get views() {
      return views;
    },
    setWaits(next: Wait[]) {
      waits = next;
      changed.fire();
    },
    setFocused(value: boolean) {
      focused = value;
      focus.fire(value);
    },
    advance(ms: number) {
      now += ms;
      for (const t of [...timers]) t.tick();
    },
    get now() {
      return now;
    },
  };
}

describe('attention wiring', () => {
  it('focused: nothing shown, nothing notified, no timer — the user sees the card', () => {
    const h = harness({ focused: true });
    h.setWaits([card('a')]);
    h.advance(5 * MIN);
    assert.equal(h.attention.view, undefined);
    assert.equal(h.notices.length, 0);
    assert.equal(h.timers.size, 0);
  });

  it('unfocused with nothing waiting: nothing shown and no timer', () => {
    const h = harness({ focused: false });
    assert.equal(h.attention.view, undefined);
    assert.equal(h.timers.size, 0);
  });

  it('the window loses focus with a card waiting: the view says so with the time since the card came, one notification opens it', () => {
    const h = harness({ focused: true });
    h.setWaits([card('a')]);
    h.advance(2 * MIN);
    h.setFocused(false);
    assert.equal(h.attention.view?.text, '1 card waiting · 2 min');
    assert.equal(h.notices.length, 1);
    assert.equal(h.notices[0]!.text, 'Plangate: Allow a? (waiting 2 min).');
    h.notices[0]!.open();
    assert.deepEqual(h.opened, ['card:a']);
    // Still unfocused, the same card: no second notification, however often things change.
    h.setWaits([card('a')]);
    h.setFocused(false);
    h.advance(ATTENTION_TICK_MS);
    assert.equal(h.notices.length, 1);
  });

  it('a new wait while unfocused is notified once; the time is redrawn every 30 s, the view changes only when its words do', () => {
    const h = harness({ focused: false });
    h.setWaits([card('a')]);
    assert.equal(h.notices.length, 1);
    assert.equal(h.timers.size, 1);
    assert.equal([...h.timers][0]!.ms, ATTENTION_TICK_MS);
    const before = h.views;
    h.advance(ATTENTION_TICK_MS);
    assert.equal(h.views, before, 'at 30 s the words ("<1 min") did not change: no redraw');
    h.advance(ATTENTION_TICK_MS);
    assert.equal(h.attention.view?.text, '1 card waiting · 1 min');
    assert.equal(h.views, before + 1);
    h.setWaits([card('a'), card('b')]);
    assert.equal(h.notices.length, 2);
    assert.equal(h.notices[1]!.text, 'Plangate: Allow b? (waiting <1 min).');
    assert.equal(h.attention.view?.text, '2 cards waiting · 1 min');
  });

  it('focus comes back: the view goes, the timer stops; answered waits leave the view', () => {
    const h = harness({ focused: false });
    h.setWaits([card('a'), card('b')]);
    h.setWaits([card('b')]);
    assert.equal(h.attention.view?.count, 1);
    h.setFocused(true);
    assert.equal(h.attention.view, undefined);
    assert.equal(h.timers.size, 0);
    h.setWaits([]);
    h.setFocused(false);
    assert.equal(h.attention.view, undefined);
    assert.equal(h.timers.size, 0, 'nothing waits: no timer');
  });

  it('the setting off: the view still shows, no notification', () => {
    const h = harness({ focused: false, notify: false });
    h.setWaits([card('a')]);
    assert.equal(h.attention.view?.text, '1 card waiting · <1 min');
    assert.equal(h.notices.length, 0);
  });

  it('a plan that waited since before this window (restored after a reload) is shown, not notified', () => {
    const h = harness({ focused: false });
    const s = receive(EMPTY_WORKFLOW, 'old', h.now - 10 * MIN);
    h.setWaits(planWaits(s));
    assert.equal(h.attention.view?.text, '1 plan waiting · 10 min');
    assert.equal(h.notices.length, 0);
  });

  it('disposed: the timer stops', () => {
    const h = harness({ focused: false });
    h.setWaits([card('a')]);
    assert.equal(h.timers.size, 1);
    h.attention.dispose();
    assert.equal(h.timers.size, 0);
  });
});
