// The files engine hears the watcher's events after the writes: on a loaded machine VS Code's watcher can be seconds
// behind, past the moment the engine seals the checkpoint. A late event is still the run's when the disk dates the
// file's last change (or, for a file gone, its folder's) before the run stopped; a change dated after is somebody
// else's and stays off the list. Real files, the Node checkpoint store and disk; the watcher is driven by hand, so
// "late" is certain rather than likely.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WatchKind } from '../../src/core/files/changes';
import { FilesEngine, type FileWatcher } from '../../src/core/files/engine';
import { approvalHash } from '../../src/core/plan/approval';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { getPlan } from '../../src/core/workflow/workflow';
import { nodeCheckpointStore, nodeWorkspaceDisk, nodeWorkspaceFolder } from '../../src/node/planFilesPorts';
import type { ChangeView } from '../../src/shared/protocol/files';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A watcher whose events the test sends when it likes. */
class HandWatcher implements FileWatcher {
  record: ((path: string | undefined, kind: WatchKind) => void) | undefined;
  disposed = 0;
  watch(_folder: unknown, record: (path: string | undefined, kind: WatchKind) => void) {
    this.record = record;
    return { dispose: () => void this.disposed++ };
  }
  tell(path: string, kind: WatchKind): void {
    assert.ok(this.record, 'the engine is watching');
    this.record(path, kind);
  }
}

/** A workspace with `files`, a plan declaring `declared.txt`, approved, checkpointed and watched, its step started. */
async function running(files: Record<string, string>, lateMs = 5000) {
  const ws = mkdtempSync(join(tmpdir(), 'plangate-late-ws-'));
  const storage = mkdtempSync(join(tmpdir(), 'plangate-late-store-'));
  dirs.push(ws, storage);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(ws, path, '..'), { recursive: true });
    writeFileSync(join(ws, path), text);
  }
  const workflow = new Workflow(new MemoryLedgerSink());
  const plan = {
    kind: 'orchestrated_plan' as const,
    version: '1',
    status: 'ok' as const,
    instruction: 'Write a file',
    safety: { touches_files: ['declared.txt'] },
    next_actions: [{ tool: 'write_file', args: { path: 'declared.txt', content: 'x' } }],
  };
  workflow.dispatch({ type: 'planReceived', at: 1, planId: 'p', origin: { server: 's', tool: 't', args: {}, entrance: 'manual' }, plan });
  assert.ok(workflow.dispatch({ type: 'approved', at: 2, planId: 'p', approvalHash: approvalHash(getPlan(workflow.state, 'p')!) }));
  const watcher = new HandWatcher();
  const logs: string[] = [];
  const engine = new FilesEngine({
    workflow,
    folder: () => nodeWorkspaceFolder(ws),
    disk: nodeWorkspaceDisk(),
    checkpoints: nodeCheckpointStore(storage),
    watcher,
    settleMs: 10,
    lateMs,
    log: (_level, line) => logs.push(line),
  });
  await engine.beforeRun(getPlan(workflow.state, 'p')!);
  assert.ok(workflow.dispatch({ type: 'stepStarted', at: 3, planId: 'p', step: 0, server: 's', crossServer: false }));
  const stop = async () => {
    assert.ok(workflow.dispatch({ type: 'stepSucceeded', at: 4, planId: 'p', step: 0, summary: 'ok' }));
    const sealed = await engine.settledChanges('p');
    assert.ok(sealed, 'the checkpoint was sealed');
    return sealed;
  };
  /** The list once it names `path` (or fails after `ms`). */
  const listed = async (path: string, ms = 5000): Promise<ChangeView[]> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const now = engine.changed('p') ?? [];
      if (now.some((c) => c.path === path)) return now;
      if (Date.now() > deadline) assert.fail(`"${path}" never listed: ${JSON.stringify(now.map((c) => c.path))}; log: ${logs.join(' | ')}`);
      await sleep(20);
    }
  };
  return { ws, engine, watcher, stop, listed, logs, dispose: () => engine.dispose() };
}

