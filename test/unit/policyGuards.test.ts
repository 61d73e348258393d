// The policy against a hostile repository and a hostile server (issue 24, items 6–8): a path argument is read where the
// disk leads it (a link in a real temporary folder that leads out of the workspace is outside), a rule's pattern runs in
// linear time (a catastrophic-backtracking pattern on a long argument still answers; what RE2 cannot run is refused,
// naming the rule and the pattern, in the parsed problems and in `plangate policy check`), and server and tool globs
// match names as names (`*` across `/`, leading dots, `..`).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate, MAX_NAME_LENGTH, nameMatches, ruleMatches, type PolicyCall, type PolicyContext } from '../../src/core/policy/evaluate';
import { compileNameGlob } from '../../src/core/policy/nameGlob';
import { parsePolicyText, parsePolicyValue } from '../../src/core/policy/parse';
import { compilePattern } from '../../src/core/policy/pattern';
import type { PolicyDecision, PolicyRule } from '../../src/core/policy/rules';
import { resolveArgPath } from '../../src/core/policy/workspacePath';
import { nodeRealPath } from '../../src/node/realPath';
import { fixtureServer, runCli, workspace } from './helpers/cliHarness';

const call = (over: Partial<PolicyCall> = {}): PolicyCall => ({ server: 'fs', tool: 'write_file', args: {}, entrance: 'agent', ...over });
const rule = (id: string, decision: PolicyDecision, over: Partial<PolicyRule> = {}): PolicyRule => ({
  id,
  decision,
  reason: `because ${id}`,
  ...over,
});
const holds = (r: PolicyRule, c: Partial<PolicyCall>, context: PolicyContext = {}) =>
  ruleMatches({ ...r, source: 'user', index: 0 }, call(c), context);

