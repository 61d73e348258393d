// The runner against real MCP servers (McpServer / Server from the SDK, connected in memory): every path a user can
// meet while a plan runs — success, failures of each kind, cancel, retry/skip/stop, confirm, ask_user, nested plans,
// cross-server steps, missing tools, progress.
import { resolutionRecords } from '../../src/core/engine/resolve';
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { approvalHash } from '../../src/core/plan/approval';
import { classifyResult } from '../../src/core/plan/classify';
import { CancellationTokenSource } from '../../src/core/base/lifecycle';
import { MemoryLedgerSink, replay, Workflow } from '../../src/core/workflow/ledger';
import type { ActionCall, OrchestratedPlan } from '../../src/core/plan/plan';
import { LOCAL_SERVER } from '../../src/core/engine/resolve';
import { runPlan, type RunnerDeps, type RunnerHost } from '../../src/core/engine/runner';
import { getPlan, MAX_PLAN_DEPTH, type PlanRecord } from '../../src/core/workflow/workflow';
import { connectInMemory, type ClientInvoker } from './helpers/inMemoryInvoker';

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const envelope = (actions: ActionCall[], extra: Partial<OrchestratedPlan> = {}): OrchestratedPlan => ({
  kind: 'orchestrated_plan',
  version: '1',
  status: 'ok',
  instruction: 'Test plan',
  next_actions: actions,
  ...extra,
});
const call = (tool: string, args: Record<string, unknown> = {}, extra: Partial<ActionCall> = {}): ActionCall => ({ tool, args, ...extra });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the servers observed, for assertions about what really ran. */
interface Observed {
  /** `server:tool` per call received, in order. */
  calls: string[];
  /** Abort reasons the servers saw (they arrive as notifications/cancelled). */
  aborts: string[];
  /** The last ledger entry at the moment each call reached the server. */
  ledgerAtCall: string[];
  /** Resolves the next time a `hang`/`slow` call starts. */
  entered?: () => void;
}

function alphaServer(obs: Observed, sink: MemoryLedgerSink): McpServer {
  const server = new McpServer({ name: 'alpha', version: '1.0.0' });
  const seen = (tool: string) => {
    obs.calls.push(`alpha:${tool}`);
    const last = sink.entries.at(-1)?.event;
    obs.ledgerAtCall.push(last ? `${last.type}${'step' in last ? `#${last.step}` : ''}` : '(empty)');
  };
  let flakyFailures = 0;
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text: t }) => {
    seen('echo');
    return text(t);
  });
  server.registerTool('fail', { inputSchema: { message: z.string().optional() } }, ({ message }) => {
    seen('fail');
    return { isError: true, content: [{ type: 'text', text: message ?? 'disk full: could not write src/a.ts' }] };
  });
  server.registerTool('flaky', { inputSchema: { failures: z.number() } }, ({ failures }) => {
    seen('flaky');
    if (flakyFailures < failures) {
      flakyFailures++;
      return { isError: true, content: [{ type: 'text', text: `flaky failure ${flakyFailures}` }] };
    }
    return text('flaky ok');
  });
  server.registerTool('slow', { inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    seen('slow');
    obs.entered?.();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          obs.aborts.push(String(extra.signal.reason));
          resolve();
        },
        { once: true },
      );
    });
    return text(`slept ${ms}`);
  });
  server.registerTool('progress', { inputSchema: { steps: z.number(), everyMs: z.number() } }, async ({ steps, everyMs }, extra) => {
    seen('progress');
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      await sleep(everyMs);
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps, message: `part ${i}` },
        });
    }
    return text(`${steps} parts`);
  });
  server.registerTool('plan_child', { inputSchema: { status: z.string().optional() } }, ({ status }) => {
    seen('plan_child');
    return text(
      JSON.stringify(
        envelope([call('echo', { text: 'child 1' }), call('echo', { text: 'child 2' })], {
          status: (status ?? 'ok') as 'ok',
          instruction: 'Child plan',
        }),
      ),
    );
  });
  server.registerTool('nest', { inputSchema: { level: z.number(), max: z.number() } }, ({ level, max }) => {
    seen('nest');
    if (level > max) return text('bottom reached');
    return text(JSON.stringify(envelope([call('nest', { level: level + 1, max })], { instruction: `Level ${level}` })));
  });
  return server;
}

