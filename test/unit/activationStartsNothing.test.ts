// "No server or socket before activate() returns": the extension's bundle is activated in plain Node by the bench's
// activation probe (bench/activationProbe.ts, with its fake `vscode` module), in a workspace whose .vscode/mcp.json
// configures a stdio server. The probe records every child process and socket, split by whether it started before
// activate() returned. The configured server must start, but only afterwards: that it starts at all shows the check
// is not vacuous.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import type { ProbeReport } from '../../bench/activationProbe';
import { NODE_BUNDLE } from './helpers/bundles';
import { REPO_ROOT } from './helpers/fixture';

let dir: string;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plangate-activation-'));
  // The same options as esbuild.mjs's node bundles.
  const common: esbuild.BuildOptions = { ...NODE_BUNDLE, external: ['vscode'] };
  await Promise.all([
    esbuild.build({ ...common, entryPoints: ['src/extension.ts'], outfile: join(dir, 'dist', 'extension.js') }),
    esbuild.build({ ...common, entryPoints: ['fixture/main.ts'], outfile: join(dir, 'dist', 'fixtureServer.js') }),
  ]);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function probe(bundle: string, workspace: string, storage: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench', 'activationProbe.ts'), bundle, workspace, storage], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

test(
  'activate() starts no process and opens no socket before it returns; the configured server starts afterwards',
  { timeout: 120_000 },
  async () => {
    const workspace = join(dir, 'workspace');
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    // PATH is given so that no login shell is asked for one.
    const server = {
      type: 'stdio',
      command: process.execPath,
      args: [join(dir, 'dist', 'fixtureServer.js'), '--root', workspace],
      env: { PATH: process.env.PATH ?? '' },
    };
    writeFileSync(join(workspace, '.vscode', 'mcp.json'), JSON.stringify({ servers: { probe: server } }));

    const r = await probe(join(dir, 'dist', 'extension.js'), workspace, join(dir, 'storage'));
    const line = r.out.trim().split('\n').at(-1) ?? '';
    let report: ProbeReport;
    try {
      report = JSON.parse(line) as ProbeReport;
    } catch {
      assert.fail(`the probe printed no report (exit ${r.code}): ${r.err.slice(-2000)}`);
    }
    assert.equal(report.error, undefined, `activate() failed in the probe: ${report.error}`);
    assert.deepEqual(report.duringActivate, [], 'started while activate() ran');
    assert.deepEqual(report.beforeSettled, [], 'started before the promise activate() returned settled');
    assert.ok(report.firstAfter, 'the configured server never started: the check would be vacuous');
    assert.match(report.firstAfter.what, /fixtureServer\.js/, 'the first thing started afterwards is the mcp.json server');
    assert.equal(r.code, 0, r.err.slice(-2000));
  },
);
