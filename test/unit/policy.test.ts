// The policy engine on its own (src/core/policy): precedence (deny beats ask beats allow in any order, a property
// test), every kind of match (server and tool globs, annotations, argument paths with glob, pattern and "outside the
// workspace", entrance), the tool's own `_meta.approval: "ask"`, Plangate's defaults for destructive tools and for an
// app's calls, the two
// sources (a workspace rule never loosens the user's decision), parsing with line and column, the problems a valid
// policy can still have, and the narrowest rule "Always allow" writes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canAlwaysAllow, escapeGlob, narrowestRule } from '../../src/core/policy/alwaysAllow';
import { describeStatus } from '../../src/core/present/workflowWords';
import { stepPolicyMark } from '../../src/core/present/callCard';
import { EMPTY_WORKFLOW } from '../../src/core/workflow/workflow';
import { evaluate, jsonPathValues, ruleMatches, type PolicyCall } from '../../src/core/policy/evaluate';
import { lintPolicy } from '../../src/core/policy/lint';
import { parsePolicyText, parsePolicyValue } from '../../src/core/policy/parse';
import type { PolicyDecision, PolicyRule, PolicyRules, SourcedRule } from '../../src/core/policy/rules';
import { resolveArgPath } from '../../src/core/policy/workspacePath';

const ROOT = '/home/u/project';
const user = (...rules: PolicyRule[]): SourcedRule[] => rules.map((r, index) => ({ ...r, source: 'user', index }));
const ws = (...rules: PolicyRule[]): SourcedRule[] => rules.map((r, index) => ({ ...r, source: 'workspace', index }));
const rules = (u: SourcedRule[], w: SourcedRule[] = []): PolicyRules => ({ user: u, workspace: w });
const call = (over: Partial<PolicyCall> = {}): PolicyCall => ({
  server: 'fs',
  tool: 'write_file',
  args: {},
  entrance: 'agent',
  ...over,
});
const rule = (id: string, decision: PolicyDecision, over: Partial<PolicyRule> = {}): PolicyRule => ({
  id,
  decision,
  reason: `because ${id}`,
  ...over,
});
const matches = (r: PolicyRule, c: Partial<PolicyCall>) =>
  ruleMatches({ ...r, source: 'user', index: 0 }, call(c), { workspaceRoot: ROOT });

describe('precedence', () => {
  test('deny beats ask beats allow, whatever the order of the rules (property)', () => {
    const decision = fc.constantFrom<PolicyDecision>('allow', 'ask', 'deny');
    fc.assert(
      fc.property(fc.array(decision, { minLength: 1, maxLength: 12 }), fc.array(decision, { maxLength: 6 }), (mine, theirs) => {
        const v = evaluate(
          rules(user(...mine.map((d, i) => rule(`u${i}`, d))), ws(...theirs.map((d, i) => rule(`w${i}`, d)))),
          call({ annotations: { readOnlyHint: true } }),
        );
        const all = [...mine, ...theirs];
        const expected = all.includes('deny') ? 'deny' : mine.includes('ask') || theirs.includes('ask') ? 'ask' : 'allow';
        assert.equal(v.decision, expected);
        // The first rule of the winning decision names the reason; every matching rule is listed.
        const firstIndex = mine.indexOf(expected);
        assert.equal(v.rule.id, firstIndex >= 0 ? `u${firstIndex}` : `w${theirs.indexOf(expected)}`);
        assert.equal(v.matched.length, all.length);
      }),
    );
  });

  test('the winning rule is the first of its decision; its reason is what the verdict gives', () => {
    const v = evaluate(rules(user(rule('a', 'allow'), rule('b', 'ask'), rule('c', 'ask'))), call());
    assert.deepEqual({ decision: v.decision, id: v.rule.id, reason: v.rule.reason }, { decision: 'ask', id: 'b', reason: 'because b' });
  });
});

