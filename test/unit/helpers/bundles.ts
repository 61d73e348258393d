// Test bundles: the CLI, the fixture server, the gated server and the elicitation test server, each bundled by esbuild into one file
// that node starts in a fraction of tsx's time (a tsx start of the fixture costs about a second of CPU; tests start
// it well over a hundred times). `npm run test:unit` (scripts/runUnitTests.mjs) builds them once for the whole run
// and names their folder in PLANGATE_TEST_BUNDLES; a test file run any other way builds its own, once per process,
// into a temp folder removed when the process exits. They are built from the sources as they are now, every run.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface Bundles {
  dir: string;
  cli: string;
  fixture: string;
  elicitServer: string;
  gated: string;
}

/** What is bundled, by output name: the same list scripts/runUnitTests.mjs builds. */
export const BUNDLE_ENTRIES = {
  'cli.js': 'src/cli/main.ts',
  'fixture.js': 'fixture/main.ts',
  'elicit.js': 'test/unit/helpers/cliElicitServer.ts',
  'gated.js': 'src/gate/gatedServer.ts',
};

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function paths(dir: string): Bundles {
  return {
    dir,
    cli: join(dir, 'cli.js'),
    fixture: join(dir, 'fixture.js'),
    elicitServer: join(dir, 'elicit.js'),
    gated: join(dir, 'gated.js'),
  };
}

/** The options of a Node bundle for tests (as esbuild.mjs's node bundles, unminified). */
export const NODE_BUNDLE: esbuild.BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'error',
  mainFields: ['module', 'main'],
  absWorkingDir: ROOT,
};

/** Builds every bundle into `dir`, from the sources as they are now. */
export function buildBundles(dir: string): Bundles {
  for (const [out, entry] of Object.entries(BUNDLE_ENTRIES))
    esbuild.buildSync({ ...NODE_BUNDLE, entryPoints: [entry], outfile: join(dir, out) });
  // The sandbox runtime beside the CLI, as dist/srt.mjs is beside dist/cli.js (node follows the link to its package).
  symlinkSync(join(ROOT, 'node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js'), join(dir, 'srt.mjs'));
  return paths(dir);
}

let own: Bundles | undefined;

/** The bundles: the run's (PLANGATE_TEST_BUNDLES), else this process's own, built now (synchronously) the first time. */
export function testBundles(): Bundles {
  const shared = process.env.PLANGATE_TEST_BUNDLES;
  if (shared) return paths(shared);
  if (own) return own;
  const dir = mkdtempSync(join(tmpdir(), 'plangate-test-bundles-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return (own = buildBundles(dir));
}

// `node --import tsx test/unit/helpers/bundles.ts DIR`: what scripts/runUnitTests.mjs runs once before the tests.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) buildBundles(process.argv[2] ?? '.');
