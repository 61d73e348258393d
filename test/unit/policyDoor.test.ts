// The policy at the one door, against the real fixture server in memory: a deny reaches the agent as the rule's
// reason and nothing is sent; an ask waits on the single-call card (played here by the test) — Allow once sends it
// once, Deny sends nothing and the note reaches the agent, the agent's cancel closes the card; the tool's own
// `_meta.approval: "ask"` opens the card too; Call Tool's button covers the default ask but not a user's ask rule; a
// plan step the policy denies is marked when the plan is resolved (before approval) and is never sent. Every
// decision is in the ledger with the deciding rule.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createFixtureServer, readCallLog } from '../../fixture/fixtureServer';
import { callRowView } from '../../src/core/present/callRow';
import { GateRefusal, type CallAsk, type CallAskAnswer } from '../../src/core/engine/door';
import { Gate } from '../../src/core/engine/gate';
import { createGateHandler } from '../../src/core/agent/agentCall';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { CancellationTokenSource, Emitter } from '../../src/core/base/lifecycle';
import type { OrchestratedPlan } from '../../src/core/plan/plan';
import { evaluate } from '../../src/core/policy/evaluate';
import type { PolicyRule, PolicyRules } from '../../src/core/policy/rules';
import type { ToolResult } from '../../src/core/base/toolResult';
import type { WorkflowEvent } from '../../src/core/workflow/workflow';
import { connectInMemory } from './helpers/inMemoryInvoker';

async function setup(t: TestContext, userRules: PolicyRule[] = [], options: { autoApprovePlans?: boolean } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'plangate-policy-'));
  const callLog = join(root, 'calls.jsonl');
  const declares = new McpServer({ name: 'declares', version: '1.0.0' });
  declares.registerTool(
    'publish',
    { description: 'asks by its own declaration', _meta: { approval: 'ask' }, annotations: { readOnlyHint: true } },
    () => ({
      content: [{ type: 'text' as const, text: 'published' }],
    }),
  );
  const conn = await connectInMemory([
    { name: 'demo', server: createFixtureServer({ root, callLogFile: callLog }) },
    { name: 'declares', server: declares },
  ]);
  const definitions = new Map<string, { annotations?: unknown; _meta?: unknown }>();
  for (const server of ['demo', 'declares'])
    for (const d of await conn.invoker.definitions(server)) definitions.set(`${server}/${d.name}`, d);
  const rules: PolicyRules = { user: userRules.map((r, index) => ({ ...r, source: 'user', index })), workspace: [] };
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  const asked: CallAsk[] = [];
  let answer: (ask: CallAsk) => Promise<CallAskAnswer> = async () => ({ answer: 'once' });
  let n = 0;
  const gate = new Gate(workflow, {
    invoker: conn.invoker,
    settings: () => ({ stepTimeoutMs: 10_000, allowCrossServer: true }),
    newId: () => `id-${++n}`,
    policy: {
      policy: (call) => evaluate(rules, call, { workspaceRoot: root }),
      toolInfo: (server, tool) => definitions.get(`${server}/${tool}`),
      ask: (ask) => {
        asked.push(ask);
        return answer(ask);
      },
    },
    autoApprovePlans: () => options.autoApprovePlans === true,
  });
  const running = { state: 'running', tools: [], onDidChangeState: new Emitter<{ state: string }>().event };
  const handler = createGateHandler({ registry: { get: () => running }, gate, startWaitMs: 100 });
  t.after(async () => {
    gate.dispose();
    await conn.close();
    rmSync(root, { recursive: true, force: true });
  });
  const cts = new CancellationTokenSource();
  const agent = (tool: string, args: Record<string, unknown> = {}, server = 'demo') =>
    handler.callTool(server, tool, args, { token: cts.token, progress: () => undefined });
  const calls = () => (existsSync(callLog) ? readCallLog(callLog).map((c) => c.tool) : []);
  const sent = () =>
    sink.entries.map((e) => e.event).filter((e): e is Extract<WorkflowEvent, { type: 'callSent' }> => e.type === 'callSent');
  const ended = () =>
    sink.entries.map((e) => e.event).filter((e): e is Extract<WorkflowEvent, { type: 'callEnded' }> => e.type === 'callEnded');
  return {
    gate,
    workflow,
    sink,
    asked,
    cts,
    agent,
    calls,
    sent,
    ended,
    answerWith: (fn: (ask: CallAsk) => Promise<CallAskAnswer>) => (answer = fn),
  };
}