describe('what a rule matches', () => {
  test('server and tool globs; glob characters escaped match only themselves', () => {
    assert.equal(matches(rule('r', 'deny', { server: 'f*', tool: 'write_*' }), {}), true);
    assert.equal(matches(rule('r', 'deny', { server: 'git*' }), {}), false);
    assert.equal(matches(rule('r', 'deny', { tool: '{read,write}_file' }), {}), true);
    assert.equal(matches(rule('r', 'deny', { tool: escapeGlob('*') }), { tool: '*' }), true);
    assert.equal(matches(rule('r', 'deny', { tool: escapeGlob('*') }), { tool: 'write_file' }), false);
  });

  test('annotations as the MCP hints read (read-only, destructive, idempotent, open world); a tool without hints is none of them', () => {
    const destructive = { annotations: { destructiveHint: true } };
    assert.equal(matches(rule('r', 'ask', { annotations: { destructive: true } }), destructive), true);
    assert.equal(matches(rule('r', 'ask', { annotations: { destructive: true } }), { annotations: { readOnlyHint: true } }), false);
    assert.equal(matches(rule('r', 'ask', { annotations: { readOnly: true } }), { annotations: { readOnlyHint: true } }), true);
    assert.equal(
      matches(rule('r', 'ask', { annotations: { openWorld: true } }), { annotations: { openWorldHint: true, readOnlyHint: true } }),
      true,
    );
    assert.equal(
      matches(rule('r', 'ask', { annotations: { idempotent: true } }), { annotations: { destructiveHint: false, idempotentHint: true } }),
      true,
    );
    assert.equal(matches(rule('r', 'ask', { annotations: { destructive: false } }), {}), true);
    assert.equal(matches(rule('r', 'ask', { annotations: { destructive: true } }), { annotations: 'hostile' as unknown }), false);
  });

  test('argument conditions: JSON path with a glob, a pattern, and outside the workspace', () => {
    const srcOnly = rule('r', 'deny', { args: [{ path: '$.path', glob: 'src/**' }] });
    assert.equal(matches(srcOnly, { args: { path: 'src/a/b.ts' } }), true);
    assert.equal(matches(srcOnly, { args: { path: './src/a/../b.ts' } }), true);
    assert.equal(matches(srcOnly, { args: { path: `${ROOT}/src/x.ts` } }), true, 'an absolute path inside is matched relative');
    assert.equal(matches(srcOnly, { args: { path: 'docs/a.md' } }), false);
    assert.equal(matches(srcOnly, { args: {} }), false, 'no value there: no match');
    const outside = rule('r', 'deny', { args: [{ path: 'path', outsideWorkspace: true }] });
    for (const p of ['../x', '/etc/passwd', '~/.ssh/id_rsa', 'src/../../x', '%2e%2e/x', 'file:///etc/passwd', '$HOME/x'])
      assert.equal(matches(outside, { args: { path: p } }), true, p);
    for (const p of ['a.txt', 'src/../a.txt', `${ROOT}/a`]) assert.equal(matches(outside, { args: { path: p } }), false, p);
    const anyFile = rule('r', 'deny', { args: [{ path: '$.files[*].path', outsideWorkspace: true }] });
    assert.equal(matches(anyFile, { args: { files: [{ path: 'a' }, { path: '../b' }] } }), true, 'any value at a wildcard');
    const command = rule('r', 'deny', { args: [{ path: '$.command', pattern: '^rm\\s' }] });
    assert.equal(matches(command, { args: { command: 'rm -rf /' } }), true);
    assert.equal(matches(command, { args: { command: 'ls' } }), false);
    const both = rule('r', 'deny', {
      args: [
        { path: '$.a', pattern: 'x' },
        { path: '$.b', pattern: 'y' },
      ],
    });
    assert.equal(matches(both, { args: { a: 'x', b: 'n' } }), false, 'every condition must hold');
  });

  test('JSON paths read own properties only', () => {
    assert.deepEqual(jsonPathValues({ a: { b: [1, 2] } }, '$.a.b[1]'), [2]);
    assert.deepEqual(jsonPathValues({ a: { 'x.y': 3 } }, "$.a['x.y']"), [3]);
    assert.deepEqual(jsonPathValues({}, '$.constructor'), []);
    assert.deepEqual(jsonPathValues(JSON.parse('{"__proto__": {"p": 1}}'), '$.__proto__.p'), [1]);
  });

  test('entrance: a rule applies only at the entrances it names', () => {
    const r = rule('r', 'deny', { entrance: ['agent', 'app'] });
    assert.equal(matches(r, { entrance: 'agent' }), true);
    assert.equal(matches(r, { entrance: 'plan' }), false);
    assert.equal(matches(r, { entrance: 'call' }), false);
  });

  test('paths resolve against the workspace, Windows forms too', () => {
    assert.deepEqual(resolveArgPath('C:\\w\\src\\a.ts', 'C:\\w'), {
      outside: false,
      normalised: 'C:/w/src/a.ts',
      relative: 'src/a.ts',
      forms: ['src/a.ts'],
    });
    assert.equal(resolveArgPath('c:/W/x', 'C:\\w').outside, false);
    assert.equal(resolveArgPath('D:/w/x', 'C:\\w').outside, true);
    assert.equal(resolveArgPath('/home/u/project-other/x', ROOT).outside, true, 'a sibling with the same prefix is outside');
    assert.equal(resolveArgPath('a.txt', undefined).outside, true, 'no workspace: every path is outside');
  });
});

