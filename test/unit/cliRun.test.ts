// `plangate run`, spawned for real against the fixture MCP server over stdio and streamable HTTP (and against
// @modelcontextprotocol/server-filesystem). The fixture's call log shows which tools ran, in which order.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { bundles, closedPort, fixtureServer, hasScript, httpFixture, report, runCli, runCliInPty, workspace } from './helpers/cliHarness';
import { quoteCommandLine } from '../../src/cli/splitCommandLine';

interface StepJson {
  index: number;
  tool: string;
  outcome: 'ok' | 'failed' | 'skipped' | 'not_run';
  error?: string;
  nested?: StepJson[];
}
interface RunJson {
  status: string;
  plan_status?: string;
  steps: StepJson[];
  follow_up?: string;
  result?: { content?: { text?: string }[] };
}

const workspaces: ReturnType<typeof workspace>[] = [];
function ws() {
  const w = workspace();
  workspaces.push(w);
  return w;
}
after(() => {
  for (const w of workspaces) w.remove();
});

/** Runs `plangate run --server <fixture> --tool <tool> ...rest` in a fresh workspace. */
async function run(tool: string, rest: string[] = [], options: Parameters<typeof runCli>[1] = {}) {
  const w = ws();
  const result = await runCli(['run', '--server', await fixtureServer(w), '--tool', tool, ...rest], options);
  return { ...result, w, calls: () => w.callLog().map((c) => c.tool) };
}

const SCAFFOLD_TOOLS = ['plan_scaffold', 'create_screen', 'create_component', 'create_component', 'create_component'];

