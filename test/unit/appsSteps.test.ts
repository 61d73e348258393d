// Server apps beyond Call Tool: a plan step whose tool has an app offers Open app once it succeeded (core/present/
// planItem.ts), the gate hands the step's result itself to whoever shows the app (gate.ts onDidStepResult), and an
// agent's plain result of an app tool is handed on for the panel to show (core/agent/agentCall.ts showPlain). Against the
// fixture server in memory; its plan_app plan has a plain step and then a step on the app tool app_panel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixtureServer, readCallLog } from '../../fixture/fixtureServer';
import { appResourceUri } from '../../src/core/apps/appTool';
import { Gate } from '../../src/core/engine/gate';
import { createGateHandler } from '../../src/core/agent/agentCall';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { CancellationTokenSource, Emitter } from '../../src/core/base/lifecycle';
import { PlanPresenter } from '../../src/core/present/planItem';
import type { StepResult } from '../../src/core/engine/runner';
import type { PlanRecord } from '../../src/core/workflow/workflow';
import { connectInMemory } from './helpers/inMemoryInvoker';

async function setup(t: { after(fn: () => unknown): void }) {
  const root = mkdtempSync(join(tmpdir(), 'plangate-app-steps-'));
  const callLog = join(root, 'calls.jsonl');
  const conn = await connectInMemory([{ name: 'fixture', server: createFixtureServer({ root, callLogFile: callLog }) }]);
  let n = 0;
  const workflow = new Workflow(new MemoryLedgerSink());
  const gate = new Gate(workflow, {
    invoker: conn.invoker,
    settings: () => ({ stepTimeoutMs: 10_000, allowCrossServer: true }),
    newId: () => `p${++n}`,
  });
  t.after(async () => {
    gate.dispose();
    await conn.close();
    rmSync(root, { recursive: true, force: true });
  });
  const tools = await conn.invoker.definitions('fixture');
  const calls = () => (existsSync(callLog) ? readCallLog(callLog).map((c) => c.tool) : []);
  return { gate, workflow, conn, tools, calls };
}

test('a plan step on an app tool: its result reaches onDidStepResult, and only that step offers Open app once it succeeded', async (t) => {
  const s = await setup(t);
  const heard: StepResult[] = [];
  s.gate.onDidStepResult((r) => heard.push(r));
  const result = await s.conn.invoker.callTool('fixture', 'plan_app', { label: 'Ada' });
  const received = s.gate.receive({ server: 'fixture', tool: 'plan_app', args: { label: 'Ada' }, entrance: 'manual' }, result);
  assert.equal(received.kind, 'plan');
  const planId = (received as { planId: string }).planId;

  // The page each step's tool carries, as the panel looks it up: one lookup per tool and server per build.
  const lookups: string[] = [];
  const appOf = (tool: string, server: string) => {
    lookups.push(`${server}/${tool}`);
    return appResourceUri(s.tools.find((x) => x.name === tool));
  };
  const presenter = new PlanPresenter();
  const before = presenter.present(s.workflow.state, planId, { appOf })!.plans[planId]!;
  assert.deepEqual(
    before.steps.map((x) => x.app),
    [undefined, undefined],
    'nothing to open before the steps ran',
  );
  assert.deepEqual(lookups, [], 'no lookups for steps that have not succeeded');

  await s.gate.resolve(planId);
  assert.equal(await s.gate.approve(planId), undefined);
  const done = (await s.gate.whenSettled(planId)) as PlanRecord;
  assert.equal(done.outcome, 'completed');
  assert.deepEqual(s.calls(), ['plan_app', 'succeed', 'app_panel']);

  // Both steps succeeded; the hook heard both results whole (the workflow keeps only a summary).
  assert.deepEqual(
    heard.map((r) => [r.step, r.server, r.tool, r.args]),
    [
      [0, 'fixture', 'succeed', { message: 'hello' }],
      [1, 'fixture', 'app_panel', { label: 'Ada' }],
    ],
  );
  assert.deepEqual(heard[1]!.result.content, [{ type: 'text', text: 'App panel for Ada' }]);

  const after = presenter.present(s.workflow.state, planId, { appOf })!.plans[planId]!;
  assert.deepEqual(
    after.steps.map((x) => x.app),
    [undefined, 'ui://fixture/panel-app'],
    'Open app only on the step whose tool has an app',
  );
  assert.deepEqual(lookups.sort(), ['fixture/app_panel', 'fixture/succeed']);
  const again = presenter.present(s.workflow.state, planId, { appOf })!.plans[planId]!;
  assert.equal(again.steps[1], after.steps[1], 'an unchanged step keeps its view (no new lookups, no re-render)');
  assert.equal(lookups.length, 2);
});

test('a failed step on an app tool is not handed on and offers no app', async (t) => {
  const s = await setup(t);
  const heard: StepResult[] = [];
  s.gate.onDidStepResult((r) => heard.push(r));
  const result = await s.conn.invoker.callTool('fixture', 'plan_failing', {});
  const received = s.gate.receive({ server: 'fixture', tool: 'plan_failing', args: {}, entrance: 'manual' }, result);
  const planId = (received as { planId: string }).planId;
  await s.gate.resolve(planId);
  await s.gate.approve(planId);
  for (let i = 0; i < 200 && s.workflow.state.plans[planId]!.phase !== 'blocked'; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(s.workflow.state.plans[planId]!.phase, 'blocked');
  assert.deepEqual(
    heard.map((r) => r.tool),
    ['succeed'],
    'the failed step is not heard',
  );
  const view = new PlanPresenter().present(s.workflow.state, planId, { appOf: () => 'ui://any/page' })!.plans[planId]!;
  assert.deepEqual(
    view.steps.map((x) => x.app),
    ['ui://any/page', undefined, undefined],
    'only a step that succeeded offers its app',
  );
  s.gate.stop(planId);
});

test("an agent's plain result is handed to showPlain unchanged; a plan is not", async (t) => {
  const s = await setup(t);
  const state = new Emitter<{ state: string }>();
  const server = { state: 'running', tools: s.tools, onDidChangeState: state.event };
  const plain: string[] = [];
  const shown: string[] = [];
  const handler = createGateHandler({
    registry: { get: (name) => (name === 'fixture' ? server : undefined) },
    gate: s.gate,
    show: ({ tool, received }) => shown.push(`${tool} → ${received.kind}`),
    showPlain: ({ server: srv, tool, args, result }) =>
      plain.push(`${srv}/${tool} ${JSON.stringify(args)} ${JSON.stringify(result.content)}`),
  });
  const cts = new CancellationTokenSource();
  const context = { token: cts.token, progress: () => undefined };
  const result = await handler.callTool('fixture', 'app_panel', { label: 'Bo' }, context);
  assert.deepEqual(result.content, [{ type: 'text', text: 'App panel for Bo' }], 'the agent gets the result as it is');
  assert.deepEqual(plain, [`fixture/app_panel {"label":"Bo"} [{"type":"text","text":"App panel for Bo"}]`]);
  assert.deepEqual(shown, []);

  // A plan goes to show (the panel), not to showPlain; the agent's call waits for it, so reject it at once.
  const sub = s.workflow.onDidChange(({ event }) => {
    if (event.type === 'planReceived') queueMicrotask(() => s.gate.reject(event.planId, 'not now'));
  });
  await handler.callTool('fixture', 'plan_app', {}, context);
  sub.dispose();
  assert.deepEqual(shown, ['plan_app → plan']);
  assert.equal(plain.length, 1, 'a plan is not a plain result');
  cts.dispose();
});