function betaServer(obs: Observed): McpServer {
  const server = new McpServer({ name: 'beta', version: '1.0.0' });
  server.registerTool('beta_only', {}, () => {
    obs.calls.push('beta:beta_only');
    return text('from beta');
  });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text: t }) => {
    obs.calls.push('beta:echo');
    return text(`beta says ${t}`);
  });
  return server;
}

/** A low-level server whose tool fails at the protocol level (a JSON-RPC error, not an isError result). */
function gammaServer(obs: Observed): Server {
  const server = new Server({ name: 'gamma', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'explode', inputSchema: { type: 'object' } }] }));
  server.setRequestHandler(CallToolRequestSchema, () => {
    obs.calls.push('gamma:explode');
    throw new McpError(ErrorCode.InternalError, 'database unreachable');
  });
  return server;
}

interface Harness {
  workflow: Workflow;
  sink: MemoryLedgerSink;
  invoker: ClientInvoker;
  obs: Observed;
  doomed: McpServer;
  /** Receives a plan issued by `server` and approves it; returns its id. */
  plan(actions: ActionCall[], opts?: { server?: string; follow_up?: string; approve?: boolean }): string;
  deps(extra?: Omit<Partial<RunnerDeps>, 'host'> & { host?: Partial<RunnerHost> }): RunnerDeps;
  get(id: string): PlanRecord;
}

let toClose: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of toClose) await close();
  toClose = [];
});

