// The reliability suite's fault part: the engine (runPlan + classifyResult over a ServerRegistry) against the fixture
// server over stdio when a step misbehaves — the server crashes, hangs past the step timeout, is cancelled mid-step,
// answers 5 MB, answers 10,000-deep JSON, answers malformed JSON, or closes its stdout while it lives on. In every case
// the run ends within its timeout; the ledger file (reloaded with loadLedger + replay) names exactly the steps that
// ran; the fixture's call log shows each step's call at most once, also after running the plan again; and the step
// says what happened.
import { resolvePlan } from '../../src/core/engine/door';
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalHash } from '../../src/core/plan/approval';
import { classifyResult } from '../../src/core/plan/classify';
import { parseEnvelope } from '../../src/core/plan/envelope';
import { replay, Workflow } from '../../src/core/workflow/ledger';
import { CancellationTokenSource } from '../../src/core/base/lifecycle';
import type { OrchestratedPlan } from '../../src/core/plan/plan';
import { runPlan, type RunnerDeps } from '../../src/core/engine/runner';
import { resultText } from '../../src/core/base/toolResult';
import { getPlan, type PlanRecord } from '../../src/core/workflow/workflow';
import type { ElicitHandler } from '../../src/mcp/connection';
import { ServerRegistry } from '../../src/mcp/registry';
import { FileLedgerSink, loadLedger } from '../../src/node/fileLedger';
import { readCallLog, type CallLogEntry } from '../../fixture/callLog';
import { fixtureCommand } from './helpers/fixture';

const SERVER = 'fixture';
/** The step timeout of runs that must NOT end by timing out: each such run has to finish well within it. */
const GENEROUS_TIMEOUT_MS = 20_000;
/** The step timeout of runs that must end by timing out. */
const SHORT_TIMEOUT_MS = 1500;
/** A step's summary: at most 200 characters of the result's text, plus "…" when cut. */
const SUMMARY_MAX = 201;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

interface Rig {
  registry: ServerRegistry;
  /** Answers the servers' elicitation requests (through the registry's `elicit` option); unset: declined. */
  elicit?: ElicitHandler;
  workflow: Workflow;
  sink: FileLedgerSink;
  ledgerFile: string;
  callLog(): CallLogEntry[];
}

/**
 * A fixture over stdio in a ServerRegistry (fast reconnects), with a file ledger and a call log in a temp dir; all
 * of it is closed and removed after the test `t`.
 */
async function rig(t: TestContext): Promise<Rig> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-faults-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const callLogFile = join(dir, 'calls.jsonl');
  const ledgerFile = join(dir, 'ledger', 'ledger.jsonl');
  const elicits: { handler?: ElicitHandler } = {};
  const registry = new ServerRegistry({
    reconnect: { baseDelayMs: 100, maxAttempts: 3 },
    pathProvider: async () => process.env.PATH ?? '',
    elicit: (server, params) => (elicits.handler ? elicits.handler(server, params) : Promise.resolve({ action: 'decline' })),
  });
  t.after(() => registry.dispose());
  const cmd = fixtureCommand(['--root', dir, '--call-log', callLogFile]);
  await registry.applyConfig([
    { name: SERVER, source: 'settings-user', type: 'stdio', command: cmd.command, args: cmd.args, env: {}, cwd: dir, secrets: [] },
  ]);
  const conn = registry.get(SERVER)!;
  assert.equal(conn.state, 'running', `the fixture did not start: ${conn.message}`);
  const sink = new FileLedgerSink(ledgerFile);
  t.after(() => sink.dispose());
  return {
    registry,
    get elicit() {
      return elicits.handler;
    },
    set elicit(handler) {
      elicits.handler = handler;
    },
    workflow: new Workflow(sink),
    sink,
    ledgerFile,
    callLog: () => readCallLog(callLogFile),
  };
}

