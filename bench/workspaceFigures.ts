/**
 * Figures 3 and 4, over generated workspaces of 50,000 and 100 files (bench/workspace.ts) in a temp dir:
 * - checkpointing the same 10 touched files (`createCheckpoint`) in the big workspace vs the small one;
 * - resolving `touches_files` globs with the Node lister (`listWorkspaceFiles`) vs ripgrep listing the same globs
 *   (`rg --files -g …`), both over the 50,000 files; the two lists are checked to be equal.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCheckpoint } from '../src/node/checkpoint';
import { listWorkspaceFiles } from '../src/node/workspaceFiles';
import { figure, ms, notMeasured, type Figure } from './figure';
import { findRipgrep, type Ripgrep } from './ripgrep';
import { interleave } from './stats';
import { generateWorkspace, TOUCHED_FILES } from './workspace';

const BIG = 50_000;
const SMALL = 100;
/** Globs a plan might declare; the first has no static base, so the whole tree is walked. */
const GLOBS = ['**/*.test.ts', 'packages/*/package.json'];

function ripgrepList(rg: Ripgrep, root: string, globs: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const args = ['--files', '--no-config', '--no-ignore', '--hidden', ...globs.flatMap((g) => ['-g', g])];
    const child = spawn(rg.path, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0 && code !== 1) reject(new Error(`rg exited with ${code}: ${err}`));
      else
        resolve(
          Buffer.concat(chunks)
            .toString('utf8')
            .split('\n')
            .filter((l) => l !== ''),
        );
    });
  });
}

/**
 * Where the generated workspaces go: tmpfs (/dev/shm) when there is one, so that writing and removing 50,000 files
 * takes seconds rather than minutes on a busy disk; both sides of every comparison read the same filesystem, from
 * the page cache either way. The checkpoint storage stays in the ordinary temp dir (on disk, like the extension's).
 */
function workspaceParent(): { dir: string; label: string } {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return { dir: '/dev/shm', label: 'tmpfs (/dev/shm)' };
  } catch {
    return { dir: tmpdir(), label: tmpdir() };
  }
}

export async function workspaceFigures(log: (line: string) => void): Promise<Figure[]> {
  const parent = workspaceParent();
  const dir = mkdtempSync(join(parent.dir, 'plangate-bench-workspace-'));
  const storageDir = mkdtempSync(join(tmpdir(), 'plangate-bench-checkpoints-'));
  try {
    const big = join(dir, 'big');
    const small = join(dir, 'small');
    const storage = join(storageDir, 'storage');
    mkdirSync(big);
    mkdirSync(small);
    log(`generating workspaces of ${BIG.toLocaleString('en-US')} and ${SMALL} files on ${parent.label}…`);
    generateWorkspace(big, BIG);
    generateWorkspace(small, SMALL);

    const figures: Figure[] = [];

    log('checkpoint of 10 touched files: 50,000-file vs 100-file workspace…');
    let plan = 0;
    const checkpoint = (root: string) => async () => {
      const cp = await createCheckpoint(storage, `bench-${plan++}`, root, TOUCHED_FILES);
      if (cp.entries.filter((e) => e.status === 'stored').length !== TOUCHED_FILES.length)
        throw new Error('the checkpoint did not store the 10 files');
    };
    const cp = await interleave(checkpoint(big), checkpoint(small), { warmup: 5, runs: 41, budgetMs: 10_000 });
    figures.push(
      figure(
        'checkpoint_50k_vs_100_files',
        'checkpoint 10 touched files: 50,000-file / 100-file workspace',
        cp.ratio,
        'x',
        1.2,
        0.1, // 0.94–0.99× across runs
        `medians of ${cp.a.length} interleaved runs of createCheckpoint: ${ms(cp.medianA)} vs ${ms(cp.medianB)}; workspaces on ${parent.label}, checkpoint storage in ${tmpdir()}`,
      ),
    );

    const rg = findRipgrep(log);
    if ('missing' in rg) {
      figures.push(
        notMeasured(
          'touches_files_globs_vs_ripgrep',
          `resolve touches_files globs over ${BIG.toLocaleString('en-US')} files: Node lister / ripgrep`,
          'x',
          1.5,
          0.15,
          rg.missing,
        ),
      );
      return figures;
    }
    log(`touches_files globs over 50,000 files: listWorkspaceFiles vs ${rg.version}…`);
    const node = await listWorkspaceFiles(big, GLOBS, { maxResults: BIG });
    const viaRg = (await ripgrepList(rg, big, GLOBS)).sort();
    if (node.truncated || node.cancelled || node.skipped.length)
      throw new Error(`listWorkspaceFiles did not finish cleanly: ${JSON.stringify({ ...node, files: node.files.length })}`);
    if (node.files.length !== viaRg.length || node.files.some((f, i) => f !== viaRg[i])) {
      throw new Error(`listWorkspaceFiles and rg disagree: ${node.files.length} vs ${viaRg.length} files`);
    }
    const t = await interleave(
      async () => {
        if ((await listWorkspaceFiles(big, GLOBS, { maxResults: BIG })).files.length !== viaRg.length) throw new Error('listing changed');
      },
      async () => {
        if ((await ripgrepList(rg, big, GLOBS)).length !== viaRg.length) throw new Error('listing changed');
      },
      { warmup: 2, runs: 21, budgetMs: 15_000 },
    );
    figures.push(
      figure(
        'touches_files_globs_vs_ripgrep',
        `resolve touches_files globs over ${BIG.toLocaleString('en-US')} files: Node lister / ripgrep`,
        t.ratio,
        'x',
        1.5,
        0.15, // 0.56–0.68× across runs
        `globs ${GLOBS.join(', ')} → ${viaRg.length.toLocaleString('en-US')} files (both lists equal); medians of ${t.a.length} interleaved runs: listWorkspaceFiles ${ms(t.medianA)}, rg --files -g ${ms(t.medianB)} (process start included); workspace on ${parent.label}; ripgrep: ${rg.version}, ${rg.source}`,
      ),
    );
    return figures;
  } finally {
    log('removing the generated workspaces…');
    rmSync(dir, { recursive: true, force: true });
    rmSync(storageDir, { recursive: true, force: true });
  }
}
