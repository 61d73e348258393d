/**
 * A tree view's refresh that keeps its rows. VS Code finds the row an inline action (a button on a row: Stop, Restart,
 * Export, Submit…) was clicked on by its element, and forgets every element while the whole tree refreshes, until it has
 * asked for the rows again: an action clicked then reached its command without its row (which asked "pick a server",
 * or said "pick a plan to export", or did nothing). So a change that leaves the top rows of a tree as they were
 * refreshes those rows, each with what is under it; only a change of the top rows themselves refreshes the whole tree.
 * The rows must be the same elements each time (strings, or objects kept for as long as they are listed).
 * No `vscode` at run time (test/unit/treeRefresh.test.ts drives this file).
 */
export class TopRows<T> {
  /** The top rows last handed to the tree, as text; undefined before the tree asked for them. */
  private shown: string | undefined;

  /** `keyOf`: what tells a row apart, as JSON (a string element is its own key). */
  constructor(private readonly keyOf: (row: T) => unknown = (row) => row) {}

  /** Notes the top rows handed to the tree; returns them. */
  show(rows: T[]): T[] {
    this.shown = this.key(rows);
    return rows;
  }

  /**
   * What to refresh after a change, given the top rows now: those rows when they are the ones the tree shows;
   * undefined (the whole tree) when they differ, or before the tree has asked for any.
   */
  refresh(rows: T[]): T[] | undefined {
    return this.shown !== undefined && this.key(rows) === this.shown ? rows : undefined;
  }

  private key(rows: T[]): string {
    return JSON.stringify(rows.map(this.keyOf));
  }
}
