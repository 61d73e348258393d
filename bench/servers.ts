/**
 * The fixture MCP server as the benchmark starts it: from source through tsx, over stdio, with no call log and a
 * throw-away root. Both sides of a comparison get their own process started the same way.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ResolvedStdioServer } from '../src/mcp/config';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE_MAIN = join(REPO_ROOT, 'fixture', 'main.ts');
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** `node --import tsx fixture/main.ts --root <root>`. */
export function fixtureArgs(root: string): string[] {
  return ['--import', TSX_LOADER, FIXTURE_MAIN, '--root', root];
}

/** The fixture as a server configuration for ServerConnection / ServerRegistry (PATH given: no login-shell probe). */
export function fixtureServer(name: string, root: string): ResolvedStdioServer {
  return {
    name,
    source: 'settings-user',
    type: 'stdio',
    command: process.execPath,
    args: fixtureArgs(root),
    env: { PATH: process.env.PATH ?? '' },
    cwd: root,
    secrets: [],
  };
}

/** A bare SDK client connected to its own fixture process (the "raw SDK" side of a comparison). */
export async function rawFixtureClient(root: string): Promise<Client> {
  const client = new Client({ name: 'plangate-bench-raw', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: fixtureArgs(root),
      cwd: root,
      stderr: 'ignore',
      env: { PATH: process.env.PATH ?? '' },
    }),
  );
  return client;
}
