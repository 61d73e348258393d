// The drift scenario through the extension's own path (ServerRegistry over stdio + Gate + runner + file ledger)
// against the fixture server: plan_drift's first step redefines drifting_tool (the server sends list_changed), so the
// approval no longer covers step 2. The step is not sent, the plan waits for a new approval that says what changed,
// and the fixture's call log shows drifting_tool was never called until the user approved again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCallLog } from '../../fixture/callLog';
import { approvalHash } from '../../src/core/plan/approval';
import { Gate } from '../../src/core/engine/gate';
import type { ResolvedServer } from '../../src/mcp/config';
import { ServerRegistry } from '../../src/mcp/registry';
import { openFileLedger } from '../../src/node/fileLedger';
import { fixtureCommand } from './helpers/fixture';

test('a tool redefined by the step before it (list_changed over stdio): not sent, the plan asks again, then runs', async (t) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'plangate-drift-')));
  const callLog = join(root, 'calls.jsonl');
  const fixture = fixtureCommand(['--root', root, '--call-log', callLog]);
  const servers: ResolvedServer[] = [
    { name: 'fixture', source: 'mcp.json', type: 'stdio', command: fixture.command, args: fixture.args, env: {}, secrets: [] },
  ];
  const registry = new ServerRegistry();
  const ledger = openFileLedger(join(root, 'ledger', 'ledger.jsonl'));
  let n = 0;
  const gate = new Gate(ledger.workflow, {
    invoker: registry,
    settings: () => ({ stepTimeoutMs: 20_000, allowCrossServer: true }),
    newId: () => `plan-${++n}`,
  });
  t.after(async () => {
    gate.dispose();
    ledger.dispose();
    await registry.dispose();
    rmSync(root, { recursive: true, force: true });
  });
  await registry.applyConfig(servers);
  const tools = () => readCallLog(callLog).map((c) => c.tool);

  const result = await registry.callTool('fixture', 'plan_drift', {});
  const received = gate.receive({ server: 'fixture', tool: 'plan_drift', args: {}, entrance: 'manual' }, result);
  assert.equal(received.kind, 'plan');
  const planId = (received as { planId: string }).planId;
  await gate.resolve(planId);
  const shown = approvalHash(ledger.workflow.state.plans[planId]);
  assert.equal(await gate.approve(planId, undefined, shown), undefined);

  const until = async (what: string, cond: () => boolean) => {
    for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(cond(), `timed out waiting for ${what}`);
  };
  await until('a new approval to be asked', () => !!ledger.workflow.state.plans[planId].reapproval);
  const plan = ledger.workflow.state.plans[planId];
  assert.equal(plan.phase, 'awaiting_approval');
  assert.equal(plan.reapproval!.step, 1);
  assert.match(plan.reapproval!.change, /server 'fixture' changed the definition of tool 'drifting_tool'/);
  assert.deepEqual(tools(), ['plan_drift', 'redefine_drifting_tool'], 'drifting_tool was not called under the old approval');
  assert.match((await gate.approve(planId, undefined, shown)) ?? '', /changed since it was shown/, 'the old panel cannot approve');

  assert.equal(await gate.approve(planId, undefined, approvalHash(ledger.workflow.state.plans[planId])), undefined);
  await until('the plan to finish', () => gate.isSettled(planId));
  assert.deepEqual(
    ledger.workflow.state.plans[planId].steps.map((s) => s.state),
    ['ok', 'ok'],
  );
  assert.deepEqual(tools(), ['plan_drift', 'redefine_drifting_tool', 'drifting_tool'], 'each step ran once');
});
