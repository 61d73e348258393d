// Runs the real `plangate` CLI for tests: spawns the bundled CLI (helpers/bundles.ts, with the fixture server and the
// elicitation test server) with given arguments, stdin and environment, and collects its exit code and output. Servers over HTTP are started from the same
// fixture bundle. Everything started here is ended by the returned close functions or by the process timeout.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCallLog, type CallLogEntry } from '../../../fixture/callLog';
import { quoteCommandLine } from '../../../src/cli/splitCommandLine';
import { testBundles, type Bundles } from './bundles';
import { REPO_ROOT } from './fixture';

export type { CallLogEntry };

/** The bundles (helpers/bundles.ts); async for the callers that await it. */
export async function bundles(): Promise<Bundles> {
  return testBundles();
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Raw stdout bytes (to look for raw control characters). */
  stdoutBytes: Buffer;
  ms: number;
}

export interface CliRunOptions {
  /** Written to stdin, which is then closed. Default: stdin closed at once. */
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
  /** Kill the CLI after this long (default 30 s); the test then fails on the exit code. */
  timeoutMs?: number;
  /** Called once with the child after it started (to send signals). */
  onSpawn?: (child: ChildProcess) => void;
}

/** Runs `node cli.js ...args` and collects what it did. PLANGATE_ASSUME_TTY is unset unless given in `env`. */
export async function runCli(args: string[], options: CliRunOptions = {}): Promise<CliResult> {
  const { cli } = await bundles();
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  if (!options.env?.PLANGATE_ASSUME_TTY) delete env.PLANGATE_ASSUME_TTY;
  const started = Date.now();
  const child = spawn(process.execPath, [cli, ...args], { cwd: options.cwd ?? REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => out.push(c));
  child.stderr!.on('data', (c: Buffer) => err.push(c));
  child.stdin!.on('error', () => undefined);
  if (options.input !== undefined) child.stdin!.end(options.input);
  else child.stdin!.end();
  options.onSpawn?.(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) => child.once('close', (c, s) => done([c, s])));
  clearTimeout(timer);
  const stdoutBytes = Buffer.concat(out);
  return {
    code,
    signal,
    stdout: stdoutBytes.toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    stdoutBytes,
    ms: Date.now() - started,
  };
}

/** Whether util-linux `script` is available to give the CLI a real pseudo-terminal. */
export function hasScript(): boolean {
  return spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Runs the CLI under `script -qec` so that its stdin and stdout are a real terminal (a pty); `input` is typed into it.
 * The output comes back with the terminal's \r\n line ends and echo.
 */
export async function runCliInPty(args: string[], input: string, timeoutMs = 30_000): Promise<{ code: number | null; output: string }> {
  const { cli } = await bundles();
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.PLANGATE_ASSUME_TTY;
  const child = spawn('script', ['-qec', quoteCommandLine([process.execPath, cli, ...args]), '/dev/null'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((done) => child.once('close', (c) => done(c)));
  clearTimeout(timer);
  return { code, output };
}

/** A temp directory with a root for the fixture's files and a call log path; `remove()` deletes it. */
export function workspace(): { dir: string; root: string; callLogFile: string; callLog(): CallLogEntry[]; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-cli-ws-'));
  const root = join(dir, 'root');
  mkdirSync(root);
  const callLogFile = join(dir, 'calls.jsonl');
  return { dir, root, callLogFile, callLog: () => readCallLog(callLogFile), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The `--server` command line that starts the bundled fixture over stdio with this root and call log. */
export async function fixtureServer(ws: { root: string; callLogFile: string }, extra: string[] = []): Promise<string> {
  const { fixture } = await bundles();
  return quoteCommandLine([process.execPath, fixture, '--root', ws.root, '--call-log', ws.callLogFile, ...extra]);
}

/** The fixture served over streamable HTTP on 127.0.0.1 (a free port); `close()` ends it. */
export async function httpFixture(ws: { root: string; callLogFile: string }): Promise<{ url: string; close(): Promise<void> }> {
  const { fixture } = await bundles();
  const child = spawn(process.execPath, [fixture, '--http', '--port', '0', '--root', ws.root, '--call-log', ws.callLogFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`HTTP fixture did not start within 10 s: ${stderr}`)), 10_000);
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const m = /listening (http:\/\/\S+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        ready(m[1]!);
      }
    });
    void exited.then(() => fail(new Error(`HTTP fixture exited: ${stderr}`)));
  });
  return {
    url,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A localhost port where nothing listens (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Parses the one JSON report on stdout (fails the test with the output when it does not parse). */
export function report<T = Record<string, unknown>>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch (err) {
    throw new Error(
      `stdout is not one JSON document (${err instanceof Error ? err.message : String(err)}):\n${result.stdout.slice(0, 2000)}\nstderr:\n${result.stderr.slice(0, 2000)}`,
    );
  }
}
