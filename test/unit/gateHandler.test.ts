// The agent-call handler (src/core/agent/agentCall.ts) on its own: no socket, no gated server process. Its servers are the
// fixture in memory behind a real Gate and door; the test calls the handler as the gate channel would and plays the
// user through gate.approve / gate.reject. What it checks is each decision the handler makes for an agent's call.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixtureServer, readCallLog } from '../../fixture/fixtureServer';
import type { AgentSummary } from '../../src/core/agent/agentSummary';
import { Gate } from '../../src/core/engine/gate';
import { createGateHandler, type AgentServer, type GateCallContext } from '../../src/core/agent/agentCall';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { CancellationTokenSource, Emitter } from '../../src/core/base/lifecycle';
import type { ToolResult } from '../../src/core/base/toolResult';
import type { WorkflowEvent } from '../../src/core/workflow/workflow';
import { connectInMemory } from './helpers/inMemoryInvoker';

/** A server as the handler sees it, with a state the test sets. */
class FakeServer implements AgentServer {
  private readonly emitter = new Emitter<{ state: string }>();
  readonly onDidChangeState = this.emitter.event;
  readonly serverInfo = { name: 'plangate-fixture', version: '1.0.0' };
  readonly instructions = 'fixture instructions';
  constructor(
    public state: string,
    readonly tools: readonly unknown[],
    public message?: string,
  ) {}
  set(state: string): void {
    this.state = state;
    this.emitter.fire({ state });
  }
}

async function setup(t: TestContext, options: { state?: string; idleTimeoutMs?: number; tools?: unknown[] } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'plangate-handler-'));
  const callLog = join(root, 'calls.jsonl');
  const conn = await connectInMemory([{ name: 'demo', server: createFixtureServer({ root, callLogFile: callLog }) }]);
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  let n = 0;
  const gate = new Gate(workflow, {
    invoker: conn.invoker,
    settings: () => ({ stepTimeoutMs: 10_000, allowCrossServer: true }),
    newId: () => `plan-${++n}`,
  });
  const demo = new FakeServer(options.state ?? 'running', options.tools ?? [{ name: 'noop' }, { name: 'plan_scaffold' }]);
  const shown: string[] = [];
  const handler = createGateHandler({
    registry: { get: (name) => (name === 'demo' ? demo : undefined) },
    gate,
    idleTimeoutMs: options.idleTimeoutMs,
    startWaitMs: 2_000,
    show: ({ tool, received }) => shown.push(`${tool} → ${received.kind}`),
  });
  t.after(async () => {
    gate.dispose();
    await conn.close();
    rmSync(root, { recursive: true, force: true });
  });
  const cts = new CancellationTokenSource();
  const progress: string[] = [];
  const context: GateCallContext = { token: cts.token, progress: (m) => progress.push(m) };
  const call = (tool: string, args: Record<string, unknown> = {}) => handler.callTool('demo', tool, args, context);
  const nextPlan = () =>
    new Promise<string>((resolve) => {
      const sub = workflow.onDidChange(({ event }) => {
        if (event.type === 'planReceived') {
          sub.dispose();
          resolve(event.planId);
        }
      });
    });
  const calls = () => (existsSync(callLog) ? readCallLog(callLog).map((c) => c.tool) : []);
  const recorded = () =>
    sink.entries.map((e) => e.event).filter((e): e is Extract<WorkflowEvent, { type: 'callSent' }> => e.type === 'callSent');
  return { handler, gate, workflow, demo, shown, cts, progress, call, nextPlan, calls, recorded };
}

const summaryOf = (r: ToolResult) => r.structuredContent as unknown as AgentSummary;
const textOf = (r: ToolResult) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