const textOf = (r: ToolResult) => (r.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
const WRITE = { path: 'a.txt', content: 'x' };

describe('policy at the door: single calls', () => {
  test("a deny rule: the agent gets the rule's reason as the tool's error, nothing is sent, the ledger names the rule", async (t) => {
    const s = await setup(t, [{ id: 'no-writes', decision: 'deny', reason: 'this repository is read-only for agents', tool: 'write_*' }]);
    const result = await s.agent('write_file_step', WRITE);
    assert.equal(result.isError, true);
    assert.match(textOf(result), /this repository is read-only for agents \(rule 'no-writes'\)/);
    assert.deepEqual(s.calls(), [], 'nothing reached the server');
    assert.deepEqual(s.asked, [], 'a deny asks nobody');
    assert.deepEqual(s.sent()[0]?.policy, {
      decision: 'deny',
      ruleId: 'no-writes',
      source: 'user',
      reason: 'this repository is read-only for agents',
    });
    assert.equal(s.ended()[0]?.outcome, 'refused');
  });

  test('a destructive tool asks by default: Allow once sends it once; the next call asks again', async (t) => {
    const s = await setup(t);
    const result = await s.agent('write_file_step', WRITE);
    assert.notEqual(result.isError, true);
    assert.deepEqual(s.calls(), ['write_file_step']);
    assert.equal(s.asked.length, 1);
    assert.equal(s.asked[0]!.entrance, 'agent');
    assert.equal(s.asked[0]!.verdict.rule.id, 'plangate:destructive');
    assert.deepEqual(
      { ...s.sent()[0]?.policy },
      {
        decision: 'ask',
        ruleId: 'plangate:destructive',
        source: 'default',
        reason: s.asked[0]!.verdict.rule.reason,
        coveredBy: 'card',
        answer: 'once',
      },
    );
    await s.agent('write_file_step', WRITE);
    assert.equal(s.asked.length, 2, 'once is once');
  });

  test("Deny on the card: nothing is sent and the user's note reaches the agent", async (t) => {
    const s = await setup(t);
    s.answerWith(async () => ({ answer: 'deny', note: 'not on a Friday' }));
    const result = await s.agent('edit_text', { path: 'a.txt', edits: [{ oldText: 'a', newText: 'b' }] });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /The user denied the call to 'edit_text' on server 'demo': not on a Friday/);
    assert.deepEqual(s.calls(), []);
    assert.equal(s.sent()[0]?.policy?.answer, 'deny');
    assert.equal(s.sent()[0]?.policy?.note, 'not on a Friday');
    assert.equal(s.ended()[0]?.outcome, 'refused');
  });

  test('the agent cancels while the card waits: the card is told, nothing is sent', async (t) => {
    const s = await setup(t);
    s.answerWith(
      (ask) =>
        new Promise((resolve) => {
          ask.signal?.addEventListener('abort', () => resolve({ answer: 'cancelled' }));
        }),
    );
    const pending = s.agent('write_file_step', WRITE);
    while (s.asked.length === 0) await new Promise((r) => setImmediate(r));
    s.cts.cancel();
    const result = await pending;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /cancelled while it waited for a decision/);
    assert.deepEqual(s.calls(), []);
    assert.equal(s.sent()[0]?.policy?.answer, 'cancelled');
  });

  test('a tool\'s own _meta.approval "ask" opens the card although it says it is read-only, and an allow rule cannot lift it', async (t) => {
    const s = await setup(t, [{ id: 'all', decision: 'allow', reason: 'trust everything' }]);
    const result = await s.agent('publish', {}, 'declares');
    assert.equal(textOf(result), 'published');
    assert.equal(s.asked.length, 1);
    assert.equal(s.asked[0]!.verdict.rule.id, 'tool:approval');
  });

  test('a read-only tool runs without asking, and its record says which rule allowed it', async (t) => {
    const s = await setup(t, [{ id: 'reads', decision: 'allow', reason: 'reading is fine', annotations: { readOnly: true } }]);
    assert.equal(textOf(await s.agent('echo', { message: 'hi' })), 'hi');
    assert.equal(s.asked.length, 0);
    assert.equal(s.sent()[0]?.policy?.ruleId, 'reads');
  });

  test("a collect form's Submit covers the default ask, not a user's ask rule; Call Tool's form covers nothing", async (t) => {
    const s = await setup(t, [{ id: 'ask-echo', decision: 'ask', reason: 'echo is noisy', tool: 'echo' }]);
    const button = { by: 'user' as const, what: 'pressed Submit' };
    await s.gate.door.call({ server: 'demo', tool: 'write_file_step', args: WRITE, entrance: 'collect', decision: button });
    assert.equal(s.asked.length, 0);
    assert.equal(s.sent()[0]?.policy?.coveredBy, 'button');
    s.answerWith(async () => ({ answer: 'deny' }));
    await assert.rejects(
      s.gate.door.call({ server: 'demo', tool: 'echo', args: { message: 'x' }, entrance: 'collect', decision: button }),
      (err: unknown) => err instanceof GateRefusal && err.kind === 'declined',
    );
    assert.equal(s.asked.length, 1);
    assert.equal(s.asked[0]!.verdict.rule.reason, 'echo is noisy');
    await assert.rejects(
      s.gate.door.call({ server: 'demo', tool: 'write_file_step', args: WRITE, entrance: 'call', decision: button }),
      (err: unknown) => err instanceof GateRefusal && err.kind === 'declined',
    );
    assert.equal(s.asked.length, 2, "Call Tool's form: the destructive default asks on the card");
    assert.equal(s.asked[1]!.entrance, 'call');
    await assert.rejects(
      s.gate.door.call({ server: 'demo', tool: 'write_file_step', args: WRITE, entrance: 'app', decision: button }),
      (err: unknown) => err instanceof GateRefusal && err.kind === 'declined',
    );
    assert.equal(s.asked[2]!.entrance, 'app', "an app's call is asked on the card whatever decision it carries");
    assert.deepEqual(s.calls(), ['write_file_step']);
  });
});