describe("the tool's own declaration and Plangate's defaults", () => {
  test('_meta.approval "ask" is asked unless a rule denies it; an allow rule cannot lift it', () => {
    const meta = { approval: 'ask' };
    assert.equal(evaluate(rules([]), call({ meta, annotations: { readOnlyHint: true } })).decision, 'ask');
    const allowed = evaluate(rules(user(rule('ok', 'allow'))), call({ meta }));
    assert.equal(allowed.decision, 'ask');
    assert.equal(allowed.rule.source, 'tool');
    assert.equal(evaluate(rules(user(rule('no', 'deny'))), call({ meta })).decision, 'deny');
    for (const other of [{ approval: 'ASK' }, { approval: true }, 'ask', ['ask'], null])
      assert.equal(evaluate(rules([]), call({ meta: other, annotations: { readOnlyHint: true } })).decision, 'allow');
  });

  test('a destructive tool is asked by default; a user allow rule lets it run; a read-only tool runs', () => {
    const destructive = call({ annotations: { destructiveHint: true } });
    const v = evaluate(rules([]), destructive);
    assert.equal(v.decision, 'ask');
    assert.equal(v.rule.id, 'plangate:destructive');
    assert.equal(evaluate(rules(user(rule('mine', 'allow', { tool: 'write_file' }))), destructive).decision, 'allow');
    assert.equal(evaluate(rules([]), call({ annotations: { readOnlyHint: true } })).decision, 'allow');
    assert.equal(evaluate(rules([]), call()).decision, 'allow', 'a tool without hints is not called destructive');
  });

  test("a server's app's call is asked by default, even read-only; a user allow rule for apps lets it run; Always allow is offered", () => {
    const fromApp = call({ entrance: 'app', annotations: { readOnlyHint: true } });
    const v = evaluate(rules([]), fromApp);
    assert.equal(v.decision, 'ask');
    assert.equal(v.rule.id, 'plangate:app');
    assert.match(v.rule.reason, /the app of server 'fs' asked for this call/);
    assert.equal(canAlwaysAllow(v), true);
    const allowed = evaluate(rules(user(rule('apps', 'allow', { server: 'fs', entrance: ['app'] }))), fromApp);
    assert.deepEqual([allowed.decision, allowed.rule.id], ['allow', 'apps']);
    // A workspace allow does not lift it: Plangate's default is the user's side.
    const loosened = evaluate(rules([], ws(rule('ws-apps', 'allow', { entrance: ['app'] }))), fromApp);
    assert.deepEqual([loosened.decision, loosened.notHonoured?.id], ['ask', 'ws-apps']);
    // The same tool from another entrance is not asked.
    assert.equal(evaluate(rules([]), call({ entrance: 'agent', annotations: { readOnlyHint: true } })).decision, 'allow');
  });
});

describe('sources and trust', () => {
  test('a workspace allow never loosens what the user decides: the user decision stands and the workspace rule is named', () => {
    const destructive = call({ annotations: { destructiveHint: true } });
    const v = evaluate(rules([], ws(rule('repo-allows', 'allow'))), destructive);
    assert.equal(v.decision, 'ask');
    assert.equal(v.rule.id, 'plangate:destructive');
    assert.equal(v.notHonoured?.id, 'repo-allows');
    const over = evaluate(rules(user(rule('ask-writes', 'ask', { tool: 'write_*' })), ws(rule('repo-allows', 'allow'))), call());
    assert.equal(over.decision, 'ask');
  });

  test('a workspace rule may tighten: its deny and ask apply', () => {
    assert.equal(evaluate(rules(user(rule('ok', 'allow')), ws(rule('no', 'deny'))), call()).decision, 'deny');
    assert.equal(evaluate(rules([], ws(rule('hmm', 'ask'))), call({ annotations: { readOnlyHint: true } })).decision, 'ask');
  });
});