async function harness(): Promise<Harness> {
  const obs: Observed = { calls: [], aborts: [], ledgerAtCall: [] };
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  const doomed = new McpServer({ name: 'doomed', version: '1.0.0' });
  doomed.registerTool('hang', {}, async (extra) => {
    obs.calls.push('doomed:hang');
    obs.entered?.();
    // Never answers; the timer must not keep the test process alive once the server is gone.
    await new Promise<void>((resolve) => {
      setTimeout(resolve, 60_000).unref();
      extra.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return text('never');
  });
  const { invoker, close } = await connectInMemory([
    { name: 'alpha', server: alphaServer(obs, sink) },
    { name: 'beta', server: betaServer(obs) },
    { name: 'gamma', server: gammaServer(obs) },
    { name: 'doomed', server: doomed },
  ]);
  toClose.push(close);
  // Plans are shown with each step's server resolved (the approval covers it): against the catalog as it is now.
  const catalog = await invoker.catalog();
  let n = 0;
  let ids = 0;
  const h: Harness = {
    workflow,
    sink,
    invoker,
    obs,
    doomed,
    plan(actions, opts = {}) {
      const id = `p${++n}`;
      assert.ok(
        workflow.dispatch({
          type: 'planReceived',
          at: Date.now(),
          planId: id,
          origin: { server: opts.server ?? 'alpha', tool: 'plan_it', args: {}, entrance: 'manual' },
          plan: envelope(actions, { follow_up: opts.follow_up }),
        }),
      );
      const plan = h.get(id);
      if (plan.phase === 'awaiting_approval')
        assert.ok(
          workflow.dispatch({
            type: 'resolved',
            at: Date.now(),
            planId: id,
            steps: resolutionRecords(
              plan.steps.map((st) => st.call),
              plan.origin.server,
              catalog,
              { allowCrossServer: true },
            ),
          }),
        );
      if (opts.approve !== false)
        assert.ok(workflow.dispatch({ type: 'approved', at: Date.now(), planId: id, approvalHash: approvalHash(h.get(id)) }));
      return id;
    },
    deps(extra = {}) {
      const { host, ...rest } = extra;
      return {
        invoker,
        classify: (r) => classifyResult(r),
        newId: () => `child${++ids}`,
        host: {
          confirmStep: async () => true,
          askUser: async () => ({}),
          approveNested: async () => true,
          ...host,
        },
        ...rest,
      };
    },
    get: (id) => getPlan(workflow.state, id)!,
  };
  return h;
}

const stepStates = (p: PlanRecord) => p.steps.map((s) => s.state);
/** Resolves when a `slow`/`hang` call reaches its server. */
const whenEntered = (obs: Observed) =>
  new Promise<void>((resolve) => {
    obs.entered = () => {
      obs.entered = undefined;
      resolve();
    };
  });

describe('runPlan: success and failures', () => {
  it('runs every step in order on the issuing server, recording each start before the call is made', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'one' }), call('echo', { text: 'two' })]);
    const done = await runPlan(h.workflow, id, h.deps());
    assert.equal(done.phase, 'finished');
    assert.equal(done.outcome, 'completed');
    assert.deepEqual(stepStates(done), ['ok', 'ok']);
    assert.deepEqual(
      done.steps.map((s) => s.summary),
      ['one', 'two'],
    );
    assert.deepEqual(
      done.steps.map((s) => s.server),
      ['alpha', 'alpha'],
    );
    assert.deepEqual(h.obs.calls, ['alpha:echo', 'alpha:echo']);
    // The door's call record is the last entry when the call is made; the step's start was recorded just before it.
    assert.deepEqual(h.obs.ledgerAtCall, ['callSent#0', 'callSent#1']);
    assert.deepEqual(
      h.sink.entries.filter((e) => e.event.type === 'stepStarted' || e.event.type === 'callSent').map((e) => e.event.type),
      ['stepStarted', 'callSent', 'stepStarted', 'callSent'],
    );
    assert.deepEqual(replay(h.sink.entries), h.workflow.state);
  });

  it('reaches the follow-up when the plan has one', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'x' })], { follow_up: 'Wire the API now?' });
    assert.equal((await runPlan(h.workflow, id, h.deps())).phase, 'follow_up');
  });

  it('an isError result stops the plan: blocked on that step with its text, later steps not run', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'a' }), call('fail'), call('echo', { text: 'c' })]);
    const p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.phase, 'blocked');
    assert.equal(p.blockedStep, 1);
    assert.deepEqual(stepStates(p), ['ok', 'failed', 'pending']);
    assert.equal(p.steps[1].error, 'disk full: could not write src/a.ts');
    assert.deepEqual(h.obs.calls, ['alpha:echo', 'alpha:fail']);
  });

  it("a call that fails at the protocol level fails the step with the server's message", async () => {
    const h = await harness();
    const id = h.plan([call('explode')], { server: 'gamma' });
    const p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.phase, 'blocked');
    assert.match(p.steps[0].error!, /database unreachable/);
    assert.deepEqual(h.obs.calls, ['gamma:explode']);
  });

  it('a step that outlives its timeout fails with "Timed out after …" and the server is told to cancel', async () => {
    const h = await harness();
    const id = h.plan([call('slow', { ms: 10_000 }), call('echo', { text: 'never' })]);
    const started = Date.now();
    const p = await runPlan(h.workflow, id, h.deps({ stepTimeoutMs: 300 }));
    assert.ok(Date.now() - started < 3000);
    assert.equal(p.steps[0].error, 'Timed out after 0.3 s');
    assert.deepEqual(stepStates(p), ['failed', 'pending']);
    for (let i = 0; i < 50 && !h.obs.aborts.length; i++) await sleep(10);
    assert.deepEqual(h.obs.aborts, ['Timed out after 0.3 s']);
  });

  it('progress restarts the timeout and arrives as stepProgress events', async () => {
    const h = await harness();
    const id = h.plan([call('progress', { steps: 4, everyMs: 100 })]);
    const p = await runPlan(h.workflow, id, h.deps({ stepTimeoutMs: 250, progressIntervalMs: 0 }));
    assert.equal(p.outcome, 'completed', p.steps[0].error);
    const progress = h.sink.entries.flatMap((e) => (e.event.type === 'stepProgress' ? [e.event.progress] : []));
    assert.deepEqual(
      progress,
      [1, 2, 3, 4].map((i) => ({ progress: i, total: 4, message: `part ${i}` })),
    );
  });

  it('cancelling mid-step aborts the call (the server sees notifications/cancelled) and cancels the plan', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'a' }), call('slow', { ms: 10_000 }), call('echo', { text: 'c' })]);
    const cts = new CancellationTokenSource();
    const entered = whenEntered(h.obs);
    const run = runPlan(h.workflow, id, h.deps({ token: cts.token }));
    await entered;
    cts.cancel();
    const p = await run;
    assert.equal(p.outcome, 'cancelled');
    assert.deepEqual(stepStates(p), ['ok', 'failed', 'not_run']);
    assert.equal(p.steps[1].error, 'Cancelled');
    for (let i = 0; i < 50 && !h.obs.aborts.length; i++) await sleep(10);
    assert.deepEqual(h.obs.aborts, ['Cancelled by the user']);
    assert.deepEqual(h.obs.calls, ['alpha:echo', 'alpha:slow']);
  });

  it('a server that closes the connection mid-step fails the step saying so', async () => {
    const h = await harness();
    const id = h.plan([call('hang'), call('hang')], { server: 'doomed' });
    const entered = whenEntered(h.obs);
    const run = runPlan(h.workflow, id, h.deps());
    await entered;
    await h.doomed.close();
    const p = await run;
    assert.equal(p.phase, 'blocked');
    assert.equal(p.steps[0].error, "Server 'doomed' closed the connection");
    assert.deepEqual(stepStates(p), ['failed', 'pending']);
  });

  it('two runs of the same plan at once never run a step twice', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'a' }), call('echo', { text: 'b' })]);
    const [a, b] = await Promise.all([runPlan(h.workflow, id, h.deps()), runPlan(h.workflow, id, h.deps())]);
    assert.equal(h.obs.calls.length, 2);
    assert.equal(h.get(id).outcome, 'completed');
    assert.ok(a.phase === 'finished' || b.phase === 'finished');
  });

  it('a plan that is not approved does not run', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'a' })], { approve: false });
    const p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.phase, 'awaiting_approval');
    assert.deepEqual(h.obs.calls, []);
  });
});

