/**
 * Checks that activation starts no server synchronously: loads a production bundle of the extension in plain Node
 * with the fake `vscode` module (bench/fakeVscode.ts, only for this measurement), in a workspace whose
 * `.vscode/mcp.json` configures a stdio server, and records every child process spawned and socket connected,
 * split into "before activate() returned" and "after". Seeing the configured server spawn afterwards shows the
 * check is not vacuous. Prints one JSON line ({@link ProbeReport}) and exits.
 *
 * Usage: node --import tsx bench/activationProbe.ts <extension.js> <workspace folder> <storage dir>
 */
import childProcess, { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { fakeContext, fakeVscode } from './fakeVscode';

/** What the probe prints. */
export interface ProbeReport {
  /** Processes and sockets started before activate() returned (its synchronous part). */
  duringActivate: string[];
  /** Started after it returned but before its returned value settled (when it is a promise). */
  beforeSettled: string[];
  /** The first process or socket started afterwards, with the ms since activate() returned. */
  firstAfter?: { what: string; afterMs: number };
  /** How long the synchronous activate() call took. */
  activateMs: number;
  /** Set when loading or activating failed. */
  error?: string;
}

type Phase = 'load' | 'activate' | 'settling' | 'after';
let phase: Phase = 'load';
let returnedAt = 0;
const report: ProbeReport = { duringActivate: [], beforeSettled: [], activateMs: 0 };

function record(what: string): void {
  if (phase === 'activate' || phase === 'load') report.duringActivate.push(what);
  else if (phase === 'settling') report.beforeSettled.push(what);
  else if (!report.firstAfter) report.firstAfter = { what, afterMs: Math.round(performance.now() - returnedAt) };
}

// Every async child process goes through ChildProcess.prototype.spawn (internal, so untyped); the sync ones
// through the functions below.
const children: ChildProcess[] = [];
type SpawnOptions = { file: string; args?: string[] };
const proto = ChildProcess.prototype as unknown as { spawn: (this: ChildProcess, options: SpawnOptions) => unknown };
const protoSpawn = proto.spawn;
proto.spawn = function (this: ChildProcess, options: SpawnOptions) {
  record(`process: ${[options.file, ...(options.args ?? []).slice(1)].join(' ').slice(0, 200)}`);
  children.push(this);
  return protoSpawn.call(this, options);
};
for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
  const original = childProcess[name] as (...args: unknown[]) => unknown;
  (childProcess as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    record(`process (${name}): ${String(args[0]).slice(0, 200)}`);
    return original(...args);
  };
}
// Every TCP/IPC client socket (net, http, fetch) goes through Socket.prototype.connect.
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
  const first = args[0];
  const where = typeof first === 'object' && first !== null ? JSON.stringify(first).slice(0, 200) : String(first);
  record(`socket: ${where}`);
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
} as typeof connect;

async function main(): Promise<void> {
  const [bundle, workspace, storage] = process.argv.slice(2);
  if (!bundle || !workspace || !storage) throw new Error('usage: activationProbe.ts <extension.js> <workspace folder> <storage dir>');
  const vscode = fakeVscode({ workspaceFolder: workspace, trusted: true });
  // Serve the fake to the bundle's require('vscode').
  const Module = createRequire(import.meta.url)('node:module') as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = Module._load;
  Module._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? vscode : load.call(this, request, ...rest);
  };
  const extension = createRequire(bundle)(bundle) as { activate(ctx: unknown): unknown; deactivate?(): unknown };
  const context = fakeContext({ extensionPath: workspace, storagePath: storage }) as { subscriptions: { dispose(): unknown }[] };

  phase = 'activate';
  const start = performance.now();
  let returned: unknown;
  try {
    returned = extension.activate(context);
  } finally {
    returnedAt = performance.now();
    report.activateMs = Math.round((returnedAt - start) * 10) / 10;
  }
  phase = 'settling';
  if (returned && typeof (returned as { then?: unknown }).then === 'function') await returned;
  phase = 'after';

  // Wait (at most 10 s) for the configured server to be started, asynchronously, as it should be.
  const until = performance.now() + 10_000;
  while (!report.firstAfter && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200));

  for (const d of context.subscriptions.splice(0).reverse()) {
    try {
      await d.dispose();
    } catch {
      /* best effort */
    }
  }
  await extension.deactivate?.();
}

main().then(
  () => finish(0),
  (err: unknown) => {
    report.error = err instanceof Error ? `${err.message}\n${err.stack?.split('\n').slice(1, 4).join('\n')}` : String(err);
    finish(1);
  },
);

function finish(code: number): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(code);
}