describe('gate handler: plain calls', () => {
  test("a plain result goes back unchanged, through the door on the agent's decision, and is not shown", async (t) => {
    const s = await setup(t);
    const result = await s.call('noop', { note: 'hi' });
    assert.notEqual(result.isError, true);
    assert.equal(summaryOf(result)?.kind, undefined, "a plain result is the server's own, not a summary");
    assert.deepEqual(s.calls(), ['noop']);
    const [sent] = s.recorded();
    assert.equal(sent?.entrance, 'agent');
    assert.equal(sent?.decision.by, 'agent');
    assert.deepEqual(sent?.args, { note: 'hi' });
    assert.deepEqual(s.shown, []);
    assert.equal(Object.keys(s.workflow.state.plans).length, 0);
  });

  test('an unknown server or a server that is not running answers with an error and sends nothing', async (t) => {
    const s = await setup(t, { state: 'error' });
    s.demo.message = 'spawn failed';
    const stopped = await s.call('noop');
    assert.equal(stopped.isError, true);
    assert.match(textOf(stopped), /server 'demo' is error \(spawn failed\)/);
    const unknown = await s.handler.callTool('nowhere', 'noop', {}, { token: s.cts.token, progress: () => undefined });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /no server named 'nowhere'/);
    assert.deepEqual(s.calls(), []);
    assert.deepEqual(s.recorded(), []);
  });

  test('a call waits for a server that is starting, then goes through', async (t) => {
    const s = await setup(t, { state: 'starting' });
    const pending = s.call('noop');
    setTimeout(() => s.demo.set('running'), 50);
    const result = await pending;
    assert.notEqual(result.isError, true);
    assert.deepEqual(s.calls(), ['noop']);
  });

  test("tools/list offers an app tool without its app, and leaves out a tool for the server's app only", async (t) => {
    const app = { name: 'app_panel', _meta: { ui: { resourceUri: 'ui://fixture/panel', visibility: ['model', 'app'] } } };
    const s = await setup(t, { tools: [app, { name: 'app_only', _meta: { ui: { visibility: ['app'] } } }, { name: 'noop' }] });
    assert.deepEqual(await s.handler.listTools('demo', s.cts.token), [
      { name: 'app_panel', _meta: { ui: { visibility: ['model', 'app'] } } },
      { name: 'noop' },
    ]);
    assert.equal(app._meta.ui.resourceUri, 'ui://fixture/panel', "Plangate's own copy keeps its app");
  });

  test("tools/list hands over the server's tools, and none while it does not run", async (t) => {
    const s = await setup(t);
    assert.deepEqual(await s.handler.listTools('demo', s.cts.token), [{ name: 'noop' }, { name: 'plan_scaffold' }]);
    s.demo.set('stopped');
    assert.deepEqual(await s.handler.listTools('demo', s.cts.token), []);
    assert.deepEqual(await s.handler.listTools('nowhere', s.cts.token), []);
    assert.deepEqual(s.handler.hello?.('demo'), {
      serverInfo: { name: 'plangate-fixture', version: '1.0.0' },
      instructions: 'fixture instructions',
    });
  });
});

describe('gate handler: plans', () => {
  test('a plan waits for approval, runs, and the agent receives the summary', async (t) => {
    const s = await setup(t);
    const planId = s.nextPlan();
    const pending = s.call('plan_scaffold', { screen: 'Payroll' });
    const id = await planId;
    await new Promise((r) => setImmediate(r)); // Gate.call hands its outcome back once the plan is recorded
    assert.deepEqual(s.shown, ['plan_scaffold → plan']);
    assert.equal(s.calls().length, 1, 'only the planning call ran before the approval');
    assert.equal(await s.gate.approve(id), undefined);
    const result = await pending;
    const summary = summaryOf(result);
    assert.equal(summary.kind, 'plangate_plan_outcome');
    assert.equal(summary.planId, id);
    assert.ok(['follow_up', 'completed'].includes(summary.outcome), summary.outcome);
    assert.ok(summary.steps.every((st) => st.state === 'ok'));
    assert.ok(s.calls().length > 1, 'the approved steps ran');
    assert.ok(
      s.progress.some((m) => m.startsWith('Waiting for your approval in the Plangate panel')),
      s.progress.join(' | '),
    );
  });

  test('a rejected plan runs nothing and the agent hears the reason', async (t) => {
    const s = await setup(t);
    const planId = s.nextPlan();
    const pending = s.call('plan_scaffold', { screen: 'Payroll' });
    const id = await planId;
    assert.equal(s.gate.reject(id, 'not today'), undefined);
    const summary = summaryOf(await pending);
    assert.equal(summary.outcome, 'rejected');
    assert.equal(summary.reason, 'not today');
    assert.deepEqual(s.calls(), ['plan_scaffold']);
  });

  test('when the agent cancels, the plan awaiting approval is withdrawn (rejected) and nothing runs', async (t) => {
    const s = await setup(t);
    const planId = s.nextPlan();
    const pending = s.call('plan_scaffold', { screen: 'Payroll' });
    const id = await planId;
    s.cts.cancel();
    const summary = summaryOf(await pending);
    assert.equal(summary.outcome, 'cancelled');
    assert.match(summary.reason ?? '', /agent cancelled/);
    assert.equal(s.workflow.state.plans[id]?.outcome, 'rejected');
    assert.deepEqual(s.calls(), ['plan_scaffold']);
  });

  test('a plan nobody decides on is withdrawn after the idle time, and the agent hears it timed out', async (t) => {
    const s = await setup(t, { idleTimeoutMs: 100 });
    const planId = s.nextPlan();
    const pending = s.call('plan_scaffold', { screen: 'Payroll' });
    const id = await planId;
    const summary = summaryOf(await pending);
    assert.equal(summary.outcome, 'timed_out');
    assert.equal(s.workflow.state.plans[id]?.phase, 'finished');
    assert.deepEqual(s.calls(), ['plan_scaffold']);
  });

  test('a plan whose status is not ok and an invalid plan come back with a note, and nothing waits', async (t) => {
    const s = await setup(t);
    const notOk = await s.call('plan_status', { status: 'error' });
    assert.match(textOf(notOk), /the plan's status is error, so there is nothing to approve or run/);
    const invalid = await s.call('plan_invalid', { variant: 'bad_status' });
    assert.match(textOf(invalid), /carries a plan that is not valid, so nothing was gated or run/);
    assert.deepEqual(s.shown, ['plan_status → plan', 'plan_invalid → invalid_plan']);
    assert.deepEqual(s.calls(), ['plan_status', 'plan_invalid']);
  });
});