describe('runPlan: after a failure', () => {
  it('retry: the caller dispatches retryRequested and runs again; the step runs a second time', async () => {
    const h = await harness();
    const id = h.plan([call('flaky', { failures: 1 }), call('echo', { text: 'after' })]);
    let p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.phase, 'blocked');
    assert.equal(p.steps[0].error, 'flaky failure 1');
    assert.ok(h.workflow.dispatch({ type: 'retryRequested', at: Date.now(), planId: id, step: 0 }));
    p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.outcome, 'completed');
    assert.equal(p.steps[0].attempts, 2);
    assert.deepEqual(h.obs.calls, ['alpha:flaky', 'alpha:flaky', 'alpha:echo']);
  });

  it('skip: the failed step is skipped and the rest runs', async () => {
    const h = await harness();
    const id = h.plan([call('fail'), call('echo', { text: 'after' })]);
    await runPlan(h.workflow, id, h.deps());
    assert.ok(h.workflow.dispatch({ type: 'stepSkipped', at: Date.now(), planId: id, step: 0 }));
    const p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.outcome, 'completed');
    assert.deepEqual(stepStates(p), ['skipped', 'ok']);
  });

  it('stop: later steps are never run', async () => {
    const h = await harness();
    const id = h.plan([call('fail'), call('echo', { text: 'after' })]);
    await runPlan(h.workflow, id, h.deps());
    assert.ok(h.workflow.dispatch({ type: 'stopped', at: Date.now(), planId: id }));
    const p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.outcome, 'stopped');
    assert.deepEqual(stepStates(p), ['failed', 'not_run']);
    assert.deepEqual(h.obs.calls, ['alpha:fail']);
  });

  it('with host.onFailure the runner applies the decision itself (retry, then skip)', async () => {
    const h = await harness();
    const id = h.plan([call('flaky', { failures: 1 }), call('fail'), call('echo', { text: 'end' })]);
    const asked: string[] = [];
    const p = await runPlan(
      h.workflow,
      id,
      h.deps({
        host: {
          onFailure: async (plan, step) => {
            asked.push(`${plan.id}#${step.index}:${step.error}`);
            return step.call.tool === 'flaky' ? 'retry' : 'skip';
          },
        },
      }),
    );
    assert.equal(p.outcome, 'completed');
    assert.deepEqual(stepStates(p), ['ok', 'skipped', 'ok']);
    assert.deepEqual(asked, [`${id}#0:flaky failure 1`, `${id}#1:disk full: could not write src/a.ts`]);
  });
});

