// The Node lister of workspace files matching touches_files globs (CLI and benchmark): glob semantics of
// core/base/globs.ts, excluded folders pruned, walks only from each glob's static base, capped, cancellable.
import { after, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { listWorkspaceFiles, walkBases } from '../../src/node/workspaceFiles';

let ws: string;
function put(rel: string, content = 'x'): void {
  mkdirSync(join(ws, rel, '..'), { recursive: true });
  writeFileSync(join(ws, rel), content);
}

before(() => {
  ws = mkdtempSync(join(tmpdir(), 'plangate-wsfiles-'));
  for (const p of [
    'README.md',
    '.env',
    'docs/guide.md',
    'docs/deep/more.md',
    'src/a.ts',
    'src/.hidden.ts',
    'src/modules/payroll/index.ts',
    'src/modules/payroll/ui/Form.tsx',
    'src/modules/hr/index.ts',
    'node_modules/pkg/index.js',
    'node_modules/pkg/README.md',
    'src/node_modules/inner/x.ts',
    '.git/HEAD',
    '.git/objects/ab/cdef',
    'dist/out.js',
  ])
    put(p);
  for (let i = 0; i < 30; i++) put(`gen/f${i}.txt`);
  symlinkSync(join(ws, 'src'), join(ws, 'src-link'));
});
after(() => rmSync(ws, { recursive: true, force: true }));

describe('listWorkspaceFiles', () => {
  test('matches with picomatch semantics (dotfiles too), sorted, never entering node_modules or .git', async () => {
    const r = await listWorkspaceFiles(ws, ['**/*.md', 'src/**']);
    assert.deepEqual(r.files, [
      'README.md',
      'docs/deep/more.md',
      'docs/guide.md',
      'src/.hidden.ts',
      'src/a.ts',
      'src/modules/hr/index.ts',
      'src/modules/payroll/index.ts',
      'src/modules/payroll/ui/Form.tsx',
    ]);
    assert.equal(r.truncated, false);
    assert.equal(r.cancelled, false);
    assert.deepEqual(r.skipped, []);
  });

  test('a plain path names a file or everything below a folder; outside globs match nothing', async () => {
    assert.deepEqual((await listWorkspaceFiles(ws, ['docs', '.env', '../**', '/etc/**'])).files, [
      '.env',
      'docs/deep/more.md',
      'docs/guide.md',
    ]);
    assert.deepEqual((await listWorkspaceFiles(ws, ['nope/**', 'missing.txt'])).files, []);
    assert.deepEqual((await listWorkspaceFiles(join(ws, 'no-such-root'), ['**'])).files, []);
  });

  test("walks only from the globs' static bases", async (t) => {
    const listed: string[] = [];
    const original = fs.readdir;
    mock.method(fs, 'readdir', function (this: unknown, ...args: unknown[]) {
      listed.push(relative(ws, String(args[0])).split(sep).join('/'));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    });
    t.after(() => mock.restoreAll());
    const r = await listWorkspaceFiles(ws, ['src/modules/payroll/**', 'docs/*.md']);
    mock.restoreAll();
    assert.deepEqual(r.files, ['docs/guide.md', 'src/modules/payroll/index.ts', 'src/modules/payroll/ui/Form.tsx']);
    assert.deepEqual(listed.sort(), ['docs', 'docs/deep', 'src/modules/payroll', 'src/modules/payroll/ui']);
    assert.deepEqual(walkBases(['src/modules/payroll/**', 'src/**', 'docs/*.md', '../x/**']), ['docs', 'src']);
    assert.deepEqual(walkBases(['a/**', '**/*.md']), ['']);
  });

  test('a glob whose base is inside an excluded folder is honoured; exclude can be changed', async () => {
    assert.deepEqual((await listWorkspaceFiles(ws, ['node_modules/pkg/*.js'])).files, ['node_modules/pkg/index.js']);
    assert.deepEqual(
      (await listWorkspaceFiles(ws, ['**/*.js'], { exclude: ['dist'] })).files,
      ['node_modules/pkg/index.js'],
      'only dist excluded now',
    );
    assert.deepEqual((await listWorkspaceFiles(ws, ['**/*.js'], { exclude: [] })).files, ['dist/out.js', 'node_modules/pkg/index.js']);
    assert.deepEqual(
      (await listWorkspaceFiles(ws, ['src/**/*.ts'], { exclude: ['src/modules/*'] })).files,
      ['src/.hidden.ts', 'src/a.ts', 'src/node_modules/inner/x.ts'],
      'a pattern excludes by workspace-relative path (and the default list no longer applies)',
    );
  });

  test('symbolic links are listed when they match, never followed', async () => {
    const r = await listWorkspaceFiles(ws, ['src-link', 'src-link/**']);
    assert.deepEqual(r.files, ['src-link']);
  });

  test('capped: stops at maxResults and says so', async () => {
    const r = await listWorkspaceFiles(ws, ['gen/**'], { maxResults: 10 });
    assert.equal(r.files.length, 10);
    assert.equal(r.truncated, true);
    assert.equal((await listWorkspaceFiles(ws, ['gen/**'], { maxResults: 30 })).truncated, false);
  });

  test('cancellable: an aborted signal stops the walk with the files found so far', async (t) => {
    const pre = new AbortController();
    pre.abort();
    const none = await listWorkspaceFiles(ws, ['**'], { signal: pre.signal });
    assert.equal(none.cancelled, true);
    assert.deepEqual(none.files, []);

    const controller = new AbortController();
    let reads = 0;
    const original = fs.readdir;
    mock.method(fs, 'readdir', function (this: unknown, ...args: unknown[]) {
      if (++reads === 2) controller.abort();
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    });
    t.after(() => mock.restoreAll());
    const r = await listWorkspaceFiles(ws, ['**'], { signal: controller.signal, concurrency: 1 });
    mock.restoreAll();
    assert.equal(r.cancelled, true);
    assert.ok(reads <= 3, `stopped reading folders (${reads} read)`);
    assert.ok(r.files.length < (await listWorkspaceFiles(ws, ['**'])).files.length);
  });
});
