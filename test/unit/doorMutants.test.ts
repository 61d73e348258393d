// The door's every check, one by one, with a stand-in server and no transport (fast enough for `npm run mutate`, which
// runs this file once per mutant of src/core/engine/door.ts): what each refusal says and records, which entrance a call
// comes by as the policy names it, what covers an ask (the plan, the button, the card) and what the card's answers
// leave in the ledger, how a call's outcome is recorded, and when a step's preview goes by itself.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Broker } from '../../src/core/base/broker';
import { approvalHash } from '../../src/core/plan/approval';
import { sha256Hex, canonicalJson } from '../../src/core/base/json';
import {
  deniedMessage,
  Door,
  GateRefusal,
  policyRecord,
  resolvePlan,
  type CallAsk,
  type CallAskAnswer,
  type DoorCall,
  type DoorOptions,
} from '../../src/core/engine/door';
import type { ServerTools, TaskReport, ToolCallOptions } from '../../src/core/engine/invoker';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { getPlan, type WorkflowEvent } from '../../src/core/workflow/workflow';
import type { ActionCall, Entrance } from '../../src/core/plan/plan';
import type { PolicyCall, PolicyVerdict } from '../../src/core/policy/evaluate';
import type { RuleRef } from '../../src/core/policy/rules';
import type { ToolResult } from '../../src/core/base/toolResult';

type Sent = Extract<WorkflowEvent, { type: 'callSent' }>;
type Ended = Extract<WorkflowEvent, { type: 'callEnded' }>;

function rule(
  decision: RuleRef['decision'],
  source: RuleRef['source'] = 'user',
  id = `r-${decision}`,
  reason = `because ${decision}.`,
): RuleRef {
  return { id, source, decision, reason };
}
function verdict(decision: RuleRef['decision'], source: RuleRef['source'] = 'user', extra: Partial<PolicyVerdict> = {}): PolicyVerdict {
  const r = rule(decision, source);
  return { decision, rule: r, matched: [r], ...extra };
}

/** A stand-in server set: `a` offers write and read, `b` offers remote. Records what reaches it. */
function fakeInvoker() {
  const catalog: ServerTools[] = [
    {
      server: 'a',
      tools: ['write', 'read'],
      hashes: new Map([
        ['write', 'hw1'],
        ['read', 'hr1'],
      ]),
    },
    { server: 'b', tools: ['remote'], hashes: new Map([['remote', 'hb1']]) },
  ];
  const calls: { server: string; tool: string; args: Record<string, unknown>; options?: ToolCallOptions }[] = [];
  let reply: (tool: string) => Promise<ToolResult> = async (tool) => ({ content: [{ type: 'text', text: `${tool} done` }] });
  return {
    calls,
    catalog,
    setReply(r: (tool: string) => Promise<ToolResult>) {
      reply = r;
    },
    invoker: {
      catalog: async () => catalog,
      callTool: async (server: string, tool: string, args: Record<string, unknown>, options?: ToolCallOptions) => {
        calls.push({ server, tool, args, options });
        return reply(tool);
      },
    },
  };
}

function setup(options: Partial<DoorOptions> & { cross?: boolean } = {}) {
  const fake = fakeInvoker();
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  let cross = options.cross ?? true;
  let clock = 1000;
  let id = 0;
  const policyCalls: PolicyCall[] = [];
  const told: { call: DoorCall & { callId: string }; outcome?: unknown }[] = [];
  const door = new Door(fake.invoker, workflow, {
    allowCrossServer: () => cross,
    newId: () => `c${++id}`,
    now: () => (clock += 10),
    onCall: (call, outcome) => told.push({ call, outcome }),
    ...options,
    ...(options.policy
      ? {
          policy: (call: PolicyCall) => {
            policyCalls.push(call);
            return options.policy!(call);
          },
        }
      : {}),
  });
  const sent = () => sink.entries.map((e) => e.event).filter((e): e is Sent => e.type === 'callSent');
  const ended = () => sink.entries.map((e) => e.event).filter((e): e is Ended => e.type === 'callEnded');

  /** A plan from server `a` (entrance `entrance`): step 1 writes on a, step 2 runs `remote` on b (cross-server). */
  async function plan(planId = 'p1', entrance: Entrance = 'manual', steps: ActionCall[] = defaultSteps()) {
    assert.ok(
      workflow.dispatch({
        type: 'planReceived',
        at: 1,
        planId,
        origin: { server: 'a', tool: 'plan_it', args: {}, entrance },
        plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'do it', next_actions: steps },
      }),
    );
    assert.equal(await resolvePlan(workflow, fake.invoker, planId, { allowCrossServer: true }), true);
    return planId;
  }
  function approve(planId = 'p1'): string {
    const hash = approvalHash(getPlan(workflow.state, planId)!);
    assert.ok(workflow.dispatch({ type: 'approved', at: 2, planId, approvalHash: hash }));
    return hash;
  }
  /** The runner's start of step `index` (on server `a`), as before its call. */
  function start(planId = 'p1', index = 0): void {
    assert.ok(workflow.dispatch({ type: 'stepStarted', at: 3, planId, step: index, server: 'a', crossServer: false }));
  }
  return {
    door,
    workflow,
    fake,
    sink,
    sent,
    ended,
    told,
    policyCalls,
    plan,
    approve,
    start,
    setCross: (v: boolean) => (cross = v),
  };
}

function defaultSteps(): ActionCall[] {
  return [
    { tool: 'write', args: { path: 'x.txt', n: 1 } },
    { tool: 'remote', args: { q: 'y' } },
  ];
}

const step = (
  planId: string,
  index: number,
  approvalHash: string,
  args: Record<string, unknown>,
  tool = 'write',
  server = 'a',
): DoorCall => ({
  server,
  tool,
  args,
  entrance: 'step',
  decision: { by: 'approval', planId, step: index, approvalHash },
});
const preview = (planId: string, index: number, args: Record<string, unknown>, tool = 'write', server = 'a', pressed?: true): DoorCall => ({
  server,
  tool,
  args,
  entrance: 'preview',
  decision: { by: 'preview', planId, step: index, ...(pressed ? { pressed } : {}) },
});
const userCall = (tool = 'read', entrance: DoorCall['entrance'] = 'call', args: Record<string, unknown> = { a: 1 }): DoorCall => ({
  server: 'a',
  tool,
  args,
  entrance,
  decision: { by: 'user', what: 'Call' },
});

