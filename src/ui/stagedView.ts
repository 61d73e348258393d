import * as vscode from 'vscode';
import { DisposableBase, Emitter } from '../core/lifecycle';

/**
 * The Staged view: collect-mode submissions staged for review. Until collect mode lands it lists nothing and
 * its welcome text explains what will appear.
 */
export class StagedView extends DisposableBase implements vscode.TreeDataProvider<string> {
  private readonly _onDidChangeTreeData = this._register(new Emitter<string | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event as vscode.Event<string | undefined>;

  getChildren(): string[] {
    return [];
  }

  getTreeItem(id: string): vscode.TreeItem {
    return new vscode.TreeItem(id);
  }
}
