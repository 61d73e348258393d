/**
 * The roots the extension's connections offer servers (MCP `roots`): the workspace's folders while the workspace is
 * trusted, none in Restricted Mode (src/mcp/roots.ts decides), and a change event when folders come or go or trust is
 * granted, so that running servers get `notifications/roots/list_changed`.
 */
import * as vscode from 'vscode';
import { workspaceRoots, type RootsSource } from '../mcp/roots';

export function workspaceRootsSource(): RootsSource & vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  const subscriptions = [
    changed,
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
  ];
  return {
    roots: () =>
      workspaceRoots(
        vscode.workspace.workspaceFolders?.map((f) => ({ uri: f.uri.toString(), name: f.name })),
        vscode.workspace.isTrusted,
      ),
    onDidChange: changed.event,
    dispose: () => subscriptions.forEach((s) => s.dispose()),
  };
}
