/**
 * A checkpoint as the files engine sees it: what node/checkpoint.ts records of every file a plan may touch before its
 * first step (the bytes live in its store), and what a revert of one file came to. Types only: the store that reads
 * and writes checkpoints is a port (see engine.ts), node/checkpoint.ts on disk.
 */
import type { CheckpointFileState } from './changes';

export const CHECKPOINT_VERSION = 1;

export interface CheckpointLimits {
  maxFileBytes?: number;
  maxTotalBytes?: number;
}

/**
 * What the checkpoint holds of one file:
 * - `stored`: it existed; its bytes are in the checkpoint (revertable);
 * - `absent`: it did not exist (revert removes it);
 * - `tooLarge` / `overBudget`: it existed but was not copied (not revertable; changes still detected);
 * - `unreadable`: it could not be read (permissions, …); `notAFile`: a folder, a symbolic link or a special file;
 * - `invalidPath`: the path is not inside the workspace; it was not looked at;
 * - `notCaptured`: added when sealing: the plan changed or deleted it but it was not among the touched files.
 */
export type CheckpointEntryStatus =
  'stored' | 'absent' | 'tooLarge' | 'overBudget' | 'unreadable' | 'notAFile' | 'invalidPath' | 'notCaptured';

export interface CheckpointEntry extends CheckpointFileState {
  status: CheckpointEntryStatus;
  /** sha256 (hex) of the bytes; for `tooLarge` a `size:<n>:mtime:<ms>` signature; for links `symlink:<target>`. */
  hash?: string;
  size?: number;
  /** Permission bits, restored on revert. */
  mode?: number;
  /** For `absent`: the deepest existing folder above it (workspace-relative, `""` = the root). Revert removes the
   * folders the plan created below it when they are empty. */
  existingAncestor?: string;
  /** Why the file is not revertable, in words (every status except `stored` and `absent`). */
  note?: string;
  /** The watcher saw it change during the run (set when sealing for files not captured before). */
  changedDuringRun?: boolean;
  /** What the plan left, recorded by {@link sealCheckpoint}. */
  after?: { existed: boolean; hash?: string };
}

export interface Checkpoint {
  version: typeof CHECKPOINT_VERSION;
  planId: string;
  /** Absolute workspace folder the paths are relative to. */
  workspaceRoot: string;
  /** Absolute folder holding this checkpoint (not stored: derived from where it was read). */
  dir: string;
  createdAt: number;
  /** Set by {@link sealCheckpoint}. */
  sealedAt?: number;
  limits: Required<CheckpointLimits>;
  /** Bytes copied into the checkpoint (each distinct content once). */
  storedBytes: number;
  entries: CheckpointEntry[];
}

export type RevertConflict = 'modified since the plan' | 'not sealed';

export type RevertResult =
  | {
      ok: true;
      path: string;
      /** `restored`: bytes written back; `removed`: a file the plan created was deleted;
       * `unchanged`: it already matches the checkpoint. */ action: 'restored' | 'removed' | 'unchanged';
    }
  | { ok: false; path: string; conflict: RevertConflict; message: string }
  | { ok: false; path: string; error: string };

export interface RevertOptions {
  /** Revert even when the file changed after the plan (overwrites those edits). */
  force?: boolean;
  /** Only report what would happen; change nothing. */
  dryRun?: boolean;
}
