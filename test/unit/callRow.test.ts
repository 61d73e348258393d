// The Plans view's Calls: the single calls folded from the ledger's call records (bounded, newest first, plan steps left
// out) and each row's words — the outcome, the decision with the deciding rule's id, what answered an ask — and the
// export's record.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ARGS_SUMMARY_MAX,
  argsSummary,
  callExport,
  callRowView,
  callsGroupDescription,
  decisionWords,
} from '../../src/core/present/callRow';
import { RecentCalls, type RecentCall } from '../../src/core/workflow/recentCalls';
import type { CallPolicyRecord, CallRecordEvent } from '../../src/core/workflow/workflow';

const sent = (callId: string, extra: Partial<Extract<CallRecordEvent, { type: 'callSent' }>> = {}): CallRecordEvent => ({
  type: 'callSent',
  at: 1_700_000_000_000,
  callId,
  server: 'fixture',
  tool: 'echo',
  entrance: 'call',
  decision: { by: 'user', what: 'Call Tool' },
  args: { message: 'hi' },
  ...extra,
});
const ended = (callId: string, outcome: 'ok' | 'refused' = 'ok', detail?: string): CallRecordEvent => ({
  type: 'callEnded',
  at: 1_700_000_000_100,
  callId,
  outcome,
  durationMs: 100,
  ...(detail ? { detail } : {}),
});
const call = (policy: CallPolicyRecord, extra: Partial<RecentCall> = {}): RecentCall => ({
  callId: 'c1',
  at: 0,
  server: 'fixture',
  tool: 'echo',
  entrance: 'agent',
  decision: { by: 'agent', what: 'x' },
  args: {},
  outcome: 'ok',
  policy,
  ...extra,
});
const ask = (extra: Partial<CallPolicyRecord>): CallPolicyRecord => ({
  decision: 'ask',
  ruleId: 'plangate:destructive',
  source: 'default',
  reason: 'it may destroy data',
  ...extra,
});

describe('recent calls', () => {
  test('newest first, with the outcome once it ended; plan steps and previews are left out', () => {
    const calls = new RecentCalls();
    assert.equal(calls.add(sent('a')), true);
    assert.equal(calls.add(sent('step', { decision: { by: 'approval', planId: 'p', step: 0, approvalHash: 'h' } })), false);
    assert.equal(calls.add(sent('preview', { decision: { by: 'preview', planId: 'p', step: 0 } })), false);
    assert.equal(calls.add(ended('step')), false, "a step's end changes nothing");
    calls.add(sent('b', { tool: 'succeed' }));
    calls.add(ended('a', 'refused', 'denied'));
    assert.deepEqual(
      calls.list().map((c) => [c.callId, c.outcome, c.detail]),
      [
        ['b', undefined, undefined],
        ['a', 'refused', 'denied'],
      ],
    );
    assert.equal(callRowView(calls.get('b')!, 'now').description.split(' · ')[0], 'running');
  });

  test('bounded: the oldest calls go first', () => {
    const calls = new RecentCalls(3);
    for (const id of ['1', '2', '3', '4', '5']) calls.add(sent(id));
    assert.deepEqual(
      calls.list().map((c) => c.callId),
      ['5', '4', '3'],
    );
    assert.equal(calls.add(ended('1')), false, 'a call no longer listed is not brought back by its end');
  });
});

describe('call rows', () => {
  test("every decision in words, with the rule's id", () => {
    const allow = call({ decision: 'allow', ruleId: 'echo-ok', source: 'user', reason: 'echo is harmless.' });
    assert.equal(decisionWords(allow), "Allowed by rule 'echo-ok': echo is harmless.");
    const deny = call({ decision: 'deny', ruleId: 'no-echo', source: 'workspace', reason: 'quiet' }, { outcome: 'refused' });
    assert.equal(decisionWords(deny), "Denied by rule 'no-echo': quiet.");
    assert.equal(callRowView(deny, 'now').description, "refused · denied by rule 'no-echo' · fixture · chat agent");
    assert.equal(callRowView(deny, 'now').icon, 'circle-slash');
    assert.equal(
      decisionWords(call(ask({ coveredBy: 'card', answer: 'once' }))),
      "Asked because: it may destroy data ('plangate:destructive'); allowed once.",
    );
    assert.equal(
      decisionWords(call(ask({ coveredBy: 'card', answer: 'always', alwaysRule: 'allow-fixture-echo' }))),
      "Asked because: it may destroy data ('plangate:destructive'); always allowed (rule 'allow-fixture-echo' added).",
    );
    assert.equal(
      decisionWords(call(ask({ coveredBy: 'card', answer: 'session', approvalRule: 'session-allow-fixture-echo' }))),
      "Asked because: it may destroy data ('plangate:destructive'); allowed for this session ('session-allow-fixture-echo').",
    );
    const denied = call(ask({ coveredBy: 'card', answer: 'deny', note: 'not today' }), { outcome: 'refused' });
    assert.equal(decisionWords(denied), "Asked because: it may destroy data ('plangate:destructive'); denied by you: not today.");
    assert.equal(callRowView(denied, 'now').description, "refused · asked by 'plangate:destructive', denied by you · fixture · chat agent");
    assert.match(decisionWords(call(ask({ coveredBy: 'card', answer: 'cancelled' }))), /the caller stopped waiting\.$/);
    assert.match(decisionWords(call(ask({ coveredBy: 'button' }))), /covered by the button that showed this call\.$/);
    assert.match(
      decisionWords(call({ decision: 'ask', ruleId: 'mine', source: 'user', reason: 'r', notHonoured: 'repo-allows', answer: 'once' })),
      /rule 'mine'\); allowed once\. The workspace's rule 'repo-allows' would have loosened this; your policy stood\.$/,
    );
    assert.equal(decisionWords({}), 'No policy decision was recorded for this call.');
  });

  test('the tooltip has the decision, the outcome and the arguments, cut; invisible characters show as marks', () => {
    const long = { content: 'x'.repeat(5000) };
    const row = callRowView(
      call(
        { decision: 'allow', ruleId: 'plangate:default', source: 'default', reason: 'no rule asks about or denies it' },
        {
          tool: 'ec\u202eho',
          args: long,
          detail: 'boom',
          outcome: 'failed',
        },
      ),
      'today',
    );
    const lines = row.tooltip.split('\n');
    assert.equal(lines[0], "Allowed by 'plangate:default': no rule asks about or denies it.");
    assert.ok(lines.includes('Outcome: failed — boom'));
    assert.ok(!row.label.includes('\u202e'), `the label shows the mark, not the control: ${row.label}`);
    assert.equal(Array.from(argsSummary(long)).length, ARGS_SUMMARY_MAX);
    assert.ok(row.tooltip.includes(`Arguments: ${argsSummary(long)}`));
  });

  test('the group counts the calls and the refused ones; the export keeps the record with its rule id and adds the words', () => {
    const deny = call({ decision: 'deny', ruleId: 'no-echo', source: 'user', reason: 'quiet' }, { outcome: 'refused', at: 0 });
    const ok = call({ decision: 'allow', ruleId: 'echo-ok', source: 'user', reason: 'fine' }, { callId: 'c2' });
    assert.equal(callsGroupDescription([ok, deny]), '2 recent · 1 refused');
    const out = callExport(deny);
    assert.equal(out.policy?.ruleId, 'no-echo');
    assert.equal(out.decisionText, "Denied by rule 'no-echo': quiet.");
    assert.equal(out.time, '1970-01-01T00:00:00.000Z');
    assert.deepEqual(JSON.parse(JSON.stringify(out)).args, {});
  });
});
