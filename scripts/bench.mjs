// `npm run bench`: builds bench/run.ts with esbuild, as the shipped bundles are built (our code bundled, no dev-loader
// wrappers: tsx's keepNames `__name` calls and getter-based ESM interop made hashing ~10× slower than in dist/), then
// runs it. Packages stay external (loaded from node_modules as they are), `vscode` is the bench's fake where a group
// needs one. Arguments pass through (`npm run bench -- --json engine`).
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

mkdirSync('.bench', { recursive: true });
await esbuild.build({
  entryPoints: ['bench/run.ts'],
  outfile: '.bench/run.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  external: ['vscode'],
  sourcemap: 'inline',
  logLevel: 'warning',
  // The groups find the repository and their helpers from import.meta.url: .bench/ sits beside bench/, one level down.
  define: { 'import.meta.url': '__benchUrl' },
  banner: { js: "const __benchUrl = require('node:url').pathToFileURL(__filename).href;" },
});
const run = spawnSync(process.execPath, ['--enable-source-maps', '.bench/run.cjs', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
