// `plangate validate`, run for real: the MCPFlow README examples, CallToolResults, fenced text, and hostile files.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { report, runCli, workspace } from './helpers/cliHarness';
import { REPO_ROOT } from './helpers/fixture';

const README = join(REPO_ROOT, 'test', 'fixtures', 'mcpflow');
const ws = workspace();
after(() => ws.remove());

interface ValidateJson {
  valid: boolean;
  kind: 'plan' | 'collect_form' | 'plain';
  plan?: Record<string, unknown> & { next_actions: { tool: string; args: Record<string, unknown> }[] };
  problems?: { path: string; message: string }[];
}

/** Writes `content` to a file in the temp workspace and returns its path. */
function file(name: string, content: string | Buffer): string {
  const path = join(ws.dir, name);
  writeFileSync(path, content);
  return path;
}

const plan = (extra: Record<string, unknown> = {}) => ({
  kind: 'orchestrated_plan',
  version: '1',
  status: 'ok',
  instruction: 'Do it.',
  next_actions: [{ tool: 'a', args: {} }],
  ...extra,
});

describe('plangate validate', { concurrency: 4 }, () => {
  it('with --lenient, accepts every JSON example of the MCPFlow README as the panel does (exit 0, a one-line summary)', async () => {
    const files = readdirSync(README).filter((f) => f.endsWith('.json') || (f.endsWith('.md') && f !== 'README.md'));
    assert.ok(files.length >= 7);
    await Promise.all(
      files.map(async (f, i) => {
        // Human output for half of them, --json for the other half (both shapes are checked in detail below).
        if (i % 2 === 0) {
          const r = await runCli(['validate', '--lenient', join(README, f)]);
          assert.equal(r.code, 0, `${f}: ${r.stdout}${r.stderr}`);
          assert.equal(r.stdout.trimEnd().split('\n').length, 1, `${f}: one line`);
          assert.match(r.stdout, /^valid orchestrated_plan: status (ok|error|invalid|blocked|partial)/);
          return;
        }
        const r = await runCli(['validate', join(README, f), '--json', '--lenient']);
        assert.equal(r.code, 0, `${f}: ${r.stdout}${r.stderr}`);
        const j = report<ValidateJson>(r);
        assert.equal(j.valid, true);
        assert.equal(j.kind, 'plan');
        assert.ok(Array.isArray(j.plan?.next_actions), `${f}: next_actions is always an array`);
      }),
    );
  });

  it('prints the README success example as a one-line summary and its normalised envelope with --json', async () => {
    const r = await runCli(['validate', join(README, 'success.json')]);
    assert.equal(
      r.stdout,
      'valid orchestrated_plan: status ok, 1 step (create_screen), touches src/modules/payroll/**, follow-up — Scaffold Payroll screen and components.\n',
    );
    assert.equal(r.stderr, '');
    const j = await runCli(['validate', join(README, 'success.json'), '--json']);
    assert.equal(j.code, 0);
    assert.deepEqual(report(j), {
      valid: true,
      kind: 'plan',
      plan: {
        kind: 'orchestrated_plan',
        version: '1',
        status: 'ok',
        instruction: 'Scaffold Payroll screen and components.',
        next_actions: [
          {
            tool: 'create_screen',
            args: { screen: 'Payroll', components: ['OvertimeStartDaySelector', 'PayPeriodConfigurator', 'PTCHoursOverride'] },
          },
        ],
        follow_up: 'Wire the new components to the API now?',
        safety: { writes_code: true, touches_files: ['src/modules/payroll/**'] },
      },
    });
  });

  it('strict by default: the README examples that omit next_actions (which MCPFlow always emits) exit 1 naming it', async () => {
    const lacking = ['blocked.json', 'error-id-not-found.json', 'invalid-input.json', 'partial.json'];
    for (const f of readdirSync(README).filter((n) => n.endsWith('.json'))) {
      const r = await runCli(['validate', join(README, f)]);
      if (!lacking.includes(f)) {
        assert.equal(r.code, 0, `${f}: ${r.stdout}`);
        continue;
      }
      assert.equal(r.code, 1, `${f}: ${r.stdout}`);
      assert.equal(
        r.stdout,
        'invalid orchestrated_plan: 1 problem\n  next_actions: missing, read as []; MCPFlow always emits it ([] when there are no steps)\n' +
          '  (the Plangate panel reads it, with this as a warning; --lenient reads it the same way)\n',
        f,
      );
    }
  });

  it('an errors[] or warnings[] entry without code is a problem with its JSON path (exit 1); --lenient makes it a warning', async () => {
    const f = file(
      'no-code.json',
      JSON.stringify(
        plan({
          status: 'error',
          errors: [{ code: 'NOT_FOUND', message: 'a' }, { message: 'b' }],
          warnings: [{ message: 'c', code: null }],
        }),
      ),
    );
    const r = await runCli(['validate', f]);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stdout,
      /^invalid orchestrated_plan: 2 problems\n  errors\[1\]\.code: missing, read as ""; MCPFlow always emits it .*\n  warnings\[0\]\.code: missing/,
    );
    const j = await runCli(['validate', f, '--json']);
    assert.equal(j.code, 1);
    assert.deepEqual(
      report<ValidateJson>(j).problems?.map((p) => p.path),
      ['errors[1].code', 'warnings[0].code'],
    );
    assert.equal(report<ValidateJson>(j).plan, undefined);

    const lenient = await runCli(['validate', f, '--lenient']);
    assert.equal(lenient.code, 0, lenient.stdout);
    assert.match(lenient.stdout, /^valid orchestrated_plan: status error/);
    assert.match(lenient.stderr, /^warning: errors\[1\]\.code: missing.*\nwarning: warnings\[0\]\.code: missing/);
  });

  it('a JSON syntax error is reported by line and column', async () => {
    const text = '{\n  "kind": "orchestrated_plan",\n  "version": "1"\n  "status": "ok"\n}\n';
    const r = await runCli(['validate', file('syntax.json', text)]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      "not a plan\n  (input): the input is not valid JSON at line 4, column 3: Expected ',' or '}' after property value\n",
    );
    // Where JSON.parse gives no position at all (an unexpected token), the line and column are still found.
    const token = await runCli(['validate', file('token.json', '\n\n{"kind": "orchestrated_plan",\n "version": NaN}')]);
    assert.match(token.stdout, /not valid JSON at line 4, column 13: Unexpected token 'N'\n$/);
  });

  it('accepts the README "ID not found" example: a valid envelope whose status is error (--lenient)', async () => {
    const r = await runCli(['validate', '--lenient', join(README, 'error-id-not-found.json')]);
    assert.equal(r.code, 0);
    assert.equal(
      r.stdout,
      "valid orchestrated_plan: status error, 0 steps, 1 error, 2 recovery actions, follow-up — Cannot proceed: componentId 'abc123' not found.\n",
    );
    const j = report<ValidateJson>(await runCli(['validate', join(README, 'error-id-not-found.json'), '--json', '--lenient']));
    assert.equal(j.plan?.status, 'error');
    assert.deepEqual(j.plan?.next_actions, []);
    assert.equal((j.plan?.recovery_actions as unknown[]).length, 2);
  });

  it('finds the envelope in a ```json fence after prose, read from stdin ("-" or no FILE)', async () => {
    const text = readFileSync(join(README, 'readme-success-section.md'), 'utf8');
    for (const args of [['validate', '-'], ['validate']]) {
      const r = await runCli(args, { input: text });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^valid orchestrated_plan: status ok.*\(in a ```json fenced block\)\n$/);
    }
  });

  it('reports every problem at once, each with its JSON path, and exits 1', async () => {
    const bad = plan({ version: '2', status: 'maybe', next_actions: [{ tool: 'a', args: {} }, { args: 'x' }] });
    const r = await runCli(['validate', file('bad.json', JSON.stringify(bad))]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^invalid orchestrated_plan: 4 problems\n/);
    for (const path of ['version', 'status', 'next_actions[1].tool', 'next_actions[1].args'])
      assert.match(r.stdout, new RegExp(`^  ${path.replace(/[[\].]/g, '\\$&')}: `, 'm'));
    const j = report<ValidateJson>(await runCli(['validate', file('bad.json', JSON.stringify(bad)), '--json']));
    assert.equal(j.valid, false);
    assert.equal(j.kind, 'plan');
    assert.deepEqual(
      j.problems?.map((p) => p.path),
      ['version', 'status', 'next_actions[1].tool', 'next_actions[1].args'],
    );
  });

  it('reads CallToolResults: paths stay relative to the envelope in structuredContent, which wins over text', async () => {
    const broken = { content: [{ type: 'text', text: JSON.stringify(plan()) }], structuredContent: plan({ next_actions: [{ tool: 7 }] }) };
    const j = report<ValidateJson>(await runCli(['validate', file('r1.json', JSON.stringify(broken)), '--json']));
    assert.equal(j.valid, false);
    assert.deepEqual(
      j.problems?.map((p) => p.path),
      ['next_actions[0].tool'],
    );

    const good = {
      content: [{ type: 'text', text: '{"kind":"orchestrated_plan","version":"9"}' }],
      structuredContent: plan({ instruction: 'from structured' }),
    };
    const r = await runCli(['validate', file('r2.json', JSON.stringify(good))]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /from structured \(in structuredContent\)/);
  });

  it('takes the first text block that holds a plan, even after prose blocks; a JSON-RPC response is unwrapped', async () => {
    const result = {
      content: [
        { type: 'text', text: 'Thinking about it…' },
        { type: 'image', data: '', mimeType: 'image/png' },
        { type: 'text', text: `Plan:\n\`\`\`json\n${JSON.stringify(plan({ instruction: 'second block' }))}\n\`\`\`` },
      ],
    };
    const r = await runCli(['validate', file('r3.json', JSON.stringify({ jsonrpc: '2.0', id: 3, result }))]);
    assert.equal(r.code, 0, r.stdout);
    assert.match(r.stdout, /second block/);
  });

  it('says that a JSON object without kind, with another kind, or a collect-mode form is not a plan (exit 1)', async () => {
    const noKind = report<ValidateJson>(
      await runCli(['validate', file('k1.json', JSON.stringify({ version: '1', status: 'ok' })), '--json']),
    );
    assert.deepEqual([noKind.valid, noKind.kind, noKind.problems?.[0]?.path], [false, 'plain', 'kind']);
    const other = await runCli(['validate', file('k2.json', JSON.stringify(plan({ kind: 'tool_result' })))]);
    assert.equal(other.code, 1);
    assert.match(other.stdout, /^not a plan\n  kind: expected "orchestrated_plan", got "tool_result"/);

    const form = {
      schema: {
        model: 'Contact',
        title: 'Contact',
        fieldsets: [],
        fields: [{ name: 'name', label: 'Name', group: 'g', required: true, type: 'text' }],
      },
      defaults: {},
      mode: 'create',
      submitMode: 'collect',
    };
    const r = await runCli([
      'validate',
      file('form.json', JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(form) }] })),
      '--json',
    ]);
    assert.equal(r.code, 1);
    assert.deepEqual({ valid: report<ValidateJson>(r).valid, kind: report<ValidateJson>(r).kind }, { valid: false, kind: 'collect_form' });
  });

  it('keeps "__proto__" and "constructor" keys as plain data in the normalised plan', async () => {
    const text =
      '{"kind":"orchestrated_plan","version":"1","status":"ok","instruction":"p","next_actions":[{"tool":"echo","args":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}}]}';
    const r = await runCli(['validate', file('proto.json', text), '--json']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /"args":\{"__proto__":\{"polluted":true\},"constructor":\{"prototype":\{"x":1\}\}\}/);
    const args = report<ValidateJson>(r).plan!.next_actions[0]!.args;
    assert.ok(Object.hasOwn(args, '__proto__'));
  });

  it('ends hostile input with exit 1 and a message, never a stack trace', async () => {
    const hostile: Record<string, string | Buffer> = {
      'empty.json': '',
      'blank.json': ' \n\t\n',
      'garbage.bin': Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 7919) % 256)),
      'deep.json': `{"kind":"orchestrated_plan","version":"1","status":"ok","next_actions":[{"tool":"a","args":${'{"d":'.repeat(100_000)}null${'}'.repeat(100_000)}}]}`,
      'deep-array.json': `${'['.repeat(300_000)}${']'.repeat(300_000)}`,
      'long-string.json': JSON.stringify(plan({ instruction: 'x'.repeat(2 * 1024 * 1024) })),
      'too-big.json': JSON.stringify(plan({ instruction: 'x'.repeat(17 * 1024 * 1024) })),
      'truncated.json': '{"kind":"orchestrated_plan","version":"1", "status": "ok", "next_actions": [',
      'nul.json': '\u0000\u0000{"kind"',
      'many-problems.json': JSON.stringify(plan({ next_actions: Array.from({ length: 3000 }, () => ({ args: 1 })) })),
    };
    for (const [name, content] of Object.entries(hostile)) {
      // Alternate human and --json output; both must end with exit 1, a message, and no stack trace.
      const json = name.length % 2 === 0;
      const r = await runCli(['validate', file(name, content), ...(json ? ['--json'] : [])]);
      assert.equal(r.code, 1, `${name}: ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 300)}`);
      assert.doesNotMatch(r.stdout + r.stderr, /\n\s+at .+:\d+:\d+\)?\n/, `${name}: no stack trace`);
      if (json) {
        assert.equal(report<ValidateJson>(r).valid, false);
        assert.ok(report<ValidateJson>(r).problems!.length >= 1);
      } else {
        assert.match(r.stdout, /^(not a plan|invalid orchestrated_plan)/);
      }
    }
    const many = await runCli(['validate', join(ws.dir, 'many-problems.json')]);
    assert.match(many.stdout, /^invalid orchestrated_plan: 6,000 problems\n/);
  });

  it('exits 2 for input it cannot read and for usage errors', async () => {
    for (const args of [
      ['validate', join(ws.dir, 'missing.json')],
      ['validate', ws.dir],
      ['validate', 'a.json', 'b.json'],
      ['validate', '--frob'],
    ]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^plangate validate: /);
      assert.equal(r.stdout, '');
    }
  });

  it('with --json, escapes bidi and control characters and prints a large report that parses', async () => {
    const steps = Array.from({ length: 5000 }, (_, i) => ({ tool: `t${i}`, args: { s: '\u202eevil\u001b[31m\u0007'.repeat(20) } }));
    const r = await runCli([
      'validate',
      file('big.json', JSON.stringify(plan({ instruction: '\u202e\u0085\u2028', next_actions: steps }))),
      '--json',
    ]);
    assert.equal(r.code, 0);
    assert.ok(r.stdoutBytes.length > 500_000);
    assert.ok(!r.stdoutBytes.includes(Buffer.from('\u202e')) && !r.stdoutBytes.includes(0x1b) && !r.stdoutBytes.includes(0x07));
    const j = report<ValidateJson>(r);
    assert.equal(j.plan!.next_actions.length, 5000);
    assert.equal(j.plan!.instruction, '\u202e\u0085\u2028');
    const human = await runCli(['validate', join(ws.dir, 'big.json')]);
    assert.match(human.stdout, /— \\u202e\\x85\\u2028\n$/);
  });
});

describe("the README's CLI example", () => {
  it('docs/example-plan.json is a valid plan (exit 0), as the README says', async () => {
    const r = await runCli(['validate', join(REPO_ROOT, 'docs', 'example-plan.json')]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^valid orchestrated_plan: status ok, 2 steps \(create_screen, create_component\)/);
  });
});
