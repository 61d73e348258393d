// The webview bundle stays small and browser-only: it may import pure core modules, but a runtime import of one
// that reaches the envelope schema (zod) or the MCP SDK once grew it from 47 KB to 500 KB. Built here with esbuild's
// metafile, with the options of esbuild.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from 'esbuild';

test('the webview bundle holds no zod, MCP SDK or Node module, and stays under 100 KB minified', async () => {
  const result = await build({
    entryPoints: ['src/webview/main.ts'],
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    write: false,
    metafile: true,
    outfile: 'webview.js',
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const heavy = inputs.filter(
    (p) => /node_modules\/(zod|@modelcontextprotocol|ajv|jsonc-parser|picomatch)\//.test(p) || p.startsWith('node:'),
  );
  assert.deepEqual(heavy.slice(0, 5), [], `the webview bundles ${heavy.length} modules it must not, e.g. ${heavy.slice(0, 5).join(', ')}`);
  const size = result.outputFiles[0]!.contents.length;
  assert.ok(size < 100_000, `dist/webview.js would be ${size.toLocaleString('en-US')} bytes minified`);
});
