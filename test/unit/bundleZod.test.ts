// The Node bundles keep zod's English messages and nothing of its other locales (scripts/lib/zodEnglishOnly.mjs,
// used by esbuild.mjs for dist/extension.js and dist/cli.js): 265 KB of the extension bundle's budget.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the bundles and zod', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-zod-bundle-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a bundle keeps zod's English messages and leaves its other locales out", async () => {
    const { zodEnglishOnly } = (await import(pathToFileURL(join(ROOT, 'scripts/lib/zodEnglishOnly.mjs')).href)) as {
      zodEnglishOnly: esbuild.Plugin;
    };
    // As the sources import it: the `z` namespace of the package index (src/mcp/config.ts, src/core/plan/envelope.ts),
    // taken whole somewhere (as the extension's dependencies do), which keeps every export of it — locales included.
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      "import { z } from 'zod';\nconst r = z.object({ name: z.string() }).safeParse({ name: 5 });\nprocess.stdout.write(r.success ? 'ok' : r.error.issues[0]!.message);\nif (Object.keys(z).length === 0) process.exit(3);\n",
    );
    const outfile = join(dir, 'out.js');
    await esbuild.build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      minify: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      mainFields: ['module', 'main'],
      nodePaths: [join(ROOT, 'node_modules')],
      plugins: [zodEnglishOnly],
      logLevel: 'error',
    });
    assert.equal(execFileSync(process.execPath, [outfile], { encoding: 'utf8' }), 'Invalid input: expected string, received number');
    const text = readFileSync(outfile, 'utf8');
    // German and French words of the same message ("expected"): present in zod's locales, absent from the bundle.
    for (const foreign of ['erwartet', 'attendu']) assert.ok(!text.includes(foreign), `the bundle holds "${foreign}"`);
  });

  test('esbuild.mjs uses the plugin for the Node bundles', () => {
    const build = readFileSync(join(ROOT, 'esbuild.mjs'), 'utf8');
    assert.match(build, /import \{ zodEnglishOnly \} from '\.\/scripts\/lib\/zodEnglishOnly\.mjs'/);
    assert.match(build, /plugins: watch \? \[zodEnglishOnly, problemMatcher\] : \[zodEnglishOnly\]/);
  });
});
