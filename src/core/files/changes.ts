/**
 * Actual changes: what a plan's run did to the workspace, from its checkpoint (the state before the first step),
 * the state on disk now, and the file events a watcher saw while the plan ran.
 *
 * - A file in the checkpoint changed when it exists now and did not before (`created`), existed and is gone
 *   (`deleted`), or its content hash differs (`modified`).
 * - A file not in the checkpoint changed when the watcher saw it: its first event tells whether it existed before
 *   (`created` first → it did not), the disk tells whether it exists now. Such a file has no copy from before the
 *   plan (`inCheckpoint: false`): a created one can be removed, a modified or deleted one cannot be restored.
 * - Every change seen while the plan ran is counted as the plan's (an editor save during the run is too).
 *
 * Flags: `undeclared` — the path is not matched by the plan's `safety.touches_files` globs (core/base/globs.ts semantics),
 * shown as "undeclared write"; `codeFile` — the path is source code ({@link isCodeFile}); `unexpectedCode` — a code
 * file changed although the plan said `writes_code: false`.
 *
 * Pure: hashes come from the caller (node/checkpoint.ts computes them).
 */
import { globMatcher } from '../base/globs';

/** The state of one file in the checkpoint (node/checkpoint.ts `CheckpointEntry` has this shape). */
export interface CheckpointFileState {
  /** Workspace-relative, `/`-separated. */
  path: string;
  /** The file existed when the checkpoint was taken. */
  existed: boolean;
  /** Content hash then (sha256 hex, or a size/mtime signature for files over the size cap); undefined if unknown. */
  hash?: string;
  size?: number;
  /** A watcher saw it change during the run (recorded when the checkpoint holds no hash for it). */
  changedDuringRun?: boolean;
  /** The checkpoint can put it back (false: too large, not copied, …; `note` says why). Default true. */
  revertable?: boolean;
  /** Why it cannot be reverted, in words. */
  note?: string;
}

/**
 * A disk state (node/checkpoint.ts `currentState`) for a path reached through a link that leads out of the workspace:
 * `outside:<the link, workspace-relative>`. Such a change is never revertable.
 */
export const OUTSIDE_PREFIX = 'outside:';

/** The state on disk now: path → hash (or another state string), or null when the file does not exist. */
export type DiskState = ReadonlyMap<string, string | null> | Readonly<Record<string, string | null>>;

/** A file event seen while the plan ran (VS Code's FileSystemWatcher: create / change / delete). */
export type WatchKind = 'created' | 'changed' | 'deleted';

export interface WatchedEvent {
  path: string;
  kind: WatchKind;
}

export type ChangeKind = 'created' | 'modified' | 'deleted';

export interface FileChange {
  path: string;
  kind: ChangeKind;
  /** Not matched by the plan's `touches_files` globs: an undeclared write. */
  undeclared: boolean;
  /** The path is source code ({@link CODE_EXTENSIONS}, {@link CODE_FILE_NAMES}). */
  codeFile: boolean;
  /** A code file changed although the plan declared `writes_code: false`. */
  unexpectedCode: boolean;
  /** The checkpoint knows the file's state from before the plan (false: only the watcher saw it change). */
  inCheckpoint: boolean;
  /** Revert can put it back (restore its bytes, or remove it when the plan created it). */
  revertable: boolean;
  /** Why it cannot be reverted, in words (from the checkpoint). */
  note?: string;
}

/**
 * File extensions counted as source code (lowercase, without the dot): programming languages, shell scripts,
 * build scripts and web component formats. Data, config and docs (json, yaml, toml, md, txt, csv, html, css) are not
 * code: a plan with `writes_code: false` may write them.
 */
export const CODE_EXTENSIONS: ReadonlySet<string> = new Set([
  'ts',
  'tsx',
  'mts',
  'cts',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'vue',
  'svelte',
  'astro',
  'py',
  'pyi',
  'pyx',
  'rb',
  'php',
  'pl',
  'pm',
  'lua',
  'r',
  'jl',
  'dart',
  'groovy',
  'gradle',
  'go',
  'rs',
  'java',
  'kt',
  'kts',
  'scala',
  'sc',
  'swift',
  'c',
  'h',
  'cc',
  'cpp',
  'cxx',
  'hpp',
  'hh',
  'hxx',
  'm',
  'mm',
  'cs',
  'fs',
  'fsx',
  'vb',
  'zig',
  'nim',
  'd',
  'ex',
  'exs',
  'erl',
  'hrl',
  'clj',
  'cljs',
  'cljc',
  'elm',
  'hs',
  'ml',
  'mli',
  'sol',
  'sh',
  'bash',
  'zsh',
  'fish',
  'ps1',
  'psm1',
  'bat',
  'cmd',
  'sql',
]);

/** File names (any folder) counted as code although they have no code extension. */
export const CODE_FILE_NAMES: ReadonlySet<string> = new Set([
  'makefile',
  'dockerfile',
  'rakefile',
  'gemfile',
  'justfile',
  'cmakelists.txt',
  'build.bazel',
  'build',
]);

/** True when the workspace-relative path is source code (see {@link CODE_EXTENSIONS}, {@link CODE_FILE_NAMES}). */
export function isCodeFile(path: string): boolean {
  const base = String(path).replace(/\\/g, '/').split('/').pop()!.toLowerCase();
  if (CODE_FILE_NAMES.has(base)) return true;
  const dot = base.lastIndexOf('.');
  return dot > 0 && CODE_EXTENSIONS.has(base.slice(dot + 1));
}

