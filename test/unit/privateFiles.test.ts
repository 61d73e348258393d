// Files Plangate writes for itself are readable by the user only: checkpoint copies and manifests (a 0600 .env must not
// become a world-readable copy), the ledger (every call's arguments and answers), the CLI's --ledger and --token-store
// files; their folders 0700. The token store's temporary file is a fresh name opened exclusively: a file or link
// planted at the name it used to have (`<file>.<pid>.tmp`) is neither followed nor changed.
//
// Modes and symbolic links are POSIX: on Windows these tests are skipped (files there are guarded by the profile
// folder's ACLs, not by modes).
import { after, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalHash } from '../../src/core/plan/approval';
import { getPlan, type WorkflowEvent } from '../../src/core/workflow/workflow';
import { FileOAuthStore } from '../../src/mcp/oauth/store';
import { createCheckpoint, revertPlan, sealCheckpoint } from '../../src/node/checkpoint';
import { openFileLedger } from '../../src/node/fileLedger';
import { fixtureServer, runCli, workspace } from './helpers/cliHarness';

const base = mkdtempSync(join(tmpdir(), 'plangate-private-'));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const dir = join(base, `t${n++}`);
  mkdirSync(dir);
  return dir;
};
const modeOf = (p: string) => statSync(p).mode & 0o777;
const octal = (m: number) => `0${m.toString(8)}`;

/** Skips on Windows, visibly, with the reason. */
function posixOnly(t: TestContext): boolean {
  if (process.platform !== 'win32') return true;
  t.skip('file modes and symbolic links are POSIX; on Windows the profile folder ACLs guard these files');
  return false;
}

/** Every file and folder under `root` (root included), with its mode. */
function walk(root: string): { path: string; dir: boolean; mode: number }[] {
  const out = [{ path: root, dir: true, mode: modeOf(root) }];
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else out.push({ path: p, dir: false, mode: modeOf(p) });
  }
  return out;
}

describe('checkpoints are readable by the user only', () => {
  it('a 0600 .env and a 0644 file are copied 0600, the manifest too, the folders 0700; a revert restores each file with its own mode', async (t) => {
    if (!posixOnly(t)) return;
    const dir = fresh();
    const ws = join(dir, 'ws');
    const storage = join(dir, 'storage');
    mkdirSync(ws);
    writeFileSync(join(ws, '.env'), 'API_KEY=secret\n', { mode: 0o600 });
    chmodSync(join(ws, '.env'), 0o600);
    writeFileSync(join(ws, 'readme.md'), 'hello\n');
    chmodSync(join(ws, 'readme.md'), 0o644);
    const checkpoint = await createCheckpoint(storage, 'plan-1', ws, ['.env', 'readme.md']);
    const everything = walk(join(storage, 'checkpoints'));
    assert.ok(everything.filter((e) => !e.dir).length >= 3, 'two copies and a manifest');
    for (const e of everything) assert.equal(octal(e.mode), e.dir ? '0700' : '0600', e.path);

    await sealCheckpoint(checkpoint, ['.env', 'readme.md']);
    for (const e of walk(join(storage, 'checkpoints'))) assert.equal(octal(e.mode), e.dir ? '0700' : '0600', `${e.path} after sealing`);
    writeFileSync(join(ws, '.env'), 'API_KEY=changed\n');
    writeFileSync(join(ws, 'readme.md'), 'changed\n');
    await revertPlan(checkpoint, { force: true });
    assert.equal(readFileSync(join(ws, '.env'), 'utf8'), 'API_KEY=secret\n');
    assert.equal(octal(modeOf(join(ws, '.env'))), '0600');
    assert.equal(octal(modeOf(join(ws, 'readme.md'))), '0644', 'the user’s own file keeps its mode');
  });

  it('a checkpoints folder an earlier version left open to others is closed (0700) at the next checkpoint', async (t) => {
    if (!posixOnly(t)) return;
    const dir = fresh();
    const ws = join(dir, 'ws');
    const storage = join(dir, 'storage');
    mkdirSync(ws);
    mkdirSync(join(storage, 'checkpoints', 'old-plan'), { recursive: true });
    chmodSync(join(storage, 'checkpoints'), 0o755);
    writeFileSync(join(ws, 'a.txt'), 'a');
    await createCheckpoint(storage, 'plan-2', ws, ['a.txt']);
    assert.equal(octal(modeOf(join(storage, 'checkpoints'))), '0700');
  });
});

