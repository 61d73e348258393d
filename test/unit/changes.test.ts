// Actual changes after a run: checkpoint vs disk plus what the watcher saw, with the "undeclared write" and
// "code changed by a plan that said writes_code: false" flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeChanges, isCodeFile, summariseChanges, WatchLog, type CheckpointFileState } from '../../src/core/files/changes';

const entries: CheckpointFileState[] = [
  { path: 'src/a.ts', existed: true, hash: 'h-a', size: 3 },
  { path: 'src/b.ts', existed: true, hash: 'h-b', size: 3 },
  { path: 'src/new.ts', existed: false },
  { path: 'docs/readme.md', existed: true, hash: 'h-r', size: 3 },
  { path: 'docs/never.md', existed: false },
];

test('created, modified and deleted files of the checkpoint; untouched ones are not listed', () => {
  const changes = computeChanges({
    entries,
    disk: { 'src/a.ts': 'h-a2', 'src/b.ts': 'h-b', 'src/new.ts': 'h-n', 'docs/readme.md': null, 'docs/never.md': null },
    globs: ['src/**', 'docs/**'],
  });
  assert.deepEqual(
    changes.map((c) => [c.path, c.kind, c.inCheckpoint, c.revertable]),
    [
      ['docs/readme.md', 'deleted', true, true],
      ['src/a.ts', 'modified', true, true],
      ['src/new.ts', 'created', true, true],
    ],
  );
  assert.ok(changes.every((c) => !c.undeclared));
});

test('a change outside the declared globs is an undeclared write', () => {
  const changes = computeChanges({
    entries,
    disk: new Map([
      ['src/a.ts', 'h-a2'],
      ['docs/readme.md', 'h-r2'],
      ['.env', 'h-e'],
    ]),
    watched: [{ path: '.env', kind: 'created' }],
    globs: ['src/**'],
  });
  assert.deepEqual(
    changes.map((c) => [c.path, c.kind, c.undeclared]),
    [
      ['.env', 'created', true],
      ['docs/readme.md', 'modified', true],
      ['src/a.ts', 'modified', false],
    ],
  );
  const env = changes.find((c) => c.path === '.env')!;
  assert.equal(env.inCheckpoint, false, 'only the watcher saw it');
  assert.equal(env.revertable, false, 'not revertable until the checkpoint is sealed with it');
  assert.match(env.note!, /not among the plan's touched files/);
});

test('writes_code: false flags code files, not docs or config', () => {
  const changes = computeChanges({
    entries: [
      { path: 'src/a.ts', existed: true, hash: '1' },
      { path: 'README.md', existed: true, hash: '2' },
      { path: 'package.json', existed: true, hash: '3' },
    ],
    disk: { 'src/a.ts': 'x', 'README.md': 'y', 'package.json': 'z' },
    globs: ['**'],
    writesCode: false,
  });
  assert.deepEqual(
    changes.map((c) => [c.path, c.codeFile, c.unexpectedCode]),
    [
      ['README.md', false, false],
      ['package.json', false, false],
      ['src/a.ts', true, true],
    ],
  );
  const declaredCode = computeChanges({
    entries: [{ path: 'src/a.ts', existed: true, hash: '1' }],
    disk: { 'src/a.ts': 'x' },
    globs: ['**'],
    writesCode: true,
  });
  assert.equal(declaredCode[0]!.unexpectedCode, false);
  assert.equal(declaredCode[0]!.codeFile, true);
});

test('files only the watcher saw: its first event tells whether they existed before', () => {
  const changes = computeChanges({
    entries: [],
    disk: { 'made.txt': 'h', 'edited.txt': 'h', 'removed.txt': null, 'temp.txt': null },
    watched: [
      { path: 'made.txt', kind: 'created' },
      { path: 'made.txt', kind: 'changed' },
      { path: 'edited.txt', kind: 'changed' },
      { path: 'removed.txt', kind: 'deleted' },
      { path: 'temp.txt', kind: 'created' },
      { path: 'temp.txt', kind: 'deleted' },
    ],
  });
  assert.deepEqual(
    changes.map((c) => [c.path, c.kind]),
    [
      ['edited.txt', 'modified'],
      ['made.txt', 'created'],
      ['removed.txt', 'deleted'],
    ],
  );
  assert.ok(
    changes.every((c) => c.undeclared),
    'no globs: everything is undeclared',
  );
});

test('a file that was unreadable at the checkpoint counts as modified only when seen changing', () => {
  const unreadable: CheckpointFileState = { path: 'locked.bin', existed: true, revertable: false, note: '"locked.bin" could not be read' };
  assert.deepEqual(computeChanges({ entries: [unreadable], disk: { 'locked.bin': 'unreadable:EACCES' } }), []);
  const seen = computeChanges({ entries: [unreadable], disk: { 'locked.bin': 'h' }, watched: [{ path: 'locked.bin', kind: 'changed' }] });
  assert.equal(seen[0]!.kind, 'modified');
  assert.equal(seen[0]!.revertable, false);
  assert.match(seen[0]!.note!, /could not be read/);
  assert.equal(computeChanges({ entries: [unreadable], disk: { 'locked.bin': null } })[0]!.kind, 'deleted');
});

test('WatchLog keeps events in order and knows which paths were created first', () => {
  const log = new WatchLog();
  log.record('a.txt', 'created');
  log.record(undefined, 'changed');
  log.record('a.txt', 'changed');
  log.record('b.txt', 'changed');
  log.record('c.txt', 'deleted');
  log.record('c.txt', 'created');
  assert.deepEqual(log.seenPaths, ['a.txt', 'b.txt', 'c.txt']);
  assert.deepEqual(log.createdPaths, ['a.txt']);
  assert.equal(log.watched.length, 5);
});

test('the code-file list: extensions and well-known names, case-insensitive', () => {
  for (const p of ['a.ts', 'src/x.PY', 'lib/y.rs', 'Makefile', 'docker/Dockerfile', 'run.sh', 'q.sql', 'App.vue'])
    assert.equal(isCodeFile(p), true, p);
  for (const p of ['README.md', 'data.json', 'conf.yaml', 'style.css', 'index.html', 'notes.txt', '.ts', 'ts', 'image.png'])
    assert.equal(isCodeFile(p), false, p);
});

test('odd input never throws and a summary counts the flags', () => {
  const changes = computeChanges({
    entries: [null as unknown as CheckpointFileState, { path: 'a.ts', existed: true, hash: '1' }],
    disk: JSON.parse('{"a.ts": "2", "__proto__": null}') as Record<string, string | null>,
    watched: [null as unknown as { path: string; kind: 'created' }],
    globs: [42 as unknown as string, 'docs/**'],
    writesCode: false,
  });
  assert.deepEqual(summariseChanges(changes), { created: 0, modified: 1, deleted: 0, undeclared: 1, unexpectedCode: 1 });
});
