// Checkpoint and Revert never read or write through a link that leads out of the workspace. The hostile case: a
// plan's step swaps a workspace folder for a link to the user's home (`data -> ..`), so that restoring data/.bashrc
// and removing data/notes.txt would land in the home folder. A link already in the repository must not make the
// checkpoint copy files from outside either. A temp folder stands in for $HOME.
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFixtureServer } from '../../fixture/fixtureServer';
import { computeChanges } from '../../src/core/files/changes';
import { touchedPaths } from '../../src/core/files/predict';
import { checkpointDiskState, createCheckpoint, readCheckpoint, revertFile, revertPlan, sealCheckpoint } from '../../src/node/checkpoint';
import { listWorkspaceFiles } from '../../src/node/workspaceFiles';
import { connectInMemory } from './helpers/inMemoryInvoker';

let base: string;
let home: string;
let ws: string;
let storage: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'plangate-symlink-'));
  home = join(base, 'home'); // stands in for the user's $HOME
  ws = join(home, 'project'); // the workspace folder, inside it
  storage = join(base, 'storage');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(home, '.bashrc'), 'export SECRET=users-own\n');
  writeFileSync(join(home, 'notes.txt'), "the user's notes\n");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function homeUntouched(): void {
  assert.equal(readFileSync(join(home, '.bashrc'), 'utf8'), 'export SECRET=users-own\n', '~/.bashrc is untouched');
  assert.equal(readFileSync(join(home, 'notes.txt'), 'utf8'), "the user's notes\n", '~/notes.txt is untouched');
  assert.deepEqual(readdirSync(home).sort(), ['.bashrc', 'notes.txt', 'project'], 'nothing was added to or removed from the home folder');
}

function blobsHold(text: string): boolean {
  const dirs = existsSync(join(storage, 'checkpoints')) ? readdirSync(join(storage, 'checkpoints')) : [];
  return dirs.some((d) => {
    const blobs = join(storage, 'checkpoints', d, 'blobs');
    return existsSync(blobs) && readdirSync(blobs).some((b) => readFileSync(join(blobs, b), 'utf8').includes(text));
  });
}

