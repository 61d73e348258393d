// A plan from the fixture server whose steps run on an independent server: @modelcontextprotocol/server-filesystem's
// edit_file and write_file, through the extension's own path (ServerRegistry over stdio + Gate + runner + file ledger).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gate } from '../../src/core/engine/gate';
import { replay } from '../../src/core/workflow/ledger';
import type { PlanRecord } from '../../src/core/workflow/workflow';
import type { ResolvedServer } from '../../src/mcp/config';
import { ServerRegistry } from '../../src/mcp/registry';
import { loadLedger, openFileLedger } from '../../src/node/fileLedger';
import { fixtureCommand } from './helpers/fixture';

const SERVER_FILESYSTEM = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

test('a fixture plan edits and writes files through server-filesystem, marked cross-server, and the ledger says so', async (t) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'plangate-cross-')));
  const storage = mkdtempSync(join(tmpdir(), 'plangate-ledger-'));
  writeFileSync(join(root, 'notes.md'), 'title\nstatus: draft\n');
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'outside'));
  const fixture = fixtureCommand(['--root', root]);
  const servers: ResolvedServer[] = [
    { name: 'fixture', source: 'mcp.json', type: 'stdio', command: fixture.command, args: fixture.args, env: {}, secrets: [] },
    { name: 'files', source: 'mcp.json', type: 'stdio', command: process.execPath, args: [SERVER_FILESYSTEM, root], env: {}, secrets: [] },
  ];
  const registry = new ServerRegistry();
  const ledgerFile = join(storage, 'ledger.jsonl');
  const ledger = openFileLedger(ledgerFile);
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
    rmSync(storage, { recursive: true, force: true });
  });
  await registry.applyConfig(servers);
  assert.deepEqual(
    registry.connections.map((c) => [c.name, c.state]),
    [
      ['fixture', 'running'],
      ['files', 'running'],
    ],
  );

  const args = { root };
  const result = await registry.callTool('fixture', 'plan_cross_server', args);
  const received = gate.receive({ server: 'fixture', tool: 'plan_cross_server', args, entrance: 'manual' }, result);
  assert.equal(received.kind, 'plan');
  const planId = (received as { planId: string }).planId;
  assert.equal(await gate.approve(planId), undefined);
  const done = (await gate.whenSettled(planId)) as PlanRecord;

  assert.notEqual(done.phase, 'blocked', done.blockedReason);
  assert.deepEqual(
    done.steps.map((s) => [s.call.tool, s.state, s.server, s.crossServer]),
    [
      ['edit_file', 'ok', 'files', true],
      ['write_file', 'ok', 'files', true],
      ['write_file', 'ok', 'files', true],
    ],
  );
  assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), 'title\nstatus: reviewed\n', 'edit_file changed the file');
  assert.ok(existsSync(join(root, 'src/new.txt')), 'write_file created the file');
  assert.ok(existsSync(join(root, 'outside/undeclared.txt')));

  // The ledger on disk alone rebuilds the same plan: which steps ran, where.
  const replayed = replay(loadLedger(ledgerFile).entries).plans[planId];
  assert.deepEqual(
    replayed.steps.map((s) => [s.state, s.server]),
    done.steps.map((s) => [s.state, s.server]),
  );
});

test('with cross-server steps forbidden, the same plan runs nothing', async (t) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'plangate-cross-')));
  writeFileSync(join(root, 'notes.md'), 'title\nstatus: draft\n');
  const fixture = fixtureCommand(['--root', root]);
  const registry = new ServerRegistry();
  t.after(async () => {
    await registry.dispose();
    rmSync(root, { recursive: true, force: true });
  });
  await registry.applyConfig([
    { name: 'fixture', source: 'mcp.json', type: 'stdio', command: fixture.command, args: fixture.args, env: {}, secrets: [] },
    { name: 'files', source: 'mcp.json', type: 'stdio', command: process.execPath, args: [SERVER_FILESYSTEM, root], env: {}, secrets: [] },
  ]);
  const { MemoryLedgerSink, Workflow } = await import('../../src/core/workflow/ledger');
  const gate = new Gate(new Workflow(new MemoryLedgerSink()), {
    invoker: registry,
    settings: () => ({ stepTimeoutMs: 20_000, allowCrossServer: false }),
    newId: () => 'p',
  });
  t.after(() => gate.dispose());
  const args = { root };
  const received = gate.receive(
    { server: 'fixture', tool: 'plan_cross_server', args, entrance: 'manual' },
    await registry.callTool('fixture', 'plan_cross_server', args),
  );
  const planId = (received as { planId: string }).planId;
  await gate.approve(planId);
  const done = (await gate.whenSettled(planId)) as PlanRecord;
  assert.equal(done.phase, 'blocked');
  assert.match(done.steps[0].error ?? '', /plangate\.allowCrossServerSteps/);
  assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), 'title\nstatus: draft\n', 'nothing ran');
});
