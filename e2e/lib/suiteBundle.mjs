// Bundles the in-host suites (test/integration/index.ts + every test/integration/**/*.test.ts) into one CommonJS
// file that Plangate's test hook `require`s (and @vscode/test-electron loads as extensionTestsPath).
// Uses the root's esbuild; `vscode` stays external (the host supplies it).
//   node e2e/lib/suiteBundle.mjs [OUTFILE]   (default .e2e/suite/inHostSuite.js; prints the path)
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_SUITE_BUNDLE = path.join(process.env.PLANGATE_E2E_HOME || path.join(ROOT, '.e2e'), 'suite', 'inHostSuite.js');

/** Builds the bundle; resolves to `{ outfile, files }` (the test files it holds, relative to test/integration). */
export async function bundleInHostSuite(outfile = DEFAULT_SUITE_BUNDLE) {
  const esbuild = createRequire(path.join(ROOT, 'package.json'))('esbuild');
  const dir = path.join(ROOT, 'test', 'integration');
  const files = fs
    .readdirSync(dir, { recursive: true })
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => f.endsWith('.test.ts'))
    .sort();
  if (files.length === 0) throw new Error(`no *.test.ts in ${dir}`);
  const contents = [`export { run } from './index';`, ...files.map((f) => `import './${f.replace(/\.ts$/, '')}';`)].join('\n');
  await esbuild.build({
    stdin: { contents, resolveDir: dir, sourcefile: 'inHostSuiteEntry.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    mainFields: ['module', 'main'], // as esbuild.mjs: jsonc-parser's UMD main (src/ui/policy.ts imports it) cannot be bundled
    outfile,
    logLevel: 'warning',
  });
  return { outfile, files };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outfile } = await bundleInHostSuite(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  console.log(outfile);
}
