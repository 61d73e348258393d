// The policy's pieces one rule at a time (fast enough for `npm run mutate`, which runs this file once per mutant of
// src/core/policy/{evaluate,pattern,nameGlob,workspacePath,parse}.ts): which rule names a verdict and with which words,
// how a name glob and a pattern read each character, which path is inside, where on disk a link leads, and what each
// broken field of a policy is told. policy.test.ts covers the same ground by feature; this file pins the edges.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_ALLOW_ID,
  DEFAULT_APP_ID,
  DEFAULT_DESTRUCTIVE_ID,
  DEFAULT_SAMPLING_ID,
  evaluate,
  jsonPathValues,
  MAX_NAME_LENGTH,
  nameMatches,
  parseJsonPath,
  ruleMatches,
  toolAsks,
  TOOL_APPROVAL_ID,
  type PolicyCall,
} from '../../src/core/policy/evaluate';
import { compileNameGlob } from '../../src/core/policy/nameGlob';
import { compilePattern } from '../../src/core/policy/pattern';
import { resolveArgPath, type RealPath } from '../../src/core/policy/workspacePath';
import { lineStarts, locate, MAX_RULES, parsePolicyText, parsePolicyValue, rangeOf } from '../../src/core/policy/parse';
import type { PolicyDecision, PolicyRule, PolicyRules, SourcedRule } from '../../src/core/policy/rules';

const ROOT = '/w';
const src = (source: SourcedRule['source'], ...rules: PolicyRule[]): SourcedRule[] => rules.map((r, index) => ({ ...r, source, index }));
const rules = (user: SourcedRule[], workspace: SourcedRule[] = []): PolicyRules => ({ user, workspace });
const call = (over: Partial<PolicyCall> = {}): PolicyCall => ({ server: 'fs', tool: 'write', args: {}, entrance: 'agent', ...over });
const rule = (id: string, decision: PolicyDecision, over: Partial<PolicyRule> = {}): PolicyRule => ({
  id,
  decision,
  reason: `r ${id}`,
  ...over,
});
const holds = (r: PolicyRule, c: Partial<PolicyCall>, context: Parameters<typeof ruleMatches>[2] = { workspaceRoot: ROOT }) =>
  ruleMatches({ ...r, source: 'user', index: 0 }, call(c), context);

