// Two rule fields (src/core/policy): `review: "result"` (the result is shown to the user before the caller reads it)
// and `hook` (a user rule hands its ask to a decision hook). Parsed with problems named, decided by evaluate.ts, and
// the hook runner (src/node/decisionHookRunner.ts) against real child processes: a hook that allows, one that denies
// with a reason, one that hangs (ask after its limit), one that prints garbage (ask), one that exits non-zero (ask).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate, type PolicyCall } from '../../src/core/policy/evaluate';
import { lintPolicy } from '../../src/core/policy/lint';
import { parsePolicyText, parsePolicyValue } from '../../src/core/policy/parse';
import { hookReason, readHookOutput, type HookRequest } from '../../src/core/policy/decisionHook';
import type { PolicyRule, PolicyRules, SourcedRule } from '../../src/core/policy/rules';
import { runDecisionHook } from '../../src/node/decisionHookRunner';

const user = (...rules: PolicyRule[]): SourcedRule[] => rules.map((r, index) => ({ ...r, source: 'user', index }));
const ws = (...rules: PolicyRule[]): SourcedRule[] => rules.map((r, index) => ({ ...r, source: 'workspace', index }));
const rules = (u: SourcedRule[], w: SourcedRule[] = []): PolicyRules => ({ user: u, workspace: w });
const call = (over: Partial<PolicyCall> = {}): PolicyCall => ({ server: 'web', tool: 'fetch', args: {}, entrance: 'agent', ...over });
const OPEN_WORLD = { openWorldHint: true, readOnlyHint: true };

describe('rule field: review', () => {
  test('parsed from settings and the workspace file; anything but "result" is an error naming the field', () => {
    const ok = parsePolicyValue({ rules: [{ id: 'r', decision: 'allow', reason: 'web pages', review: 'result' }] }, 'user');
    assert.equal(ok.rules[0]?.review, 'result');
    assert.deepEqual(ok.problems, []);
    const bad = parsePolicyValue({ rules: [{ id: 'r', decision: 'allow', reason: 'x', review: 'yes' }] }, 'user');
    assert.equal(bad.rules.length, 0);
    assert.match(bad.problems[0]!.message, /"review" must be "result"/);
    assert.deepEqual(bad.problems[0]!.path, ['rules', 0, 'review']);
    const file = parsePolicyText('{ "rules": [ { "id": "w", "decision": "ask", "reason": "x", "review": "result" } ] }');
    assert.equal(file.rules[0]?.review, 'result');
  });

  test('a matching rule that does not deny asks for the review, whichever rule decides; a deny reviews nothing', () => {
    const reviewOpenWorld: PolicyRule = {
      id: 'review-web',
      decision: 'allow',
      reason: 'pages can carry instructions',
      annotations: { openWorld: true },
      review: 'result',
    };
    const v = evaluate(rules(user(reviewOpenWorld)), call({ annotations: OPEN_WORLD }));
    assert.equal(v.decision, 'allow');
    assert.equal(v.review?.id, 'review-web');
    // Another rule decides (ask), the review still applies; a workspace rule can add a review (it only tightens).
    const asked = evaluate(
      rules(user({ id: 'ask-web', decision: 'ask', reason: 'x', server: 'web' }), ws(reviewOpenWorld)),
      call({ annotations: OPEN_WORLD }),
    );
    assert.equal(asked.rule.id, 'ask-web');
    assert.equal(asked.review?.id, 'review-web');
    assert.equal(evaluate(rules(user(reviewOpenWorld)), call({ annotations: { readOnlyHint: true } })).review, undefined, 'not matched');
    const denied = evaluate(rules(user(reviewOpenWorld, { id: 'no', decision: 'deny', reason: 'x' })), call({ annotations: OPEN_WORLD }));
    assert.equal(denied.decision, 'deny');
    assert.equal(denied.review, undefined);
    assert.equal(evaluate(rules([]), call()).review, undefined, 'default off');
  });

  test('lint: a deny rule that reviews is named; a reviewing rule is not reported as one that can never decide', () => {
    const r = rules(
      user(
        { id: 'all', decision: 'ask', reason: 'x' },
        { id: 'rev', decision: 'ask', reason: 'x', server: 'web', review: 'result' },
        { id: 'deny-rev', decision: 'deny', reason: 'x', tool: 'del', review: 'result' },
      ),
    );
    const problems = lintPolicy(r, 'user');
    assert.ok(problems.some((p) => p.ruleId === 'deny-rev' && /never reviews a result/.test(p.message)));
    assert.ok(!problems.some((p) => p.ruleId === 'rev'), JSON.stringify(problems));
  });
});

