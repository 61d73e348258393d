/**
 * An argument value read as a path, resolved against the workspace folder, for the policy's argument conditions:
 * inside (with its workspace-relative form) or outside. Conservative like core/globs.ts: a path any plausible reader
 * could take elsewhere (a URL, `~`, a shell variable, percent-encoding, …; see {@link pathTrap}) is outside. Pure
 * string work, POSIX and Windows forms alike.
 */
import { pathTrap } from '../globs';

export interface ResolvedArgPath {
  outside: boolean;
  /** `/`-separated, `.` and `..` resolved: absolute when the value was absolute or joined to the root. */
  normalised: string;
  /** Relative to the workspace folder (`''` for the folder itself); meaningful only when inside. */
  relative: string;
}

/** Resolves `value` against `root` (absolute). Without a root every path is outside. */
export function resolveArgPath(value: string, root: string | undefined): ResolvedArgPath {
  const raw = value.trim().replace(/\\/g, '/');
  if (pathTrap(value) !== undefined || raw === '') return { outside: true, normalised: raw, relative: raw };
  const absolute = raw.startsWith('/') || /^[A-Za-z]:\//.test(raw);
  const base = root === undefined ? undefined : root.replace(/\\/g, '/').replace(/\/+$/, '');
  if (base === undefined) return { outside: true, normalised: normalise(raw) ?? raw, relative: raw };
  const joined = absolute ? raw : `${base}/${raw}`;
  const normalised = normalise(joined);
  if (normalised === undefined) return { outside: true, normalised: joined, relative: raw };
  const windows = /^[A-Za-z]:/.test(base);
  const a = windows ? normalised.toLowerCase() : normalised;
  const b = windows ? base.toLowerCase() : base;
  if (a === b) return { outside: false, normalised, relative: '' };
  if (a.startsWith(`${b}/`)) return { outside: false, normalised, relative: normalised.slice(base.length + 1) };
  return { outside: true, normalised, relative: raw };
}

/** `.` and `..` segments resolved, repeated `/` folded; undefined when `..` climbs above the root of the path. */
function normalise(path: string): string | undefined {
  const lead = path.match(/^([A-Za-z]:)?\//)?.[0] ?? '';
  const out: string[] = [];
  for (const seg of path.slice(lead.length).split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(seg);
  }
  return lead + out.join('/');
}
