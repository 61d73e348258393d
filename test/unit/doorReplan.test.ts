// Answering a plan's `ask` form (issue 24, item 5), against a real MCP server in memory with the real policy: the
// form's view names the call the answer makes (server, tool, the first call's arguments), the webview merges the
// answers into it with the same function the gate uses, and the answer approves exactly the call shown — one whose
// shown arguments differ from what would be sent is refused and nothing is sent. A planning tool that asks by its own
// declaration (`_meta.approval: "ask"`) is covered by that one answer only (the ledger says so); the user's ask rule
// still asks on the card.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { CallAsk } from '../../src/core/engine/door';
import { Gate } from '../../src/core/engine/gate';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import type { OrchestratedPlan } from '../../src/core/plan/plan';
import { evaluate } from '../../src/core/policy/evaluate';
import type { PolicyRule, PolicyRules } from '../../src/core/policy/rules';
import { PlanPresenter } from '../../src/core/present/planItem';
import type { WorkflowEvent } from '../../src/core/workflow/workflow';
import { askCallArgs } from '../../src/shared/askCall';
import { connectInMemory } from './helpers/inMemoryInvoker';

const ASKING: OrchestratedPlan = {
  kind: 'orchestrated_plan',
  version: '1',
  status: 'error',
  instruction: 'How many replicas?',
  next_actions: [],
  ask: {
    prompt: 'How many replicas, and where?',
    fields: [
      { name: 'count', type: 'number', required: true },
      { name: 'region', type: 'string' },
    ],
  },
};

async function setup(t: TestContext, userRules: PolicyRule[] = []) {
  const received: Record<string, unknown>[] = [];
  const planner = new McpServer({ name: 'planner', version: '1.0.0' });
  planner.registerTool(
    'plan_deploy',
    {
      description: 'plans a deploy; asks by its own declaration',
      _meta: { approval: 'ask' },
      inputSchema: { service: z.string(), count: z.number(), region: z.string().optional() },
    },
    (args: Record<string, unknown>) => {
      received.push(args);
      return { content: [{ type: 'text' as const, text: JSON.stringify(ASKING) }] };
    },
  );
  const conn = await connectInMemory([{ name: 'planner', server: planner }]);
  const definitions = new Map<string, { annotations?: unknown; _meta?: unknown }>();
  for (const d of await conn.invoker.definitions('planner')) definitions.set(`planner/${d.name}`, d);
  const rules: PolicyRules = { user: userRules.map((r, index) => ({ ...r, source: 'user', index })), workspace: [] };
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  const asked: CallAsk[] = [];
  let n = 0;
  const gate = new Gate(workflow, {
    invoker: conn.invoker,
    settings: () => ({ stepTimeoutMs: 10_000, allowCrossServer: true }),
    newId: () => `id-${++n}`,
    policy: {
      policy: (call) => evaluate(rules, call, { workspaceRoot: '/nonexistent-root' }),
      toolInfo: (server, tool) => definitions.get(`${server}/${tool}`),
      ask: async (ask) => {
        asked.push(ask);
        return { answer: 'once' };
      },
    },
  });
  t.after(async () => {
    gate.dispose();
    await conn.close();
  });
  // The first call was made (and approved) elsewhere; its plan asks.
  const r = gate.receive(
    { server: 'planner', tool: 'plan_deploy', args: { service: 'billing', count: 1 }, entrance: 'manual' },
    { content: [{ type: 'text', text: JSON.stringify(ASKING) }] },
  );
  assert.equal(r.kind, 'plan');
  const planId = (r as { planId: string }).planId;
  const askView = () => new PlanPresenter().present(workflow.state, planId)!.plans[planId]!.notOk!.ask!;
  const sent = () =>
    sink.entries.map((e) => e.event).filter((e): e is Extract<WorkflowEvent, { type: 'callSent' }> => e.type === 'callSent');
  return { gate, planId, askView, received, asked, sent };
}

test('the ask form names the call its answer makes: server, tool and the arguments the answers are merged into', async (t) => {
  const s = await setup(t);
  const ask = s.askView();
  assert.equal(ask.answerable, true);
  assert.deepEqual(ask.call, { server: 'planner', tool: 'plan_deploy', args: { service: 'billing', count: 1 } });
  assert.deepEqual(
    askCallArgs(ask.call.args, ask.fields, { count: '3', region: 'eu' }),
    { service: 'billing', count: 3, region: 'eu' },
    'an answer replaces the argument of its name; a number field is sent as a number',
  );
});

test('the answer sends exactly the call shown, once; a shown call that is not what would be sent is refused and nothing is sent', async (t) => {
  const s = await setup(t);
  const ask = s.askView();
  const values = { count: '3' };
  const shown = askCallArgs(ask.call.args, ask.fields, values);

  await assert.rejects(s.gate.replan(s.planId, values, { ...shown, count: 4 }), /not the one the answer would send.*nothing was sent/);
  await assert.rejects(s.gate.replan(s.planId, values, { service: 'billing' }), /nothing was sent/);
  assert.deepEqual(s.received, [], 'a mismatched answer reaches no server');
  assert.equal(s.sent().length, 0);

  const outcome = await s.gate.replan(s.planId, values, shown);
  assert.deepEqual(s.received, [{ service: 'billing', count: 3 }], 'the server got exactly what the form showed');
  assert.deepEqual(outcome.args, shown);
  const record = s.sent()[0]!;
  assert.deepEqual(record.args, shown, 'the ledger keeps the arguments shown and sent');
  assert.equal(record.entrance, 'replan');
  assert.equal(record.decision.by, 'user');
  assert.equal(record.policy?.source, 'tool', "the tool's own declaration asks");
  assert.equal(record.policy?.coveredBy, 'button', 'covered once, by the answer that showed this exact call');
  assert.equal(s.asked.length, 0);
});

test("the user's ask rule on the planning tool still asks on the card, with the call the form showed", async (t) => {
  const s = await setup(t, [{ id: 'ask-deploys', decision: 'ask', reason: 'deploys are reviewed', tool: 'plan_deploy' }]);
  const ask = s.askView();
  const shown = askCallArgs(ask.call.args, ask.fields, { count: '2', region: 'us' });
  await s.gate.replan(s.planId, { count: '2', region: 'us' }, shown);
  assert.equal(s.asked.length, 1);
  assert.deepEqual(s.asked[0]!.call.args, shown);
  assert.equal(s.sent()[0]!.policy?.coveredBy, 'card');
  assert.deepEqual(s.received, [shown]);
});

test("the policy names a user's ask rule over the tool's own ask, so no reviewed button covers the rule; an allow still cannot lift the tool's", () => {
  const rules = (decision: 'ask' | 'allow'): PolicyRules => ({
    user: [{ id: 'mine', decision, reason: 'mine', tool: 'plan_deploy', source: 'user', index: 0 }],
    workspace: [],
  });
  const call = { server: 'planner', tool: 'plan_deploy', args: {}, entrance: 'call' as const, meta: { approval: 'ask' } };
  const asked = evaluate(rules('ask'), call, { workspaceRoot: '/nonexistent-root' });
  assert.deepEqual([asked.decision, asked.rule.source, asked.rule.id], ['ask', 'user', 'mine']);
  const allowed = evaluate(rules('allow'), call, { workspaceRoot: '/nonexistent-root' });
  assert.deepEqual([allowed.decision, allowed.rule.source], ['ask', 'tool']);
});
