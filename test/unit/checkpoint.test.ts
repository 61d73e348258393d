// Checkpoints on a real file system: binary-safe copies outside the workspace, size caps with clear messages,
// deleted files restored, created files removed, user edits after the plan detected (nothing overwritten unless
// forced), and a cost that follows the touched files only. Reverts are recorded in the ledger.
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { computeChanges, WatchLog } from '../../src/core/files/changes';
import { approvalHash } from '../../src/core/plan/approval';
import { MemoryLedgerSink, parseLedgerEntry, replay, Workflow } from '../../src/core/workflow/ledger';
import { getPlan } from '../../src/core/workflow/workflow';
import {
  checkpointDir,
  checkpointDiskState,
  createCheckpoint,
  currentState,
  deleteCheckpoint,
  listCheckpoints,
  readCheckpoint,
  readCheckpointFile,
  revertFile,
  revertPlan,
  sealCheckpoint,
} from '../../src/node/checkpoint';

let base: string;
let ws: string;
let storage: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'plangate-checkpoint-'));
  ws = join(base, 'ws');
  storage = join(base, 'storage');
  mkdirSync(ws);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function put(rel: string, content: string | Buffer): void {
  mkdirSync(join(ws, rel, '..'), { recursive: true });
  writeFileSync(join(ws, rel), content);
}
function read(rel: string): Buffer {
  return readFileSync(join(ws, rel));
}
function listTree(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

describe('checkpoint and revert', () => {
  test('binary files (random bytes with NUL) come back byte for byte, with their permissions; storage stays out of the workspace', async () => {
    const bytes = randomBytes(64 * 1024);
    bytes[0] = 0;
    bytes[100] = 0;
    put('assets/blob.bin', bytes);
    fs.chmodSync(join(ws, 'assets/blob.bin'), 0o754);
    const before = listTree(ws);

    const cp = await createCheckpoint(storage, 'plan-1', ws, ['assets/blob.bin']);
    assert.equal(cp.entries[0]!.status, 'stored');
    assert.deepEqual(listTree(ws), before, 'nothing was written into the workspace');
    const stored = readdirSync(join(checkpointDir(storage, 'plan-1'), 'blobs'));
    assert.deepEqual(stored, [cp.entries[0]!.hash], 'the bytes are stored once, named by their sha256');
    assert.ok(readFileSync(join(checkpointDir(storage, 'plan-1'), 'blobs', stored[0]!)).equals(bytes));

    writeFileSync(join(ws, 'assets/blob.bin'), randomBytes(100)); // the plan's step
    const sealed = await sealCheckpoint(cp);
    const result = await revertFile(sealed, 'assets/blob.bin');
    assert.deepEqual(result, { ok: true, path: 'assets/blob.bin', action: 'restored' });
    assert.ok(read('assets/blob.bin').equals(bytes));
    assert.equal(statSync(join(ws, 'assets/blob.bin')).mode & 0o777, 0o754);
    assert.ok((await readCheckpointFile(sealed, 'assets/blob.bin'))!.equals(bytes), 'the left side of the diff');
    assert.deepEqual(listTree(ws), before, 'no temporary files left behind');
  });

  test('a file over the per-file cap is recorded as too large, with a clear message; its change is listed but not reverted', async () => {
    put('big.log', 'x'.repeat(5000));
    put('small.txt', 'small');
    const cp = await createCheckpoint(storage, 'plan-2', ws, ['big.log', 'small.txt'], { maxFileBytes: 1000 });
    const big = cp.entries.find((e) => e.path === 'big.log')!;
    assert.equal(big.status, 'tooLarge');
    assert.equal(big.revertable, false);
    assert.match(
      big.note!,
      /"big\.log" is 4\.9 KB, over the checkpoint's limit of 1000 bytes per file: Plangate keeps no copy of it, so it cannot be reverted/,
    );
    assert.equal(readdirSync(join(cp.dir, 'blobs')).length, 1, 'only the small file was copied');

    writeFileSync(join(ws, 'big.log'), 'y'.repeat(6000));
    const sealed = await sealCheckpoint(cp);
    const changes = computeChanges({ entries: sealed.entries, disk: await checkpointDiskState(sealed), globs: ['*'] });
    assert.deepEqual(
      changes.map((c) => [c.path, c.kind, c.revertable]),
      [['big.log', 'modified', false]],
    );
    assert.match(changes[0]!.note!, /cannot be reverted/);
    const result = await revertFile(sealed, 'big.log');
    assert.ok(!result.ok && 'error' in result);
    assert.match(result.error, /over the checkpoint's limit/);
    assert.equal(read('big.log').toString(), 'y'.repeat(6000), 'left as it is');
  });

  test('once the copies reach the total cap, further files are over budget, with a clear message', async () => {
    for (const n of ['a', 'b', 'c']) put(`${n}.txt`, n.repeat(600));
    const cp = await createCheckpoint(storage, 'plan-3', ws, ['c.txt', 'a.txt', 'b.txt'], { maxTotalBytes: 1500 });
    assert.deepEqual(
      cp.entries.map((e) => [e.path, e.status]),
      [
        ['a.txt', 'stored'],
        ['b.txt', 'stored'],
        ['c.txt', 'overBudget'],
      ],
    );
    assert.match(cp.entries[2]!.note!, /reached its limit of 1\.5 KB for this plan before "c\.txt" \(600 bytes\).*cannot be reverted/);
    assert.equal(cp.storedBytes, 1200);
  });

  test('a file the plan deleted (with its folder) is restored', async () => {
    put('docs/guide/intro.md', '# Intro\n');
    const cp = await createCheckpoint(storage, 'plan-4', ws, ['docs/guide/intro.md']);
    rmSync(join(ws, 'docs'), { recursive: true });
    const sealed = await sealCheckpoint(cp);
    const changes = computeChanges({ entries: sealed.entries, disk: await checkpointDiskState(sealed), globs: ['docs/**'] });
    assert.deepEqual(
      changes.map((c) => [c.path, c.kind, c.undeclared]),
      [['docs/guide/intro.md', 'deleted', false]],
    );
    assert.deepEqual(await revertPlan(sealed), [{ ok: true, path: 'docs/guide/intro.md', action: 'restored' }]);
    assert.equal(read('docs/guide/intro.md').toString(), '# Intro\n');
  });

  test('files the plan created are removed, with the folders it created; folders that existed stay', async () => {
    mkdirSync(join(ws, 'src'));
    put('src/keep.ts', 'keep');
    const cp = await createCheckpoint(storage, 'plan-5', ws, ['src/modules/payroll/index.ts', 'src/new.ts']);
    assert.deepEqual(
      cp.entries.map((e) => [e.path, e.status, e.existingAncestor]),
      [
        ['src/modules/payroll/index.ts', 'absent', 'src'],
        ['src/new.ts', 'absent', 'src'],
      ],
    );
    // The run: two declared files and one the watcher saw (undeclared).
    const log = new WatchLog();
    put('src/modules/payroll/index.ts', 'export {};\n');
    log.record('src/modules/payroll/index.ts', 'created');
    put('src/new.ts', 'new');
    log.record('src/new.ts', 'created');
    put('stray/out.txt', 'stray');
    log.record('stray/out.txt', 'created');

    const sealed = await sealCheckpoint(cp, log.seenPaths, { created: log.createdPaths });
    const changes = computeChanges({
      entries: sealed.entries,
      disk: await checkpointDiskState(sealed),
      globs: ['src/**'],
      writesCode: false,
    });
    assert.deepEqual(
      changes.map((c) => [c.path, c.kind, c.undeclared, c.unexpectedCode, c.revertable]),
      [
        ['src/modules/payroll/index.ts', 'created', false, true, true],
        ['src/new.ts', 'created', false, true, true],
        ['stray/out.txt', 'created', true, false, true],
      ],
    );
    const preview = await revertPlan(sealed, { dryRun: true });
    assert.deepEqual(
      preview.map((r) => r.ok && r.action),
      ['removed', 'removed', 'removed'],
    );
    assert.ok(existsSync(join(ws, 'src/new.ts')), 'a preview changes nothing');

    const results = await revertPlan(sealed);
    assert.deepEqual(
      results.map((r) => [r.path, r.ok && r.action]),
      [
        ['src/modules/payroll/index.ts', 'removed'],
        ['src/new.ts', 'removed'],
        ['stray/out.txt', 'removed'],
      ],
    );
    assert.equal(existsSync(join(ws, 'src/modules')), false, 'the folders the plan created are gone');
    assert.equal(read('src/keep.ts').toString(), 'keep');
    assert.deepEqual(computeChanges({ entries: sealed.entries, disk: await checkpointDiskState(sealed) }), [], 'nothing left to revert');
    assert.deepEqual(await revertPlan(sealed), [], 'reverting again does nothing');
  });

  test('a user edit after the plan is a conflict: nothing is overwritten unless forced', async () => {
    put('config.ts', 'v1');
    put('other.ts', 'o1');
    const cp = await createCheckpoint(storage, 'plan-6', ws, ['config.ts', 'other.ts']);
    writeFileSync(join(ws, 'config.ts'), 'v2 by the plan');
    writeFileSync(join(ws, 'other.ts'), 'o2 by the plan');
    const sealed = await sealCheckpoint(cp);
    writeFileSync(join(ws, 'config.ts'), 'v3 by the user');

    const results = await revertPlan(sealed);
    const conflict = results.find((r) => r.path === 'config.ts')!;
    assert.ok(!conflict.ok && 'conflict' in conflict);
    assert.equal(conflict.conflict, 'modified since the plan');
    assert.match(conflict.message, /"config\.ts" was modified after the plan ran; reverting would overwrite those edits\. Open the diff/);
    assert.equal(read('config.ts').toString(), 'v3 by the user', 'the user edit is kept');
    assert.deepEqual(
      results.find((r) => r.path === 'other.ts'),
      { ok: true, path: 'other.ts', action: 'restored' },
      'the other file was reverted',
    );
    assert.equal(read('other.ts').toString(), 'o1');

    assert.deepEqual(await revertFile(sealed, 'config.ts', { force: true }), { ok: true, path: 'config.ts', action: 'restored' });
    assert.equal(read('config.ts').toString(), 'v1');
  });

  test('deleting a file the plan created, then reverting, is already done; a user deletion of a modified file is a conflict', async () => {
    put('keep.md', 'k1');
    const cp = await createCheckpoint(storage, 'plan-7', ws, ['keep.md', 'made.md']);
    writeFileSync(join(ws, 'keep.md'), 'k2');
    put('made.md', 'made');
    const sealed = await sealCheckpoint(cp);
    unlinkSync(join(ws, 'made.md'));
    unlinkSync(join(ws, 'keep.md'));
    assert.deepEqual(await revertFile(sealed, 'made.md'), { ok: true, path: 'made.md', action: 'unchanged' });
    const r = await revertFile(sealed, 'keep.md');
    assert.ok(!r.ok && 'conflict' in r);
    assert.match(r.message, /was deleted after the plan ran/);
  });

  test('an unsealed checkpoint (the run did not end normally) asks before overwriting', async () => {
    put('a.txt', 'a1');
    const cp = await createCheckpoint(storage, 'plan-8', ws, ['a.txt']);
    writeFileSync(join(ws, 'a.txt'), 'a2');
    const r = await revertFile(cp, 'a.txt');
    assert.ok(!r.ok && 'conflict' in r);
    assert.equal(r.conflict, 'not sealed');
    assert.equal(read('a.txt').toString(), 'a2');
    assert.equal((await revertFile(cp, 'a.txt', { force: true })).ok, true);
    assert.equal(read('a.txt').toString(), 'a1');
  });

  test('a retry keeps the state from before the plan; new paths are added', async () => {
    put('a.txt', 'before');
    await createCheckpoint(storage, 'plan-9', ws, ['a.txt']);
    writeFileSync(join(ws, 'a.txt'), 'after step 1');
    put('b.txt', 'b');
    const again = await createCheckpoint(storage, 'plan-9', ws, ['a.txt', 'b.txt']);
    assert.deepEqual(
      again.entries.map((e) => e.path),
      ['a.txt', 'b.txt'],
    );
    assert.ok((await readCheckpointFile(again, 'a.txt'))!.equals(Buffer.from('before')));
  });

  test('paths outside the workspace are recorded as invalid and never looked at; odd plan ids stay inside the storage', async () => {
    const outside = join(base, 'secret.txt');
    writeFileSync(outside, 'secret');
    const cp = await createCheckpoint(storage, '../../evil', ws, ['../secret.txt', outside, '']);
    assert.ok(cp.entries.every((e) => e.status === 'invalidPath' && /not a file inside the workspace/.test(e.note!)));
    assert.ok(relative(storage, cp.dir).startsWith(`checkpoints${sep}id-`), cp.dir);
    assert.equal(readFileSync(outside, 'utf8'), 'secret');
    assert.deepEqual(await revertPlan(cp), []);
  });

  test('read, list and delete checkpoints', async () => {
    put('a.txt', 'a');
    const cp = await createCheckpoint(storage, 'plan-10', ws, ['a.txt']);
    await createCheckpoint(storage, 'plan-11', ws, []);
    assert.deepEqual(await readCheckpoint(storage, 'plan-10'), cp);
    assert.deepEqual(await listCheckpoints(storage), ['plan-10', 'plan-11']);
    await deleteCheckpoint(storage, 'plan-10');
    assert.equal(await readCheckpoint(storage, 'plan-10'), undefined);
    assert.deepEqual(await listCheckpoints(storage), ['plan-11']);
    writeFileSync(join(checkpointDir(storage, 'plan-11'), 'manifest.json'), '{ torn');
    assert.equal(await readCheckpoint(storage, 'plan-11'), undefined, 'a damaged manifest reads as no checkpoint');
  });

  test('currentState: hash, missing, and the size signature above the cap', async () => {
    put('a.txt', 'abc');
    put('big.bin', Buffer.alloc(2000));
    utimesSync(join(ws, 'big.bin'), 1_700_000_000, 1_700_000_000);
    const state = await currentState(ws, ['a.txt', 'nope.txt', 'big.bin'], { maxFileBytes: 1000 });
    assert.equal(state.get('a.txt'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(state.get('nope.txt'), null);
    assert.equal(state.get('big.bin'), 'size:2000:mtime:1700000000000');
  });
});

describe('the caps at their default values (10 MB a file, 200 MB a plan), as the README states them', () => {
  const MB = 1024 * 1024;
  /** A file of `size` zero bytes that takes no disk space until written (sparse). */
  function sparse(rel: string, size: number): void {
    put(rel, '');
    fs.truncateSync(join(ws, rel), size);
  }

  test('a file of exactly 10 MB is copied; one byte more is not, and the plan says why', async () => {
    sparse('at-cap.bin', 10 * MB);
    sparse('over-cap.bin', 10 * MB + 1);
    const cp = await createCheckpoint(storage, 'plan-caps-1', ws, ['at-cap.bin', 'over-cap.bin']);
    assert.deepEqual(cp.limits, { maxFileBytes: 10 * MB, maxTotalBytes: 200 * MB }, 'no limits given: the defaults apply');
    assert.deepEqual(
      cp.entries.map((e) => [e.path, e.status, e.revertable]),
      [
        ['at-cap.bin', 'stored', true],
        ['over-cap.bin', 'tooLarge', false],
      ],
    );
    const over = cp.entries[1]!;
    assert.equal(
      over.note,
      '"over-cap.bin" is 10 MB, over the checkpoint\'s limit of 10 MB per file: Plangate keeps no copy of it, so it cannot be reverted (its changes are still listed).',
    );

    // What the panel lists after the run: the change, not revertable, with the same words.
    writeFileSync(join(ws, 'over-cap.bin'), 'rewritten');
    const sealed = await sealCheckpoint(cp);
    const changes = computeChanges({ entries: sealed.entries, disk: await checkpointDiskState(sealed), globs: ['*'] });
    assert.deepEqual(
      changes.map((c) => [c.path, c.kind, c.revertable, c.note]),
      [['over-cap.bin', 'modified', false, over.note]],
    );
  });

  test(
    'copies stop at 200 MB for a plan: twenty 10 MB files fill it, the next file is over budget and the plan says why',
    { timeout: 120_000 },
    async () => {
      const names = Array.from({ length: 20 }, (_, i) => `big/part${String(i).padStart(2, '0')}.bin`);
      for (const name of names) sparse(name, 10 * MB);
      put('big/zz-last.txt', 'one more file');
      const cp = await createCheckpoint(storage, 'plan-caps-2', ws, [...names, 'big/zz-last.txt']);
      assert.deepEqual(
        cp.entries.filter((e) => e.status === 'stored').map((e) => e.path),
        names,
        'the copy budget is allotted in path order',
      );
      const last = cp.entries.find((e) => e.path === 'big/zz-last.txt')!;
      assert.equal(last.status, 'overBudget');
      assert.equal(last.revertable, false);
      assert.equal(
        last.note,
        'The checkpoint reached its limit of 200 MB for this plan before "big/zz-last.txt" (13 bytes): Plangate keeps no copy of it, so it cannot be reverted (its changes are still listed).',
      );
    },
  );
});

describe('checkpoint cost follows the touched files', () => {
  test('only the listed paths (and the missing folders above absent ones) are looked at', async (t) => {
    // A workspace with many other files, folders and FIFOs (reading a FIFO would hang the test).
    for (let d = 0; d < 40; d++) for (let f = 0; f < 50; f++) put(`other/d${d}/f${f}.txt`, `${d}-${f}`);
    let fifos = false;
    try {
      execFileSync('mkfifo', [join(ws, 'other/trap.fifo'), join(ws, 'trap2.fifo')]);
      fifos = true;
    } catch {
      t.diagnostic('mkfifo is not available; relying on the fs call log only');
    }
    const touched = Array.from({ length: 9 }, (_, i) => `src/file${i}.ts`);
    for (const p of touched) put(p, `content of ${p}`);
    touched.push('src/gen/new.ts'); // absent: its folder is missing too

    const seen = new Set<string>();
    const calls: string[] = [];
    for (const name of ['lstat', 'stat', 'readFile', 'readdir', 'open', 'opendir', 'access', 'readlink'] as const) {
      const original = fs.promises[name] as (...args: unknown[]) => unknown;
      mock.method(fs.promises, name, function (this: unknown, ...args: unknown[]) {
        const p = String(args[0]);
        if (p.startsWith(ws)) {
          seen.add(relative(ws, p).split(sep).join('/'));
          calls.push(name);
        }
        return original.apply(this, args);
      });
    }
    t.after(() => mock.restoreAll());

    const cp = await createCheckpoint(storage, 'plan-cost', ws, touched);
    for (const p of touched.slice(0, 3)) writeFileSync(join(ws, p), 'changed');
    const sealed = await sealCheckpoint(cp);
    await revertPlan(sealed);
    mock.restoreAll();

    for (const p of touched) assert.ok(seen.has(p), `the fs call log saw ${p} (the log works)`);
    const allowed = new Set([...touched, 'src/gen', 'src']);
    // Revert's own temporary files (written beside a file, then renamed over it) are not looks at the workspace.
    const looked = [...seen].filter((p) => !p.endsWith('.plangate-tmp'));
    assert.deepEqual(
      looked.filter((p) => !allowed.has(p)),
      [],
      'nothing else in the workspace was looked at',
    );
    assert.equal(calls.filter((c) => c === 'readdir' || c === 'opendir').length, 0, 'no folder was listed');
    assert.equal(cp.entries.length, 10);
    if (fifos) assert.ok(existsSync(join(ws, 'trap2.fifo')));
    assert.equal(read('src/file0.ts').toString(), 'content of src/file0.ts', 'and the revert worked');
  });
});

describe('reverts in the ledger', () => {
  test('a revert is recorded as a workflow event, survives a replay, and is refused while the plan runs or before approval', () => {
    const sink = new MemoryLedgerSink();
    const workflow = new Workflow(sink);
    const plan = {
      kind: 'orchestrated_plan' as const,
      version: '1',
      status: 'ok' as const,
      instruction: 'Write files',
      next_actions: [{ tool: 'write_file', args: { path: 'a.txt', content: 'x' } }],
    };
    workflow.dispatch({ type: 'planReceived', at: 1, planId: 'p', origin: { server: 's', tool: 't', args: {}, entrance: 'manual' }, plan });
    assert.match(workflow.canApply({ type: 'reverted', at: 2, planId: 'p', files: ['a.txt'] })!, /never approved/);
    assert.ok(workflow.dispatch({ type: 'approved', at: 3, planId: 'p', approvalHash: approvalHash(getPlan(workflow.state, 'p')!) }));
    assert.match(workflow.canApply({ type: 'reverted', at: 4, planId: 'p', files: ['a.txt'] })!, /executing; cancel it/);
    assert.ok(workflow.dispatch({ type: 'stepStarted', at: 5, planId: 'p', step: 0, server: 's', crossServer: false }));
    assert.ok(workflow.dispatch({ type: 'stepSucceeded', at: 6, planId: 'p', step: 0, summary: 'ok' }));
    assert.match(workflow.canApply({ type: 'reverted', at: 7, planId: 'p', files: [] })!, /must list the files/);
    assert.ok(workflow.dispatch({ type: 'reverted', at: 8, planId: 'p', files: ['a.txt'] }));
    assert.deepEqual(getPlan(workflow.state, 'p')!.reverts, [{ at: 8, files: ['a.txt'] }]);

    const lines = sink.entries.map((e) => parseLedgerEntry(JSON.parse(JSON.stringify(e))));
    assert.ok(lines.every((l) => typeof l !== 'string'));
    assert.deepEqual(getPlan(replay(lines as Exclude<(typeof lines)[number], string>[]), 'p')!.reverts, [{ at: 8, files: ['a.txt'] }]);
  });
});
