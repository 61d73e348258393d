/**
 * The engine bench's rig, shared by `engine_vs_sdk` (the ratios) and `engine_phases` (where a step's time goes): one
 * stdio fixture server behind a ServerRegistry for the engine (Workflow + runPlan + classifyResult), a second,
 * identically started fixture process for a bare SDK Client, and the fixture's 200-step plan. Each side is a function
 * that runs the whole plan once:
 * - `engine(sink)`: the plan received, resolved, approved (with its hash, as the Gate's approve does) and run;
 * - `sdk`: the same `tools/call`s with the bare client;
 * - `limit`: the real limit of a durable step, the bare client's calls each after one fsync'd append of a record the
 *   size of a step's start (a step must be on disk before its call is sent), to a file in the same temp dir.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { resolvePlan } from '../src/core/engine/door';
import { runPlan, type RunnerDeps } from '../src/core/engine/runner';
import { classifyResult } from '../src/core/plan/classify';
import type { OrchestratedPlan } from '../src/core/plan/plan';
import { MemoryLedgerSink, Workflow, type LedgerSink } from '../src/core/workflow/ledger';
import { getPlan, planApprovalHash } from '../src/core/workflow/workflow';
import { ServerRegistry } from '../src/mcp/registry';
import { FileLedgerSink } from '../src/node/fileLedger';
import { fixtureServer, rawFixtureClient } from './servers';

export const STEPS = 200;

export interface EngineRig {
  /** One run of the plan through the engine with a ledger from `sinkFor`. */
  engine(sinkFor: () => LedgerSink & { dispose?(): void }): () => Promise<void>;
  /** The engine with the in-memory ledger. */
  memoryEngine: () => Promise<void>;
  /** The engine with the FileLedgerSink the extension uses, a new file each run. */
  fileEngine: () => Promise<void>;
  /** The last file run's writes and fsyncs. */
  fileStats(): { writes: number; syncs: number };
  sdk: () => Promise<void>;
  limit: () => Promise<void>;
  /** The bare client, for a side the caller builds itself. */
  raw: Client;
  plan: OrchestratedPlan;
  dispose(): Promise<void>;
}

export async function openEngineRig(): Promise<EngineRig> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-bench-engine-'));
  const registry = new ServerRegistry({ reconnect: { maxAttempts: 0 } });
  let client: Client | undefined;
  const dispose = async () => {
    await client?.close().catch(() => undefined);
    await registry.dispose();
    rmSync(dir, { recursive: true, force: true });
  };
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
    let ledgerNo = 0;
    let stats = { writes: 0, syncs: 0 };
    const fileEngine = engine(() => {
      const sink = new FileLedgerSink(join(dir, `ledger-${ledgerNo++}.jsonl`));
      stats = sink.stats; // the last run's: how many writes and fsyncs a run of the plan made
      return sink;
    });
    return {
      engine,
      memoryEngine: engine(() => new MemoryLedgerSink()),
      fileEngine,
      fileStats: () => stats,
      sdk,
      limit,
      raw,
      plan,
      dispose,
    };
  } catch (err) {
    await dispose();
    throw err;
  }
}
