/**
 * An argument value read as a path, resolved against the workspace folder, for the policy's argument conditions:
 * inside (with its workspace-relative form) or outside. Conservative like core/base/globs.ts: a path any plausible reader
 * could take elsewhere (a URL, `~`, a shell variable, percent-encoding, …; see {@link pathTrap}) is outside. The path is
 * read twice: as written (string work, POSIX and Windows forms alike) and, given a {@link RealPath} port, as the file
 * system reads it — the real path of its longest existing prefix with the rest appended — so `docs/authorized_keys`,
 * with `docs` a link to `~/.ssh`, is outside. It is outside when either reading is (or when the disk cannot tell).
 * Pure: the disk is reached only through the port.
 */
import { pathTrap } from '../base/globs';

/**
 * The real path of an existing file or folder (every link resolved), or undefined when nothing is there. Throws when it
 * cannot tell (permission denied, a link loop, …): the path is then taken as outside. The CLI and the extension pass
 * src/node/realPath.ts; without one, paths are read as written.
 */
export type RealPath = (path: string) => string | undefined;

export interface ResolvedArgPath {
  outside: boolean;
  /** `/`-separated, `.` and `..` resolved: absolute when the value was absolute or joined to the root. */
  normalised: string;
  /** Relative to the workspace folder (`''` for the folder itself); meaningful only when inside. */
  relative: string;
  /**
   * The forms a `glob` is tested on: the path as written (relative when inside, else absolute) and, when it differs,
   * where it leads on disk (relative to the folder's real path when inside it, else the real absolute path).
   */
  forms: string[];
}

/** Resolves `value` against `root` (absolute). Without a root every path is outside. */
export function resolveArgPath(value: string, root: string | undefined, realPath?: RealPath): ResolvedArgPath {
  const written = resolveWritten(value, root);
  if (!realPath || root === undefined || written.trap) return written.path;
  const raw = value.trim().replace(/\\/g, '/');
  const base = root.replace(/\\/g, '/').replace(/\/+$/, '');
  const absolute = raw.startsWith('/') || /^[A-Za-z]:\//.test(raw);
  let real: { root: string; path: string } | undefined;
  try {
    real = { root: onDisk(base, realPath) ?? base, path: onDisk(absolute ? raw : `${base}/${raw}`, realPath) ?? '' };
  } catch {
    real = undefined; // the disk cannot tell where it leads
  }
  const path = written.path;
  if (!real || real.path === '') return { ...path, outside: true };
  const inside = within(real.path, real.root);
  const form = inside === undefined ? real.path : inside;
  return {
    ...path,
    outside: path.outside || inside === undefined,
    forms: path.forms.includes(form) ? path.forms : [...path.forms, form],
  };
}

/** The path as written, string work only; `trap` when it is outside whatever the disk says. */
function resolveWritten(value: string, root: string | undefined): { path: ResolvedArgPath; trap: boolean } {
  const raw = value.trim().replace(/\\/g, '/');
  const out = (normalised: string, relative: string, trap = false) => ({
    path: { outside: true, normalised, relative, forms: [normalised] },
    trap,
  });
  if (pathTrap(value) !== undefined || raw === '') return out(raw, raw, true);
  const absolute = raw.startsWith('/') || /^[A-Za-z]:\//.test(raw);
  const base = root === undefined ? undefined : root.replace(/\\/g, '/').replace(/\/+$/, '');
  if (base === undefined) return out(normalise(raw) ?? raw, raw);
  const joined = absolute ? raw : `${base}/${raw}`;
  const normalised = normalise(joined);
  if (normalised === undefined) return out(joined, raw);
  const relative = within(normalised, base);
  if (relative === undefined) return out(normalised, raw);
  return { path: { outside: false, normalised, relative, forms: [relative] }, trap: false };
}

/** `path` relative to `base` when it lies inside it (`''` for the folder itself), else undefined. Both normalised. */
function within(path: string, base: string): string | undefined {
  const windows = /^[A-Za-z]:/.test(base);
  const a = windows ? path.toLowerCase() : path;
  const b = windows ? base.toLowerCase() : base;
  if (a === b) return '';
  const prefix = b.endsWith('/') ? b : `${b}/`;
  return a.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}

/**
 * Where `path` (absolute, `/`-separated, `..` not yet resolved: after a link `..` climbs from the link's target, as
 * the file system reads it) leads on disk: the real path of its longest existing prefix, the rest appended and
 * normalised. Undefined when not even the root of the path exists; throws when the disk cannot tell.
 */
function onDisk(path: string, realPath: RealPath): string | undefined {
  const whole = realPath(path);
  if (whole !== undefined) return normalise(whole.replace(/\\/g, '/')) ?? undefined;
  const lead = path.match(/^([A-Za-z]:)?\//)?.[0] ?? '';
  const segments = path
    .slice(lead.length)
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  // Shortest first: the first prefix that is not there ends the existing part (at most its depth + 1 look-ups).
  let known: string | undefined;
  let k = 0;
  for (; k <= segments.length; k++) {
    const r = realPath(lead + segments.slice(0, k).join('/'));
    if (r === undefined) break;
    known = r.replace(/\\/g, '/');
  }
  if (known === undefined) return undefined;
  // The first k - 1 segments exist (their real path is `known`); the rest do not.
  return normalise([known.replace(/\/+$/, ''), ...segments.slice(k - 1)].join('/'));
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
