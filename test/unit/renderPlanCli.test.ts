// What `plangate run` shows before "Proceed?": every argument the approval covers, whole (long ones in a file whose
// path is shown), and invisible characters as visible escapes wherever server text is printed.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fixtureServer, runCli, workspace } from './helpers/cliHarness';
import { LONG_ARGS_TAIL } from '../../fixture/planTools';
import { ARGS_INLINE_MAX, renderPlan } from '../../src/cli/renderPlan';
import type { OrchestratedPlan } from '../../src/core/plan/plan';

const workspaces: ReturnType<typeof workspace>[] = [];
after(() => {
  for (const w of workspaces) w.remove();
});

/** `plangate run` of a fixture tool on a (pretended) terminal answering `input`; temp files go into the workspace. */
async function run(tool: string, rest: string[], input: string) {
  const w = workspace();
  workspaces.push(w);
  const r = await runCli(['run', '--server', await fixtureServer(w), '--tool', tool, ...rest], {
    env: { PLANGATE_ASSUME_TTY: '1', TMPDIR: w.dir },
    input,
  });
  const beforeQuestion = r.stdout.slice(0, r.stdout.indexOf('Proceed? [y/N]'));
  return { ...r, w, beforeQuestion, calls: () => w.callLog().map((c) => c.tool) };
}

const content = (length: number) => 'x'.repeat(length - LONG_ARGS_TAIL.length) + LONG_ARGS_TAIL;

describe('plangate run shows every approved argument before "Proceed?"', { concurrency: 2 }, () => {
  it('a 5,000-character argument is printed whole, its last words included, before the question', async () => {
    const r = await run('plan_long_args', [], 'n\n');
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stdout.includes('Proceed? [y/N]'), r.stdout);
    assert.ok(r.beforeQuestion.includes(JSON.stringify(content(5000))), 'the whole argument is on screen before the question');
    assert.ok(r.beforeQuestion.includes(LONG_ARGS_TAIL));
    assert.doesNotMatch(r.beforeQuestion, /characters\)/, 'nothing said to be cut');
    assert.deepEqual(r.calls(), ['plan_long_args'], 'rejected: nothing ran');
  });

  it('an argument too long for the terminal is written whole to a file whose path is shown before the question', async () => {
    const r = await run('plan_long_args', ['--args', '{"length":300000}'], 'n\n');
    assert.equal(r.code, 1, r.stderr);
    const m =
      /args: ([\d,]+) characters of JSON, too long to print here; written in full to (.+?) — read them there before you answer\./.exec(
        r.beforeQuestion,
      );
    assert.ok(m, r.beforeQuestion.slice(0, 2000));
    assert.ok(r.stdout.length < 10_000, 'the terminal is not flooded');
    const written = JSON.parse(readFileSync(m[2]!, 'utf8')) as { path: string; content: string };
    assert.equal(written.content, content(300_000), 'the file holds the argument exactly');
    assert.equal(written.path, 'notes.txt');
  });

  it('renders long arguments indented and whole, and falls back to printing them when no file can be written', () => {
    const plan: OrchestratedPlan = {
      kind: 'orchestrated_plan',
      version: '1',
      status: 'ok',
      instruction: 'x',
      next_actions: [
        { tool: 'write', args: { a: 'y'.repeat(500) } },
        { tool: 'write', args: { b: 'z'.repeat(ARGS_INLINE_MAX) } },
      ],
    };
    const files: [string, string][] = [];
    const lines = renderPlan(plan, '', {
      writeArgs: (name, json) => {
        files.push([name, json]);
        return `/tmp/${name}`;
      },
    });
    assert.ok(lines.includes('     args:') && lines.includes(`         "a": "${'y'.repeat(500)}"`), lines.join('\n'));
    assert.deepEqual(
      files.map(([n, j]) => [n, JSON.parse(j)]),
      [['step-2-args.json', { b: 'z'.repeat(ARGS_INLINE_MAX) }]],
    );
    const failing = renderPlan(plan, '', {
      writeArgs: () => {
        throw new Error('disk full');
      },
    });
    assert.ok(
      failing.some((l) => l.includes('z'.repeat(ARGS_INLINE_MAX))),
      'printed whole after all',
    );
    assert.ok(failing.some((l) => /could not be written to a file: disk full/.test(l)));
  });
});

describe('plangate run shows invisible characters', () => {
  it('bidi controls, zero-width and tag characters in instruction, labels, arguments and globs are printed as escapes', async () => {
    const r = await run('plan_invisible', [], 'n\n');
    assert.equal(r.code, 1, r.stderr);
    const raw = r.stdout + r.stderr;
    for (const c of ['\u202e', '\u202c', '\u200b', '\u200d', '\u2060', '\ufeff', '\u200e', '\u2067', '\u2069', '\u{e0041}']) {
      assert.ok(!raw.includes(c), `U+${c.codePointAt(0)!.toString(16)} printed raw`);
    }
    const shown = r.beforeQuestion;
    assert.match(
      shown,
      /Plan \(status ok\): Rename the report report\\u202efdp\.exe\\u202c\. Delete\\u200b nothing\\u{e0041}\./,
      'instruction',
    );
    assert.match(shown, /1\. noop — Rename \\u2067x\\u2069/, 'label');
    assert.ok(shown.includes('"note":"safe\\u200d\\u2060\\ufeff"'), 'arguments');
    assert.ok(shown.includes('Touches files: report\\u202efdp.exe\\u202c, src/\\u200b**'), 'touched-file globs');
  });
});
