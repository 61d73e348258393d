import * as vscode from 'vscode';
import * as os from 'node:os';
import { DisposableBase, Emitter } from '../core/base/lifecycle';
import {
  decideStart,
  describeTrustWait,
  formatConfigProblem,
  inputRefs,
  inputScope,
  inputValueKey,
  parseMcpJson,
  parseServersSetting,
  resolveServer,
  storedInputs,
  type ConfigProblem,
  type InputDef,
  type ResolvedServer,
  type ServerConfig,
} from '../mcp/config';
import { Settings } from './constants';
import { sandboxSettings } from './settings';

/** A configured server that could not be started, and why (shown in the Servers view). */
export interface ServerConfigIssue {
  server: string;
  message: string;
  /** Restricted Mode kept it from starting; it starts when the workspace is trusted. */
  untrusted?: boolean;
  /** Why it waits for trust, e.g. "comes from .vscode/mcp.json", "uses ${workspaceFolder}". */
  reasons?: string[];
}

export interface ConfigSnapshot {
  /** Servers to run, in configuration order: mcp.json first, then workspace settings, then user settings. */
  resolved: ResolvedServer[];
  /** Every configured server, resolvable or not, in the same order. */
  configured: ServerConfig[];
  problems: ConfigProblem[];
  issues: ServerConfigIssue[];
  mcpJson?: vscode.Uri;
}

/**
 * Reads `.vscode/mcp.json` and the `plangate.servers` setting, resolves variables and inputs (asked once per server
 * and workspace, kept in SecretStorage), honours workspace trust, and fires {@link onDidChange} with a fresh snapshot
 * whenever any of them changes. In an untrusted workspace nothing of the folder runs: servers that would use it wait
 * for trust (see `decideStart`), the others run in the user's home.
 */
