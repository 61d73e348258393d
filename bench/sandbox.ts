/**
 * The cost of a sandbox (src/mcp/sandbox.ts): the fixture server over stdio started sandboxed (srt: bubblewrap, its
 * proxy and socat bridges) and unsandboxed, interleaved, and 200 sequential tools/call on each running server (what
 * a 200-step plan sends to one server). Ratios sandboxed / unsandboxed, with the absolute medians in the notes.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ResolvedStdioServer } from '../src/mcp/config';
import { ServerConnection } from '../src/mcp/connection';
import { probeSandbox, sandboxRules, srtCliPath } from '../src/mcp/sandbox';
import { figure, ms, notMeasured, type Figure } from './figure';
import { interleave } from './stats';

const ROOT = path.resolve(__dirname, '..');
const FIXTURE = path.join(ROOT, 'dist/fixtureServer.js');

export async function sandboxFigures(log: (line: string) => void): Promise<Figure[]> {
  const PATH = process.env.PATH ?? '';
  const support = await probeSandbox(process.platform, PATH);
  const why = !support.ok
    ? `no sandbox here: ${support.reason}`
    : !existsSync(FIXTURE)
      ? 'dist/fixtureServer.js is missing: npm run build'
      : undefined;
  if (why) {
    return [
      notMeasured('sandbox_start', 'Sandbox: server start, sandboxed / not (x)', 'x', null, why),
      notMeasured('sandbox_200_calls', 'Sandbox: 200 calls, sandboxed / not (x)', 'x', null, why),
    ];
  }
  const ws = await mkdtemp(path.join(tmpdir(), 'plangate-bench-sandbox-'));
  try {
    const config = (sandboxed: boolean): ResolvedStdioServer => ({
      name: sandboxed ? 'boxed' : 'plain',
      source: 'mcp.json',
      type: 'stdio',
      command: process.execPath,
      args: [FIXTURE, '--root', ws],
      env: {},
      cwd: ws,
      secrets: [],
      ...(sandboxed && {
        sandbox: { reason: 'requested' as const, rules: sandboxRules({ filesystem: { allowWrite: [ws] } }, 'requested') },
      }),
    });
    const options = {
      pathProvider: async () => PATH,
      reconnect: { maxAttempts: 0 },
      sandbox: { srtPath: srtCliPath(path.join(ROOT, 'dist')) },
    };
    const startStop = async (sandboxed: boolean) => {
      const conn = new ServerConnection(config(sandboxed), options);
      await conn.start();
      await conn.stop();
      conn.dispose();
    };
    log('sandbox: server start, sandboxed and not…');
    const start = await interleave(
      () => startStop(true),
      () => startStop(false),
      { warmup: 1, runs: 7, budgetMs: 60_000 },
    );
    log('sandbox: 200 calls on a running server, sandboxed and not…');
    const boxed = new ServerConnection(config(true), options);
    const plain = new ServerConnection(config(false), options);
    await Promise.all([boxed.start(), plain.start()]);
    const calls = async (conn: ServerConnection) => {
      for (let i = 0; i < 200; i++) await conn.callTool('echo', { message: `step ${i}` });
    };
    const run = await interleave(
      () => calls(boxed),
      () => calls(plain),
      { warmup: 1, runs: 5, budgetMs: 60_000 },
    );
    await Promise.all([boxed.stop(), plain.stop()]);
    boxed.dispose();
    plain.dispose();
    return [
      figure(
        'sandbox_start',
        'Sandbox: server start, sandboxed / not (x)',
        start.ratio,
        'x',
        null,
        `start to tools listed: sandboxed ${ms(start.medianA)}, not ${ms(start.medianB)} (medians, ${start.a.length} interleaved runs; srt ${path.relative(ROOT, options.sandbox.srtPath)})`,
      ),
      figure(
        'sandbox_200_calls',
        'Sandbox: 200 calls, sandboxed / not (x)',
        run.ratio,
        'x',
        1.25,
        `200 sequential tools/call (echo) on one running server: sandboxed ${ms(run.medianA)}, not ${ms(run.medianB)} (medians of ${run.a.length})`,
      ),
    ];
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
}
