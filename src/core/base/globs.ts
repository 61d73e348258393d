/**
 * `safety.touches_files` glob semantics, documented for server authors:
 * - globs are relative to the (first) workspace folder, with `/` as separator; `\` is read as `/`;
 * - picomatch syntax: `*` within a path segment, `**` across segments, `{a,b}`, `[abc]`, `?`; dotfiles match;
 * - a plain path (no glob characters) matches that file, or everything below it when it names a folder;
 * - an absolute path (`/x`, `C:\x`, `\\server\share`, `~/x`), a URL (`file:///x`), a glob with a `..` segment (also
 *   inside `{a,..}`), or one a tool or shell could read as another place (see {@link pathTrap}) reaches outside the
 *   workspace: it is flagged and matches nothing in it.
 */
import picomatch from 'picomatch';

export function normaliseGlob(glob: string): string {
  let g = glob.trim().replace(/\\/g, '/');
  while (g.startsWith('./')) g = g.slice(2);
  return g;
}

/** Characters that give a path its structure (where it goes), as opposed to naming a file. */
const STRUCTURAL = /[./\\:~%$]/g;

/**
 * Why `path` (a glob or a step's path argument, as given) may name a place outside the workspace although it is not
 * plainly absolute or climbing with `..`: the ways a tool, a shell, a URL parser or Windows would read it as another
 * place. Undefined when none applies. Conservative: a path is trapped when any plausible reader could take it
 * elsewhere, even if most would not (a false alarm leaves a file out of the checkpoint and flags it; a miss lets a
 * write outside pass as inside). Plain absolute paths (`/x`, `C:\x`, UNC) and `..` are left to the caller, which
 * knows whether they land inside a workspace folder.
 */
export function pathTrap(path: unknown): string | undefined {
  if (typeof path !== 'string') return 'it is not a text path';
  const p = path.trim();
  if (/[\u0000-\u001f\u007f-\u009f]/.test(p)) return 'it contains control characters (such as NUL), which can cut a path short';
  const s = p.replace(/\\/g, '/');
  if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(s)) return `it is a URL (${s.slice(0, s.indexOf(':') + 1)}), not a path relative to the workspace`;
  if (/^[A-Za-z]:(?!\/)/.test(s)) return `it is relative to the current folder of drive ${s.slice(0, 2)}, not to the workspace`;
  if (s.startsWith('~')) return 'it is in a home directory (~), outside the workspace';
  if (/%[A-Za-z_][A-Za-z0-9_()]*%/.test(s)) return 'it names an environment variable (%…%), which can point anywhere';
  if (s.startsWith('$') || /\$[{(]|`/.test(s)) return 'it names a shell variable or command ($…), which can point anywhere';
  if (/%(2e|2f|5c|3a|7e|25|24|60|[01][0-9a-f]|7f|[89a-f][0-9a-f])|%u[0-9a-f]{4}/i.test(s)) {
    return 'it holds a percent-encoded ".", "/", "\\", "%" or other special byte (%2e%2e/ reads as ../ to a tool that decodes it)';
  }
  if (s.split('/').some((seg) => seg !== '..' && seg !== '.' && /^[.\s]+$/.test(seg) && seg.includes('.'))) {
    return 'it has a segment of dots and spaces, which Windows can read as ".." (it drops trailing dots and spaces)';
  }
  const nfkc = s.normalize('NFKC');
  if (nfkc !== s && (nfkc.match(STRUCTURAL)?.length ?? 0) !== (s.match(STRUCTURAL)?.length ?? 0)) {
    return 'it holds characters that read as ".", "/", ":" or "~" once Unicode-normalised';
  }
  return undefined;
}

/** Why the glob names a place outside the workspace (in words), or undefined when it stays inside. */
export function globOutsideReason(glob: unknown): string | undefined {
  if (typeof glob !== 'string') return 'it is not a text glob';
  const trap = pathTrap(glob);
  if (trap) return trap;
  const g = normaliseGlob(glob);
  if (g.startsWith('/')) return g.startsWith('//') ? 'it is a network (UNC) or device path' : 'it is an absolute path';
  if (/^[A-Za-z]:/.test(g)) return `it is an absolute path on drive ${g.slice(0, 2)}`;
  if (/[{,|(]\s*(\/|~|[A-Za-z]:)/.test(g)) return 'one of its alternatives is an absolute or home path';
  // `..` as a segment, also as an alternative of `{a,..}` or an extglob `@(..)`.
  if (/(^|[/{,|(])\.\.(?=$|[/},|)])/.test(g)) return 'it climbs out of the workspace with ".."';
  return undefined;
}

/** The glob names a place outside the workspace (absolute, home-relative, a URL, climbing with `..`, …). */
export function isOutsideWorkspace(glob: string): boolean {
  return globOutsideReason(glob) !== undefined;
}

/** A matcher over workspace-relative paths (`/`-separated) for a list of globs; outside globs match nothing. */
export function globMatcher(globs: readonly string[]): (relativePath: string) => boolean {
  const inside = globs.map(normaliseGlob).filter((g) => g && !isOutsideWorkspace(g));
  if (inside.length === 0) return () => false;
  const patterns = inside.flatMap((g) => (picomatch.scan(g).isGlob ? [g] : [g, `${g.replace(/\/$/, '')}/**`]));
  return picomatch(patterns, { dot: true });
}

/** Which glob of the list matches the path first, or undefined. */
export function firstMatchingGlob(globs: readonly string[], relativePath: string): string | undefined {
  return globs.find((g) => globMatcher([g])(relativePath));
}
