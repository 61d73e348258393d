/**
 * Lists the workspace files matching `safety.touches_files` globs (core/base/globs.ts semantics) with plain Node fs, for
 * the CLI and the benchmark (the extension uses VS Code's file search instead).
 *
 * Fast by construction: the walk starts at each glob's static base (`src/modules/payroll/**` walks only that folder),
 * reads folders with `readdir(withFileTypes)` (no stat per file) several at a time, never enters excluded folders
 * (`node_modules`, `.git`, … by name anywhere), and matches workspace-relative paths with one compiled matcher.
 * Symbolic links are listed when they match, never followed, also when a glob's static base lies below one
 * (`data/sub/**` with `data -> ../..` lists nothing).
 */
import { readdir, type Dirent } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { globMatcher, isOutsideWorkspace, normaliseGlob } from '../core/base/globs';

/** Folder names never entered (unless a glob's base is inside one). */
export const DEFAULT_EXCLUDED_DIRS: readonly string[] = ['node_modules', '.git', '.hg', '.svn', '.jj'];
/** Default cap on the files listed. */
export const DEFAULT_MAX_RESULTS = 10_000;

export interface ListWorkspaceFilesOptions {
  /**
   * Folders not to enter: a plain name (`dist`) excludes folders of that name anywhere; a pattern with `/` or glob
   * characters is matched against workspace-relative folder paths. Default {@link DEFAULT_EXCLUDED_DIRS}; pass `[]`
   * to walk everything.
   */
  exclude?: readonly string[];
  /** Stops the walk; the result then has `cancelled: true` and the files found so far. */
  signal?: AbortSignal;
  /** Stop after this many files (`truncated: true`; which files is then unspecified). Default {@link DEFAULT_MAX_RESULTS}. */
  maxResults?: number;
  /** Folders read at the same time. Default 32. */
  concurrency?: number;
}

export interface ListWorkspaceFilesResult {
  /** Workspace-relative paths with `/`, sorted. */
  files: string[];
  truncated: boolean;
  cancelled: boolean;
  /** Folders that could not be read ("src/secret: EACCES"). */
  skipped: string[];
}

/**
 * The files under `root` matched by `globs`. Globs outside the workspace match nothing. Never rejects: unreadable
 * folders are reported in `skipped`, a missing root gives no files.
 */
export async function listWorkspaceFiles(
  root: string,
  globs: readonly string[],
  options: ListWorkspaceFilesOptions = {},
): Promise<ListWorkspaceFilesResult> {
  const result: ListWorkspaceFilesResult = { files: [], truncated: false, cancelled: false, skipped: [] };
  const max = Math.max(0, options.maxResults ?? DEFAULT_MAX_RESULTS);
  const matches = globMatcher(globs);
  const excluded = excludeTest(options.exclude ?? DEFAULT_EXCLUDED_DIRS);
  const signal = options.signal;
  const found: string[] = [];
  const add = (rel: string): boolean => {
    if (!matches(rel)) return true;
    if (found.length >= max) {
      result.truncated = true;
      return false;
    }
    found.push(rel);
    return true;
  };

  const queue: string[] = [];
  for (const base of walkBases(globs)) {
    if (signal?.aborted) break;
    if (base === '') {
      queue.push('');
      continue;
    }
    if (await throughLink(root, base)) continue;
    const stats = await lstat(join(root, base)).catch(() => undefined);
    if (stats?.isDirectory()) queue.push(base);
    else if (stats) add(base);
  }

  const limit = Math.max(1, options.concurrency ?? 32);
  await new Promise<void>((done) => {
    let active = 0;
    let stopped = false;
    const pump = () => {
      if (!stopped && signal?.aborted) {
        stopped = true;
        result.cancelled = true;
      }
      while (!stopped && active < limit && queue.length) {
        const dir = queue.pop()!;
        active++;
        readdir(dir === '' ? root : join(root, dir), { withFileTypes: true }, (err, entries) => {
          active--;
          if (err) result.skipped.push(`${dir || '.'}: ${err.code ?? err.message}`);
          else if (!stopped && !visit(dir, entries)) stopped = true;
          pump();
        });
      }
      if (active === 0 && (stopped || queue.length === 0)) done();
    };
    const visit = (dir: string, entries: Dirent[]): boolean => {
      for (const entry of entries) {
        const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!excluded(entry.name, rel)) queue.push(rel);
        } else if ((entry.isFile() || entry.isSymbolicLink()) && !add(rel)) {
          return false;
        }
      }
      return true;
    };
    pump();
  });
  result.files = found.sort();
  return result;
}

/**
 * Where the walk starts: each inside glob's static base (the folder before its first glob character; for a plain
 * path, the path itself), without bases nested in others; `""` (the root) when a glob has no static base.
 */
export function walkBases(globs: readonly string[]): string[] {
  const bases = new Set<string>();
  for (const raw of globs) {
    if (typeof raw !== 'string') continue;
    const g = normaliseGlob(raw);
    if (!g || isOutsideWorkspace(g)) continue;
    const scan = picomatch.scan(g);
    const base = (scan.isGlob ? scan.base : g).replace(/\/+$/, '');
    bases.add(base === '.' ? '' : base);
  }
  if (bases.has('')) return [''];
  const sorted = [...bases].sort();
  return sorted.filter((b) => !sorted.some((other) => other !== b && b.startsWith(`${other}/`)));
}

/** A folder above `base` is a link (or not a folder): the walk would leave the workspace through it, so it does not start. */
async function throughLink(root: string, base: string): Promise<boolean> {
  const parts = base.split('/');
  for (let i = 1; i < parts.length; i++) {
    const stats = await lstat(join(root, ...parts.slice(0, i))).catch(() => undefined);
    if (!stats) return false; // missing: nothing below it either
    if (!stats.isDirectory()) return true;
  }
  return false;
}

function excludeTest(exclude: readonly string[]): (name: string, rel: string) => boolean {
  const names = new Set<string>();
  const patterns: string[] = [];
  for (const raw of exclude) {
    if (typeof raw !== 'string' || raw.trim() === '') continue;
    const e = normaliseGlob(raw).replace(/\/+$/, '');
    if (e.includes('/') || picomatch.scan(e).isGlob) patterns.push(e);
    else names.add(e);
  }
  const match = patterns.length ? picomatch(patterns, { dot: true }) : undefined;
  return (name, rel) => names.has(name) || (match !== undefined && match(rel));
}
