/**
 * The cost of a sandbox (src/mcp/sandbox.ts): the fixture server over stdio started sandboxed (srt: bubblewrap, its
 * proxy and socat bridges) and unsandboxed, interleaved; and a 200-step plan (`plan_big`) received, approved and run
 * through the Gate and its runner on each running server, as the extension runs one. Ratios sandboxed /
 * unsandboxed, with the absolute medians in the notes.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Gate } from '../src/core/engine/gate';
import { MemoryLedgerSink, Workflow } from '../src/core/workflow/ledger';
import type { ResolvedStdioServer } from '../src/mcp/config';
import { ServerConnection } from '../src/mcp/connection';
import { ServerRegistry } from '../src/mcp/registry';
import { probeSandbox, sandboxRules, srtCliPath } from '../src/mcp/sandbox';
import { figure, ms, notMeasured, type Figure } from './figure';
import { interleave } from './stats';

const ROOT = path.resolve(__dirname, '..');
const FIXTURE = path.join(ROOT, 'dist/fixtureServer.js');

export async function sandboxFigures(log: (line: string) => void): Promise<Figure[]> {
  const PATH = process.env.PATH ?? '';
  const support = await probeSandbox(process.platform, PATH);
  const why = !support.ok
    ? `no sandbox here: ${support.reason}`
    : !existsSync(FIXTURE)
      ? 'dist/fixtureServer.js is missing: npm run build'
      : undefined;
  if (why) {
    return [
      notMeasured('sandbox_start', 'Sandbox: server start, sandboxed / not (x)', 'x', null, why),
      notMeasured('sandbox_200_step_plan', 'Sandbox: a 200-step plan, sandboxed / not (x)', 'x', null, why),
    ];
  }
  const ws = await mkdtemp(path.join(tmpdir(), 'plangate-bench-sandbox-'));
  try {
    const config = (sandboxed: boolean): ResolvedStdioServer => ({
      name: sandboxed ? 'boxed' : 'plain',
      source: 'mcp.json',
      type: 'stdio',
      command: process.execPath,
      args: [FIXTURE, '--root', ws],
      env: {},
      cwd: ws,
      secrets: [],
      ...(sandboxed && {
        sandbox: { reason: 'requested' as const, rules: sandboxRules({ filesystem: { allowWrite: [ws] } }, 'requested') },
      }),
    });
    const options = {
      pathProvider: async () => PATH,
      reconnect: { maxAttempts: 0 },
      sandbox: { srtPath: srtCliPath(path.join(ROOT, 'dist')) },
    };
    const startStop = async (sandboxed: boolean) => {
      const conn = new ServerConnection(config(sandboxed), options);
      await conn.start();
      await conn.stop();
      conn.dispose();
    };
    log('sandbox: server start, sandboxed and not…');
    const start = await interleave(
      () => startStop(true),
      () => startStop(false),
      { warmup: 1, runs: 7, budgetMs: 60_000 },
    );
    log('sandbox: a 200-step plan through the gate, sandboxed and not…');
    const registry = new ServerRegistry(options);
    await registry.applyConfig([config(true), config(false)]);
    for (const c of registry.connections)
      if (c.state !== 'running') throw new Error(`server ${c.name} did not start: ${c.message ?? c.state}`);
    if (registry.get('boxed')?.sandboxed !== true) throw new Error('the boxed server is not sandboxed');
    let n = 0;
    const gate = new Gate(new Workflow(new MemoryLedgerSink()), {
      invoker: registry,
      settings: () => ({ stepTimeoutMs: 30_000, allowCrossServer: false }),
      newId: () => `bench-${++n}`,
    });
    const plan = (server: string) => async () => {
      const args = { steps: 200 };
      const received = gate.receive(
        { server, tool: 'plan_big', args, entrance: 'manual' },
        await registry.callTool(server, 'plan_big', args),
      );
      if (received.kind !== 'plan') throw new Error(`plan_big on ${server} gave ${received.kind}, not a plan`);
      const refused = await gate.approve(received.planId);
      if (refused) throw new Error(`the approval was refused: ${refused}`);
      const done = await gate.whenSettled(received.planId);
      if (!done || done.steps.length !== 200 || done.steps.some((step) => step.state !== 'ok' || step.server !== server))
        throw new Error(`the plan on ${server} did not run its 200 steps there: ${done?.phase} ${done?.blockedReason ?? ''}`);
    };
    const run = await interleave(plan('boxed'), plan('plain'), { warmup: 1, runs: 5, budgetMs: 120_000 });
    gate.dispose();
    await registry.dispose();
    return [
      figure(
        'sandbox_start',
        'Sandbox: server start, sandboxed / not (x)',
        start.ratio,
        'x',
        null,
        `start to tools listed: sandboxed ${ms(start.medianA)}, not ${ms(start.medianB)} (medians, ${start.a.length} interleaved runs; srt ${path.relative(ROOT, options.sandbox.srtPath)})`,
      ),
      figure(
        'sandbox_200_step_plan',
        'Sandbox: a 200-step plan, sandboxed / not (x)',
        run.ratio,
        'x',
        1.25,
        `plan_big (200 steps) received, approved and run by the Gate on one running server: sandboxed ${ms(run.medianA)}, not ${ms(run.medianB)} (medians of ${run.a.length})`,
      ),
    ];
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
}