/** A plan from one of the fixture's plan tools (plan_crash, plan_hang, …), classified as the engine does. */
async function fixturePlan(r: Rig, tool: string): Promise<OrchestratedPlan> {
  const classified = classifyResult(await r.registry.callTool(SERVER, tool, {}), { tool });
  assert.equal(classified.kind, 'plan', `${tool} did not return a plan`);
  return (classified as { plan: OrchestratedPlan }).plan;
}

/** A plan of our own whose steps call the fixture's fault tools. */
function ownPlan(steps: { tool: string; args?: Record<string, unknown> }[]): OrchestratedPlan {
  const parsed = parseEnvelope({
    kind: 'orchestrated_plan',
    version: '1',
    status: 'ok',
    instruction: 'Fault test plan.',
    next_actions: steps.map((s) => ({ tool: s.tool, args: s.args ?? {} })),
  });
  assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.problems));
  return parsed.plan;
}

interface Outcome {
  /** The plan as the live workflow has it when the run returned. */
  live: PlanRecord;
  /** The plan as a reload of the ledger file has it. */
  reloaded: PlanRecord;
  /** Step events in the ledger file, as `type#step`. */
  trail: string[];
  /** Calls the run made (the call log after the plan was approved). */
  calls: CallLogEntry[];
  elapsedMs: number;
}

