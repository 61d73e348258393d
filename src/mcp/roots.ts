/**
 * The roots Plangate offers servers (MCP `roots`): the folders a server may work in, as `file://` URIs. The extension
 * offers the workspace folders — and none while the workspace is not trusted (Restricted Mode) — and says when they
 * change; the CLI offers its current directory or its `--root` folders. A server asks with `roots/list`.
 */
import { pathToFileURL } from 'node:url';
import type { Event } from '../core/base/lifecycle';

/** One root as the protocol sends it. */
export interface McpRoot {
  /** A `file://` URI. */
  uri: string;
  /** What the folder is called (the workspace folder's name). */
  name?: string;
}

/** Where a connection learns its roots: given to every connection, read at each `roots/list`. */
export interface RootsSource {
  /** The roots now. Empty: none (the server learns that there are none). */
  roots(): readonly McpRoot[];
  /** Fires when the roots may have changed (folders added or removed, trust granted): servers get `roots/list_changed`. */
  readonly onDidChange?: Event<void>;
}

/** A workspace folder as the editor gives it: its URI (any scheme) and name. */
export interface WorkspaceFolderLike {
  uri: string;
  name: string;
}

/**
 * The workspace's roots: its `file:` folders when the workspace is trusted, and none when it is not — an untrusted
 * folder is not handed to servers as a place to work. Folders of other schemes (a virtual or remote file system) are
 * not on this machine's disk, so they are left out.
 */
export function workspaceRoots(folders: readonly WorkspaceFolderLike[] | undefined, trusted: boolean): McpRoot[] {
  if (!trusted || !folders) return [];
  return folders.filter((f) => f.uri.startsWith('file:')).map((f) => ({ uri: f.uri, name: f.name }));
}

/** Fixed roots for the CLI: each directory (absolute or relative to the current one) as a `file://` URI. */
export function directoryRoots(dirs: readonly string[]): RootsSource {
  const roots = dirs.map((dir) => {
    const uri = pathToFileURL(dir).href;
    return { uri, name: decodeURIComponent(uri.replace(/\/+$/, '').split('/').at(-1) ?? dir) };
  });
  return { roots: () => roots };
}