describe('a step swaps a workspace folder for a link out of the workspace', () => {
  test('a plan run on the fixture swaps data for a link to $HOME; Revert neither restores nor deletes through it, and says so per file', async (t) => {
    mkdirSync(join(ws, 'data'));
    writeFileSync(join(ws, 'data/.bashrc'), 'workspace copy\n');

    // The plan's steps run on the real fixture server (its file tools write under the workspace), with the checkpoint
    // taken as the extension takes it: before the first step, of the files the plan's steps name.
    const conn = await connectInMemory([
      { name: 'fixture', server: createFixtureServer({ root: ws, callLogFile: join(base, 'calls.jsonl') }) },
    ]);
    t.after(() => conn.close());
    const plan = {
      kind: 'orchestrated_plan',
      version: '1',
      status: 'ok',
      instruction: 'Tidy the data folder.',
      safety: { writes_code: false, touches_files: ['data/**'] },
      next_actions: [
        { tool: 'write_file_step', args: { path: 'data/.bashrc', content: 'changed by the plan\n' } },
        { tool: 'write_file_step', args: { path: 'data/notes.txt', content: 'created by the plan\n' } },
        { tool: 'swap_folder_for_link', args: { folder: 'data', target: '..' } },
      ],
    };
    const planId = 'swap';
    await createCheckpoint(storage, planId, ws, touchedPaths([], plan.next_actions, [], ws));
    for (const step of plan.next_actions) {
      const result = await conn.invoker.callTool('fixture', step.tool, step.args);
      assert.notEqual(result.isError, true, `${step.tool}: ${JSON.stringify(result.content)}`);
    }
    assert.ok(lstatSync(join(ws, 'data')).isSymbolicLink(), 'the step swapped the folder for a link');
    assert.equal(readFileSync(join(ws, 'data/.bashrc'), 'utf8'), 'export SECRET=users-own\n', 'data/.bashrc now reads ~/.bashrc');

    // The run ends: seal, with what a watcher would report, including a file seen through the link.
    const checkpoint = (await readCheckpoint(storage, planId))!;
    assert.deepEqual(
      checkpoint.entries.map((e) => [e.path, e.status]),
      [
        ['data/.bashrc', 'stored'],
        ['data/notes.txt', 'absent'],
      ],
    );
    const sealed = await sealCheckpoint(checkpoint, ['data/.bashrc', 'data/notes.txt', 'data/.profile'], {
      created: ['data/notes.txt', 'data/.profile'],
    });
    assert.deepEqual(
      sealed.entries.map((e) => e.path),
      ['data/.bashrc', 'data/notes.txt'],
      'a file seen through the link is not taken into the checkpoint',
    );

    // The change list says these files cannot be reverted, and why.
    const changes = computeChanges({ entries: sealed.entries, disk: await checkpointDiskState(sealed), globs: plan.safety.touches_files });
    assert.deepEqual(
      changes.map((c) => [c.path, c.revertable]),
      [
        ['data/.bashrc', false],
        ['data/notes.txt', false],
      ],
    );
    for (const c of changes) assert.match(c.note ?? '', /reached through "data", a link to a place outside the workspace/);

    // The confirmation (a dry run) lists each file as skipped, naming the link.
    const preview = await revertPlan(sealed, { dryRun: true });
    assert.deepEqual(
      preview.map((r) => r.path),
      ['data/.bashrc', 'data/notes.txt'],
    );
    for (const r of preview) {
      assert.ok(!r.ok && 'error' in r, r.path);
      assert.match(
        r.error,
        /^skipped: "data" is now a link to a place outside the workspace, and Plangate neither writes nor deletes anything through it/,
      );
    }
    // Reverting, even forced, writes and deletes nothing outside.
    const results = await revertPlan(sealed, { force: true });
    assert.ok(
      results.every((r) => !r.ok && 'error' in r && r.error.startsWith('skipped:')),
      JSON.stringify(results),
    );
    assert.equal((await revertFile(sealed, 'data/notes.txt', { force: true })).ok, false);
    homeUntouched();
    assert.ok(!blobsHold('SECRET'), 'nothing from outside was copied into the checkpoint');
  });

  test('a folder swapped for a link while Revert writes is caught by the check right before the rename', async (t) => {
    mkdirSync(join(ws, 'data'));
    writeFileSync(join(ws, 'data/.bashrc'), 'v1\n');
    const cp = await createCheckpoint(storage, 'race', ws, ['data/.bashrc']);
    writeFileSync(join(ws, 'data/.bashrc'), 'v2 by the plan\n');
    const sealed = await sealCheckpoint(cp);

    // The swap happens just as the temporary file is opened: after the first check, before the write and rename.
    const original = fs.promises.open;
    mock.method(fs.promises, 'open', async function (this: unknown, ...args: Parameters<typeof original>) {
      if (String(args[0]).endsWith('.plangate-tmp') && !lstatSync(join(ws, 'data')).isSymbolicLink()) {
        rmSync(join(ws, 'data'), { recursive: true });
        symlinkSync('..', join(ws, 'data'), 'dir');
      }
      return original.apply(this, args);
    });
    t.after(() => mock.restoreAll());
    const result = await revertFile(sealed, 'data/.bashrc', { force: true });
    mock.restoreAll();
    assert.ok(!result.ok && 'error' in result, JSON.stringify(result));
    assert.match(result.error, /^skipped: "data" is now a link to a place outside the workspace/);
    homeUntouched();
  });

  test('a folder swapped for a link after the confirmation listed a removal: nothing is deleted through it, no folder there is cleaned up', async () => {
    const cp = await createCheckpoint(storage, 'race-rm', ws, ['data/sub/notes.txt']);
    mkdirSync(join(ws, 'data/sub'), { recursive: true });
    writeFileSync(join(ws, 'data/sub/notes.txt'), 'created\n');
    const sealed = await sealCheckpoint(cp);
    // What the preview promised was a removal; then the folder becomes a link to $HOME, which has sub/notes.txt too.
    assert.deepEqual(await revertPlan(sealed, { dryRun: true }), [{ ok: true, path: 'data/sub/notes.txt', action: 'removed' }]);
    mkdirSync(join(home, 'sub'));
    writeFileSync(join(home, 'sub/notes.txt'), 'created\n'); // same bytes: the state check alone would not notice
    rmSync(join(ws, 'data'), { recursive: true });
    symlinkSync('..', join(ws, 'data'), 'dir');
    const results = await revertPlan(sealed, { force: true });
    assert.ok(
      results.every((r) => !r.ok && 'error' in r && /^skipped: "data"/.test(r.error)),
      JSON.stringify(results),
    );
    assert.equal(readFileSync(join(home, 'sub/notes.txt'), 'utf8'), 'created\n', '~/sub/notes.txt is still there');
    assert.ok(existsSync(join(home, 'sub')), '~/sub was not removed as an empty folder the plan made');
  });
});