describe('runPlan: the user in the loop', () => {
  it('a confirm step runs when the user confirms', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'sure' }, { confirm: true })]);
    const asked: number[] = [];
    const p = await runPlan(
      h.workflow,
      id,
      h.deps({
        host: {
          confirmStep: async (_plan, step) => {
            asked.push(step.index);
            return true;
          },
        },
      }),
    );
    assert.deepEqual(asked, [0]);
    assert.equal(p.outcome, 'completed');
    assert.ok(p.steps[0].confirmedAt);
  });

  it('a declined confirmation stops the plan without calling the tool', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'a' }), call('echo', { text: 'b' }, { confirm: true }), call('echo', { text: 'c' })]);
    const p = await runPlan(h.workflow, id, h.deps({ host: { confirmStep: async () => false } }));
    assert.equal(p.outcome, 'stopped');
    assert.deepEqual(stepStates(p), ['ok', 'not_run', 'not_run']);
    assert.deepEqual(h.obs.calls, ['alpha:echo']);
  });

  it('an ask_user step is answered locally and never sent to a server', async () => {
    const h = await harness();
    const id = h.plan([
      call('ask_user', { prompt: 'Screen name?', fields: [{ name: 'screen', type: 'string', required: true }] }),
      call('echo', { text: 'next' }),
    ]);
    let prompt: unknown;
    const p = await runPlan(
      h.workflow,
      id,
      h.deps({
        host: {
          askUser: async (_plan, step) => {
            prompt = step.call.args.prompt;
            return { screen: 'Payroll' };
          },
        },
      }),
    );
    assert.equal(prompt, 'Screen name?');
    assert.equal(p.outcome, 'completed');
    assert.equal(p.steps[0].server, LOCAL_SERVER);
    assert.match(p.steps[0].summary!, /Payroll/);
    assert.deepEqual(h.obs.calls, ['alpha:echo']);
    assert.ok(!h.invoker.calls.some((c) => c.tool === 'ask_user'));
  });

  it('a declined ask_user step stops the plan', async () => {
    const h = await harness();
    const id = h.plan([call('ask_user', { prompt: 'Name?' }), call('echo', { text: 'next' })]);
    const p = await runPlan(h.workflow, id, h.deps({ host: { askUser: async () => undefined } }));
    assert.equal(p.outcome, 'stopped');
    assert.deepEqual(stepStates(p), ['failed', 'not_run']);
    assert.match(p.steps[0].error!, /Declined/);
    assert.deepEqual(h.obs.calls, []);
  });
});

describe('runPlan: nested plans', () => {
  it('an approved nested plan runs completely before the parent continues', async () => {
    const h = await harness();
    const id = h.plan([call('plan_child'), call('echo', { text: 'after' })]);
    const offered: string[] = [];
    const p = await runPlan(
      h.workflow,
      id,
      h.deps({
        host: {
          approveNested: async (child) => {
            offered.push(`${child.id}:${child.phase}:${child.depth}`);
            return true;
          },
        },
      }),
    );
    assert.deepEqual(offered, ['child1:awaiting_approval:1']);
    assert.equal(p.outcome, 'completed');
    assert.deepEqual(h.obs.calls, ['alpha:plan_child', 'alpha:echo', 'alpha:echo', 'alpha:echo']);
    const child = h.get('child1');
    assert.equal(child.outcome, 'completed');
    assert.equal(child.parentId, id);
    assert.deepEqual(child.origin, { server: 'alpha', tool: 'plan_child', args: {}, entrance: 'step' });
    assert.deepEqual(
      child.steps.map((s) => s.summary),
      ['child 1', 'child 2'],
    );
    assert.equal(p.steps[0].childPlanId, 'child1');
    assert.deepEqual(
      p.steps.map((s) => s.summary),
      ['nested plan completed (2 steps)', 'after'],
    );
  });

  it('a rejected nested plan fails the parent step; nothing of it runs', async () => {
    const h = await harness();
    const id = h.plan([call('plan_child'), call('echo', { text: 'after' })]);
    const p = await runPlan(h.workflow, id, h.deps({ host: { approveNested: async () => false } }));
    assert.equal(p.phase, 'blocked');
    assert.equal(p.steps[0].error, 'nested plan was rejected');
    assert.equal(h.get('child1').outcome, 'rejected');
    assert.deepEqual(h.obs.calls, ['alpha:plan_child']);
  });

  it('a nested plan whose status is not ok fails the parent step without asking', async () => {
    const h = await harness();
    const id = h.plan([call('plan_child', { status: 'error' })]);
    let asked = false;
    const p = await runPlan(h.workflow, id, h.deps({ host: { approveNested: async () => (asked = true) } }));
    assert.equal(asked, false);
    assert.match(p.steps[0].error!, /returned a plan with status 'error'/);
  });

  it('a nested plan blocked without onFailure leaves its parent waiting; resolving it later continues the parent', async () => {
    const h = await harness();
    const id = h.plan([call('plan_child'), call('fail'), call('echo', { text: 'end' })]);
    // The child's first step is made to fail by editing its arguments before approval.
    const p = await runPlan(
      h.workflow,
      id,
      h.deps({
        host: {
          approveNested: async (child) => {
            h.workflow.dispatch({ type: 'argsEdited', at: Date.now(), planId: child.id, step: 0, args: { text: 42 } });
            return true;
          },
        },
      }),
    );
    assert.equal(p.phase, 'executing');
    assert.equal(p.steps[0].state, 'running', 'the parent step waits for its nested plan');
    assert.equal(h.get('child1').phase, 'blocked');
    assert.match(h.get('child1').steps[0].error!, /text/);
    h.workflow.dispatch({ type: 'stepSkipped', at: Date.now(), planId: 'child1', step: 0 });
    await runPlan(h.workflow, 'child1', h.deps({ host: { onFailure: async () => 'skip' } }));
    assert.equal(h.get('child1').outcome, 'completed');
    const parent = h.get(id);
    assert.equal(parent.outcome, 'completed');
    assert.deepEqual(stepStates(parent), ['ok', 'skipped', 'ok']);
  });

  it(`nests to depth ${MAX_PLAN_DEPTH}`, async () => {
    const h = await harness();
    const id = h.plan([call('nest', { level: 1, max: MAX_PLAN_DEPTH })]);
    const p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.outcome, 'completed');
    const depths = Object.values(h.workflow.state.plans)
      .map((x) => x.depth)
      .sort();
    assert.deepEqual(depths, [0, 1, 2, 3, 4, 5]);
    assert.ok(Object.values(h.workflow.state.plans).every((x) => x.outcome === 'completed'));
  });

  it(`refuses depth ${MAX_PLAN_DEPTH + 1}: the step fails with the limit`, async () => {
    const h = await harness();
    const id = h.plan([call('nest', { level: 1, max: MAX_PLAN_DEPTH + 1 })]);
    const p = await runPlan(h.workflow, id, h.deps({ host: { onFailure: async () => 'stop' } }));
    const deepest = Object.values(h.workflow.state.plans).find((x) => x.depth === MAX_PLAN_DEPTH)!;
    assert.equal(deepest.steps[0].error, 'nested plan depth 6 exceeds the limit of 5');
    assert.equal(Object.values(h.workflow.state.plans).length, MAX_PLAN_DEPTH + 1, 'no plan at depth 6 was opened');
    assert.equal(p.outcome, 'stopped');
  });
});