describe('policy at the door: plans', () => {
  const receive = async (s: Awaited<ReturnType<typeof setup>>) => {
    const plan: OrchestratedPlan = {
      kind: 'orchestrated_plan',
      version: '1',
      status: 'ok',
      instruction: 'scaffold',
      next_actions: [
        { tool: 'create_screen', args: { screen: 'Audit' } },
        { tool: 'write_file_step', args: WRITE },
        { tool: 'create_component', args: { screen: 'Audit', name: 'Table' } },
      ],
    };
    const r = s.gate.receive(
      { server: 'demo', tool: 'plan_it', args: {}, entrance: 'manual' },
      { content: [{ type: 'text', text: JSON.stringify(plan) }] },
    );
    assert.equal(r.kind, 'plan');
    const planId = (r as { planId: string }).planId;
    await s.gate.resolve(planId);
    return planId;
  };

  test('a step the policy denies is marked at resolution, before approval; after approval it is never sent and says why', async (t) => {
    const s = await setup(t, [
      { id: 'no-raw-writes', decision: 'deny', reason: 'write files through the editor', tool: 'write_file_step' },
    ]);
    const planId = await receive(s);
    const before = s.workflow.state.plans[planId]!;
    assert.equal(before.phase, 'awaiting_approval');
    assert.deepEqual(
      before.steps.map((st) => st.policy?.decision),
      ['allow', 'deny', 'allow'],
    );
    assert.equal(before.steps[1]!.policy?.ruleId, 'no-raw-writes');
    assert.equal(await s.gate.approve(planId), undefined);
    await s.gate.whenSettled(planId);
    const after = s.workflow.state.plans[planId]!;
    assert.deepEqual(s.calls(), ['create_screen'], 'the denied step and the steps after it were not sent');
    assert.equal(after.phase, 'blocked');
    assert.match(
      after.steps[1]!.error ?? '',
      /Not sent: Policy denies calling 'write_file_step' on server 'demo': write files through the editor \(rule 'no-raw-writes'\)/,
    );
    assert.deepEqual(s.asked, [], "a plan's approval covers its asks: no card");
  });

  test("an argument edit is judged again: the step's mark follows its arguments", async (t) => {
    const s = await setup(t, [
      { id: 'outside', decision: 'deny', reason: 'stay in the workspace', args: [{ path: '$.path', outsideWorkspace: true }] },
    ]);
    const planId = await receive(s);
    assert.equal(s.workflow.state.plans[planId]!.steps[1]!.policy?.decision, 'ask', 'destructive: asked, which the approval covers');
    assert.equal(s.gate.editArgs(planId, 1, { path: '../escape.txt', content: 'x' }), undefined);
    await s.gate.resolve(planId);
    assert.equal(s.workflow.state.plans[planId]!.steps[1]!.policy?.decision, 'deny');
  });
});

