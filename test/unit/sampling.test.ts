// Sampling through the gate (core/engine/sampling.ts): a server's sampling/createMessage request is shown to the
// user, sent to a model only when approved, its answer reviewed before it goes back, and every outcome is on the
// record. Against the real @modelcontextprotocol/server-everything: its `trigger-sampling-request` tool asks for a
// sampling and returns what it got back, so the tool's result shows what reached the server.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { quoteCommandLine } from '../../src/cli/splitCommandLine';
import { runCli } from './helpers/cliHarness';
import { resultText } from '../../src/core/base/toolResult';
import { readSamplingRequest, SAMPLING_LIMITS, samplingSummary } from '../../src/core/base/samplingRequest';
import {
  answerSampling,
  SamplingRefusal,
  type SamplingAnswer,
  type SamplingAsk,
  type SamplingPorts,
  type SamplingReview,
  type SamplingApproval,
} from '../../src/core/engine/sampling';
import { evaluate } from '../../src/core/policy/evaluate';
import { parsePolicyValue } from '../../src/core/policy/parse';
import { EMPTY_RULES, type PolicyRules } from '../../src/core/policy/rules';
import { MemoryLedgerSink, Workflow, parseLedgerEntry } from '../../src/core/workflow/ledger';
import type { SamplingRecord } from '../../src/core/workflow/workflow';
import type { ResolvedStdioServer } from '../../src/mcp/config';
import { ServerConnection } from '../../src/mcp/connection';
import { REPO, waitFor } from './helpers/mcpFixture';

const EVERYTHING_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TOOL = 'trigger-sampling-request';

const everything: ResolvedStdioServer = {
  name: 'everything',
  source: 'settings-user',
  type: 'stdio',
  command: process.execPath,
  args: [EVERYTHING_SERVER, 'stdio'],
  env: {},
  cwd: REPO,
  secrets: [],
};

/** A user who answers as scripted, and remembers what they were shown. */
function scriptedUser(approval: SamplingApproval | undefined, review: (answer: SamplingAnswer) => SamplingReview) {
  const seen = { approvals: [] as SamplingAsk[], reviews: [] as SamplingAnswer[] };
  return {
    seen,
    user: {
      approve: async (ask: SamplingAsk) => {
        seen.approvals.push(ask);
        if (!approval) throw new Error('the user was asked, and should not have been');
        return approval;
      },
      review: async (_ask: SamplingAsk, answer: SamplingAnswer) => {
        seen.reviews.push(answer);
        return review(answer);
      },
    },
  };
}

function ports(rules: PolicyRules, user: SamplingPorts['user'], model = async (_id: string, prompt: string) => `model saw: ${prompt}`) {
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  let n = 0;
  const p: SamplingPorts = {
    policy: (call) => evaluate(rules, call),
    user,
    models: async () => [{ id: 'test-model', name: 'Test Model (tests)' }],
    complete: async (id, request) =>
      model(id, request.messages.map((m) => m.parts.map((x) => (x.type === 'text' ? x.text : '')).join('')).join('\n')),
    record: (event) => {
      assert.ok(workflow.dispatch(event), 'the ledger took the sampling record');
    },
    newId: () => `s${++n}`,
    now: () => 1,
  };
  const records = () => sink.entries.map((e) => e.event).filter((e): e is SamplingRecord => e.type === 'samplingDecided');
  return { ports: p, records, sink };
}

async function open(t: TestContext, p: SamplingPorts): Promise<ServerConnection> {
  const conn = new ServerConnection(everything, {
    reconnect: { maxAttempts: 0 },
    pathProvider: async () => process.env.PATH ?? '',
    sampling: (server, params, calls, signal) => answerSampling(p, server, params, calls, signal),
  });
  t.after(() => conn.dispose());
  await conn.start();
  await waitFor(() => conn.tools.some((x) => x.name === TOOL), `${TOOL} to be offered (the client declares sampling)`);
  return conn;
}

function rules(list: unknown[]): PolicyRules {
  const parsed = parsePolicyValue({ rules: list }, 'user');
  assert.deepEqual(parsed.problems, []);
  return { user: parsed.rules, workspace: [] };
}

