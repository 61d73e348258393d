// `plangate run` honours a rule's decision hook and its result review (issue 28), as the extension does: the hook from
// `--hooks FILE` (the user's settings.json or the value of plangate.decisionHooks) runs through the same runner and
// answers allow, deny with a reason, or — hanging past its limit — ask; a rule's `review: "result"` shows the result
// on the terminal and asks Pass on / Withhold, and without a terminal withholds it. The real CLI bundle against the
// fixture server; what reached the server is read from its call log.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureServer, runCli, workspace } from './helpers/cliHarness';

const dir = mkdtempSync(join(tmpdir(), 'plangate-cli-hooks-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
/** A hook: a node script, started as `node script` (an absolute command, as the runner requires). */
const hook = (name: string, body: string, timeoutSeconds = 10) => ({
  command: process.execPath,
  args: [file(`${name}.js`, body)],
  timeoutSeconds,
});
const HOOKS = {
  allows: hook(
    'allows',
    `process.stdin.resume(); process.stdin.on('end', () => console.log(JSON.stringify({ decision: 'allow', reason: 'echo is harmless' })));`,
  ),
  denies: hook(
    'denies',
    `let input = ''; process.stdin.on('data', (c) => (input += c)); process.stdin.on('end', () => { const call = JSON.parse(input); console.log(JSON.stringify({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'no echo of ' + call.tool_input.message } })); });`,
  ),
  hangs: hook('hangs', `setInterval(() => {}, 1000);`, 1),
};
// As the user's settings.json holds them: JSONC, beside other settings.
const settingsJson = file(
  'settings.json',
  `{\n  // mine\n  "editor.fontSize": 13,\n  "plangate.decisionHooks": ${JSON.stringify(HOOKS, null, 2)},\n}\n`,
);
const hookedPolicy = (name: string) =>
  file(
    `policy-${name}.json`,
    JSON.stringify({ rules: [{ id: 'echo-hook', decision: 'ask', reason: 'echo asks its hook', tool: 'echo', hook: name }] }),
  );
const echo = (extra: string[], options: Parameters<typeof runCli>[1] = {}) =>
  (async () => {
    const w = workspace();
    try {
      const server = await fixtureServer(w);
      const out = await runCli(['run', '--server', server, '--tool', 'echo', '--args', '{"message":"secret-42"}', ...extra], {
        cwd: w.dir,
        ...options,
      });
      return { ...out, said: out.stdout + out.stderr, sent: w.callLog().some((c) => c.tool === 'echo') };
    } finally {
      w.remove();
    }
  })();

describe('plangate run --hooks FILE: a rule hands its decision to a hook', () => {
  test('a hook that allows: the call goes without a question (no terminal, no --yes), and the hook is named', async () => {
    const out = await echo(['--policy', hookedPolicy('allows'), '--hooks', settingsJson]);
    assert.equal(out.code, 0, out.said);
    assert.ok(out.sent, 'echo reached the server');
    assert.match(out.said, /Hook 'allows' \(rule 'echo-hook'\) on 'echo' answered allow: echo is harmless/);
  });

  test("a hook that denies with a reason (Claude Code's shape): nothing is sent, the reason is said", async () => {
    const out = await echo(['--policy', hookedPolicy('denies'), '--hooks', settingsJson]);
    assert.equal(out.sent, false, out.said);
    assert.notEqual(out.code, 0);
    assert.match(out.said, /answered deny: no echo of secret-42/);
  });

  test('a hook that hangs past its limit means ask: asked on the terminal (yes sends), refused without one', async () => {
    const refused = await echo(['--policy', hookedPolicy('hangs'), '--hooks', settingsJson]);
    assert.equal(refused.sent, false, refused.said);
    assert.match(refused.said, /Hook 'hangs' .* did not answer \(it did not answer within 1 s\): ask/);
    const asked = await echo(['--policy', hookedPolicy('hangs'), '--hooks', settingsJson], {
      input: 'y\n',
      env: { PLANGATE_ASSUME_TTY: '1' },
    });
    assert.match(asked.said, /Allow 'echo' on '[^']+'\?/);
    assert.equal(asked.sent, true, asked.said);
  });

  test('a file holding only the value of plangate.decisionHooks works too; a rule naming a hook without --hooks asks, saying what to give', async () => {
    const plain = file('hooks.json', JSON.stringify({ allows: HOOKS.allows }));
    const out = await echo(['--policy', hookedPolicy('allows'), '--hooks', plain]);
    assert.equal(out.sent, true, out.said);
    const without = await echo(['--policy', hookedPolicy('allows')]);
    assert.equal(without.sent, false, without.said);
    assert.match(without.said, /there is no hook 'allows' in this run: give --hooks FILE/);
  });

  test('--hooks without --policy: a warning that no rule of yours can name a hook; the call is not judged by one', async () => {
    const out = await echo(['--hooks', settingsJson]);
    assert.match(out.stderr, /warning: --hooks has no effect without --policy FILE: only your rules name a hook/);
    assert.doesNotMatch(out.said, /Hook '/);
  });

  test('--hooks that cannot be read stops the run before anything is sent, naming the option', async () => {
    const out = await echo(['--policy', hookedPolicy('allows'), '--hooks', join(dir, 'nope.json')]);
    assert.equal(out.code, 2, out.said);
    assert.equal(out.sent, false);
    assert.match(
      out.stderr,
      /--hooks: there is no file .*nope\.json\. Give your settings\.json, or a JSON file holding the value of plangate\.decisionHooks/,
    );
  });
});

describe('plangate run: a rule reviews the result before it is passed on', () => {
  const review = file(
    'policy-review.json',
    JSON.stringify({
      rules: [{ id: 'look-first', decision: 'allow', reason: 'echo results are read first', tool: 'echo', review: 'result' }],
    }),
  );

  test('without a terminal the result is withheld, said on stderr, and its content never printed', async () => {
    const out = await echo(['--policy', review, '--yes']);
    assert.ok(out.sent, 'the call itself ran (the rule allows it)');
    assert.doesNotMatch(out.said, /secret-42/, `the withheld content was printed: ${out.said}`);
    assert.match(
      out.stderr,
      /the result of 'echo' on '[^']+' is withheld: rule 'look-first' asks you to review it first, and there is no terminal/,
    );
  });

  test('on the terminal: shown, then Pass on prints it as the result; No withholds it', async () => {
    const passed = await echo(['--policy', review], { input: 'y\n', env: { PLANGATE_ASSUME_TTY: '1' } });
    assert.equal(passed.code, 0, passed.said);
    assert.match(passed.stdout, /Rule 'look-first' asks you to review the result of 'echo'/);
    assert.match(passed.stdout, /Pass on the result of 'echo' on '[^']+'\? No withholds it\./);
    assert.equal(passed.stdout.match(/secret-42/g)?.length, 2, `shown for review, then printed as the result: ${passed.stdout}`);
    const withheld = await echo(['--policy', review], { input: 'n\n', env: { PLANGATE_ASSUME_TTY: '1' } });
    assert.equal(withheld.stdout.match(/secret-42/g)?.length, 1, `shown for review only: ${withheld.stdout}`);
    assert.match(withheld.said, /The user reviewed the result of 'echo' on server '[^']+' and withheld it\./);
  });
});
