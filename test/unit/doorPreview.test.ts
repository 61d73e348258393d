// A dry-run preview is a call like any other (issue 24, item 1), against the real fixture server in memory with the
// real policy: before approval a preview goes by itself only when the policy allows the call outright and the step runs
// on the plan's own server. Where the policy asks (Plangate's default for a destructive tool, or the user's ask rule)
// nothing is sent until the user presses Preview, and then the single-call card asks; where it denies, nothing is
// sent, pressed or not. The ledger says what covered each preview.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createFixtureServer, readCallLog } from '../../fixture/fixtureServer';
import { GateRefusal, type CallAsk, type CallAskAnswer } from '../../src/core/engine/door';
import { Gate } from '../../src/core/engine/gate';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import type { OrchestratedPlan } from '../../src/core/plan/plan';
import { evaluate } from '../../src/core/policy/evaluate';
import type { PolicyRule, PolicyRules } from '../../src/core/policy/rules';
import { predictStepFiles, type PredictPorts, type ToolDescription } from '../../src/core/files/predict';
import { callCardView } from '../../src/core/present/callCard';
import type { WorkflowEvent } from '../../src/core/workflow/workflow';
import { connectInMemory } from './helpers/inMemoryInvoker';

const EDIT = { path: 'notes.txt', edits: [{ oldText: 'hello', newText: 'goodbye' }] };

async function setup(t: TestContext, userRules: PolicyRule[] = []) {
  const root = mkdtempSync(join(tmpdir(), 'plangate-preview-'));
  writeFileSync(join(root, 'notes.txt'), 'hello world\n');
  const callLog = join(root, 'calls.jsonl');
  const planner = new McpServer({ name: 'planner', version: '1.0.0' }); // offers no step tools: its steps run elsewhere
  planner.registerTool('noop_planner', {}, () => ({ content: [{ type: 'text' as const, text: 'ok' }] }));
  const conn = await connectInMemory([
    { name: 'demo', server: createFixtureServer({ root, callLogFile: callLog }) },
    { name: 'planner', server: planner },
  ]);
  const definitions = new Map<string, ToolDescription & { _meta?: unknown }>();
  for (const server of ['demo', 'planner'])
    for (const d of await conn.invoker.definitions(server)) definitions.set(`${server}/${d.name}`, d as ToolDescription);
  const rules: PolicyRules = { user: userRules.map((r, index) => ({ ...r, source: 'user', index })), workspace: [] };
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  const asked: CallAsk[] = [];
  let answer: CallAskAnswer = { answer: 'once' };
  let n = 0;
  const gate = new Gate(workflow, {
    invoker: conn.invoker,
    settings: () => ({ stepTimeoutMs: 10_000, allowCrossServer: true }),
    newId: () => `id-${++n}`,
    policy: {
      policy: (call) => evaluate(rules, call, { workspaceRoot: root }),
      toolInfo: (server, tool) => definitions.get(`${server}/${tool}`),
      ask: async (ask) => {
        asked.push(ask);
        return answer;
      },
    },
  });
  t.after(async () => {
    gate.dispose();
    await conn.close();
    rmSync(root, { recursive: true, force: true });
  });
  const ports: PredictPorts = {
    roots: [root],
    tool: (server, tool) => definitions.get(`${server}/${tool}`),
    exists: (rel) => existsSync(join(root, rel)),
    dryRun: true,
    allowCrossServer: true,
    clearance: (planId, step, server, tool, args) => gate.door.previewClearance(planId, step, server, tool, args),
    send: (call) => gate.door.call(call),
  };
  const receive = async (server: string) => {
    const plan: OrchestratedPlan = {
      kind: 'orchestrated_plan',
      version: '1',
      status: 'ok',
      instruction: 'edit notes',
      next_actions: [{ tool: 'edit_text', args: EDIT }],
    };
    const r = gate.receive(
      { server, tool: 'plan_it', args: {}, entrance: 'manual' },
      { content: [{ type: 'text', text: JSON.stringify(plan) }] },
    );
    assert.equal(r.kind, 'plan');
    const planId = (r as { planId: string }).planId;
    await gate.resolve(planId);
    return planId;
  };
  const preview = async (planId: string, pressed = false) =>
    predictStepFiles(planId, workflow.state.plans[planId].steps[0], ports, pressed);
  return {
    root,
    gate,
    workflow,
    asked,
    receive,
    preview,
    answerWith: (a: CallAskAnswer) => (answer = a),
    calls: () => (existsSync(callLog) ? readCallLog(callLog).map((c) => `${c.tool} dryRun=${String(c.args?.dryRun)}`) : []),
    sent: () => sink.entries.map((e) => e.event).filter((e): e is Extract<WorkflowEvent, { type: 'callSent' }> => e.type === 'callSent'),
  };
}