describe('sampling against server-everything (trigger-sampling-request)', { concurrency: 2 }, () => {
  test('approved, the answer reviewed and edited: the edited answer reaches the server, and the ledger has it', async (t) => {
    const { user, seen } = scriptedUser({ action: 'approve', modelId: 'test-model' }, (a) =>
      'text' in a ? { action: 'send', text: `${a.text} [edited by the user]` } : { action: 'decline' },
    );
    const { ports: p, records } = ports(EMPTY_RULES, user);
    const conn = await open(t, p);
    const result = await conn.callTool(TOOL, { prompt: 'name a colour', maxTokens: 50 });
    const text = resultText(result);
    assert.ok(!result.isError, text);
    assert.match(text, /model saw: Resource trigger-sampling-request context: name a colour \[edited by the user\]/);
    // What the user was shown: which server asked, from which call, the system prompt, the token limit.
    const ask = seen.approvals[0]!;
    assert.equal(ask.server, 'everything');
    assert.deepEqual(ask.calls, [TOOL]);
    assert.equal(ask.request.systemPrompt, 'You are a helpful test server.');
    assert.equal(ask.request.maxTokens, 50);
    assert.equal(ask.verdict.rule.id, 'plangate:sampling');
    const [rec] = records();
    assert.equal(rec?.outcome, 'sent');
    assert.equal(rec?.by, 'user');
    assert.equal(rec?.edited, true);
    assert.deepEqual(rec?.calls, [TOOL]);
    assert.match(rec?.answer ?? '', /\[edited by the user\]$/);
    assert.equal(rec?.request.lastUserText, 'Resource trigger-sampling-request context: name a colour');
    assert.equal(rec?.model, 'Test Model (tests)');
  });

  test('declined: the server gets the refusal the MCP spec gives (-1, User rejected sampling request), and the ledger has it', async (t) => {
    const { user, seen } = scriptedUser({ action: 'decline' }, () => assert.fail('no review after a decline'));
    const { ports: p, records } = ports(EMPTY_RULES, user);
    const conn = await open(t, p);
    const result = await conn.callTool(TOOL, { prompt: 'anything' });
    const text = resultText(result);
    assert.equal(result.isError, true, text);
    assert.match(text, /-1/);
    assert.match(text, /User rejected sampling request/);
    assert.equal(seen.approvals.length, 1);
    assert.equal(records()[0]?.outcome, 'declined');
    assert.equal(records()[0]?.by, 'user');
  });

  test("declined at review (the model's answer is not sent): the server gets the refusal, never the answer", async (t) => {
    const { user, seen } = scriptedUser({ action: 'approve', modelId: 'test-model' }, () => ({ action: 'decline', reason: 'not that' }));
    const { ports: p, records } = ports(EMPTY_RULES, user);
    const conn = await open(t, p);
    const text = resultText(await conn.callTool(TOOL, { prompt: 'secret plan' }));
    assert.match(text, /User rejected sampling request/);
    assert.ok(!text.includes('model saw'), text);
    assert.equal(seen.reviews.length, 1);
    assert.equal(records()[0]?.outcome, 'declined');
    assert.equal(records()[0]?.reason, 'declined: not that');
  });

  test('a deny rule for the sampling entrance refuses without asking', async (t) => {
    const { user, seen } = scriptedUser(undefined, () => assert.fail('no review'));
    const { ports: p, records } = ports(
      rules([{ id: 'no-sampling', decision: 'deny', reason: 'no models for servers', entrance: 'sampling', server: 'every*' }]),
      user,
    );
    const conn = await open(t, p);
    const text = resultText(await conn.callTool(TOOL, { prompt: 'x' }));
    assert.match(text, /User rejected sampling request: denied by rule 'no-sampling'/);
    assert.equal(seen.approvals.length, 0);
    assert.equal(records()[0]?.by, 'policy');
    assert.equal(records()[0]?.outcome, 'refused');
    assert.equal(records()[0]?.policy?.ruleId, 'no-sampling');
  });

  test('an allow rule skips the question about the request, never the review of the answer', async (t) => {
    const { user, seen } = scriptedUser(undefined, (a) => ('text' in a ? { action: 'send', text: a.text } : { action: 'decline' }));
    const { ports: p, records } = ports(
      rules([{ id: 'ok-sampling', decision: 'allow', reason: 'trusted', entrance: 'sampling', tool: TOOL }]),
      user,
    );
    const conn = await open(t, p);
    const text = resultText(await conn.callTool(TOOL, { prompt: 'hello' }));
    assert.match(text, /model saw: Resource trigger-sampling-request context: hello/);
    assert.equal(seen.approvals.length, 0);
    assert.equal(seen.reviews.length, 1, 'the answer was reviewed');
    assert.equal(records()[0]?.by, 'policy');
    assert.equal(records()[0]?.outcome, 'sent');
  });

  test('no model available: the user is told, and only a decline goes back', async (t) => {
    const { user, seen } = scriptedUser({ action: 'approve', modelId: 'test-model' }, () => ({ action: 'send', text: 'forged' }));
    const { ports: p, records } = ports(EMPTY_RULES, user);
    p.models = async () => [];
    const conn = await open(t, p);
    const text = resultText(await conn.callTool(TOOL, { prompt: 'hello' }));
    assert.match(text, /User rejected sampling request/);
    assert.ok(!text.includes('forged'), 'a review without an answer cannot send text of its own');
    assert.deepEqual(seen.approvals[0]?.models, []);
    assert.ok('problem' in seen.reviews[0]!);
    assert.equal(records()[0]?.outcome, 'declined');
  });

  test('the sampling record survives a read back from the ledger', () => {
    const event: SamplingRecord = {
      type: 'samplingDecided',
      at: 1,
      samplingId: 'x',
      server: 's',
      request: { messages: 1, images: 0, textChars: 3, maxTokens: 10 },
      by: 'user',
      outcome: 'declined',
    };
    const read = parseLedgerEntry(JSON.parse(JSON.stringify({ seq: 1, event })));
    assert.notEqual(typeof read, 'string', String(read));
    assert.match(String(parseLedgerEntry({ seq: 1, event: { ...event, request: undefined } })), /samplingDecided/);
  });
});

