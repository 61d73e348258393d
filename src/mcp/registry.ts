/**
 * The connections of all configured servers, in configuration order. `applyConfig` reconciles them with a new
 * configuration (start new, stop removed, restart only the changed); the registry is the extension's ToolInvoker.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Emitter, type Event } from '../core/base/lifecycle';
import type { ServerTools, TaskReport, ToolCallOptions, ToolInvoker } from '../core/engine/invoker';
import type { ToolResult } from '../core/base/toolResult';
import { isWorkspaceSource, serverFingerprint, type ResolvedServer } from './config';
import { CallError, ServerConnection, type ConnectionOptions, type LogEntry } from './connection';

/** A tool name offered by more than one server; `servers[0]` (first in configuration order) wins unqualified lookups. */
export interface ToolClash {
  tool: string;
  servers: string[];
}

export interface ApplyOptions {
  /** When false, servers from workspace configuration (mcp.json, workspace settings) are not started. Default true. */
  workspaceTrusted?: boolean;
  /** When false, new servers are added stopped (the user starts them). Default true. */
  autoStart?: boolean;
}

interface Entry {
  conn: ServerConnection;
  fingerprint: string;
  subscriptions: { dispose(): void }[];
}

export class ServerRegistry implements ToolInvoker {
  private entries: Entry[] = [];
  private trusted = true;
  private disposed = false;
  private readonly changeEmitter = new Emitter<void>();
  private readonly logEmitter = new Emitter<LogEntry>();
  /** Fires when servers are added or removed, or a server's state or tools change. */
  readonly onDidChange: Event<void> = this.changeEmitter.event;
  /** Running servers' tools by name (see findTool); dropped whenever a server's state or tools change. */
  private toolIndex?: Map<string, { server: string; tool: Tool }[]>;
  /** The catalog as last built; rebuilt when a server's state or tools change (the door asks for it before every step). */
  private catalogCache?: readonly ServerTools[];
  /** Every connection's log (stderr lines, calls, state changes), secrets already redacted. */
  readonly onLog: Event<LogEntry> = this.logEmitter.event;

  constructor(private readonly options: ConnectionOptions = {}) {}

  /** The connections in configuration order. */
  get connections(): readonly ServerConnection[] {
    return this.entries.map((e) => e.conn);
  }

  get(name: string): ServerConnection | undefined {
    return this.entries.find((e) => e.conn.name === name)?.conn;
  }

  /** Whether `start(name)` would be refused: workspace configuration in an untrusted workspace. */
  isBlocked(name: string): boolean {
    const conn = this.get(name);
    return !!conn && !this.trusted && isWorkspaceSource(conn.config.source);
  }

  /**
   * Reconciles with a new configuration: adds and starts new servers, stops and removes the ones no longer there,
   * restarts only those whose fingerprint changed, and starts unchanged ones that trust newly allows. A repeated name
   * keeps its first occurrence. Settles when every start and stop has (start failures are in the connection's state).
   */
  async applyConfig(servers: readonly ResolvedServer[], options: ApplyOptions = {}): Promise<void> {
    if (this.disposed) return;
    const wasTrusted = this.trusted;
    this.trusted = options.workspaceTrusted ?? true;
    const autoStart = options.autoStart ?? true;
    const work: Promise<unknown>[] = [];
    const next: Entry[] = [];
    for (const config of servers) {
      if (next.some((e) => e.conn.name === config.name)) {
        this.logEmitter.fire({ server: config.name, level: 'warn', text: 'configured twice; the first configuration is used' });
        continue;
      }
      const fingerprint = serverFingerprint(config);
      const blocked = !this.trusted && isWorkspaceSource(config.source);
      const existing = this.entries.find((e) => e.conn.name === config.name);
      if (!existing) {
        const entry = this.create(config, fingerprint);
        next.push(entry);
        if (blocked) this.logEmitter.fire({ server: config.name, level: 'info', text: 'not started: the workspace is not trusted' });
        else if (autoStart) work.push(entry.conn.start());
        continue;
      }
      next.push(existing);
      const conn = existing.conn;
      conn.setConfig(config);
      if (blocked) {
        if (conn.state !== 'stopped') work.push(conn.stop());
      } else if (existing.fingerprint !== fingerprint) {
        work.push(conn.state === 'stopped' && !autoStart ? Promise.resolve() : conn.restart());
      } else if (!wasTrusted && this.trusted && isWorkspaceSource(config.source) && conn.state === 'stopped' && autoStart) {
        work.push(conn.start());
      }
      existing.fingerprint = fingerprint;
    }
    const removed = this.entries.filter((e) => !next.includes(e));
    this.entries = next;
    this.toolIndex = undefined;
    this.catalogCache = undefined;
    for (const e of removed) work.push(this.remove(e));
    this.changeEmitter.fire();
    await Promise.allSettled(work);
  }

