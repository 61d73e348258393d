// The CLI and the panel approve and run through the same Gate code. Each plan is run twice against the fixture server:
// once by `plangate run --ledger FILE` (spawned for real), once in-process the way the extension does it — a ServerRegistry,
// a Gate over a file ledger, the Call Tool form's `gate.call`, the panel's Approve (`gate.approve` with the hash of what
// was shown), its confirm / ask_user answers and its Stop — and the two ledgers must be equal event by event once ids,
// times and durations are normalised. The only words allowed to differ are the surface's own: the plan origin's
// entrance ('cli' / 'manual') and the planning call's decision text.
// Then: the CLI refuses what Gate.approve refuses (a step's tool redefined while "Proceed?" was on screen).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Gate } from '../../src/core/engine/gate';
import { getPlan, planApprovalHash } from '../../src/core/workflow/workflow';
import type { ResolvedServer } from '../../src/mcp/config';
import { ServerRegistry } from '../../src/mcp/registry';
import { openFileLedger } from '../../src/node/fileLedger';
import { REFUSED_APPROVAL } from '../../src/cli/runCommand';
import { bundles, fixtureServer, runCli, workspace } from './helpers/cliHarness';
import { REPO_ROOT } from './helpers/fixture';

const workspaces: ReturnType<typeof workspace>[] = [];
function ws() {
  const w = workspace();
  workspaces.push(w);
  return w;
}
after(() => {
  for (const w of workspaces) w.remove();
});

const CALL_TOOL_DECISION = 'pressed Call in the Call Tool form, which showed this server, tool and arguments';
const CLI_DECISION = 'plangate run --tool with these --args';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * The ledger's entries with what differs between two runs of the same plan replaced: ids (by order of first
 * appearance), times and durations; the surface's own words are checked and replaced by `<surface>`.
 */
function normalised(file: string, surface: { entrance: string; decision: string }): Json[] {
  const ids = new Map<string, string>();
  const id = (v: string) => {
    if (!ids.has(v)) ids.set(v, `id${ids.size + 1}`);
    return ids.get(v)!;
  };
  const ID_KEYS = new Set(['planId', 'callId', 'childPlanId', 'parentId', 'replacesId', 'id']);
  const TIME_KEYS = new Set(['at', 'durationMs', 'resolvedAt', 'ts', 'time']);
  const walk = (v: Json, key?: string): Json => {
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      const out: { [k: string]: Json } = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, k);
      return out;
    }
    if (typeof v === 'string' && key && ID_KEYS.has(key)) return id(v);
    if (typeof v === 'number' && key && TIME_KEYS.has(key)) return '<time>';
    return v;
  };
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const entry = JSON.parse(line) as {
        event: { type: string; origin?: { entrance: string }; decision?: { by: string; what?: string } };
      };
      const e = entry.event;
      if (e.type === 'planReceived' && e.origin && e.origin.entrance !== 'step') {
        assert.equal(e.origin.entrance, surface.entrance, 'the plan origin names its surface');
        e.origin.entrance = '<surface>';
      }
      if (e.type === 'callSent' && e.decision?.by === 'user') {
        assert.equal(e.decision.what, surface.decision, "the planning call's decision names its surface");
        e.decision.what = '<surface>';
      }
      return walk(entry as unknown as Json);
    });
}

/** The extension's engine path, in-process: Call Tool's gate.call, then the panel's Approve, answers and Stop. */
async function runInProcess(
  ledgerFile: string,
  w: { root: string; callLogFile: string },
  tool: string,
  args: Record<string, unknown>,
  answers: Record<string, unknown>,
  redefineWhileShown = false,
): Promise<void> {
  const { fixture } = await bundles();
  const servers: ResolvedServer[] = [
    {
      name: 'fixture',
      source: 'mcp.json',
      type: 'stdio',
      command: process.execPath,
      args: [fixture, '--root', w.root, '--call-log', w.callLogFile],
      env: {},
      secrets: [],
    },
  ];
  const registry = new ServerRegistry();
  const ledger = openFileLedger(ledgerFile);
  const gate = new Gate(ledger.workflow, {
    invoker: registry,
    settings: () => ({ stepTimeoutMs: 30_000, allowCrossServer: false }),
    newId: randomUUID,
  });
  // What the panel's buttons do while the run waits: Run it (confirm), Answer (ask_user), Approve and run (nested).
  const sub = gate.onDidChange(() => {
    for (const p of gate.pending) {
      if (p.kind === 'confirm') gate.answerConfirm(p.planId, p.step, true);
      else gate.answerAskUser(p.planId, p.step, answers);
    }
    for (const child of gate.nestedAwaiting) {
      const plan = getPlan(gate.workflow.state, child);
      if (plan) void gate.approve(child, undefined, planApprovalHash(plan));
    }
  });
  // As activation wires it: a server's tools changing resolves (and reviews) the waiting plans again.
  const toolChanges = registry.onDidChange(() => void gate.refreshResolutions());
  try {
    await registry.applyConfig(servers);
    const outcome = await gate.call({
      server: 'fixture',
      tool,
      args,
      entrance: 'manual',
      decision: { by: 'user', what: CALL_TOOL_DECISION },
    });
    assert.equal(outcome.received.kind, 'plan');
    const planId = (outcome.received as { planId: string }).planId;
    await gate.resolution(planId);
    const shown = planApprovalHash(getPlan(gate.workflow.state, planId)!);
    if (redefineWhileShown) {
      // While the plan is on screen the server redefines its step's tool; Approve is refused, and the user rejects.
      writeFileSync(join(w.root, 'redefine-review-echo'), '');
      for (let i = 0; i < 1500 && !gate.review(planId)?.changes.length; i++) await new Promise((r) => setTimeout(r, 20));
      assert.match((await gate.approve(planId, undefined, shown)) ?? '', /changed while you were reviewing/);
      assert.equal(gate.reject(planId, REFUSED_APPROVAL), undefined);
      return;
    }
    // The panel's Approve and run: gate.approve with the hash of the view it showed.
    assert.equal(await gate.approve(planId, undefined, shown), undefined);
    for (let i = 0; i < 1500 && gate.isRunning(planId); i++) await new Promise((r) => setTimeout(r, 20));
    // A blocked plan: the panel's Stop (the CLI does not retry or skip).
    for (let i = 0; i < 32 && getPlan(gate.workflow.state, planId)?.phase === 'blocked'; i++) if (gate.stop(planId)) break;
    assert.ok(gate.isSettled(planId), 'the in-process run settled');
  } finally {
    toolChanges.dispose();
    sub.dispose();
    gate.dispose();
    ledger.dispose();
    await registry.dispose();
  }
}

