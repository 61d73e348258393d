/**
 * A plan step run as an MCP task against the same work as a plain call: one-step plans through the engine (Workflow +
 * runPlan, the door, over a ServerRegistry holding one stdio fixture), the step being the fixture's `slow_task`
 * (taskSupport "required": `tools/call` answered with a task, `tasks/get` polled at the server's 250 ms interval, then
 * `tasks/result`; every status recorded in the ledger) or its `slow` (one `tools/call` that answers when done), both
 * taking the same 800 ms in four stages. The ratio is what a task step costs in wall time for what it gains (Cancel
 * on the server, a watch that survives a reload): at most one poll interval plus three round trips.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolvePlan } from '../src/core/engine/door';
import { runPlan, type RunnerDeps } from '../src/core/engine/runner';
import { classifyResult } from '../src/core/plan/classify';
import type { OrchestratedPlan } from '../src/core/plan/plan';
import { MemoryLedgerSink, Workflow } from '../src/core/workflow/ledger';
import { getPlan, planApprovalHash } from '../src/core/workflow/workflow';
import { ServerRegistry } from '../src/mcp/registry';
import { figure, ms, type Figure } from './figure';
import { fixtureServer } from './servers';
import { interleave } from './stats';

const WORK_MS = 800;

export async function taskStepFigures(log: (line: string) => void): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-bench-task-'));
  const registry = new ServerRegistry({ reconnect: { maxAttempts: 0 } });
  try {
    await registry.applyConfig([fixtureServer('fixture', dir)]);
    const conn = registry.get('fixture')!;
    if (conn.state !== 'running') throw new Error(`the fixture did not start: ${conn.message ?? conn.state}`);
    const deps: RunnerDeps = {
      invoker: registry,
      classify: (r) => classifyResult(r),
      host: { confirmStep: async () => true, askUser: async () => undefined, approveNested: async () => false },
    };
    let tasks = 0;
    const oneStep = (tool: string, args: Record<string, unknown>) => async () => {
      const plan: OrchestratedPlan = {
        kind: 'orchestrated_plan',
        version: '1',
        status: 'ok',
        instruction: 'bench',
        next_actions: [{ tool, args }],
      };
      const sink = new MemoryLedgerSink();
      const workflow = new Workflow(sink);
      workflow.dispatch({
        type: 'planReceived',
        at: Date.now(),
        planId: 'b',
        origin: { server: 'fixture', tool: 'bench', args: {}, entrance: 'cli' },
        plan,
      });
      await resolvePlan(workflow, registry, 'b', { allowCrossServer: false });
      workflow.dispatch({ type: 'approved', at: Date.now(), planId: 'b', approvalHash: planApprovalHash(getPlan(workflow.state, 'b')!) });
      const done = await runPlan(workflow, 'b', deps);
      if (done.steps[0]?.state !== 'ok') throw new Error(`the ${tool} step did not succeed: ${done.blockedReason ?? done.phase}`);
      if (sink.entries.some((e) => e.event.type === 'stepTask')) tasks++;
    };
    log(`task step vs plain step: ${WORK_MS} ms of work each…`);
    const paired = await interleave(oneStep('slow_task', { ms: WORK_MS }), oneStep('slow', { ms: WORK_MS, steps: 4 }), {
      warmup: 1,
      runs: 9,
      budgetMs: 20_000,
    });
    if (tasks === 0) throw new Error('slow_task did not run as a task');
    return [
      figure(
        'task_step_vs_plain_step',
        `One plan step over stdio, ${WORK_MS} ms of work: as an MCP task (create, poll, result) / as a plain tools/call`,
        paired.ratio,
        'x',
        1.4,
        0.15, // one 250 ms poll interval is up to 0.31× of the work; a loaded machine stretches both sides
        `medians of ${paired.a.length} interleaved runs: task ${ms(paired.medianA)}, plain ${ms(paired.medianB)} (the fixture's poll interval is 250 ms)`,
      ),
    ];
  } finally {
    await registry.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