describe('parsing', () => {
  test('the workspace file: JSONC with comments and trailing commas; problems with line and column; valid rules still apply', () => {
    const text = [
      '{',
      '  // my rules',
      '  "rules": [',
      '    { "id": "no-rm", "decision": "deny", "reason": "no deletes", "tool": "delete_*" },',
      '    { "id": "bad", "decision": "maybe", "reason": "x" },',
      '    { "id": "no-reason", "decision": "ask" },',
      '  ],',
      '}',
    ].join('\n');
    const parsed = parsePolicyText(text);
    assert.deepEqual(
      parsed.rules.map((r) => [r.id, r.source]),
      [['no-rm', 'workspace']],
    );
    const problems = parsed.problems.map((p) => [p.message.slice(0, 40), p.range?.line, p.range?.column]);
    assert.deepEqual(problems, [
      [`Rule 'bad': "decision" must be "allow", `, 4, 31], // at "maybe"
      [`Rule 'no-reason' needs a "reason": it is`, 5, 4],
    ]);
  });

  test('broken JSON is a problem at its place', () => {
    const parsed = parsePolicyText('{ "rules": [ { "id": "a" ');
    assert.equal(parsed.rules.length, 0);
    assert.ok(parsed.problems.length > 0);
    assert.match(parsed.problems[0]!.message, /Not valid JSON/);
    assert.equal(parsed.problems[0]!.range?.line, 0);
  });

  test('every field is checked, naming it: ids unique, annotations, args, entrance, patterns', () => {
    const bad = (r: Record<string, unknown>) => parsePolicyValue({ rules: [{ id: 'x', decision: 'deny', reason: 'r', ...r }] }, 'user');
    assert.match(bad({ annotations: { scary: true } }).problems[0]!.message, /annotation 'scary'/);
    assert.match(bad({ args: [{ path: '$.a' }] }).problems[0]!.message, /tests nothing/);
    assert.match(bad({ args: [{ path: '$.[', glob: 'x' }] }).problems[0]!.message, /JSON path/);
    assert.match(bad({ args: [{ path: '$.a', pattern: '(' }] }).problems[0]!.message, /not a valid regular expression/);
    assert.match(
      bad({ entrance: ['chat'] }).problems[0]!.message,
      /"entrance" must be one or more of plan, agent, call, app, recovery, sampling/,
    );
    assert.deepEqual(bad({ entrance: 'agent' }).rules[0]!.entrance, ['agent']);
    const dup = parsePolicyValue({ rules: [rule('same', 'deny'), rule('same', 'allow')] }, 'user');
    assert.equal(dup.rules.length, 1);
    assert.match(dup.problems[0]!.message, /is used by rule 1 already/);
    assert.deepEqual(parsePolicyValue(undefined, 'user'), { rules: [], problems: [] });
    assert.match(parsePolicyValue([], 'user').problems[0]!.message, /A policy is an object/);
  });
});

