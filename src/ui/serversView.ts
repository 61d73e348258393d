import * as vscode from 'vscode';
import { visibleText } from '../shared/visibleText';
import { DisposableBase, Emitter } from '../core/base/lifecycle';
import { formatConfigProblem } from '../mcp/config';
import type { ServerConnection } from '../mcp/connection';
import { describeSandbox } from '../mcp/sandbox';
import type { ServerRegistry } from '../mcp/registry';
import type { ServerConfigs } from './serverConfigs';
import { ServerRows, type ServerNode, type ServerTop } from './serverRows';
import { fireRefresh, lookWithChildren } from './treeRefresh';

const STATE_ICON: Record<ServerConnection['state'], vscode.ThemeIcon> = {
  starting: new vscode.ThemeIcon('loading~spin'),
  running: new vscode.ThemeIcon('vm-running', new vscode.ThemeColor('testing.iconPassed')),
  stopped: new vscode.ThemeIcon('vm-outline'),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground')),
  signInRequired: new vscode.ThemeIcon('account', new vscode.ThemeColor('problemsWarningIcon.foreground')),
};

/**
 * The Servers view: configuration problems first, then each configured server with its state and message, and
 * under a running server its tools (title, description, read-only / destructive marks, name clashes).
 */
export class ServersView extends DisposableBase implements vscode.TreeDataProvider<ServerNode> {
  private readonly _onDidChangeTreeData = this._register(new Emitter<ServerNode[] | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event as vscode.Event<ServerNode[] | undefined>;
  /** A server row's look: its item and its tools' rows (a tool row's click calls the tool). */
  private readonly rows = new ServerRows((row) => (row.kind === 'server' ? lookWithChildren<ServerNode>(this, row) : row));

  constructor(
    private readonly registry: ServerRegistry,
    private readonly configs: ServerConfigs,
  ) {
    super();
    // A server's change refreshes the server rows alone while the list of rows stays (see serverRows.ts: a refresh of
    // the whole tree makes VS Code forget which row an inline action was clicked on), and of them those that show
    // something new (a refreshed row drops a click on it, or on one of its tools, until it is drawn again).
    this._register(registry.onDidChange(() => fireRefresh(this._onDidChangeTreeData, this.rows.changed(this.topRows()))));
    this._register(configs.onDidChange(() => this._onDidChangeTreeData.fire(undefined)));
  }

  private topRows(): ServerTop {
    const snap = this.configs.snapshot;
    const running = new Set(this.registry.connections.map((c) => c.name));
    return {
      problems: snap.problems.map((p) => formatConfigProblem(p)),
      servers: [...running],
      issues: snap.issues
        .filter((i) => !running.has(i.server))
        .map((i) => ({ server: i.server, message: i.message, untrusted: Boolean(i.untrusted), reasons: i.reasons ?? [] })),
    };
  }

  getChildren(node?: ServerNode): ServerNode[] {
    if (!node) return this.rows.top(this.topRows());
    if (node.kind === 'server') {
      const conn = this.registry.get(node.name);
      return (conn?.tools ?? []).map((t) => ({ kind: 'tool', server: node.name, tool: t.name }));
    }
    return [];
  }

  getTreeItem(node: ServerNode): vscode.TreeItem {
    switch (node.kind) {
      case 'problem': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        item.tooltip = node.text;
        item.contextValue = 'problem';
        item.command = { command: 'plangate.openMcpJson', title: 'Open mcp.json' };
        return item;
      }
      case 'issue': {
        const item = new vscode.TreeItem(node.server, vscode.TreeItemCollapsibleState.None);
        item.description = node.untrusted ? 'waits for workspace trust' : 'not started';
        item.tooltip =
          node.untrusted && node.reasons.length > 0
            ? [
                'Waits for workspace trust: this workspace is in Restricted Mode, and the server',
                ...node.reasons.map((r) => `• ${r}`),
                '',
                'Trust the workspace to start it.',
              ].join('\n')
            : node.message;
        item.iconPath = new vscode.ThemeIcon(
          node.untrusted ? 'shield' : 'error',
          new vscode.ThemeColor(node.untrusted ? 'problemsWarningIcon.foreground' : 'errorForeground'),
        );
        item.contextValue = node.untrusted ? 'issue.untrusted' : 'issue';
        if (node.untrusted) item.command = { command: 'workbench.trust.manage', title: 'Manage Workspace Trust' };
        item.accessibilityInformation = { label: `${node.server}: ${node.message}` };
        return item;
      }
      case 'server': {
        const conn = this.registry.get(node.name);
        const state = conn?.state ?? 'stopped';
        const count = conn?.tools.length ?? 0;
        const item = new vscode.TreeItem(
          node.name,
          state === 'running' && count ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
        );
        item.id = `server:${node.name}`;
        const sandbox = conn?.config.type === 'stdio' ? conn.config.sandbox : undefined;
        // Marked only once it runs in one; a server that asked for a sandbox and runs without says so.
        const mark = sandbox && state === 'running' ? (conn?.sandboxed ? 'sandboxed · ' : 'NOT sandboxed · ') : '';
        item.description =
          state === 'running'
            ? `${mark}running · ${count} tool${count === 1 ? '' : 's'}`
            : state === 'error'
              ? `error: ${shortError(node.name, conn?.message)}`
              : state === 'signInRequired'
                ? 'sign-in required'
                : state;
        item.iconPath =
          mark === 'sandboxed · ' ? new vscode.ThemeIcon('lock', new vscode.ThemeColor('testing.iconPassed')) : STATE_ICON[state];
        const tip = new vscode.MarkdownString(undefined, false);
        tip.appendText(`${node.name} — ${state}\n`);
        if (conn?.message) tip.appendText(`\n${conn.message}\n`);
        if (sandbox && state === 'running' && conn?.sandboxed) tip.appendText(`\n${describeSandbox(sandbox).join('\n')}\n`);
        else if (sandbox && state !== 'running')
          tip.appendText(`\nAsks for a sandbox with these rules:\n${describeSandbox(sandbox).slice(1).join('\n')}\n`);
        else if (sandbox) tip.appendText('\nAsks for a sandbox but runs WITHOUT one (plangate.sandbox.allowUnsandboxed).\n');
        const info = conn?.serverInfo;
        if (info) tip.appendText(`\n${info.name} ${info.version}`);
        item.tooltip = tip;
        // `.http`: a server that may sign in (Sign out); the state stays first for the menus' `^server\.<state>` tests.
        item.contextValue = `server.${state}${conn && conn.config.type !== 'stdio' ? '.http' : ''}`;
        if (state === 'signInRequired') item.command = { command: 'plangate.signIn', title: 'Sign in', arguments: [node] };
        item.accessibilityInformation = { label: `Server ${node.name}, ${item.description}` };
        return item;
      }
      case 'tool': {
        const tool = this.registry.get(node.server)?.tools.find((t) => t.name === node.tool);
        const item = new vscode.TreeItem(
          visibleText(tool?.title || tool?.annotations?.title || node.tool),
          vscode.TreeItemCollapsibleState.None,
        );
        item.id = `tool:${node.server}:${node.tool}`;
        const clash = this.registry.clashes().find((c) => c.tool === node.tool);
        const marks = [
          tool?.annotations?.readOnlyHint ? 'read-only' : undefined,
          tool?.annotations?.destructiveHint ? 'destructive' : undefined,
          clash && clash.servers[0] !== node.server ? `shadowed by ${clash.servers[0]}` : undefined,
        ].filter(Boolean);
        item.description = visibleText([tool?.title ? node.tool : undefined, ...marks].filter(Boolean).join(' · '));
        item.tooltip = new vscode.MarkdownString(undefined, false).appendText(
          visibleText(`${node.tool}\n\n${tool?.description ?? ''}`, { keepNewlines: true }),
        );
        item.iconPath = new vscode.ThemeIcon(
          tool?.annotations?.destructiveHint ? 'warning' : tool?.annotations?.readOnlyHint ? 'eye' : 'tools',
        );
        item.contextValue = 'tool';
        item.command = { command: 'plangate.callTool', title: 'Call Tool…', arguments: [node] };
        return item;
      }
    }
  }
}

/**
 * An error in the few words a tree row has room for: its first line without the server's name (the row shows it),
 * and the last line of the server's stderr when the message carries it, e.g.
 * "exited during start-up (exit code 1) — boom: missing API key". The tooltip has the whole message.
 */
function shortError(server: string, text: string | undefined): string {
  const lines = (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const first = (lines[0] ?? '')
    .replace(new RegExp(`^Server '${server.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'\\s*`), '')
    .replace(/\.$/, '');
  const stderrAt = lines.findIndex((l) => /stderr/i.test(l));
  const last = stderrAt >= 0 ? lines.slice(stderrAt + 1).at(-1) : undefined;
  return (last ? `${first} — ${last}` : first).slice(0, 160);
}
