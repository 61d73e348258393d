import * as vscode from 'vscode';
import type { Workflow } from '../core/workflow/ledger';
import { Settings } from './constants';

export const DEMO_SERVER = 'plangate-demo';

/**
 * Adds the bundled demo server (dist/fixtureServer.js) to the workspace's `plangate.servers` setting. It runs on
 * the Node inside VS Code itself (ELECTRON_RUN_AS_NODE), so it starts even where no `node` is on PATH.
 */
export async function addDemoServer(extensionUri: vscode.Uri): Promise<void> {
  if (!vscode.workspace.workspaceFolders?.length) {
    void vscode.window.showWarningMessage('Plangate: open a folder first; the demo server writes its files there.');
    return;
  }
  const config = vscode.workspace.getConfiguration(Settings.section);
  const current = config.inspect<Record<string, unknown>>(Settings.servers)?.workspaceValue ?? {};
  const script = vscode.Uri.joinPath(extensionUri, 'dist', 'fixtureServer.js').fsPath;
  await config.update(
    Settings.servers,
    {
      ...current,
      [DEMO_SERVER]: {
        type: 'stdio',
        command: process.execPath,
        args: [script, '--demo', '--root', '${workspaceFolder}'],
        env: { ELECTRON_RUN_AS_NODE: '1' },
      },
    },
    vscode.ConfigurationTarget.Workspace,
  );
  void vscode.window
    .showInformationMessage(
      `Plangate: the demo server "${DEMO_SERVER}" is configured. Next: Plangate: Call Tool… → plan_scaffold.`,
      'Call Tool…',
    )
    .then((choice) => choice && vscode.commands.executeCommand('plangate.callTool'));
}

/** Keeps the `plangate.hasApprovedPlan` context key (the walkthrough's "approve" step) in step with the ledger. */
export function trackApprovals(workflow: Workflow): vscode.Disposable {
  let known = false;
  const update = () => {
    const approved = Object.values(workflow.state.plans).some((p) => p.approvedAt !== undefined);
    if (approved !== known) {
      known = approved;
      void vscode.commands.executeCommand('setContext', 'plangate.hasApprovedPlan', approved);
    }
  };
  update();
  return workflow.onDidChange(update);
}