describe('the files engine: watcher events that come after the checkpoint is sealed', () => {
  test('a file the run rewrote (a temporary file renamed over it), told of after the seal: listed as modified, undeclared, with no revert; a file edited after the run stopped is not', async () => {
    const run = await running({ 'notes.json': '["from before"]\n', 'other.txt': 'other\n', 'declared.txt': 'before\n' });
    try {
      // The step: the declared file, and a file it never named, written the careful way.
      writeFileSync(join(run.ws, 'declared.txt'), 'after\n');
      writeFileSync(join(run.ws, 'notes.json.1.tmp'), '["from before","remembered"]\n');
      renameSync(join(run.ws, 'notes.json.1.tmp'), join(run.ws, 'notes.json'));
      run.watcher.tell('declared.txt', 'changed');
      // …and no event for notes.json before the seal.
      const sealed = await run.stop();
      assert.deepEqual(
        sealed.map((c) => c.path),
        ['declared.txt'],
      );
      // After the stop the user edits two files: one the plan declared, one it never touched.
      await sleep(30);
      writeFileSync(join(run.ws, 'other.txt'), 'edited by the user\n');
      writeFileSync(join(run.ws, 'declared.txt'), 'edited by the user\n');
      run.watcher.tell('notes.json', 'changed');
      run.watcher.tell('other.txt', 'changed');
      run.watcher.tell('declared.txt', 'changed');
      const list = await run.listed('notes.json');
      const notes = list.find((c) => c.path === 'notes.json')!;
      assert.equal(notes.kind, 'modified');
      assert.equal(notes.undeclared, true);
      assert.equal(notes.revertable, false, 'Plangate has no copy of it from before');
      await sleep(300);
      assert.deepEqual(
        (run.engine.changed('p') ?? []).map((c) => c.path),
        ['declared.txt', 'notes.json'],
        'the file edited after the stop is not the plan’s',
      );
      assert.ok(
        run.logs.some((l) => /changes after it stopped, not its own: other\.txt/.test(l)),
        run.logs.join('\n'),
      );
      // The seal of the files recorded before is kept: declared.txt as the plan left it, so reverting it now is a
      // conflict with the user's edit, not a silent overwrite.
      const preview = await run.engine.revertPreview('p', 'declared.txt');
      assert.equal(preview.length, 1);
      assert.equal(preview[0].ok, false, JSON.stringify(preview));
      assert.equal(readFileSync(join(run.ws, 'declared.txt'), 'utf8'), 'edited by the user\n');
    } finally {
      run.dispose();
    }
  });

  test('a file the run created and one it removed, told of late: created (Revert removes it) and deleted; a removal after the stop in another folder is not listed', async () => {
    const run = await running({ 'old/gone.txt': 'old\n', 'user/mine.txt': 'mine\n', 'declared.txt': 'before\n' });
    try {
      writeFileSync(join(run.ws, 'made.txt'), 'new\n');
      unlinkSync(join(run.ws, 'old/gone.txt'));
      await run.stop();
      await sleep(30);
      unlinkSync(join(run.ws, 'user/mine.txt'));
      run.watcher.tell('made.txt', 'created');
      run.watcher.tell('old/gone.txt', 'deleted');
      run.watcher.tell('user/mine.txt', 'deleted');
      await run.listed('old/gone.txt');
      const list = await run.listed('made.txt');
      await sleep(300);
      const now = run.engine.changed('p') ?? [];
      assert.deepEqual(
        now.map((c) => [c.path, c.kind]),
        [
          ['made.txt', 'created'],
          ['old/gone.txt', 'deleted'],
        ],
        JSON.stringify(list),
      );
      assert.equal(now.find((c) => c.path === 'made.txt')!.revertable, true, 'a created file is revertable: Revert removes it');
    } finally {
      run.dispose();
    }
  });

  test('the late window ends: its watcher is let go, and what it tells afterwards is not listed', async () => {
    const run = await running({ 'declared.txt': 'before\n' }, 150);
    try {
      writeFileSync(join(run.ws, 'made.txt'), 'new\n');
      await run.stop();
      assert.equal(run.watcher.disposed, 0, 'still listening for late events');
      await sleep(400);
      assert.equal(run.watcher.disposed, 1, 'the watcher is let go when the window ends');
      run.watcher.tell('made.txt', 'created');
      await sleep(300);
      assert.deepEqual(
        (run.engine.changed('p') ?? []).map((c) => c.path),
        [],
      );
    } finally {
      run.dispose();
    }
  });
});
