// Workspace folders for specs: files, .vscode/mcp.json and .vscode/settings.json, written fresh per session.
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_SERVER } from './env.mjs';

/** File name of the fixture server's call log inside a workspace made by `fixtureServer()`. */
export const CALL_LOG = '.plangate-calls.jsonl';

/**
 * An mcp.json `servers` entry running the project's fixture MCP server over stdio, rooted at the workspace and
 * logging every tools/call to `<workspace>/.plangate-calls.jsonl`. `workspaceDir` must be absolute.
 */
export function fixtureServer(workspaceDir, { callLog = path.join(workspaceDir, CALL_LOG), args = [] } = {}) {
  if (!fs.existsSync(FIXTURE_SERVER)) throw new Error(`${FIXTURE_SERVER} is missing: run \`npm run build\` in the repository root first`);
  return { type: 'stdio', command: 'node', args: [FIXTURE_SERVER, '--root', workspaceDir, '--call-log', callLog, ...args] };
}

/**
 * @typedef {object} WorkspaceSpec
 * @property {Record<string, unknown>} [files] relative path → content (strings as they are, anything else as JSON)
 * @property {Record<string, unknown> | ((dir: string) => Record<string, unknown>)} [servers] mcp.json `servers`
 * @property {Record<string, unknown>} [settings] .vscode/settings.json
 */

/**
 * Writes a workspace into `dir` (emptied first).
 * `files`: relative path → string content (objects are written as JSON).
 * `servers`: mcp.json `servers` map, or a function `(dir) => servers` for entries that need the absolute path
 *   (e.g. `(dir) => ({ fixture: fixtureServer(dir) })`); omitted → no .vscode/mcp.json.
 * `settings`: workspace settings (.vscode/settings.json).
 * Returns `dir`.
 * @param {string} dir
 * @param {WorkspaceSpec} [spec]
 */
export function createWorkspace(dir, { files = {}, servers, settings } = {}) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const write = (rel, content) => {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2) + '\n');
  };
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  const serverMap = typeof servers === 'function' ? servers(dir) : servers;
  if (serverMap) write('.vscode/mcp.json', { servers: serverMap });
  if (settings) write('.vscode/settings.json', settings);
  return dir;
}

/** Reads a JSONL call log (missing file → []; a half-written last line is skipped). */
export function readJsonLines(file) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      if (!line.trim()) return [];
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
}

/**
 * A fixture call log kept beside the workspace folder, not in it (Plangate would list it among the files a plan
 * changed). `path(dir)` is what to give fixtureServer's `callLog`; `of(() => vs.workspaceDir)` reads it:
 * `entries()`, `lastSeq()` (the newest seq, 0 when empty) and `callsAfter(since)` as [tool, args] pairs.
 */
export function callLogBeside(name) {
  const logPath = (workspaceDir) => path.join(path.dirname(workspaceDir), name);
  return {
    path: logPath,
    of(workspaceDir) {
      const entries = () => readJsonLines(logPath(workspaceDir()));
      /** @param {number} since */
      const callsAfter = (since) =>
        entries()
          .filter((e) => e.seq > since)
          .map((e) => [e.tool, e.args]);
      /** @param {number} since */
      const toolsAfter = (since) => callsAfter(since).map(([tool]) => tool);
      return {
        entries,
        lastSeq: () => entries().reduce((max, e) => Math.max(max, e.seq), 0),
        callsAfter,
        toolsAfter,
        /**
         * The tools called after `since`, once there are `count` of them (the fixture flushes its log a little late).
         * @param {number} since @param {number} count
         */
        async toolsOnceThere(since, count, timeout = 15_000) {
          const deadline = Date.now() + timeout;
          while (toolsAfter(since).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
          return toolsAfter(since);
        },
      };
    },
  };
}

/**
 * Writes workspace settings (merged into `<workspaceDir>/.vscode/settings.json`), waits for VS Code to read them,
 * runs `fn`, then puts the file back as it was (and waits again). Returns what `fn` returns.
 * @template T
 * @param {string} workspaceDir
 * @param {Record<string, unknown>} settings
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export function withWorkspaceSettings(workspaceDir, settings, fn) {
  return withSettingsFile(path.join(workspaceDir, '.vscode', 'settings.json'), settings, fn);
}

/**
 * The same for the user's settings, edited as a user does (code-server does not read a write from outside while it
 * runs): the only place Plangate reads its user-only settings from (`allowCrossServerSteps`, `previewWithDryRun`,
 * `serverApps.enabled`, `preferServerApps`, …).
 * @template T
 * @param {{ userSettingsFile: string, editUserSettings: (text: string) => Promise<void> }} vs the session
 * @param {Record<string, unknown>} settings
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withUserSettings(vs, settings, fn) {
  const saved = fs.readFileSync(vs.userSettingsFile, 'utf8');
  await vs.editUserSettings(JSON.stringify({ ...JSON.parse(saved), ...settings }, null, 2));
  try {
    return await fn();
  } finally {
    await vs.editUserSettings(saved);
  }
}

/**
 * @template T
 * @param {string} file
 * @param {Record<string, unknown>} settings
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function withSettingsFile(file, settings, fn) {
  const saved = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...(saved ? JSON.parse(saved) : {}), ...settings }, null, 2));
  const settle = () => new Promise((r) => setTimeout(r, 1500)); // VS Code reads the changed settings file
  try {
    await settle();
    return await fn();
  } finally {
    if (saved === undefined) fs.rmSync(file);
    else fs.writeFileSync(file, saved);
    await settle();
  }
}