describe('evaluate: which rule decides, and in which words', () => {
  test("Plangate's defaults: their ids, sources and reasons", () => {
    assert.deepEqual(evaluate(rules([]), call({ annotations: { readOnlyHint: true } })), {
      decision: 'allow',
      rule: { id: DEFAULT_ALLOW_ID, source: 'default', decision: 'allow', reason: 'no rule asks about or denies it' },
      matched: [],
    });
    assert.equal(DEFAULT_ALLOW_ID, 'plangate:default');
    assert.deepEqual(evaluate(rules([]), call({ entrance: 'app', server: 'srv' })).rule, {
      id: DEFAULT_APP_ID,
      source: 'default',
      decision: 'ask',
      reason: "the app of server 'srv' asked for this call, and calls an app makes are asked by default",
    });
    assert.equal(DEFAULT_APP_ID, 'plangate:app');
    assert.deepEqual(evaluate(rules([]), call({ tool: 'rm', annotations: { destructiveHint: true } })).rule, {
      id: DEFAULT_DESTRUCTIVE_ID,
      source: 'default',
      decision: 'ask',
      reason: "tool 'rm' says it may destroy data (destructiveHint), and destructive tools are asked by default",
    });
    assert.equal(DEFAULT_DESTRUCTIVE_ID, 'plangate:destructive');
    assert.deepEqual(evaluate(rules([]), call({ tool: 'pub', meta: { approval: 'ask' } })).rule, {
      id: TOOL_APPROVAL_ID,
      source: 'tool',
      decision: 'ask',
      reason: `tool 'pub' declares in its definition that it must be asked about (_meta.approval: "ask")`,
    });
    assert.equal(TOOL_APPROVAL_ID, 'tool:approval');
  });

  test("toolAsks: only an object's approval of exactly 'ask'", () => {
    assert.equal(toolAsks({ approval: 'ask' }), true);
    for (const m of [undefined, null, 0, 'ask', ['ask'], Object.assign(['x'], { approval: 'ask' }), { approval: 'Ask' }, {}])
      assert.equal(toolAsks(m), false, JSON.stringify(m));
  });

  test("a rule's own ask names the rule even on a tool that declares ask; an allow does not lift the declaration", () => {
    const meta = { approval: 'ask' };
    assert.equal(evaluate(rules(src('user', rule('mine', 'ask'))), call({ meta })).rule.id, 'mine');
    assert.equal(evaluate(rules(src('user', rule('ok', 'allow'))), call({ meta })).rule.id, TOOL_APPROVAL_ID);
    assert.equal(evaluate(rules(src('user', rule('no', 'deny'))), call({ meta })).rule.id, 'no');
  });

  test('a matching rule beats the app and destructive defaults, in both directions', () => {
    const v = evaluate(rules(src('user', rule('ok', 'allow'))), call({ entrance: 'app', annotations: { destructiveHint: true } }));
    assert.equal(v.decision, 'allow');
    assert.equal(v.rule.id, 'ok');
  });

  test('among rules of one decision the first names the verdict; a later stronger one wins', () => {
    const v = evaluate(rules(src('user', rule('a1', 'allow'), rule('a2', 'allow'), rule('k1', 'ask'), rule('k2', 'ask'))), call());
    assert.equal(v.rule.id, 'k1');
    assert.deepEqual(
      v.matched.map((m) => m.id),
      ['a1', 'a2', 'k1', 'k2'],
    );
    assert.equal(evaluate(rules(src('user', rule('a1', 'allow'), rule('a2', 'allow'))), call()).rule.id, 'a1');
    assert.deepEqual(evaluate(rules(src('user', rule('a1', 'allow'))), call()).rule, {
      id: 'a1',
      source: 'user',
      decision: 'allow',
      reason: 'r a1',
    });
  });

  test('a workspace rule that would loosen is named and not honoured; one that agrees or tightens is honoured', () => {
    const destructive = call({ annotations: { destructiveHint: true } });
    const loose = evaluate(rules([], src('workspace', rule('w-ask', 'ask', { tool: 'other' }), rule('w-ok', 'allow'))), destructive);
    assert.equal(loose.decision, 'ask');
    assert.equal(loose.rule.id, DEFAULT_DESTRUCTIVE_ID);
    assert.equal(loose.notHonoured?.id, 'w-ok');
    assert.deepEqual(
      loose.matched.map((m) => m.id),
      ['w-ok'],
    );
    const userAsk = evaluate(rules(src('user', rule('u-ask', 'ask')), src('workspace', rule('w-ok', 'allow'))), call());
    assert.equal(userAsk.rule.id, 'u-ask');
    assert.equal(userAsk.notHonoured, undefined, "the user's own ask outranks the workspace's allow: nothing was loosened");
    const declared = evaluate(rules([], src('workspace', rule('w-ok', 'allow'))), call({ meta: { approval: 'ask' } }));
    assert.equal(declared.rule.id, TOOL_APPROVAL_ID);
    assert.equal(declared.notHonoured, undefined, 'an allow never lifts the declaration, so nothing was loosened');
    const same = evaluate(rules(src('user', rule('u-ok', 'allow')), src('workspace', rule('w-ok', 'allow'))), call());
    assert.equal(same.rule.id, 'u-ok');
    assert.equal(same.notHonoured, undefined);
    assert.equal('notHonoured' in same, false);
    const tighter = evaluate(rules(src('user', rule('u-ok', 'allow')), src('workspace', rule('w-no', 'deny'))), call());
    assert.equal(tighter.rule.id, 'w-no');
    assert.equal(tighter.decision, 'deny');
    assert.equal(tighter.notHonoured, undefined);
  });

  test('realPath is asked once per place in one verdict, its failure too, and again for the next verdict', () => {
    const asked: string[] = [];
    const realPath: RealPath = (p) => {
      asked.push(p);
      if (p.includes('bad')) throw new Error('EACCES');
      return p;
    };
    const r = src(
      'user',
      rule('a', 'deny', { args: [{ path: '$.p', glob: 'nothing/**' }] }),
      rule('b', 'deny', { args: [{ path: '$.q', outsideWorkspace: false }] }),
      rule('c', 'ask', { args: [{ path: '$.p', outsideWorkspace: true }] }),
    );
    const v = evaluate(rules(r), call({ args: { p: 'x/a', q: 'bad/y' } }), { workspaceRoot: ROOT, realPath });
    assert.deepEqual(
      v.matched.map((m) => m.id),
      [],
      'x/a is inside and not under nothing/; bad/y cannot be told, so it is outside',
    );
    assert.equal(new Set(asked).size, asked.length, `each place once: ${asked.join(', ')}`);
    assert.ok(asked.includes('/w') && asked.includes('/w/x/a') && asked.includes('/w/bad/y'));
    const n = asked.length;
    evaluate(rules(r), call({ args: { p: 'x/a', q: 'bad/y' } }), { workspaceRoot: ROOT, realPath });
    assert.equal(asked.length, 2 * n, 'a new verdict asks the disk again');
  });

  test("a server's sampling request is asked by default, in its own words; a rule still decides it", () => {
    assert.deepEqual(evaluate(rules([]), call({ entrance: 'sampling', server: 'srv' })), {
      decision: 'ask',
      rule: {
        id: DEFAULT_SAMPLING_ID,
        source: 'default',
        decision: 'ask',
        reason: "server 'srv' asks to run a language model for it (sampling), and sampling requests are asked by default",
      },
      matched: [],
    });
    assert.equal(DEFAULT_SAMPLING_ID, 'plangate:sampling');
    const allowed = evaluate(rules(src('user', rule('ok', 'allow', { entrance: ['sampling'] }))), call({ entrance: 'sampling' }));
    assert.equal(allowed.decision, 'allow');
    assert.equal(allowed.rule.id, 'ok');
  });

  test('review: the first matching rule that does not deny asks for it, user or workspace; a deny verdict never carries one', () => {
    const reviewing = (id: string, decision: PolicyDecision, over: Partial<PolicyRule> = {}) =>
      rule(id, decision, { review: 'result', ...over });
    assert.equal('review' in evaluate(rules(src('user', rule('a', 'allow'))), call()), false, 'no rule asks for a review');
    const v = evaluate(rules(src('user', rule('a', 'allow'), reviewing('b', 'allow'), reviewing('c', 'ask'))), call());
    assert.equal(v.decision, 'ask');
    assert.equal(v.rule.id, 'c');
    assert.deepEqual(
      v.review,
      { id: 'b', source: 'user', decision: 'allow', reason: 'r b' },
      'the first that asks for it, not the first rule',
    );
    assert.equal(
      'review' in evaluate(rules(src('user', reviewing('x', 'allow', { tool: 'other' }))), call()),
      false,
      'only a matching rule',
    );
    assert.equal(evaluate(rules([], src('workspace', reviewing('w', 'ask'))), call()).review?.id, 'w');
    const denied = evaluate(rules(src('user', reviewing('b', 'allow'), rule('no', 'deny'))), call());
    assert.equal(denied.decision, 'deny');
    assert.equal('review' in denied, false, 'a refused call has no result to review');
    assert.equal('review' in evaluate(rules(src('user', reviewing('no', 'deny'))), call()), false);
    // A workspace allow that is not honoured still asks for the review: a review only tightens.
    const loose = evaluate(rules([], src('workspace', reviewing('w-ok', 'allow'))), call({ annotations: { destructiveHint: true } }));
    assert.equal(loose.decision, 'ask');
    assert.equal(loose.notHonoured?.id, 'w-ok');
    assert.equal(loose.review?.id, 'w-ok');
  });

  test("a hook's answer decides in place of its rule's ask; an answer for a rule that names no hook, or no answer of the three, changes nothing", () => {
    const hooked = rules(src('user', rule('h', 'ask', { hook: 'check' })));
    for (const answer of ['allow', 'deny'] as const) {
      const v = evaluate(hooked, call({ hookAnswers: { h: answer } }));
      assert.equal(v.decision, answer);
      assert.deepEqual(v.rule, { id: 'h', source: 'user', decision: answer, reason: 'r h', hook: 'check' });
      assert.deepEqual(v.matched, [v.rule]);
    }
    assert.equal(evaluate(hooked, call()).decision, 'ask', 'the hook has not answered: the rule asks');
    assert.equal(evaluate(hooked, call({ hookAnswers: { other: 'allow' } })).decision, 'ask');
    assert.equal(evaluate(hooked, call({ hookAnswers: { h: 'yes' as PolicyDecision } })).decision, 'ask');
    const unhooked = evaluate(rules(src('user', rule('h', 'ask'))), call({ hookAnswers: { h: 'allow' } }));
    assert.equal(unhooked.decision, 'ask', 'a rule without a hook decides itself');
  });

  test("standing approvals weigh as the user's own rules, after them, and only where they match", () => {
    const approval = (id: string, over: Partial<PolicyRule> = {}): SourcedRule => ({
      ...rule(id, 'allow', over),
      source: 'session',
      index: 0,
    });
    const destructive = call({ tool: 'rm', annotations: { destructiveHint: true } });
    const v = evaluate({ user: [], workspace: [], approvals: [approval('ap', { tool: 'rm' })] }, destructive);
    assert.equal(v.decision, 'allow', "the user's own word lifts Plangate's default");
    assert.deepEqual(v.rule, { id: 'ap', source: 'session', decision: 'allow', reason: 'r ap' });
    assert.equal(v.notHonoured, undefined);
    const elsewhere = evaluate({ user: [], workspace: [], approvals: [approval('ap', { tool: 'write' })] }, destructive);
    assert.equal(elsewhere.rule.id, DEFAULT_DESTRUCTIVE_ID);
    assert.deepEqual(elsewhere.matched, []);
    const after = evaluate({ user: src('user', rule('u', 'allow')), workspace: [], approvals: [approval('ap')] }, call());
    assert.equal(after.rule.id, 'u');
    assert.deepEqual(
      after.matched.map((m) => m.id),
      ['u', 'ap'],
    );
    const withWorkspace = evaluate(
      { user: [], workspace: src('workspace', rule('w-ok', 'allow')), approvals: [approval('ap')] },
      destructive,
    );
    assert.equal(withWorkspace.rule.id, 'ap');
    assert.equal(withWorkspace.notHonoured, undefined, 'with the approval the workspace loosens nothing');
  });

  test('without realPath, paths are read as written (nothing is taken for a disk that cannot tell)', () => {
    const r = rules(src('user', rule('out', 'deny', { args: [{ path: '$.p', outsideWorkspace: true }] })));
    assert.equal(evaluate(r, call({ args: { p: 'src/a' } }), { workspaceRoot: ROOT }).decision, 'allow');
    assert.equal(evaluate(r, call({ args: { p: '../a' } }), { workspaceRoot: ROOT }).decision, 'deny');
  });

  test('a disk that fails is asked once per place in one verdict, as one that answers', () => {
    const asked: string[] = [];
    const realPath: RealPath = (p) => {
      asked.push(p);
      throw new Error('EIO');
    };
    const r = src(
      'user',
      rule('out', 'ask', {
        args: [
          { path: '$.p', outsideWorkspace: true },
          { path: '$.q', outsideWorkspace: true },
        ],
      }),
    );
    const v = evaluate(rules(r), call({ args: { p: 'a', q: 'b' } }), { workspaceRoot: ROOT, realPath });
    assert.equal(v.decision, 'ask', 'where the disk cannot tell, the path is outside');
    assert.deepEqual(
      asked.filter((p) => p === '/w'),
      ['/w'],
      `the folder once: ${asked.join(', ')}`,
    );
  });
});

