// Runs every test/unit/**/*.test.ts with node's built-in test runner (through tsx), so CI reads its
// closing lines. Node 20 takes no globs for --test, hence this small finder. Extra args are file filters:
// `npm run test:unit -- envelope` runs only files whose path contains "envelope". Property tests draw from a
// fixed fast-check seed (test/unit/helpers/fastCheckSeed.ts); `npm run fuzz` explores with new ones.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? find(p) : p.endsWith('.test.ts') ? [p] : [];
  });
}

const filters = process.argv.slice(2);
const files = find('test/unit')
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no unit test files matched');
  process.exit(1);
}
// The CLI, the fixture server and the other spawned test programs, bundled once for every test file of this run
// (test/unit/helpers/bundles.ts): a tsx start of each, a hundred times over, cost minutes.
const bundleDir = mkdtempSync(join(tmpdir(), 'plangate-test-bundles-'));
const built = spawnSync(process.execPath, ['--import', 'tsx', 'test/unit/helpers/bundles.ts', bundleDir], { stdio: 'inherit' });
if (built.status !== 0) {
  rmSync(bundleDir, { recursive: true, force: true });
  console.error('bundling the test programs failed');
  process.exit(1);
}
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    './test/unit/helpers/fastCheckSeed.ts',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, PLANGATE_TEST_BUNDLES: bundleDir } },
);
rmSync(bundleDir, { recursive: true, force: true });
process.exit(r.status ?? 1);
