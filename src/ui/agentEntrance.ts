import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { appResourceUri } from '../core/apps/appTool';
import type { Gate } from '../core/engine/gate';
import { createGateHandler } from '../core/agent/agentCall';
import { forwardToolChanges, GateChannel } from '../mcp/gateChannel';
import type { ServerRegistry } from '../mcp/registry';
import type { ToolCaller } from './callTool';
import { Settings } from './constants';
import { appSettings, gateSettings, userFlag } from './settings';

/** The id of the provider in package.json `contributes.mcpServerDefinitionProviders`. */
export const GatedServersProviderId = 'plangate.gatedServers';

/** The label of the gated server that fronts Plangate server `name` (what VS Code's MCP list and the agent show). */
export function gatedLabel(name: string): string {
  return `${name} (gated)`;
}

export interface AgentEntranceDeps {
  registry: ServerRegistry;
  gate: Gate;
  caller: ToolCaller;
  log: vscode.LogOutputChannel;
  /** Workspace-relative files a plan's run changed, once the touched-files engine knows them (goes into the agent's summary). */
  changedFiles?: (planId: string) => Promise<readonly string[] | undefined> | readonly string[] | undefined;
}

/**
 * The agent entrance: offers VS Code (and so its chat agent) one **gated** MCP server per server Plangate manages.
 * A gated server is dist/gatedServer.js, run by the extension host's Node; it forwards `tools/list` and `tools/call`
 * over a private per-window channel to this extension, which answers them through the same connection, gate and
 * panel as manual calls (plans open in the panel without taking focus; the agent's call waits for the decision).
 * `plangate.gatedServers.enabled` turns the gated servers on or off.
 */
export function registerAgentEntrance(context: vscode.ExtensionContext, deps: AgentEntranceDeps): vscode.Disposable {
  const { registry, gate, caller, log, changedFiles } = deps;
  const subs: vscode.Disposable[] = [];
  const lm = vscode.lm as Partial<typeof vscode.lm> | undefined;
  if (typeof lm?.registerMcpServerDefinitionProvider !== 'function' || typeof vscode.McpStdioServerDefinition !== 'function') {
    log.info('Agent entrance: this VS Code offers no MCP server definition API; no gated servers.');
    return new vscode.Disposable(() => undefined);
  }
  const program = context.asAbsolutePath('dist/gatedServer.js');
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '0');
  const enabled = () => userFlag(Settings.gatedServersEnabled, true);

  const write = (level: 'info' | 'warn', text: string) =>
    level === 'warn' ? log.warn(`Agent entrance: ${text}`) : log.info(`Agent entrance: ${text}`);
  const handler = createGateHandler({
    registry,
    gate,
    show: (outcome) => caller.show(outcome, { focus: false }),
    // A plain result of a tool with a server app: the app shows it in the panel, which comes up without taking focus
    // from the chat (as a plan from the agent does); the agent gets the result as it is. Results of other tools are
    // not shown: the chat shows them.
    showPlain: (outcome) => {
      const apps = appSettings().enabled;
      if (apps && appResourceUri(registry.get(outcome.server)?.tools.find((t) => t.name === outcome.tool)))
        caller.show(outcome, { focus: false });
    },
    callTimeoutMs: () => gateSettings().stepTimeoutMs,
    changedFiles,
    log: write,
  });
  let disposed = false;
  let channel: GateChannel | undefined;
  const opening = GateChannel.open(handler, { log: write }).then(
    (c) => {
      if (disposed) {
        c.dispose();
        return undefined;
      }
      channel = c;
      subs.push(c, forwardToolChanges(registry, c));
      return c;
    },
    (err: unknown) => {
      log.error(`Agent entrance: ${err instanceof Error ? err.message : String(err)}; no gated servers in this window.`);
      return undefined;
    },
  );

  // VS Code asks again only when told; tell it when the offered set of servers (or the setting) changes.
  const changed = new vscode.EventEmitter<void>();
  let offered = '';
  const offeredKey = () =>
    enabled() ? JSON.stringify(registry.connections.filter((c) => !registry.isBlocked(c.name)).map((c) => c.name)) : '';
  const refresh = () => {
    const key = offeredKey();
    if (key !== offered) {
      offered = key;
      changed.fire();
    }
  };
  subs.push(
    changed,
    registry.onDidChange(refresh),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${Settings.section}.${Settings.gatedServersEnabled}`)) refresh();
    }),
  );

  subs.push(
    vscode.lm.registerMcpServerDefinitionProvider(GatedServersProviderId, {
      onDidChangeMcpServerDefinitions: changed.event,
      async provideMcpServerDefinitions() {
        offered = offeredKey();
        if (!enabled()) return [];
        const ch = channel ?? (await opening);
        if (!ch) return [];
        if (!existsSync(program)) {
          log.error(`Agent entrance: ${program} is missing (was the extension built?); no gated servers.`);
          return [];
        }
        return registry.connections
          .filter((c) => !registry.isBlocked(c.name))
          .map(
            (c) =>
              new vscode.McpStdioServerDefinition(
                gatedLabel(c.name),
                process.execPath, // Electron in the desktop host: ELECTRON_RUN_AS_NODE makes it plain Node
                [program],
                { ...ch.envFor(c.name), ELECTRON_RUN_AS_NODE: '1' },
                version,
              ),
          );
      },
    }),
  );
  log.info(
    "Agent entrance: gated servers are offered to VS Code's MCP list" +
      (enabled() ? '.' : ' (off: plangate.gatedServers.enabled is false).'),
  );

  return new vscode.Disposable(() => {
    disposed = true;
    for (const s of subs.splice(0).reverse()) s.dispose();
    channel = undefined;
  });
}