describe('ruleMatches: each condition', () => {
  test('entrance and sandboxed', () => {
    assert.equal(holds(rule('r', 'deny', { entrance: ['plan'] }), { entrance: 'plan' }), true);
    assert.equal(holds(rule('r', 'deny', { entrance: ['plan'] }), { entrance: 'recovery' }), false);
    assert.equal(holds(rule('r', 'deny', { sandboxed: true }), { sandboxed: true }), true);
    assert.equal(holds(rule('r', 'deny', { sandboxed: true }), {}), false);
    assert.equal(holds(rule('r', 'deny', { sandboxed: false }), {}), true);
    assert.equal(holds(rule('r', 'deny', { sandboxed: false }), { sandboxed: true }), false);
    assert.equal(holds(rule('r', 'deny'), { sandboxed: true }), true);
  });
  test("serverKey: the server's identity must be the rule's; where it is not known a deny or ask rule holds, an allow does not", () => {
    for (const d of ['deny', 'ask', 'allow'] as const) {
      assert.equal(holds(rule('r', d, { serverKey: 'fs#1' }), { serverKey: 'fs#1' }), true, d);
      assert.equal(holds(rule('r', d, { serverKey: 'fs#1' }), { serverKey: 'fs#2' }), false, d);
    }
    assert.equal(holds(rule('r', 'deny', { serverKey: 'fs#1' }), {}), true);
    assert.equal(holds(rule('r', 'ask', { serverKey: 'fs#1' }), {}), true);
    assert.equal(holds(rule('r', 'allow', { serverKey: 'fs#1' }), {}), false);
    assert.equal(holds(rule('r', 'allow'), { serverKey: 'fs#2' }), true, 'a rule without one holds for any identity');
  });

  test('server and tool: each must match; an unusable glob holds for deny and ask, not allow', () => {
    assert.equal(holds(rule('r', 'deny', { server: 'fs', tool: 'write' }), {}), true);
    assert.equal(holds(rule('r', 'deny', { server: 'gh' }), {}), false);
    assert.equal(holds(rule('r', 'deny', { tool: 'read' }), {}), false);
    for (const d of ['deny', 'ask'] as const) {
      assert.equal(holds(rule('r', d, { tool: '@(a|b)' }), {}), true, d);
      assert.equal(holds(rule('r', d, { server: '[z-a]' }), {}), true, d);
    }
    assert.equal(holds(rule('r', 'allow', { tool: '@(a|b)' }), {}), false);
    assert.equal(holds(rule('r', 'allow', { server: '[z-a]' }), {}), false);
  });

  test('a name over the length limit is not read: it holds for deny and ask, not allow; at the limit it is read', () => {
    const long = 'a'.repeat(MAX_NAME_LENGTH + 1);
    assert.equal(MAX_NAME_LENGTH, 1000);
    assert.equal(holds(rule('r', 'deny', { tool: 'b*' }), { tool: long }), true);
    assert.equal(holds(rule('r', 'allow', { tool: 'a*' }), { tool: long }), false);
    assert.equal(holds(rule('r', 'deny', { server: 'b*' }), { server: long }), true);
    const exact = 'a'.repeat(MAX_NAME_LENGTH);
    assert.equal(holds(rule('r', 'deny', { tool: 'b*' }), { tool: exact }), false);
    assert.equal(holds(rule('r', 'allow', { tool: 'a*' }), { tool: exact }), true);
  });

  test('a name that is not text never matches', () => {
    assert.equal(holds(rule('r', 'deny', { tool: '*' }), { tool: 5 as unknown as string }), false);
    assert.equal(nameMatches('*', 5 as unknown as string), false);
    assert.equal(nameMatches('*', 'x'), true);
    assert.equal(nameMatches('[z-a]', 'x'), false, 'an unusable glob matches nothing');
  });

  test('annotations: each key compared, a missing one not', () => {
    const c = { annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } };
    const ro = { annotations: { readOnlyHint: true } };
    assert.equal(holds(rule('r', 'deny', { annotations: { readOnly: true } }), ro), true);
    assert.equal(holds(rule('r', 'deny', { annotations: { readOnly: false } }), ro), false);
    assert.equal(holds(rule('r', 'deny', { annotations: { readOnly: true } }), c), false);
    assert.equal(holds(rule('r', 'deny', { annotations: { readOnly: false } }), c), true);
    assert.equal(holds(rule('r', 'deny', { annotations: { destructive: true } }), c), false);
    assert.equal(holds(rule('r', 'deny', { annotations: { destructive: false } }), c), true);
    assert.equal(holds(rule('r', 'deny', { annotations: { idempotent: true } }), c), true);
    assert.equal(holds(rule('r', 'deny', { annotations: { idempotent: false } }), c), false);
    assert.equal(holds(rule('r', 'deny', { annotations: { openWorld: false } }), c), true);
    assert.equal(holds(rule('r', 'deny', { annotations: { openWorld: true } }), c), false);
    assert.equal(holds(rule('r', 'deny', { annotations: {} }), c), true);
    assert.equal(holds(rule('r', 'deny', { annotations: { destructive: true } }), { annotations: { destructiveHint: true } }), true);
  });

  test('args: every condition must hold, any value at a path may satisfy one', () => {
    const r = rule('r', 'deny', {
      args: [
        { path: '$.a[*]', pattern: '^x$' },
        { path: '$.b', pattern: 'y' },
      ],
    });
    assert.equal(holds(r, { args: { a: ['n', 'x'], b: 'y' } }), true);
    assert.equal(holds(r, { args: { a: ['n'], b: 'y' } }), false);
    assert.equal(holds(r, { args: { a: ['x'], b: 'n' } }), false);
    assert.equal(holds(rule('r', 'deny', { args: [] }), {}), true);
  });

  test('a glob or outsideWorkspace condition needs a text value', () => {
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', glob: '**' }] }), { args: { p: 5 } }), false);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', outsideWorkspace: true }] }), { args: { p: ['../x'] } }), false);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', outsideWorkspace: false }] }), { args: { p: 'a' } }), true);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', outsideWorkspace: false }] }), { args: { p: '../a' } }), false);
  });

  test('outsideWorkspace alone: an allow rule holds for a path inside, not for one outside', () => {
    const r = rule('r', 'allow', { args: [{ path: '$.p', outsideWorkspace: false }] });
    assert.equal(holds(r, { args: { p: 'src/a' } }), true);
    assert.equal(holds(r, { args: { p: '../a' } }), false);
  });

  test('outsideWorkspace and glob together: both must hold', () => {
    const r = rule('r', 'deny', { args: [{ path: '$.p', outsideWorkspace: false, glob: 'src/**' }] });
    assert.equal(holds(r, { args: { p: 'src/a' } }), true);
    assert.equal(holds(r, { args: { p: 'lib/a' } }), false);
  });

  test('a glob matches dot files; a path read two ways: deny holds on either, allow only on both', () => {
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', glob: '**' }] }), { args: { p: '.env' } }), true);
    // docs is a link to /w/secret: docs/k is written as docs/k and leads to secret/k.
    const realPath: RealPath = (p) =>
      p === '/w' ? '/w' : p.startsWith('/w/docs') ? p.replace('/w/docs', '/w/secret') : p === '/w/other' ? p : undefined;
    const context = { workspaceRoot: ROOT, realPath };
    const deny = rule('r', 'deny', { args: [{ path: '$.p', glob: 'secret/**' }] });
    const allow = rule('r', 'allow', { args: [{ path: '$.p', glob: 'docs/**' }] });
    assert.equal(holds(deny, { args: { p: 'docs/k' } }, context), true, 'where it leads counts for a deny');
    assert.equal(holds(allow, { args: { p: 'docs/k' } }, context), false, 'an allow needs both forms to match');
    assert.equal(
      holds(rule('r', 'allow', { args: [{ path: '$.p', glob: '{docs,secret}/**' }] }), { args: { p: 'docs/k' } }, context),
      true,
    );
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', glob: 'nope/**' }] }), { args: { p: 'docs/k' } }, context), false);
  });

  test('a pattern reads text as is and other values as JSON; only the first 10,000 characters; an unusable one holds only for deny and ask', () => {
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', pattern: '^\\{"a":1\\}$' }] }), { args: { p: { a: 1 } } }), true);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', pattern: '^5$' }] }), { args: { p: 5 } }), true);
    assert.equal(
      holds(rule('r', 'deny', { args: [{ path: '$.p', pattern: '^$' }] }), { args: { p: undefined } }),
      true,
      'no JSON text: empty',
    );
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', pattern: '^"s"$' }] }), { args: { p: 's' } }), false);
    const tail = `${'a'.repeat(10_000)}END`;
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', pattern: 'END' }] }), { args: { p: tail } }), false);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', pattern: 'a$' }] }), { args: { p: tail } }), true);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', pattern: '(a)\\1' }] }), { args: { p: 'x' } }), true);
    assert.equal(holds(rule('r', 'ask', { args: [{ path: '$.p', pattern: '(a)\\1' }] }), { args: { p: 'x' } }), true);
    assert.equal(holds(rule('r', 'allow', { args: [{ path: '$.p', pattern: '(a)\\1' }] }), { args: { p: 'aa' } }), false);
  });
});

describe('a glob, pattern or path met for the first time', () => {
  // Compiled matchers and parsed JSON paths are kept for the life of the process, so the tests above may read them
  // from an earlier run: each test here uses text no earlier run has used, to see it read the first time.
  test('a name glob, a pattern and a path glob are compiled on their first use and answer as they should', () => {
    const fresh = randomUUID();
    assert.equal(holds(rule('r', 'deny', { tool: `{write,${fresh}}` }), {}), true);
    assert.equal(holds(rule('r', 'deny', { tool: `{read,${fresh}}` }), {}), false);
    assert.equal(nameMatches(`w*${fresh}`, `wx${fresh}`), true);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', pattern: `^x$|${fresh}` }] }), { args: { p: 'x' } }), true);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', pattern: `^y$|${fresh}` }] }), { args: { p: 'x' } }), false);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', glob: `{src/**,${fresh}}` }] }), { args: { p: 'src/a' } }), true);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', glob: `{lib/**,${fresh}}` }] }), { args: { p: 'src/a' } }), false);
  });

  test('a path glob matches dot files and dot folders', () => {
    const fresh = randomUUID();
    const deny = rule('r', 'deny', { args: [{ path: '$.p', glob: `{**,${fresh}}` }] });
    assert.equal(holds(deny, { args: { p: '.env' } }), true);
    assert.equal(holds(deny, { args: { p: 'a/.git/config' } }), true);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', glob: `{*/*.pem,${fresh}}` }] }), { args: { p: 'keys/.x.pem' } }), true);
  });

  test('a path glob picomatch refuses (longer than 64 KiB) holds for a deny or ask rule, not for an allow, and never throws', () => {
    const glob = `${randomUUID()}${'a'.repeat(70_000)}`;
    for (const d of ['deny', 'ask'] as const)
      assert.equal(holds(rule('r', d, { args: [{ path: '$.p', glob }] }), { args: { p: 'x' } }), true, d);
    assert.equal(holds(rule('r', 'allow', { args: [{ path: '$.p', glob }] }), { args: { p: 'x' } }), false);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.p', glob }] }), { args: { p: 5 } }), false, 'still only on a text value');
  });

  test('a JSON path is parsed on its first use', () => {
    const key = randomUUID();
    assert.deepEqual(jsonPathValues({ [key]: 1 }, `$['${key}']`), [1]);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: `$["${key}"]`, pattern: '^x$' }] }), { args: { [key]: 'x' } }), true);
  });
});

describe('JSON paths', () => {
  test('parse: keys, indices, wildcards, quoted keys with escapes, with or without $', () => {
    assert.deepEqual(parseJsonPath('$'), []);
    assert.deepEqual(parseJsonPath(''), []);
    assert.deepEqual(parseJsonPath('  $.a  '), ['a']);
    assert.deepEqual(parseJsonPath('a.b'), ['a', 'b']);
    assert.deepEqual(parseJsonPath('[0]'), ['0']);
    assert.deepEqual(parseJsonPath('.a'), ['a']);
    assert.deepEqual(parseJsonPath('$.a[ 12 ][*].*'), ['a', '12', '*', '*']);
    assert.deepEqual(parseJsonPath("$[ 'x.y' ]"), ['x.y']);
    assert.deepEqual(parseJsonPath("$['it\\'s']"), ["it's"]);
    assert.deepEqual(parseJsonPath('$["q\\"d"]'), ['q"d']);
    for (const bad of ['$.', '$..a', '$[a]', '$[-1]', '$.a]', "$['x]", 'a[', 7 as unknown as string])
      assert.equal(parseJsonPath(bad), undefined, String(bad));
  });

  test('values: wildcards over arrays and objects, own keys only, nothing under a scalar', () => {
    const root = { a: [{ b: 1 }, { b: 2 }, 3], o: { x: 1, y: 2 } };
    assert.deepEqual(jsonPathValues(root, '$.a[*].b'), [1, 2]);
    assert.deepEqual(jsonPathValues(root, '$.o.*'), [1, 2]);
    assert.deepEqual(jsonPathValues(root, '$.a[2].b'), []);
    assert.deepEqual(jsonPathValues(root, '$'), [root]);
    assert.deepEqual(jsonPathValues(root, '$.nope.deeper'), []);
    assert.deepEqual(jsonPathValues(root, '$.a.at'), [], 'inherited properties are not data');
    assert.deepEqual(jsonPathValues({ a: null }, '$.a.b'), []);
    assert.deepEqual(jsonPathValues({ a: 0 }, '$.a'), [0]);
    assert.deepEqual(jsonPathValues(root, '$[bad'), []);
    assert.deepEqual(jsonPathValues(root, '$[bad'), [], 'a bad path stays bad from the cache');
  });
  test('parse reads each step from where the last ended: brackets inside a quoted key are the key, a bad step refuses the path', () => {
    assert.deepEqual(parseJsonPath("$['a[0]']"), ['a[0]']);
    assert.deepEqual(parseJsonPath(`$["x['y']"]`), ["x['y']"]);
    assert.deepEqual(parseJsonPath('$["a" ]'), ['a']);
    for (const bad of ['$[a][0]', "$[foo]['b']", '$[foo]["b"]']) assert.equal(parseJsonPath(bad), undefined, bad);
  });

  test('a text value is a value, not a list of characters', () => {
    const root = { s: 'abc' };
    assert.deepEqual(jsonPathValues(root, '$.s[0]'), []);
    assert.deepEqual(jsonPathValues(root, '$.s[*]'), []);
    assert.deepEqual(jsonPathValues(root, '$.s.length'), []);
    assert.equal(holds(rule('r', 'deny', { args: [{ path: '$.s[*]', pattern: '^a$' }] }), { args: root }), false);
  });
});

describe('name globs', () => {
  const m = (glob: string, name: string) => {
    const c = compileNameGlob(glob);
    assert.ok(c.ok, `${glob}: ${c.ok ? '' : c.reason}`);
    return c.test(name);
  };
  const refused = (glob: string) => {
    const c = compileNameGlob(glob);
    assert.equal(c.ok, false, glob);
    return c.ok ? '' : c.reason;
  };

  test('literals match exactly; negation flips, twice flips back', () => {
    assert.equal(m('fs', 'fs'), true);
    assert.equal(m('fs', 'fsx'), false);
    assert.equal(m('fs', 'xfs'), false);
    assert.equal(m('!fs', 'fs'), false);
    assert.equal(m('!fs', 'gh'), true);
    assert.equal(m('!!fs', 'fs'), true);
    assert.equal(m('!!fs', 'gh'), false);
    assert.equal(m('!f*', 'gh'), true);
    assert.equal(m('!f*', 'fs'), false);
  });

  test('* and ** match any run, slashes, dots and new lines included; **/ may match nothing', () => {
    assert.equal(m('*', 'a/b.c'), true);
    assert.equal(m('*', ''), true);
    assert.equal(m('a*', 'a\nb'), true);
    assert.equal(m('a*z', 'a/.x/z'), true);
    assert.equal(m('a*z', 'a/.x/y'), false);
    assert.equal(m('**/delete', 'delete'), true);
    assert.equal(m('**/delete', 'x/y/delete'), true);
    assert.equal(m('**/delete', 'xdelete'), false);
    assert.equal(m('*/delete', 'delete'), false, 'a single * then / needs the /');
    assert.equal(m('**', 'x'), true);
    assert.equal(m('**x', 'ax'), true);
  });

  test('? is one character, any (a new line and an astral one too)', () => {
    assert.equal(m('a?c', 'abc'), true);
    assert.equal(m('a?c', 'a\nc'), true);
    assert.equal(m('a?c', 'ac'), false);
    assert.equal(m('a?c', 'abbc'), false);
    assert.equal(m('a?c', 'a😀c'), true);
  });

  test('classes: members, ranges, negation by ! or ^, ] first, escapes; the wrong ones refused', () => {
    assert.equal(m('[ab]x', 'bx'), true);
    assert.equal(m('[ab]x', 'cx'), false);
    assert.equal(m('[a-c]', 'b'), true);
    assert.equal(m('[a-c]', 'd'), false);
    assert.equal(m('[!a]', 'a'), false);
    assert.equal(m('[!a]', 'b'), true);
    assert.equal(m('[^a]', 'b'), true);
    assert.equal(m('[^a]', 'a'), false);
    assert.equal(m('[]a]', ']'), true);
    assert.equal(m('[]a]', 'a'), true);
    assert.equal(m('[a-]', '-'), true);
    assert.equal(m('[a-]', 'b'), false);
    assert.equal(m('[\\]]', ']'), true);
    assert.equal(m('[\\--/]', '.'), true, 'an escaped range start');
    assert.equal(m('[a-\\z]', 'm'), true, 'an escaped range end');
    assert.equal(m('[.]', 'x'), false, 'a dot in a class is a dot');
    assert.equal(m('[😀]', '😀'), true);
    assert.equal(m('[a-😀]', 'z'), true);
    assert.equal(refused('[z-a]'), 'has a backwards range z-a in [...]');
    assert.equal(refused('[[:alpha:]]'), 'has a POSIX class such as [[:alpha:]], which names do not support; write [a-zA-Z]');
    for (const g of ['[ab', '[', '[a\\', '[a-\\']) assert.equal(refused(g), 'has a "[" without its "]" (write \\[ for the character)', g);
  });

  test('braces: alternatives, nested; a comma or } outside braces is itself; ranges and unclosed refused', () => {
    assert.equal(m('{a,b}c', 'bc'), true);
    assert.equal(m('{a,b}c', 'ac'), true);
    assert.equal(m('{a,b}c', 'abc'), false);
    assert.equal(m('x{a,{b,c}d}', 'xcd'), true);
    assert.equal(m('x{a,{b,c}d}', 'xa'), true);
    assert.equal(m('x{a,{b,c}d}', 'xad'), false);
    assert.equal(m('a,b', 'a,b'), true);
    assert.equal(m('a}b', 'a}b'), true);
    assert.equal(m('{a\\}b,c}', 'a}b'), true, 'an escaped } inside braces');
    assert.equal(m('{a,b}}', 'a}'), true);
    assert.equal(refused('{a,b'), 'has a "{" without its "}" (write \\{ for the character)');
    assert.equal(refused('x{a,{b}'), 'has a "{" without its "}" (write \\{ for the character)');
    assert.equal(refused('{1..3}'), 'has a range {1..3}, which names do not support; list the values: {a,b,c}');
    refused('{-1..-3}');
    refused('{a..c}');
    assert.equal(m('{1..x}', '1..x'), true, 'not a range: a single alternative');
    assert.equal(m('{a..bc}', 'a..bc'), true);
  });

  test('escapes take the next character literally; extended syntax is refused with its character', () => {
    assert.equal(m('a\\*', 'a*'), true);
    assert.equal(m('a\\*', 'ab'), false);
    assert.equal(m('\\!x', '!x'), true);
    assert.equal(m('\\😀', '😀'), true);
    assert.equal(m('😀*', '😀x'), true);
    assert.equal(m('a.b', 'a.b'), true);
    assert.equal(m('a.b', 'axb'), false, 'a dot is a dot');
    assert.equal(m('a+', 'aa'), false);
    assert.equal(m('a+', 'a+'), true);
    assert.equal(m('a$*', 'a$x'), true);
    assert.equal(refused('a\\'), 'ends with a lone \\ (write \\\\ for a backslash)');
    for (const c of ['(', ')', '|'])
      assert.equal(
        refused(`a${c}`),
        `has "${c}": extended globs such as @(a|b) are not supported for names; use {a,b}, or \\${c} for the character`,
      );
    assert.equal(m('a\\(', 'a('), true);
  });
});

describe('patterns (JavaScript syntax on RE2)', () => {
  const t = (source: string, text: string) => {
    const c = compilePattern(source);
    assert.ok(c.ok, `${source}: ${c.ok ? '' : c.reason}`);
    return c.test(text);
  };
  const refused = (source: string) => {
    const c = compilePattern(source);
    assert.equal(c.ok, false, source);
    return c.ok ? '' : c.reason;
  };

  test('\\u escapes, braced, four digits, and surrogate pairs as one code point', () => {
    assert.equal(t('^\\u0041$', 'A'), true);
    assert.equal(t('^\\u{1F600}$', '😀'), true);
    assert.equal(t('^\\u{41}$', 'A'), true);
    assert.equal(t('^\\uD83D\\uDE00$', '😀'), true);
    assert.equal(t('^.$', '😀'), true, 'one code point is one character');
    assert.equal(t('^\\u0041\\u0042$', 'AB'), true, 'two plain escapes are not a pair');
    assert.equal(t('^\\uD83D\\u0041$', '\uD83DA'), true, 'a high surrogate before a non-low one stays a character of its own');
    assert.equal(t('^\\uD83D\\uDE00$', '\uD83D\uDE00'), true);
    assert.equal(t('^\\uDE00\\uD83D$', '\uDE00\uD83D'), true, 'low then high is no pair');
    assert.equal(refused('\\u12'), 'has an incomplete \\u escape (write \\uXXXX or \\u{X})');
    assert.equal(refused('\\u{}'), 'has an incomplete \\u escape (write \\uXXXX or \\u{X})');
    assert.equal(t('^\\ud83d\\ude00$', '😀'), true);
    assert.equal(t('^\\uDBFF\\uDFFF$', '\u{10FFFF}'), true);
    assert.equal(t('^\\uD800\\uDC00$', '\u{10000}'), true);
  });

  test('\\cX is a control character; \\c before a non-letter is left to RE2', () => {
    assert.equal(t('^\\cJ$', '\n'), true);
    assert.equal(t('^\\cj$', '\n'), true);
    assert.equal(t('^\\cA$', '\u0001'), true);
    assert.equal(t('^\\cZ$', '\u001a'), true);
    assert.equal(compilePattern('\\c1').ok, false);
  });

  test('\\s and \\S as JavaScript reads them, in and out of a class; . stops at line terminators only', () => {
    for (const ws of [' ', '\t', '\u00a0', '\u2003', '\u2028', '\ufeff', '\u3000', '\u000b'])
      assert.equal(t('^\\s$', ws), true, JSON.stringify(ws));
    assert.equal(t('^\\s$', 'a'), false);
    assert.equal(t('^[\\s]$', '\u00a0'), true);
    assert.equal(t('^[x\\s]$', 'x'), true);
    assert.equal(t('^\\S$', '\u00a0'), false);
    assert.equal(t('^\\S$', 'a'), true);
    assert.equal(t('^[\\S]$', 'a'), true);
    assert.equal(t('^.$', '\n'), false);
    assert.equal(t('^.$', '\r'), false);
    assert.equal(t('^.$', '\u2028'), false);
    assert.equal(t('^.$', '\u2029'), false);
    assert.equal(t('^.$', '\u000b'), true);
    assert.equal(t('^[.]$', 'x'), false, 'a dot in a class is a dot');
    assert.equal(t('^[.]$', '.'), true);
    assert.equal(t('^\\.$', 'x'), false);
    assert.equal(t('^\\d$', '5'), true);
  });

  test('[] matches nothing and [^] anything; a class ends at its ]', () => {
    assert.equal(t('a[]', 'a'), false);
    assert.equal(t('a[]|b', 'b'), true);
    assert.equal(t('^[^]$', '\n'), true);
    assert.equal(t('^[^]$', 'ab'), false);
    assert.equal(t('^[a]b$', 'ab'), true);
    assert.equal(t('^[a].$', 'ab'), true);
    assert.equal(t('^[a]\\s$', 'a '), true);
    assert.equal(t('^[\\]]$', ']'), true);
  });

  test('backreferences and lookaround are refused with their words; a digit escape in a class is not a backreference', () => {
    const backref = (n: string) =>
      `has a backreference (\\${n}), which no linear-time engine can run (Plangate runs patterns on RE2): rewrite it without one`;
    assert.equal(refused('(a)\\1'), backref('1'));
    assert.equal(refused('(a)\\9'), backref('9'));
    assert.equal(refused('(?<n>a)\\k<n>'), backref('k<name>'));
    assert.equal(
      refused('a(?=b)'),
      'has a lookahead ((?=…)), which no linear-time engine can run (Plangate runs patterns on RE2): rewrite it without one',
    );
    assert.equal(
      refused('a(?!b)'),
      'has a lookahead ((?!…)), which no linear-time engine can run (Plangate runs patterns on RE2): rewrite it without one',
    );
    assert.equal(
      refused('(?<=b)a'),
      'has a lookbehind ((?<=…)), which no linear-time engine can run (Plangate runs patterns on RE2): rewrite it without one',
    );
    assert.equal(
      refused('(?<!b)a'),
      'has a lookbehind ((?<!…)), which no linear-time engine can run (Plangate runs patterns on RE2): rewrite it without one',
    );
    assert.match(
      refused('[\\1]'),
      /^is not a valid regular expression for RE2/,
      'in a class, RE2 itself refuses it, not as a backreference',
    );
    assert.equal(t('^\\0$', '\0'), true);
    assert.equal(t('(?i)^ab$', 'AB'), true, "RE2's inline flags are accepted");
    assert.equal(t('(?:a)b', 'ab'), true);
    assert.match(refused('\\k'), /^is not a valid regular expression for RE2/, 'a lone \\k is not a named backreference');
    assert.match(refused('\\k<'), /^is not a valid regular expression for RE2|backreference/);
  });

  test("what RE2 cannot parse is refused in words without RE2's prefix; a trailing backslash too", () => {
    const r = refused('(');
    assert.match(r, /^is not a valid regular expression for RE2, the linear-time engine Plangate runs patterns on \(/);
    assert.doesNotMatch(r, /error parsing regexp/);
    assert.match(refused('a\\'), /^is not a valid regular expression for RE2/);
  });
});

describe('argument paths against the workspace', () => {
  test('written paths: inside relative, outside absolute, traps outside with the text kept', () => {
    assert.deepEqual(resolveArgPath('src/./a//b.ts', ROOT), {
      outside: false,
      normalised: '/w/src/a/b.ts',
      relative: 'src/a/b.ts',
      forms: ['src/a/b.ts'],
    });
    assert.deepEqual(resolveArgPath(' /w ', ROOT), { outside: false, normalised: '/w', relative: '', forms: [''] });
    assert.deepEqual(resolveArgPath('/w/', '/w/'), { outside: false, normalised: '/w', relative: '', forms: [''] });
    assert.deepEqual(resolveArgPath('../x', ROOT), { outside: true, normalised: '/x', relative: '../x', forms: ['/x'] });
    assert.deepEqual(resolveArgPath('/../../x', ROOT), {
      outside: true,
      normalised: '/../../x',
      relative: '/../../x',
      forms: ['/../../x'],
    });
    assert.deepEqual(resolveArgPath('~/x', ROOT), { outside: true, normalised: '~/x', relative: '~/x', forms: ['~/x'] });
    assert.deepEqual(resolveArgPath('  ', ROOT), { outside: true, normalised: '', relative: '', forms: [''] });
    assert.deepEqual(resolveArgPath('a\\b', undefined), { outside: true, normalised: 'a/b', relative: 'a/b', forms: ['a/b'] });
    assert.deepEqual(resolveArgPath('../a', undefined), { outside: true, normalised: '../a', relative: '../a', forms: ['../a'] });
    assert.equal(resolveArgPath('/wx/a', ROOT).outside, true);
    assert.equal(resolveArgPath('C:/W/a', 'c:/w').outside, false, 'Windows drive paths compare without case');
    assert.equal(resolveArgPath('/W/a', ROOT).outside, true, 'POSIX paths compare with case');
    assert.equal(resolveArgPath('C:\\w\\a', 'C:\\w\\').relative, 'a');
  });

  test('on disk: a link inside that leads out is outside, with where it leads as a second form', () => {
    const links: Record<string, string> = { '/w': '/real/w', '/w/docs': '/home/u/.ssh', '/w/in': '/real/w/sub' };
    const realPath: RealPath = (p) => {
      if (links[p]) return links[p];
      if (p === '/' || p === '/home' || p === '/home/u' || p === '/home/u/.ssh') return p;
      return undefined;
    };
    assert.deepEqual(resolveArgPath('docs/authorized_keys', ROOT, realPath), {
      outside: true,
      normalised: '/w/docs/authorized_keys',
      relative: 'docs/authorized_keys',
      forms: ['docs/authorized_keys', '/home/u/.ssh/authorized_keys'],
    });
    assert.deepEqual(resolveArgPath('in/a/../b', ROOT, realPath), {
      outside: false,
      normalised: '/w/in/b',
      relative: 'in/b',
      forms: ['in/b', 'sub/b'],
    });
    assert.deepEqual(resolveArgPath('new.txt', ROOT, realPath), {
      outside: false,
      normalised: '/w/new.txt',
      relative: 'new.txt',
      forms: ['new.txt'],
    });
    assert.deepEqual(resolveArgPath('/w/docs', ROOT, realPath).forms, ['docs', '/home/u/.ssh']);
  });

  test('on disk: the real path of the folder itself is where relative forms start; a Windows real path is read with /', () => {
    const realPath: RealPath = (p) => (p.startsWith('C:/w') ? p.replace('C:/w', 'D:\\real') : p === 'C:/' ? 'C:\\' : undefined);
    const r = resolveArgPath('a\\b', 'C:\\w', realPath);
    assert.equal(r.outside, false);
    assert.deepEqual(r.forms, ['a/b']);
  });

  test('on disk: when the disk cannot tell, or nothing of the path exists, it is outside; traps and no root skip the disk', () => {
    let asked = 0;
    const throws: RealPath = () => {
      asked++;
      throw new Error('ELOOP');
    };
    assert.equal(resolveArgPath('a', ROOT, throws).outside, true);
    assert.ok(asked > 0);
    assert.equal(resolveArgPath('a', ROOT, () => undefined).outside, true, 'not even / exists');
    asked = 0;
    assert.equal(resolveArgPath('~/a', ROOT, throws).outside, true);
    assert.equal(resolveArgPath('a', undefined, throws).outside, true);
    assert.equal(asked, 0, 'a trap or a missing root never reaches the disk');
  });

  test('on disk: the existing prefix is found shortest first and the rest appended, .. after a link climbing from its target', () => {
    const asked: string[] = [];
    const realPath: RealPath = (p) => {
      asked.push(p);
      const known: Record<string, string> = { '/': '/', '/w': '/w', '/w/l': '/t/deep' };
      return known[p];
    };
    const r = resolveArgPath('l/../x/y', ROOT, realPath);
    assert.deepEqual(r.forms, ['x/y', '/t/x/y']);
    assert.equal(r.outside, true);
    assert.deepEqual(asked, ['/w', '/w/l/../x/y', '/', '/w', '/w/l', '/w/l/..']);
  });
});

describe('reading a policy', () => {
  const one = (r: Record<string, unknown>) => parsePolicyValue({ rules: [{ id: 'x', decision: 'deny', reason: 'because', ...r }] }, 'user');
  const message = (r: Record<string, unknown>) => {
    const p = one(r);
    assert.equal(p.problems.length, 1, JSON.stringify(p.problems));
    return [p.problems[0]!.message, p.problems[0]!.path, p.problems[0]!.severity, p.rules.length];
  };

  test('a valid rule keeps every field, trimmed id and reason, its source and index', () => {
    const p = parsePolicyValue(
      {
        $schema: 'x',
        rules: [
          {
            id: ' a ',
            decision: 'ask',
            reason: ' why ',
            server: 's*',
            tool: 't',
            annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
            args: [{ path: '$.p', glob: 'g', pattern: 'p', outsideWorkspace: true }],
            entrance: ['plan', 'plan', 'app'],
            sandboxed: false,
            description: 'd',
          },
        ],
      },
      'workspace',
    );
    assert.deepEqual(p.problems, []);
    assert.deepEqual(p.rules, [
      {
        id: 'a',
        decision: 'ask',
        reason: 'why',
        source: 'workspace',
        index: 0,
        server: 's*',
        tool: 't',
        annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
        args: [{ path: '$.p', glob: 'g', pattern: 'p', outsideWorkspace: true }],
        entrance: ['plan', 'app'],
        sandboxed: false,
      },
    ]);
  });

  test('the policy itself: not an object, unknown keys, rules not a list, too many rules', () => {
    assert.deepEqual(parsePolicyValue(null, 'user'), { rules: [], problems: [] });
    assert.deepEqual(parsePolicyValue({}, 'user'), { rules: [], problems: [] });
    for (const v of [[], 'x', 5])
      assert.deepEqual(parsePolicyValue(v, 'user').problems, [
        { severity: 'error', message: 'A policy is an object: { "rules": [ … ] }.', path: [] },
      ]);
    assert.deepEqual(parsePolicyValue({ rule: [] }, 'user').problems, [
      { severity: 'warning', message: 'Unknown key \'rule\' is ignored (a policy has "rules").', path: ['rule'] },
    ]);
    assert.deepEqual(parsePolicyValue({ rules: {} }, 'user').problems, [
      { severity: 'error', message: '"rules" must be a list of rules.', path: ['rules'] },
    ]);
    const many = Array.from({ length: MAX_RULES + 1 }, (_, i) => ({ id: `r${i}`, decision: 'allow', reason: 'x' }));
    const p = parsePolicyValue({ rules: many }, 'user');
    assert.equal(p.rules.length, MAX_RULES);
    assert.deepEqual(p.problems, [{ severity: 'error', message: 'Only the first 1000 rules are read.', path: ['rules', 1000] }]);
    assert.equal(parsePolicyValue({ rules: many.slice(0, MAX_RULES) }, 'user').problems.length, 0);
  });

  test('each broken rule field is named, at its path, and the rule is left out', () => {
    assert.deepEqual(parsePolicyValue({ rules: [5] }, 'user').problems, [
      { severity: 'error', message: 'Rule 1 is not an object.', path: ['rules', 0] },
    ]);
    assert.deepEqual(parsePolicyValue({ rules: [{ id: '  ', decision: 'deny', reason: 'r' }] }, 'user').problems, [
      { severity: 'error', message: 'Rule 1 needs an "id" (a short name the ledger and the panel use).', path: ['rules', 0, 'id'] },
    ]);
    assert.deepEqual(message({ decision: 'block' }), [
      'Rule \'x\': "decision" must be "allow", "ask" or "deny".',
      ['rules', 0, 'decision'],
      'error',
      0,
    ]);
    assert.deepEqual(message({ reason: ' ' }), [
      'Rule \'x\' needs a "reason": it is shown wherever the rule decides, and sent to the caller with a deny.',
      ['rules', 0, 'reason'],
      'error',
      0,
    ]);
    assert.deepEqual(message({ reason: 5 }).slice(1), [['rules', 0, 'reason'], 'error', 0]);
    assert.deepEqual(message({ tool: '' }), ['Rule \'x\': "tool" must be a glob (text), e.g. "fs-*".', ['rules', 0, 'tool'], 'error', 0]);
    assert.deepEqual(message({ server: 5 }), [
      'Rule \'x\': "server" must be a glob (text), e.g. "fs-*".',
      ['rules', 0, 'server'],
      'error',
      0,
    ]);
    assert.deepEqual(message({ annotations: [] }), [
      'Rule \'x\': "annotations" must be an object such as { "destructive": true }.',
      ['rules', 0, 'annotations'],
      'error',
      0,
    ]);
    assert.deepEqual(message({ annotations: { scary: true } }), [
      "Rule 'x': annotation 'scary' is not one of readOnly, destructive, idempotent, openWorld.",
      ['rules', 0, 'annotations', 'scary'],
      'error',
      0,
    ]);
    assert.deepEqual(message({ annotations: { readOnly: 'yes' } }), [
      "Rule 'x': annotation 'readOnly' must be true or false.",
      ['rules', 0, 'annotations', 'readOnly'],
      'error',
      0,
    ]);
    assert.deepEqual(message({ args: {} }), ['Rule \'x\': "args" must be a list of conditions.', ['rules', 0, 'args'], 'error', 0]);
    assert.deepEqual(message({ entrance: [] }).slice(1), [['rules', 0, 'entrance'], 'error', 0]);
    assert.deepEqual(message({ entrance: 5 }).slice(1), [['rules', 0, 'entrance'], 'error', 0]);
    assert.deepEqual(message({ entrance: ['plan', 'chat'] }), [
      'Rule \'x\': "entrance" must be one or more of plan, agent, call, app, recovery, sampling.',
      ['rules', 0, 'entrance'],
      'error',
      0,
    ]);
    assert.deepEqual(message({ sandboxed: 'yes' }), [
      'Rule \'x\': "sandboxed" must be true or false.',
      ['rules', 0, 'sandboxed'],
      'error',
      0,
    ]);
    const p = one({ decision: 'nope' });
    assert.equal(p.problems[0]?.ruleId, 'x');
  });

  test('unknown rule keys are warnings and the rule is kept; a rule without an id says its number', () => {
    const p = one({ extra: 1 });
    assert.equal(p.rules.length, 1);
    assert.deepEqual(p.problems, [
      { severity: 'warning', message: "Rule 'x': unknown key 'extra' is ignored.", path: ['rules', 0, 'extra'], ruleId: 'x' },
    ]);
    const q = parsePolicyValue({ rules: [{ decision: 'deny', reason: 'r', extra: 1 }] }, 'user');
    assert.deepEqual(q.problems, [
      { severity: 'warning', message: "Rule 1: unknown key 'extra' is ignored.", path: ['rules', 0, 'extra'] },
      { severity: 'error', message: 'Rule 1 needs an "id" (a short name the ledger and the panel use).', path: ['rules', 0, 'id'] },
    ]);
  });

  test('argument conditions: each field checked and named with its number', () => {
    const arg = (c: unknown) => message({ args: [{ path: '$.ok', glob: 'x' }, c] });
    assert.deepEqual(arg(5), [
      'Rule \'x\', argument condition 2 is not an object such as { "path": "$.path", "glob": "src/**" }.',
      ['rules', 0, 'args', 1],
      'error',
      0,
    ]);
    assert.deepEqual(arg({ path: '$.a', glob: 'x', nope: 1 }), [
      "Rule 'x', argument condition 2: unknown key 'nope'.",
      ['rules', 0, 'args', 1, 'nope'],
      'error',
      0,
    ]);
    assert.deepEqual(arg({ path: 5, glob: 'x' }), [
      'Rule \'x\', argument condition 2: "path" must be a JSON path such as "$.path" or "$.files[*]".',
      ['rules', 0, 'args', 1, 'path'],
      'error',
      0,
    ]);
    assert.deepEqual(arg({ path: '$.a', glob: '' }), [
      'Rule \'x\', argument condition 2: "glob" must be text.',
      ['rules', 0, 'args', 1, 'glob'],
      'error',
      0,
    ]);
    assert.deepEqual(arg({ path: '$.a', glob: 5 }).slice(1), [['rules', 0, 'args', 1, 'glob'], 'error', 0]);
    assert.deepEqual(arg({ path: '$.a', pattern: 5 }), [
      'Rule \'x\', argument condition 2: "pattern" must be a regular expression (text).',
      ['rules', 0, 'args', 1, 'pattern'],
      'error',
      0,
    ]);
    assert.deepEqual(arg({ path: '$.a', outsideWorkspace: 'no' }), [
      'Rule \'x\', argument condition 2: "outsideWorkspace" must be true or false.',
      ['rules', 0, 'args', 1, 'outsideWorkspace'],
      'error',
      0,
    ]);
    assert.deepEqual(arg({ path: '$.a' }), [
      'Rule \'x\', argument condition 2 tests nothing: give it a "glob", a "pattern" or "outsideWorkspace".',
      ['rules', 0, 'args', 1],
      'error',
      0,
    ]);
    for (const c of [
      { path: '$.a', glob: 'g' },
      { path: '$.a', pattern: 'p' },
      { path: '$.a', outsideWorkspace: false },
    ])
      assert.equal(one({ args: [c] }).rules.length, 1, JSON.stringify(c));
  });

  test('an unusable glob or pattern is an error, but the rule is kept, and the words say how it applies meanwhile', () => {
    const deny = one({ tool: '@(a|b)' });
    assert.equal(deny.rules.length, 1);
    assert.deepEqual(deny.problems, [
      {
        severity: 'error',
        message:
          'Rule \'x\': "tool" glob "@(a|b)" has "(": extended globs such as @(a|b) are not supported for names; use {a,b}, or \\( for the character. Until it is fixed, this deny rule applies as if it matched.',
        path: ['rules', 0, 'tool'],
        ruleId: 'x',
      },
    ]);
    const allow = parsePolicyValue({ rules: [{ id: 'y', decision: 'allow', reason: 'r', server: '[z-a]' }] }, 'user');
    assert.equal(allow.rules.length, 1);
    assert.equal(
      allow.problems[0]?.message,
      'Rule \'y\': "server" glob "[z-a]" has a backwards range z-a in [...]. Until it is fixed, this allow rule never applies.',
    );
    const pattern = one({ decision: 'ask', args: [{ path: '$.a', pattern: '(a)\\1' }] });
    assert.equal(pattern.rules.length, 1);
    assert.deepEqual(pattern.problems[0]?.path, ['rules', 0, 'args', 0, 'pattern']);
    assert.match(
      pattern.problems[0]!.message,
      /^Rule 'x', argument condition 1: "pattern" "\(a\)\\\\1" has a backreference .* Until it is fixed, this ask rule applies as if it matched\.$/,
    );
    const long = `(${'a'.repeat(300)}`;
    assert.ok(one({ args: [{ path: '$.a', pattern: long }] }).problems[0]!.message.includes(`"${'('.concat('a'.repeat(199))}…"`));
    const exact = `(${'a'.repeat(199)}`;
    assert.ok(one({ args: [{ path: '$.a', pattern: exact }] }).problems[0]!.message.includes(`"${exact}" is not`));
  });

  test('duplicate ids: the later rule is left out, naming the first', () => {
    const p = parsePolicyValue({ rules: [rule('a', 'deny'), rule('b', 'deny'), rule('b', 'allow')] }, 'user');
    assert.deepEqual(
      p.rules.map((r) => [r.id, r.index]),
      [
        ['a', 0],
        ['b', 1],
      ],
    );
    assert.deepEqual(p.problems, [
      {
        severity: 'error',
        message: "Rule id 'b' is used by rule 2 already; ids name rules in the ledger, so each must be unique. This rule is ignored.",
        path: ['rules', 2, 'id'],
        ruleId: 'b',
      },
    ]);
  });

  test('the file: JSON errors in words at their place; each problem at its node, an unknown key at the key', () => {
    const broken = parsePolicyText('{ "rules": [ } ');
    assert.ok(broken.problems.length >= 1);
    assert.match(broken.problems[0]!.message, /^Not valid JSON: [a-z ]+\.$/);
    assert.deepEqual(broken.problems[0]!.range, { line: 0, column: 13, endLine: 0, endColumn: 14 });
    const text = '{\n  "rules": [\n    { "id": "a", "decision": "deny", "reason": "r", "extra": 1 }\n  ],\n  "other": 2\n}';
    const p = parsePolicyText(text);
    assert.equal(p.rules[0]?.source, 'workspace');
    assert.deepEqual(
      p.problems.map((q) => [q.message, q.range]),
      [
        ['Unknown key \'other\' is ignored (a policy has "rules").', { line: 4, column: 2, endLine: 4, endColumn: 9 }],
        ["Rule 'a': unknown key 'extra' is ignored.", { line: 2, column: 52, endLine: 2, endColumn: 59 }],
      ],
    );
    assert.equal(parsePolicyText('{"rules":[]}', 'user').rules.length, 0);
    assert.equal(parsePolicyText('{"rules":[{"id":"a","decision":"deny","reason":"r"}]}', 'user').rules[0]?.source, 'user');
    assert.deepEqual(parsePolicyText(''), {
      rules: [],
      problems: [
        {
          severity: 'error',
          message: 'Not valid JSON: value expected.',
          path: [],
          range: { line: 0, column: 0, endLine: 0, endColumn: 1 },
        },
      ],
    });
    const decision = parsePolicyText('{"rules":[{"id":"a","decision":"x","reason":"r"}]}');
    assert.deepEqual(decision.problems[0]?.range, { line: 0, column: 31, endLine: 0, endColumn: 34 }, 'at the value, not the key');
    const missing = parsePolicyText('{"rules":[{"id":"a","decision":"deny"}]}');
    assert.deepEqual(missing.problems[0]?.range, { line: 0, column: 10, endLine: 0, endColumn: 38 }, 'a missing field: at its rule');
  });

  test('locate without a tree keeps the problem; lines and ranges count from 0', () => {
    const problem = { severity: 'error' as const, message: 'm', path: ['rules'] };
    assert.equal(locate(problem, undefined, [0]), problem);
    assert.deepEqual(lineStarts('a\nbc\n\nd'), [0, 2, 5, 6]);
    const lines = lineStarts('ab\ncd\nef');
    assert.deepEqual(rangeOf(lines, 0, 1), { line: 0, column: 0, endLine: 0, endColumn: 1 });
    assert.deepEqual(rangeOf(lines, 3, 4), { line: 1, column: 0, endLine: 2, endColumn: 1 });
    assert.deepEqual(rangeOf(lines, 2, 1), { line: 0, column: 2, endLine: 1, endColumn: 0 });
    assert.deepEqual(rangeOf(lines, 8, 0), { line: 2, column: 2, endLine: 2, endColumn: 2 });
    assert.deepEqual(rangeOf(lineStarts('a\nb\nc\nd\ne'), 6, 2), { line: 3, column: 0, endLine: 4, endColumn: 0 });
  });
});