const CASES: {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  cli: string[];
  answers: Record<string, unknown>;
  code: number;
}[] = [
  {
    name: 'a confirm step and an ask_user step',
    tool: 'plan_confirm',
    args: {},
    cli: ['--yes', '--answer', 'release=v1.2', '--answer', 'channel=beta'],
    answers: { release: 'v1.2', channel: 'beta' },
    code: 0,
  },
  { name: 'a nested plan', tool: 'plan_nested', args: { depth: 2 }, cli: ['--yes'], answers: {}, code: 0 },
  { name: 'a failing step (stopped)', tool: 'plan_failing', args: {}, cli: ['--yes'], answers: {}, code: 1 },
];

describe('the CLI and the panel approve and run through the same Gate code', { concurrency: 1 }, () => {
  for (const c of CASES) {
    it(`${c.name}: the ledgers of plangate run --ledger and of the extension's engine are equal event by event`, async () => {
      const cliWs = ws();
      const cliLedger = join(cliWs.dir, 'cli-ledger.jsonl');
      const r = await runCli(
        [
          'run',
          '--server',
          await fixtureServer(cliWs),
          '--name',
          'fixture',
          '--tool',
          c.tool,
          '--args',
          JSON.stringify(c.args),
          ...c.cli,
          '--ledger',
          cliLedger,
        ],
        { timeoutMs: 60_000 },
      );
      assert.equal(r.code, c.code, r.stderr);

      const panelWs = ws();
      const panelLedger = join(panelWs.dir, 'panel-ledger.jsonl');
      await runInProcess(panelLedger, panelWs, c.tool, c.args, c.answers);

      const cli = normalised(cliLedger, { entrance: 'cli', decision: CLI_DECISION });
      const panel = normalised(panelLedger, { entrance: 'manual', decision: CALL_TOOL_DECISION });
      assert.ok(
        cli.some((e) => (e as { event: { type: string } }).event.type === 'approved'),
        'the CLI approved',
      );
      assert.deepEqual(cli, panel);
      assert.deepEqual(
        cliWs.callLog().map((x) => x.tool),
        panelWs.callLog().map((x) => x.tool),
        'the same calls reached the server',
      );
    });
  }
});

describe('the CLI refuses what Gate.approve refuses', () => {
  it('a step whose tool was redefined while "Proceed?" was on screen: the approval is refused and nothing runs (exit 1)', async () => {
    const w = ws();
    const ledger = join(w.dir, 'ledger.jsonl');
    const { cli } = await bundles();
    const child = spawn(
      process.execPath,
      [
        cli,
        'run',
        '--server',
        await fixtureServer(w),
        '--name',
        'fixture',
        '--tool',
        'plan_review_redefine',
        '--args',
        '{}',
        '--ledger',
        ledger,
      ],
      { cwd: REPO_ROOT, env: { ...process.env, PLANGATE_ASSUME_TTY: '1' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    const closed = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const until = async (what: string, cond: () => boolean) => {
      for (let i = 0; i < 1500 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(cond(), `timed out waiting for ${what}\nstdout: ${stdout}\nstderr: ${stderr}`);
    };
    try {
      await until('"Proceed?"', () => stdout.includes('Proceed?'));
      // While the question is on screen the server redefines review_say (the fixture deletes the trigger when it does).
      const trigger = join(w.root, 'redefine-review-echo');
      writeFileSync(trigger, '');
      await until('the server to redefine the tool', () => !existsSync(trigger));
      await until('the CLI to see the change', () => /changed while you were reviewing/.test(stderr));
      child.stdin.end('y\n');
      const code = await closed;
      assert.equal(code, 1, stderr);
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
    assert.match(stderr, /plangate run: the approval was refused: the plan changed while you were reviewing it \(step 1: .*review_say/);
    assert.match(stderr, /Nothing ran\. Run the command again to review the plan as it is now\./);
    assert.deepEqual(
      w.callLog().map((x) => x.tool),
      ['plan_review_redefine'],
      'review_say was never sent',
    );
    const events = readFileSync(ledger, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { event: { type: string } }).event.type);
    assert.ok(!events.includes('approved'), `no approval on the record: ${events.join(', ')}`);
    assert.equal(events.at(-1), 'rejected');

    // The panel, on the same plan and the same change, refuses the same approval: the ledgers are equal.
    const panelWs = ws();
    const panelLedger = join(panelWs.dir, 'panel-ledger.jsonl');
    await runInProcess(panelLedger, panelWs, 'plan_review_redefine', {}, {}, true);
    assert.deepEqual(
      normalised(ledger, { entrance: 'cli', decision: CLI_DECISION }),
      normalised(panelLedger, { entrance: 'manual', decision: CALL_TOOL_DECISION }),
    );
  });
});
