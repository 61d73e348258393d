/**
 * The files engine's ports (core/files/engine.ts) on Node: the checkpoint store (node/checkpoint.ts under a storage
 * folder), the workspace's files (plain fs, never following links), the workspace folder with its real path, and a
 * watcher for the CLI (fs.watch on each folder; the extension uses VS Code's watcher instead).
 */
import { watch, type FSWatcher } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { lstatSync, readdirSync, realpathSync, type Dirent } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { CheckpointStore, FileWatcher, WorkspaceDisk, WorkspaceFolder } from '../core/files/engine';
import type { WatchKind } from '../core/files/changes';
import {
  checkpointDiskState,
  createCheckpoint,
  readCheckpoint,
  readCheckpointFile,
  revertFile,
  revertPlan,
  sealCheckpoint,
} from './checkpoint';
import { DEFAULT_EXCLUDED_DIRS, listWorkspaceFiles } from './workspaceFiles';

/** The most files a glob listing gives the checkpoint (as many as VS Code's file search is asked for). */
const MAX_MATCHES = 10_000;

/** Checkpoints kept under `<storageDir>/checkpoints/<planId>/` (the extension's storage; the CLI's ledger folder). */
export function nodeCheckpointStore(storageDir: string): CheckpointStore {
  return {
    create: (planId, root, paths) => createCheckpoint(storageDir, planId, root, paths),
    read: (planId) => readCheckpoint(storageDir, planId),
    seal: async (checkpoint, seen, created, late) => {
      await sealCheckpoint(checkpoint, seen, { created, keepSealed: late });
    },
    diskState: (checkpoint, extra) => checkpointDiskState(checkpoint, extra),
    readFile: (checkpoint, path) => readCheckpointFile(checkpoint, path),
    revertFile: (checkpoint, path, options) => revertFile(checkpoint, path, options),
    revertPlan: (checkpoint, options) => revertPlan(checkpoint, options),
  };
}

/** `root` and its real path, when they differ (servers report real paths). */
export function nodeWorkspaceFolder(root: string): WorkspaceFolder {
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    /* keep the path as given */
  }
  return { root, roots: real === root ? [root] : [root, real] };
}

/**
 * The workspace's files with plain fs. `ignore`: absolute files and folders that are Plangate's own (a ledger and its
 * checkpoints the user keeps inside the workspace): never listed as a plan's files.
 */
export function nodeWorkspaceDisk(options: { ignore?: readonly string[] } = {}): WorkspaceDisk {
  const ignored = (root: string, rel: string) => isIgnored(options.ignore, join(root, rel));
  return {
    exists: async (root, path) => (await lstat(join(root, path)).catch(() => undefined)) !== undefined,
    readText: async (root, path) => readFile(join(root, path), 'utf8').catch(() => undefined),
    matching: async (root, globs) =>
      (await listWorkspaceFiles(root, globs, { maxResults: MAX_MATCHES })).files.filter((f) => !ignored(root, f)),
    filesIfFolder: async (root, path, max) => {
      const stats = await lstat(join(root, path)).catch(() => undefined);
      if (!stats?.isDirectory()) return undefined;
      return filesBelow(join(root, path), max)
        .map((abs) => relative(root, abs).split(sep).join('/'))
        .filter((f) => !ignored(root, f));
    },
    changedAt: async (root, path) => {
      const stats = await lstat(join(root, path)).catch(() => undefined);
      return stats && Math.max(stats.mtimeMs, stats.ctimeMs);
    },
  };
}

/** `abs` is one of `ignore` or lies below one. */
function isIgnored(ignore: readonly string[] | undefined, abs: string): boolean {
  return (ignore ?? []).some((folder) => {
    const rel = relative(resolve(folder), resolve(abs));
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  });
}

/** Files below a folder (not following links), at most `max`. */
function filesBelow(dir: string, max: number): string[] {
  const out: string[] = [];
  const queue = [dir];
  while (queue.length && out.length < max) {
    const current = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const full = join(current, e.name);
      if (e.isDirectory()) queue.push(full);
      else if (e.isFile()) out.push(full);
    }
  }
  return out.slice(0, max);
}

/**
 * Names a watcher's events by the files that were there when the watch began, not by what the event says alone: a
 * server that writes `a.txt.1234.tmp` and renames it over `a.txt` gives "created" for `a.txt` (VS Code's watcher
 * says so) and, read late, "deleted" for a temporary file that was never seen (`fs.watch` says only "rename"). A path
 * there before is `changed` while it exists and `deleted` once gone; a path not there before is `created` when first
 * seen and `changed` after; a file that came and went unseen is no change at all. Anything else would list a file the
 * plan replaced as one it created — which Revert removes — or a temporary file as one it deleted.
 */
