import * as vscode from 'vscode';
import type { Gate } from '../core/engine/gate';
import { callExport } from '../core/present/callRow';
import { nestedPlans } from '../core/workflow/planTree';
import type { ServerRegistry } from '../mcp/registry';
import type { AppHost } from './appHost';
import type { ToolCaller } from './callTool';
import { Commands } from './constants';
import { addDemoServer } from './demo';
import type { PlanPanel } from './planPanel';
import type { ServerConfigs } from './serverConfigs';
import type { ServerNode } from './serverRows';

export interface CommandServices {
  gate: Gate;
  registry: ServerRegistry;
  configs: ServerConfigs;
  panel: PlanPanel;
  caller: ToolCaller;
  log: vscode.LogOutputChannel;
  /** Where the bundled demo server lives (dist/fixtureServer.js). */
  extensionUri: vscode.Uri;
  /** Server apps: Reset Server App Network Access forgets their network grants. */
  apps?: Pick<AppHost, 'resetNetwork'>;
}

/** Registers every Plangate command; each is listed in package.json under the "Plangate" category. */
export function registerCommands(services: CommandServices): vscode.Disposable[] {
  const { gate, registry, configs, panel, caller, log } = services;
  const serverName = (node?: ServerNode | string): string | undefined =>
    typeof node === 'string' ? node : node?.kind === 'server' ? node.name : undefined;
  const pickServer = async (node?: ServerNode | string): Promise<string | undefined> =>
    serverName(node) ??
    (
      await vscode.window.showQuickPick(
        registry.connections.map((c): vscode.QuickPickItem => ({ label: c.name, description: c.state })),
        { title: 'Plangate: pick a server' },
      )
    )?.label;

  return [
    vscode.commands.registerCommand(Commands.callTool, (node?: ServerNode) => caller.pickAndCall(node as never)),
    vscode.commands.registerCommand(Commands.showPanel, () => panel.reveal()),
    vscode.commands.registerCommand(Commands.startServer, async (node?: ServerNode) => {
      const name = await pickServer(node);
      if (name) await registry.get(name)?.start();
    }),
    vscode.commands.registerCommand(Commands.stopServer, async (node?: ServerNode) => {
      const name = await pickServer(node);
      if (name) await registry.get(name)?.stop();
    }),
    vscode.commands.registerCommand(Commands.restartServer, async (node?: ServerNode) => {
      const name = await pickServer(node);
      if (name) await registry.get(name)?.restart();
    }),
    vscode.commands.registerCommand(Commands.refreshServers, () => configs.reload()),
    vscode.commands.registerCommand(Commands.showLog, () => log.show(true)),
    vscode.commands.registerCommand(Commands.resetAppNetwork, async () => {
      await services.apps?.resetNetwork();
      void vscode.window.showInformationMessage(
        'Plangate: server apps may reach no network origin again until you allow one on the app’s notice.',
      );
    }),
    vscode.commands.registerCommand(Commands.resetInputs, async () => {
      const n = await configs.resetInputs();
      void vscode.window.showInformationMessage(
        `Plangate: forgot ${n} stored input value${n === 1 ? '' : 's'}; servers that use them will ask again when they start.`,
      );
      await configs.reload();
    }),
    vscode.commands.registerCommand(Commands.openPlan, (planId: string) => panel.showPlan(planId, { focus: true })),
    vscode.commands.registerCommand(Commands.exportPlan, (planId?: string) => exportPlan(gate, planId)),
    vscode.commands.registerCommand(Commands.exportCalls, (element?: string) => exportCalls(gate, element)),
    vscode.commands.registerCommand(Commands.openMcpJson, () => openMcpJson()),
    vscode.commands.registerCommand(Commands.addDemoServer, () => addDemoServer(services.extensionUri)),
  ];
}

/** Saves a plan, its nested plans and their records as JSON where the user chooses. */
export async function exportPlan(gate: Gate, planId?: string): Promise<void> {
  const state = gate.workflow.state;
  const record = planId ? state.plans[planId] : undefined;
  if (!record) {
    void vscode.window.showErrorMessage('Plangate: pick a plan in the Plans view to export.');
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const target = await vscode.window.showSaveDialog({
    title: 'Export plan as JSON',
    defaultUri: folder ? vscode.Uri.joinPath(folder, `plan-${record.id}.json`) : undefined,
    filters: { JSON: ['json'] },
  });
  if (!target) return;
  const data = { exportedBy: 'Plangate', plan: record, nested: nestedPlans(state, record.id) };
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(JSON.stringify(data, null, 2)));
  void vscode.window.showInformationMessage(`Plangate: plan exported to ${vscode.workspace.asRelativePath(target)}.`);
}

/**
 * Saves single calls as JSON where the user chooses: from the Plans view's Calls group every call listed, from a call's
 * row that call; each with its decision, the deciding rule's id and reason, and its outcome.
 */
export async function exportCalls(gate: Gate, element?: string): Promise<void> {
  const recent = gate.workflow.recentCalls;
  const one = element?.startsWith('call:') ? recent.get(element.slice('call:'.length)) : undefined;
  const calls = one ? [one] : recent.list();
  if (calls.length === 0) {
    void vscode.window.showErrorMessage('Plangate: there is no call to export; calls appear in the Plans view under Calls.');
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = one ? `call-${one.callId.slice(0, 8)}.json` : `calls-${new Date().toISOString().slice(0, 10)}.json`;
  const target = await vscode.window.showSaveDialog({
    title: one ? 'Export call as JSON' : 'Export calls as JSON',
    defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
    filters: { JSON: ['json'] },
  });
  if (!target) return;
  const data = { exportedBy: 'Plangate', calls: calls.map(callExport) };
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(JSON.stringify(data, null, 2)));
  void vscode.window.showInformationMessage(
    `Plangate: ${calls.length === 1 ? 'call' : `${calls.length} calls`} exported to ${vscode.workspace.asRelativePath(target)}.`,
  );
}

async function openMcpJson(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showWarningMessage('Plangate: open a folder first; its .vscode/mcp.json lists the MCP servers.');
    return;
  }
  const uri = vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json');
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    const example =
      '{\n  // MCP servers Plangate connects to (VS Code\'s own format).\n  "servers": {\n    // "my-server": { "type": "stdio", "command": "node", "args": ["server.js"] }\n  }\n}\n';
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(example));
  }
  await vscode.window.showTextDocument(uri);
}
