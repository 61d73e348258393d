/**
 * `safety.touches_files` glob semantics, documented for server authors:
 * - globs are relative to the (first) workspace folder, with `/` as separator; `\` is read as `/`;
 * - picomatch syntax: `*` within a path segment, `**` across segments, `{a,b}`, `[abc]`, `?`; dotfiles match;
 * - a plain path (no glob characters) matches that file, or everything below it when it names a folder;
 * - an absolute path (`/x`, `C:\x`, `~/x`) or a glob with a `..` segment reaches outside the workspace: it is
 *   flagged and matches nothing in it.
 */
import picomatch from 'picomatch';

export function normaliseGlob(glob: string): string {
  let g = glob.trim().replace(/\\/g, '/');
  while (g.startsWith('./')) g = g.slice(2);
  return g;
}

/** The glob names a place outside the workspace (absolute, home-relative, or climbing with `..`). */
export function isOutsideWorkspace(glob: string): boolean {
  const g = normaliseGlob(glob);
  return g.startsWith('/') || g.startsWith('~') || /^[A-Za-z]:/.test(g) || g.split('/').includes('..');
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
