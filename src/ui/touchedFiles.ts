import * as vscode from 'vscode';
import picomatch from 'picomatch';
import { globOutsideReason, normaliseGlob } from '../core/base/globs';
import type { TouchedGlobView } from '../shared/protocol/files';

const LIST_CAP = 50;
const COUNT_CAP = 10_000;

/**
 * Resolves `safety.touches_files` globs in the first workspace folder with VS Code's file search (so
 * `files.exclude` applies and large workspaces stay fast), caching per plan. Semantics: see core/base/globs.ts.
 */
export class TouchedFiles {
  private readonly cache = new Map<string, { views: Promise<TouchedGlobView[]>; cts: vscode.CancellationTokenSource }>();

  /** Resolves a plan's globs once (cached); {@link forget} cancels a search still running. */
  resolve(planId: string, globs: readonly string[]): Promise<TouchedGlobView[]> {
    let entry = this.cache.get(planId);
    if (!entry) {
      const cts = new vscode.CancellationTokenSource();
      entry = { views: resolveGlobs(globs, cts.token), cts };
      this.cache.set(planId, entry);
    }
    return entry.views;
  }

  /** Drops the cached counts (they are stale after a run) and cancels a search still going on. */
  forget(planId: string): void {
    const entry = this.cache.get(planId);
    entry?.cts.cancel();
    entry?.cts.dispose();
    this.cache.delete(planId);
  }
}

/** `files.exclude` and `search.exclude` of the folder as one glob (findFiles applies only files.exclude by itself). */
function excludes(folder: vscode.WorkspaceFolder): string | undefined {
  const on = (section: string) =>
    Object.entries(vscode.workspace.getConfiguration(section, folder.uri).get<Record<string, unknown>>('exclude') ?? {})
      .filter(([, v]) => v === true)
      .map(([k]) => k);
  const all = [...new Set([...on('files'), ...on('search')])];
  return all.length ? `{${all.join(',')}}` : undefined;
}

export async function resolveGlobs(globs: readonly string[], token?: vscode.CancellationToken): Promise<TouchedGlobView[]> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return Promise.all(
    globs.map(async (raw): Promise<TouchedGlobView> => {
      const glob = normaliseGlob(raw);
      const outside = globOutsideReason(raw);
      if (outside) return { glob: raw, files: [], count: 0, outside: true, note: `${outside}; not searched` };
      if (!folder) return { glob: raw, files: [], count: 0, outside: false, note: 'no workspace folder is open' };
      const pattern = picomatch.scan(glob).isGlob ? glob : `{${glob},${glob.replace(/\/$/, '')}/**}`;
      try {
        const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, pattern), excludes(folder), COUNT_CAP, token);
        const files = uris.map((u) => vscode.workspace.asRelativePath(u, false)).sort();
        return {
          glob: raw,
          files: files.slice(0, LIST_CAP),
          count: files.length,
          outside: false,
          note: files.length >= COUNT_CAP ? `stopped counting at ${COUNT_CAP}` : undefined,
        };
      } catch (err) {
        return {
          glob: raw,
          files: [],
          count: 0,
          outside: false,
          note: `could not search: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
    }),
  );
}
