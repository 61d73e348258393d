/**
 * Figure 5: the production bundle sizes (`node esbuild.mjs --production`, run unchanged in a temp copy of the
 * project made of symlinks, so dist/ is not touched), and the activation check (bench/activationProbe.ts run in
 * a child process against that bundle).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { figure, notMeasured, type Figure } from './figure';
import { REPO_ROOT } from './servers';
import type { ProbeReport } from './activationProbe';

const MB = 1024 * 1024;

function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
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

/** The webview's own budget (test/unit/webviewBundle.test.ts keeps it in every test run). */
const WEBVIEW_TARGET_KB = 100;

export async function bundleFigures(log: (line: string) => void): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-bench-bundle-'));
  try {
    const project = join(dir, 'project');
    mkdirSync(project);
    for (const entry of ['src', 'fixture', 'scripts', 'node_modules', 'package.json', 'tsconfig.json'])
      symlinkSync(join(REPO_ROOT, entry), join(project, entry));
    copyFileSync(join(REPO_ROOT, 'esbuild.mjs'), join(project, 'esbuild.mjs'));
    log('production build (node esbuild.mjs --production) into a temp dir…');
    const build = await run(process.execPath, ['esbuild.mjs', '--production'], project, 120_000);
    if (build.code !== 0) {
      const why = `the production build failed (exit ${build.code}): ${build.err.trim().split('\n').slice(-5).join(' | ')}`;
      return [
        notMeasured('extension_bundle_size', 'dist/extension.js, minified', 'MB', 1.5, 0, why),
        notMeasured('webview_bundle_size', 'dist/webview.js, minified', 'KB', WEBVIEW_TARGET_KB, 0, why),
        notMeasured('activation_starts_nothing_sync', 'processes + sockets started before activate() returned', 'count', 0, 0, why),
      ];
    }
    const size = (f: string) => statSync(join(project, 'dist', f)).size;
    const gz = (f: string) => gzipSync(readFileSync(join(project, 'dist', f))).length;
    const ext = size('extension.js');
    const web = size('webview.js');
    const figures = [
      figure(
        'extension_bundle_size',
        'dist/extension.js, minified',
        ext / MB,
        'MB',
        1.5,
        0, // a size: the same sources give the same bytes
        `${ext.toLocaleString('en-US')} bytes, ${(gz('extension.js') / 1024).toFixed(0)} KB gzipped`,
      ),
      figure(
        'webview_bundle_size',
        'dist/webview.js, minified',
        web / 1024,
        'KB',
        WEBVIEW_TARGET_KB,
        0,
        `${web.toLocaleString('en-US')} bytes, ${(gz('webview.js') / 1024).toFixed(1)} KB gzipped; the project's own target (the issue sets none): no schema library or SDK in the webview`,
      ),
    ];

    log('activation probe: activate() with a fake vscode module, a stdio server configured in mcp.json…');
    const workspace = join(dir, 'workspace');
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    // The bundled fixture of the same build; PATH is given so that no login shell is asked for one.
    const mcpJson = {
      servers: {
        probe: {
          type: 'stdio',
          command: process.execPath,
          args: [join(project, 'dist', 'fixtureServer.js'), '--root', workspace],
          env: { PATH: process.env.PATH ?? '' },
        },
      },
    };
    writeFileSync(join(workspace, '.vscode', 'mcp.json'), JSON.stringify(mcpJson, null, 2));
    const probe = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO_ROOT, 'bench', 'activationProbe.ts'),
        join(project, 'dist', 'extension.js'),
        workspace,
        join(dir, 'storage'),
      ],
      REPO_ROOT,
      60_000,
    );
    let report: ProbeReport;
    try {
      report = JSON.parse(probe.out.trim().split('\n').at(-1) ?? '') as ProbeReport;
    } catch {
      figures.push(
        notMeasured(
          'activation_starts_nothing_sync',
          'processes + sockets started before activate() returned',
          'count',
          0,
          0,
          `the probe printed no report (exit ${probe.code}): ${probe.err.trim().split('\n').slice(-5).join(' | ')}`,
        ),
      );
      return figures;
    }
    if (report.error) {
      figures.push(
        notMeasured(
          'activation_starts_nothing_sync',
          'processes + sockets started before activate() returned',
          'count',
          0,
          0,
          `activate() failed in the probe: ${report.error.split('\n')[0]}`,
        ),
      );
      return figures;
    }
    const early = [...report.duringActivate, ...report.beforeSettled];
    const after = report.firstAfter
      ? `the configured server was spawned ${report.firstAfter.afterMs} ms after activate() returned (${report.firstAfter.what.includes('fixtureServer.js') ? 'the mcp.json server' : report.firstAfter.what.slice(0, 80)})`
      : 'nothing was spawned within 10 s afterwards either (the check may be vacuous: the configured server never started)';
    figures.push({
      ...figure(
        'activation_starts_nothing_sync',
        'processes + sockets started before activate() returned',
        early.length,
        'count',
        0,
        0, // a count: any process or socket started early is a regression
        `activate() took ${report.activateMs} ms in Node with a fake vscode module${early.length ? `; started: ${early.join('; ')}` : ''}; ${after}`,
      ),
      ...(report.firstAfter ? {} : { meets: false }),
    });
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
