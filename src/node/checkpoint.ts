/**
 * Checkpoints: the bytes of every file a plan may touch, taken before its first step, so the plan's changes can be
 * listed (checkpoint vs disk) and reverted.
 *
 * - **Plan-scoped and outside the workspace**: everything lives under `<storageDir>/checkpoints/<planId>/` (the
 *   extension's storage, never the workspace, never git): `manifest.json` plus `blobs/<sha256>` holding each file's
 *   bytes once (content-addressed, binary-safe).
 * - **Cost follows the touched files**: only the listed paths are looked at (an absent file's missing parent folders
 *   are stat'ed to find the deepest existing one); nothing walks the workspace.
 * - **Capped**: a file over `maxFileBytes` is recorded as too large (a size/mtime signature, no copy); once the copies
 *   reach `maxTotalBytes`, further files are recorded over budget (hash, no copy). Neither can be reverted, and
 *   their notes say so; their changes are still detected.
 * - **Sealed after the run**: {@link sealCheckpoint} records what the plan left in each file, so a later edit by the
 *   user is told apart from the plan's change: {@link revertFile} then reports a conflict instead of overwriting it.
 *
 * Paths in and out are workspace-relative with `/`. Untrusted paths (absolute elsewhere, `..`) are recorded as
 * invalid and never read. Symbolic links are recorded by their target, never followed or copied.
 *
 * - **Never through a link out of the workspace**: before a file is read, written or deleted, the real path of its
 *   folder (`realpath` of the deepest existing parent) must lie inside the workspace folder's real path; the file
 *   itself is never followed (`lstat`, `O_NOFOLLOW`). A path reached through a link that leads out (a repository's
 *   `data -> ../..`, or a folder a step swapped for such a link) is not read, not written and not deleted, and its
 *   note or revert result names the link. The check is repeated right before each write, rename and unlink, so a
 *   link swapped in while Plangate works is caught too (what remains is the instant between that check and the call).
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fsp, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { OUTSIDE_PREFIX } from '../core/files/changes';
import { toWorkspacePath } from '../core/files/predict';
import {
  CHECKPOINT_VERSION,
  type Checkpoint,
  type CheckpointEntry,
  type CheckpointLimits,
  type RevertOptions,
  type RevertResult,
} from '../core/files/checkpoint';
import { CREATE_NEW, O_NOFOLLOW, PRIVATE_FOLDER, writePrivateFile } from './privateFile';

export {
  CHECKPOINT_VERSION,
  type Checkpoint,
  type CheckpointEntry,
  type CheckpointEntryStatus,
  type CheckpointLimits,
  type RevertConflict,
  type RevertOptions,
  type RevertResult,
} from '../core/files/checkpoint';
/** Default per-file cap: files larger than this are not copied (10 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** Default per-plan cap on the bytes copied (200 MiB). */
export const DEFAULT_MAX_TOTAL_BYTES = 200 * 1024 * 1024;

const MANIFEST = 'manifest.json';
const BLOBS = 'blobs';
const CONCURRENCY = 16;

/**
 * Takes (or extends) the checkpoint of plan `planId`: records each of `relativePaths` as it is on disk now, copying
 * the bytes of files within the caps. Call it before the plan's first step. If the plan already has a checkpoint (a
 * retry, a nested plan adding paths), it is kept and only the paths it does not hold are added: a file's state from
 * before the plan is never overwritten. Rejects only when the storage folder cannot be written.
 */
