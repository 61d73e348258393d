// README "The plangate CLI", the policy sentences: `plangate run --policy FILE` honours your rules (a denied step is
// never sent), a call the policy asks about outside the plan is asked on the terminal, and `plangate policy explain
// --meta JSON` gives the tool's `_meta` (its own `approval: "ask"`). The real CLI bundle against the fixture server.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureServer, runCli, workspace } from './helpers/cliHarness';

const dir = mkdtempSync(join(tmpdir(), 'plangate-claims-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const policyFile = (name: string, rules: unknown[]) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ rules }));
  return file;
};

describe('plangate run --policy FILE', () => {
  test("your rules from --policy: a denied step is named before Proceed, never sent, and the run stops with the rule's reason", async () => {
    const w = workspace();
    try {
      const mine = policyFile('deny-components.json', [
        { id: 'no-components', decision: 'deny', reason: 'components are made by hand', tool: 'create_component' },
      ]);
      const server = await fixtureServer(w);
      const out = await runCli(['run', '--server', server, '--tool', 'plan_scaffold', '--yes', '--policy', mine], { cwd: w.dir });
      assert.equal(out.code, 1, out.stderr);
      assert.match(out.stderr, /Step 2 cannot run: Denied by your rule 'no-components': components are made by hand/);
      assert.deepEqual(
        w.callLog().map((c) => c.tool),
        ['plan_scaffold', 'create_screen'],
      );
      // The control: without --policy the same plan runs every step.
      const free = await runCli(['run', '--server', server, '--tool', 'plan_scaffold', '--yes'], { cwd: w.dir });
      assert.equal(free.code, 0, free.stderr);
      assert.ok(w.callLog().filter((c) => c.tool === 'create_component').length > 0);
    } finally {
      w.remove();
    }
  });

  test('a call the policy asks about outside the plan is asked on the terminal: No sends nothing, Yes sends it', async () => {
    const asks = policyFile('ask-echo.json', [{ id: 'ask-echo', decision: 'ask', reason: 'echo is reviewed', tool: 'echo' }]);
    for (const [answer, sent] of [
      ['n', false],
      ['y', true],
    ] as const) {
      const w = workspace();
      try {
        const server = await fixtureServer(w);
        const out = await runCli(['run', '--server', server, '--tool', 'echo', '--args', '{"message":"hi"}', '--policy', asks], {
          cwd: w.dir,
          input: `${answer}\n`,
          env: { PLANGATE_ASSUME_TTY: '1' },
        });
        const said = out.stdout + out.stderr;
        assert.match(said, /echo is reviewed/, `the terminal names the rule's reason: ${said}`);
        assert.match(said, /Allow 'echo' on '[^']+'\?/, `the question is asked on the terminal: ${said}`);
        assert.equal(
          w.callLog().some((c) => c.tool === 'echo'),
          sent,
          `answer ${answer}: echo ${sent ? 'was not' : 'was'} sent`,
        );
        assert.equal(out.code, sent ? 0 : 2, said); // refused before any step ran: exit 2, as a failed connection
      } finally {
        w.remove();
      }
    }
  });
});

describe('plangate policy explain --meta', () => {
  test('a tool whose _meta says approval "ask" is asked about even where your rule allows it; without --meta the rule allows', async () => {
    const user = policyFile('user-allow.json', [{ id: 'mine', decision: 'allow', reason: 'fine', tool: 'wipe' }]);
    const base = ['policy', 'explain', '--server', 'fs', '--tool', 'wipe', '--user', user, '--json'];
    const plain = await runCli(base, { cwd: dir });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(JSON.parse(plain.stdout).decision, 'allow');
    const meta = await runCli([...base, '--meta', '{"approval":"ask"}'], { cwd: dir });
    assert.equal(meta.code, 0, meta.stderr);
    assert.equal(JSON.parse(meta.stdout).decision, 'ask', meta.stdout);
    const bad = await runCli([...base, '--meta', '{not json'], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--meta/);
  });
});
