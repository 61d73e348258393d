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
    seal: async (checkpoint, seen, created) => {
      await sealCheckpoint(checkpoint, seen, { created });
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
 * Watches the workspace with one `fs.watch` per folder (links not followed; `node_modules`, `.git`, … and `ignore`
 * not entered; at most `maxFolders`), adding folders as they are created. `fs.watch` says only "rename" or "change",
 * and by the time an event is read the file may have moved on (a server that writes `a.txt.1234.tmp` and renames it
 * over `a.txt` makes the temporary file's creation arrive when it is already gone). So an event's kind is read from
 * the disk *and* from the files that were there when the watch began: a path there before is `changed` while it
 * exists and `deleted` once gone; a path not there before is `created` when first seen, and a file that came and went
 * between two reads is no change at all (never "deleted", which would claim the plan removed a file it made).
 */
export function nodeFileWatcher(options: { ignore?: readonly string[]; maxFolders?: number } = {}): FileWatcher {
  const maxFolders = options.maxFolders ?? 2000;
  return {
    watch(folder, record) {
      const root = folder.root;
      const watchers = new Map<string, FSWatcher>();
      /** Files present when the watch began (read while the first folders are added). */
      const before = new Set<string>();
      /** Paths recorded so far: a path's first event decides whether it was created. */
      const recorded = new Set<string>();
      let starting = true;
      let closed = false;
      const note = (rel: string, kind: 'created' | 'changed' | 'deleted') => {
        recorded.add(rel);
        record(rel, kind);
      };
      const onEvent = (dir: string, type: string, name: string | Buffer | null) => {
        if (closed || name === null) return;
        const rel = dir ? `${dir}/${String(name)}` : String(name);
        if (isIgnored(options.ignore, join(root, rel))) return;
        void lstat(join(root, rel)).then(
          (stats) => {
            if (closed) return;
            if (stats.isDirectory()) {
              if (type === 'rename' && !before.has(rel)) {
                note(rel, 'created');
                add(rel);
              }
              return;
            }
            note(rel, before.has(rel) || recorded.has(rel) ? 'changed' : 'created');
          },
          () => {
            if (closed) return;
            // Gone: a deletion of a file that was there, or of one the plan made; one never seen came and went.
            if (before.has(rel) || recorded.has(rel)) note(rel, 'deleted');
          },
        );
      };
      const add = (rel: string) => {
        if (closed || watchers.has(rel) || watchers.size >= maxFolders) return;
        const abs = rel ? join(root, rel) : root;
        if (rel && isIgnored(options.ignore, abs)) return;
        try {
          if (!lstatSync(abs).isDirectory()) return;
          const watcher = watch(abs, { persistent: false }, (type, name) => onEvent(rel, type, name));
          watcher.on('error', () => {
            watcher.close();
            watchers.delete(rel);
          });
          watchers.set(rel, watcher);
        } catch {
          return; // gone, or not readable: nothing to watch
        }
        let entries: Dirent[] = [];
        try {
          entries = readdirSync(abs, { withFileTypes: true });
        } catch {
          /* not readable */
        }
        for (const e of entries) {
          const path = rel ? `${rel}/${e.name}` : e.name;
          if (starting) before.add(path);
          if (e.isDirectory() && !DEFAULT_EXCLUDED_DIRS.includes(e.name)) add(path);
        }
      };
      add('');
      starting = false;
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