export interface ComputeChangesInput {
  /** The checkpoint's entries (state before the first step). */
  entries: readonly CheckpointFileState[];
  /** The state on disk now, for every entry path and every watched path (a path missing here counts as unchanged). */
  disk: DiskState;
  /** File events seen while the plan ran, in order (a path may repeat). */
  watched?: readonly WatchedEvent[];
  /** The plan's `safety.touches_files`. */
  globs?: readonly string[];
  /** The plan's `safety.writes_code`. */
  writesCode?: boolean;
}

/** The actual changes, sorted by path. Never throws for odd input (entries without a path are ignored). */
export function computeChanges(input: ComputeChangesInput): FileChange[] {
  const declared = globMatcher(Array.isArray(input.globs) ? input.globs.filter((g) => typeof g === 'string') : []);
  const disk = (path: string): string | null | undefined => lookup(input.disk, path);
  const out = new Map<string, FileChange>();
  const add = (path: string, kind: ChangeKind, inCheckpoint: boolean, entry: CheckpointFileState | undefined, now: string | null) => {
    const codeFile = isCodeFile(path);
    const link = now?.startsWith(OUTSIDE_PREFIX) ? now.slice(OUTSIDE_PREFIX.length) : undefined;
    const revertable = link === undefined && (entry ? entry.revertable !== false : false);
    const note =
      link !== undefined
        ? `"${path}" is now reached through "${link}", a link to a place outside the workspace: Plangate does not read, write or delete anything through it, so it cannot be reverted.`
        : (entry?.note ??
          (revertable
            ? undefined
            : `"${path}" was not among the plan's touched files, so Plangate has no copy of it from before the plan.`));
    out.set(path, {
      path,
      kind,
      undeclared: !declared(path),
      codeFile,
      unexpectedCode: codeFile && input.writesCode === false,
      inCheckpoint,
      revertable,
      note,
    });
  };

  const watchedPaths = new Set((input.watched ?? []).flatMap((e) => (e && typeof e.path === 'string' ? [e.path] : [])));
  const inCheckpoint = new Set<string>();
  for (const entry of input.entries ?? []) {
    if (!entry || typeof entry.path !== 'string') continue;
    inCheckpoint.add(entry.path);
    const now = disk(entry.path);
    if (now === undefined) continue;
    if (!entry.existed) {
      if (now !== null) add(entry.path, 'created', true, entry, now);
    } else if (now === null) {
      add(entry.path, 'deleted', true, entry, now);
    } else if (entry.hash === undefined || now !== entry.hash) {
      // No hash then (unreadable, or not captured): only a watcher event says it changed.
      const seen = entry.changedDuringRun === true || watchedPaths.has(entry.path);
      if (entry.hash !== undefined || seen) add(entry.path, 'modified', entry.hash !== undefined, entry, now);
    }
  }

  const firstSeen = new Map<string, WatchKind>();
  for (const event of input.watched ?? []) {
    if (!event || typeof event.path !== 'string' || inCheckpoint.has(event.path) || firstSeen.has(event.path)) continue;
    firstSeen.set(event.path, event.kind);
  }
  for (const [path, first] of firstSeen) {
    const now = disk(path);
    if (now === undefined) continue;
    const existedBefore = first !== 'created';
    if (existedBefore && now !== null) add(path, 'modified', false, undefined, now);
    else if (existedBefore) add(path, 'deleted', false, undefined, now);
    else if (now !== null) add(path, 'created', false, undefined, now);
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function lookup(disk: DiskState, path: string): string | null | undefined {
  if (disk instanceof Map) return disk.get(path);
  const record = disk as Readonly<Record<string, string | null>>;
  return Object.hasOwn(record, path) ? record[path] : undefined;
}

/**
 * Collects the watcher's events while a plan runs: keeps each path's events in order, ignoring paths outside the
 * workspace (the caller passes workspace-relative paths, or undefined for those outside).
 */
export class WatchLog {
  private readonly events: WatchedEvent[] = [];
  private readonly paths = new Set<string>();

  record(path: string | undefined, kind: WatchKind): void {
    if (typeof path !== 'string' || path === '') return;
    this.events.push({ path, kind });
    this.paths.add(path);
  }

  /** Every event so far, in order. */
  get watched(): readonly WatchedEvent[] {
    return this.events;
  }

  /** Every path seen so far (what `currentState` must look at besides the checkpoint's paths). */
  get seenPaths(): string[] {
    return [...this.paths];
  }

  /** Paths whose first event was a creation (files the plan created, unless it also deleted them). */
  get createdPaths(): string[] {
    const first = new Map<string, WatchKind>();
    for (const e of this.events) if (!first.has(e.path)) first.set(e.path, e.kind);
    return [...first].filter(([, k]) => k === 'created').map(([p]) => p);
  }
}

/** Counts for a one-line summary, e.g. "3 files changed (1 created), 1 undeclared write". */
export function summariseChanges(changes: readonly FileChange[]): {
  created: number;
  modified: number;
  deleted: number;
  undeclared: number;
  unexpectedCode: number;
} {
  const count = (f: (c: FileChange) => boolean) => changes.filter(f).length;
  return {
    created: count((c) => c.kind === 'created'),
    modified: count((c) => c.kind === 'modified'),
    deleted: count((c) => c.kind === 'deleted'),
    undeclared: count((c) => c.undeclared),
    unexpectedCode: count((c) => c.unexpectedCode),
  };
}