describe('the ledger is readable by the user only', () => {
  it('a new ledger is created 0600 in new folders made 0700', (t) => {
    if (!posixOnly(t)) return;
    const dir = fresh();
    const file = join(dir, 'made', 'here', 'ledger.jsonl');
    const opened = openFileLedger(file);
    opened.workflow.dispatch({
      type: 'planReceived',
      at: 1,
      planId: 'p',
      origin: { server: 's', tool: 't', args: { token: 'secret' }, entrance: 'manual' },
      plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'go', next_actions: [{ tool: 't', args: {} }] },
    });
    opened.dispose();
    assert.equal(octal(modeOf(file)), '0600');
    assert.equal(octal(modeOf(join(dir, 'made'))), '0700');
    assert.equal(octal(modeOf(join(dir, 'made', 'here'))), '0700');
  });

  it('a ledger an earlier version created 0644 is made 0600 when it is opened', (t) => {
    if (!posixOnly(t)) return;
    const file = join(fresh(), 'ledger.jsonl');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    openFileLedger(file).dispose();
    assert.equal(octal(modeOf(file)), '0600');
  });

  it('a compaction while running writes a new private file; a link planted at its temporary name is not followed', (t) => {
    if (!posixOnly(t)) return;
    const dir = fresh();
    const file = join(dir, 'ledger.jsonl');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    let clock = Date.UTC(2026, 0, 1);
    const opened = openFileLedger(file, { retention: { maxSizeMB: 1 }, now: () => clock });
    symlinkSync(victim, `${file}.compacting`);
    const w = opened.workflow;
    const dispatch = (e: WorkflowEvent) => assert.ok(w.dispatch(e), `${e.type}: ${w.canApply(e)}`);
    const origin = { server: 'alpha', tool: 'plan_it', args: { bulk: 'y'.repeat(30 * 1024) }, entrance: 'manual' as const };
    for (let i = 0; i < 150 && !opened.sink.lastCompaction; i++) {
      clock += 20 * 60_000;
      const planId = `run-${i}`;
      const plan = {
        kind: 'orchestrated_plan' as const,
        version: '1',
        status: 'ok' as const,
        instruction: 'go',
        next_actions: [{ tool: 't', args: {} }],
      };
      dispatch({ type: 'planReceived', at: clock, planId, origin, plan });
      dispatch({ type: 'approved', at: clock, planId, approvalHash: approvalHash(getPlan(w.state, planId)!) });
      dispatch({ type: 'stepStarted', at: clock, planId, step: 0, server: 'alpha', crossServer: false });
      dispatch({ type: 'stepSucceeded', at: clock, planId, step: 0, summary: 'ok' });
    }
    opened.dispose();
    assert.ok(
      opened.sink.lastCompaction,
      `a compaction ran${opened.sink.lastCompactionProblem ? `: ${opened.sink.lastCompactionProblem}` : ''}`,
    );
    assert.equal(readFileSync(victim, 'utf8'), 'untouched\n', 'the link’s target was not written');
    assert.ok(lstatSync(file).isFile() && !lstatSync(file).isSymbolicLink(), 'the ledger is a file of its own, not the planted link');
    assert.equal(octal(modeOf(file)), '0600');
  });

  it('plangate run --ledger FILE: the file 0600, its new folder 0700', async (t) => {
    if (!posixOnly(t)) return;
    const w = workspace();
    try {
      const ledger = join(w.dir, 'records', 'plangate.jsonl');
      const r = await runCli([
        'run',
        '--server',
        await fixtureServer(w),
        '--tool',
        'echo',
        '--args',
        '{"message":"hi"}',
        '--ledger',
        ledger,
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(readFileSync(ledger, 'utf8').includes('"callSent"'));
      assert.equal(octal(modeOf(ledger)), '0600');
      assert.equal(octal(modeOf(join(w.dir, 'records'))), '0700');
    } finally {
      w.remove();
    }
  });
});

describe('the CLI token store', () => {
  it('is written 0600, through a fresh temporary name: a link planted at the old predictable name is not followed', async (t) => {
    if (!posixOnly(t)) return;
    const dir = fresh();
    const file = join(dir, 'tokens.json');
    const victim = join(dir, 'victim.txt');
    const missing = join(dir, 'created-through-a-link.txt');
    writeFileSync(victim, 'untouched\n');
    chmodSync(victim, 0o644);
    const planted = `${file}.${process.pid}.tmp`;
    symlinkSync(victim, planted);
    const store = new FileOAuthStore(file);
    await store.store('k', '{"tokens":{"access_token":"secret"}}');
    assert.equal(readFileSync(victim, 'utf8'), 'untouched\n', 'the link’s target was not written');
    assert.equal(octal(modeOf(victim)), '0644', 'nor its mode changed');
    assert.equal(readlinkSync(planted), victim, 'the planted link is still there, untouched');
    assert.ok(lstatSync(file).isFile() && !lstatSync(file).isSymbolicLink());
    assert.equal(octal(modeOf(file)), '0600');
    assert.equal(await store.get('k'), '{"tokens":{"access_token":"secret"}}');

    // A dangling link at the old name: nothing is created where it points.
    rmSync(planted);
    symlinkSync(missing, planted);
    await store.store('k2', 'v');
    assert.throws(() => statSync(missing), /ENOENT/);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [`tokens.json.${process.pid}.tmp`],
      'no temporary file is left behind',
    );
  });

  it('an existing store open to others is replaced by a 0600 file on the next write', async (t) => {
    if (!posixOnly(t)) return;
    const file = join(fresh(), 'tokens.json');
    writeFileSync(file, '{}');
    chmodSync(file, 0o644);
    await new FileOAuthStore(file).store('k', 'v');
    assert.equal(octal(modeOf(file)), '0600');
  });
});
