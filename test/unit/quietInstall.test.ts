// What a new user sees while installing and building is only what matters: no EBADENGINE for a dependency that
// wants a newer Node than the README promises, no install-script notice for a package nobody decided about, and no
// `[watch]` lines from a plain `npm run build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './helpers/fixture';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; hasInstallScript?: boolean; optional?: boolean }>;
};
// npm's own range reader; it is in the tree through typescript-eslint and @vscode/vsce.
const semver = createRequire(join(REPO_ROOT, 'package.json'))('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(v: string, range: string): boolean;
};

test('every installed package runs on the oldest Node the README and package.json promise (no EBADENGINE)', () => {
  const oldest = semver.minVersion(pkg.engines.node)!.version;
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  assert.match(readme, new RegExp(`Node ≥ ${oldest.replace(/\.0$/, '').replace(/\./g, '\\.')}\\b`), `the README states Node ≥ ${oldest}`);
  const refusing = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && !Array.isArray(p.engines) && p.engines?.node && !semver.satisfies(oldest, p.engines.node))
    .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`);
  assert.deepEqual(refusing, [], `these would print EBADENGINE on Node ${oldest}`);
});

test('every dependency with an install script has a decision in allowScripts (npm prints no notice about it)', () => {
  const decided = new Set(Object.keys(pkg.allowScripts ?? {}).map((k) => k.replace(/(.)@[^@/]*$/, '$1')));
  const undecided = [
    ...new Set(
      Object.entries(lock.packages)
        .filter(([path, p]) => path !== '' && p.hasInstallScript)
        .map(([path]) => path.replace(/^.*node_modules\//, '')),
    ),
  ].filter((name) => !decided.has(name));
  assert.deepEqual(undecided, []);
});

test('a plain build prints nothing on success: no [watch] lines', { timeout: 120_000 }, () => {
  // esbuild.mjs, run unchanged in a temp project made of links, so this repository's dist/ is not touched.
  const dir = mkdtempSync(join(tmpdir(), 'plangate-build-'));
  try {
    for (const entry of ['src', 'fixture', 'scripts', 'node_modules', 'package.json', 'tsconfig.json'])
      symlinkSync(join(REPO_ROOT, entry), join(dir, entry));
    copyFileSync(join(REPO_ROOT, 'esbuild.mjs'), join(dir, 'esbuild.mjs'));
    mkdirSync(join(dir, 'dist'));
    const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: dir, encoding: 'utf8', timeout: 110_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