describe('a link already in the repository', () => {
  test('touched-files globs do not list files through it', async () => {
    symlinkSync('..', join(ws, 'up'), 'dir'); // up -> $HOME
    mkdirSync(join(home, 'sub'));
    writeFileSync(join(home, 'sub/key.pem'), 'private\n');
    for (const globs of [['up/sub/**'], ['up/sub/key.pem'], ['up/*.txt'], ['up/**']]) {
      const listed = await listWorkspaceFiles(ws, globs);
      assert.deepEqual(
        listed.files.filter((f) => f.startsWith('up/')),
        [],
        `${globs}: ${JSON.stringify(listed.files)}`,
      );
    }
  });

  test('the checkpoint does not copy files from outside through it, and Revert leaves them alone', async () => {
    symlinkSync('..', join(ws, 'up'), 'dir'); // up -> $HOME
    mkdirSync(join(ws, 'inner'));
    writeFileSync(join(ws, 'inner/a.txt'), 'inside\n');
    symlinkSync('inner', join(ws, 'alias'), 'dir'); // a link that stays inside is fine
    const cp = await createCheckpoint(storage, 'repo-link', ws, ['up/.bashrc', 'up/notes.txt', 'up/new.txt', 'alias/a.txt']);
    const byPath = new Map(cp.entries.map((e) => [e.path, e]));
    for (const p of ['up/.bashrc', 'up/notes.txt', 'up/new.txt']) {
      assert.equal(byPath.get(p)?.status, 'invalidPath', p);
      assert.match(byPath.get(p)?.note ?? '', /was not read: "up" is a link to a place outside the workspace/);
    }
    assert.equal(byPath.get('alias/a.txt')?.status, 'stored', 'a link that stays inside the workspace is followed');
    assert.ok(!blobsHold('SECRET'), 'nothing from outside was copied');

    // A plan then writes through the link (the server's doing); Revert still touches nothing there.
    writeFileSync(join(home, '.bashrc'), 'export SECRET=users-own\n');
    writeFileSync(join(ws, 'alias/a.txt'), 'changed\n');
    const sealed = await sealCheckpoint(cp, ['up/new.txt'], { created: ['up/new.txt'] });
    const disk = await checkpointDiskState(sealed);
    assert.equal(disk.has('up/.bashrc'), false, 'the disk state never reads through the link');
    assert.deepEqual(
      (await revertPlan(sealed)).map((r) => [r.path, r.ok]),
      [['alias/a.txt', true]],
    );
    assert.equal(readFileSync(join(ws, 'inner/a.txt'), 'utf8'), 'inside\n');
    homeUntouched();
  });
});
