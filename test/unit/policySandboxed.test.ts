// A policy rule may say `sandboxed: true|false`: it applies only to calls of servers Plangate runs in a sandbox, or only
// to servers running without one. So a user can allow more of a sandboxed server's calls (as VS Code does), or deny a
// tool wherever its server is not sandboxed. Tried in the evaluator, and end to end with `plangate run` against the
// fixture's hostile tool in the real sandbox (bubblewrap through @anthropic-ai/sandbox-runtime).
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { evaluate, type PolicyCall } from '../../src/core/policy/evaluate';
import { parsePolicyValue } from '../../src/core/policy/parse';
import { testBundles } from './helpers/bundles';

const destructive = { destructiveHint: true, readOnlyHint: false };
const call = (sandboxed: boolean | undefined): PolicyCall => ({
  server: 'fs',
  tool: 'write_file',
  args: {},
  entrance: 'agent',
  annotations: destructive,
  ...(sandboxed === undefined ? {} : { sandboxed }),
});

describe('policy rules with "sandboxed"', () => {
  const parsed = parsePolicyValue(
    {
      rules: [
        { id: 'sandboxed-writes', decision: 'allow', reason: 'the sandbox holds its writes', tool: 'write_*', sandboxed: true },
        { id: 'bare-deletes', decision: 'deny', reason: 'deletes only in a sandbox', tool: 'delete_*', sandboxed: false },
      ],
    },
    'user',
  );
  const rules = { user: parsed.rules, workspace: [] };

  test('parses, and a value other than true or false is a problem naming the rule and the key', () => {
    assert.deepEqual(parsed.problems, []);
    assert.equal(parsed.rules[0]?.sandboxed, true);
    const bad = parsePolicyValue({ rules: [{ id: 'x', decision: 'allow', reason: 'r', sandboxed: 'yes' }] }, 'user');
    assert.equal(bad.rules.length, 0);
    assert.match(bad.problems[0]?.message ?? '', /Rule 'x'.*"sandboxed" must be true or false/);
  });

  test('sandboxed: true applies only to a sandboxed server; unknown counts as not sandboxed', () => {
    const inSandbox = evaluate(rules, call(true));
    assert.equal(inSandbox.decision, 'allow');
    assert.equal(inSandbox.rule.id, 'sandboxed-writes');
    for (const state of [false, undefined]) {
      const bare = evaluate(rules, call(state));
      assert.equal(bare.decision, 'ask', `sandboxed ${String(state)}: a destructive tool is asked by default`);
      assert.equal(bare.rule.id, 'plangate:destructive');
    }
  });

  test('sandboxed: false applies only to a server running without a sandbox', () => {
    const del = (sandboxed: boolean): PolicyCall => ({ ...call(sandboxed), tool: 'delete_file' });
    assert.equal(evaluate(rules, del(false)).decision, 'deny');
    assert.equal(evaluate(rules, del(true)).rule.id, 'plangate:destructive');
  });
});

async function tempDir(t: TestContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('plangate run: a rule that denies a tool wherever its server is not sandboxed', () => {
  const run = (cwd: string, args: string[]) =>
    spawnSync(process.execPath, [testBundles().cli, 'run', ...args], { cwd, encoding: 'utf8', env: process.env, timeout: 60_000 });

  test('the call runs when the server is sandboxed, and is denied, never sent, when it is not', async (t) => {
    const ws = await tempDir(t, 'plangate-policy-sbx-');
    const elsewhere = await tempDir(t, 'plangate-policy-else-');
    const policy = path.join(ws, 'mine.json');
    await writeFile(
      policy,
      JSON.stringify({
        rules: [
          { id: 'hostile-only-sandboxed', decision: 'deny', reason: 'runs only in a sandbox', tool: 'escape_attempt', sandboxed: false },
        ],
      }),
    );
    const outside = path.join(elsewhere, 'escaped.txt');
    // A local port the hostile tool tries to reach: nothing may connect (denied unsandboxed, refused sandboxed).
    let accepted = 0;
    const tcp = createServer((socket) => {
      accepted++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
    const port = (tcp.address() as { port: number }).port;
    const base = [
      '--server',
      `"${process.execPath}" "${testBundles().fixture}" --root "${ws}"`,
      '--tool',
      'escape_attempt',
      '--args',
      JSON.stringify({ outside, port }),
      '--policy',
      policy,
      '--yes',
    ];

    const bare = run(ws, base);
    assert.notEqual(bare.status, 0, bare.stdout);
    assert.match(bare.stdout + bare.stderr, /runs only in a sandbox/);
    assert.match(bare.stdout + bare.stderr, /hostile-only-sandboxed/);
    assert.equal(existsSync(outside), false, 'the hostile tool ran unsandboxed');
    assert.doesNotMatch(bare.stdout, /"writeInside"/, 'the call reached the server');

    const sandboxed = run(ws, [...base, '--sandbox', 'on']);
    assert.equal(sandboxed.status, 0, sandboxed.stderr);
    assert.match(sandboxed.stdout, /"writeOutside":"EROFS"/);
    assert.equal(existsSync(outside), false);
    assert.equal(accepted, 0, 'the hostile tool reached the local port');
  });
});

describe('plangate policy explain --sandboxed', () => {
  test("explains a call as a sandboxed server's, and says which it took", async (t) => {
    const dir = await tempDir(t, 'plangate-explain-sbx-');
    const user = path.join(dir, 'mine.json');
    await writeFile(
      user,
      JSON.stringify({
        rules: [{ id: 'bare-deletes', decision: 'deny', reason: 'deletes only in a sandbox', tool: 'delete_*', sandboxed: false }],
      }),
    );
    const explain = (extra: string[]) =>
      spawnSync(
        process.execPath,
        [testBundles().cli, 'policy', 'explain', '--server', 'fs', '--tool', 'delete_file', '--user', user, ...extra],
        { cwd: dir, encoding: 'utf8', timeout: 30_000 },
      );
    const bare = explain([]);
    assert.equal(bare.status, 0, bare.stderr);
    assert.match(bare.stdout, /^deny: /m);
    assert.match(bare.stdout, /server: not sandboxed \(--sandboxed to explain it as sandboxed\)/);
    const boxed = explain(['--sandboxed']);
    assert.equal(boxed.status, 0, boxed.stderr);
    assert.match(boxed.stdout, /^allow: /m);
    assert.match(boxed.stdout, /server: sandboxed/);
    const json = JSON.parse(explain(['--sandboxed', '--json']).stdout) as { decision: string; sandboxed: boolean };
    assert.deepEqual([json.decision, json.sandboxed], ['allow', true]);
  });
});
