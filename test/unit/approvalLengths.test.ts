// The card's lengths (once · this session · this workspace · always), the narrowest rule each writes (this server by
// identity, this tool, this entrance), a tool's own `_meta.approval: "ask"` that no allow lifts, and no storm of cards:
// calls of one caller to one tool wait behind one card that counts them, and an allow settles every waiting call the
// policy — asked again — now allows, not the others. Against the real fixture server in memory, through the real door.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createFixtureServer, readCallLog } from '../../fixture/fixtureServer';
import type { CallAsk, CallAskAnswer } from '../../src/core/engine/door';
import { AskQueue, askGroupKey, type CardAnswer } from '../../src/core/engine/askQueue';
import { Gate } from '../../src/core/engine/gate';
import { createGateHandler } from '../../src/core/agent/agentCall';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { CancellationTokenSource, Emitter } from '../../src/core/base/lifecycle';
import { evaluate, type PolicyCall } from '../../src/core/policy/evaluate';
import type { PolicyRule, SourcedRule } from '../../src/core/policy/rules';
import { narrowestRule, whyOnlyOnce, type AllowLength } from '../../src/core/policy/alwaysAllow';
import {
  NO_APPROVALS,
  approvalRules,
  readStoredApprovals,
  resetApprovals,
  withApproval,
  withoutApproval,
  type StandingApprovals,
} from '../../src/core/policy/approvals';
import { lintPolicy } from '../../src/core/policy/lint';
import { alwaysRule, callCardView } from '../../src/core/present/callCard';
import { approvalGroups } from '../../src/core/present/approvalRows';
import type { WorkflowEvent } from '../../src/core/workflow/workflow';
import { connectInMemory } from './helpers/inMemoryInvoker';

const WHEN = new Date('2026-12-03T10:00:00Z');
const KEY = 'demo 1111111111111111111111111111111111111111111111111111111111111111';
const OTHER_KEY = 'demo 2222222222222222222222222222222222222222222222222222222222222222';
const WRITE: PolicyCall = {
  server: 'demo',
  tool: 'write_file_step',
  args: { path: 'a.txt' },
  entrance: 'agent',
  annotations: { destructiveHint: true },
  serverKey: KEY,
};

/** Every standing approval of `approvals`, and the user's rules, as the policy reads them. */
const rulesOf = (approvals: StandingApprovals, user: PolicyRule[] = []) => ({
  user: user.map((r, index): SourcedRule => ({ ...r, source: 'user', index })),
  workspace: [],
  approvals: approvalRules(approvals),
});