// A real folder: home/.ssh/authorized_keys outside the workspace ws/, and links in ws/ that lead out (and one that stays in).
const top = mkdtempSync(join(tmpdir(), 'plangate-policy-links-'));
after(() => rmSync(top, { recursive: true, force: true }));
const home = join(top, 'home');
const ws = join(top, 'ws');
mkdirSync(join(home, '.ssh'), { recursive: true });
writeFileSync(join(home, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA');
mkdirSync(join(ws, 'src'), { recursive: true });
mkdirSync(join(ws, '.vscode'));
writeFileSync(join(ws, 'src', 'a.ts'), '');
symlinkSync(join(home, '.ssh'), join(ws, 'docs')); // docs -> ~/.ssh
symlinkSync(join(home, '.ssh', 'not_yet'), join(ws, 'notes.txt')); // a dangling link: writing through it creates the target
symlinkSync(join(ws, 'src'), join(ws, 'alias')); // a link that stays inside
symlinkSync(ws, join(top, 'ws-link')); // the workspace itself opened through a link
const disk: PolicyContext = { workspaceRoot: ws, realPath: nodeRealPath };

describe('a symlink does not walk out of "stay inside"', () => {
  const outside = rule('outside', 'deny', { args: [{ path: '$.path', outsideWorkspace: true }] });

  test('a path through a link that leads out is outside, whether the file exists, is still to be made, or is reached by ..', () => {
    for (const p of ['docs/authorized_keys', 'docs/new_key', 'docs', 'docs/../x', `${ws}/docs/authorized_keys`, 'notes.txt'])
      assert.equal(holds(outside, { args: { path: p } }, disk), true, p);
    assert.equal(
      evaluate({ user: [{ ...outside, source: 'user', index: 0 }], workspace: [] }, call({ args: { path: 'docs/authorized_keys' } }), disk)
        .decision,
      'deny',
    );
  });

  test('paths that stay inside stay inside: plain files, new files, a link within the workspace, the workspace opened through a link', () => {
    for (const p of ['src/a.ts', 'src/new/b.ts', 'alias/a.ts', 'a.txt', 'src/../a.txt'])
      assert.equal(holds(outside, { args: { path: p } }, disk), false, p);
    const viaLink: PolicyContext = { workspaceRoot: join(top, 'ws-link'), realPath: nodeRealPath };
    assert.equal(holds(outside, { args: { path: 'src/a.ts' } }, viaLink), false);
    assert.equal(holds(outside, { args: { path: 'docs/authorized_keys' } }, viaLink), true);
  });

  test('.., %2e, ~ and the other traps are outside as before, with the disk consulted too', () => {
    for (const p of ['../x', '/etc/passwd', '~/.ssh/id_rsa', 'src/../../x', '%2e%2e/x', 'file:///etc/passwd', '$HOME/x'])
      assert.equal(holds(outside, { args: { path: p } }, disk), true, p);
  });

  test("a glob reads both forms: a deny rule's holds when either matches, an allow rule's only when both do", () => {
    const denyDocs = rule('d', 'deny', { args: [{ path: '$.path', glob: 'docs/**' }] });
    const denySsh = rule('s', 'deny', { args: [{ path: '$.path', glob: '**/.ssh/**' }] });
    const allowDocs = rule('a', 'allow', { args: [{ path: '$.path', glob: 'docs/**' }] });
    const allowSrc = rule('a', 'allow', { args: [{ path: '$.path', glob: 'src/**' }] });
    assert.equal(holds(denyDocs, { args: { path: 'docs/authorized_keys' } }, disk), true, 'as written');
    assert.equal(holds(denySsh, { args: { path: 'docs/authorized_keys' } }, disk), true, 'where it leads');
    assert.equal(
      holds(allowDocs, { args: { path: 'docs/authorized_keys' } }, disk),
      false,
      'an allow rule never allows through a link out',
    );
    assert.equal(holds(allowSrc, { args: { path: 'src/a.ts' } }, disk), true);
    assert.equal(holds(allowSrc, { args: { path: 'alias/a.ts' } }, disk), false, 'written form does not match');
  });

  test('a path the disk cannot settle (a link loop) is outside', () => {
    const loop = mkdtempSync(join(tmpdir(), 'plangate-policy-loop-'));
    try {
      symlinkSync(join(loop, 'b'), join(loop, 'a'));
      symlinkSync(join(loop, 'a'), join(loop, 'b'));
      const r = resolveArgPath('a/x', loop, nodeRealPath);
      assert.equal(r.outside, true);
      assert.equal(resolveArgPath('ok.txt', loop, nodeRealPath).outside, false);
    } finally {
      rmSync(loop, { recursive: true, force: true });
    }
  });

  test('the node port: the real path of what exists, where a dangling link leads, nothing for what is not there', () => {
    assert.equal(nodeRealPath(join(ws, 'docs', 'authorized_keys')), realpathSync(join(home, '.ssh', 'authorized_keys')));
    assert.equal(nodeRealPath(join(ws, 'notes.txt')), join(realpathSync(join(home, '.ssh')), 'not_yet'));
    assert.equal(nodeRealPath(join(ws, 'nothing')), undefined);
  });

  test('plangate policy explain reads the disk: a link out of the current folder is outside', async () => {
    writeFileSync(
      join(ws, '.vscode', 'plangate-policy.json'),
      JSON.stringify({ rules: [rule('stay-inside', 'deny', { args: [{ path: '$.path', outsideWorkspace: true }] })] }),
    );
    const explain = (path: string) =>
      runCli(['policy', 'explain', '--server', 'fs', '--tool', 'write_file', '--args', JSON.stringify({ path }), '--json'], { cwd: ws });
    const out = await explain('docs/authorized_keys');
    assert.equal(out.code, 0, out.stderr);
    assert.equal(JSON.parse(out.stdout).decision, 'deny');
    const inside = await explain('src/a.ts');
    assert.equal(JSON.parse(inside.stdout).decision, 'allow');
  });
});

describe('plangate run reads the disk too', () => {
  test('a call whose path leads out through a link is denied by a stay-inside rule and never sent', async () => {
    const w = workspace();
    try {
      mkdirSync(join(w.dir, '.vscode'));
      symlinkSync(join(home, '.ssh'), join(w.dir, 'docs'));
      writeFileSync(
        join(w.dir, '.vscode', 'plangate-policy.json'),
        JSON.stringify({ rules: [rule('stay-inside', 'deny', { args: [{ path: '$.path', outsideWorkspace: true }] })] }),
      );
      const server = await fixtureServer(w);
      const args = (path: string) => [
        'run',
        '--server',
        server,
        '--tool',
        'write_file_step',
        '--args',
        JSON.stringify({ path, content: 'x' }),
        '--yes',
      ];
      const out = await runCli(args('docs/authorized_keys'), { cwd: w.dir });
      assert.equal(out.code, 2, out.stderr);
      assert.match(out.stderr, /Policy denies calling 'write_file_step'.*\(rule 'stay-inside'\)\.; nothing ran/);
      assert.deepEqual(
        w.callLog().map((c) => c.tool),
        [],
      );
      const inside = await runCli(args('notes/a.txt'), { cwd: w.dir });
      assert.equal(inside.code, 0, inside.stderr);
      assert.deepEqual(
        w.callLog().map((c) => c.tool),
        ['write_file_step'],
      );
    } finally {
      w.remove();
    }
  });
});

describe("a rule's pattern cannot freeze the extension host", () => {
  const command = (pattern: string, decision: PolicyDecision = 'deny') =>
    rule('hostile', decision, { args: [{ path: '$.command', pattern }] });

  test('catastrophic-backtracking patterns against long adversarial arguments answer (RE2, linear time)', () => {
    // On a backtracking engine the first takes about 2^40 steps; each of these would hang the host.
    assert.equal(holds(command('^(a+)+$'), { args: { command: `${'a'.repeat(40)}!` } }), false);
    assert.equal(holds(command('^(a+)+$'), { args: { command: 'a'.repeat(40) } }), true);
    assert.equal(holds(command('(a|a)*b'), { args: { command: 'a'.repeat(5000) } }), false);
    assert.equal(holds(command('(.*a){20}'), { args: { command: 'a'.repeat(5000) } }), true);
    assert.equal(holds(command('^(\\w+\\s?)*$'), { args: { command: `${'word '.repeat(1000)}!` } }), false);
  });

  test("JavaScript's meaning is kept where RE2 allows: \\u escapes, \\s, ., [^], \\cX, astral characters", () => {
    const t = (pattern: string, text: string) => {
      const c = compilePattern(pattern);
      assert.ok(c.ok, `${pattern} compiles`);
      return c.test(text);
    };
    assert.equal(t('^\\u0041$', 'A'), true);
    assert.equal(t('^\\u{1F600}$', '😀'), true);
    assert.equal(t('^\\uD83D\\uDE00$', '😀'), true, 'an escaped surrogate pair is one character');
    assert.equal(t('^.$', '😀'), true);
    assert.equal(t('^rm\\s-rf', 'rm\u00a0-rf'), true, "\\s is JavaScript's whitespace (no-break space)");
    assert.equal(t('^rm[\\s]-rf', 'rm\u2028-rf'), true);
    assert.equal(t('^a\\Sb$', 'a\u00a0b'), false);
    assert.equal(t('^ls .*$', 'ls x\ry'), false, '. stops at a line terminator, as in JavaScript');
    assert.equal(t('^a[^]b$', 'a\nb'), true);
    assert.equal(t('^a[]b$', 'ab'), false);
    assert.equal(t('^\\cJ$', '\n'), true);
    assert.equal(t('\\\\u0041', '\\u0041'), true, 'an escaped backslash stays a backslash');
    assert.equal(t('^(?<cmd>rm)\\b', 'rm -rf'), true);
  });

  test('a path glob picomatch refuses (longer than 64 KiB) is a problem of the policy, naming the rule; the rule leans strict', () => {
    const glob = 'a'.repeat(70_000);
    const parsed = parsePolicyValue(
      {
        rules: [
          rule('long-deny', 'deny', { args: [{ path: '$.path', glob }] }),
          rule('long-allow', 'allow', { args: [{ path: '$.path', glob }] }),
          rule('fine', 'deny', { args: [{ path: '$.path', glob: 'src/**/{a,b}.ts' }] }),
        ],
      },
      'user',
    );
    assert.deepEqual(
      parsed.problems.map((p) => [p.ruleId, p.severity, p.path.join('.')]),
      [
        ['long-deny', 'error', 'rules.0.args.0.glob'],
        ['long-allow', 'error', 'rules.1.args.0.glob'],
      ],
    );
    assert.match(
      parsed.problems[0]!.message,
      /^Rule 'long-deny', argument condition 1: "glob" "a+…?.*is not a glob Plangate can use \(.*65536/,
    );
    assert.match(parsed.problems[0]!.message, /this deny rule applies as if it matched/);
    assert.match(parsed.problems[1]!.message, /this allow rule never applies/);
    assert.deepEqual(
      parsed.rules.map((r) => r.id),
      ['long-deny', 'long-allow', 'fine'],
      'kept, as the evaluation leans strict on them',
    );
  });

  test('backreferences and lookaround are refused, naming the rule and the pattern; the rule leans to the strict side', () => {
    const parsed = parsePolicyValue(
      {
        rules: [
          rule('repeat', 'deny', { args: [{ path: '$.command', pattern: '(a)\\1' }] }),
          rule('peek', 'allow', { args: [{ path: '$.command', pattern: '^(?!rm)' }] }),
          rule('behind', 'ask', { args: [{ path: '$.command', pattern: '(?<=x)y' }] }),
          rule('named', 'deny', { args: [{ path: '$.command', pattern: '(?<q>a)\\k<q>' }] }),
        ],
      },
      'user',
    );
    const byRule = new Map(parsed.problems.map((p) => [p.ruleId, p]));
    assert.match(byRule.get('repeat')!.message, /^Rule 'repeat', argument condition 1: "pattern" "\(a\)\\\\1" has a backreference \(\\1\)/);
    assert.match(byRule.get('repeat')!.message, /this deny rule applies as if it matched/);
    assert.match(byRule.get('peek')!.message, /^Rule 'peek'.*"\^\(\?!rm\)" has a lookahead/);
    assert.match(byRule.get('peek')!.message, /this allow rule never applies/);
    assert.match(byRule.get('behind')!.message, /^Rule 'behind'.* has a lookbehind/);
    assert.match(byRule.get('named')!.message, /^Rule 'named'.* has a backreference \(\\k<name>\)/);
    assert.ok(parsed.problems.every((p) => p.severity === 'error' && p.path.join('.').endsWith('args.0.pattern')));
    // Kept, leaning strict: the deny and ask rules hold, the allow rule never does.
    assert.deepEqual(
      parsed.rules.map((r) => r.id),
      ['repeat', 'peek', 'behind', 'named'],
    );
    const verdict = evaluate({ user: parsed.rules, workspace: [] }, call({ args: { command: 'ls' }, annotations: { readOnlyHint: true } }));
    assert.equal(verdict.decision, 'deny');
    assert.deepEqual(
      verdict.matched.map((r) => r.id),
      ['repeat', 'behind', 'named'],
    );
  });

  test('the workspace file: the problem sits on the pattern, with line and column', () => {
    const text =
      '{\n  "rules": [\n    { "id": "r", "decision": "deny", "reason": "x",\n      "args": [ { "path": "$.c", "pattern": "(x)\\\\1" } ] }\n  ]\n}\n';
    const parsed = parsePolicyText(text);
    assert.equal(parsed.problems.length, 1);
    assert.equal(parsed.problems[0]!.ruleId, 'r');
    assert.equal(parsed.problems[0]!.range?.line, 3);
    assert.equal(text.split('\n')[3]!.slice(parsed.problems[0]!.range!.column).startsWith('"(x)'), true);
  });

  test('plangate policy check names the rule and the pattern (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plangate-policy-check-'));
    try {
      const file = join(dir, 'policy.json');
      writeFileSync(
        file,
        JSON.stringify({ rules: [rule('no-repeat', 'deny', { args: [{ path: '$.command', pattern: '^(a+)\\1$' }] })] }, null, 2),
      );
      const out = await runCli(['policy', 'check', file], { cwd: dir });
      assert.equal(out.code, 1, out.stderr);
      assert.match(
        out.stderr,
        /policy\.json:\d+:\d+: error: Rule 'no-repeat', argument condition 1: "pattern" "\^\(a\+\)\\\\1\$" has a backreference/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('names are not paths', () => {
  test('* matches across / and dots; ? matches one character of any kind; {a,b} and [...] work', () => {
    assert.equal(nameMatches('*', 'fs/delete_file'), true);
    assert.equal(nameMatches('*', 'acme/fs'), true);
    assert.equal(nameMatches('*', '.hidden'), true);
    assert.equal(nameMatches('*', '..'), true);
    assert.equal(nameMatches('*', 'a/../b'), true);
    assert.equal(nameMatches('*', ''), true);
    assert.equal(nameMatches('fs*', 'fs/x/y'), true);
    assert.equal(nameMatches('fs/*', 'fs/x/y'), true);
    assert.equal(nameMatches('fs?delete', 'fs/delete'), true);
    assert.equal(nameMatches('fs?delete', 'fs//delete'), false);
    assert.equal(nameMatches('{acme,corp}/*', 'corp/fs'), true);
    assert.equal(nameMatches('{acme,corp}/*', 'other/fs'), false);
    assert.equal(nameMatches('{a,{b,c}}x', 'cx'), true);
    assert.equal(nameMatches('[a-c].x', 'b.x'), true);
    assert.equal(nameMatches('[!a-c].x', 'b.x'), false);
    assert.equal(nameMatches('*.internal', 'db.internal'), true);
    assert.equal(nameMatches('*.internal', 'dbXinternal'), false, '. is a literal dot');
    assert.equal(nameMatches('!fs', 'git'), true, 'a leading ! matches what the rest does not');
    assert.equal(nameMatches('!fs', 'fs'), false);
    assert.equal(nameMatches('**/delete', 'delete'), true, '**/ may match nothing, as for paths');
    assert.equal(nameMatches('**/delete', 'a/b/delete'), true);
    assert.equal(nameMatches('**/delete', 'xdelete'), false);
    assert.equal(nameMatches('\\*', '*'), true);
    assert.equal(nameMatches('\\*', 'x'), false);
  });

  test('a deny rule for every tool of a server also denies a tool named .., a/../b or with slashes', () => {
    const denyAll = { ...rule('all', 'deny', { server: 'evil', tool: '*' }), source: 'user' as const, index: 0 };
    for (const tool of ['..', '.', 'a/../b', 'x/y', '/etc/passwd', '.hidden', 'a\nb'])
      assert.equal(evaluate({ user: [denyAll], workspace: [] }, call({ server: 'evil', tool })).decision, 'deny', JSON.stringify(tool));
    const allServers = { ...rule('srv', 'deny', { server: '*' }), source: 'user' as const, index: 0 };
    assert.equal(evaluate({ user: [allServers], workspace: [] }, call({ server: 'acme/fs' })).decision, 'deny');
  });

  test('a long hostile name against a glob of many stars answers (linear time)', () => {
    assert.equal(nameMatches('*a*a*a*a*a*a*a*a*b', 'a'.repeat(50_000)), false);
  });

  test('a name longer than 1,000 characters is not read: deny and ask rules hold on it, allow rules do not', () => {
    const long = `fs_${'x'.repeat(MAX_NAME_LENGTH)}`;
    assert.equal(holds(rule('d', 'deny', { tool: 'git_*' }), { tool: long }), true);
    assert.equal(holds(rule('q', 'ask', { server: 'git' }), { server: long }), true);
    assert.equal(holds(rule('a', 'allow', { tool: 'fs_*' }), { tool: long }), false);
    assert.equal(holds(rule('a', 'allow', { tool: 'fs_*' }), { tool: long.slice(0, MAX_NAME_LENGTH) }), true, 'at the limit it is read');
  });

  test('path-only and extended syntax is refused with a reason; such a rule leans to the strict side', () => {
    for (const [glob, reason] of [
      ['@(read|list)_*', /extended globs/],
      ['tool_{1..3}', /range \{1\.\.3\}/],
      ['[[:alpha:]]*', /POSIX class/],
      ['[abc', /"\[" without its "\]"/],
      ['{a,b', /"\{" without its "\}"/],
      ['x\\', /lone \\/],
    ] as const) {
      const c = compileNameGlob(glob);
      assert.ok(!c.ok && reason.test(c.reason), `${glob}: ${c.ok ? 'compiled' : c.reason}`);
    }
    const parsed = parsePolicyValue(
      { rules: [rule('ext', 'deny', { tool: '@(read|list)_*' }), rule('ok', 'allow', { tool: '+(x)' })] },
      'user',
    );
    assert.match(parsed.problems[0]!.message, /^Rule 'ext': "tool" glob "@\(read\|list\)_\*" has "\(": extended globs/);
    assert.match(parsed.problems[0]!.message, /this deny rule applies as if it matched/);
    assert.equal(holds(parsed.rules[0]!, { tool: 'anything' }), true);
    assert.equal(holds(parsed.rules[1]!, { tool: 'x' }), false);
  });
});
