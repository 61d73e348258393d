// The broker that lets the engine ask and the panel answer without either referring to the other
// (core/base/broker.ts): unserved questions get the refusal, one answerer at a time, and a disposed answerer is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Broker } from '../../src/core/base/broker';

type Ask = (call: string, n: number) => Promise<string>;

test('without an answerer every question gets the unserved answer, with its arguments', async () => {
  const broker = new Broker<Ask>(async (call, n) => `refused ${call} ${n}`);
  assert.equal(broker.served, false);
  assert.equal(await broker.ask('delete', 1), 'refused delete 1');
});

test('an answerer answers from serve() until it is disposed; then the unserved answer again', async () => {
  const broker = new Broker<Ask>(async () => 'refused');
  const asked: [string, number][] = [];
  const served = broker.serve(async (call, n) => {
    asked.push([call, n]);
    return `allowed ${call}`;
  });
  assert.equal(broker.served, true);
  assert.equal(await broker.ask('write', 2), 'allowed write');
  assert.deepEqual(asked, [['write', 2]]);
  served.dispose();
  assert.equal(broker.served, false);
  assert.equal(await broker.ask('write', 3), 'refused');
  assert.deepEqual(asked, [['write', 2]], 'a disposed answerer hears nothing more');
});

test('a second answerer is refused while the first serves (no question answered twice), and may serve after it', async () => {
  const broker = new Broker<Ask>(async () => 'refused');
  const first = broker.serve(async () => 'first');
  assert.throws(() => broker.serve(async () => 'second'), /answered elsewhere already/);
  assert.equal(await broker.ask('x', 0), 'first');
  // Disposing a stale registration twice must not unseat a later answerer.
  first.dispose();
  const second = broker.serve(async () => 'second');
  first.dispose();
  assert.equal(await broker.ask('x', 0), 'second');
  second.dispose();
});

test('ask can be handed around unbound (as the door and the registry take it)', async () => {
  const broker = new Broker<Ask>(async () => 'refused');
  const { ask } = broker;
  broker.serve(async (call) => `ok ${call}`);
  assert.equal(await ask('y', 1), 'ok y');
});
