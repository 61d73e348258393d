// MCP tasks (2025-11-25) against real servers: @modelcontextprotocol/server-everything's `simulate-research-query`
// (taskSupport "required") over stdio and streamable HTTP, and the fixture's `slow_task` (whose call log shows every
// tools/call and tasks/cancel). A task call goes through the one door and is on the record (its id in the ledger); a
// plan step running as a task shows its status, Cancel reaches the server as tasks/cancel, and after a reload (the
// ledger replayed into a new Gate) the step watches the same task again: the tool is called exactly once.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Gate } from '../../src/core/engine/gate';
import type { ToolCallOptions, ToolInvoker } from '../../src/core/engine/invoker';
import { MemoryLedgerSink, Workflow, type LedgerEntry } from '../../src/core/workflow/ledger';
import { getPlan, type PlanRecord, type WorkflowEvent } from '../../src/core/workflow/workflow';
import type { ResolvedServer } from '../../src/mcp/config';
import { ServerConnection } from '../../src/mcp/connection';
import { ConnectionInvoker } from '../../src/cli/connectionInvoker';
import { quoteCommandLine } from '../../src/cli/splitCommandLine';
import { readCallLog } from '../../fixture/callLog';
import { runCli } from './helpers/cliHarness';
import { fixtureStdio, REPO, startHttpFixture, waitFor } from './helpers/mcpFixture';
import { existsSync, readFileSync } from 'node:fs';

const EVERYTHING = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const RESEARCH = 'simulate-research-query';

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'plangate-tasks-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** server-everything over streamable HTTP on a free port; stopped after the test. */
async function everythingHttp(t: TestContext): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(() => {
    child.kill();
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen: ${err}`)), 15_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      if (/listening on port/i.test(err)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${err}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

function everythingStdio(): ResolvedServer {
  return {
    name: 'everything',
    source: 'mcp.json',
    type: 'stdio',
    command: process.execPath,
    args: [EVERYTHING, 'stdio'],
    env: {},
    cwd: REPO,
    secrets: [],
  };
}

function everythingOver(url: string): ResolvedServer {
  return { name: 'everything', source: 'mcp.json', type: 'http', url, headers: {}, secrets: [] };
}

async function connect(t: TestContext, config: ResolvedServer): Promise<ServerConnection> {
  const conn = new ServerConnection(config, { reconnect: { maxAttempts: 0 }, pathProvider: async () => process.env.PATH ?? '' });
  t.after(() => conn.dispose());
  await conn.start();
  return conn;
}

/** A plan (as a planning tool would return it) whose steps are these calls. */
function planResult(steps: { tool: string; args: Record<string, unknown>; label?: string }[]) {
  const plan = { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'Run the task steps.', next_actions: steps };
  return { content: [{ type: 'text', text: JSON.stringify(plan) }] };
}

interface Harness {
  gate: Gate;
  workflow: Workflow;
  sink: MemoryLedgerSink;
  events: () => WorkflowEvent[];
}

function gateOver(t: TestContext, invoker: ToolInvoker, entries: readonly LedgerEntry[] = []): Harness {
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink, entries);
  let n = 0;
  const gate = new Gate(workflow, {
    invoker,
    settings: () => ({ stepTimeoutMs: 20_000, allowCrossServer: false }),
    newId: () => `p${++n}-${Date.now()}`,
  });
  t.after(() => gate.dispose());
  return { gate, workflow, sink, events: () => sink.entries.map((e) => e.event) };
}

async function receivePlan(h: Harness, server: string, steps: Parameters<typeof planResult>[0]): Promise<string> {
  const received = h.gate.receive({ server, tool: 'planner', args: {}, entrance: 'manual' }, planResult(steps));
  assert.equal(received.kind, 'plan');
  const id = (received as { planId: string }).planId;
  await h.gate.resolution(id);
  return id;
}

function settled(h: Harness, id: string): Promise<PlanRecord> {
  return h.gate.whenSettled(id) as Promise<PlanRecord>;
}

describe('simulate-research-query through plangate run (server-everything)', { concurrency: 2 }, () => {
  for (const transport of ['stdio', 'http'] as const) {
    test(`over ${transport}: runs as a task, its result printed; the ledger has the call, its task id and the task's statuses`, async (t) => {
      const dir = await tempDir(t);
      const ledger = path.join(dir, 'ledger.jsonl');
      const target =
        transport === 'stdio'
          ? ['--server', quoteCommandLine([process.execPath, EVERYTHING, 'stdio'])]
          : ['--url', await everythingHttp(t)];
      const r = await runCli(['run', ...target, '--tool', RESEARCH, '--args', '{"topic":"tides"}', '--ledger', ledger], {
        timeoutMs: 40_000,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Research Report: tides/);
      const events = (await readFile(ledger, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as LedgerEntry).event);
      const sent = events.filter((e) => e.type === 'callSent');
      assert.equal(sent.length, 1);
      const tasks = events.filter((e): e is Extract<WorkflowEvent, { type: 'callTask' }> => e.type === 'callTask');
      assert.ok(tasks.length >= 2, `the task's creation and its end are recorded: ${JSON.stringify(tasks)}`);
      assert.ok(tasks.every((e) => e.callId === (sent[0] as { callId: string }).callId && e.taskId === tasks[0].taskId));
      assert.equal(tasks[0].status, 'working');
      // The server moves through four stages, one a second, and asks to be polled once a second: a poll on a loaded
      // machine may miss a stage, so the test asks for two of them at least, in the server's order.
      const stages = ['Gathering sources...', 'Analyzing content...', 'Synthesizing findings...', 'Generating report...'];
      const seen = tasks.map((e) => stages.indexOf(e.message ?? '')).filter((i) => i >= 0);
      assert.ok(new Set(seen).size >= 2, `status messages are recorded as they change: ${JSON.stringify(tasks)}`);
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => a - b),
        'in the order the server went through them',
      );
      assert.equal(tasks.at(-1)!.status, 'completed');
      const ended = events.find((e) => e.type === 'callEnded');
      assert.equal((ended as { outcome: string }).outcome, 'ok');
    });
  }
});