  /** Starts one server; refused (rejects) for workspace configuration in an untrusted workspace. */
  async start(name: string): Promise<void> {
    const conn = this.require(name);
    if (this.isBlocked(name)) {
      throw new Error(
        `Server '${name}' comes from workspace configuration (${conn.config.source}) and this workspace is not trusted. Trust the workspace to start it.`,
      );
    }
    await conn.start();
  }

  /** Running servers in configuration order, each with all its tool names. */
  async catalog(): Promise<readonly ServerTools[]> {
    // A server that announced a tool-list change is listed again before anyone relies on its old list.
    await Promise.all(this.entries.filter((e) => e.conn.state === 'running').map((e) => e.conn.whenToolsFresh()));
    this.catalogCache ??= this.entries
      .filter((e) => e.conn.state === 'running')
      .map((e) => ({
        server: e.conn.name,
        tools: e.conn.tools.map((t) => t.name),
        hashes: e.conn.toolHashes,
        definitions: new Map(e.conn.tools.map((t) => [t.name, t as { name: string } & Record<string, unknown>])),
      }));
    return this.catalogCache;
  }

  /** The running server that offers `tool`: `preferred` if it does, else the first in configuration order. */
  serverForTool(tool: string, preferred?: string): string | undefined {
    return this.findTool(tool, preferred)?.server;
  }

  /**
   * `tool` as a running server offers it: `preferred`'s if it has one, else the first in configuration order. Looked
   * up in an index kept until a server's state or tools change, so a 1,000-step plan costs 1,000 map lookups.
   */
  findTool(tool: string, preferred?: string): { server: string; tool: Tool } | undefined {
    this.toolIndex ??= this.buildToolIndex();
    const offers = this.toolIndex.get(tool);
    return offers?.find((o) => o.server === preferred) ?? offers?.[0];
  }

  private buildToolIndex(): Map<string, { server: string; tool: Tool }[]> {
    const index = new Map<string, { server: string; tool: Tool }[]>();
    for (const e of this.entries) {
      if (e.conn.state !== 'running') continue;
      for (const tool of e.conn.tools) {
        const offers = index.get(tool.name);
        if (offers) offers.push({ server: e.conn.name, tool });
        else index.set(tool.name, [{ server: e.conn.name, tool }]);
      }
    }
    return index;
  }

  /** Tool names offered by more than one running server, in configuration order of their first server. */
  clashes(): ToolClash[] {
    const byTool = new Map<string, string[]>();
    for (const e of this.entries) {
      if (e.conn.state !== 'running') continue;
      for (const t of e.conn.tools) {
        const list = byTool.get(t.name) ?? [];
        if (!list.includes(e.conn.name)) list.push(e.conn.name);
        byTool.set(t.name, list);
      }
    }
    return [...byTool].filter(([, s]) => s.length > 1).map(([tool, s]) => ({ tool, servers: s }));
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, options?: ToolCallOptions): Promise<ToolResult> {
    const conn = this.get(server);
    if (!conn)
      throw new CallError(
        'notRunning',
        `No server named '${server}' is configured. Add it to .vscode/mcp.json or the plangate.servers setting.`,
      );
    return conn.callTool(tool, args, options);
  }

  /** The status of task `taskId` on `server` (`tasks/get`); undefined when the server is not there or does not know it. */
  async taskStatus(server: string, taskId: string): Promise<TaskReport | undefined> {
    return (await this.get(server)?.taskStatus(taskId)) ?? undefined;
  }

  /** Stops every server; the promise settles when all their processes have exited. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const all = this.entries;
    this.entries = [];
    this.toolIndex = undefined;
    this.catalogCache = undefined;
    await Promise.allSettled(all.map((e) => this.remove(e)));
    this.changeEmitter.dispose();
    this.logEmitter.dispose();
  }

  private create(config: ResolvedServer, fingerprint: string): Entry {
    const conn = new ServerConnection(config, this.options);
    const subscriptions = [
      conn.onDidChangeState(() => {
        this.toolIndex = undefined;
        this.catalogCache = undefined;
        this.changeEmitter.fire();
      }),
      conn.onDidChangeTools(() => {
        this.toolIndex = undefined;
        this.catalogCache = undefined;
        this.changeEmitter.fire();
      }),
      conn.onLog((e) => this.logEmitter.fire(e)),
    ];
    return { conn, fingerprint, subscriptions };
  }

  private async remove(entry: Entry): Promise<void> {
    await entry.conn.dispose();
    for (const s of entry.subscriptions) s.dispose();
  }

  private require(name: string): ServerConnection {
    const conn = this.get(name);
    if (!conn) throw new Error(`No server named '${name}' is configured.`);
    return conn;
  }
}
