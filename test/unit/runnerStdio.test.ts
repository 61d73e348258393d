// The runner against the fixture server over stdio, with the ledger in a real file: a plan end to end, then the
// crashes the ledger exists for — the server dying mid-plan, and the Plangate process itself dying mid-step.
import { resolvePlan } from '../../src/core/engine/door';
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalHash } from '../../src/core/plan/approval';
import { classifyResult } from '../../src/core/plan/classify';
import { replay, type Workflow } from '../../src/core/workflow/ledger';
import { runPlan, type RunnerDeps } from '../../src/core/engine/runner';
import { activePlans, getPlan, INTERRUPTED_STEP_ERROR } from '../../src/core/workflow/workflow';
import { loadLedger, openFileLedger } from '../../src/node/fileLedger';
import { REPO_ROOT, startFixtureStdio, type StdioFixture } from './helpers/fixture';
import { readCallLog } from '../../fixture/callLog';
import { ClientInvoker } from './helpers/inMemoryInvoker';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-runner-stdio-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function fixture(): Promise<{ fx: StdioFixture; invoker: ClientInvoker }> {
  const fx = await startFixtureStdio();
  cleanups.push(() => fx.close());
  return { fx, invoker: new ClientInvoker([{ name: 'fixture', client: fx.client }]) };
}

/** Calls a plan tool of the fixture and records the plan as approved in `workflow`. */
async function approvedPlanFrom(
  workflow: Workflow,
  invoker: ClientInvoker,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const classified = classifyResult(await invoker.callTool('fixture', tool, args));
  assert.equal(classified.kind, 'plan');
  assert.ok(classified.kind === 'plan');
  const planId = `${tool}-plan`;
  assert.ok(
    workflow.dispatch({
      type: 'planReceived',
      at: Date.now(),
      planId,
      origin: { server: 'fixture', tool, args, entrance: 'cli' },
      plan: classified.plan,
    }),
  );
  assert.ok(await resolvePlan(workflow, invoker, planId, { allowCrossServer: true }));
  assert.ok(workflow.dispatch({ type: 'approved', at: Date.now(), planId, approvalHash: approvalHash(getPlan(workflow.state, planId)!) }));
  return planId;
}

const deps = (invoker: ClientInvoker, extra: Partial<RunnerDeps> = {}): RunnerDeps => ({
  invoker,
  classify: (r) => classifyResult(r),
  host: { confirmStep: async () => true, askUser: async () => undefined, approveNested: async () => false },
  ...extra,
});