describe('plangate run over stdio', { concurrency: 4 }, () => {
  it('with --yes runs every step in order, shows the plan, a line per step and the follow-up (exit 0)', async () => {
    const r = await run('plan_scaffold', ['--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.calls(), SCAFFOLD_TOOLS);
    assert.ok(existsSync(join(r.w.root, 'src/modules/payroll/PTCHoursOverride.tsx')), 'the steps wrote their files');
    assert.match(r.stdout, /Plan \(status ok\): Scaffold Payroll screen and components\./);
    assert.match(r.stdout, /Touches files: src\/modules\/payroll\/\*\*/);
    assert.match(r.stdout, /Writes code: yes/);
    for (const tool of ['create_screen', 'create_component']) assert.match(r.stdout, new RegExp(`\\d\\. ${tool}`));
    const progress = r.stdout.split('\n').filter((l) => /^\s+\[\d\/4\]/.test(l));
    assert.deepEqual(
      progress.map((l) => /\[(\d)\/4\] (\w+).* … ok/.exec(l)?.slice(1)),
      [
        ['1', 'create_screen'],
        ['2', 'create_component'],
        ['3', 'create_component'],
        ['4', 'create_component'],
      ],
    );
    assert.match(r.stdout, /Completed 4 steps\.\nFollow-up: Wire the new components to the API now\?\n$/);
  });

  it('with --json prints only the report on stdout: completed, every step ok, the follow-up', async () => {
    const r = await run('plan_scaffold', ['--yes', '--json']);
    assert.equal(r.code, 0);
    assert.deepEqual(report(r), {
      status: 'completed',
      steps: [
        { index: 1, tool: 'create_screen', outcome: 'ok' },
        { index: 2, tool: 'create_component', outcome: 'ok' },
        { index: 3, tool: 'create_component', outcome: 'ok' },
        { index: 4, tool: 'create_component', outcome: 'ok' },
      ],
      follow_up: 'Wire the new components to the API now?',
    });
    assert.match(r.stderr, /Plan \(status ok\)/, 'the plan goes to stderr');
  });

  it('without a terminal and without --yes exits 2 naming --yes, right after the planning call', async () => {
    for (const json of [false, true]) {
      const r = await run('plan_scaffold', json ? ['--json'] : []);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /no terminal to ask "Proceed\?".*pass --yes/s);
      assert.deepEqual(r.calls(), ['plan_scaffold']);
      if (json) assert.equal(r.stdout, '');
    }
  });

  it('stops at a failing step: later steps are not_run and never called (exit 1)', async () => {
    const r = await run('plan_failing', ['--yes', '--json']);
    assert.equal(r.code, 1);
    assert.deepEqual(report<RunJson>(r), {
      status: 'failed',
      steps: [
        { index: 1, tool: 'succeed', outcome: 'ok' },
        { index: 2, tool: 'fail', outcome: 'failed', error: 'Step 2 failed on purpose' },
        { index: 3, tool: 'succeed', outcome: 'not_run' },
      ],
    });
    assert.deepEqual(r.calls(), ['plan_failing', 'succeed', 'fail']);
    assert.match(r.stderr, /Failed at step 2 \(fail\): Step 2 failed on purpose\. Not run: step 3\./);
  });

  it('runs nothing for a plan whose status is not ok, not even its recovery actions (plan_status, exit 1)', async () => {
    for (const status of ['error', 'blocked']) {
      const r = await run('plan_status', ['--args', JSON.stringify({ status }), '--yes', '--json']);
      assert.equal(r.code, 1, status);
      assert.deepEqual(report(r), { status: 'plan_status', plan_status: status, steps: [] });
      assert.deepEqual(r.calls(), ['plan_status']);
    }
    const human = await run('plan_status', ['--args', '{"status":"error"}']);
    assert.equal(human.code, 1);
    assert.match(human.stdout, /Error: NOT_FOUND: No match for 'abc123' \(field componentId\)/);
    assert.match(human.stdout, /Recovery actions \(the CLI does not run them\):\n\s+1\. list_detected_components/);
    assert.match(human.stdout, /status is error, so nothing runs/);
  });

  it('says which server every step runs on before "Proceed?", and a tool redefined after --yes is not called (exit 1)', async () => {
    const r = await run('plan_drift', ['--yes']);
    assert.equal(r.code, 1, r.stderr);
    // The server is named by the script node runs, not 'node'.
    assert.match(r.stdout, /Server: every step runs on 'fixture\.js', the one connected; the approval covers each step's tool/);
    assert.ok(
      r.stdout.indexOf('Server: every step runs on') < r.stdout.indexOf('Approved by --yes.'),
      'the server is shown before the approval',
    );
    assert.match(r.stderr, /step 2 was not sent: server 'fixture\.js' changed the definition of tool 'drifting_tool'/);
    assert.deepEqual(r.calls(), ['plan_drift', 'redefine_drifting_tool'], 'the redefined tool was never called');

    const named = await run('plan_drift', ['--yes', '--name', 'scaffolder']);
    assert.match(named.stdout, /Server: every step runs on 'scaffolder', the one connected/, '--name names the server in messages');
  });

  it('refuses a plan whose tools are not all on the connected server (missing_tool, exit 1, nothing runs)', async () => {
    const w = ws();
    const r = await runCli([
      'run',
      '--server',
      await fixtureServer(w),
      '--tool',
      'plan_cross_server',
      '--args',
      JSON.stringify({ root: w.root }),
      '--yes',
      '--json',
    ]);
    assert.equal(r.code, 1);
    const j = report<RunJson>(r);
    assert.equal(j.status, 'missing_tool');
    assert.deepEqual(
      j.steps.map((s) => [s.tool, s.outcome]),
      [
        ['edit_file', 'not_run'],
        ['write_file', 'not_run'],
        ['write_file', 'not_run'],
      ],
    );
    assert.match(j.steps[0]!.error!, /not offered by server/);
    assert.deepEqual(
      w.callLog().map((c) => c.tool),
      ['plan_cross_server'],
    );

    const missing = await run('no_such_tool', ['--yes', '--json']);
    assert.equal(missing.code, 1);
    assert.deepEqual(report(missing), { status: 'missing_tool', steps: [] });
    assert.match(missing.stderr, /has no tool 'no_such_tool'.*Its tools: .*plan_scaffold/);
    assert.deepEqual(missing.calls(), []);
  });

  it('prints a result that is not a plan (exit 0), and a collect-mode form is not_a_plan', async () => {
    const r = await run('echo', ['--args', '{"message":"hello from echo"}']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'hello from echo\n');
    const j = await run('echo', ['--args', '{"message":"hi"}', '--json']);
    assert.deepEqual(report(j), { status: 'not_a_plan', steps: [], result: { content: [{ type: 'text', text: 'hi' }] } });
    const form = await run('new_model_app', ['--args', '{"model":"Contact","mode":"form"}', '--json']);
    assert.equal(form.code, 0);
    assert.equal(report<RunJson>(form).status, 'not_a_plan');
    const formHuman = await run('new_model_app', ['--args', '{"model":"Contact","mode":"form"}']);
    assert.match(formHuman.stdout, /collect-mode form \(model Contact\), not a plan/);
  });

  it('exits 2 when the planning result is an invalid envelope or a tool error, listing the problems', async () => {
    const r = await run('plan_invalid', ['--args', '{"variant":"missing_tool"}', '--yes']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /not valid \(1 problem\); nothing ran\.\n  next_actions\[1\]\.tool: Required/);
    const e = await run('plan_scaffold', ['--args', '{"screen":"bad name!"}', '--yes', '--json']);
    assert.equal(e.code, 2);
    assert.match(e.stderr, /reported an error: .*screen/s);
    assert.equal(e.stdout, '');
  });

  it('runs five levels of nested plans and refuses a sixth (failed, exit 1)', async () => {
    const five = await run('plan_nested', ['--args', '{"depth":5}', '--yes', '--json']);
    assert.equal(five.code, 0, five.stderr);
    let steps: StepJson[] | undefined = report<RunJson>(five).steps;
    let levels = 0;
    while (steps?.[0]?.nested) {
      assert.equal(steps[0].outcome, 'ok');
      steps = steps[0].nested;
      levels++;
    }
    assert.equal(levels, 5);
    assert.equal(five.calls().filter((t) => t === 'nested_plan_step').length, 6);

    const six = await run('plan_nested', ['--args', '{"depth":6}', '--yes', '--json']);
    assert.equal(six.code, 1);
    const j = report<RunJson>(six);
    assert.equal(j.status, 'failed');
    let deepest = j.steps[0]!;
    while (deepest.nested?.[0]) deepest = deepest.nested[0];
    assert.deepEqual([deepest.outcome, deepest.error], ['failed', 'nested plan depth 6 exceeds the limit of 5']);
  });

  it('--timeout fails a hanging step after that many seconds; later steps do not run', async () => {
    // --timeout bounds the server's start-up too: 5 s leaves a loaded machine room to start the fixture.
    const r = await run('plan_hang', ['--yes', '--timeout', '5', '--json']);
    assert.equal(r.code, 1);
    assert.deepEqual(report<RunJson>(r).steps, [
      { index: 1, tool: 'succeed', outcome: 'ok' },
      { index: 2, tool: 'hang', outcome: 'failed', error: 'Timed out after 5 s' },
      { index: 3, tool: 'succeed', outcome: 'not_run' },
    ]);
    // The step's own error says the 5-second timeout fired; the process ended without waiting for the hang (the
    // harness's limit would have failed the test). No wall-clock bound here: a loaded machine stretches it at random.
    assert.deepEqual(r.calls(), ['plan_hang', 'succeed', 'hang']);
  });

  it('reports a server that dies during a step, with its last stderr lines', async () => {
    const r = await run('plan_crash', ['--yes']);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /\[2\/3\] crash — Crashing step … failed: Server '.+' closed the connection/);
    assert.match(r.stderr, /fixture: the crash tool was called; exiting with code 3/);
    assert.deepEqual(r.calls(), ['plan_crash', 'succeed', 'crash']);
  });

  it('never prints control or escape characters from the server raw', async () => {
    const r = await run('plan_xss', ['--yes']);
    assert.equal(r.code, 0, r.stderr);
    const raw = Buffer.concat([r.stdoutBytes, Buffer.from(r.stderr)]);
    for (const c of ['\u001b', '\u0007', '\u0000', '\r', '\u202e', '\u202c'])
      assert.ok(!raw.includes(Buffer.from(c)), `raw ${JSON.stringify(c)} printed`);
    assert.match(r.stdout, /\\x1b\[31mred\\x1b\[0m \\x07bell \\x00nul \\u202eevil\\u202c \\r\\nCRLF/);
    assert.match(r.stdout, /AAAA… \(\+19,800 characters\)/, 'a 20,000-character label is cut');
    const j = await run('plan_xss', ['--yes', '--json']);
    assert.equal(report<RunJson>(j).status, 'completed');
  });

  it('--json output parses however large: a 600-step plan, a 5 MB plain result', async () => {
    // 600 steps, not 5000: the runner re-hashes the whole plan before every step (quadratic in the plan's size).
    const big = await run('plan_big', ['--args', '{"steps":600}', '--yes', '--json'], { timeoutMs: 60_000 });
    assert.equal(big.code, 0, big.stderr.slice(-500));
    const j = report<RunJson>(big);
    assert.equal(j.steps.length, 600);
    assert.ok(j.steps.every((s, i) => s.outcome === 'ok' && s.index === i + 1));
    const result = await run('big_result', ['--args', '{"mb":5}', '--json']);
    assert.equal(result.code, 0);
    assert.equal(report<RunJson>(result).result?.content?.[0]?.text?.length, 5 * 1024 * 1024);
  });

  it('keeps "__proto__" and "constructor" keys of step arguments as plain data sent to the server', async () => {
    const r = await run('plan_invalid', ['--args', '{"variant":"proto_keys"}', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const line = readFileSync(r.w.callLogFile, 'utf8')
      .split('\n')
      .find((l) => l.includes('"tool":"echo"'));
    assert.match(line ?? '', /"__proto__":\{"polluted":true\},"constructor":\{"prototype":\{"polluted":true\}\}/);
  });

  it('asks "Proceed?" on a terminal: y runs the plan, n (or end of input) rejects it and runs nothing', async () => {
    const tty = { PLANGATE_ASSUME_TTY: '1' };
    const yes = await run('plan_scaffold', ['--json'], { env: tty, input: 'y\n' });
    assert.equal(yes.code, 0);
    assert.match(yes.stderr, /Proceed\? \[y\/N\] /);
    assert.deepEqual(yes.calls(), SCAFFOLD_TOOLS);
    for (const input of ['n\n', '']) {
      const no = await run('plan_scaffold', ['--json'], { env: tty, input });
      assert.equal(no.code, 1);
      assert.equal(report<RunJson>(no).status, 'rejected');
      assert.ok(report<RunJson>(no).steps.every((s) => s.outcome === 'not_run'));
      assert.deepEqual(no.calls(), ['plan_scaffold']);
    }
  });

  it('answers ask_user steps from --answer (never sent to the server) and grants confirm steps with --yes', async () => {
    const r = await run('plan_confirm', ['--yes', '--answer', 'release=v1.2', '--answer', 'channel=2', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      report<RunJson>(r).steps.map((s) => s.outcome),
      ['ok', 'ok', 'ok', 'ok'],
    );
    assert.deepEqual(r.calls(), ['plan_confirm', 'succeed', 'echo', 'succeed']);
    assert.match(r.stderr, /Step 3 \(Deploy \(irreversible\)\) needs confirmation: granted by --yes\./);

    const missing = await run('plan_confirm', ['--yes', '--json']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /needs an answer for 'release'.*--answer release=VALUE/);
    assert.deepEqual(
      report<RunJson>(missing).steps.map((s) => s.outcome),
      ['ok', 'failed', 'not_run', 'not_run'],
    );
    assert.deepEqual(missing.calls(), ['plan_confirm', 'succeed']);
  });

  it('on a terminal asks ask_user fields one by one and each confirm step; declining it stops the plan (rejected)', async () => {
    const tty = { PLANGATE_ASSUME_TTY: '1' };
    // Proceed, release, channel (a wrong one, then by number), replicas (empty: optional), then decline the confirm step.
    const r = await run('plan_confirm', ['--json'], { env: tty, input: 'y\nv2\nalpha\n1\n\nn\n' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /release \(text, required\): /);
    assert.match(r.stderr, /'channel' must be one of: stable, beta; try again\./);
    assert.match(r.stderr, /Step 3 \(Deploy \(irreversible\)\) needs confirmation\. Run it\? \[y\/N\]/);
    assert.deepEqual(report<RunJson>(r), {
      status: 'rejected',
      steps: [
        { index: 1, tool: 'succeed', outcome: 'ok' },
        { index: 2, tool: 'ask_user', outcome: 'ok' },
        { index: 3, tool: 'echo', outcome: 'not_run' },
        { index: 4, tool: 'succeed', outcome: 'not_run' },
      ],
    });
    assert.deepEqual(r.calls(), ['plan_confirm', 'succeed']);
  });

  it('Ctrl-C while a step runs cancels it: the server gets the cancel, later steps do not run (failed, exit 1)', async () => {
    let sent = false;
    const r = await run('plan_hang', ['--yes', '--json'], {
      onSpawn: (child) =>
        child.stderr!.on('data', (c: Buffer) => {
          if (!sent && c.toString().includes('hang — Hanging step …')) {
            sent = true;
            child.kill('SIGINT');
          }
        }),
    });
    assert.ok(sent);
    assert.equal(r.code, 1);
    const j = report<RunJson>(r);
    assert.equal(j.status, 'failed');
    assert.deepEqual(
      j.steps.map((s) => s.outcome),
      ['ok', 'failed', 'not_run'],
    );
    assert.match(j.steps[1]!.error!, /^Cancel/);
  });

  it('--ledger records the run as JSONL events', async () => {
    const w = ws();
    const ledger = join(w.dir, 'ledger', 'plangate.jsonl');
    const r = await runCli(['run', '--server', await fixtureServer(w), '--tool', 'plan_failing', '--yes', '--ledger', ledger]);
    assert.equal(r.code, 1);
    const events = readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { type: string } }).event.type);
    // The planning call itself is on the record (sent, ended), then the plan, the resolution of its steps' servers, the approval.
    assert.deepEqual(events.slice(0, 5), ['callSent', 'callEnded', 'planReceived', 'resolved', 'approved']);
    assert.equal(events.filter((e) => e === 'callSent').length, 3, 'the planning call and the two steps that ran');
    assert.ok(events.includes('stepFailed') && events.includes('stopped'));
    assert.equal(events.filter((e) => e === 'stepStarted').length, 2);
  });
});

describe('plangate run: elicitation', { concurrency: 3 }, () => {
  async function elicit(tool: string, rest: string[], options: Parameters<typeof runCli>[1] = {}) {
    const { elicitServer } = await bundles();
    return runCli(['run', '--server', quoteCommandLine([process.execPath, elicitServer]), '--tool', tool, ...rest], options);
  }

  it('asks a field at a time on a terminal, offering defaults', async () => {
    const r = await elicit('ask_defaults', [], { env: { PLANGATE_ASSUME_TTY: '1' }, input: '\n\n12\n5\nhello\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Server '.+' asks: Settings for ask_defaults\?\nAnswer it\? \[Y\/n\] /);
    assert.match(r.stdout, /Color \(one of: 1=red, 2=blue\) \[blue\]: /);
    assert.match(r.stdout, /must be at most 9; try again\./);
    assert.match(r.stdout, /action: accept\ncontent: \{"color":"blue","count":5,"note":"hello"\}\n$/);
  });

  it('without a terminal accepts the defaults under --yes when they cover the required fields, else declines', async () => {
    const accepted = await elicit('ask_defaults', ['--yes']);
    assert.equal(accepted.code, 0);
    assert.equal(accepted.stdout, 'action: accept\ncontent: {"color":"blue","count":3}\n');
    const noYes = await elicit('ask_defaults', []);
    assert.match(noYes.stdout, /action: decline/);
    const uncovered = await elicit('ask_required', ['--yes']);
    assert.match(uncovered.stdout, /action: decline/);
    assert.match(uncovered.stderr, /declined: there is no terminal, and 'token' has no default/);
  });

  it("answers the fixture server's elicit_name on a terminal", async () => {
    const w = ws();
    const r = await runCli(['run', '--server', await fixtureServer(w), '--tool', 'elicit_name'], {
      env: { PLANGATE_ASSUME_TTY: '1' },
      input: 'y\nAda Lovelace\n36\n',
    });
    assert.equal(r.code, 0);
    assert.match(r.stdout, /action: accept\ncontent: \{"name":"Ada Lovelace","age":36\}/);
  });
});

describe('plangate run over streamable HTTP', () => {
  // one server and call log: one test at a time
  const w = workspace();
  let server: Awaited<ReturnType<typeof httpFixture>>;
  before(async () => {
    server = await httpFixture(w);
  });
  after(async () => {
    await server.close();
    w.remove();
  });
  const calls = () => w.callLog().map((c) => c.tool);

  it('runs an approved plan with --yes and a nested plan (exit 0)', async () => {
    const r = await runCli(['run', '--url', server.url, '--tool', 'plan_nested', '--args', '{"depth":2}', '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(report<RunJson>(r).steps[0]!.nested![0]!.nested![0]!.outcome, 'ok');
    const s = await runCli(['run', '--url', server.url, '--tool', 'plan_failing', '--yes', '--json']);
    assert.equal(s.code, 1);
    assert.equal(report<RunJson>(s).status, 'failed');
  });

  it('without a terminal and --yes calls only the planning tool and exits 2', async () => {
    const before = calls().length;
    const r = await runCli(['run', '--url', server.url, '--tool', 'plan_slow', '--args', '{"ms":10}']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--yes/);
    assert.deepEqual(calls().slice(before), ['plan_slow']);
  });

  it('exits 2 when nothing listens at the URL', async () => {
    const r = await runCli(['run', '--url', `http://127.0.0.1:${await closedPort()}/mcp`, '--tool', 'plan_scaffold', '--yes', '--json']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /nothing listens at http:\/\/127\.0\.0\.1:\d+\/mcp/);
    assert.equal(r.stdout, '');
  });
});

describe('plangate run: usage and start-up errors (exit 2)', { concurrency: 4 }, () => {
  it('rejects bad command lines before starting anything', async () => {
    const cases: [string[], RegExp][] = [
      [['run', '--server', 'node x.js'], /--tool NAME is required/],
      [['run', '--tool', 't'], /give the server/],
      [['run', '--server', 'x', '--url', 'http://127.0.0.1:1/mcp', '--tool', 't'], /either --server or --url/],
      [['run', '--server', 'x', '--tool', 't', '--args', '{not json'], /--args is not valid JSON/],
      [['run', '--server', 'x', '--tool', 't', '--args', '[1,2]'], /--args must be a JSON object.*not an array/],
      [['run', '--server', 'x', '--tool', 't', '--args', `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`], /nested more than 1000 levels/],
      [['run', '--server', 'x', '--tool', 't', '--frobnicate'], /Unknown option '--frobnicate'/],
      [['run', '--server', "node 'x.js", '--tool', 't'], /unterminated single quote/],
      [['run', '--server', 'x', '--tool', 't', '--timeout', '0'], /--timeout must be a number of seconds/],
      [['run', '--server', 'x', '--tool', 't', '--answer', 'novalue'], /--answer must look like NAME=VALUE/],
      [['run', '--url', 'ftp://example.com', '--tool', 't'], /--url must be an http/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [[], /give a command/],
    ];
    await Promise.all(
      cases.map(async ([args, message]) => {
        const r = await runCli(args);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, message);
        assert.equal(r.stdout, '');
      }),
    );
  });

  it('shows the stderr tail of a server that exits at start', async () => {
    const w = ws();
    const r = await runCli([
      'run',
      '--server',
      await fixtureServer(w, ['--fail-start', 'fixture: cannot open the database']),
      '--tool',
      'plan_scaffold',
      '--yes',
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /exited during start-up \(exit code 1\)\.\nLast stderr lines:\nfixture: cannot open the database/);
    const missing = await runCli(['run', '--server', 'plangate-no-such-command-xyz --flag', '--tool', 't']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /command 'plangate-no-such-command-xyz' was not found/);
  });

  it('--help prints usage (exit 0); --version prints the version', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /plangate validate \[FILE\|-\] \[--json\]/);
    assert.match(help.stdout, /plangate run \(--server "<command line>" \| --url URL\) --tool NAME/);
    const runHelp = await runCli(['run', '--help']);
    assert.equal(runHelp.code, 0);
    assert.match(runHelp.stdout, /--answer N=V/);
    const version = await runCli(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  });
});

describe('plangate run against @modelcontextprotocol/server-filesystem', () => {
  it("prints a plain result (exit 0) with the file's control characters escaped", async () => {
    const w = ws();
    writeFileSync(join(w.root, 'notes.md'), 'status: draft\n\u001b[2Jcleared?\n');
    const fsServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
    const r = await runCli([
      'run',
      '--server',
      quoteCommandLine([process.execPath, fsServer, w.root]),
      '--tool',
      'read_text_file',
      '--args',
      JSON.stringify({ path: join(w.root, 'notes.md') }),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'status: draft\n\\x1b[2Jcleared?\n\n');
    const j = await runCli([
      'run',
      '--server',
      quoteCommandLine([process.execPath, fsServer, w.root]),
      '--tool',
      'read_text_file',
      '--args',
      JSON.stringify({ path: join(w.root, 'missing.md') }),
      '--json',
    ]);
    assert.equal(j.code, 2);
    assert.match(j.stderr, /reported an error: .*ENOENT|no such file/is);
  });
});

describe('plangate run on a real terminal (script -qec)', { skip: hasScript() ? false : 'util-linux script is not installed' }, () => {
  it('detects the terminal and asks "Proceed?": y runs every step, n runs nothing', async () => {
    const w = ws();
    const server = await fixtureServer(w);
    const yes = await runCliInPty(['run', '--server', server, '--tool', 'plan_scaffold'], 'y\n');
    assert.equal(yes.code, 0, yes.output);
    assert.match(yes.output, /Proceed\? \[y\/N\] /);
    assert.match(yes.output, /Completed 4 steps\./);
    assert.deepEqual(
      w.callLog().map((c) => c.tool),
      SCAFFOLD_TOOLS,
    );

    const no = await runCliInPty(['run', '--server', server, '--tool', 'plan_failing'], 'n\n');
    assert.equal(no.code, 1, no.output);
    assert.match(no.output, /Rejected; nothing ran\./);
    assert.deepEqual(
      w
        .callLog()
        .map((c) => c.tool)
        .slice(SCAFFOLD_TOOLS.length),
      ['plan_failing'],
    );
  });
});
