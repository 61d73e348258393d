// throttled(): the status bar, the Plans view and the run's progress notification redraw from it, so a 1,000-step run
// costs them a few redraws a second instead of one per workflow event. Driven by node's mock timers: no real time.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import { Emitter, throttled } from '../../src/core/base/lifecycle';

beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
afterEach(() => mock.timers.reset());

test('the first change fires at once; a burst inside the window fires once, when the window ends', () => {
  const source = new Emitter<number>();
  const t = throttled(source.event, 100);
  let fired = 0;
  t(() => fired++);
  source.fire(1);
  assert.equal(fired, 1, 'the first change is not delayed');
  for (let i = 0; i < 1000; i++) source.fire(i);
  assert.equal(fired, 1, 'changes inside the window wait');
  mock.timers.tick(99);
  assert.equal(fired, 1);
  mock.timers.tick(1);
  assert.equal(fired, 2, 'the burst fires once at the end of the window, so the last state is shown');
  mock.timers.tick(1000);
  assert.equal(fired, 2, 'nothing more without a change');
  source.fire(2);
  assert.equal(fired, 3, 'a change after a quiet window fires at once again');
});

test('a steady stream fires once per window, never more', () => {
  const source = new Emitter<void>();
  const t = throttled(source.event, 50);
  let fired = 0;
  t(() => fired++);
  for (let ms = 0; ms < 1000; ms += 5) {
    source.fire();
    mock.timers.tick(5);
  }
  // 1,000 ms of changes every 5 ms: the first at once, then one per 50 ms window.
  assert.ok(fired >= 20 && fired <= 21, `fired ${fired} times`);
});

test('after dispose, nothing fires: not the pending change, not a new one', () => {
  const source = new Emitter<void>();
  const t = throttled(source.event, 100);
  let fired = 0;
  t(() => fired++);
  source.fire();
  source.fire();
  t.dispose();
  mock.timers.tick(500);
  source.fire();
  assert.equal(fired, 1);
});
