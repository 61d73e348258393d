// The gated server end to end in plain Node: an MCP client (standing in for VS Code's agent) talks over stdio to the
// real gated server program (src/gate/gatedServer.ts), which forwards over the gate channel to the extension side:
// a real ServerRegistry running the fixture server and a real Gate. The test plays the user through gate.approve /
// gate.reject, and the fixture's call log shows what actually ran.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readCallLog } from '../../fixture/callLog';
import type { AgentSummary } from '../../src/core/agent/agentSummary';
import { Gate } from '../../src/core/engine/gate';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { GateEnv } from '../../src/gate/channelProtocol';
import { createGateHandler } from '../../src/core/agent/agentCall';
import { withoutAppUi } from '../../src/core/apps/appTool';
import { forwardToolChanges, GateChannel } from '../../src/mcp/gateChannel';
import { ServerRegistry } from '../../src/mcp/registry';
import { testBundles } from './helpers/bundles';
import { alive, fixtureStdio, REPO, waitFor } from './helpers/mcpFixture';

const GATED_MAIN = testBundles().gated;

interface SetupOptions {
  idleTimeoutMs?: number;
  /** Environment overrides for the gated server (e.g. a wrong secret). */
  env?: Record<string, string>;
}

async function setup(t: TestContext, options: SetupOptions = {}) {
  const root = mkdtempSync(path.join(tmpdir(), 'plangate-gated-'));
  const callLogFile = path.join(root, 'calls.jsonl');
  const reg = new ServerRegistry({ pathProvider: async () => process.env.PATH ?? '' });
  await reg.applyConfig([fixtureStdio('demo', ['--root', root, '--call-log', callLogFile])]);
  const workflow = new Workflow(new MemoryLedgerSink());
  let n = 0;
  const gate = new Gate(workflow, {
    invoker: reg,
    settings: () => ({ stepTimeoutMs: 15_000, allowCrossServer: true }),
    newId: () => `plan-${++n}`,
  });
  const shown: string[] = [];
  const handler = createGateHandler({
    registry: reg,
    gate,
    idleTimeoutMs: options.idleTimeoutMs,
    show: ({ tool, received }) => shown.push(`${tool} → ${received.kind}`),
  });
  const channel = await GateChannel.open(handler);
  const forwarding = forwardToolChanges(reg, channel);

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GATED_MAIN],
    cwd: REPO,
    stderr: 'pipe',
    env: { ...channel.envFor('demo'), ...options.env },
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const agent = new Client({ name: 'agent', version: '1.0.0' });
  await agent.connect(transport);
  t.after(async () => {
    await agent.close().catch(() => undefined);
    forwarding.dispose();
    channel.dispose();
    gate.dispose();
    await reg.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  const calls = () => (existsSync(callLogFile) ? readCallLog(callLogFile).map((c) => c.tool) : []);
  /** Resolves with the id of the next plan received. */
  const nextPlan = () =>
    new Promise<string>((resolve) => {
      const sub = workflow.onDidChange(({ event }) => {
        if (event.type === 'planReceived') {
          sub.dispose();
          resolve(event.planId);
        }
      });
    });
  /** The agent's call, with the progress messages it heard. */
  const call = (name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) => {
    const progress: string[] = [];
    const result = agent.callTool({ name, arguments: args }, undefined, {
      signal,
      timeout: 60_000,
      onprogress: (p) => {
        if (p.message) progress.push(p.message);
      },
    }) as Promise<CallToolResult>;
    return { result, progress };
  };
  return { root, reg, gate, workflow, channel, agent, transport, shown, calls, nextPlan, call, stderr: () => stderr };
}

const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
const summaryOf = (r: CallToolResult) => r.structuredContent as unknown as AgentSummary;

describe('gated server', { concurrency: 2 }, () => {
  test('tools pass through unchanged (titles, annotations, schemas) and a plain result goes straight back', async (t) => {
    const s = await setup(t);
    const { tools } = await s.agent.listTools();
    // Unchanged, except that tools meant only for a server's own app (MCP Apps visibility ["app"]) are not the agent's,
    // and app tools come without their app's ui:// address (the panel shows the app).
    const all = (
      JSON.parse(JSON.stringify(s.reg.get('demo')!.tools)) as { name: string; _meta?: { ui?: { visibility?: string[] } } }[]
    ).map(withoutAppUi);
    const appOnly = all.filter((x) => x._meta?.ui?.visibility?.includes('model') === false).map((x) => x.name);
    assert.ok(appOnly.includes('collect_form_data'), `app-only tools: ${appOnly.join(', ')}`);
    assert.deepEqual(
      tools,
      all.filter((x) => !appOnly.includes(x.name)),
    );
    const scaffold = tools.find((x) => x.name === 'plan_scaffold')!;
    assert.equal(scaffold.annotations?.readOnlyHint, true, "the agent still sees the tool's own annotations");
    assert.ok(s.agent.getServerCapabilities()?.tools?.listChanged, 'the gated server announces tools/list_changed');

    const plain = await s.call('echo', { message: 'straight back' }).result;
    assert.deepEqual(plain, await s.reg.callTool('demo', 'echo', { message: 'straight back' }));
    assert.equal(s.workflow.state.order.length, 0, 'a plain result makes no plan');
    assert.deepEqual(s.shown, [], 'and is not put in the panel');
  });

  test('a plan waits for Approve and run; the agent then gets the summary and the call log shows the steps', async (t) => {
    const s = await setup(t);
    const planned = s.nextPlan();
    const { result, progress } = s.call('plan_scaffold', { screen: 'Payroll', components: ['Grid', 'Form'] });
    const planId = await planned;
    // Gate.call hands the outcome back once the plan is recorded: the panel shows it right after.
    await waitFor(() => s.shown.length > 0, 'the plan shown in the panel');
    assert.deepEqual(s.shown, ['plan_scaffold → plan'], 'the plan goes to the panel');
    await waitFor(() => progress.length > 0, 'the first progress message');
    assert.match(progress[0]!, /Waiting for your approval in the Plangate panel: Scaffold Payroll screen/);
    let answered = false;
    void result.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(answered, false, "the agent's call is still pending while nobody decided");
    assert.deepEqual(s.calls(), ['plan_scaffold'], 'nothing ran before the approval');

    assert.equal(await s.gate.approve(planId), undefined);
    const r = await result;
    assert.equal(r.isError, false);
    assert.deepEqual(s.calls(), ['plan_scaffold', 'create_screen', 'create_component', 'create_component']);
    const summary = summaryOf(r);
    assert.equal(summary.kind, 'plangate_plan_outcome');
    assert.equal(summary.outcome, 'follow_up');
    assert.deepEqual(
      summary.steps.map((x) => [x.step, x.tool, x.state]),
      [
        [1, 'create_screen', 'ok'],
        [2, 'create_component', 'ok'],
        [3, 'create_component', 'ok'],
      ],
    );
    assert.equal(summary.followUp, 'Wire the new components to the API now?');
    assert.match(text(r), /the user approved the plan "Scaffold Payroll screen and components\." and it ran: 3 of 3 steps ok/);
    assert.match(text(r), /Follow-up question for the user .*: "Wire the new components to the API now\?"/);
    assert.ok(
      progress.some((m) => /running step|done; follow-up/.test(m)),
      `the run was reported as progress: ${JSON.stringify(progress)}`,
    );
  });

  test('Reject resolves with the rejection and the reason, and runs nothing', async (t) => {
    const s = await setup(t);
    const planned = s.nextPlan();
    const { result } = s.call('plan_scaffold', {});
    const planId = await planned;
    assert.equal(s.gate.reject(planId, 'not on a Friday'), undefined);
    const r = await result;
    assert.equal(r.isError, true);
    assert.equal(summaryOf(r).outcome, 'rejected');
    assert.equal(summaryOf(r).reason, 'not on a Friday');
    assert.match(text(r), /the user rejected the plan .*; nothing ran\. Reason: not on a Friday/);
    assert.deepEqual(s.calls(), ['plan_scaffold']);
  });

  test('a failing step blocks the plan; the agent hears where and why', async (t) => {
    const s = await setup(t);
    const planned = s.nextPlan();
    const { result } = s.call('plan_failing', {});
    await s.gate.approve(await planned);
    const r = await result;
    assert.equal(r.isError, true);
    assert.equal(summaryOf(r).outcome, 'blocked');
    assert.match(text(r), /is blocked at step 2 \(.*\).*1 of 3 steps ran.*retry the step, skip it or stop/s);
    assert.deepEqual(s.calls(), ['plan_failing', 'succeed', 'fail'], 'step 3 never ran');
  });

  test('the agent cancelling its call withdraws the plan; nothing runs', async (t) => {
    const s = await setup(t);
    const planned = s.nextPlan();
    const controller = new AbortController();
    const { result } = s.call('plan_scaffold', {}, controller.signal);
    const planId = await planned;
    controller.abort('the user pressed Stop in the chat');
    await assert.rejects(result, /Stop in the chat/);
    await waitFor(() => s.workflow.state.plans[planId]!.phase === 'finished', 'the plan to be withdrawn');
    assert.equal(s.workflow.state.plans[planId]!.outcome, 'rejected');
    assert.match(s.workflow.state.plans[planId]!.rejectReason ?? '', /agent cancelled its call/);
    assert.match((await s.gate.approve(planId)) ?? '', /only a plan awaiting approval/i, 'a withdrawn plan can no longer be approved');
    assert.deepEqual(s.calls(), ['plan_scaffold']);
  });

  test('nobody deciding in time gives a clear timed-out result and withdraws the plan', async (t) => {
    const s = await setup(t, { idleTimeoutMs: 400 });
    const planned = s.nextPlan();
    const { result } = s.call('plan_scaffold', {});
    const planId = await planned;
    const r = await result;
    assert.equal(r.isError, true);
    assert.equal(summaryOf(r).outcome, 'timed_out');
    assert.match(text(r), /Nobody decided within .* minutes.*withdrawn; nothing ran/s);
    assert.equal(s.workflow.state.plans[planId]!.outcome, 'rejected');
    assert.deepEqual(s.calls(), ['plan_scaffold']);
  });

  test('invalid plans and collect-mode forms come back as they are, with a note', async (t) => {
    const s = await setup(t);
    const invalid = await s.call('plan_invalid', { variant: 'missing_tool' }).result;
    assert.match(text(invalid), /"kind":\s*"orchestrated_plan"/, "the server's own content is kept");
    assert.match(text(invalid), /Plangate: this result carries a plan that is not valid, so nothing was gated or run \(.*next_actions/);
    const form = await s.call('new_model_app', { model: 'Contact', mode: 'form' }).result;
    const direct = await s.reg.callTool('demo', 'new_model_app', { model: 'Contact', mode: 'form' });
    assert.deepEqual(form.content.slice(0, -1), direct.content, 'the form result is passed on unchanged');
    assert.match(text(form), /collect-mode form\. Plangate does not take collect forms from the agent yet/);
    const notOk = await s.call('plan_status', { status: 'error' }).result;
    assert.match(text(notOk), /the plan's status is error, so there is nothing to approve or run/);
    assert.deepEqual(s.shown, ['plan_invalid → invalid_plan', 'new_model_app → collect_form', 'plan_status → plan']);
  });

  test('tools/list_changed of the real server reaches the agent', async (t) => {
    const s = await setup(t);
    let changed = 0;
    s.agent.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    await s.call('add_tool', { name: 'brand_new_tool' }).result;
    await waitFor(() => changed > 0, 'notifications/tools/list_changed at the agent');
    const { tools } = await s.agent.listTools();
    assert.ok(tools.some((x) => x.name === 'brand_new_tool'));
  });

  test('a stopped server answers with a clear error instead of hanging', async (t) => {
    const s = await setup(t);
    await s.reg.get('demo')!.stop();
    const r = await s.call('echo', { message: 'x' }).result;
    assert.equal(r.isError, true);
    assert.match(text(r), /Plangate's server 'demo' is stopped\. Start it in the Plangate Servers view/);
    assert.deepEqual((await s.agent.listTools()).tools, []);
  });

  test('extension gone: a waiting call and every later request get a clear error, nothing hangs', async (t) => {
    const s = await setup(t);
    const planned = s.nextPlan();
    const { result } = s.call('plan_scaffold', {});
    await planned;
    s.channel.dispose(); // what deactivating the extension (or closing the window) does
    const r = await result;
    assert.equal(r.isError, true);
    assert.match(text(r), /channel closed while the call to 'plan_scaffold' was waiting, so its outcome is unknown/);
    await assert.rejects(s.agent.listTools(), /Plangate cannot answer for server 'demo': Plangate closed the channel/);
    const later = await s.call('echo', { message: 'x' }).result;
    assert.equal(later.isError, true);
    assert.match(text(later), /Plangate cannot answer for server 'demo'.*Restart this server from VS Code's MCP server list/s);
  });

  test('a gated server with the wrong secret is refused: clear errors, no call reaches the server', async (t) => {
    const s = await setup(t, { env: { [GateEnv.secret]: 'guessed' } });
    await assert.rejects(s.agent.listTools(), /Plangate refused the connection: Refused: the secret does not match/);
    const r = await s.call('echo', { message: 'x' }).result;
    assert.equal(r.isError, true);
    assert.deepEqual(s.calls(), [], 'nothing reached the real server');
    assert.equal(s.channel.connectedCount, 0);
  });

  test('the program exits by itself when stdin closes (VS Code stopped it), though its channel is still open', async (t) => {
    const channel = await GateChannel.open({ listTools: async () => [], callTool: async () => ({ content: [] }) });
    t.after(() => channel.dispose());
    const child = spawn(process.execPath, [GATED_MAIN], {
      cwd: REPO,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...channel.envFor('demo') },
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Generous bounds: the program starts through tsx, which compiles it first (slow on a loaded machine).
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await waitFor(() => channel.connectedCount === 1, 'the gated server to connect to the channel', 45_000);
    child.stdin.end();
    const ended = Date.now();
    assert.equal(await exited, 0);
    clearTimeout(timer);
    assert.ok(Date.now() - ended < 3000, 'it exited promptly, not after a kill');
    assert.equal(alive(child.pid), false);
    await waitFor(() => channel.connectedCount === 0, 'the channel to see the connection go');
  });

  test('without its environment the program says what is missing and exits 2', async () => {
    const child = spawn(process.execPath, [GATED_MAIN], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /PLANGATE_GATE_SOCKET, PLANGATE_GATE_SECRET and PLANGATE_GATE_SERVER must be set/);
  });
});