/** The step events in a ledger file, as `type#step` (what the file says ran). */
function stepTrail(file: string): string[] {
  return loadLedger(file).entries.flatMap(({ event }) =>
    event.type.startsWith('step') || event.type === 'restored' ? [`${event.type}${'step' in event ? `#${event.step}` : ''}`] : [],
  );
}

async function waitFor(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('runner over stdio with a file ledger', () => {
  it("runs the fixture's scaffold plan end to end: files written, ledger replays to the same state", async () => {
    const { fx, invoker } = await fixture();
    const file = join(tempDir(), 'ledger.jsonl');
    const opened = openFileLedger(file);
    cleanups.push(() => opened.dispose());
    const planId = await approvedPlanFrom(opened.workflow, invoker, 'plan_scaffold', { screen: 'Payroll', components: ['Hours', 'Rates'] });
    const p = await runPlan(opened.workflow, planId, deps(invoker));
    assert.equal(p.phase, 'follow_up', p.blockedReason);
    assert.deepEqual(
      p.steps.map((s) => s.state),
      ['ok', 'ok', 'ok'],
    );
    assert.ok(existsSync(join(fx.root, 'src/modules/payroll/index.ts')));
    assert.ok(existsSync(join(fx.root, 'src/modules/payroll/Hours.tsx')));
    assert.deepEqual(
      fx.callLog().map((c) => c.tool),
      ['plan_scaffold', 'create_screen', 'create_component', 'create_component'],
    );
    assert.deepEqual(stepTrail(file), [
      'stepStarted#0',
      'stepSucceeded#0',
      'stepStarted#1',
      'stepSucceeded#1',
      'stepStarted#2',
      'stepSucceeded#2',
    ]);
    assert.deepEqual(replay(loadLedger(file).entries), opened.workflow.state);
  });

  it('the server exits mid-plan (crash tool): the ledger names the steps that ran, and a reload re-runs nothing', async () => {
    const { fx, invoker } = await fixture();
    const file = join(tempDir(), 'ledger.jsonl');
    const opened = openFileLedger(file);
    const planId = await approvedPlanFrom(opened.workflow, invoker, 'plan_crash');
    const p = await runPlan(opened.workflow, planId, deps(invoker));
    opened.dispose();
    assert.equal(p.phase, 'blocked');
    assert.deepEqual(
      p.steps.map((s) => s.state),
      ['ok', 'failed', 'pending'],
    );
    assert.equal(p.steps[1].error, "Server 'fixture' closed the connection");
    assert.deepEqual(
      fx.callLog().map((c) => c.tool),
      ['plan_crash', 'succeed', 'crash'],
    );
    assert.deepEqual(stepTrail(file), ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'stepFailed#1']);

    const reloaded = openFileLedger(file);
    cleanups.push(() => reloaded.dispose());
    const again = getPlan(reloaded.workflow.state, planId)!;
    assert.deepEqual(
      again.steps.map((s) => s.state),
      ['ok', 'failed', 'pending'],
    );
    assert.equal(again.phase, 'blocked', 'the user decides: retry, skip or stop');
    assert.deepEqual(
      stepTrail(file),
      ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'stepFailed#1'],
      'nothing to restore, nothing appended',
    );
  });

  it('the server is killed (SIGKILL) during a hanging step: that step failed, the next never started', async () => {
    const { fx, invoker } = await fixture();
    const file = join(tempDir(), 'ledger.jsonl');
    const opened = openFileLedger(file);
    cleanups.push(() => opened.dispose());
    const planId = await approvedPlanFrom(opened.workflow, invoker, 'plan_hang');
    const run = runPlan(opened.workflow, planId, deps(invoker));
    await waitFor('the hang call', () => fx.callLog().some((c) => c.tool === 'hang'));
    assert.deepEqual(stepTrail(file), ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1'], 'the start of the running step is on disk');
    process.kill(fx.transport.pid!, 'SIGKILL');
    const p = await run;
    assert.deepEqual(
      p.steps.map((s) => s.state),
      ['ok', 'failed', 'pending'],
    );
    assert.equal(p.steps[1].error, "Server 'fixture' closed the connection");
    assert.deepEqual(stepTrail(file), ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'stepFailed#1']);
  });

  it('Plangate itself is killed mid-step: after reload that step is unknown, the plan blocked, and nothing runs again by itself', async () => {
    const dir = tempDir();
    const file = join(dir, 'ledger.jsonl');
    const root = join(dir, 'root');
    mkdirSync(root);
    const callLog = join(dir, 'calls.jsonl');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'test/unit/helpers/ledgerRunner.ts'), file, 'plan_hang', root, callLog],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const orphan: { pid?: number } = {};
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      const pid = orphan.pid;
      if (pid) {
        // The fixture exits when its stdin closes; make sure of it.
        await waitFor(
          'the orphaned fixture to exit',
          () => {
            try {
              process.kill(pid, 0);
              return false;
            } catch {
              return true;
            }
          },
          5000,
        ).catch(() => {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            /* already gone */
          }
        });
      }
    });

    await waitFor(`the runner to reach the hanging step (stderr: ${err})`, () => stepTrail(file).includes('stepStarted#1'), 30_000);
    orphan.pid = (JSON.parse(out.split('\n')[0]) as { fixturePid: number }).fixturePid;
    await waitFor('the hang call to reach the server', () => readCallLog(callLog).some((c) => c.tool === 'hang'));
    child.kill('SIGKILL');
    await exited;
    assert.deepEqual(stepTrail(file), ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1'], 'exactly the steps that ran');

    const reloaded = openFileLedger(file, { now: () => 42 });
    cleanups.push(() => reloaded.dispose());
    const plan = getPlan(reloaded.workflow.state, 'crash-plan')!;
    assert.deepEqual(
      plan.steps.map((s) => s.state),
      ['ok', 'unknown', 'pending'],
    );
    assert.equal(plan.steps[1].error, INTERRUPTED_STEP_ERROR);
    assert.equal(plan.phase, 'blocked');
    assert.equal(plan.blockedStep, 1);
    assert.deepEqual(
      activePlans(reloaded.workflow.state).map((p) => p.phase),
      ['blocked'],
    );
    assert.deepEqual(stepTrail(file), ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'restored']);

    // Running the plan again (a fresh server) starts nothing: the unknown step waits for the user's explicit retry.
    const { fx, invoker } = await fixture();
    const after = await runPlan(reloaded.workflow, 'crash-plan', deps(invoker));
    assert.equal(after.phase, 'blocked');
    assert.deepEqual(fx.callLog(), []);
    assert.deepEqual(
      readCallLog(callLog).map((c) => c.tool),
      ['plan_hang', 'succeed', 'hang'],
    );
  });
});
