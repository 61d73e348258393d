/**
 * Figure 1: a 200-step plan run through the engine (Workflow + runPlan + classifyResult, over a ServerRegistry
 * holding one stdio fixture server) against the same 200 `tools/call`s made with a bare SDK Client on a second,
 * identically started fixture process. Measured three ways: with an in-memory ledger (the engine's own overhead),
 * with the FileLedgerSink the extension uses against the raw SDK, and with that file ledger against the real limit
 * of a durable step: the raw SDK doing the same calls plus one fsync'd append of a comparable record before each
 * (a step must be on disk before its call is sent), to a file in the same temp dir on the same disk.
 */
import { resolvePlan } from '../src/core/engine/door';
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { classifyResult } from '../src/core/plan/classify';
import { MemoryLedgerSink, Workflow, type LedgerSink } from '../src/core/workflow/ledger';
import type { OrchestratedPlan } from '../src/core/plan/plan';
import { runPlan, type RunnerDeps } from '../src/core/engine/runner';
import { getPlan, planApprovalHash } from '../src/core/workflow/workflow';
import { ServerRegistry } from '../src/mcp/registry';
import { FileLedgerSink } from '../src/node/fileLedger';
import { figure, ms, type Figure } from './figure';
import { fixtureServer, rawFixtureClient } from './servers';
import { interleave } from './stats';

const STEPS = 200;

export async function engineVsSdk(log: (line: string) => void): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-bench-engine-'));
  const registry = new ServerRegistry({ reconnect: { maxAttempts: 0 } });
  let client: Client | undefined;
  try {
    await registry.applyConfig([fixtureServer('fixture', dir)]);
    const conn = registry.get('fixture')!;
    if (conn.state !== 'running') throw new Error(`the fixture did not start: ${conn.message ?? conn.state}`);
    client = await rawFixtureClient(dir);
    const raw = client;

    const classified = classifyResult(await registry.callTool('fixture', 'plan_big', { steps: STEPS }));
    if (classified.kind !== 'plan') throw new Error(`plan_big returned ${classified.kind}, not a plan`);
    const plan: OrchestratedPlan = classified.plan;
    if (plan.next_actions.length !== STEPS) throw new Error(`plan_big returned ${plan.next_actions.length} steps`);

    const deps: RunnerDeps = {
      invoker: registry,
      classify: (r) => classifyResult(r),
      host: { confirmStep: async () => true, askUser: async () => undefined, approveNested: async () => false },
    };
    let ledgerNo = 0;
    const engine = (sinkFor: () => LedgerSink & { dispose?(): void }) => async () => {
      const sink = sinkFor();
      try {
        const workflow = new Workflow(sink);
        workflow.dispatch({
          type: 'planReceived',
          at: Date.now(),
          planId: 'bench',
          origin: { server: 'fixture', tool: 'plan_big', args: { steps: STEPS }, entrance: 'cli' },
          plan,
        });
        // As in the extension: each step's server and tool definition are resolved before the approval covers them.
        await resolvePlan(workflow, registry, 'bench', { allowCrossServer: true });
        // As the Gate's approve does: the hash of what is approved (the workflow checks it, the runner checks it again).
        workflow.dispatch({
          type: 'approved',
          at: Date.now(),
          planId: 'bench',
          approvalHash: planApprovalHash(getPlan(workflow.state, 'bench')!),
        });
        const done = await runPlan(workflow, 'bench', deps);
        if (done.phase !== 'follow_up' || done.steps.some((s) => s.state !== 'ok'))
          throw new Error(`the plan did not complete: ${done.phase} ${done.blockedReason ?? ''}`);
      } finally {
        sink.dispose?.();
      }
    };
    const sdk = async () => {
      for (const step of plan.next_actions) {
        const result = await raw.callTool({ name: step.tool, arguments: step.args });
        if (result.isError) throw new Error(`raw call of ${step.tool} failed`);
      }
    };

    // The limit: the raw SDK's calls, each after one fsync'd append of a record the size of a step's start.
    let limitNo = 0;
    const limit = async () => {
      const fd = openSync(join(dir, `limit-${limitNo++}.jsonl`), 'a');
      try {
        for (const [i, step] of plan.next_actions.entries()) {
          const record = {
            seq: i + 1,
            event: { type: 'stepStarted', at: Date.now(), planId: 'bench', step: i, server: 'fixture', crossServer: false },
          };
          writeSync(fd, `${JSON.stringify(record)}\n`);
          fsyncSync(fd);
          const result = await raw.callTool({ name: step.tool, arguments: step.args });
          if (result.isError) throw new Error(`raw call of ${step.tool} failed`);
        }
      } finally {
        closeSync(fd);
      }
    };
    const fileEngine = engine(() => new FileLedgerSink(join(dir, `ledger-${ledgerNo++}.jsonl`)));

    log(`engine vs raw SDK: ${STEPS}-step plan, in-memory ledger…`);
    const memory = await interleave(
      engine(() => new MemoryLedgerSink()),
      sdk,
      { warmup: 3, runs: 31, budgetMs: 10_000 },
    );
    log(`engine vs raw SDK: ${STEPS}-step plan, file ledger…`);
    const file = await interleave(fileEngine, sdk, { warmup: 1, runs: 15, budgetMs: 15_000 });
    log(`engine vs the limit (raw SDK + one fsync'd append per call): ${STEPS}-step plan, file ledger…`);
    const durable = await interleave(fileEngine, limit, { warmup: 1, runs: 21, budgetMs: 20_000 });

    const perStep = (t: number) => ms(t / STEPS).replace(' ms', ' ms/step');
    return [
      figure(
        'engine_vs_sdk_200_steps',
        `${STEPS}-step plan over stdio: engine (memory ledger) / raw SDK client`,
        memory.ratio,
        'x',
        1.05,
        `medians of ${memory.a.length} interleaved runs: engine ${ms(memory.medianA)} (${perStep(memory.medianA)}), raw SDK ${ms(memory.medianB)} (${perStep(memory.medianB)})`,
      ),
      figure(
        'engine_file_ledger_vs_sdk_200_steps',
        `${STEPS}-step plan over stdio: engine with the file ledger the extension uses / raw SDK client`,
        file.ratio,
        'x',
        1.05,
        `medians of ${file.a.length} interleaved runs: engine ${ms(file.medianA)} (${perStep(file.medianA)}, ${STEPS} fsyncs, one per step), raw SDK ${ms(file.medianB)}`,
      ),
      figure(
        'engine_file_ledger_vs_limit_200_steps',
        `${STEPS}-step plan over stdio: engine with the file ledger / the limit (raw SDK + one fsync'd append per call)`,
        durable.ratio,
        'x',
        1.1,
        `medians of ${durable.a.length} interleaved runs: engine ${ms(durable.medianA)} (${perStep(durable.medianA)}), limit ${ms(durable.medianB)} (${perStep(durable.medianB)})`,
      ),
    ];
  } finally {
    await client?.close().catch(() => undefined);
    await registry.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