describe('rule field: hook', () => {
  const hooked: PolicyRule = { id: 'ask-hook', decision: 'ask', reason: 'my hook decides', server: 'web', hook: 'guard' };

  test('parsed on user ask rules; a workspace rule cannot name one (warned, the rule asks); not on allow or deny', () => {
    assert.equal(parsePolicyValue({ rules: [hooked] }, 'user').rules[0]?.hook, 'guard');
    const inFile = parsePolicyValue({ rules: [hooked] }, 'workspace');
    assert.equal(inFile.rules[0]?.hook, undefined);
    assert.equal(inFile.rules[0]?.decision, 'ask');
    assert.match(inFile.problems[0]!.message, /user settings \(plangate\.policy\) only/);
    const allow = parsePolicyValue({ rules: [{ ...hooked, decision: 'allow' }] }, 'user');
    assert.equal(allow.rules.length, 0);
    assert.match(allow.problems[0]!.message, /must decide "ask"/);
    assert.match(parsePolicyValue({ rules: [{ ...hooked, hook: '' }] }, 'user').problems[0]!.message, /"hook" must be the name/);
  });

  test("the hook's answer stands in for the rule's ask, and cannot lift another ask, a deny or the tool's declaration", () => {
    const r = rules(user(hooked));
    const before = evaluate(r, call());
    assert.equal(before.decision, 'ask');
    assert.equal(before.rule.hook, 'guard', 'the verdict names the hook to ask');
    assert.equal(evaluate(r, call({ hookAnswers: { 'ask-hook': 'allow' } })).decision, 'allow');
    assert.equal(evaluate(r, call({ hookAnswers: { 'ask-hook': 'deny' } })).decision, 'deny');
    assert.equal(evaluate(r, call({ hookAnswers: { 'ask-hook': 'ask' } })).decision, 'ask');
    const other = rules(user(hooked, { id: 'also-ask', decision: 'ask', reason: 'x', tool: 'fetch' }));
    const v = evaluate(other, call({ hookAnswers: { 'ask-hook': 'allow' } }));
    assert.deepEqual([v.decision, v.rule.id], ['ask', 'also-ask']);
    assert.equal(evaluate(r, call({ meta: { approval: 'ask' }, hookAnswers: { 'ask-hook': 'allow' } })).decision, 'ask');
    assert.equal(
      evaluate(rules(user(hooked), ws({ id: 'w', decision: 'deny', reason: 'x' })), call({ hookAnswers: { 'ask-hook': 'allow' } }))
        .decision,
      'deny',
    );
  });

  test("what a hook prints: Plangate's shape, Claude Code's PreToolUse shape; anything else asks, saying why", () => {
    assert.deepEqual(readHookOutput('{"decision":"deny","reason":"no secrets"}'), { decision: 'deny', reason: 'no secrets' });
    assert.deepEqual(readHookOutput(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } })), {
      decision: 'allow',
    });
    for (const garbage of ['', 'yes', '{"decision":"maybe"}', '[]', '{"decision":"allow","reason":5}']) {
      const a = readHookOutput(garbage);
      assert.equal(a.decision, 'ask', garbage);
      assert.ok(a.failure, garbage);
    }
    assert.match(hookReason('guard', { decision: 'ask', failure: 'it printed nothing' }, 'r'), /did not answer \(it printed nothing\)/);
  });
});

