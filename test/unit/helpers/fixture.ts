// Starts the fixture MCP server (fixture/main.ts, run from source through tsx) over stdio or HTTP for tests, with a
// fresh temp root and call log, and tears everything down in close(). Every process started here is ended by close().
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { readCallLog, type CallLogEntry } from '../../../fixture/callLog.js';
import { testBundles } from './bundles';

export type { CallLogEntry };

/** The repository root (where package.json is). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * The command line that starts the fixture: `node <bundle of fixture/main.ts> ...args` (helpers/bundles.ts: built from
 * the sources once per run, and started in a fraction of tsx's time). Works from any cwd, so it can go into a server
 * configuration (e.g. an mcp.json `command`/`args`).
 */
export function fixtureCommand(args: string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: [testBundles().fixture, ...args] };
}

/** Options shared by both starters. */
export interface FixtureStartOptions {
  /** Directory the file-writing tools write into. Default: a fresh temp directory, removed by close(). */
  root?: string;
  /** Extra CLI flags, e.g. ['--submit-mode', 'direct']. */
  args?: string[];
  /** Extra environment variables for the server process. */
  env?: Record<string, string>;
}

/** What every started fixture offers. */
export interface FixtureHandle {
  /** Absolute root the file-writing tools write into. */
  root: string;
  /** Absolute path of the call log. */
  callLogFile: string;
  /** The call log so far (one entry per tools/call, in order). */
  callLog(): CallLogEntry[];
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Closes clients, ends the server process, removes the temp directory. Safe to call twice. */
  close(): Promise<void>;
}

/** A fixture served over stdio, already connected. */
export interface StdioFixture extends FixtureHandle {
  client: Client;
  transport: StdioClientTransport;
}

/** A fixture served over HTTP (streamable, or legacy SSE with `legacySse`). */
export interface HttpFixture extends FixtureHandle {
  /** http://127.0.0.1:PORT/mcp */
  url: string;
  pid: number;
  /** A Client connected over streamable HTTP (closed by close()). */
  connect(options?: { headers?: Record<string, string>; capabilities?: ClientCapabilities }): Promise<Client>;
  /** Resolves with the exit code once the server process has exited. */
  exited: Promise<number | null>;
}

function makeDirs(opts: FixtureStartOptions) {
  const tmp = mkdtempSync(join(tmpdir(), 'plangate-fixture-'));
  const root = resolve(opts.root ?? join(tmp, 'root'));
  mkdirSync(root, { recursive: true });
  return { tmp, root, callLogFile: join(tmp, 'calls.jsonl') };
}

function tail(text: string, lines = 20): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * Starts the fixture over stdio and connects an SDK Client to it. Rejects (with the server's stderr tail in the
 * message) when the server fails to start.
 */
export async function startFixtureStdio(opts: FixtureStartOptions & { capabilities?: ClientCapabilities } = {}): Promise<StdioFixture> {
  const { tmp, root, callLogFile } = makeDirs(opts);
  const cmd = fixtureCommand(['--root', root, '--call-log', callLogFile, ...(opts.args ?? [])]);
  const transport = new StdioClientTransport({ ...cmd, cwd: root, stderr: 'pipe', env: opts.env ?? {} });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'plangate-test', version: '0.0.0' }, { capabilities: opts.capabilities ?? {} });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await client.close().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  };
  try {
    await client.connect(transport);
  } catch (err) {
    await close();
    await new Promise((r) => setTimeout(r, 20)); // let the last stderr chunk arrive
    throw new Error(`fixture over stdio failed to start: ${err instanceof Error ? err.message : String(err)}\nstderr:\n${tail(stderr)}`);
  }
  return { client, transport, root, callLogFile, callLog: () => readCallLog(callLogFile), stderr: () => stderr, close };
}

/**
 * Starts the fixture with `--http` (plus `--legacy-sse` / `--require-header NAME=VALUE` when asked) and waits for its
 * "listening <url>" line. Rejects with the exit code and stderr tail when the process exits first.
 */
export async function startFixtureHttp(
  opts: FixtureStartOptions & { legacySse?: boolean; requireHeader?: string } = {},
): Promise<HttpFixture> {
  const { tmp, root, callLogFile } = makeDirs(opts);
  const flags = ['--http', '--port', '0', '--root', root, '--call-log', callLogFile];
  if (opts.legacySse) flags.push('--legacy-sse');
  if (opts.requireHeader !== undefined) flags.push('--require-header', opts.requireHeader);
  const cmd = fixtureCommand([...flags, ...(opts.args ?? [])]);
  const child: ChildProcess = spawn(cmd.command, cmd.args, {
    cwd: root,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  // 'close' (not 'exit'): it fires after the process's stdout and stderr are drained, so the stderr tail is whole.
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  let alive = true;
  void exited.then(() => (alive = false));

  const url = await new Promise<string>((ready, fail) => {
    // Generous: starting through tsx on a busy 2-core machine has taken over 15 s.
    const timer = setTimeout(
      () => fail(new Error(`fixture over HTTP did not print "listening" within 45 s\nstderr:\n${tail(stderr)}`)),
      45_000,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const m = /listening (http:\/\/\S+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        ready(m[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`fixture over HTTP exited with code ${code} before listening\nstderr:\n${tail(stderr)}`));
    });
  }).catch((err: unknown) => {
    if (alive) child.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  });

  const clients: Client[] = [];
  let closed = false;
  return {
    url,
    pid: child.pid!,
    root,
    callLogFile,
    exited,
    callLog: () => readCallLog(callLogFile),
    stderr: () => stderr,
    async connect(options = {}) {
      const client = new Client({ name: 'plangate-test', version: '0.0.0' }, { capabilities: options.capabilities ?? {} });
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: options.headers ?? {} } });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      if (alive) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => alive && child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