describe('the narrowest rule, per length', () => {
  test('each length writes an allow for this server (by identity), this tool and this entrance, named after its length', () => {
    const ids = new Set<string>();
    for (const length of ['session', 'workspace', 'always'] as AllowLength[]) {
      const rule = narrowestRule({ server: 'demo', tool: 'write_file_step', entrance: 'agent', serverKey: KEY }, ids, WHEN, length);
      ids.add(rule.id);
      assert.deepEqual(
        { ...rule, reason: undefined },
        {
          id: {
            session: 'session-allow-demo-write-file-step',
            workspace: 'workspace-allow-demo-write-file-step',
            always: 'allow-demo-write-file-step',
          }[length],
          decision: 'allow',
          reason: undefined,
          server: 'demo',
          serverKey: KEY,
          tool: 'write_file_step',
          entrance: ['agent'],
        },
      );
      assert.match(
        rule.reason,
        { session: /Allow for this session/, workspace: /Allow in this workspace/, always: /Always allow/ }[length],
      );
    }
    const again = narrowestRule({ server: 'demo', tool: 'write_file_step', entrance: 'agent' }, ids, WHEN, 'session');
    assert.equal(again.id, 'session-allow-demo-write-file-step-2', 'ids stay unique among the rules and approvals');
    assert.equal('serverKey' in again, false, 'no identity known: none written');
  });

  test('a session approval allows exactly that call: not another tool, entrance, or a same-named server started another way', () => {
    const rule = narrowestRule({ server: 'demo', tool: 'write_file_step', entrance: 'agent', serverKey: KEY }, [], WHEN, 'session');
    const approvals = withApproval(NO_APPROVALS, 'session', { rule, made: WHEN.getTime(), why: 'test' });
    const rules = rulesOf(approvals);
    const allowed = evaluate(rules, WRITE);
    assert.equal(allowed.decision, 'allow');
    assert.deepEqual([allowed.rule.id, allowed.rule.source], [rule.id, 'session']);
    assert.equal(evaluate(rules, { ...WRITE, serverKey: OTHER_KEY }).decision, 'ask', 'same name, other command line: inherits nothing');
    assert.equal(evaluate(rules, { ...WRITE, serverKey: undefined }).decision, 'ask', 'identity unknown: an allow does not hold');
    assert.equal(evaluate(rules, { ...WRITE, tool: 'edit_text' }).decision, 'ask');
    assert.equal(evaluate(rules, { ...WRITE, entrance: 'app' }).decision, 'ask');
    assert.equal(
      evaluate(rulesOf(withApproval(NO_APPROVALS, 'workspace', { rule, made: 1, why: 'w' })), WRITE).rule.source,
      'workspaceApproval',
    );
  });

  test('a tool\'s own approval: "ask" cannot be lifted beyond once — not by an approval, not by the card, not by the queue', async () => {
    const meta = { approval: 'ask' };
    const call = { ...WRITE, meta };
    const rule = narrowestRule({ server: 'demo', tool: 'write_file_step', entrance: 'agent', serverKey: KEY }, [], WHEN, 'session');
    const verdict = evaluate(rulesOf(withApproval(NO_APPROVALS, 'session', { rule, made: 1, why: 'x' }), [rule]), call);
    assert.deepEqual([verdict.decision, verdict.rule.source], ['ask', 'tool'], 'neither a session approval nor a user allow lifts it');
    assert.match(whyOnlyOnce(verdict) ?? '', /_meta\.approval: "ask"/);
    const ask: CallAsk = { call: { ...call, decision: { by: 'agent', what: 'test' } } as CallAsk['call'], entrance: 'agent', verdict };
    const card = callCardView(ask, [], WHEN);
    assert.equal(card.allowRules, undefined, 'no longer button on the card');
    assert.match(card.onlyOnce ?? '', /Only Allow once: .*_meta\.approval: "ask"/);
    let wrote = 0;
    const queue = new AskQueue({ surface: { show: () => undefined, close: () => undefined }, allow: async () => (wrote++, 'r') });
    const pending = queue.ask(ask);
    for (const length of ['session', 'workspace', 'always'] as const)
      assert.match((await queue.answer(askGroupKey(ask), { answer: length })) ?? '', /is not offered for this call/);
    assert.equal(wrote, 0, 'no rule was written');
    assert.equal(queue.waiting, 1, 'the call still waits');
    await queue.answer(askGroupKey(ask), { answer: 'once' });
    assert.deepEqual(await pending, { answer: 'once' });
  });

  test('the card shows the rule each length writes, with the server identity', () => {
    const verdict = evaluate(rulesOf(NO_APPROVALS), WRITE);
    const ask: CallAsk = {
      call: { ...WRITE, decision: { by: 'agent', what: 'test' } } as CallAsk['call'],
      entrance: 'agent',
      verdict,
      serverKey: KEY,
    };
    const card = callCardView(ask, ['allow-demo-write-file-step'], WHEN, 3);
    assert.equal(card.waiting, 3);
    for (const length of ['session', 'workspace', 'always'] as const)
      assert.deepEqual(JSON.parse(card.allowRules?.[length] ?? 'null'), alwaysRule(ask, ['allow-demo-write-file-step'], WHEN, length));
    assert.equal(JSON.parse(card.allowRules!.always!).id, 'allow-demo-write-file-step-2');
    assert.equal(JSON.parse(card.allowRules!.session!).serverKey, KEY);
  });
});

