// A server's form app staging a collect-mode submission (its Done → collect_form_data), through the real collect engine,
// door, policy and ledger against the fixture server over stdio: the staging is recorded as the app's doing (entrance
// "app", decision by the app), asked on the single-call card as an app's calls are, and not as the user's decision.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyResult } from '../../src/core/plan/classify';
import { CollectEngine, type CollectHost } from '../../src/core/collect/engine';
import { getSubmission } from '../../src/core/forms/reducer';
import { Door, type CallAsk, type CallAskAnswer } from '../../src/core/engine/door';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { DEFAULT_APP_ID, evaluate } from '../../src/core/policy/evaluate';
import { EMPTY_RULES } from '../../src/core/policy/rules';
import { startFixtureStdio } from './helpers/fixture';
import { ClientInvoker } from './helpers/inMemoryInvoker';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const APP = 'ui://fixture/new-model-app';

async function setup(answer: CallAskAnswer) {
  const fx = await startFixtureStdio({ args: [] });
  cleanups.push(() => fx.close());
  const tools = (await fx.client.listTools()).tools;
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  const asked: CallAsk[] = [];
  let n = 0;
  const door = new Door(new ClientInvoker([{ name: 'fx', client: fx.client }]), workflow, {
    allowCrossServer: () => false,
    newId: () => `call-${++n}`,
    policy: (call) => evaluate(EMPTY_RULES, call),
    toolInfo: (_server, tool) => tools.find((t) => t.name === tool),
    ask: async (ask) => {
      asked.push(ask);
      return answer;
    },
  });
  const host: CollectHost = {
    server: (name) => (name === 'fx' ? { state: 'running', tools } : undefined),
    confirmSubmit: async () => true,
    confirmReplace: async () => true,
  };
  let s = 0;
  const engine = new CollectEngine(workflow, door, host, { newId: () => `s${++s}`, timeoutMs: () => 20_000 });
  cleanups.push(() => engine.dispose());
  const args = { model: 'Contact', mode: 'form' };
  const form = classifyResult(
    await door.call({ server: 'fx', tool: 'new_model_app', args, entrance: 'call', decision: { by: 'user', what: 'pressed Call' } }),
    { tool: 'new_model_app' },
  );
  assert.ok(form.kind === 'collect_form');
  const id = engine.receive({ server: 'fx', tool: 'new_model_app', args, entrance: 'manual' }, form.form);
  const sent = () => sink.entries.flatMap(({ event }) => (event.type === 'callSent' && event.tool !== 'new_model_app' ? [event] : []));
  return { fx, engine, workflow, id, asked, sent };
}

test("a form app's staging is recorded with the app as the entrance, asked on the card, never as the user's decision", async () => {
  const h = await setup({ answer: 'once' });
  assert.equal(await h.engine.stage(h.id, { name: 'Ada Lovelace', email: 'ada@example.com', status: 'customer' }, { app: APP }), undefined);
  assert.equal(getSubmission(h.workflow.state.submissions, h.id)?.phase, 'staged');
  const [collect, readBack] = h.sent();
  assert.equal(collect?.tool, 'collect_form_data');
  assert.equal(collect.entrance, 'app');
  assert.deepEqual(collect.decision, {
    by: 'app',
    what: `collect mode: collect_form_data for the form the app ${APP} collected (its Done)`,
  });
  assert.equal(collect.policy?.ruleId, DEFAULT_APP_ID, "asked as an app's call is");
  assert.equal(collect.policy?.coveredBy, 'card');
  assert.equal(collect.policy?.answer, 'once');
  assert.deepEqual(
    h.asked.map((a) => `${a.entrance} ${a.call.tool}`),
    ['app collect_form_data'],
    'one card, for the staging itself',
  );
  assert.equal(readBack?.tool, 'get_form_data');
  assert.equal(readBack.decision.by, 'app', "the read-back after the app's staging is the app's doing too");
  assert.equal(h.sent().filter((e) => e.decision.by === 'user').length, 0, "nothing of the app's staging is recorded as the user's");
});

test("a form app's staging the user denies on the card sends nothing and stages nothing", async () => {
  const h = await setup({ answer: 'deny', note: 'not this' });
  const error = await h.engine.stage(h.id, { name: 'Mallory', email: 'm@example.com', status: 'lead' }, { app: APP });
  assert.match(error ?? '', /denied the call to 'collect_form_data' on server 'fx': not this/);
  assert.notEqual(getSubmission(h.workflow.state.submissions, h.id)?.phase, 'staged');
  assert.deepEqual(
    h.fx.callLog().map((e) => e.tool),
    ['new_model_app'],
    'the server got nothing of the app',
  );
});

test("Plangate's own Stage for review stays the user's decision (entrance collect, no card)", async () => {
  const h = await setup({ answer: 'deny' });
  assert.equal(await h.engine.stage(h.id, { name: 'Ada Lovelace', email: 'ada@example.com', status: 'customer' }), undefined);
  assert.deepEqual(
    h.sent().map((e) => `${e.entrance} ${e.decision.by} ${e.tool}`),
    ['collect user collect_form_data', 'collect user get_form_data'],
  );
  assert.equal(h.asked.length, 0);
});
