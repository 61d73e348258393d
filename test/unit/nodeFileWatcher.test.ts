// The CLI's watcher (fs.watch per folder) names each event's kind from the disk and from the files that were there
// when the watch began. fs.watch's events arrive after the fact: a server that writes `a.txt.<random>.tmp` and renames
// it over `a.txt` (as @modelcontextprotocol/server-filesystem does) has the temporary file's creation read when it is
// already gone. Done here in one tick, so the race is certain rather than likely.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventKinds, nodeFileWatcher, pathsNow } from '../../src/node/planFilesPorts';
import { computeChanges, WatchLog } from '../../src/core/files/changes';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Watches a fresh folder holding `files`, runs `act`, and returns the log once a sentinel's event has come in. */
async function watched(files: Record<string, string>, act: (root: string) => void): Promise<WatchLog> {
  const root = mkdtempSync(join(tmpdir(), 'plangate-watch-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const log = new WatchLog();
  let sentinel: () => void = () => undefined;
  // The watcher holds no handle that keeps the process alive (persistent: false): the guard's timer does, until the
  // sentinel's event comes, and fails the test saying so if it never does.
  let guard: NodeJS.Timeout | undefined;
  const seen = new Promise<void>((resolve, reject) => {
    sentinel = resolve;
    guard = setTimeout(() => reject(new Error('no event came for the sentinel file within 20 s')), 20_000);
  });
  const watch = nodeFileWatcher().watch({ root, roots: [root] }, (path, kind) => {
    if (path === 'zz-sentinel') sentinel();
    else log.record(path, kind);
  });
  try {
    act(root);
    writeFileSync(join(root, 'zz-sentinel'), '');
    await seen;
    // The kinds are read with lstat, whose answers may come back in any order: let the last of them land.
    await new Promise((r) => setTimeout(r, 200));
    return log;
  } finally {
    clearTimeout(guard);
    watch.dispose();
  }
}

describe('nodeFileWatcher', () => {
  it('a file written to a temporary name and renamed over one that was there: the file changed, the temporary file is no change', async () => {
    const log = await watched({ 'a.txt': 'alpha\n' }, (root) => {
      writeFileSync(join(root, 'a.txt.1234.tmp'), 'gamma\n');
      renameSync(join(root, 'a.txt.1234.tmp'), join(root, 'a.txt'));
    });
    assert.ok(!log.seenPaths.includes('a.txt.1234.tmp'), `the temporary file was recorded: ${JSON.stringify(log.watched)}`);
    assert.ok(log.watched.some((e) => e.path === 'a.txt'));
    assert.ok(
      log.watched.filter((e) => e.path === 'a.txt').every((e) => e.kind === 'changed'),
      `a.txt was there before, so it is changed, never created: ${JSON.stringify(log.watched)}`,
    );
    assert.deepEqual(log.createdPaths, []);
    // Outside the checkpoint, the change list says modified (not revertable) — not "created", which revert would delete.
    const changes = computeChanges({ entries: [], disk: { 'a.txt': 'h2' }, watched: log.watched });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.path]),
      [['modified', 'a.txt']],
    );
  });

  it('a new file written through a temporary name is created; one that came and went is no change', async () => {
    const log = await watched({ 'keep.txt': 'k' }, (root) => {
      writeFileSync(join(root, 'new.md.tmp'), '# new\n');
      renameSync(join(root, 'new.md.tmp'), join(root, 'new.md'));
      writeFileSync(join(root, 'scratch'), 'x');
      unlinkSync(join(root, 'scratch'));
    });
    assert.deepEqual(log.createdPaths, ['new.md']);
    assert.deepEqual(log.seenPaths, ['new.md']);
  });

  it('a file that was there and is gone is deleted; a new folder is created', async () => {
    const log = await watched({ 'old.txt': 'o', 'src/keep.ts': '' }, (root) => {
      unlinkSync(join(root, 'old.txt'));
      mkdirSync(join(root, 'docs'));
    });
    assert.deepEqual(
      log.watched.filter((e) => e.path === 'old.txt').map((e) => e.kind),
      ['deleted'],
    );
    assert.ok(log.createdPaths.includes('docs'));
    const changes = computeChanges({ entries: [], disk: { 'old.txt': null }, watched: log.watched.filter((e) => e.path === 'old.txt') });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.path]),
      [['deleted', 'old.txt']],
    );
  });
});

describe("EventKinds (both watchers: the CLI's and VS Code's)", () => {
  const run = (before: string[], events: [string, 'present' | 'gone'][]) => {
    const out: [string, string][] = [];
    const kinds = new EventKinds(new Set(before), (path, kind) => out.push([path, kind]));
    for (const [path, what] of events) kinds[what](path);
    return out;
  };

  it('VS Code says "created" for a file renamed over one that was there: it is changed', () => {
    assert.deepEqual(run(['a.txt'], [['a.txt', 'present']]), [['a.txt', 'changed']]);
  });

  it('a new file is created once, then changed; gone after being seen, deleted', () => {
    assert.deepEqual(
      run(
        [],
        [
          ['n.md', 'present'],
          ['n.md', 'present'],
          ['n.md', 'gone'],
        ],
      ),
      [
        ['n.md', 'created'],
        ['n.md', 'changed'],
        ['n.md', 'deleted'],
      ],
    );
  });

  it('a file that was there and is gone is deleted; one never seen that is gone is no change', () => {
    assert.deepEqual(
      run(
        ['old.txt'],
        [
          ['old.txt', 'gone'],
          ['a.txt.99.tmp', 'gone'],
        ],
      ),
      [['old.txt', 'deleted']],
    );
  });
});

describe('pathsNow', () => {
  it('lists files and folders, does not enter node_modules or .git, and reads at most maxFolders folders', () => {
    const root = mkdtempSync(join(tmpdir(), 'plangate-paths-'));
    dirs.push(root);
    for (const f of ['a.txt', 'src/b.ts', 'src/deep/c.ts', 'node_modules/x/i.js', '.git/HEAD']) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), '');
    }
    assert.deepEqual([...pathsNow(root)].sort(), ['.git', 'a.txt', 'node_modules', 'src', 'src/b.ts', 'src/deep', 'src/deep/c.ts']);
    assert.deepEqual([...pathsNow(root, { maxFolders: 1 })].sort(), ['.git', 'a.txt', 'node_modules', 'src']);
    assert.deepEqual([...pathsNow(root, { from: 'src' })].sort(), ['src/b.ts', 'src/deep', 'src/deep/c.ts']);
  });
});
