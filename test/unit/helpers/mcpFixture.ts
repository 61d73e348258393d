// Test helpers for the MCP layer: the fixture server as a stdio ResolvedServer or as a running HTTP process, and
// small waiting utilities. Everything started here is stopped by the returned close() (tests register it in t.after).
import * as path from 'node:path';
import type { ResolvedStdioServer } from '../../../src/mcp/config';
import type { ServerConnection, ServerState } from '../../../src/mcp/connection';
import { fixtureCommand, startFixtureHttp, type HttpFixture } from './fixture';

export const REPO = path.resolve(__dirname, '../../..');
export const FILESYSTEM_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** The fixture over stdio (`node <fixture bundle> …args`, see fixture.ts), run from the repository root. */
export function fixtureStdio(name: string, args: string[] = [], env: Record<string, string> = {}): ResolvedStdioServer {
  const cmd = fixtureCommand(args);
  return { name, source: 'mcp.json', type: 'stdio', command: cmd.command, args: cmd.args, env, cwd: REPO, secrets: [] };
}

/** Starts the fixture with `--http --port 0 …args` (fixture.ts's starter) and resolves with its URL once it listens. */
export function startHttpFixture(args: string[] = []): Promise<HttpFixture> {
  return startFixtureHttp({ args });
}

/** Resolves when `predicate` holds, checking every 20 ms; rejects after `timeoutMs` with `what`. */
export async function waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Resolves when the connection reaches `state` (already there counts). */
export function waitForState(conn: ServerConnection, state: ServerState, timeoutMs = 15_000): Promise<void> {
  return waitFor(() => conn.state === state, `server '${conn.name}' to be ${state} (now ${conn.state}: ${conn.message ?? ''})`, timeoutMs);
}

/** Whether a process id is still alive. */
export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
