// Measures what a checkpoint costs for 10 touched files in a small (100 files) and a large (50,000 files) generated
// workspace, and how fast listWorkspaceFiles is next to ripgrep on the large one. Reports; asserts nothing.
//   node --import tsx scripts/measureCheckpoint.ts [--runs 5] [--keep]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { checkpointDiskState, createCheckpoint, deleteCheckpoint, sealCheckpoint } from '../src/node/checkpoint';
import { listWorkspaceFiles } from '../src/node/workspaceFiles';

const argv = process.argv.slice(2);
const runs = Number(argv[argv.indexOf('--runs') + 1]) || 5;
const keep = argv.includes('--keep');

/** Files spread over folders of 100, like a source tree: src/m<k>/f<i>.ts (every 5th a .md). */
function generate(root: string, files: number): string[] {
  const paths: string[] = [];
  for (let i = 0; i < files; i++) {
    const dir = `src/m${Math.floor(i / 100)}`;
    if (i % 100 === 0) mkdirSync(join(root, dir), { recursive: true });
    const rel = `${dir}/f${i}.${i % 5 === 0 ? 'md' : 'ts'}`;
    writeFileSync(join(root, rel), `// file ${i}\n${'x'.repeat(200 + (i % 800))}\n`);
    paths.push(rel);
  }
  return paths;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function main(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'plangate-measure-'));
  try {
    for (const size of [100, 50_000]) {
      const ws = join(base, `ws${size}`);
      const storage = join(base, `storage${size}`);
      mkdirSync(ws);
      const genStart = performance.now();
      const all = generate(ws, size);
      const genMs = performance.now() - genStart;
      const touched = Array.from({ length: 10 }, (_, i) => all[Math.floor((i * all.length) / 10)]!);
      await createCheckpoint(storage, 'warm-up', ws, touched); // JIT and disk cache warm-up, not measured
      await deleteCheckpoint(storage, 'warm-up');
      const create: number[] = [];
      const seal: number[] = [];
      const state: number[] = [];
      for (let r = 0; r < runs; r++) {
        const planId = `measure-${r}`;
        create.push(await time(() => createCheckpoint(storage, planId, ws, touched)));
        const cp = await createCheckpoint(storage, planId, ws, []);
        seal.push(await time(() => sealCheckpoint(cp)));
        state.push(await time(() => checkpointDiskState(cp)));
        await deleteCheckpoint(storage, planId);
      }
      console.log(`${size.toLocaleString('en')} files (generated in ${(genMs / 1000).toFixed(1)} s), 10 touched, ${runs} runs, median:`);
      console.log(
        `  createCheckpoint ${median(create).toFixed(2)} ms   sealCheckpoint ${median(seal).toFixed(2)} ms   current state ${median(state).toFixed(2)} ms`,
      );

      if (size === 50_000) {
        const ours: number[] = [];
        const rg: number[] = [];
        let ourCount = 0;
        let rgCount = 0;
        for (let r = 0; r < runs; r++) {
          ours.push(
            await time(async () => {
              ourCount = (await listWorkspaceFiles(ws, ['**/*.ts'], { maxResults: 1_000_000 })).files.length;
            }),
          );
          rg.push(
            await time(async () => {
              const out = spawnSync('rg', ['--files', '--no-ignore', '--hidden', '-g', '*.ts'], {
                cwd: ws,
                encoding: 'utf8',
                maxBuffer: 1 << 28,
              });
              rgCount = out.error ? -1 : out.stdout.split('\n').filter(Boolean).length;
            }),
          );
        }
        console.log(
          `  list **/*.ts: listWorkspaceFiles ${median(ours).toFixed(1)} ms (${ourCount} files)   ripgrep --files ${rgCount < 0 ? 'not installed' : `${median(rg).toFixed(1)} ms (${rgCount} files, incl. process start)`}`,
        );
      }
    }
  } finally {
    if (keep) console.log(`kept ${base}`);
    else rmSync(base, { recursive: true, force: true });
  }
}

void main();
