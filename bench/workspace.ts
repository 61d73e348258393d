/**
 * Generated workspaces for the benchmark: a monorepo-like tree of small text files under a temp dir. Two
 * workspaces of different sizes share the same touched files (same paths, same bytes), so a comparison between
 * them differs only in how many other files surround those.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The touched files every generated workspace holds (10, like a typical plan's `touches_files`). */
export const TOUCHED_FILES: readonly string[] = Array.from({ length: 10 }, (_, i) => `packages/pkg00/src/dir00/touched${i}.ts`);

const FILES_PER_DIR = 50;
const DIRS_PER_PACKAGE = 20;

/**
 * Writes `count` files (the touched ones included) under `root`: `packages/pkgNN/src/dirMM/fileK.{ts,test.ts,json,md}`
 * plus one `packages/pkgNN/package.json` per package. Returns the number of files written.
 */
export function generateWorkspace(root: string, count: number): number {
  const content = (i: number) =>
    `// generated file ${i}\nexport const value${i} = ${i};\n${'// filler line to make it a realistic small source file\n'.repeat(5)}`;
  let written = 0;
  const write = (rel: string, text: string) => {
    writeFileSync(join(root, rel), text);
    written++;
  };
  for (const rel of TOUCHED_FILES) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    write(rel, content(-1 - written));
  }
  const exts = ['ts', 'test.ts', 'json', 'md'];
  for (let pkg = 0; written < count; pkg++) {
    const pkgDir = `packages/pkg${String(pkg).padStart(2, '0')}`;
    mkdirSync(join(root, pkgDir), { recursive: true });
    write(`${pkgDir}/package.json`, `{"name": "pkg${pkg}"}\n`);
    for (let d = 0; d < DIRS_PER_PACKAGE && written < count; d++) {
      const dir = `${pkgDir}/src/dir${String(d).padStart(2, '0')}`;
      mkdirSync(join(root, dir), { recursive: true });
      for (let f = 0; f < FILES_PER_DIR && written < count; f++) write(`${dir}/file${f}.${exts[f % exts.length]}`, content(written));
    }
  }
  return written;
}