export async function createCheckpoint(
  storageDir: string,
  planId: string,
  workspaceRoot: string,
  relativePaths: readonly string[],
  limits: CheckpointLimits = {},
): Promise<Checkpoint> {
  const existing = await readCheckpoint(storageDir, planId);
  const dir = checkpointDir(storageDir, planId);
  const checkpoint: Checkpoint = existing ?? {
    version: CHECKPOINT_VERSION,
    planId,
    workspaceRoot,
    dir,
    createdAt: Date.now(),
    storedBytes: 0,
    entries: [],
    limits: {
      maxFileBytes: positive(limits.maxFileBytes, DEFAULT_MAX_FILE_BYTES),
      maxTotalBytes: positive(limits.maxTotalBytes, DEFAULT_MAX_TOTAL_BYTES),
    },
  };
  const held = new Set(checkpoint.entries.map((e) => e.path));
  const wanted: { path: string; invalid?: string }[] = [];
  for (const raw of relativePaths) {
    const wp = toWorkspacePath(raw, checkpoint.workspaceRoot);
    const path = wp.inside ? wp.path : String(raw);
    if (held.has(path)) continue;
    held.add(path);
    wanted.push(
      wp.inside ? { path } : { path, invalid: `"${path}" is not a file inside the workspace (${wp.reason}); Plangate did not look at it.` },
    );
  }
  wanted.sort((a, b) => compare(a.path, b.path));
  await privateFolder(storageDir, dir);

  // Look first (stat), then allot the copy budget in path order, then read and store.
  const realRoot = await realRootOf(checkpoint.workspaceRoot);
  const looks = await mapLimit(wanted, CONCURRENCY, async (w): Promise<Look> => {
    if (w.invalid) return undefined;
    const escape = await linkEscape(checkpoint.workspaceRoot, realRoot, w.path);
    if (escape) {
      w.invalid =
        'link' in escape
          ? `"${w.path}" was not read: "${escape.link}" is a link to a place outside the workspace, and Plangate does not read or write through it, so it cannot be reverted.`
          : `"${w.path}" could not be read (${escape.error}); Plangate keeps no copy of it, so it cannot be reverted.`;
      return undefined;
    }
    return lstatOrError(join(checkpoint.workspaceRoot, w.path));
  });
  const { maxFileBytes, maxTotalBytes } = checkpoint.limits;
  let budget = maxTotalBytes - checkpoint.storedBytes;
  const plans = wanted.map((w, i) => {
    const look = looks[i];
    if (w.invalid || !look || !('stats' in look) || !look.stats.isFile() || look.stats.size > maxFileBytes)
      return { w, look, store: false };
    const store = look.stats.size <= budget;
    if (store) budget -= look.stats.size;
    return { w, look, store };
  });
  const entries = await mapLimit(plans, CONCURRENCY, ({ w, look, store }) => captureEntry(checkpoint, w.path, w.invalid, look, store));
  for (const entry of entries) {
    checkpoint.entries.push(withRevertable(entry.entry));
    checkpoint.storedBytes += entry.newBytes;
  }
  checkpoint.entries.sort((a, b) => compare(a.path, b.path));
  await writeManifest(checkpoint);
  return checkpoint;
}

type Look = { stats: Stats } | { error: NodeJS.ErrnoException } | undefined;