describe('standing approvals: revoke, reset, stored', () => {
  const a = (id: string) => ({
    rule: { id, decision: 'allow' as const, reason: 'r', server: 'demo', tool: id, entrance: ['agent' as const] },
    made: 1,
    why: 'w',
  });

  test('Revoke takes one approval away (the call asks again); Reset empties one length and keeps the other', () => {
    let approvals = withApproval(
      withApproval(withApproval(NO_APPROVALS, 'session', a('write_file_step')), 'session', a('edit_text')),
      'workspace',
      a('delete_file'),
    );
    const call = (tool: string) => evaluate(rulesOf(approvals), { ...WRITE, tool, serverKey: undefined }).decision;
    assert.deepEqual(['write_file_step', 'edit_text', 'delete_file'].map(call), ['allow', 'allow', 'allow']);
    approvals = withoutApproval(approvals, 'write_file_step');
    assert.deepEqual(['write_file_step', 'edit_text', 'delete_file'].map(call), ['ask', 'allow', 'allow']);
    approvals = resetApprovals(approvals, 'session');
    assert.deepEqual(['write_file_step', 'edit_text', 'delete_file'].map(call), ['ask', 'ask', 'allow']);
    approvals = resetApprovals(approvals, 'workspace');
    assert.deepEqual(approvals, NO_APPROVALS);
  });

  test('stored workspace approvals are read as untrusted: only valid allow rules with a time and a reason come back', () => {
    const good = a('write_file_step');
    const read = readStoredApprovals([
      good,
      { ...good, rule: { ...good.rule, decision: 'deny' } },
      { ...good, made: 'yesterday' },
      { rule: { id: 'x', decision: 'allow' }, made: 1, why: 'no reason' },
      'junk',
      null,
    ]);
    assert.deepEqual(read, [good]);
    assert.deepEqual(readStoredApprovals({ not: 'a list' }), []);
  });

  test('the policy lint knows the lengths: a workspace rule a session approval makes moot is said so', () => {
    const rule = a('write_file_step').rule;
    const rules = {
      user: [],
      workspace: [{ ...rule, id: 'ws-allow', source: 'workspace' as const, index: 0 }],
      approvals: approvalRules(withApproval(NO_APPROVALS, 'session', a('write_file_step'))),
    };
    const problems = lintPolicy(rules, 'workspace');
    assert.ok(
      problems.some((p) => /can never decide: your approval for this session 'write_file_step'/.test(p.message)),
      JSON.stringify(problems),
    );
    assert.equal(
      lintPolicy({ ...rules, approvals: [] }, 'workspace').some((p) => /approval/.test(p.message)),
      false,
    );
  });
});