describe('problems of a valid policy', () => {
  const catalog = {
    servers: [
      {
        name: 'fs',
        tools: [
          { name: 'read_file', annotations: { readOnlyHint: true } },
          { name: 'delete_file', annotations: { destructiveHint: true } },
        ],
      },
      { name: 'stopped' },
    ],
  };

  test('an unknown server, a tool pattern that matches no listed tool, a rule that can never fire', () => {
    const r = rules(
      user(
        rule('ghost', 'deny', { server: 'gihub' }),
        rule('typo', 'deny', { server: 'fs', tool: 'dleete_*' }),
        rule('never', 'ask', { annotations: { readOnly: true, destructive: true } }),
        rule('all', 'deny', { server: 'fs' }),
        rule('shadowed', 'allow', { server: 'fs', tool: 'read_file' }),
      ),
    );
    const messages = lintPolicy(r, 'user', catalog).map((p) => `${p.ruleId}: ${p.message}`);
    assert.ok(
      messages.some((m) => /^ghost: .*no configured server matches "gihub"/.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /^typo: .*matches no tool/.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /^never: .*can never fire/.test(m)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => /^shadowed: .*rule 'all' \(user, deny\).*deny beats allow/.test(m)),
      messages.join('\n'),
    );
    assert.ok(!messages.some((m) => m.startsWith('all:')), 'the wide rule itself is fine');
  });

  test('a workspace allow that can allow a destructive tool is flagged as loosening; a narrow one is not', () => {
    const loose = lintPolicy(rules([], ws(rule('repo', 'allow', { server: 'fs' }))), 'workspace', catalog);
    assert.match(loose[0]!.message, /would loosen your own policy: it allows the destructive tool 'fs\/delete_file'/);
    assert.deepEqual(lintPolicy(rules([], ws(rule('repo', 'allow', { server: 'fs', tool: 'read_file' }))), 'workspace', catalog), []);
    assert.match(lintPolicy(rules([], ws(rule('repo', 'allow'))), 'workspace').at(-1)!.message, /can allow destructive tools/);
  });

  test("a workspace allow for nothing but an app's calls is flagged: the default ask for apps stands, so it never fires", () => {
    const appsOnly = rule('repo-apps', 'allow', { server: 'fs', tool: 'read_file', entrance: ['app'] });
    const [problem] = lintPolicy(rules([], ws(appsOnly)), 'workspace', catalog);
    assert.match(problem!.message, /Rule 'repo-apps' would loosen your own policy: it only allows calls a server's app makes/);
    const fromApp = call({ server: 'fs', tool: 'read_file', entrance: 'app', annotations: { readOnlyHint: true } });
    assert.equal(evaluate(rules([], ws(appsOnly)), fromApp, { workspaceRoot: ROOT }).decision, 'ask', 'and indeed it is not honoured');
    const mixed = rule('repo-read', 'allow', { server: 'fs', tool: 'read_file', entrance: ['app', 'agent'] });
    assert.deepEqual(lintPolicy(rules([], ws(mixed)), 'workspace', catalog), [], "it allows the agent's calls: not flagged");
  });
});

describe('Always allow', () => {
  test('the narrowest rule: this server, this tool, this entrance, names escaped; a unique id', () => {
    const r = narrowestRule({ server: 'my*srv', tool: '*', entrance: 'agent' }, ['allow-my-srv-x'], new Date('2026-12-01T00:00:00Z'));
    assert.deepEqual(
      { id: r.id, server: r.server, tool: r.tool, entrance: r.entrance, decision: r.decision },
      { id: 'allow-my-srv-x-2', server: 'my\\*srv', tool: '\\*', entrance: ['agent'], decision: 'allow' },
    );
    const back = parsePolicyValue({ rules: [r] }, 'user').rules;
    assert.equal(evaluate(rules(back), call({ server: 'my*srv', tool: '*', annotations: { destructiveHint: true } })).decision, 'allow');
    assert.equal(evaluate(rules(back), call({ server: 'my*srv', tool: 'other', annotations: { destructiveHint: true } })).decision, 'ask');
  });

  test("offered only where it would change the decision: not for a user's ask rule or the tool's own declaration", () => {
    assert.equal(canAlwaysAllow(evaluate(rules([]), call({ annotations: { destructiveHint: true } }))), true);
    assert.equal(canAlwaysAllow(evaluate(rules(user(rule('a', 'ask'))), call())), false);
    assert.equal(canAlwaysAllow(evaluate(rules([]), call({ meta: { approval: 'ask' } }))), false);
  });
});

describe('the status bar', () => {
  test('a call waiting on the card counts as awaiting approval', () => {
    assert.equal(describeStatus(EMPTY_WORKFLOW).text, 'idle');
    const waiting = describeStatus(EMPTY_WORKFLOW, 1);
    assert.equal(waiting.text, 'awaiting approval (1)');
    assert.equal(waiting.state, 'awaiting');
    assert.match(waiting.tooltip, /1 call waiting for your decision/);
  });
});

describe("a plan step's mark", () => {
  test("a rule's deny is marked with its reason; Plangate's defaults are not (unless a workspace rule was not honoured)", () => {
    assert.equal(
      stepPolicyMark({ decision: 'deny', ruleId: 'no-rm', source: 'user', reason: 'no deletes' })?.text,
      "Denied by your rule 'no-rm': no deletes",
    );
    assert.equal(stepPolicyMark({ decision: 'ask', ruleId: 'plangate:destructive', source: 'default', reason: 'r' }), undefined);
    assert.equal(stepPolicyMark({ decision: 'allow', ruleId: 'plangate:default', source: 'default', reason: 'r' }), undefined);
    assert.match(
      stepPolicyMark({ decision: 'ask', ruleId: 'plangate:destructive', source: 'default', reason: 'r', notHonoured: 'repo' })?.text ?? '',
      /the workspace's rule 'repo' would allow it; your policy stands/,
    );
    assert.match(
      stepPolicyMark({ decision: 'ask', ruleId: 'tool:approval', source: 'tool', reason: 'r' })?.text ?? '',
      /^Asked because: r \(the tool's own declaration\)/,
    );
  });
});
