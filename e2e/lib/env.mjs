// Paths shared by the harness (the JavaScript twin of lib/env.sh).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Gitignored tool folder: node24/, xdg/, tmp/, runs/, suite/, pids/. */
export const E2E_HOME = process.env.PLANGATE_E2E_HOME || path.join(ROOT, '.e2e');
export const NODE24_BIN = path.join(E2E_HOME, 'node24', 'bin');
export const CODE_SERVER = path.join(ROOT, 'e2e', 'node_modules', '.bin', 'code-server');
/** The packaged extension `npm run package` writes (PLANGATE_VSIX overrides). */
export const VSIX = process.env.PLANGATE_VSIX || path.join(ROOT, 'plangate.vsix');
/** The fixture MCP server bundle (`node dist/fixtureServer.js [--http --port N] [--root DIR] [--call-log FILE]`). */
export const FIXTURE_SERVER = process.env.PLANGATE_FIXTURE_SERVER || path.join(ROOT, 'dist', 'fixtureServer.js');
export const EXTENSION_ID = 'plangate.plangate';

/** The browser binary: $CHROMIUM, else Debian's real binary (its wrapper script prints noise), else /usr/bin/chromium. */
export function chromiumPath() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const p of ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    if (fs.existsSync(p)) return p;
  }
  throw new Error("no Chromium found: run `bash e2e/setup.sh` (it installs Debian's chromium) or set CHROMIUM=/path/to/chrome");
}

/** Environment with XDG_* and TMPDIR inside `base`, so code-server and chromium write nothing to ~ or /tmp. */
export function isolatedEnv(base, extra = {}) {
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(base, 'xdg', 'config'),
    XDG_DATA_HOME: path.join(base, 'xdg', 'data'),
    XDG_CACHE_HOME: path.join(base, 'xdg', 'cache'),
    XDG_STATE_HOME: path.join(base, 'xdg', 'state'),
    XDG_RUNTIME_DIR: path.join(base, 'xdg', 'runtime'),
    TMPDIR: path.join(base, 'tmp'),
    PATH: `${NODE24_BIN}${path.delimiter}${process.env.PATH ?? ''}`,
    ...extra,
  };
  for (const k of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'TMPDIR'])
    fs.mkdirSync(env[k], { recursive: true });
  fs.mkdirSync(env.XDG_RUNTIME_DIR, { recursive: true, mode: 0o700 });
  return env;
}

function stamp() {
  return new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
}

let runDirCache;
/**
 * This run's artefact folder: $E2E_RUN_DIR (set by e2e/run.sh, shared by all spec files), else a new
 * .e2e/runs/<timestamp>-<pid>/ for a spec started on its own.
 */
export function runDir() {
  if (!runDirCache) {
    runDirCache = process.env.E2E_RUN_DIR || path.join(E2E_HOME, 'runs', `${stamp()}-${process.pid}`);
    fs.mkdirSync(runDirCache, { recursive: true });
  }
  return runDirCache;
}
