// Plangate's activation, as a table of contents: the engine, the surfaces that show it, the entrances that reach it.
// Each part is in ui/activation.ts; nothing here starts a server or a socket synchronously.
import * as vscode from 'vscode';
import type { ServerRegistry } from './mcp/registry';
import { openSurfaces, registerEntrances, startEngine } from './ui/activation';
import { registerTestHook } from './ui/testHook';

let registry: ServerRegistry | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Plangate', { log: true });
  // The ledger and its workflow, the servers, the policy, the gate with its one door, the plans' files.
  const engine = startEngine(context, log);
  registry = engine.servers;
  // The panel and what puts items in it (Call Tool, collect forms, server apps, the policy's card); views, status bar.
  const surfaces = openSurfaces(context, engine, log);
  // Commands, sign-in, the agent entrance; then the configuration is read and the servers start.
  registerEntrances(context, engine, surfaces, log);

  // activate() returns nothing: no other extension gets a handle that approves or calls. Only the in-host test hook,
  // under the test harness's environment, receives the services.
  const hook = registerTestHook(context, () => {
    const { workflow, gate, servers, configs, policy } = engine;
    return {
      workflow,
      gate,
      registry: servers,
      configs,
      panel: surfaces.panel,
      caller: surfaces.caller,
      policy,
      views: surfaces.views,
    };
  });
  if (hook) context.subscriptions.push(hook);
}

export async function deactivate(): Promise<void> {
  await registry?.dispose();
}
