/**
 * The policy's {@link RealPath} port on Node: where a path leads on disk, every link resolved — a link whose target
 * does not exist (yet) included, since writing through it creates the target. Synchronous, as the policy's verdict
 * is (a few `realpath` and `lstat` calls per path argument a rule tests).
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { RealPath } from '../core/policy/workspacePath';

/** More links than this in a chain: the disk cannot tell (a loop). */
const MAX_HOPS = 40;

/** The real path of `path`, undefined when nothing is there; throws when it cannot tell (permissions, a loop). */
export const nodeRealPath: RealPath = (path) => realPathOf(path, 0);

function realPathOf(path: string, hops: number): string | undefined {
  let stats;
  try {
    stats = lstatSync(path, { throwIfNoEntry: false }); // most paths a rule tests are new files: no exception for them
  } catch (err) {
    if (missing(err)) return undefined;
    throw err;
  }
  if (stats === undefined) return undefined;
  if (!stats.isSymbolicLink()) return realpathSync.native(path);
  try {
    return realpathSync.native(path);
  } catch (err) {
    if (!missing(err)) throw err;
  }
  // A link whose target is missing: where it leads.
  if (hops >= MAX_HOPS) throw new Error(`${path}: too many links`);
  const target = resolve(dirname(path), readlinkSync(path));
  const real = realPathOf(target, hops + 1);
  if (real !== undefined) return real;
  const parent = realPathOf(dirname(target), hops + 1);
  return parent === undefined ? target : join(parent, basename(target));
}

function missing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
