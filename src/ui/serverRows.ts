/**
 * The rows of the Servers tree, kept as stable objects. VS Code finds the row an inline action (Stop, Start, Restart,
 * Sign in…) belongs to by its element object, and a refresh of the whole tree forgets every element until the tree
 * asks for its rows again: an action clicked in between reached its command without its row, which then asked
 * "pick a server". So a server row is the same object for as long as the server is listed, and a change that leaves
 * the list of rows as it was refreshes those rows alone; only a change of the list itself refreshes the whole tree.
 * No `vscode` at run time (serversView.ts draws the rows; test/unit/serverRows.test.ts drives this file).
 */

/** A node of the Servers tree. */
export type ServerNode =
  | { kind: 'server'; name: string }
  | { kind: 'tool'; server: string; tool: string }
  | { kind: 'problem'; text: string; detail?: string }
  | { kind: 'issue'; server: string; message: string; untrusted: boolean; reasons: string[] };

type ServerRow = Extract<ServerNode, { kind: 'server' }>;
type IssueRow = Extract<ServerNode, { kind: 'issue' }>;

/** What the tree's top level shows: configuration problems, then the servers, then servers that could not start. */
export interface TopRows {
  problems: readonly string[];
  servers: readonly string[];
  issues: readonly Omit<IssueRow, 'kind'>[];
}

export class ServerRows {
  private readonly servers = new Map<string, ServerRow>();
  /** The top rows last handed to the tree, as text; undefined before the tree asked for them. */
  private shown: string | undefined;

  /** The top rows, each server's row the same object as last time. */
  top(rows: TopRows): ServerNode[] {
    const listed = new Set(rows.servers);
    for (const name of this.servers.keys()) if (!listed.has(name)) this.servers.delete(name);
    this.shown = keyOf(rows);
    return [
      ...rows.problems.map((text): ServerNode => ({ kind: 'problem', text })),
      ...rows.servers.map((name) => this.row(name)),
      ...rows.issues.map((i): ServerNode => ({ kind: 'issue', ...i })),
    ];
  }

  /**
   * What to refresh after a change, given the top rows now: the server rows (their state, message and tools) when the
   * top rows are the ones shown; undefined (the whole tree) when they differ, or before the tree has shown any.
   */
  changed(rows: TopRows): ServerNode[] | undefined {
    if (this.shown === undefined || keyOf(rows) !== this.shown) return undefined;
    return [...this.servers.values()];
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

function keyOf(rows: TopRows): string {
  return JSON.stringify([rows.problems, rows.servers, rows.issues.map((i) => [i.server, i.message, i.untrusted, i.reasons])]);
}
