/**
 * Files Plangate writes for itself — the ledger, checkpoint copies and their manifest, the CLI's token store — hold
 * arguments, answers, copies of the user's files and tokens: readable by the user only, and never written through a
 * link planted at their name or beside them.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';

/** The mode of a file Plangate writes for itself. */
export const PRIVATE_FILE = 0o600;
/** The mode of a folder Plangate creates for its own files. */
export const PRIVATE_FOLDER = 0o700;
/** `O_NOFOLLOW` where the platform has it (not on Windows, which has no such links to follow here). */
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Open flags for a new file: created exclusively (never an existing file or link at its name), write-only. */
export const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;

/**
 * Replaces `file` with `data`: written to a new sibling under a random name (created exclusively, never through a
 * link, mode 0600), then renamed over `file`, so a reader never sees half of it and a crash leaves the old one. The
 * sibling is removed when anything fails. The folder must exist.
 */
export async function writePrivateFile(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${randomBytes(8).toString('hex')}.plangate-tmp`;
  try {
    const handle = await open(tmp, CREATE_NEW, PRIVATE_FILE);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}