describe('plangate.autoApprovePlans', () => {
  const scaffold = (extra: { tool: string; args: Record<string, unknown> }[] = []): OrchestratedPlan => ({
    kind: 'orchestrated_plan',
    version: '1',
    status: 'ok',
    instruction: 'scaffold',
    next_actions: [
      { tool: 'create_screen', args: { screen: 'Audit' } },
      { tool: 'create_component', args: { screen: 'Audit', name: 'Table' } },
      ...extra,
    ],
  });
  const receive = (s: Awaited<ReturnType<typeof setup>>, plan: OrchestratedPlan) => {
    const r = s.gate.receive(
      { server: 'demo', tool: 'plan_it', args: {}, entrance: 'manual' },
      { content: [{ type: 'text', text: JSON.stringify(plan) }] },
    );
    return (r as { planId: string }).planId;
  };
  const creates: PolicyRule = { id: 'creating-is-fine', decision: 'allow', reason: 'generated files only', tool: 'create_*' };

  test("on, and the user's rules allow every step: the plan runs without asking; the ledger says which rules approved it", async (t) => {
    const s = await setup(t, [creates], { autoApprovePlans: true });
    const planId = receive(s, scaffold());
    await s.gate.resolve(planId);
    await s.gate.whenSettled(planId);
    assert.deepEqual(s.calls(), ['create_screen', 'create_component']);
    const approved = s.sink.entries.map((e) => e.event).find((e) => e.type === 'approved');
    assert.deepEqual(approved && 'byPolicy' in approved ? approved.byPolicy : undefined, ['creating-is-fine']);
    assert.match(
      s.workflow.state.plans[planId]!.approvalNote ?? '',
      /autoApprovePlans is on and your rules allow every step \('creating-is-fine'\)/,
    );
  });

  test('a step no user rule allows (here: destructive, asked by default), or the setting off: the plan waits for Approve', async (t) => {
    const on = await setup(t, [creates], { autoApprovePlans: true });
    const withWrite = receive(on, scaffold([{ tool: 'write_file_step', args: WRITE }]));
    await on.gate.resolve(withWrite);
    assert.equal(on.workflow.state.plans[withWrite]!.phase, 'awaiting_approval');
    const off = await setup(t, [creates]);
    const plain = receive(off, scaffold());
    await off.gate.resolve(plain);
    assert.equal(off.workflow.state.plans[plain]!.phase, 'awaiting_approval');
    assert.deepEqual([...on.calls(), ...off.calls()], []);
  });
});

