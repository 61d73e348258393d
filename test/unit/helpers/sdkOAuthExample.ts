// Starts the MCP TypeScript SDK's own example server `simpleStreamableHttp --oauth` (shipped in the SDK package) with
// its in-memory demo authorization server, on two free ports, as a peer nobody here wrote. Its authorize endpoint
// approves at once and redirects back with the code; it issues no refresh tokens.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from './fixture';

const SDK_EXAMPLE = join(
  REPO_ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'sdk',
  'dist',
  'esm',
  'examples',
  'server',
  'simpleStreamableHttp.js',
);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

export interface SdkOAuthExample {
  /** The MCP endpoint, e.g. http://localhost:PORT/mcp (the example names itself by `localhost`). */
  url: string;
  close(): Promise<void>;
}

export async function startSdkOAuthExample(): Promise<SdkOAuthExample> {
  const [mcpPort, authPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [SDK_EXAMPLE, '--oauth'], {
    env: { ...process.env, MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let output = '';
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`the SDK example server did not start within 15 s:\n${output}`)), 15_000);
    const onData = (c: Buffer) => {
      output += c.toString();
      if (/Authorization Server listening/.test(output) && /MCP Streamable HTTP Server listening/.test(output)) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => fail(new Error(`the SDK example server exited:\n${output}`)));
  });
  return {
    url: `http://localhost:${mcpPort}/mcp`,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