export class EventKinds {
  /** Paths recorded so far (a path's first event decides whether it was created). */
  private readonly recorded = new Set<string>();

  constructor(
    /** The workspace-relative paths present when the watch began (see {@link pathsNow}). */
    readonly before: ReadonlySet<string>,
    private readonly record: (path: string, kind: WatchKind) => void,
  ) {}

  /** An event for `rel`, which exists now. */
  present(rel: string): void {
    this.note(rel, this.before.has(rel) || this.recorded.has(rel) ? 'changed' : 'created');
  }

  /** An event for `rel`, which is gone now. */
  gone(rel: string): void {
    if (this.before.has(rel) || this.recorded.has(rel)) this.note(rel, 'deleted');
  }

  private note(rel: string, kind: WatchKind): void {
    this.recorded.add(rel);
    this.record(rel, kind);
  }
}

/**
 * The workspace-relative paths of the files and folders under `root` now (under its folder `from`, when given), read
 * folder by folder (links not followed; `node_modules`, `.git`, … and `ignore` not entered; at most `maxFolders`
 * folders read). `onFolder` hears each folder before it is read (`''` for the root) and may say to leave it out.
 */
export function pathsNow(
  root: string,
  options: { from?: string; ignore?: readonly string[]; maxFolders?: number; onFolder?: (rel: string) => boolean } = {},
): Set<string> {
  const maxFolders = options.maxFolders ?? 2000;
  const out = new Set<string>();
  let folders = 0;
  const visit = (rel: string) => {
    if (folders >= maxFolders) return;
    const abs = rel ? join(root, rel) : root;
    if (rel && isIgnored(options.ignore, abs)) return;
    if (options.onFolder && !options.onFolder(rel)) return;
    folders++;
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      return; // gone, or not readable
    }
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      out.add(path);
      if (e.isDirectory() && !DEFAULT_EXCLUDED_DIRS.includes(e.name)) visit(path);
    }
  };
  visit(options.from ?? '');
  return out;
}

/**
 * Watches the workspace with one `fs.watch` per folder (links not followed; `node_modules`, `.git`, … and `ignore`
 * not entered; at most `maxFolders`), adding folders as they are created. `fs.watch` says only "rename" or "change":
 * whether the path exists is read from the disk when the event arrives, and its kind from {@link EventKinds}.
 */
export function nodeFileWatcher(options: { ignore?: readonly string[]; maxFolders?: number } = {}): FileWatcher {
  const maxFolders = options.maxFolders ?? 2000;
  return {
    watch(folder, record) {
      const root = folder.root;
      const watchers = new Map<string, FSWatcher>();
      let closed = false;
      const onEvent = (dir: string, type: string, name: string | Buffer | null) => {
        if (closed || name === null) return;
        const rel = dir ? `${dir}/${String(name)}` : String(name);
        if (isIgnored(options.ignore, join(root, rel))) return;
        void lstat(join(root, rel)).then(
          (stats) => {
            if (closed) return;
            if (!stats.isDirectory()) kinds.present(rel);
            else if (type === 'rename' && !kinds.before.has(rel) && !watchers.has(rel)) {
              // A new folder: watched from now on, with the folders in it (its files are the plan's; the files engine
              // lists them as created).
              kinds.present(rel);
              pathsNow(root, { ...options, from: rel, onFolder: watch1 });
            }
          },
          () => !closed && kinds.gone(rel),
        );
      };
      /** Watches folder `rel`; false when it cannot (gone, not a folder, or the limit reached). */
      const watch1 = (rel: string): boolean => {
        if (closed || watchers.has(rel) || watchers.size >= maxFolders) return false;
        try {
          const abs = rel ? join(root, rel) : root;
          if (!lstatSync(abs).isDirectory()) return false;
          const watcher = watch(abs, { persistent: false }, (type, name) => onEvent(rel, type, name));
          watcher.on('error', () => {
            watcher.close();
            watchers.delete(rel);
          });
          watchers.set(rel, watcher);
          return true;
        } catch {
          return false; // gone, or not readable: nothing to watch
        }
      };
      const kinds = new EventKinds(pathsNow(root, { ...options, maxFolders, onFolder: watch1 }), record);
      return {
        dispose() {
          closed = true;
          for (const w of watchers.values()) w.close();
          watchers.clear();
        },
      };
    },
  };
}