async function captureEntry(
  cp: Checkpoint,
  path: string,
  invalid: string | undefined,
  look: Look,
  store: boolean,
): Promise<{ entry: CheckpointEntry; newBytes: number }> {
  const none = (entry: CheckpointEntry) => ({ entry, newBytes: 0 });
  if (invalid !== undefined || !look) return none({ path, existed: false, status: 'invalidPath', note: invalid });
  const abs = join(cp.workspaceRoot, path);
  if ('error' in look) {
    if (look.error.code === 'ENOENT' || look.error.code === 'ENOTDIR') {
      return none({ path, existed: false, status: 'absent', existingAncestor: await deepestExistingFolder(cp.workspaceRoot, path) });
    }
    return none({
      path,
      existed: true,
      status: 'unreadable',
      note: `"${path}" could not be read (${look.error.code ?? look.error.message}); Plangate keeps no copy of it, so it cannot be reverted.`,
    });
  }
  const stats = look.stats;
  const mode = stats.mode & 0o777;
  if (stats.isSymbolicLink()) {
    const target = await fsp.readlink(abs).catch(() => '?');
    return none({
      path,
      existed: true,
      status: 'notAFile',
      hash: `symlink:${target}`,
      mode,
      note: `"${path}" is a symbolic link; Plangate does not copy links, so it cannot be reverted.`,
    });
  }
  if (!stats.isFile()) {
    return none({
      path,
      existed: true,
      status: 'notAFile',
      hash: stats.isDirectory() ? 'directory' : 'special',
      mode,
      note: `"${path}" is ${stats.isDirectory() ? 'a folder' : 'not a regular file'}, not a file Plangate can copy, so it cannot be reverted.`,
    });
  }
  const { maxFileBytes, maxTotalBytes } = cp.limits;
  if (stats.size > maxFileBytes) {
    return none({
      path,
      existed: true,
      status: 'tooLarge',
      size: stats.size,
      mode,
      hash: statSignature(stats),
      note: `"${path}" is ${formatBytes(stats.size)}, over the checkpoint's limit of ${formatBytes(maxFileBytes)} per file: Plangate keeps no copy of it, so it cannot be reverted (its changes are still listed).`,
    });
  }
  let bytes: Buffer;
  try {
    bytes = await readNoFollow(cp.workspaceRoot, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      return none({ path, existed: false, status: 'absent', existingAncestor: await deepestExistingFolder(cp.workspaceRoot, path) });
    return none({
      path,
      existed: true,
      status: 'unreadable',
      note: `"${path}" could not be read (${code ?? String(err)}); Plangate keeps no copy of it, so it cannot be reverted.`,
    });
  }
  if (bytes.length > maxFileBytes) {
    return none({
      path,
      existed: true,
      status: 'tooLarge',
      size: bytes.length,
      mode,
      hash: `size:${bytes.length}:mtime:${Math.round(stats.mtimeMs)}`,
      note: `"${path}" is ${formatBytes(bytes.length)}, over the checkpoint's limit of ${formatBytes(maxFileBytes)} per file: Plangate keeps no copy of it, so it cannot be reverted (its changes are still listed).`,
    });
  }
  const hash = sha256(bytes);
  if (!store) {
    return none({
      path,
      existed: true,
      status: 'overBudget',
      size: bytes.length,
      mode,
      hash,
      note: `The checkpoint reached its limit of ${formatBytes(maxTotalBytes)} for this plan before "${path}" (${formatBytes(bytes.length)}): Plangate keeps no copy of it, so it cannot be reverted (its changes are still listed).`,
    });
  }
  const newBytes = await writeBlob(cp.dir, hash, bytes);
  return { entry: { path, existed: true, status: 'stored', size: bytes.length, mode, hash }, newBytes };
}

/**
 * Reads plan `planId`'s checkpoint; undefined when it has none. A damaged manifest counts as none (the folder is
 * left for {@link deleteCheckpoint}).
 */
export async function readCheckpoint(storageDir: string, planId: string): Promise<Checkpoint | undefined> {
  const dir = checkpointDir(storageDir, planId);
  let text: string;
  try {
    text = await fsp.readFile(join(dir, MANIFEST), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as Omit<Checkpoint, 'dir'>;
    if (
      value?.version !== CHECKPOINT_VERSION ||
      value.planId !== planId ||
      !Array.isArray(value.entries) ||
      typeof value.workspaceRoot !== 'string'
    )
      return undefined;
    return { ...value, dir };
  } catch {
    return undefined;
  }
}

/** Plan ids that have a checkpoint under `storageDir` (for cleaning up checkpoints of plans no longer kept). */
export async function listCheckpoints(storageDir: string): Promise<string[]> {
  const root = join(storageDir, 'checkpoints');
  const names = await fsp.readdir(root).catch(() => [] as string[]);
  const ids = await Promise.all(
    names.map(async (name) => {
      try {
        const value = JSON.parse(await fsp.readFile(join(root, name, MANIFEST), 'utf8')) as { planId?: unknown };
        return typeof value.planId === 'string' ? [value.planId] : [];
      } catch {
        return [];
      }
    }),
  );
  return ids.flat().sort();
}

/** Removes plan `planId`'s checkpoint (nothing when it has none). */
export async function deleteCheckpoint(storageDir: string, planId: string): Promise<void> {
  await fsp.rm(checkpointDir(storageDir, planId), { recursive: true, force: true });
}

/**
 * The state on disk now of each path: sha256 of its bytes, `null` when it does not exist, a `size:…:mtime:…`
 * signature for files over `maxFileBytes` (as the checkpoint records them), `symlink:<target>` for links,
 * `outside:<link>` when a folder above it is a link leading out of the workspace (nothing there is read; `<link>` is
 * that folder, workspace-relative), and `directory` / `special` / `unreadable:<code>` otherwise. Looks only at the
 * given paths.
 */
export async function currentState(
  workspaceRoot: string,
  paths: readonly string[],
  options: { maxFileBytes?: number } = {},
): Promise<Map<string, string | null>> {
  const maxFileBytes = positive(options.maxFileBytes, DEFAULT_MAX_FILE_BYTES);
  const unique = [...new Set(paths)];
  const realRoot = await realRootOf(workspaceRoot);
  const states = await mapLimit(unique, CONCURRENCY, (path) => stateOf(workspaceRoot, realRoot, path, maxFileBytes));
  return new Map(unique.map((p, i) => [p, states[i]]));
}

/** {@link currentState} of the checkpoint's paths plus `extraPaths` (e.g. the watcher's), with the checkpoint's cap. */
export function checkpointDiskState(checkpoint: Checkpoint, extraPaths: readonly string[] = []): Promise<Map<string, string | null>> {
  const paths = [...checkpoint.entries.filter((e) => e.status !== 'invalidPath').map((e) => e.path), ...extraPaths];
  return currentState(checkpoint.workspaceRoot, paths, { maxFileBytes: checkpoint.limits.maxFileBytes });
}

async function stateOf(workspaceRoot: string, realRoot: string, path: string, maxFileBytes: number): Promise<string | null> {
  const wp = toWorkspacePath(path, workspaceRoot);
  if (!wp.inside) return 'invalid';
  const escape = await linkEscape(workspaceRoot, realRoot, wp.path);
  if (escape) return 'link' in escape ? `${OUTSIDE}${escape.link}` : `unreadable:${escape.error}`;
  const abs = join(workspaceRoot, wp.path);
  const look = await lstatOrError(abs);
  if ('error' in look)
    return look.error.code === 'ENOENT' || look.error.code === 'ENOTDIR' ? null : `unreadable:${look.error.code ?? 'error'}`;
  const stats = look.stats;
  if (stats.isSymbolicLink()) return `symlink:${await fsp.readlink(abs).catch(() => '?')}`;
  if (stats.isDirectory()) return 'directory';
  if (!stats.isFile()) return 'special';
  if (stats.size > maxFileBytes) return statSignature(stats);
  try {
    return sha256(await readNoFollow(workspaceRoot, wp.path));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? null : `unreadable:${code ?? 'error'}`;
  }
}

/**
 * Records what the plan left: the state now of every checkpoint path and of `paths` (the watcher's paths). Paths not
 * in the checkpoint are added: those in `options.created` (first seen being created) as `absent` before the plan (so
 * revert removes them), the others as `notCaptured` (changed, but no copy from before). Call it when the run ends
 * (completed, blocked, stopped or cancelled); sealing again updates the record (e.g. after a retry ran more steps),
 * unless `options.keepSealed`: then only the paths added are recorded (files the watcher told of late).
 */
export async function sealCheckpoint(
  checkpoint: Checkpoint,
  paths: readonly string[] = [],
  options: { created?: readonly string[]; keepSealed?: boolean } = {},
): Promise<Checkpoint> {
  const created = new Set(options.created ?? []);
  // Files added late to a sealed checkpoint: what it recorded the plan left of the others is kept (they may have been
  // edited since, and Revert must see that as the user's edit).
  const keep = options.keepSealed === true;
  const entries = new Map(checkpoint.entries.map((e) => [e.path, e]));
  const realRoot = await realRootOf(checkpoint.workspaceRoot);
  for (const raw of paths) {
    const wp = toWorkspacePath(raw, checkpoint.workspaceRoot);
    if (!wp.inside || entries.has(wp.path)) continue;
    // Seen through a link that leads out: not the workspace's file, so Revert must never be told to remove it.
    if (await linkEscape(checkpoint.workspaceRoot, realRoot, wp.path)) continue;
    entries.set(
      wp.path,
      withRevertable(
        created.has(raw) || created.has(wp.path)
          ? { path: wp.path, existed: false, status: 'absent', changedDuringRun: true }
          : {
              path: wp.path,
              existed: true,
              status: 'notCaptured',
              changedDuringRun: true,
              note: `"${wp.path}" changed during the plan but was not among its touched files, so Plangate has no copy of it from before: it cannot be reverted.`,
            },
      ),
    );
  }
  const list = [...entries.values()].sort((a, b) => compare(a.path, b.path));
  const disk = await currentState(
    checkpoint.workspaceRoot,
    list.filter((e) => e.status !== 'invalidPath' && !(keep && e.after)).map((e) => e.path),
    { maxFileBytes: checkpoint.limits.maxFileBytes },
  );
  const sealed: Checkpoint = {
    ...checkpoint,
    sealedAt: keep && checkpoint.sealedAt !== undefined ? checkpoint.sealedAt : Date.now(),
    entries: list.map((e) => {
      if (e.status === 'invalidPath' || (keep && e.after)) return e;
      const now = disk.get(e.path) ?? null;
      return { ...e, after: now === null ? { existed: false } : { existed: true, hash: now } };
    }),
  };
  await writeManifest(sealed);
  return sealed;
}

/**
 * The bytes a file had before the plan (the left side of its diff); undefined when it did not exist or was not
 * copied. Rejects when the copy is damaged (its hash does not match).
 */
export async function readCheckpointFile(checkpoint: Checkpoint, path: string): Promise<Buffer | undefined> {
  const entry = checkpoint.entries.find((e) => e.path === path);
  if (!entry || entry.status !== 'stored' || !entry.hash) return undefined;
  return readBlob(checkpoint, entry);
}

// ---------------------------------------------------------------------------------------------------------------
// Revert

/**
 * Reverts one file to its checkpoint: restores its bytes (and permission bits), or removes it when the plan created it
 * (then the empty folders the plan created above it). A conflict — nothing written — when the file on disk differs
 * from both the checkpoint and what the plan left (the user edited it after the plan), or when the checkpoint was not
 * sealed (what the plan left is unknown); `force` reverts anyway. An error for files the checkpoint holds no copy of.
 */
export async function revertFile(checkpoint: Checkpoint, path: string, options: RevertOptions = {}): Promise<RevertResult> {
  const entry = checkpoint.entries.find((e) => e.path === path);
  if (!entry)
    return {
      ok: false,
      path,
      error: `"${path}" is not in the plan's checkpoint: Plangate has no copy of it from before the plan, so it cannot be reverted.`,
    };
  if (entry.status !== 'stored' && entry.status !== 'absent')
    return { ok: false, path, error: entry.note ?? `"${path}" cannot be reverted.` };
  const root = checkpoint.workspaceRoot;
  const realRoot = await realRootOf(root);
  const now = await stateOf(root, realRoot, entry.path, checkpoint.limits.maxFileBytes);
  const before = entry.status === 'stored' ? entry.hash! : null;
  if (now?.startsWith(OUTSIDE)) return { ok: false, path, error: skippedThroughLink(now.slice(OUTSIDE.length)) };
  if (now === before) return { ok: true, path, action: 'unchanged' };
  if (now !== null && /^(directory|special|symlink:|unreadable:|invalid)/.test(now)) {
    return {
      ok: false,
      path,
      error: `"${path}" is now ${now.startsWith('directory') ? 'a folder' : now.startsWith('symlink:') ? 'a symbolic link' : now.startsWith('unreadable:') ? 'unreadable' : 'not a regular file'}; Plangate does not replace it. Move it away and revert again.`,
    };
  }
  if (!options.force) {
    if (!entry.after) {
      return {
        ok: false,
        path,
        conflict: 'not sealed',
        message: `Plangate has no record of what the plan left in "${path}" (the run did not end normally), so it cannot tell the plan's changes from later edits. Open the diff, or revert anyway to restore the checkpoint.`,
      };
    }
    const after = entry.after.existed ? (entry.after.hash ?? '') : null;
    if (now !== after) {
      return {
        ok: false,
        path,
        conflict: 'modified since the plan',
        message: `"${path}" was ${now === null ? 'deleted' : after === null ? 'created' : 'modified'} after the plan ran; reverting would ${
          now === null ? 'bring it back' : before === null ? 'delete it with those edits' : 'overwrite those edits'
        }. Open the diff to compare, or revert anyway.`,
      };
    }
  }
  if (options.dryRun) return { ok: true, path, action: before === null ? 'removed' : 'restored' };
  try {
    if (before === null) {
      const escape = await removeInside(root, realRoot, entry.path);
      if (escape) return { ok: false, path, error: skippedThroughLink(escape) };
      await removeEmptyFolders(root, realRoot, entry.path, entry.existingAncestor);
      return { ok: true, path, action: 'removed' };
    }
    const bytes = await readBlob(checkpoint, entry);
    const escape = await writeInside(root, realRoot, entry.path, bytes, entry.mode);
    if (escape) return { ok: false, path, error: skippedThroughLink(escape) };
    return { ok: true, path, action: 'restored' };
  } catch (err) {
    return { ok: false, path, error: `"${path}" could not be reverted: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** What Revert says of a file it leaves alone because a folder above it now leads out of the workspace. */
function skippedThroughLink(link: string): string {
  return `skipped: "${link}" is now a link to a place outside the workspace, and Plangate neither writes nor deletes anything through it. Put the folder back and revert again.`;
}

/**
 * Reverts every file the plan changed (or only `options.paths`): files it created are removed first, then the others
 * restored. Returns one result per file that differs from the checkpoint or cannot be checked; files already as they
 * were are left out. A conflict or error on one file does not stop the others. With `dryRun`, reports what would
 * happen (for the confirmation).
 */
export async function revertPlan(
  checkpoint: Checkpoint,
  options: RevertOptions & { paths?: readonly string[] } = {},
): Promise<RevertResult[]> {
  const only = options.paths ? new Set(options.paths) : undefined;
  const entries = checkpoint.entries.filter((e) => e.status !== 'invalidPath' && (!only || only.has(e.path)));
  const disk = await checkpointDiskState({ ...checkpoint, entries });
  const changed = entries.filter((e) => differs(e, disk.get(e.path) ?? null));
  // Removals deepest first (so emptied folders can go), then restores.
  const removals = changed
    .filter((e) => e.status === 'absent')
    .sort((a, b) => b.path.split('/').length - a.path.split('/').length || compare(a.path, b.path));
  const others = changed.filter((e) => e.status !== 'absent');
  const results: RevertResult[] = [];
  for (const e of [...removals, ...others]) results.push(await revertFile(checkpoint, e.path, options));
  return results.sort((a, b) => compare(a.path, b.path));
}

function withRevertable(entry: CheckpointEntry): CheckpointEntry {
  return { ...entry, revertable: entry.status === 'stored' || entry.status === 'absent' };
}

/** The file's state now differs from the checkpoint (as core/files/changes.ts counts a change). */
function differs(e: CheckpointEntry, now: string | null): boolean {
  if (!e.existed) return now !== null;
  if (now === null) return true;
  return e.hash !== undefined ? now !== e.hash : e.changedDuringRun === true;
}

// ---------------------------------------------------------------------------------------------------------------
// Storage helpers

/** Where plan `planId`'s checkpoint lives. Ids that are not simple names are hashed (an id is untrusted data). */
export function checkpointDir(storageDir: string, planId: string): string {
  const name = /^[A-Za-z0-9_-]{1,100}$/.test(planId) ? planId : `id-${sha256(Buffer.from(String(planId), 'utf8')).slice(0, 32)}`;
  return join(storageDir, 'checkpoints', name);
}

async function writeManifest(cp: Checkpoint): Promise<void> {
  const { dir, ...stored } = cp;
  await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_FOLDER });
  await writeAtomic(join(dir, MANIFEST), Buffer.from(`${JSON.stringify(stored, null, 1)}\n`, 'utf8'));
}

/** Stores `bytes` as blobs/<hash> unless already there; returns the bytes newly written. */
async function writeBlob(dir: string, hash: string, bytes: Buffer): Promise<number> {
  const file = join(dir, BLOBS, hash);
  try {
    await fsp.access(file);
    return 0;
  } catch {
    await writeAtomic(file, bytes, false);
    return bytes.length;
  }
}

async function readBlob(cp: Checkpoint, entry: CheckpointEntry): Promise<Buffer> {
  const bytes = await fsp.readFile(join(cp.dir, BLOBS, entry.hash!));
  if (sha256(bytes) !== entry.hash) throw new Error(`the checkpoint's copy of "${entry.path}" is damaged (its hash does not match)`);
  return bytes;
}

/**
 * Creates the folders of checkpoint `dir` (and its blobs) readable by the user only; the `checkpoints` folder and
 * `dir` are made so even when an earlier version created them open to others (what they hold is then out of reach).
 */
async function privateFolder(storageDir: string, dir: string): Promise<void> {
  await fsp.mkdir(join(dir, BLOBS), { recursive: true, mode: PRIVATE_FOLDER });
  for (const folder of [join(storageDir, 'checkpoints'), dir, join(dir, BLOBS)])
    await fsp.chmod(folder, PRIVATE_FOLDER).catch(() => undefined);
}

/**
 * Writes through a new temporary file in the same folder (created exclusively, never through a link, readable by the
 * user only) and a rename, creating the folder (unless told it exists).
 */
async function writeAtomic(file: string, bytes: Buffer, ensureFolder = true): Promise<void> {
  if (ensureFolder) await fsp.mkdir(dirname(file), { recursive: true, mode: PRIVATE_FOLDER });
  await writePrivateFile(file, bytes);
}

/** Removes the empty folders between `path`'s folder and `ancestor` (exclusive), deepest first; never one reached through a link. */
async function removeEmptyFolders(root: string, realRoot: string, path: string, ancestor: string | undefined): Promise<void> {
  if (ancestor === undefined) return;
  const stop = ancestor === '' ? 0 : ancestor.split('/').length;
  const parts = path.split('/').slice(0, -1);
  while (parts.length > stop) {
    const folder = join(root, ...parts);
    try {
      // The folder itself must be a folder (not a link) whose folder lies inside, checked right before the rmdir.
      if ((await linkEscape(root, realRoot, parts.join('/'))) || !(await fsp.lstat(folder)).isDirectory()) return;
      await fsp.rmdir(folder);
    } catch {
      return; // not empty (or gone): stop
    }
    parts.pop();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Links out of the workspace

/** Marks a {@link currentState} value for a path reached through a link that leads out of the workspace. */
const OUTSIDE = OUTSIDE_PREFIX;
/** Opens a file without following it when it is a link (0 where the platform has no such flag). */

/** The workspace folder's real path (links resolved); the folder as given when it does not exist. */
async function realRootOf(root: string): Promise<string> {
  return fsp.realpath(root).catch(() => resolve(root));
}

function isWithin(realRoot: string, real: string): boolean {
  const rel = relative(realRoot, real);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Whether the folders above workspace-relative `path` lead out of the workspace: the real path of its deepest
 * existing parent folder is resolved (the file itself is not followed). Undefined when they stay inside (or do not
 * exist yet); `{ link }` names the folder (workspace-relative) that is a link leading out; `{ error }` when the real
 * path cannot be known (a link loop, permissions): callers treat that as not inside.
 */
async function linkEscape(root: string, realRoot: string, path: string): Promise<{ link: string } | { error: string } | undefined> {
  const parts = path.split('/').slice(0, -1);
  for (let k = parts.length; k > 0; k--) {
    let real: string;
    try {
      real = await fsp.realpath(join(root, ...parts.slice(0, k)));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      return { error: code ?? String(err) };
    }
    return isWithin(realRoot, real) ? undefined : { link: await outsideLink(root, realRoot, parts.slice(0, k)) };
  }
  return undefined;
}

/** The shallowest folder of `parts` that is a link leading out (the whole folder path when none can be named). */
async function outsideLink(root: string, realRoot: string, parts: readonly string[]): Promise<string> {
  for (let j = 1; j <= parts.length; j++) {
    const folder = join(root, ...parts.slice(0, j));
    const stats = await fsp.lstat(folder).catch(() => undefined);
    if (!stats?.isSymbolicLink()) continue;
    const real = await fsp.realpath(folder).catch(() => undefined);
    if (real === undefined || !isWithin(realRoot, real)) return parts.slice(0, j).join('/');
  }
  return parts.join('/');
}

/**
 * Reads a workspace file without following a link: neither the file itself (`O_NOFOLLOW`) nor a folder above it that
 * leads out (checked before and again after opening, so a folder swapped for a link meanwhile is caught).
 */
async function readNoFollow(root: string, path: string): Promise<Buffer> {
  const realRoot = await realRootOf(root);
  const refuse = async () => {
    const escape = await linkEscape(root, realRoot, path);
    if (escape) throw Object.assign(new Error(`"${path}" is reached through a link that leads out of the workspace`), { code: 'EXDEV' });
  };
  await refuse();
  const handle = await fsp.open(join(root, path), fsConstants.O_RDONLY | O_NOFOLLOW);
  try {
    await refuse();
    if (!(await handle.stat()).isFile()) throw Object.assign(new Error(`"${path}" is not a regular file`), { code: 'EISDIR' });
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `bytes` to workspace-relative `path` without writing through a link that leads out: creates the missing
 * folders one at a time (each checked), writes a new temporary file beside it (`O_EXCL`, not following links), and
 * renames it over the file; the folders are checked again right before the write and before the rename. Returns the
 * outside link (and writes nothing further) when one is found.
 */
async function writeInside(root: string, realRoot: string, path: string, bytes: Buffer, mode?: number): Promise<string | undefined> {
  const check = async () => {
    const escape = await linkEscape(root, realRoot, path);
    if (escape && 'error' in escape) throw new Error(`the folder of "${path}" could not be checked (${escape.error})`);
    return escape?.link;
  };
  const parts = path.split('/');
  for (let k = 1; k < parts.length; k++) {
    const folder = parts.slice(0, k).join('/');
    const escape = await linkEscape(root, realRoot, `${folder}/x`);
    if (escape) return 'link' in escape ? escape.link : folder;
    await fsp.mkdir(join(root, folder)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  const file = join(root, path);
  const tmp = `${file}.${randomBytes(6).toString('hex')}.plangate-tmp`;
  let link = await check();
  if (link) return link;
  const handle = await fsp.open(tmp, CREATE_NEW, mode ?? 0o666);
  try {
    try {
      await handle.writeFile(bytes);
      if (mode !== undefined) await handle.chmod(mode).catch(() => undefined);
    } finally {
      await handle.close();
    }
    link = await check();
    if (link) {
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      return link;
    }
    await fsp.rename(tmp, file);
    return undefined;
  } catch (err) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** Removes workspace file `path` (never following it) unless a folder above it leads out, checked right before the unlink. */
async function removeInside(root: string, realRoot: string, path: string): Promise<string | undefined> {
  const escape = await linkEscape(root, realRoot, path);
  if (escape) {
    if ('error' in escape) throw new Error(`the folder of "${path}" could not be checked (${escape.error})`);
    return escape.link;
  }
  await fsp.unlink(join(root, path)).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  return undefined;
}

async function deepestExistingFolder(root: string, path: string): Promise<string> {
  const parts = path.split('/').slice(0, -1);
  while (parts.length) {
    const look = await lstatOrError(join(root, ...parts));
    if ('stats' in look && look.stats.isDirectory()) return parts.join('/');
    parts.pop();
  }
  return '';
}

async function lstatOrError(abs: string): Promise<{ stats: Stats } | { error: NodeJS.ErrnoException }> {
  try {
    return { stats: await fsp.lstat(abs) };
  } catch (err) {
    return { error: err as NodeJS.ErrnoException };
  }
}

function statSignature(stats: Stats): string {
  return `size:${stats.size}:mtime:${Math.round(stats.mtimeMs)}`;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** "1.5 MB", "200 MB", "812 bytes" (MB = 1024 × 1024 bytes). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} byte${n === 1 ? '' : 's'}`;
  if (n < 1024 * 1024) return `${Number((n / 1024).toFixed(1))} KB`;
  return `${Number((n / (1024 * 1024)).toFixed(1))} MB`;
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