/** Approves `plan`, runs it through the engine, then checks the ledger file and the call log against each other. */
async function run(r: Rig, plan: OrchestratedPlan, options: { stepTimeoutMs: number; cancelWhen?: () => boolean }): Promise<Outcome> {
  const planId = 'fault-plan';
  assert.ok(
    r.workflow.dispatch({
      type: 'planReceived',
      at: Date.now(),
      planId,
      origin: { server: SERVER, tool: 'fault_test', args: {}, entrance: 'cli' },
      plan,
    }),
  );
  assert.ok(await resolvePlan(r.workflow, r.registry, planId, { allowCrossServer: true }));
  assert.ok(
    r.workflow.dispatch({ type: 'approved', at: Date.now(), planId, approvalHash: approvalHash(getPlan(r.workflow.state, planId)!) }),
  );
  const before = r.callLog().length;
  const cancel = new CancellationTokenSource();
  const deps: RunnerDeps = {
    invoker: r.registry,
    classify: (result) => classifyResult(result),
    host: { confirmStep: async () => true, askUser: async () => undefined, approveNested: async () => false },
    stepTimeoutMs: options.stepTimeoutMs,
    token: cancel.token,
  };
  const started = Date.now();
  const running = runPlan(r.workflow, planId, deps);
  if (options.cancelWhen) {
    await waitFor('the moment to cancel', options.cancelWhen);
    cancel.cancel();
  }
  const live = await running;
  const elapsedMs = Date.now() - started;

  // Nothing runs twice: running the plan again (as a reload or a second click would) calls nothing.
  const callsAfterRun = r.callLog().length;
  await runPlan(r.workflow, planId, deps);
  await sleep(100);
  assert.equal(r.callLog().length, callsAfterRun, 'running the plan again made a call');

  r.sink.dispose();
  const loaded = loadLedger(r.ledgerFile);
  assert.deepEqual(loaded.warnings, []);
  assert.equal(loaded.tornTail, false);
  const replayed = replay(loaded.entries);
  assert.deepEqual(replayed, r.workflow.state, 'the ledger file replays to the live state');
  const trail = loaded.entries.flatMap(({ event }) =>
    event.type.startsWith('step') || event.type === 'cancelled' ? [`${event.type}${'step' in event ? `#${event.step}` : ''}`] : [],
  );
  const calls = r.callLog().slice(before);

  // The ledger names exactly the steps that ran: the started steps are the calls the server saw, in order, once each.
  const startedSteps = trail.filter((t) => t.startsWith('stepStarted#')).map((t) => Number(t.slice('stepStarted#'.length)));
  assert.deepEqual(
    calls.map((c) => c.tool),
    startedSteps.map((i) => live.steps[i]!.call.tool),
    'the call log matches the started steps',
  );
  assert.deepEqual(
    calls.map((c) => c.args),
    startedSteps.map((i) => live.steps[i]!.call.args),
  );
  assert.equal(new Set(startedSteps).size, startedSteps.length, 'a step started twice');
  return { live, reloaded: getPlan(replayed, planId)!, trail, calls, elapsedMs };
}

describe('faults over stdio: the run ends, the ledger tells what ran, nothing runs twice', { concurrency: 2 }, () => {
  it('the server crashes mid-plan: that step fails as "closed the connection", the next never runs, not even after the server is back', async (t) => {
    const r = await rig(t);
    const o = await run(r, await fixturePlan(r, 'plan_crash'), { stepTimeoutMs: GENEROUS_TIMEOUT_MS });
    assert.ok(o.elapsedMs < GENEROUS_TIMEOUT_MS / 2, `the crash was noticed only after ${o.elapsedMs} ms`);
    assert.deepEqual(
      o.reloaded.steps.map((s) => s.state),
      ['ok', 'failed', 'pending'],
    );
    assert.equal(o.reloaded.phase, 'blocked');
    assert.equal(o.reloaded.steps[1]!.error, "Server 'fixture' closed the connection");
    assert.match(o.reloaded.blockedReason ?? '', /^Step 2 \(.*\) failed: Server 'fixture' closed the connection$/);
    assert.deepEqual(o.trail, ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'stepFailed#1']);
    assert.deepEqual(
      o.calls.map((c) => c.tool),
      ['succeed', 'crash'],
    );

    // The registry restarts the server by itself; still nothing re-runs until the user decides.
    await waitFor('the server to be restarted', () => r.registry.get(SERVER)!.state === 'running');
    const callsBefore = r.callLog().length;
    const again = await runPlan(new Workflow({ append: () => undefined }, loadLedger(r.ledgerFile).entries), 'fault-plan', {
      invoker: r.registry,
      classify: (x) => classifyResult(x),
      host: { confirmStep: async () => true, askUser: async () => undefined, approveNested: async () => false },
    });
    assert.equal(again.phase, 'blocked');
    assert.equal(r.callLog().length, callsBefore, 'the reloaded plan ran a step by itself');
  });

  it('a step hangs past the step timeout: it fails "Timed out after 1.5 s", the run ends, the server stays usable', async (t) => {
    const r = await rig(t);
    const o = await run(r, await fixturePlan(r, 'plan_hang'), { stepTimeoutMs: SHORT_TIMEOUT_MS });
    assert.ok(o.elapsedMs >= SHORT_TIMEOUT_MS && o.elapsedMs < SHORT_TIMEOUT_MS + 8000, `the run took ${o.elapsedMs} ms`);
    assert.deepEqual(
      o.reloaded.steps.map((s) => s.state),
      ['ok', 'failed', 'pending'],
    );
    assert.equal(o.reloaded.steps[1]!.error, 'Timed out after 1.5 s');
    assert.equal(o.reloaded.phase, 'blocked');
    assert.deepEqual(o.trail, ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'stepFailed#1']);
    assert.deepEqual(
      o.calls.map((c) => c.tool),
      ['succeed', 'hang'],
    );
    // The hanging call was abandoned, not the server: it still answers.
    assert.equal(resultText(await r.registry.callTool(SERVER, 'echo', { message: 'still here' })), 'still here');
  });

  it('a step waits for the user to answer an elicitation form longer than the step timeout: the timeout stands still meanwhile', async (t) => {
    const r = await rig(t);
    // The user takes twice the step timeout to answer; before that, the step must not time out.
    r.elicit = async () => {
      await sleep(2 * SHORT_TIMEOUT_MS);
      return { action: 'accept', content: { name: 'Ada Lovelace' } };
    };
    const o = await run(r, ownPlan([{ tool: 'elicit_name' }, { tool: 'echo', args: { message: 'after' } }]), {
      stepTimeoutMs: SHORT_TIMEOUT_MS,
    });
    assert.ok(o.elapsedMs >= 2 * SHORT_TIMEOUT_MS, `the run took ${o.elapsedMs} ms: it did not wait for the answer`);
    assert.deepEqual(
      o.reloaded.steps.map((s) => s.state),
      ['ok', 'ok'],
      o.reloaded.steps[0]!.error,
    );
    assert.match(o.reloaded.steps[0]!.summary ?? '', /^action: accept\ncontent: \{"name":"Ada Lovelace"\}/);
    assert.deepEqual(
      o.calls.map((c) => c.tool),
      ['elicit_name', 'echo'],
    );

    // Once answered, the timeout runs again: a hang after the form still times out.
    r.elicit = async () => ({ action: 'decline' });
    await assert.rejects(r.registry.callTool(SERVER, 'hang', {}, { timeoutMs: 300 }), /Timed out after 0.3 s/);
  });

  it('the user cancels mid-step: the running step fails "Cancelled", the rest never run, the plan is cancelled at once', async (t) => {
    const r = await rig(t);
    let cancelledAt = 0;
    const o = await run(r, await fixturePlan(r, 'plan_hang'), {
      stepTimeoutMs: GENEROUS_TIMEOUT_MS,
      cancelWhen: () => {
        const ready = r.callLog().some((c) => c.tool === 'hang');
        if (ready) cancelledAt = Date.now();
        return ready;
      },
    });
    assert.ok(Date.now() - cancelledAt < 5000, 'the run did not end promptly after the cancel');
    assert.equal(o.reloaded.phase, 'finished');
    assert.equal(o.reloaded.outcome, 'cancelled');
    assert.deepEqual(
      o.reloaded.steps.map((s) => s.state),
      ['ok', 'failed', 'not_run'],
    );
    assert.equal(o.reloaded.steps[1]!.error, 'Cancelled');
    assert.deepEqual(o.trail, ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'cancelled']);
    assert.deepEqual(
      o.calls.map((c) => c.tool),
      ['succeed', 'hang'],
    );
    assert.equal(resultText(await r.registry.callTool(SERVER, 'echo', { message: 'after cancel' })), 'after cancel');
  });

  it('a step answers 5 MB: it succeeds with a short summary, the plan goes on, the ledger stays small', async (t) => {
    const r = await rig(t);
    const o = await run(
      r,
      ownPlan([{ tool: 'succeed' }, { tool: 'big_result', args: { mb: 5 } }, { tool: 'echo', args: { message: 'after the big one' } }]),
      { stepTimeoutMs: GENEROUS_TIMEOUT_MS },
    );
    assert.ok(o.elapsedMs < GENEROUS_TIMEOUT_MS / 2, `the run took ${o.elapsedMs} ms`);
    assert.equal(o.reloaded.phase, 'finished');
    assert.equal(o.reloaded.outcome, 'completed');
    assert.deepEqual(
      o.reloaded.steps.map((s) => s.state),
      ['ok', 'ok', 'ok'],
    );
    const summary = o.reloaded.steps[1]!.summary ?? '';
    assert.ok(summary.length <= SUMMARY_MAX && /^x+…$/.test(summary), `summary: ${summary.slice(0, 40)}… (${summary.length} chars)`);
    assert.equal(o.reloaded.steps[2]!.summary, 'after the big one');
    assert.deepEqual(o.trail, ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'stepSucceeded#1', 'stepStarted#2', 'stepSucceeded#2']);
    assert.ok(statSync(r.ledgerFile).size < 16 * 1024, `the ledger grew to ${statSync(r.ledgerFile).size} bytes`);
  });

  it('10,000-deep nesting: as a step result the run goes on; as a plan it is refused for its depth, without a crash', async (t) => {
    const r = await rig(t);
    const deepPlan = classifyResult(await r.registry.callTool(SERVER, 'deep_nesting', { depth: 10_000, asPlan: true }));
    assert.equal(deepPlan.kind, 'invalid_plan');
    assert.ok(
      deepPlan.kind === 'invalid_plan' && deepPlan.problems.some((p) => /nest|deep|depth/i.test(p.message)),
      JSON.stringify(deepPlan).slice(0, 400),
    );

    const o = await run(
      r,
      ownPlan([
        { tool: 'deep_nesting', args: { depth: 10_000 } },
        { tool: 'succeed', args: { message: 'after the deep one' } },
      ]),
      { stepTimeoutMs: GENEROUS_TIMEOUT_MS },
    );
    assert.ok(o.elapsedMs < GENEROUS_TIMEOUT_MS / 2, `the run took ${o.elapsedMs} ms`);
    assert.deepEqual(
      o.reloaded.steps.map((s) => s.state),
      ['ok', 'ok'],
    );
    assert.equal(o.reloaded.outcome, 'completed');
    assert.ok(o.reloaded.steps[0]!.summary!.startsWith('{"d":{"d":') && o.reloaded.steps[0]!.summary!.length <= SUMMARY_MAX);
    assert.equal(o.reloaded.steps[1]!.summary, 'after the deep one');
    assert.deepEqual(o.trail, ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'stepSucceeded#1']);
  });

  it('malformed JSON in a text block: the result is plain text (not a plan), shown as the step summary; the plan goes on', async (t) => {
    const r = await rig(t);
    const o = await run(r, ownPlan([{ tool: 'malformed_json' }, { tool: 'succeed', args: { message: 'after the malformed one' } }]), {
      stepTimeoutMs: GENEROUS_TIMEOUT_MS,
    });
    assert.ok(o.elapsedMs < GENEROUS_TIMEOUT_MS / 2, `the run took ${o.elapsedMs} ms`);
    assert.deepEqual(
      o.reloaded.steps.map((s) => s.state),
      ['ok', 'ok'],
    );
    assert.equal(o.reloaded.outcome, 'completed');
    assert.equal(o.reloaded.steps[0]!.summary, '{"kind":"orchestrated_plan","version":"1", "status": "ok", "next_actions": [');
    assert.equal(classifyResult(await r.registry.callTool(SERVER, 'malformed_json', {})).kind, 'plain');
    assert.deepEqual(o.trail, ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'stepSucceeded#1']);
  });

  it('the server closes its stdout but keeps running: it is stopped at once, the next step fails saying so, the rest never run', async (t) => {
    const r = await rig(t);
    const states: string[] = [];
    r.registry.get(SERVER)!.onDidChangeState((s) => states.push(`${s.state}: ${s.message ?? ''}`));
    const o = await run(
      r,
      ownPlan([{ tool: 'succeed' }, { tool: 'close_stdout' }, { tool: 'echo', args: { message: 'never answered' } }, { tool: 'noop' }]),
      { stepTimeoutMs: GENEROUS_TIMEOUT_MS },
    );
    // Found out from the stream's end, not by waiting for the step timeout.
    assert.ok(o.elapsedMs < 8000, `the run took ${o.elapsedMs} ms`);
    assert.deepEqual(
      o.reloaded.steps.map((s) => s.state),
      ['ok', 'ok', 'failed', 'pending'],
    );
    assert.match(o.reloaded.steps[1]!.summary ?? '', /^Closing stdout now/);
    assert.equal(o.reloaded.steps[2]!.error, `Server '${SERVER}' closed the connection`);
    assert.equal(o.reloaded.phase, 'blocked');
    assert.deepEqual(o.trail, ['stepStarted#0', 'stepSucceeded#0', 'stepStarted#1', 'stepSucceeded#1', 'stepStarted#2', 'stepFailed#2']);
    assert.ok(
      o.calls.length <= 3 && o.calls.slice(0, 2).every((c, i) => c.tool === ['succeed', 'close_stdout'][i]),
      JSON.stringify(o.calls),
    );
    assert.match(
      states[0] ?? '',
      /^starting: server closed its stdout but kept running, so it could not answer any more; it was stopped; reconnecting/,
      JSON.stringify(states),
    );
    // The reconnect brings a fresh process that answers.
    await waitFor('the server to be back', () => r.registry.get(SERVER)?.state === 'running');
    assert.equal(resultText(await r.registry.callTool(SERVER, 'echo', { message: 'back' })), 'back');
  });
});