describe('a plan step running as a task, through the Gate (server-everything)', { concurrency: 2 }, () => {
  for (const transport of ['stdio', 'http'] as const) {
    test(`over ${transport}: the step shows the task's status and message as they come, and its result when it completes`, async (t) => {
      const conn = await connect(t, transport === 'stdio' ? everythingStdio() : everythingOver(await everythingHttp(t)));
      const h = gateOver(t, new ConnectionInvoker(conn));
      const id = await receivePlan(h, 'everything', [{ tool: RESEARCH, args: { topic: 'coral' }, label: 'Research' }]);
      const seen: string[] = [];
      h.workflow.onDidChange(({ state }) => {
        const task = getPlan(state, id)?.steps[0]?.task;
        if (task) seen.push(`${task.status}:${task.message ?? ''}`);
      });
      assert.equal(await h.gate.approve(id), undefined);
      const done = await settled(h, id);
      assert.equal(done.phase, 'finished', done.blockedReason);
      assert.equal(done.steps[0].state, 'ok');
      assert.match(done.steps[0].summary ?? '', /Research Report: coral/);
      assert.ok(seen.includes('working:Gathering sources...'), seen.join(' | '));
      assert.ok(new Set(seen.filter((s) => s.startsWith('working:'))).size >= 2, `messages as they change: ${seen.join(' | ')}`);
      // The last stage's message, seen while working or, when the poll came after the server finished, at completion.
      assert.ok(
        seen.some((s) => s.endsWith(':Generating report...')),
        seen.join(' | '),
      );
      assert.equal(done.steps[0].task?.status, 'completed');
      const taskIds = new Set(h.events().flatMap((e) => (e.type === 'stepTask' ? [e.taskId] : [])));
      assert.equal(taskIds.size, 1);
    });

    test(`over ${transport}: Cancel sends tasks/cancel — the server reports the task cancelled`, async (t) => {
      const conn = await connect(t, transport === 'stdio' ? everythingStdio() : everythingOver(await everythingHttp(t)));
      const h = gateOver(t, new ConnectionInvoker(conn));
      const id = await receivePlan(h, 'everything', [{ tool: RESEARCH, args: { topic: 'kelp' } }]);
      assert.equal(await h.gate.approve(id), undefined);
      await waitFor(() => getPlan(h.workflow.state, id)?.steps[0]?.task?.status === 'working', 'the task to be working');
      const taskId = getPlan(h.workflow.state, id)!.steps[0].task!.id;
      assert.equal(h.gate.cancel(id), undefined);
      const done = await settled(h, id);
      assert.equal(done.outcome, 'cancelled');
      let status: string | undefined;
      for (let i = 0; i < 100 && status !== 'cancelled'; i++) {
        status = (await conn.taskStatus(taskId))?.status;
        if (status !== 'cancelled') await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(status, 'cancelled', 'the server heard tasks/cancel');
    });
  }
});

/**
 * An invoker over a live connection whose watch can be killed as a process dies: the call's task callback throws from
 * then on, so its watch ends without a tasks/cancel (as when the window reloads mid-watch).
 */
function killableInvoker(conn: ServerConnection): { invoker: ToolInvoker; kill: () => void } {
  let dead = false;
  const inner = new ConnectionInvoker(conn);
  const invoker: ToolInvoker = {
    catalog: () => inner.catalog(),
    taskStatus: (s, id) => inner.taskStatus(s, id),
    callTool: (server, tool, args, options?: ToolCallOptions) =>
      inner.callTool(server, tool, args, {
        ...options,
        task: {
          ...options?.task,
          onTask: (task) => {
            if (dead) throw new Error('the process died');
            options?.task?.onTask?.(task);
          },
        },
      }),
  };
  return { invoker, kill: () => (dead = true) };
}

/** Runs a task step, and "reloads" once its task is on the record: the ledger so far is replayed into a new Gate. */
async function reloadMidTask(t: TestContext, conn: ServerConnection, server: string, steps: Parameters<typeof planResult>[0]) {
  const { invoker, kill } = killableInvoker(conn);
  const first = gateOver(t, invoker);
  const id = await receivePlan(first, server, steps);
  assert.equal(await first.gate.approve(id), undefined);
  await waitFor(() => getPlan(first.workflow.state, id)?.steps[0]?.task?.status === 'working', 'the task to be working', 15_000);
  const snapshot = first.sink.entries.slice();
  kill();
  const taskId = getPlan(first.workflow.state, id)!.steps[0].task!.id;
  const second = gateOver(t, new ConnectionInvoker(conn), snapshot);
  const restored = getPlan(second.workflow.state, id)!;
  assert.equal(restored.phase, 'blocked');
  assert.equal(restored.steps[0].state, 'unknown');
  assert.equal(restored.steps[0].task?.id, taskId);
  return { id, taskId, second };
}

describe('resume after a reload: the step watches its task again, nothing is sent twice', { concurrency: 2 }, () => {
  test('server-everything: the replayed ledger resumes the same task; no second tools/call; the original call ends', async (t) => {
    const conn = await connect(t, everythingStdio());
    const { id, taskId, second } = await reloadMidTask(t, conn, 'everything', [{ tool: RESEARCH, args: { topic: 'tides' } }]);
    assert.deepEqual(await second.gate.resumeTasks(), [id]);
    const done = await settled(second, id);
    assert.equal(done.steps[0].state, 'ok', done.blockedReason);
    assert.match(done.steps[0].summary ?? '', /Research Report: tides/);
    const events = second.events();
    assert.equal(events.filter((e) => e.type === 'callSent').length, 0, 'no new tools/call after the reload');
    assert.ok(events.some((e) => e.type === 'taskResumed'));
    assert.ok(events.every((e) => e.type !== 'stepTask' || e.taskId === taskId));
    const original = (second.workflow.state.plans[id].steps[0].task ?? { callId: '' }).callId;
    assert.ok(
      events.some((e) => e.type === 'callEnded' && e.callId === original && e.outcome === 'ok'),
      'the original call is ended on the record',
    );
  });

  test("fixture slow_task: called exactly once (the fixture's call log) across the reload", async (t) => {
    const dir = await tempDir(t);
    const log = path.join(dir, 'calls.jsonl');
    const conn = await connect(t, fixtureStdio('fixture', ['--call-log', log]));
    const { id, second } = await reloadMidTask(t, conn, 'fixture', [{ tool: 'slow_task', args: { ms: 1500, label: 'once' } }]);
    await second.gate.resumeTasks();
    const done = await settled(second, id);
    assert.equal(done.steps[0].state, 'ok', done.blockedReason);
    assert.equal(done.steps[0].summary, 'slow_task done: once');
    assert.deepEqual(
      readCallLog(log).map((c) => c.tool),
      ['slow_task'],
    );
  });

  test('a task the server no longer knows is not resumed: the step stays "outcome unknown"', async (t) => {
    const dir = await tempDir(t);
    const log = path.join(dir, 'calls.jsonl');
    const conn = await connect(t, fixtureStdio('fixture', ['--call-log', log]));
    const { id, second } = await reloadMidTask(t, conn, 'fixture', [{ tool: 'slow_task', args: { ms: 3000 } }]);
    // A new server process: its store has never heard of the task.
    await conn.restart();
    assert.deepEqual(await second.gate.resumeTasks(), []);
    const plan = getPlan(second.workflow.state, id)!;
    assert.equal(plan.phase, 'blocked');
    assert.equal(plan.steps[0].state, 'unknown');
    assert.equal(readCallLog(log).length, 1);
  });
});

describe('plangate run killed and run again with the same --ledger', () => {
  test('the plan step running as a task is watched again, not sent again; the plan completes (fixture over HTTP)', async (t) => {
    const dir = await tempDir(t);
    const ledger = path.join(dir, 'ledger.jsonl');
    const fixture = await startHttpFixture();
    t.after(() => fixture.close());
    const args = ['run', '--url', fixture.url, '--tool', 'plan_task', '--args', '{"ms":3000}', '--yes', '--ledger', ledger];
    const hasTask = () => existsSync(ledger) && readFileSync(ledger, 'utf8').includes('"type":"stepTask"');
    const killed = await runCli(args, {
      timeoutMs: 30_000,
      onSpawn: (child) => {
        const timer = setInterval(() => {
          if (hasTask()) {
            clearInterval(timer);
            child.kill('SIGKILL');
          }
        }, 20);
        child.once('exit', () => clearInterval(timer));
      },
    });
    assert.equal(killed.signal, 'SIGKILL', `the first run was killed mid-task: ${killed.stdout}${killed.stderr}`);
    const again = await runCli(args, { timeoutMs: 30_000 });
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /Resuming the plan 'plan_task' returned before: step 1 \(slow_task\) still runs as task/);
    assert.match(again.stdout, /Completed 2 steps/);
    assert.deepEqual(
      fixture.callLog().map((c) => c.tool),
      ['plan_task', 'slow_task', 'succeed'],
      'the planning tool and the task step were each called once',
    );
  });
});