async function setup(t: TestContext, userRules: PolicyRule[] = []) {
  const root = mkdtempSync(join(tmpdir(), 'plangate-lengths-'));
  const callLog = join(root, 'calls.jsonl');
  const declares = new McpServer({ name: 'declares', version: '1.0.0' });
  declares.registerTool('publish', { description: 'asks by its own declaration', _meta: { approval: 'ask' } }, () => ({
    content: [{ type: 'text' as const, text: 'published' }],
  }));
  const conn = await connectInMemory([
    { name: 'demo', server: createFixtureServer({ root, callLogFile: callLog }) },
    { name: 'declares', server: declares },
  ]);
  const definitions = new Map<string, { annotations?: unknown; _meta?: unknown }>();
  for (const server of ['demo', 'declares'])
    for (const d of await conn.invoker.definitions(server)) definitions.set(`${server}/${d.name}`, d);
  let approvals = NO_APPROVALS;
  const user = userRules.map((r, index): SourcedRule => ({ ...r, source: 'user', index }));
  const shows: { key: string; waiting: number; args: unknown }[] = [];
  const closed: string[] = [];
  const written: { length: AllowLength; rule: PolicyRule }[] = [];
  const queue = new AskQueue({
    surface: { show: (key, head, waiting) => shows.push({ key, waiting, args: head.call.args }), close: (key) => closed.push(key) },
    allow: async (length, ask) => {
      const rule = alwaysRule(ask, [], WHEN, length);
      written.push({ length, rule });
      if (length === 'always') user.push({ ...rule, source: 'user', index: user.length });
      else approvals = withApproval(approvals, length, { rule, made: WHEN.getTime(), why: 'test' });
      return rule.id;
    },
  });
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  let n = 0;
  const gate = new Gate(workflow, {
    invoker: conn.invoker,
    settings: () => ({ stepTimeoutMs: 10_000, allowCrossServer: true }),
    newId: () => `id-${++n}`,
    policy: {
      policy: (call) => evaluate({ user, workspace: [], approvals: approvalRules(approvals) }, call, { workspaceRoot: root }),
      toolInfo: (server, tool) => definitions.get(`${server}/${tool}`),
      serverKey: (server) => `${server} ${'1'.repeat(64)}`,
      ask: queue.ask,
    },
  });
  const running = { state: 'running', tools: [], onDidChangeState: new Emitter<{ state: string }>().event };
  const handler = createGateHandler({ registry: { get: () => running }, gate, startWaitMs: 100 });
  t.after(async () => {
    gate.dispose();
    await conn.close();
    rmSync(root, { recursive: true, force: true });
  });
  const cts = new CancellationTokenSource();
  const agent = (tool: string, args: Record<string, unknown> = {}, server = 'demo') =>
    handler.callTool(server, tool, args, { token: cts.token, progress: () => undefined });
  const calls = () => (existsSync(callLog) ? readCallLog(callLog) : []);
  const sent = () =>
    sink.entries.map((e) => e.event).filter((e): e is Extract<WorkflowEvent, { type: 'callSent' }> => e.type === 'callSent');
  const settle = async (until: () => boolean) => {
    for (let i = 0; i < 200 && !until(); i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(until(), 'timed out waiting');
  };
  return { queue, shows, closed, written, agent, calls, sent, settle, cts, workflow, approvals: () => approvals };
}

const file = (i: number) => ({ path: `f${i}.txt`, content: `${i}` });

describe('no storm of cards', () => {
  test('five waiting calls of the agent to one tool: one card, counting 5; Allow for this session settles all five', async (t) => {
    const s = await setup(t);
    const results = [1, 2, 3, 4, 5].map((i) => s.agent('write_file_step', file(i)));
    await s.settle(() => s.queue.waiting === 5);
    const keys = new Set(s.shows.map((x) => x.key));
    assert.equal(keys.size, 1, 'one card');
    assert.equal(s.shows.at(-1)?.waiting, 5, 'it counts five');
    assert.deepEqual(s.shows.at(-1)?.args, file(1), 'it shows the first call whole');
    assert.equal(s.calls().length, 0, 'nothing sent yet');
    assert.equal(await s.queue.answer([...keys][0]!, { answer: 'session' }), undefined);
    const done = await Promise.all(results);
    assert.ok(done.every((r) => r.isError !== true));
    assert.deepEqual(
      s
        .calls()
        .map((c) => (c.args as { path: string }).path)
        .sort(),
      ['f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'f5.txt'],
    );
    assert.equal(s.written.length, 1, 'one rule written');
    assert.deepEqual(s.closed, [...keys], 'the card closed');
    assert.deepEqual(
      s.sent().map((e) => [e.policy?.answer, e.policy?.approvalRule]),
      Array(5).fill(['session', 'session-allow-demo-write-file-step']),
    );
    const cards = s.shows.length;
    await s.agent('write_file_step', file(6));
    assert.equal(s.shows.length, cards, 'no card was shown for it');
    assert.equal(s.queue.waiting, 0);
    assert.equal(s.calls().length, 6, 'the next call runs without a card');
  });

  test('an allow settles only the calls the policy now allows: a call a rule asks about keeps waiting, its card counts it', async (t) => {
    const s = await setup(t, [
      {
        id: 'ask-secrets',
        decision: 'ask',
        reason: 'secrets are asked about',
        tool: 'write_file_step',
        args: [{ path: '$.path', glob: '*.key' }],
      },
    ]);
    const results = [
      s.agent('write_file_step', file(1)),
      s.agent('write_file_step', { path: 'id.key', content: 'k' }),
      s.agent('write_file_step', file(3)),
    ];
    await s.settle(() => s.queue.waiting === 3);
    const key = s.shows.at(-1)!.key;
    assert.equal(await s.queue.answer(key, { answer: 'workspace' }), undefined);
    await Promise.all([results[0], results[2]]);
    assert.deepEqual(
      s
        .calls()
        .map((c) => (c.args as { path: string }).path)
        .sort(),
      ['f1.txt', 'f3.txt'],
    );
    assert.equal(s.queue.waiting, 1, 'the .key call still waits');
    assert.deepEqual(s.shows.at(-1), { key, waiting: 1, args: { path: 'id.key', content: 'k' } }, 'the card now shows it, alone');
    assert.equal(s.approvals().workspace.length, 1);
    await s.queue.answer(key, { answer: 'deny', note: 'no' });
    assert.equal((await results[1]).isError, true);
    assert.equal(s.calls().length, 2);
  });

  test('Allow once lets one call go and shows the next; Deny all refuses every call waiting', async (t) => {
    const s = await setup(t);
    const results = [1, 2, 3].map((i) => s.agent('write_file_step', file(i)));
    await s.settle(() => s.queue.waiting === 3);
    const key = s.shows.at(-1)!.key;
    await s.queue.answer(key, { answer: 'once' });
    await results[0];
    assert.deepEqual(s.shows.at(-1), { key, waiting: 2, args: file(2) });
    const answer: CardAnswer = { answer: 'deny', note: 'stop', all: true };
    await s.queue.answer(key, answer);
    const rest = await Promise.all(results.slice(1));
    assert.ok(rest.every((r) => r.isError === true));
    assert.equal(s.calls().length, 1, 'only the one allowed once ran');
    assert.deepEqual(s.closed, [key]);
  });

  test('another tool, or another caller, waits behind its own card', async (t) => {
    const s = await setup(t);
    const ask = (tool: string, entrance: 'agent' | 'app'): CallAsk =>
      ({
        call: { server: 'demo', tool, args: {}, entrance, decision: { by: entrance } },
        entrance,
        verdict: evaluate({ user: [], workspace: [] }, { ...WRITE, tool, entrance }),
      }) as CallAsk;
    const waits: Promise<CallAskAnswer>[] = [
      s.queue.ask(ask('a', 'agent')),
      s.queue.ask(ask('a', 'agent')),
      s.queue.ask(ask('b', 'agent')),
      s.queue.ask(ask('a', 'app')),
    ];
    assert.equal(new Set(s.shows.map((x) => x.key)).size, 3);
    for (const key of new Set(s.shows.map((x) => x.key))) await s.queue.answer(key, { answer: 'cancelled' });
    assert.ok((await Promise.all(waits)).every((a) => a.answer === 'cancelled'));
  });
});

describe('the Approvals view: what the ledger and the settings hold', () => {
  test('every allow in force, grouped by where it lives, with why and how often the ledger says it was used', async (t) => {
    const s = await setup(t);
    const first = s.agent('write_file_step', file(1));
    await s.settle(() => s.queue.waiting === 1);
    await s.queue.answer(s.shows.at(-1)!.key, { answer: 'session' });
    await first;
    await s.agent('write_file_step', file(2));
    const session = s.approvals();
    const byHand: PolicyRule = { id: 'mine', decision: 'allow', reason: 'reads are fine', tool: 'read_*' };
    const fromCard = narrowestRule({ server: 'demo', tool: 'edit_text', entrance: 'agent' }, [], WHEN, 'always');
    const denyRule: PolicyRule = { id: 'no', decision: 'deny', reason: 'never', tool: 'delete_*' };
    const groups = approvalGroups(session, [byHand, fromCard, denyRule], [], (id) => s.workflow.ruleUses.get(id));
    assert.deepEqual(
      groups.map((g) => [g.group, g.resettable, g.rows.map((r) => [r.ruleId, r.revocable])]),
      [
        ['session', true, [['session-allow-demo-write-file-step', true]]],
        ['workspace', true, []],
        [
          'user',
          false,
          [
            ['mine', true],
            ['allow-demo-edit-text', true],
          ],
        ],
        ['file', false, []],
      ],
    );
    const row = groups[0]!.rows[0]!;
    assert.match(row.description, /^used 2×/, 'the answered call and the one it let through later');
    assert.match(row.tooltip, /for this session: in memory until the window closes\)\nmade 2026-12-03 10:00 UTC: test/);
    assert.match(groups[2]!.rows[0]!.tooltip, /written by hand: reads are fine/);
    assert.match(groups[2]!.rows[1]!.tooltip, /written by the card/);
    assert.match(groups[2]!.rows[0]!.description, /not used yet/);
    // A group's row fits a narrow sidebar: its count and a few words; the tooltip says where they live in full.
    assert.deepEqual(
      groups.map((g) => [g.description, g.tooltip]),
      [
        ['1 · until the window closes', 'For this session: 1 approval, in memory until the window closes'],
        ['0 · this folder only', "In this workspace: 0 approvals, kept in this workspace's state"],
        ['2 · plangate.policy', 'Always (your settings): 2 approvals, user settings, plangate.policy'],
        [
          '0 · .vscode/plangate-policy.json',
          'Workspace policy file: 0 approvals, .vscode/plangate-policy.json: edit the file to change it',
        ],
      ],
    );
  });
});