async function refusal(p: Promise<unknown>): Promise<GateRefusal> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof GateRefusal, `expected a GateRefusal, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the door to refuse');
}

describe('door: words and records', () => {
  test('a deny names the tool, the server, the rule reason and its id', () => {
    assert.equal(
      deniedMessage({ server: 's', tool: 't' }, verdict('deny')),
      "Policy denies calling 't' on server 's': because deny. (rule 'r-deny').",
    );
  });

  test("the ledger's policy record keeps decision, rule, source, reason, and the workspace rule not honoured only when there is one", () => {
    assert.deepEqual(policyRecord(verdict('ask', 'workspace')), {
      decision: 'ask',
      ruleId: 'r-ask',
      source: 'workspace',
      reason: 'because ask.',
    });
    const v = verdict('ask', 'user', { notHonoured: rule('allow', 'workspace', 'ws-allow') });
    assert.deepEqual(policyRecord(v), {
      decision: 'ask',
      ruleId: 'r-ask',
      source: 'user',
      reason: 'because ask.',
      notHonoured: 'ws-allow',
    });
  });

  test('GateRefusal carries its kind, message, resolution, change and verdict', () => {
    const v = verdict('deny');
    const r = new GateRefusal('drift', 'm', { server: 'a', crossServer: false }, 'changed', v);
    assert.equal(r.name, 'GateRefusal');
    assert.equal(r.kind, 'drift');
    assert.equal(r.message, 'm');
    assert.deepEqual(r.resolution, { server: 'a', crossServer: false });
    assert.equal(r.change, 'changed');
    assert.equal(r.verdict, v);
  });
});

describe('door: the entrance a call comes by, as policy rules name it', () => {
  test('plan steps and previews come by the plan, or by recovery for a recovery plan; other calls by their own entrance', async () => {
    const s = setup();
    await s.plan('p1', 'manual');
    await s.plan('p2', 'recovery');
    assert.equal(s.door.policyEntrance(step('p1', 0, 'h', {})), 'plan');
    assert.equal(s.door.policyEntrance(step('p2', 0, 'h', {})), 'recovery');
    assert.equal(s.door.policyEntrance(preview('p1', 0, {})), 'plan');
    assert.equal(s.door.policyEntrance(preview('p2', 0, {})), 'recovery');
    assert.equal(s.door.policyEntrance(step('nope', 0, 'h', {})), 'plan');
    const by = (entrance: DoorCall['entrance']) => s.door.policyEntrance({ ...userCall(), entrance });
    assert.equal(by('agent'), 'agent');
    assert.equal(by('app'), 'app');
    assert.equal(by('step'), 'plan');
    assert.equal(by('preview'), 'plan');
    assert.equal(by('call'), 'call');
    assert.equal(by('collect'), 'call');
    assert.equal(by('replan'), 'call');
  });

  test("the policy sees the call, its entrance, the tool's annotations and _meta, and whether the server is sandboxed", async () => {
    const info = { annotations: { readOnlyHint: true }, _meta: { approval: 'ask' } };
    const s = setup({
      policy: () => verdict('allow'),
      toolInfo: (server, tool) => (server === 'a' && tool === 'read' ? info : undefined),
      serverSandboxed: (server) => server === 'a',
    });
    await s.door.call({ ...userCall('read', 'agent'), decision: { by: 'agent', what: 'x' } });
    assert.deepEqual(s.policyCalls.at(-1), {
      server: 'a',
      tool: 'read',
      args: { a: 1 },
      entrance: 'agent',
      annotations: info.annotations,
      meta: info._meta,
      sandboxed: true,
    });
    await s.door.call({ ...userCall('remote'), server: 'b' });
    assert.deepEqual(s.policyCalls.at(-1), {
      server: 'b',
      tool: 'remote',
      args: { a: 1 },
      entrance: 'call',
      annotations: undefined,
      meta: undefined,
      sandboxed: false,
    });
  });

  test('a sandbox answer other than true does not count as sandboxed', () => {
    const s = setup({ policy: () => verdict('allow'), serverSandboxed: () => 'yes' as unknown as boolean });
    s.door.verdictOf('a', 'read', {}, 'call');
    assert.equal(s.policyCalls.at(-1)?.sandboxed, false);
  });

  test('without a policy there is no verdict, and the ledger record has no policy', async () => {
    const s = setup();
    assert.equal(s.door.verdictOf('a', 'read', {}, 'call'), undefined);
    await s.door.call(userCall());
    assert.equal(s.sent()[0]?.policy, undefined);
    assert.equal('policy' in s.sent()[0]!, false);
  });
});

describe('door: a plan step', () => {
  test('an approved step is sent, and the record names the plan and step and keeps no arguments of its own', async () => {
    const s = setup();
    await s.plan();
    const hash = s.approve();
    assert.equal(await s.door.check(step('p1', 0, hash, { path: 'x.txt', n: 1 })), undefined);
    const result = await s.door.call(step('p1', 0, hash, { path: 'x.txt', n: 1 }));
    assert.deepEqual(result, { content: [{ type: 'text', text: 'write done' }] });
    assert.deepEqual(
      s.fake.calls.map((c) => [c.server, c.tool, c.args]),
      [['a', 'write', { path: 'x.txt', n: 1 }]],
    );
    const sent = s.sent()[0]!;
    assert.equal(sent.planId, 'p1');
    assert.equal(sent.step, 0);
    assert.equal('args' in sent, false);
    assert.equal('argsHash' in sent, false);
    assert.equal(sent.entrance, 'step');
    assert.equal(sent.callId, 'c1');
    assert.deepEqual(sent.decision, { by: 'approval', planId: 'p1', step: 0, approvalHash: hash });
    assert.equal(s.ended()[0]?.outcome, 'ok');
  });

  test('the same arguments in another key order still match the approved ones', async () => {
    const s = setup();
    await s.plan();
    const hash = s.approve();
    assert.equal(await s.door.check(step('p1', 0, hash, { n: 1, path: 'x.txt' })), undefined);
  });

  test('each mismatch is refused with its own words, and nothing is sent', async () => {
    const s = setup();
    await s.plan();
    const args = { path: 'x.txt', n: 1 };
    const early = await s.door.check(step('p1', 0, 'h', args));
    assert.equal(early?.kind, 'not_covered');
    assert.equal(early?.message, "Plan 'p1' is not approved and running, so its step 1 may not be sent.");
    const hash = s.approve();
    const cases: [DoorCall, string][] = [
      [step('p9', 0, hash, args), "There is no step 1 of plan 'p9' to cover this call."],
      [step('p1', 2, hash, args), "There is no step 3 of plan 'p1' to cover this call."],
      [step('p1', 0, 'other', args), "Step 1: the approval it carries is not the plan's current one."],
      [step('p1', 0, hash, { path: 'x.txt', n: 2 }), 'Step 1: these arguments are not the approved ones.'],
      [step('p1', 0, hash, args, 'read'), "Step 1 calls 'write', not 'read'."],
      [step('p1', 0, hash, args, 'write', 'b'), "Step 1 was approved for server 'a', not 'b'."],
    ];
    for (const [call, message] of cases) {
      const r = await s.door.check(call);
      assert.equal(r?.kind, 'not_covered', message);
      assert.equal(r?.message, message);
    }
    for (const [call, message] of cases) assert.equal((await refusal(s.door.call(call))).message, message);
    assert.equal(s.fake.calls.length, 0);
    assert.deepEqual(
      s.ended().map((e) => [e.outcome, e.detail]),
      cases.map(([, m]) => ['refused', m]),
    );
  });

  test('a step that is no longer about to run is refused', async () => {
    const s = setup();
    await s.plan();
    const hash = s.approve();
    s.start();
    assert.equal(await s.door.check(step('p1', 0, hash, { path: 'x.txt', n: 1 })), undefined, 'a running step may be sent');
    assert.ok(s.workflow.dispatch({ type: 'stepSucceeded', at: 4, planId: 'p1', step: 0, summary: 'ok' }));
    const r = await s.door.check(step('p1', 0, hash, { path: 'x.txt', n: 1 }));
    assert.equal(r?.message, 'Step 1 is ok; only a step about to run may be sent.');
    assert.equal(r?.kind, 'not_covered');
  });

  test('a plan that finished is not running: its steps are refused as such, though its approval hash stays', async () => {
    const s = setup();
    await s.plan('p1', 'manual', [{ tool: 'write', args: {} }]);
    const hash = s.approve();
    s.start();
    assert.ok(s.workflow.dispatch({ type: 'stepSucceeded', at: 4, planId: 'p1', step: 0, summary: 'ok' }));
    const plan = getPlan(s.workflow.state, 'p1')!;
    assert.notEqual(plan.phase, 'executing');
    assert.equal(plan.approvalHash, hash);
    const r = await s.door.check(step('p1', 0, hash, {}));
    assert.equal(r?.message, "Plan 'p1' is not approved and running, so its step 1 may not be sent.");
  });

  test("a step whose tool's definition changed since approval is drift, with where it resolves now", async () => {
    const s = setup();
    await s.plan();
    const hash = s.approve();
    s.fake.catalog[0] = {
      server: 'a',
      tools: ['write', 'read'],
      hashes: new Map([
        ['write', 'hw2'],
        ['read', 'hr1'],
      ]),
    };
    const r = await s.door.check(step('p1', 0, hash, { path: 'x.txt', n: 1 }));
    assert.equal(r?.kind, 'drift');
    assert.deepEqual(r?.resolution, { server: 'a', crossServer: false, toolHash: 'hw2' });
    assert.ok(r?.change && r.change.length > 0);
    assert.equal(r?.message, `Step 1: ${r?.change}.`);
  });

  test('a cross-server step drifts when cross-server steps are turned off after approval', async () => {
    const s = setup();
    await s.plan();
    const hash = s.approve();
    assert.equal(await s.door.check(step('p1', 1, hash, { q: 'y' }, 'remote', 'b')), undefined);
    s.setCross(false);
    const r = await s.door.check(step('p1', 1, hash, { q: 'y' }, 'remote', 'b'));
    assert.equal(r?.kind, 'drift');
    assert.ok(r?.resolution && 'missing' in r.resolution);
  });

  test('a step whose server was never resolved is drift, not sent', async () => {
    const s = setup();
    assert.ok(
      s.workflow.dispatch({
        type: 'planReceived',
        at: 1,
        planId: 'p1',
        origin: { server: 'a', tool: 'plan_it', args: {}, entrance: 'manual' },
        plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'i', next_actions: [{ tool: 'write', args: {} }] },
      }),
    );
    const hash = s.approve();
    const r = await s.door.check(step('p1', 0, hash, {}));
    assert.equal(r?.kind, 'drift');
    assert.equal(r?.message, 'Step 1: its server was not resolved when the plan was shown.');
  });

  test("an ask on a plan step is covered by the plan's approval, without the card", async () => {
    let asked = 0;
    const s = setup({
      policy: () => verdict('ask'),
      ask: async () => {
        asked++;
        return { answer: 'once' };
      },
    });
    await s.plan();
    const hash = s.approve();
    await s.door.call(step('p1', 0, hash, { path: 'x.txt', n: 1 }));
    assert.equal(asked, 0);
    assert.equal(s.sent()[0]?.policy?.coveredBy, 'plan');
    assert.equal(s.fake.calls.length, 1);
  });

  test('a step the policy denies is refused as denied, with the verdict, and recorded with it', async () => {
    const v = verdict('deny');
    const s = setup({ policy: () => v });
    await s.plan();
    const hash = s.approve();
    const r = await refusal(s.door.call(step('p1', 0, hash, { path: 'x.txt', n: 1 })));
    assert.equal(r.kind, 'denied');
    assert.equal(r.verdict, v);
    assert.equal(r.message, deniedMessage({ server: 'a', tool: 'write' }, v));
    assert.deepEqual(s.sent()[0]?.policy, policyRecord(v));
    assert.equal(s.fake.calls.length, 0);
  });
});

describe('door: a step preview', () => {
  test("the step's own arguments with its dry-run flag set go by themselves when the policy allows", async () => {
    const s = setup({ policy: () => verdict('allow') });
    await s.plan();
    for (const flag of ['dryRun', 'dry_run']) {
      const call = preview('p1', 0, { path: 'x.txt', n: 1, [flag]: true });
      assert.equal(await s.door.check(call), undefined, flag);
    }
    await s.door.call(preview('p1', 0, { path: 'x.txt', n: 1, dryRun: true }));
    const sent = s.sent()[0]!;
    assert.equal(sent.planId, 'p1');
    assert.equal(sent.step, 0);
    assert.deepEqual(sent.args, { path: 'x.txt', n: 1, dryRun: true });
    assert.equal(sent.argsHash, sha256Hex(canonicalJson({ path: 'x.txt', n: 1, dryRun: true })));
  });

  test('anything else is refused: no flag, a flag not true, other arguments, another tool, another server', async () => {
    const s = setup();
    await s.plan();
    const words = "Step 1: a preview sends the step's own arguments with its dry-run flag set, nothing else.";
    for (const args of [
      { path: 'x.txt', n: 1 },
      { path: 'x.txt', n: 1, dryRun: 'true' },
      { path: 'x.txt', n: 2, dryRun: true },
      { path: 'x.txt', dryRun: true },
      { path: 'x.txt', n: 1, dryRun: true, more: 1 },
    ]) {
      const r = await s.door.check(preview('p1', 0, args));
      assert.equal(r?.message, words, JSON.stringify(args));
      assert.equal(r?.kind, 'not_covered');
    }
    assert.equal(
      (await s.door.check(preview('p1', 0, { path: 'x.txt', n: 1, dryRun: true }, 'read')))?.message,
      "Step 1 calls 'write', not 'read'.",
    );
    assert.equal(
      (await s.door.check(preview('p1', 0, { path: 'x.txt', n: 1, dryRun: true }, 'write', 'b')))?.message,
      "Step 1 was approved for server 'a', not 'b'.",
    );
  });

  test("a step's own dry-run flag in its proposed arguments does not change what a preview must carry", async () => {
    const s = setup();
    await s.plan('p1', 'manual', [{ tool: 'write', args: { path: 'x.txt', dry_run: false } }]);
    assert.equal(await s.door.check(preview('p1', 0, { path: 'x.txt', dry_run: true })), undefined);
    assert.equal(await s.door.check(preview('p1', 0, { path: 'x.txt', dryRun: true })), undefined);
  });

  test('a preview is only for a plan awaiting approval', async () => {
    const s = setup();
    await s.plan();
    s.approve();
    const r = await s.door.check(preview('p1', 0, { path: 'x.txt', n: 1, dryRun: true }));
    assert.equal(r?.message, 'A preview is only for a plan awaiting approval.');
    assert.equal(r?.kind, 'not_covered');
  });

  test('a cross-server step is not previewed by itself, and not at all when cross-server steps are off', async () => {
    const s = setup();
    await s.plan();
    const call = preview('p1', 1, { q: 'y', dryRun: true }, 'remote', 'b');
    const waits = await s.door.check(call);
    assert.equal(waits?.kind, 'not_covered');
    assert.equal(
      waits?.message,
      "Step 2: its preview is not sent by itself, because the step runs on server 'b', not on the plan's own server; press Preview to decide.",
    );
    assert.equal(await s.door.check(preview('p1', 1, { q: 'y', dryRun: true }, 'remote', 'b', true)), undefined, 'pressed: it goes');
    assert.deepEqual(s.door.previewClearance('p1', 1, 'b', 'remote', { q: 'y', dryRun: true }), {
      kind: 'press',
      why: "Not previewed by itself: the step runs on server 'b', not on the plan's own server.",
    });
    s.setCross(false);
    const off = await s.door.check(preview('p1', 1, { q: 'y', dryRun: true }, 'remote', 'b', true));
    assert.equal(off?.message, 'Step 2 would run on another server, and cross-server steps are off.');
    assert.equal(off?.kind, 'not_covered');
  });

  test("an ask waits for Preview, naming a user's or workspace rule but not Plangate's own; pressed, it asks on the card", async () => {
    let v = verdict('ask', 'user');
    const asked: CallAsk[] = [];
    const s = setup({
      policy: () => v,
      ask: async (a) => {
        asked.push(a);
        return { answer: 'once' };
      },
    });
    await s.plan();
    const args = { path: 'x.txt', n: 1, dryRun: true };
    assert.equal(
      (await s.door.check(preview('p1', 0, args)))?.message,
      "Step 1: its preview is not sent by itself, because the policy asks before this call: because ask (rule 'r-ask'); press Preview to decide.",
    );
    assert.deepEqual(s.door.previewClearance('p1', 0, 'a', 'write', args), {
      kind: 'press',
      why: "Not previewed by itself: the policy asks before this call: because ask (rule 'r-ask').",
    });
    v = verdict('ask', 'workspace');
    assert.match(
      s.door.previewClearance('p1', 0, 'a', 'write', args).kind === 'press'
        ? (s.door.previewClearance('p1', 0, 'a', 'write', args) as { why: string }).why
        : '',
      /\(rule 'r-ask'\)\.$/,
    );
    for (const source of ['default', 'tool'] as const) {
      v = { ...verdict('ask', source), rule: { ...rule('ask', source), reason: 'it may destroy data. \n' } };
      assert.deepEqual(s.door.previewClearance('p1', 0, 'a', 'write', args), {
        kind: 'press',
        why: 'Not previewed by itself: the policy asks before this call: it may destroy data.',
      });
    }
    await refusal(s.door.call(preview('p1', 0, args)));
    assert.equal(asked.length, 0, 'an unpressed preview never opens the card');
    await s.door.call(preview('p1', 0, args, 'write', 'a', true));
    assert.equal(asked.length, 1, 'a pressed preview asks on the card (a preview is not covered by any approval)');
    assert.equal(s.sent().at(-1)?.policy?.coveredBy, 'card');
  });

  test('a denied preview is never sent, pressed or not, and its clearance says so in lower case', async () => {
    const s = setup({ policy: () => verdict('deny') });
    await s.plan();
    const args = { path: 'x.txt', n: 1, dryRun: true };
    assert.deepEqual(s.door.previewClearance('p1', 0, 'a', 'write', args), {
      kind: 'denied',
      why: "Not previewed: the policy denies calling 'write' on server 'a': because deny. (rule 'r-deny').",
    });
    assert.equal((await s.door.check(preview('p1', 0, args, 'write', 'a', true)))?.kind, 'denied');
  });

  test('an allowed, same-server step previews by itself', async () => {
    const s = setup({ policy: () => verdict('allow') });
    await s.plan();
    assert.deepEqual(s.door.previewClearance('p1', 0, 'a', 'write', { path: 'x.txt', n: 1, dryRun: true }), { kind: 'auto' });
    const none = setup();
    await none.plan();
    assert.deepEqual(none.door.previewClearance('p1', 0, 'a', 'write', {}), { kind: 'auto' });
    assert.deepEqual(
      none.door.previewClearance('p1', 5, 'a', 'write', {}),
      { kind: 'auto' },
      'no such step: the door refuses it at the call',
    );
    assert.deepEqual(none.door.previewClearance('nope', 0, 'a', 'write', {}), { kind: 'auto' }, 'no such plan: the same');
  });

  test("the preview's policy sees the plan entrance (recovery for a recovery plan)", async () => {
    const s = setup({ policy: () => verdict('allow') });
    await s.plan('p1', 'recovery');
    s.door.previewClearance('p1', 0, 'a', 'write', {});
    assert.equal(s.policyCalls.at(-1)?.entrance, 'recovery');
  });
});

describe('door: an ask outside a plan', () => {
  function withCard(
    answer: CallAskAnswer | (() => Promise<CallAskAnswer>),
    v: PolicyVerdict = verdict('ask'),
    extra: Partial<DoorOptions> = {},
  ) {
    const asked: CallAsk[] = [];
    const s = setup({
      policy: () => v,
      toolInfo: () => ({ annotations: { destructiveHint: true } }),
      ask: async (a) => {
        asked.push(a);
        return typeof answer === 'function' ? answer() : answer;
      },
      ...extra,
    });
    return { ...s, asked };
  }

  test('Allow once sends the call once and records the card and the answer; the card sees the call, entrance, verdict and hints', async () => {
    const v = verdict('ask');
    const s = withCard({ answer: 'once' }, v);
    const progress: unknown[] = [];
    const ctl = new AbortController();
    await s.door.call(userCall(), { onProgress: (p) => progress.push(p), signal: ctl.signal });
    assert.equal(s.fake.calls.length, 1);
    assert.deepEqual(s.sent()[0]?.policy, { ...policyRecord(v), coveredBy: 'card', answer: 'once' });
    assert.deepEqual(progress, [{ progress: 0, message: 'Waiting for your decision in the Plangate panel: read on a' }]);
    const a = s.asked[0]!;
    assert.deepEqual(a.call, userCall());
    assert.equal(a.entrance, 'call');
    assert.equal(a.verdict, v);
    assert.deepEqual(a.annotations, { destructiveHint: true });
    assert.equal(a.signal, ctl.signal);
  });

  test('Always allow records the rule it wrote; without one, no rule is recorded', async () => {
    const s = withCard({ answer: 'always', rule: 'allow-read' });
    await s.door.call(userCall());
    assert.equal(s.sent()[0]?.policy?.alwaysRule, 'allow-read');
    assert.equal(s.sent()[0]?.policy?.answer, 'always');
    const t = withCard({ answer: 'always' });
    await t.door.call(userCall());
    assert.equal('alwaysRule' in t.sent()[0]!.policy!, false);
    assert.equal(t.fake.calls.length, 1);
  });

  test("Deny sends nothing; the user's note reaches the caller, trimmed and cut at 2000 characters", async () => {
    const s = withCard({ answer: 'deny', note: '  not now  ' });
    const r = await refusal(s.door.call(userCall()));
    assert.equal(r.kind, 'declined');
    assert.equal(r.message, "The user denied the call to 'read' on server 'a': not now");
    assert.equal(s.fake.calls.length, 0);
    assert.deepEqual({ answer: s.sent()[0]?.policy?.answer, note: s.sent()[0]?.policy?.note }, { answer: 'deny', note: '  not now  ' });
    assert.equal(s.ended()[0]?.outcome, 'refused');

    const long = 'n'.repeat(2500);
    const t = withCard({ answer: 'deny', note: long });
    const lr = await refusal(t.door.call(userCall()));
    assert.equal(lr.message, `The user denied the call to 'read' on server 'a': ${'n'.repeat(2000)}`);
    assert.equal(t.sent()[0]?.policy?.note, 'n'.repeat(2000));

    for (const note of [undefined, '   ']) {
      const u = withCard({ answer: 'deny', ...(note !== undefined ? { note } : {}) });
      assert.equal((await refusal(u.door.call(userCall()))).message, "The user denied the call to 'read' on server 'a'.");
      assert.equal('note' in u.sent()[0]!.policy!, note !== undefined, 'a blank note is kept as written, an absent one not at all');
    }
  });

  test('a cancelled card, a card that throws, an aborted caller and a missing card all decline without sending', async () => {
    const words = "The call to 'read' on server 'a' was cancelled while it waited for a decision.";
    const cancelled = withCard({ answer: 'cancelled' });
    const thrown = withCard(async () => {
      throw new Error('panel gone');
    });
    const aborted = withCard({ answer: 'once' });
    const noCard = setup({ policy: () => verdict('ask') });
    const ctl = new AbortController();
    ctl.abort();
    for (const [s, options] of [
      [cancelled, undefined],
      [thrown, undefined],
      [aborted, { signal: ctl.signal }],
      [noCard, undefined],
    ] as const) {
      const r = await refusal(s.door.call(userCall(), options));
      assert.equal(r.kind, 'declined');
      assert.equal(r.message, words);
      assert.equal(s.fake.calls.length, 0);
      assert.equal(s.sent()[0]?.policy?.answer, 'cancelled');
      assert.equal(s.sent()[0]?.policy?.coveredBy, 'card');
    }
    assert.equal(aborted.asked.length, 0, 'an aborted caller never opens the card');
  });

  test('a tool its server no longer lists reaches the card without hints', async () => {
    const asked: CallAsk[] = [];
    const s = setup({
      policy: () => verdict('ask'),
      toolInfo: () => undefined,
      ask: async (a) => {
        asked.push(a);
        return { answer: 'once' };
      },
    });
    await s.door.call(userCall());
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.annotations, undefined);
  });

  test('a card served later through the broker is the one asked; before that the call is cancelled, not sent', async () => {
    const cards = new Broker<(ask: CallAsk) => Promise<CallAskAnswer>>(async () => ({ answer: 'cancelled' }));
    const s = setup({ policy: () => verdict('ask'), ask: cards.ask });
    await assert.rejects(s.door.call(userCall()), /cancelled while it waited/);
    assert.equal(s.fake.calls.length, 0);
    let asked = 0;
    cards.serve(async () => {
      asked++;
      return { answer: 'once' };
    });
    await s.door.call(userCall());
    assert.equal(asked, 1);
    assert.equal(s.fake.calls.length, 1);
  });

  test("a collect Submit or a re-plan's button covers Plangate's default and the tool's declaration, not a user's or workspace rule", async () => {
    for (const entrance of ['collect', 'replan'] as const)
      for (const source of ['default', 'tool'] as const) {
        const s = withCard({ answer: 'deny' }, verdict('ask', source));
        await s.door.call(userCall('read', entrance));
        assert.equal(s.asked.length, 0, `${entrance}/${source}`);
        assert.equal(s.sent()[0]?.policy?.coveredBy, 'button');
        assert.equal(s.fake.calls.length, 1);
      }
    for (const source of ['user', 'workspace'] as const) {
      const s = withCard({ answer: 'once' }, verdict('ask', source));
      await s.door.call(userCall('read', 'collect'));
      assert.equal(s.asked.length, 1, source);
    }
    for (const entrance of ['call', 'agent', 'app'] as const) {
      const s = withCard({ answer: 'once' }, verdict('ask', 'default'));
      await s.door.call(userCall('read', entrance));
      assert.equal(s.asked.length, 1, `${entrance}: the generic form, the agent and an app are asked`);
    }
    const agent = withCard({ answer: 'once' }, verdict('ask', 'default'));
    await agent.door.call({ ...userCall('read', 'collect'), decision: { by: 'agent', what: 'x' } });
    assert.equal(agent.asked.length, 1, "only the user's own button covers");
  });

  test('an allow or deny never opens the card; a deny outside a plan is refused with the verdict', async () => {
    const allow = withCard({ answer: 'deny' }, verdict('allow'));
    await allow.door.call(userCall());
    assert.equal(allow.asked.length, 0);
    assert.deepEqual(allow.sent()[0]?.policy, policyRecord(verdict('allow')));
    const deny = withCard({ answer: 'once' }, verdict('deny'));
    for (const decision of [
      { by: 'user', what: 'x' },
      { by: 'agent', what: 'x' },
      { by: 'app', what: 'x' },
    ] as const) {
      const r = await refusal(deny.door.call({ ...userCall(), decision }));
      assert.equal(r.kind, 'denied');
    }
    assert.equal(deny.asked.length, 0);
    assert.equal(deny.fake.calls.length, 0);
  });
});

describe("door: a call's record and outcome", () => {
  test('callSent comes before the call with its arguments and hash, callEnded after with the outcome and duration; onCall hears both', async () => {
    const s = setup();
    let sentBefore = -1;
    s.fake.setReply(async () => {
      sentBefore = s.sent().length;
      return { content: [] };
    });
    await s.door.call(userCall('read', 'call', { b: 2, a: 1 }));
    assert.equal(sentBefore, 1, 'recorded before it was sent');
    const sent = s.sent()[0]!;
    assert.deepEqual(sent.args, { b: 2, a: 1 });
    assert.equal(sent.argsHash, sha256Hex(canonicalJson({ a: 1, b: 2 })));
    assert.equal('planId' in sent, false);
    assert.equal('step' in sent, false);
    const ended = s.ended()[0]!;
    assert.equal(ended.callId, sent.callId);
    assert.equal(ended.outcome, 'ok');
    assert.equal(ended.durationMs, 20, 'the clock advanced twice between start and end');
    assert.equal('detail' in ended, false);
    assert.equal(s.told.length, 2);
    assert.equal(s.told[0]?.outcome, undefined);
    assert.equal(s.told[0]?.call.callId, 'c1');
    assert.deepEqual(s.told[1]?.outcome, { kind: 'ok', detail: undefined, durationMs: 20 });
    assert.deepEqual(s.told[1]?.call, { ...userCall('read', 'call', { b: 2, a: 1 }), callId: 'c1' });
    assert.deepEqual(s.told[0]?.call, s.told[1]?.call);
  });

  test('an in-band error result is tool_error; only isError === true counts', async () => {
    const s = setup();
    s.fake.setReply(async () => ({ content: [], isError: true }));
    await s.door.call(userCall());
    s.fake.setReply(async () => ({ content: [], isError: 'yes' }) as unknown as ToolResult);
    await s.door.call(userCall());
    s.fake.setReply(async () => null as unknown as ToolResult);
    await s.door.call(userCall());
    assert.deepEqual(
      s.ended().map((e) => e.outcome),
      ['tool_error', 'ok', 'ok'],
    );
  });

  test('a call that fails is recorded as failed with its message (cut at 500 characters) and rethrown as it was', async () => {
    const s = setup();
    const boom = new Error('x'.repeat(600));
    s.fake.setReply(async () => {
      throw boom;
    });
    await assert.rejects(s.door.call(userCall()), (e) => e === boom);
    const ended = s.ended()[0]!;
    assert.equal(ended.outcome, 'failed');
    assert.equal(ended.detail, `${'x'.repeat(499)}…`);
    assert.equal(ended.detail?.length, 500);
    s.fake.setReply(async () => {
      throw 'plain text';
    });
    await assert.rejects(s.door.call(userCall()));
    assert.equal(s.ended()[1]?.detail, 'plain text');
    s.fake.setReply(async () => {
      throw new Error('y'.repeat(500));
    });
    await assert.rejects(s.door.call(userCall()));
    assert.equal(s.ended()[2]?.detail, 'y'.repeat(500), 'exactly 500 is kept whole');
    assert.equal(s.told.at(-1)?.outcome && (s.told.at(-1)!.outcome as { kind: string }).kind, 'failed');
  });

  test('arguments that are not plain JSON are not recorded, and so not sent', async () => {
    const s = setup();
    const r = await refusal(s.door.call(userCall('read', 'call', { n: 10n } as unknown as Record<string, unknown>)));
    assert.equal(r.kind, 'not_covered');
    assert.equal(
      r.message,
      "The call to 'read' on server 'a' could not be recorded in the ledger (its arguments are not plain JSON), so it was not sent.",
    );
    assert.equal(s.fake.calls.length, 0);
    assert.equal(s.told.length, 0, 'onCall hears only of a recorded call');
  });

  test("catalog() is the invoker's", async () => {
    const s = setup();
    assert.equal(await s.door.catalog(), s.fake.catalog);
  });
});

describe('door: resolving a plan', () => {
  test('each step is marked with the policy verdict where it resolved, except ask_user steps and missing tools', async () => {
    const s = setup({ policy: (c) => (c.tool === 'remote' ? verdict('deny') : verdict('allow')) });
    assert.ok(
      s.workflow.dispatch({
        type: 'planReceived',
        at: 1,
        planId: 'p1',
        origin: { server: 'a', tool: 'plan_it', args: {}, entrance: 'recovery' },
        plan: {
          kind: 'orchestrated_plan',
          version: '1',
          status: 'ok',
          instruction: 'i',
          next_actions: [
            { tool: 'write', args: { k: 1 } },
            { tool: 'remote', args: {} },
            { tool: 'ask_user', args: { question: 'q' } },
            { tool: 'nowhere', args: {} },
          ],
        },
      }),
    );
    assert.equal(await s.door.resolve('p1'), true);
    const steps = getPlan(s.workflow.state, 'p1')!.steps;
    assert.deepEqual(steps[0]?.policy, policyRecord(verdict('allow')));
    assert.deepEqual(steps[1]?.policy, policyRecord(verdict('deny')));
    assert.equal(steps[2]?.policy, undefined);
    assert.equal(steps[3]?.policy, undefined);
    assert.ok(steps[3]?.unresolved);
    assert.equal(s.policyCalls.length, 2);
    assert.deepEqual(
      s.policyCalls.map((c) => [c.server, c.tool, c.args, c.entrance]),
      [
        ['a', 'write', { k: 1 }, 'recovery'],
        ['b', 'remote', {}, 'recovery'],
      ],
    );
  });

  test('a plan not awaiting approval is not resolved again, and the policy is not asked; a plain plan comes by the plan entrance', async () => {
    const s = setup({ policy: () => verdict('allow') });
    await s.plan();
    assert.equal(s.policyCalls.length, 0, "the setup's resolvePlan has no policy");
    assert.equal(await s.door.resolve('p1'), true);
    assert.deepEqual(
      s.policyCalls.map((c) => c.entrance),
      ['plan', 'plan'],
    );
    s.approve();
    assert.equal(await s.door.resolve('p1'), false);
    assert.equal(s.policyCalls.length, 2);
  });

  test('a plan not awaiting approval, or unknown, is not resolved; without a policy no step is marked', async () => {
    const s = setup();
    await s.plan();
    assert.equal(getPlan(s.workflow.state, 'p1')!.steps[0]?.policy, undefined);
    assert.equal(getPlan(s.workflow.state, 'p1')!.steps[0]?.server, 'a');
    s.approve();
    assert.equal(await s.door.resolve('p1'), false);
    assert.equal(await s.door.resolve('nope'), false);
  });

  test('resolution honours the cross-server setting and stamps the time', async () => {
    const s = setup({ cross: false });
    assert.ok(
      s.workflow.dispatch({
        type: 'planReceived',
        at: 1,
        planId: 'p1',
        origin: { server: 'a', tool: 'plan_it', args: {}, entrance: 'manual' },
        plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'i', next_actions: [{ tool: 'remote', args: {} }] },
      }),
    );
    await s.door.resolve('p1');
    const resolved = s.sink.entries.map((e) => e.event).find((e) => e.type === 'resolved') as Extract<WorkflowEvent, { type: 'resolved' }>;
    assert.ok('missing' in resolved.steps[0]!);
    assert.equal(resolved.at, 1010);
  });

  test('a step policy with no verdict leaves the step unmarked', async () => {
    const s = setup();
    assert.ok(
      s.workflow.dispatch({
        type: 'planReceived',
        at: 1,
        planId: 'p1',
        origin: { server: 'a', tool: 'plan_it', args: {}, entrance: 'manual' },
        plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'i', next_actions: [{ tool: 'read', args: {} }] },
      }),
    );
    let asked = 0;
    await resolvePlan(s.workflow, s.fake.invoker, 'p1', {
      allowCrossServer: true,
      stepPolicy: () => {
        asked++;
        return undefined;
      },
    });
    assert.equal(asked, 1);
    const resolved = s.sink.entries.map((e) => e.event).find((e) => e.type === 'resolved') as Extract<WorkflowEvent, { type: 'resolved' }>;
    assert.deepEqual(resolved.steps, [{ server: 'a', crossServer: false, toolHash: 'hr1' }]);
  });

  test('resolvePlan without a clock uses the time of day', async () => {
    const s = setup();
    assert.ok(
      s.workflow.dispatch({
        type: 'planReceived',
        at: 1,
        planId: 'p1',
        origin: { server: 'a', tool: 'plan_it', args: {}, entrance: 'manual' },
        plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'i', next_actions: [{ tool: 'read', args: {} }] },
      }),
    );
    const before = Date.now();
    await resolvePlan(s.workflow, s.fake.invoker, 'p1', { allowCrossServer: true });
    const resolved = s.sink.entries.map((e) => e.event).find((e) => e.type === 'resolved')!;
    assert.ok(resolved.at >= before && resolved.at <= Date.now());
  });
});

describe('door: a call that runs as an MCP task', () => {
  type TaskEvent = Extract<WorkflowEvent, { type: 'callTask' | 'stepTask' }>;
  const taskEvents = (s: ReturnType<typeof setup>) =>
    s.sink.entries.map((e) => e.event).filter((e): e is TaskEvent => e.type === 'callTask' || e.type === 'stepTask');
  /** The server reports these statuses while the call runs, then answers. */
  function reporting(s: ReturnType<typeof setup>, reports: TaskReport[]) {
    s.fake.invoker.callTool = async (server, tool, args, options) => {
      s.fake.calls.push({ server, tool, args, options });
      for (const r of reports) options?.task?.onTask?.(r);
      return { content: [{ type: 'text', text: `${tool} done` }] };
    };
  }
  const long = 'm'.repeat(600);

  test("a single call's task: each change of status or message is recorded once beside the call, its message clipped; the caller hears every report", async () => {
    const s = setup();
    reporting(s, [
      { taskId: 't1', status: 'working' },
      { taskId: 't1', status: 'working' },
      { taskId: 't1', status: 'working', message: 'half way' },
      { taskId: 't1', status: 'working', message: 'half way' },
      { taskId: 't1', status: 'input_required', message: 'half way' },
      { taskId: 't1', status: 'working', message: long },
      { taskId: 't2', status: 'working', message: long },
      { taskId: 't2', status: 'completed', message: long },
    ]);
    const heard: TaskReport[] = [];
    await s.door.call(userCall(), { task: { onTask: (t) => heard.push(t) } });
    assert.equal(heard.length, 8, 'the caller hears every report, repeats too');
    const callId = s.sent()[0]!.callId;
    const clipped = `${'m'.repeat(499)}…`;
    assert.deepEqual(
      taskEvents(s).map((e) => ({ ...e, at: 0 })),
      [
        { type: 'callTask', at: 0, callId, server: 'a', taskId: 't1', status: 'working' },
        { type: 'callTask', at: 0, callId, server: 'a', taskId: 't1', status: 'working', message: 'half way' },
        { type: 'callTask', at: 0, callId, server: 'a', taskId: 't1', status: 'input_required', message: 'half way' },
        { type: 'callTask', at: 0, callId, server: 'a', taskId: 't1', status: 'working', message: clipped },
        { type: 'callTask', at: 0, callId, server: 'a', taskId: 't2', status: 'working', message: clipped },
        { type: 'callTask', at: 0, callId, server: 'a', taskId: 't2', status: 'completed', message: clipped },
      ],
    );
    assert.ok(
      taskEvents(s).every((e) => e.at > 1000),
      "each record is stamped with the door's clock",
    );
    assert.equal(s.fake.calls[0]!.options?.task?.prefer, undefined, 'a single call runs as a task only where the tool requires it');
    assert.equal(s.ended()[0]?.outcome, 'ok');
  });

  test("a message of exactly 500 characters is kept whole; the caller's own task options go through", async () => {
    const s = setup();
    reporting(s, [{ taskId: 't1', status: 'working', message: 'k'.repeat(500) }]);
    await s.door.call(userCall(), { task: { prefer: true } });
    assert.equal(taskEvents(s)[0]?.message, 'k'.repeat(500));
    assert.equal(s.fake.calls[0]!.options?.task?.prefer, true);
  });

  test("a plan step's task is recorded on the step, and a step prefers a task where the tool offers one", async () => {
    const s = setup();
    await s.plan();
    const hash = s.approve();
    s.start();
    reporting(s, [
      { taskId: 'tk', status: 'working', message: 'go' },
      { taskId: 'tk', status: 'completed' },
    ]);
    await s.door.call(step('p1', 0, hash, { path: 'x.txt', n: 1 }));
    assert.equal(s.fake.calls[0]!.options?.task?.prefer, true);
    const callId = s.sent()[0]!.callId;
    assert.deepEqual(
      taskEvents(s).map((e) => ({ ...e, at: 0 })),
      [
        { type: 'stepTask', at: 0, planId: 'p1', step: 0, callId, server: 'a', taskId: 'tk', status: 'working', message: 'go' },
        { type: 'stepTask', at: 0, planId: 'p1', step: 0, callId, server: 'a', taskId: 'tk', status: 'completed' },
      ],
    );
    assert.deepEqual(getPlan(s.workflow.state, 'p1')!.steps[0]!.task, { id: 'tk', callId, status: 'completed' });
  });

  test('a task record the workflow refuses (the step is not running) is left out; the call still ends on the record', async () => {
    const s = setup();
    await s.plan();
    const hash = s.approve();
    reporting(s, [{ taskId: 'tk', status: 'working' }]);
    const result = await s.door.call(step('p1', 0, hash, { path: 'x.txt', n: 1 }));
    assert.deepEqual(result, { content: [{ type: 'text', text: 'write done' }] });
    assert.deepEqual(taskEvents(s), []);
    assert.equal(s.ended()[0]?.outcome, 'ok');
  });

  test("resume watches the step's known task again: no new call record, the known status is not recorded twice, the original call ends", async () => {
    const s = setup();
    await s.plan();
    const hash = s.approve();
    s.start();
    reporting(s, [
      { taskId: 'tk', status: 'working', message: 'before' },
      { taskId: 'tk', status: 'completed', message: 'before' },
    ]);
    const result = await s.door.resume(step('p1', 0, hash, { path: 'x.txt', n: 1 }), {
      id: 'tk',
      callId: 'c-old',
      status: 'working',
      message: 'before',
    });
    assert.deepEqual(result, { content: [{ type: 'text', text: 'write done' }] });
    assert.deepEqual(s.sent(), [], 'nothing is sent again: no new call record');
    assert.equal(s.fake.calls[0]!.options?.task?.resume, 'tk');
    assert.deepEqual(
      taskEvents(s).map((e) => [e.callId, e.status, e.message]),
      [['c-old', 'completed', 'before']],
    );
    assert.deepEqual(
      s.ended().map((e) => [e.callId, e.outcome]),
      [['c-old', 'ok']],
    );
  });

  test("resume is only for a plan step's call", async () => {
    const s = setup();
    for (const call of [userCall(), preview('p1', 0, { path: 'x.txt', n: 1, dryRun: true })]) {
      const r = await refusal(s.door.resume(call, { id: 'tk', callId: 'c0', status: 'working' }));
      assert.equal(r.kind, 'not_covered');
      assert.equal(r.message, `Only a plan step's task is watched again after a reload, not a call by '${call.decision.by}'.`);
    }
    assert.equal(s.fake.calls.length, 0);
  });

  test('resume asks the policy again whether the result is reviewed: withheld, the step gets the refusal, not the result', async () => {
    const reviewRule = rule('allow', 'user', 'review-write');
    const reviewed: string[] = [];
    const s = setup({
      policy: () => verdict('allow', 'user', { review: reviewRule }),
      review: async (r) => {
        reviewed.push(`${r.call.tool}:${r.rule.id}:${r.entrance}`);
        return 'withhold';
      },
    });
    await s.plan();
    const hash = s.approve();
    s.start();
    reporting(s, [{ taskId: 'tk', status: 'completed' }]);
    const result = await s.door.resume(step('p1', 0, hash, { path: 'x.txt', n: 1 }), { id: 'tk', callId: 'c-old', status: 'working' });
    assert.deepEqual(reviewed, ['write:review-write:plan']);
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /withheld/);
    assert.deepEqual(s.ended()[0]?.review, { rule: 'review-write', answer: 'withheld', by: 'user' });
  });
});

describe('door: the lengths of an allow on the card', () => {
  test('Allow for this session and in this workspace record the approval they made; without one, none', async () => {
    for (const answer of ['session', 'workspace'] as const) {
      const s = setup({ policy: () => verdict('ask'), ask: async () => ({ answer, rule: `appr-${answer}` }) });
      await s.door.call(userCall());
      assert.deepEqual(s.sent()[0]?.policy, { ...policyRecord(verdict('ask')), coveredBy: 'card', answer, approvalRule: `appr-${answer}` });
      assert.equal(s.fake.calls.length, 1);
      const t = setup({ policy: () => verdict('ask'), ask: async () => ({ answer }) });
      await t.door.call(userCall());
      assert.equal('approvalRule' in t.sent()[0]!.policy!, false);
      assert.equal('alwaysRule' in t.sent()[0]!.policy!, false);
    }
    const always = setup({ policy: () => verdict('ask'), ask: async () => ({ answer: 'always', rule: 'r-always' }) });
    await always.door.call(userCall());
    assert.equal('approvalRule' in always.sent()[0]!.policy!, false, 'Always allow writes a rule, not an approval');
  });
});