describe('a sampling request is hostile input: bounded and marked', () => {
  const text = (t: string) => ({ role: 'user', content: { type: 'text', text: t } });
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]).toString('base64');
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]).toString('base64');

  test('10,000 messages are refused (not cut: the user approves what the model gets)', () => {
    const r = readSamplingRequest({ messages: Array.from({ length: 10_000 }, () => text('hi')), maxTokens: 10 });
    assert.deepEqual(r, { refused: `it has 10000 messages (the limit is ${SAMPLING_LIMITS.messages})` });
  });

  test('a huge message is refused', () => {
    const r = readSamplingRequest({ messages: [text('x'.repeat(SAMPLING_LIMITS.textChars + 1))], maxTokens: 10 });
    assert.ok('refused' in r && /characters of text/.test(r.refused));
  });

  test('an absurd token limit is capped, and the user is told', () => {
    const r = readSamplingRequest({ messages: [text('hi')], maxTokens: 1e15 });
    assert.ok('request' in r);
    assert.equal(r.request.maxTokens, SAMPLING_LIMITS.maxTokens);
    assert.ok(r.request.notes.some((n) => n.includes('1000000000000000')));
    const bad = readSamplingRequest({ messages: [text('hi')], maxTokens: -3 });
    assert.ok('request' in bad && bad.request.maxTokens === SAMPLING_LIMITS.maxTokens && bad.request.maxTokensAsked === '-3');
  });

  test('an image is shown only when its bytes are the type it claims; SVG and bad data never', () => {
    const r = readSamplingRequest({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', mimeType: 'image/png', data: png },
            { type: 'image', mimeType: 'image/png', data: jpeg },
            { type: 'image', mimeType: 'image/svg+xml', data: Buffer.from('<svg onload="alert(1)"/>').toString('base64') },
            { type: 'image', mimeType: 'image/png', data: 'not base64!' },
          ],
        },
      ],
      maxTokens: 10,
    });
    assert.ok('request' in r);
    const parts = r.request.messages[0]!.parts;
    assert.deepEqual(parts[0], { type: 'image', mimeType: 'image/png', data: png, bytes: 16 });
    assert.equal(parts[1]!.type, 'unshown');
    assert.match((parts[1] as { problem: string }).problem, /says image\/png but its data is image\/jpeg/);
    assert.equal(parts[2]!.type, 'unshown');
    assert.equal(parts[3]!.type, 'unshown');
    assert.equal(r.request.images, 1);
    assert.ok(r.request.notes.some((n) => /not sent/.test(n)));
    assert.equal(samplingSummary(r.request).images, 1);
    assert.ok(!JSON.stringify(samplingSummary(r.request)).includes(png), 'the record never holds the image');
  });

  test('tools offered to the model and task-augmented requests are refused', () => {
    assert.ok('refused' in readSamplingRequest({ messages: [text('hi')], maxTokens: 1, tools: [] }));
    assert.ok('refused' in readSamplingRequest({ messages: [text('hi')], maxTokens: 1, task: {} }));
    assert.ok('refused' in readSamplingRequest({ messages: [], maxTokens: 1 }));
    assert.ok('refused' in readSamplingRequest(null));
  });

  test('a refused request never reaches the user, and is on the record', async () => {
    const { user, seen } = scriptedUser(undefined, () => assert.fail('no review'));
    const { ports: p, records } = ports(EMPTY_RULES, user);
    await assert.rejects(
      answerSampling(p, 's', { messages: Array.from({ length: 101 }, () => text('x')), maxTokens: 5 }, [], new AbortController().signal),
      (err: unknown) => err instanceof SamplingRefusal && err.code === -1 && /101 messages/.test(err.message),
    );
    assert.equal(seen.approvals.length, 0);
    assert.equal(records()[0]?.by, 'plangate');
  });
});