describe('runPlan: where steps run', () => {
  it('a tool missing on the issuing server runs on the next server that offers it (cross-server)', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'hi' }), call('beta_only')]);
    const p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.outcome, 'completed');
    assert.deepEqual(
      p.steps.map((s) => [s.server, s.crossServer]),
      [
        ['alpha', false],
        ['beta', true],
      ],
    );
    assert.deepEqual(h.obs.calls, ['alpha:echo', 'beta:beta_only']);
  });

  it('the issuing server comes first even when another server earlier in the configuration has the tool', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'hi' })], { server: 'beta' });
    const p = await runPlan(h.workflow, id, h.deps());
    assert.equal(p.steps[0].summary, 'beta says hi');
  });

  it('with cross-server steps forbidden, nothing runs and the step says why', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'hi' }), call('beta_only')]);
    const p = await runPlan(h.workflow, id, h.deps({ allowCrossServer: false }));
    assert.equal(p.phase, 'blocked');
    assert.equal(p.blockedStep, 1);
    assert.deepEqual(stepStates(p), ['pending', 'failed']);
    assert.match(
      p.steps[1].error!,
      /only offered by server 'beta'.*cross-server steps are off \(setting plangate\.allowCrossServerSteps\).*Nothing ran/,
    );
    assert.deepEqual(h.obs.calls, []);
  });

  it('a tool no server offers: nothing runs at all', async () => {
    const h = await harness();
    const id = h.plan([call('echo', { text: 'a' }), call('deploy'), call('migrate')]);
    const p = await runPlan(h.workflow, id, h.deps());
    assert.deepEqual(h.obs.calls, []);
    assert.deepEqual(stepStates(p), ['pending', 'failed', 'pending']);
    assert.match(p.steps[1].error!, /tool 'deploy' is not offered by any connected server/);
    assert.match(p.steps[1].error!, /Also missing: step 3 'migrate'/);
    assert.equal(p.steps[1].attempts, 0);
    // Skipping the missing steps is how the user gets the rest to run.
    h.workflow.dispatch({ type: 'stepSkipped', at: Date.now(), planId: id, step: 1 });
    const q = await runPlan(h.workflow, id, h.deps({ host: { onFailure: async () => 'skip' } }));
    assert.deepEqual(stepStates(q), ['ok', 'skipped', 'skipped']);
    assert.deepEqual(h.obs.calls, ['alpha:echo']);
  });
});
