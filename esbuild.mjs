// One build for every bundle: the extension (node/cjs), the webview (browser/iife), the CLI and the demo
// fixture server (node/cjs). `--production` minifies and drops source maps; `--watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { cpSync, mkdirSync } from 'node:fs';
import { zodEnglishOnly } from './scripts/lib/zodEnglishOnly.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/**
 * Prints errors in the `file:line:col: error: text` shape the $esbuild-watch problem matcher reads, with the
 * `[watch]` start and end lines it keys on. Only with `--watch`: a plain build prints nothing but its errors.
 */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
  plugins: watch ? [zodEnglishOnly, problemMatcher] : [zodEnglishOnly],
};

const node = { ...common, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], mainFields: ['module', 'main'] }; // module first: jsonc-parser's UMD main cannot be bundled

const builds = [
  { ...node, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' },
  { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { ...node, entryPoints: ['fixture/main.ts'], outfile: 'dist/fixtureServer.js', banner: { js: '#!/usr/bin/env node' } },
  { ...node, entryPoints: ['src/gate/gatedServer.ts'], outfile: 'dist/gatedServer.js' },
  // The sandbox runtime's CLI (ESM, as published), started as `node dist/srt.mjs` for sandboxed servers (src/mcp/sandbox.ts).
  {
    ...common,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    entryPoints: ['node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js'],
    outfile: 'dist/srt.mjs',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  },
  { ...common, platform: 'browser', format: 'iife', target: 'es2022', entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js' },
];

// Codicons are served to the webview from dist/, so the packaged extension needs no node_modules.
mkdirSync('dist/codicons', { recursive: true });
for (const f of ['codicon.css', 'codicon.ttf']) cpSync(`node_modules/@vscode/codicons/dist/${f}`, `dist/codicons/${f}`);
// srt's seccomp helper (a prebuilt binary per architecture), found beside dist/srt.mjs.
for (const arch of ['x64', 'arm64'])
  cpSync(`node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp/${arch}`, `dist/vendor/seccomp/${arch}`, { recursive: true });

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