describe('the hook runner: real child processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-hooks-'));
  const script = (name: string, body: string) => {
    const file = join(dir, name);
    writeFileSync(file, body);
    return { command: process.execPath, args: [file] };
  };
  const request: HookRequest = {
    hook: 'guard',
    rule: 'ask-hook',
    server: 'web',
    tool: 'fetch',
    args: { url: 'https://example.com/' },
    entrance: 'agent',
  };
  const readsStdin = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{`;

  test('a hook that allows, having read the call as JSON on stdin', async (t) => {
    t.after(() => rmSync(join(dir, 'seen.json'), { force: true }));
    const seen = join(dir, 'seen.json');
    const hook = script(
      'allow.js',
      `${readsStdin}require('fs').writeFileSync(${JSON.stringify(seen)}, s); console.log(JSON.stringify({decision:'allow',reason:'known site'}))})`,
    );
    const answer = await runDecisionHook({ ...hook, timeoutMs: 10_000 }, request);
    assert.deepEqual(answer, { decision: 'allow', reason: 'known site' });
    const input = JSON.parse(readFileSync(seen, 'utf8')) as Record<string, unknown>;
    assert.equal(input.hook_event_name, 'PreToolUse');
    assert.equal(input.server, 'web');
    assert.equal(input.tool, 'fetch');
    assert.deepEqual(input.arguments, { url: 'https://example.com/' });
    assert.equal(input.entrance, 'agent');
  });

  test('a hook that denies with a reason (Claude Code shape)', async () => {
    const hook = script(
      'deny.js',
      `${readsStdin}const c=JSON.parse(s);console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'deny',permissionDecisionReason:'no fetching '+c.arguments.url}}))})`,
    );
    assert.deepEqual(await runDecisionHook({ ...hook, timeoutMs: 10_000 }, request), {
      decision: 'deny',
      reason: 'no fetching https://example.com/',
    });
  });

  test('a hook that hangs: ask after its limit, and it is killed', async () => {
    const hook = script('hang.js', `setInterval(() => {}, 1000);`);
    const started = Date.now();
    const answer = await runDecisionHook({ ...hook, timeoutMs: 700 }, request);
    assert.equal(answer.decision, 'ask');
    assert.match(answer.failure ?? '', /did not answer within 0\.7 s/);
    assert.ok(Date.now() - started >= 650 && Date.now() - started < 5000);
  });

  test('a hook that prints garbage, one that exits non-zero, one that cannot start: ask, saying why', async () => {
    const garbage = await runDecisionHook({ ...script('garbage.js', `console.log('sure, go ahead')`), timeoutMs: 10_000 }, request);
    assert.equal(garbage.decision, 'ask');
    assert.match(garbage.failure ?? '', /not JSON/);
    const exits = await runDecisionHook(
      { ...script('exit.js', `console.log('{"decision":"allow"}'); process.exit(3)`), timeoutMs: 10_000 },
      request,
    );
    assert.deepEqual(exits, { decision: 'ask', failure: 'it exited with code 3' });
    const missing = await runDecisionHook({ command: join(dir, 'no-such-hook'), timeoutMs: 10_000 }, request);
    assert.equal(missing.decision, 'ask');
    assert.match(missing.failure ?? '', /could not be started/);
  });

  test('no shell: shell syntax in the arguments is passed as text', async () => {
    const hook = script('argv.js', `console.log(JSON.stringify({decision:'deny',reason:process.argv[2]}))`);
    const answer = await runDecisionHook({ ...hook, args: [...hook.args, '$(echo hi); `id`'], timeoutMs: 10_000 }, request);
    assert.equal(answer.reason, '$(echo hi); `id`');
  });

  test("a command named by a relative path is not run (it would resolve in the folder's working directory): ask", async () => {
    const answer = await runDecisionHook({ command: './hook.sh', timeoutMs: 10_000 }, request);
    assert.equal(answer.decision, 'ask');
    assert.match(answer.failure ?? '', /relative path/);
  });

  test.after(() => rmSync(dir, { recursive: true, force: true }));
});