export class ServerConfigs extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<ConfigSnapshot>());
  readonly onDidChange = this._onDidChange.event;
  private current: ConfigSnapshot = { resolved: [], configured: [], problems: [], issues: [] };
  private reloading: Promise<ConfigSnapshot> | undefined;
  private again = false;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    const watcher = this._register(vscode.workspace.createFileSystemWatcher('**/.vscode/mcp.json'));
    const reload = () => void this.reload();
    this._register(watcher.onDidChange(reload));
    this._register(watcher.onDidCreate(reload));
    this._register(watcher.onDidDelete(reload));
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(Settings.section)) reload();
      }),
    );
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(reload));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(reload));
  }

  get snapshot(): ConfigSnapshot {
    return this.current;
  }

  /** Re-reads everything; concurrent calls coalesce into one more pass. */
  reload(): Promise<ConfigSnapshot> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      let snap: ConfigSnapshot;
      do {
        this.again = false;
        snap = await this.read();
      } while (this.again);
      this.current = snap;
      this.reloading = undefined;
      this._onDidChange.fire(snap);
      return snap;
    })();
    return this.reloading;
  }

  /** Forgets the input values stored for this workspace's servers (and the user's), so the next start asks again. */
  async resetInputs(): Promise<number> {
    const { servers } = await this.readConfigured();
    const workspace = workspaceId();
    const keys = servers.flatMap((s) => inputRefs(s).map((id) => inputValueKey(inputScope(s.source, workspace), s.name, id)));
    let forgotten = 0;
    for (const key of keys) {
      if ((await this.secrets.get(key)) === undefined) continue;
      await this.secrets.delete(key);
      forgotten++;
    }
    return forgotten;
  }

  private async readConfigured(): Promise<{
    servers: ServerConfig[];
    inputs: InputDef[];
    problems: ConfigProblem[];
    mcpJson?: vscode.Uri;
  }> {
    const servers: ServerConfig[] = [];
    const inputs: InputDef[] = [];
    const problems: ConfigProblem[] = [];
    const folder = vscode.workspace.workspaceFolders?.[0];
    const config = vscode.workspace.getConfiguration(Settings.section, folder?.uri);
    let mcpJson: vscode.Uri | undefined;
    if (folder && config.get<boolean>(Settings.readMcpJson, true)) {
      mcpJson = vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json');
      let text: string | undefined;
      try {
        text = new TextDecoder().decode(await vscode.workspace.fs.readFile(mcpJson));
      } catch {
        text = undefined; // no mcp.json: nothing to read
      }
      if (text !== undefined) {
        const parsed = parseMcpJson(text, vscode.workspace.asRelativePath(mcpJson), 'mcp.json');
        servers.push(...parsed.servers);
        inputs.push(...parsed.inputs);
        problems.push(...parsed.problems);
      }
    }
    const inspected = config.inspect<Record<string, unknown>>(Settings.servers);
    const seen = new Set(servers.map((s) => s.name));
    for (const [value, source] of [
      [inspected?.workspaceFolderValue ?? inspected?.workspaceValue, 'settings-workspace'],
      [inspected?.globalValue, 'settings-user'],
    ] as const) {
      if (value === undefined) continue;
      const parsed = parseServersSetting(value, source, `plangate.servers (${source === 'settings-user' ? 'user' : 'workspace'} settings)`);
      for (const s of parsed.servers) {
        if (seen.has(s.name)) {
          problems.push({
            file: s.file,
            path: `servers.${s.name}`,
            message: `server "${s.name}" is already defined earlier (${servers.find((x) => x.name === s.name)?.file}); this one is ignored`,
          });
          continue;
        }
        seen.add(s.name);
        servers.push(s);
      }
      problems.push(...parsed.problems);
    }
    return { servers, inputs, problems, mcpJson };
  }

  private async read(): Promise<ConfigSnapshot> {
    const { servers, inputs, problems, mcpJson } = await this.readConfigured();
    for (const p of problems) this.log.warn(`Configuration: ${formatConfigProblem(p)}`);
    const issues: ServerConfigIssue[] = [];
    const resolved: ResolvedServer[] = [];
    const folder = vscode.workspace.workspaceFolders?.[0];
    const trusted = vscode.workspace.isTrusted;
    const workspace = workspaceId();
    for (const server of servers) {
      const decision = decideStart(server, { trusted, workspaceFolder: folder?.uri.fsPath, userHome: os.homedir() });
      if (decision.kind === 'waitForTrust') {
        issues.push({
          server: server.name,
          untrusted: true,
          reasons: decision.reasons,
          message: describeTrustWait(server.name, decision.reasons),
        });
        this.log.info(describeTrustWait(server.name, decision.reasons));
        continue;
      }
      try {
        resolved.push(
          await resolveServer(server, {
            workspaceFolder: folder?.uri.fsPath,
            trusted,
            env: process.env,
            userHome: os.homedir(),
            inputs,
            sandboxWorkspaceServers: sandboxSettings().workspaceServers,
            resolveInput: storedInputs(this.secrets, inputScope(server.source, workspace), server.name, (id, def) =>
              this.ask(id, def, server.name),
            ),
          }),
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        issues.push({ server: server.name, message });
        this.log.error(`Server "${server.name}": ${message}`);
      }
    }
    return { resolved, configured: servers, problems, issues, mcpJson };
  }

  /** Asks for an input's value; the title names the server that will receive it (values are kept per server). */
  private async ask(id: string, def: InputDef, server: string): Promise<string | undefined> {
    const title = `Plangate: input "${id}" for an MCP server — ${server}`;
    const value =
      def.type === 'pickString'
        ? (
            await vscode.window.showQuickPick(
              // The default first, so Enter takes it.
              [...def.options]
                .sort((a, b) => Number(b.value === def.default) - Number(a.value === def.default))
                .map((o) => ({ label: o.label, description: o.label !== o.value ? o.value : undefined, value: o.value })),
              { title, placeHolder: def.description || `Choose a value for \${input:${id}}`, ignoreFocusOut: true },
            )
          )?.value
        : await vscode.window.showInputBox({
            title,
            prompt: def.description || `Value for \${input:${id}}`,
            password: def.password,
            value: def.default,
            ignoreFocusOut: true,
          });
    return value;
  }
}

/** The workspace input values belong to: its `.code-workspace` file, else its first folder; undefined without one. */
function workspaceId(): string | undefined {
  return (vscode.workspace.workspaceFile ?? vscode.workspace.workspaceFolders?.[0]?.uri)?.toString();
}
