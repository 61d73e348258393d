// A server's sampling request in the panel (src/ui/panel/samplingFeature.ts), driven as the user would through the
// webview's intents (a stand-in webview; the panel's files import no `vscode`), against the real
// @modelcontextprotocol/server-everything: its trigger-sampling-request tool returns what came back to it.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { resultText } from '../../src/core/base/toolResult';
import { describeStatus } from '../../src/core/present/workflowWords';
import { answerSampling, type SamplingPorts } from '../../src/core/engine/sampling';
import { evaluate } from '../../src/core/policy/evaluate';
import { EMPTY_RULES } from '../../src/core/policy/rules';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import type { SamplingRecord } from '../../src/core/workflow/workflow';
import type { ResolvedStdioServer } from '../../src/mcp/config';
import { ServerConnection } from '../../src/mcp/connection';
import type { FromWebview, ToWebview } from '../../src/shared/protocol/panel';
import type { SamplingView } from '../../src/shared/protocol/sampling';
import { SamplingFeature } from '../../src/ui/panel/samplingFeature';
import { PlanPanel, type PanelFeatures } from '../../src/ui/planPanel';
import { standInPanel } from './helpers/panelStandIn';
import { REPO, waitFor } from './helpers/mcpFixture';

const TOOL = 'trigger-sampling-request';
const everything: ResolvedStdioServer = {
  name: 'everything',
  source: 'settings-user',
  type: 'stdio',
  command: process.execPath,
  args: [path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
  env: {},
  cwd: REPO,
  secrets: [],
};

async function setup(
  t: TestContext,
  models = [
    { id: 'm1', name: 'Model One' },
    { id: 'm2', name: 'Model Two' },
  ],
  /** Held until it resolves: the model "works" (the default answers at once). */
  modelWorks: () => Promise<void> = async () => {},
) {
  const { received, posted, webview, items } = standInPanel();
  const sampling = new SamplingFeature(items);
  const idle = { kinds: [], intents: {}, present: () => undefined, summary: () => undefined };
  const features = {
    plan: { ...idle, kinds: ['plan'], activePlan: () => undefined },
    callForm: { ...idle, kinds: ['callForm'] },
    collect: { ...idle, kinds: ['collectForm'] },
    cards: { ...idle, kinds: ['callCard', 'elicit'] },
    apps: { ...idle, kinds: ['result'] },
    sampling,
    reviews: { ...idle, kinds: ['resultCard'] },
  } as unknown as PanelFeatures;
  const panel = new PlanPanel({
    webview,
    items,
    features,
    openLink: async () => {},
    openResource: async () => undefined,
    log: { error: () => {} },
  });
  t.after(() => panel.dispose());
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  const used: string[] = [];
  let n = 0;
  const ports: SamplingPorts = {
    policy: (call) => evaluate(EMPTY_RULES, call),
    user: sampling,
    models: async () => models,
    complete: async (id, request) => {
      used.push(id);
      await modelWorks();
      return `answer of ${id} to: ${request.messages[0]!.parts[0]!.type === 'text' ? (request.messages[0]!.parts[0] as { text: string }).text : ''}`;
    },
    record: (e) => void workflow.dispatch(e),
    newId: () => `s${++n}`,
    now: Date.now,
  };
  const conn = new ServerConnection(everything, {
    reconnect: { maxAttempts: 0 },
    pathProvider: async () => process.env.PATH ?? '',
    sampling: (server, params, calls, signal) => answerSampling(ports, server, params, calls, signal),
  });
  t.after(() => conn.dispose());
  await conn.start();
  await waitFor(() => conn.tools.some((x) => x.name === TOOL), `${TOOL} to be offered`);
  let id = 0;
  const send = async (m: Omit<Extract<FromWebview, { type: 'samplingAnswer' }>, 'type' | 'id'>) => {
    const reqId = ++id;
    received.fire({ type: 'samplingAnswer', id: reqId, ...m });
    await new Promise((r) => setTimeout(r, 0));
    const reply = posted.find((p): p is Extract<ToWebview, { type: 'reply' }> => p.type === 'reply' && p.id === reqId);
    return reply && { ok: reply.ok, error: reply.ok ? undefined : reply.error };
  };
  const shown = () => {
    const s = panel.snapshot().selected;
    return s?.kind === 'sampling' ? { id: s.id, view: s.view as SamplingView } : undefined;
  };
  const records = () => sink.entries.map((e) => e.event).filter((e): e is SamplingRecord => e.type === 'samplingDecided');
  return { conn, send, shown, items, used, records, panel, sampling, workflow };
}

describe('a sampling request in the panel (server-everything)', { concurrency: 2 }, () => {
  test('the item shows who asks, from which call, what; Approve with the chosen model, the answer edited and sent reaches the server', async (t) => {
    const s = await setup(t);
    const call = s.conn.callTool(TOOL, { prompt: 'name a \u202etricky colour', maxTokens: 999_999 });
    await waitFor(() => s.shown() !== undefined, 'the sampling item');
    const item = s.shown()!;
    assert.equal(item.view.server, 'everything');
    assert.deepEqual(item.view.calls, [TOOL]);
    assert.equal(item.view.stage, 'request');
    assert.equal(item.view.systemPrompt, 'You are a helpful test server.');
    assert.equal(item.view.maxTokens, 16_384);
    assert.equal(item.view.maxTokensAsked, '999999');
    assert.deepEqual(
      item.view.models.map((m) => m.name),
      ['Model One', 'Model Two'],
    );
    assert.match(item.view.because, /Asked because: server 'everything' asks to run a language model/);
    // A model not offered is refused; nothing is sent to any model.
    assert.equal((await s.send({ itemId: item.id, action: 'approve', modelId: 'forged' }))?.error, 'Choose one of the models listed.');
    assert.deepEqual(s.used, []);
    // Send before there is an answer: refused.
    assert.match((await s.send({ itemId: item.id, action: 'send', text: 'early' }))?.error ?? '', /no answer to send/);
    await s.send({ itemId: item.id, action: 'approve', modelId: 'm2' });
    await waitFor(() => s.shown()?.view.stage === 'answer', 'the answer to be shown for review');
    const review = s.shown()!;
    assert.equal(review.id, item.id, 'the same item');
    assert.equal(review.view.answer?.model, 'Model Two');
    assert.match(
      review.view.answer?.text ?? '',
      /^answer of m2 to: Resource trigger-sampling-request context: name a \u202etricky colour$/,
    );
    assert.deepEqual(s.used, ['m2']);
    await s.send({ itemId: item.id, action: 'send', text: 'teal, edited by me' });
    const text = resultText(await call);
    assert.match(text, /teal, edited by me/);
    assert.doesNotMatch(text, /answer of m2/);
    assert.equal(s.shown(), undefined, 'the item is gone once answered');
    assert.equal(s.records()[0]?.outcome, 'sent');
    assert.equal(s.records()[0]?.edited, true);
  });

  test('Decline answers the server with the refusal; closing the item declines too', async (t) => {
    const s = await setup(t);
    const first = s.conn.callTool(TOOL, { prompt: 'one' });
    await waitFor(() => s.shown() !== undefined, 'the sampling item');
    await s.send({ itemId: s.shown()!.id, action: 'decline' });
    assert.match(resultText(await first), /User rejected sampling request/);
    const second = s.conn.callTool(TOOL, { prompt: 'two' });
    await waitFor(() => s.shown() !== undefined, 'the second sampling item');
    s.items.remove(s.shown()!.id);
    assert.match(resultText(await second), /User rejected sampling request: declined: the request was closed unanswered/);
    assert.deepEqual(
      s.records().map((r) => r.outcome),
      ['declined', 'declined'],
    );
    assert.deepEqual(s.used, [], 'no model ran');
  });

  test('the status bar counts a request waiting for the user as awaiting approval: at the request and at the review, not while the model works', async (t) => {
    let release = () => {};
    const working = new Promise<void>((r) => (release = r));
    let modelStarted = false;
    const s = await setup(t, undefined, async () => {
      modelStarted = true;
      await working;
    });
    const changes: number[] = [];
    const sub = s.sampling.onDidChangePending(() => changes.push(s.sampling.pending));
    t.after(() => sub.dispose());
    const status = () => describeStatus(s.workflow.state, s.sampling.pending).text;
    assert.equal(status(), 'idle');
    const call = s.conn.callTool(TOOL, { prompt: 'wait for me' });
    await waitFor(() => s.shown() !== undefined, 'the sampling item');
    assert.equal(status(), 'awaiting approval (1)', 'the request waits for Approve or Decline');
    await s.send({ itemId: s.shown()!.id, action: 'approve', modelId: 'm1' });
    await waitFor(() => modelStarted, 'the model to start');
    assert.equal(status(), 'idle', 'nothing waits for the user while the model works');
    release();
    await waitFor(() => s.shown()?.view.stage === 'answer', 'the answer to be shown for review');
    assert.equal(status(), 'awaiting approval (1)', 'the answer waits for Send or Decline');
    await s.send({ itemId: s.shown()!.id, action: 'send', text: 'sent as is' });
    assert.match(resultText(await call), /sent as is/);
    assert.equal(status(), 'idle');
    assert.deepEqual(changes, [1, 0, 1, 0], 'each change is told to the status bar');
    // Closing the item of a waiting request declines it and stops counting it.
    const second = s.conn.callTool(TOOL, { prompt: 'closed' });
    await waitFor(() => s.shown() !== undefined, 'the second sampling item');
    assert.equal(s.sampling.pending, 1);
    s.items.remove(s.shown()!.id);
    await second;
    assert.equal(s.sampling.pending, 0);
  });

  test('no model available: the item says so, offers no Approve, and Decline is the answer', async (t) => {
    const s = await setup(t, []);
    const call = s.conn.callTool(TOOL, { prompt: 'x' });
    await waitFor(() => s.shown() !== undefined, 'the sampling item');
    const item = s.shown()!;
    assert.deepEqual(item.view.models, []);
    assert.ok(item.view.notes.some((n) => /No language model is available in VS Code/.test(n)));
    assert.match((await s.send({ itemId: item.id, action: 'approve', modelId: 'm1' }))?.error ?? '', /No language model is available/);
    await s.send({ itemId: item.id, action: 'decline' });
    assert.match(resultText(await call), /User rejected sampling request/);
  });
});
