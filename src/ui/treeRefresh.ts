/**
 * A tree view's refresh that keeps its rows. VS Code finds the row an inline action (a button on a row: Stop, Restart,
 * Export, Submit…) was clicked on by its element, and forgets every element while the whole tree refreshes, until it has
 * asked for the rows again: an action clicked then reached its command without its row (which asked "pick a server",
 * or said "pick a plan to export", or did nothing). So a change that leaves the top rows of a tree as they were
 * refreshes those rows, each with what is under it; only a change of the top rows themselves refreshes the whole tree.
 * The rows must be the same elements each time (strings, or objects kept for as long as they are listed).
 * No `vscode` at run time (test/unit/treeRefresh.test.ts drives this file).
 */
import type { TreeItem } from 'vscode';

export class TopRows<T> {
  /** The top rows last handed to the tree, as text; undefined before the tree asked for them. */
  private shown: string | undefined;
  /** What each row showed when last handed to the tree or refreshed, as text, by its key (with a `look` only). */
  private looks = new Map<string, string>();

  /**
   * `keyOf`: what tells a row apart, as JSON (a string element is its own key). `look`: what a row shows, everything
   * under it included (see {@link itemLook}); with one, a refresh names only the rows whose look changed. A refreshed
   * row lets go of its command's arguments until the window has drawn it again, so a click on it in between runs the
   * command without them (a staged form's row clicked while servers started opened nothing): a row that shows what it
   * showed is not refreshed.
   */
  constructor(
    private readonly keyOf: (row: T) => unknown = (row) => row,
    private readonly look?: (row: T) => unknown,
  ) {}

  /** Notes the top rows handed to the tree; returns them. */
  show(rows: T[]): T[] {
    this.shown = this.key(rows);
    const look = this.look;
    if (look) this.looks = new Map(rows.map((r) => [JSON.stringify(this.keyOf(r)), JSON.stringify(look(r))]));
    return rows;
  }

  /**
   * What to refresh after a change, given the top rows now: those rows when they are the ones the tree shows (with a
   * `look`, those of them whose look changed: none, when nothing shown changed); undefined (the whole tree) when they
   * differ, or before the tree has asked for any.
   */
  refresh(rows: T[]): T[] | undefined {
    if (this.shown === undefined || this.key(rows) !== this.shown) return undefined;
    const look = this.look;
    if (!look) return rows;
    return rows.filter((row) => {
      const key = JSON.stringify(this.keyOf(row));
      const now = JSON.stringify(look(row));
      if (this.looks.get(key) === now) return false;
      this.looks.set(key, now);
      return true;
    });
  }

  private key(rows: T[]): string {
    return JSON.stringify(rows.map(this.keyOf));
  }
}

/** The parts of a tree item a user sees or acts on, for a `look` (label, description, tooltip, icon, actions, state). */
export function itemLook(item: TreeItem): unknown[] {
  const tooltip = typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value;
  const icon = item.iconPath as { id?: unknown; color?: { id?: unknown } } | undefined;
  const label = typeof item.label === 'string' ? item.label : item.label?.label;
  return [label, item.description, tooltip, icon?.id, icon?.color?.id, item.contextValue, item.collapsibleState, item.command?.command];
}

/** A row's look with everything under it: the items of the row and of its children, as a tree draws them. */
export function lookWithChildren<T>(tree: { getChildren(row: T): T[]; getTreeItem(row: T): TreeItem }, row: T): unknown[] {
  return [row, ...tree.getChildren(row)].map((node) => itemLook(tree.getTreeItem(node)));
}

/** A refresh of `rows` (undefined: the whole tree) fired unless it names no row. */
export function fireRefresh<T>(emitter: { fire(rows: T[] | undefined): void }, rows: T[] | undefined): void {
  if (rows === undefined || rows.length > 0) emitter.fire(rows);
}
