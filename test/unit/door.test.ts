// The door against the real fixture server (in memory, twice: alpha and beta both offer edit_text): a dry-run
// preview goes only to the step's resolved server, only with the step's own arguments plus the dry-run flag, only
// where cross-server steps are allowed, and is on the record as a preview. A run path that breaks (a 20,000-deep
// result, a ledger that cannot be written) settles the plan instead of leaving it "running", and says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createFixtureServer, readCallLog } from '../../fixture/fixtureServer';
import { canonicalJson } from '../../src/core/plan/approval';
import { Gate, type RunFailure } from '../../src/core/engine/gate';
import { MemoryLedgerSink, Workflow, type LedgerEntry, type LedgerSink } from '../../src/core/workflow/ledger';
import type { ActionCall, OrchestratedPlan } from '../../src/core/plan/plan';
import type { PlanRecord } from '../../src/core/workflow/workflow';
import { connectInMemory } from './helpers/inMemoryInvoker';

async function setup(options: { allowCrossServer?: boolean; sink?: LedgerSink } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'plangate-door-'));
  writeFileSync(join(root, 'notes.txt'), 'hello world\n');
  const alphaLog = join(root, 'alpha.jsonl');
  const betaLog = join(root, 'beta.jsonl');
  const planner = new McpServer({ name: 'planner', version: '1.0.0' }); // offers no step tools: its steps run elsewhere
  planner.registerTool('noop_planner', {}, () => ({ content: [{ type: 'text' as const, text: 'ok' }] }));
  const conn = await connectInMemory([
    { name: 'planner', server: planner },
    { name: 'alpha', server: createFixtureServer({ root, callLogFile: alphaLog }) },
    { name: 'beta', server: createFixtureServer({ root, callLogFile: betaLog }) },
  ]);
  const sink = options.sink ?? new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  let n = 0;
  const settings = { stepTimeoutMs: 10_000, allowCrossServer: options.allowCrossServer ?? true };
  const gate = new Gate(workflow, { invoker: conn.invoker, settings: () => settings, newId: () => `id${++n}` });
  const calls = (file: string) => (existsSync(file) ? readCallLog(file).map((c) => c.tool) : []);
  const receive = async (server: string, steps: ActionCall[]) => {
    const plan: OrchestratedPlan = { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'test', next_actions: steps };
    const r = gate.receive(
      { server, tool: 'plan_it', args: {}, entrance: 'manual' },
      { content: [{ type: 'text', text: JSON.stringify(plan) }] },
    );
    assert.equal(r.kind, 'plan');
    const planId = (r as { planId: string }).planId;
    await gate.resolve(planId);
    return planId;
  };
  return {
    root,
    gate,
    workflow,
    settings,
    receive,
    alpha: () => calls(alphaLog),
    beta: () => calls(betaLog),
    get: (id: string): PlanRecord => workflow.state.plans[id],
    async close() {
      gate.dispose();
      await conn.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const EDIT = { path: 'notes.txt', edits: [{ oldText: 'hello', newText: 'goodbye' }] };
const preview = (planId: string, server: string, args: Record<string, unknown>) => ({
  server,
  tool: 'edit_text',
  args,
  entrance: 'preview' as const,
  decision: { by: 'preview' as const, planId, step: 0 },
});

test("a dry-run preview goes to the step's resolved server only, with the dry-run flag, and is on the record", async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const id = await s.receive('alpha', [{ tool: 'edit_text', args: EDIT }]);
  assert.equal(s.get(id).steps[0].server, 'alpha');

  const result = await s.gate.door.call(preview(id, 'alpha', { ...EDIT, dryRun: true }));
  assert.match(JSON.stringify(result.content), /goodbye/);
  assert.equal(readFileSync(join(s.root, 'notes.txt'), 'utf8'), 'hello world\n', 'a dry run writes nothing');
  assert.deepEqual(s.alpha(), ['edit_text']);

  const refusals = [
    [preview(id, 'beta', { ...EDIT, dryRun: true }), /approved for server 'alpha', not 'beta'/],
    [preview(id, 'alpha', { ...EDIT }), /dry-run flag/],
    [preview(id, 'alpha', { ...EDIT, path: 'other.txt', dryRun: true }), /dry-run flag set, nothing else/],
  ] as const;
  for (const [call, why] of refusals) {
    await assert.rejects(s.gate.door.call(call), (err: Error) => err.name === 'GateRefusal' && why.test(err.message));
  }
  assert.deepEqual(s.beta(), [], 'nothing reached beta');
  assert.deepEqual(s.alpha(), ['edit_text'], 'no refused preview reached alpha');
});

test('previews are recorded in the ledger as previews, with their arguments', async (t) => {
  const sink = new MemoryLedgerSink();
  const s = await setup({ sink });
  t.after(() => s.close());
  const id = await s.receive('alpha', [{ tool: 'edit_text', args: EDIT }]);
  await s.gate.door.call(preview(id, 'alpha', { ...EDIT, dryRun: true }));
  await s.gate.door.call(preview(id, 'beta', { ...EDIT, dryRun: true })).catch(() => undefined);
  const calls = sink.entries.map((e: LedgerEntry) => e.event).filter((e) => e.type === 'callSent' || e.type === 'callEnded');
  assert.deepEqual(
    calls.map((e) =>
      e.type === 'callSent' ? `sent ${e.server} ${e.entrance} ${e.decision.by} dryRun=${String(e.args?.dryRun)}` : `ended ${e.outcome}`,
    ),
    ['sent alpha preview preview dryRun=true', 'ended ok', 'sent beta preview preview dryRun=true', 'ended refused'],
  );
});

test('a cross-server step is not previewed when cross-server steps are off, nor by itself when they are on', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const id = await s.receive('planner', [{ tool: 'edit_text', args: EDIT }]);
  assert.equal(s.get(id).steps[0].server, 'alpha');
  assert.equal(s.get(id).steps[0].crossServer, true);
  s.settings.allowCrossServer = false;
  await assert.rejects(s.gate.door.call(preview(id, 'alpha', { ...EDIT, dryRun: true })), /cross-server steps are off/);
  assert.deepEqual(s.alpha(), []);
  s.settings.allowCrossServer = true;
  // On, a cross-server preview still never goes by itself (the planner chose another server's tool): only pressed.
  await assert.rejects(s.gate.door.call(preview(id, 'alpha', { ...EDIT, dryRun: true })), /runs on server 'alpha'.*press Preview/);
  assert.deepEqual(s.alpha(), []);
  const pressed = preview(id, 'alpha', { ...EDIT, dryRun: true });
  await s.gate.door.call({ ...pressed, decision: { ...pressed.decision, pressed: true as const } });
  assert.deepEqual(s.alpha(), ['edit_text']);
});