describe('plangate run and sampling', { concurrency: 3 }, () => {
  const server = quoteCommandLine([process.execPath, EVERYTHING_SERVER, 'stdio']);
  const base = ['run', '--server', server, '--name', 'everything', '--tool', TOOL, '--args', '{"prompt":"name a colour"}'];

  test('declines by default: a clear line on stderr, the refusal reaches the server, and the --ledger has it', async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'plangate-sampling-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const ledger = path.join(dir, 'ledger.jsonl');
    const r = await runCli([...base, '--ledger', ledger]);
    assert.match(
      r.stderr,
      /plangate run: server 'everything' asked for a sampling request; plangate run declines sampling requests unless run with --sampling ask\. To answer it on the terminal, run with --sampling ask\./,
    );
    assert.match(r.stdout + r.stderr, /tool error.*User rejected sampling request|User rejected sampling request/s);
    const records = (await readFile(ledger, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { event: SamplingRecord }).event)
      .filter((e) => e.type === 'samplingDecided');
    assert.equal(records.length, 1);
    assert.equal(records[0]!.outcome, 'refused');
    assert.deepEqual(records[0]!.calls, [TOOL]);
  });

  test('--sampling ask: the request is shown on the terminal and the answer typed goes back', async () => {
    const r = await runCli([...base, '--sampling', 'ask'], { env: { PLANGATE_ASSUME_TTY: '1' }, input: 'y\nteal, \u202eevil\n\n' });
    assert.match(r.stderr, /system prompt: You are a helpful test server\./);
    assert.match(r.stderr, /1\. user: Resource trigger-sampling-request context: name a colour/);
    assert.match(r.stderr, /token limit: 100/);
    assert.match(r.stdout, /teal, /);
    assert.doesNotMatch(r.stdout, /User rejected/);
  });

  test('--sampling ask without a terminal declines, and says why; a bad mode is a usage error', async () => {
    const r = await runCli([...base, '--sampling', 'ask']);
    assert.match(r.stderr, /asked for a sampling request; there is no terminal to ask on/);
    assert.match(r.stdout + r.stderr, /tool error.*User rejected sampling request|User rejected sampling request/s);
    const bad = await runCli([...base, '--sampling', 'maybe']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--sampling must be decline or ask, not 'maybe'/);
  });
});
