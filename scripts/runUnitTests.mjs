// Runs every test/unit/**/*.test.ts with node's built-in test runner (through tsx), so CI reads its
// closing lines. Node 20 takes no globs for --test, hence this small finder. Extra args are file filters:
// `npm run test:unit -- envelope` runs only files whose path contains "envelope". Property tests draw from a
// fixed fast-check seed (test/unit/helpers/fastCheckSeed.ts); `npm run fuzz` explores with new ones.
import { readdirSync, statSync } from 'node:fs';
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
  { stdio: 'inherit' },
);
process.exit(r.status ?? 1);