test('a 20,000-deep structured result does not leave the plan running: the step succeeds and the plan goes on', async (t) => {
  const s = await setup();
  t.after(() => s.close());
  const id = await s.receive('alpha', [
    { tool: 'deep_nesting', args: { depth: 20_000, structured: true } },
    { tool: 'succeed', args: { message: 'after' } },
  ]);
  assert.equal(await s.gate.approve(id), undefined);
  const done = (await s.gate.whenSettled(id))!;
  assert.deepEqual(
    done.steps.map((st) => st.state),
    ['ok', 'ok'],
  );
  assert.deepEqual(s.alpha(), ['deep_nesting', 'succeed']);
});

test('canonical JSON (what approvals and call records hash) is total on 20,000-deep values and tells them apart', () => {
  const deep = (depth: number, leaf: unknown) => {
    let v: unknown = leaf;
    for (let i = 0; i < depth; i++) v = { d: v };
    return v;
  };
  const a = canonicalJson(deep(20_000, 1));
  const b = canonicalJson(deep(20_000, 2));
  assert.notEqual(a, b);
  assert.equal(a.length, '{"d":'.length * 20_000 + 1 + 20_000);
  assert.equal(canonicalJson({ b: [1, undefined, { z: 1, a: [] }], a: 'x', u: undefined }), '{"a":"x","b":[1,null,{"a":[],"z":1}]}');
});

test("a ledger that refuses one step's outcome: the plan is settled as failed with the reason, not left running", async (t) => {
  let broken = false;
  const inner = new MemoryLedgerSink();
  const sink: LedgerSink = {
    append(entry) {
      if (broken && entry.event.type === 'stepSucceeded') throw new Error('ENOSPC: no space left on device');
      inner.append(entry);
    },
  };
  const s = await setup({ sink });
  t.after(() => s.close());
  const id = await s.receive('alpha', [
    { tool: 'succeed', args: { message: 'one' } },
    { tool: 'succeed', args: { message: 'two' } },
  ]);
  broken = true;
  assert.equal(await s.gate.approve(id), undefined);
  await s.gate.whenSettled(id);
  const plan = s.get(id);
  assert.equal(plan.phase, 'blocked', 'the plan is not left running');
  assert.equal(plan.steps[0].state, 'failed');
  assert.match(plan.steps[0].error ?? '', /could not finish this step: ENOSPC/);
  assert.equal(plan.steps[1].state, 'pending', 'the second step never started');
  assert.deepEqual(s.alpha(), ['succeed'], 'only the first step reached the server');
  assert.ok(
    inner.entries.some((e) => e.event.type === 'stepFailed'),
    'the failure is on the record',
  );
});

test('a ledger that stops taking writes once a step started: nothing is sent unrecorded, the plan is settled, the user hears why', async (t) => {
  let broken = false;
  const inner = new MemoryLedgerSink();
  const sink: LedgerSink = {
    append(entry) {
      if (broken) throw new Error('EROFS: read-only file system');
      inner.append(entry);
      if (entry.event.type === 'stepStarted') broken = true;
    },
  };
  const s = await setup({ sink });
  t.after(() => s.close());
  const failures: RunFailure[] = [];
  s.gate.onDidFail((f) => failures.push(f));
  const id = await s.receive('alpha', [{ tool: 'succeed', args: { message: 'one' } }]);
  assert.equal(await s.gate.approve(id), undefined);
  for (let i = 0; i < 300 && failures.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(failures.length, 1, 'the failure reaches the user');
  assert.match(failures[0].message, /ledger could not be written \(EROFS/);
  assert.notEqual(s.get(id).phase, 'executing', 'the plan is not left running');
  assert.deepEqual(s.alpha(), [], 'the call could not be recorded, so it was never sent');
});