describe('policy at the door: every single call is listed with its decision', () => {
  test('a denied, an allowed and an asked call are listed newest first with their rule ids; plan steps are not; a reload lists them again', async (t) => {
    const s = await setup(t, [
      { id: 'no-writes', decision: 'deny', reason: 'this repository is read-only for agents', tool: 'write_file_step' },
      { id: 'echo-ok', decision: 'allow', reason: 'echo is harmless', tool: 'echo' },
    ]);
    await s.agent('write_file_step', WRITE);
    await s.agent('echo', { message: 'hi' });
    await s.agent('edit_text', { path: 'a.txt', edits: [{ oldText: 'a', newText: 'b' }] }); // destructive: asked, allowed once
    const listed = () =>
      s.workflow.recentCalls.list().map((c) => ({ tool: c.tool, outcome: c.outcome, rule: c.policy?.ruleId, answer: c.policy?.answer }));
    const expected = [
      { tool: 'edit_text', outcome: 'tool_error', rule: 'plangate:destructive', answer: 'once' },
      { tool: 'echo', outcome: 'ok', rule: 'echo-ok', answer: undefined },
      { tool: 'write_file_step', outcome: 'refused', rule: 'no-writes', answer: undefined },
    ];
    // edit_text of a file that is not there is the tool's own error: the call was sent, and the server said no.
    assert.deepEqual(listed(), expected);
    assert.deepEqual(s.calls(), ['echo', 'edit_text']);
    const rows = s.workflow.recentCalls.list().map((c) => callRowView(c, 'now').description);
    assert.deepEqual(rows, [
      "tool error · asked by 'plangate:destructive', allowed once · demo · chat agent",
      "ok · allowed by rule 'echo-ok' · demo · chat agent",
      "refused · denied by rule 'no-writes' · demo · chat agent",
    ]);

    const plan: OrchestratedPlan = {
      kind: 'orchestrated_plan',
      version: '1',
      status: 'ok',
      instruction: 'one step',
      next_actions: [{ tool: 'echo', args: { message: 'step' } }],
    };
    const r = s.gate.receive(
      { server: 'demo', tool: 'plan_it', args: {}, entrance: 'manual' },
      { content: [{ type: 'text', text: JSON.stringify(plan) }] },
    );
    const planId = (r as { planId: string }).planId;
    await s.gate.resolve(planId);
    assert.equal(await s.gate.approve(planId), undefined);
    await s.gate.whenSettled(planId);
    assert.equal(s.workflow.state.plans[planId]!.outcome, 'completed');
    assert.deepEqual(listed(), expected, "a plan's step is shown with its plan, not among the calls");

    const reloaded = new Workflow(new MemoryLedgerSink(), s.sink.entries);
    t.after(() => reloaded.dispose());
    assert.deepEqual(
      reloaded.recentCalls.list().map((c) => ({ tool: c.tool, outcome: c.outcome, rule: c.policy?.ruleId, answer: c.policy?.answer })),
      expected,
      'the ledger lists them again after a reload',
    );
  });

  test('the Calls list hears of each call as it is recorded', async (t) => {
    const s = await setup(t, [{ id: 'no-echo', decision: 'deny', reason: 'quiet please', tool: 'echo' }]);
    const heard: string[] = [];
    const sub = s.workflow.onDidRecordCall((e) => heard.push(e.type));
    t.after(() => sub.dispose());
    await s.agent('echo', { message: 'hi' });
    assert.deepEqual(heard, ['callSent', 'callEnded']);
  });
});