test('a destructive tool (asked by default): nothing is previewed before approval; Preview asks on the card, Allow once sends it once', async (t) => {
  const s = await setup(t);
  const id = await s.receive('demo');
  const waiting = await s.preview(id);
  assert.equal(waiting.views.length, 1);
  assert.equal(waiting.views[0]!.press, true, 'the step offers Preview');
  assert.match(waiting.views[0]!.error ?? '', /policy asks before this call: tool 'edit_text' says it may destroy data/);
  assert.deepEqual(s.calls(), [], 'no preview reached the server before anyone decided');
  assert.deepEqual(s.sent(), [], 'nothing was even tried');
  assert.equal(s.asked.length, 0, 'opening the plan does not pop a card');

  // The door itself refuses a preview sent by itself where the policy asks (whatever a caller tries).
  await assert.rejects(
    s.gate.door.call({
      server: 'demo',
      tool: 'edit_text',
      args: { ...EDIT, dryRun: true },
      entrance: 'preview',
      decision: { by: 'preview', planId: id, step: 0 },
    }),
    (err: Error) => err instanceof GateRefusal && err.kind === 'not_covered' && /press Preview/.test(err.message),
  );
  assert.deepEqual(s.calls(), []);
  assert.equal(s.asked.length, 0, 'a preview nobody pressed never asks');

  const shown = await s.preview(id, true);
  assert.equal(s.asked.length, 1, 'pressing Preview opens the card');
  assert.equal(s.asked[0]!.call.entrance, 'preview');
  assert.deepEqual(s.asked[0]!.call.args, { ...EDIT, dryRun: true }, 'the card shows the exact call, its flag set');
  const card = callCardView(s.asked[0]!, [], new Date());
  assert.equal(card.canAlwaysAllow, false, 'a preview is allowed once, not always');
  assert.match(card.caller, /dry-run preview you pressed/);
  assert.deepEqual(s.calls(), ['edit_text dryRun=true']);
  assert.equal(shown.views[0]!.press, undefined);
  assert.equal(shown.views[0]!.source, 'dryRun');
  assert.match(shown.files[0]!.patch ?? '', /\+goodbye world/);
  assert.equal(readFileSync(join(s.root, 'notes.txt'), 'utf8'), 'hello world\n', 'a dry run writes nothing');
  const records = s.sent();
  assert.equal(records.at(-1)!.decision.by, 'preview');
  assert.deepEqual(records.at(-1)!.decision, { by: 'preview', planId: id, step: 0, pressed: true });
  assert.equal(records.at(-1)!.policy?.coveredBy, 'card', "covered by the user's answer on the card, not by a plan nobody approved");
  assert.equal(records.at(-1)!.policy?.answer, 'once');
  assert.ok(!records.some((r) => r.policy?.coveredBy === 'plan'), 'no preview claims the plan covered it');
});

test("the user's ask rule: no preview before approval; Deny on the card sends nothing and Preview stays", async (t) => {
  const s = await setup(t, [{ id: 'ask-edits', decision: 'ask', reason: 'edits are reviewed', tool: 'edit_*' }]);
  const id = await s.receive('demo');
  const waiting = await s.preview(id);
  assert.equal(waiting.views[0]!.press, true);
  assert.match(waiting.views[0]!.error ?? '', /edits are reviewed \(rule 'ask-edits'\)/);
  assert.deepEqual(s.calls(), []);
  s.answerWith({ answer: 'deny' });
  const denied = await s.preview(id, true);
  assert.equal(s.asked.length, 1);
  assert.deepEqual(s.calls(), [], 'denied on the card: nothing sent');
  assert.equal(denied.views[0]!.press, true, 'Preview can be pressed again');
  assert.match(denied.views[0]!.error ?? '', /denied the call/);
});

test('a rule that allows the call outright: the preview goes by itself, and the ledger names the rule, not the plan', async (t) => {
  const s = await setup(t, [{ id: 'edits-ok', decision: 'allow', reason: 'edits are fine here', tool: 'edit_text' }]);
  const id = await s.receive('demo');
  const shown = await s.preview(id);
  assert.deepEqual(s.calls(), ['edit_text dryRun=true']);
  assert.deepEqual(s.asked, []);
  assert.equal(shown.views[0]!.press, undefined);
  assert.match(shown.files[0]!.patch ?? '', /\+goodbye world/);
  const record = s.sent()[0]!;
  assert.equal(record.policy?.decision, 'allow');
  assert.equal(record.policy?.ruleId, 'edits-ok');
  assert.equal(record.policy?.coveredBy, undefined);
});

test('a deny rule: the step says so, and nothing is sent, pressed or not', async (t) => {
  const s = await setup(t, [{ id: 'no-edits', decision: 'deny', reason: 'no edits today', tool: 'edit_text' }]);
  const id = await s.receive('demo');
  const shown = await s.preview(id);
  assert.equal(shown.views[0]!.press, undefined, 'no Preview button');
  assert.match(shown.views[0]!.error ?? '', /^Not previewed: the policy denies .*no edits today \(rule 'no-edits'\)/);
  const pressed = await s.preview(id, true);
  assert.equal(pressed.views[0]!.press, undefined);
  await assert.rejects(
    s.gate.door.call({
      server: 'demo',
      tool: 'edit_text',
      args: { ...EDIT, dryRun: true },
      entrance: 'preview',
      decision: { by: 'preview', planId: id, step: 0, pressed: true },
    }),
    (err: Error) => err instanceof GateRefusal && err.kind === 'denied',
  );
  assert.deepEqual(s.calls(), [], 'a denied preview never reaches the server');
  assert.deepEqual(s.asked, []);
});

test("a cross-server step is not previewed by itself even where a rule allows it: the plan's server chose another server", async (t) => {
  const s = await setup(t, [{ id: 'edits-ok', decision: 'allow', reason: 'edits are fine here', tool: 'edit_text' }]);
  const id = await s.receive('planner');
  assert.equal(s.workflow.state.plans[id].steps[0].crossServer, true);
  const waiting = await s.preview(id);
  assert.equal(waiting.views[0]!.press, true);
  assert.match(waiting.views[0]!.error ?? '', /runs on server 'demo', not on the plan's own server/);
  assert.deepEqual(s.calls(), []);
  const shown = await s.preview(id, true);
  assert.deepEqual(s.asked, [], 'the rule allows it: pressing Preview is the decision');
  assert.deepEqual(s.calls(), ['edit_text dryRun=true']);
  assert.match(shown.files[0]!.patch ?? '', /\+goodbye world/);
});
