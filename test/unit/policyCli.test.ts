// `plangate policy check` and `plangate policy explain`, run as the real CLI: check names each problem of a policy
// file by line and column with validate's exit codes; explain prints the decision, the winning rule and every rule
// that matched, deny beating ask whatever the order, and a workspace rule that would loosen the user's not honoured.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureServer, runCli, workspace } from './helpers/cliHarness';

const dir = mkdtempSync(join(tmpdir(), 'plangate-policy-cli-'));
mkdirSync(join(dir, '.vscode'));
after(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

describe('plangate policy check', () => {
  test('a valid file: exit 0 and a summary; a broken rule: exit 1 with file:line:column; no file: exit 2', async () => {
    write('.vscode/plangate-policy.json', '{ "rules": [ { "id": "a", "decision": "deny", "reason": "r", "tool": "x" } ] }');
    const ok = await runCli(['policy', 'check'], { cwd: dir });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /1 rule\(s\), no errors/);
    const bad = write('bad.json', '{\n  // comment\n  "rules": [\n    { "id": "b", "decision": "nope", "reason": "r" }\n  ]\n}\n');
    const broken = await runCli(['policy', 'check', bad], { cwd: dir });
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /bad\.json:4:30: error: Rule 'b': "decision" must be "allow", "ask" or "deny"\./);
    const missing = await runCli(['policy', 'check', join(dir, 'nope.json')], { cwd: dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read .*nope\.json: ENOENT/);
  });
});

describe('plangate policy explain', () => {
  test('deny beats ask whatever the order; the winning rule and every matched rule are printed', async () => {
    write(
      '.vscode/plangate-policy.json',
      JSON.stringify({
        rules: [
          { id: 'review-deletes', decision: 'ask', reason: 'deleting is reviewed', tool: 'delete_*' },
          { id: 'stay-inside', decision: 'deny', reason: 'stay in the workspace', args: [{ path: '$.path', outsideWorkspace: true }] },
        ],
      }),
    );
    const out = await runCli(['policy', 'explain', '--server', 'fs', '--tool', 'delete_file', '--args', '{"path":"../x"}'], { cwd: dir });
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trim().split('\n');
    assert.equal(lines[0], "deny: Denied by the workspace's rule 'stay-inside': stay in the workspace");
    assert.deepEqual(
      lines.slice(-3, -1).map((l) => l.trim().split(/\s+/).slice(0, 2).join(' ')),
      ['ask review-deletes', 'deny stay-inside'],
    );
    // The terminal cannot read the card's session and workspace approvals (VS Code keeps them): it says so.
    assert.match(lines.at(-1)!, /^ {2}not seen here: your approvals for this session and in this workspace \(kept by VS Code/);
    const inside = await runCli(['policy', 'explain', '--server', 'fs', '--tool', 'delete_file', '--args', '{"path":"tmp/x"}', '--json'], {
      cwd: dir,
    });
    assert.equal(JSON.parse(inside.stdout).rule.id, 'review-deletes');
  });

  test("a workspace allow does not loosen the user's default ask for a destructive tool; a bad entrance is a usage error", async () => {
    write('.vscode/plangate-policy.json', JSON.stringify({ rules: [{ id: 'repo', decision: 'allow', reason: 'trust the repo' }] }));
    const out = await runCli(
      ['policy', 'explain', '--server', 'fs', '--tool', 'wipe', '--annotations', '{"destructiveHint":true}', '--json'],
      { cwd: dir },
    );
    const verdict = JSON.parse(out.stdout);
    assert.equal(verdict.decision, 'ask');
    assert.equal(verdict.rule.id, 'plangate:destructive');
    assert.equal(verdict.notHonoured.id, 'repo');
    const user = write('user.json', JSON.stringify({ rules: [{ id: 'mine', decision: 'allow', reason: 'I know wipe', tool: 'wipe' }] }));
    const mine = await runCli(
      ['policy', 'explain', '--server', 'fs', '--tool', 'wipe', '--annotations', '{"destructiveHint":true}', '--user', user, '--json'],
      { cwd: dir },
    );
    assert.equal(JSON.parse(mine.stdout).decision, 'allow');
    const bad = await runCli(['policy', 'explain', '--server', 'fs', '--tool', 'x', '--entrance', 'chat'], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--entrance must be one of plan, agent, call, app, recovery, sampling/);
  });
});

describe('plangate run honours the policy', () => {
  test("a step the policy denies is named before Proceed, never sent, and the run stops with the rule's reason (exit 1)", async () => {
    const w = workspace();
    try {
      mkdirSync(join(w.dir, '.vscode'));
      writeFileSync(
        join(w.dir, '.vscode', 'plangate-policy.json'),
        JSON.stringify({
          rules: [{ id: 'no-components', decision: 'deny', reason: 'components are made by hand', tool: 'create_component' }],
        }),
      );
      const server = await fixtureServer(w);
      const out = await runCli(['run', '--server', server, '--tool', 'plan_scaffold', '--yes'], { cwd: w.dir });
      assert.equal(out.code, 1, out.stderr);
      assert.match(out.stderr, /Step 2 cannot run: Denied by the workspace's rule 'no-components': components are made by hand/);
      assert.match(
        out.stdout,
        /Failed at step 2 \(create_component\): Not sent: Policy denies calling 'create_component'.*\(rule 'no-components'\)/,
      );
      assert.deepEqual(
        w.callLog().map((c) => c.tool),
        ['plan_scaffold', 'create_screen'],
      );
    } finally {
      w.remove();
    }
  });
});
