/**
 * The rows of the Servers tree. A server's row is the same object for as long as the server is listed, so VS Code can
 * refresh it alone when the server changes (see treeRefresh.ts: a refresh of the whole tree makes VS Code forget which
 * row an inline action — Stop, Start, Restart, Sign in — was clicked on, and the action then asked "pick a server").
 * No `vscode` at run time (serversView.ts draws the rows; test/unit/treeRefresh.test.ts drives this file).
 */
import { TopRows } from './treeRefresh';

/** A node of the Servers tree. */
export type ServerNode =
  | { kind: 'server'; name: string }
  | { kind: 'tool'; server: string; tool: string }
  | { kind: 'problem'; text: string; detail?: string }
  | { kind: 'issue'; server: string; message: string; untrusted: boolean; reasons: string[] };

type ServerRow = Extract<ServerNode, { kind: 'server' }>;
type IssueRow = Extract<ServerNode, { kind: 'issue' }>;

/** What the tree's top level shows: configuration problems, then the servers, then servers that could not start. */
export interface ServerTop {
  problems: readonly string[];
  servers: readonly string[];
  issues: readonly Omit<IssueRow, 'kind'>[];
}

export class ServerRows {
  private readonly servers = new Map<string, ServerRow>();
  private readonly shown: TopRows<ServerNode>;

  /** `look`: what a row shows, its tools included (see treeRefresh.ts); with one, only rows that changed are refreshed. */
  constructor(look?: (row: ServerNode) => unknown) {
    this.shown = new TopRows<ServerNode>((row) => row, look);
  }

  /** The top rows, each server's row the same object as last time. */
  top(top: ServerTop): ServerNode[] {
    const listed = new Set(top.servers);
    for (const name of this.servers.keys()) if (!listed.has(name)) this.servers.delete(name);
    return this.shown.show(this.rows(top));
  }

  /**
   * What to refresh after a change: the server rows (their state, message and tools; with a look, those of them that
   * show something new) when the top rows are the ones shown; undefined (the whole tree) when they differ, or before
   * the tree has shown any.
   */
  changed(top: ServerTop): ServerNode[] | undefined {
    return this.shown.refresh(this.rows(top))?.filter((r) => r.kind === 'server');
  }

  private rows(top: ServerTop): ServerNode[] {
    return [
      ...top.problems.map((text): ServerNode => ({ kind: 'problem', text })),
      ...top.servers.map((name) => this.row(name)),
      ...top.issues.map((i): ServerNode => ({ kind: 'issue', ...i })),
    ];
  }

  private row(name: string): ServerRow {
    let row = this.servers.get(name);
    if (!row) {
      row = { kind: 'server', name };
      this.servers.set(name, row);
    }
    return row;
  }
}
