/**
 * The extension's end of the gate channel: a local, per-window, access-controlled socket that the gated servers
 * (src/gate, started by VS Code for its agent) forward `tools/list` and `tools/call` to. A Unix domain socket in a
 * private temp directory (mode 0700) or a Windows named pipe; either way a connection is refused unless its first
 * line presents the window's random secret (compared in constant time).
 *
 * This file is only the transport: what a forwarded call does (plain result back, plan to the panel and a summary to
 * the agent) is the handler's business — {@link createGateHandler} in src/core/agent/agentCall.ts, pure code.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { GateChannelHandler } from '../core/agent/agentCall';
import { CancellationTokenSource, type Disposable } from '../core/base/lifecycle';
import {
  encodeLine,
  field,
  GATE_PROTOCOL_VERSION,
  GateEnv,
  GateErrors,
  GateMethods,
  LineReader,
  MAX_HELLO_LINE,
  MAX_LINE,
  type HelloResult,
  type JsonRpcId,
} from '../gate/channelProtocol';
import type { ServerConnection } from './connection';
import type { ServerRegistry } from './registry';

export interface GateChannelOptions {
  /** The secret a connection must present (default: 32 random bytes). */
  secret?: string;
  /** Where the private socket directory is made (default: the OS temp dir). Ignored on Windows. */
  baseDir?: string;
  /** How long a new connection may take to present the secret (default 5 s). */
  helloTimeoutMs?: number;
  log?: (level: 'info' | 'warn', text: string) => void;
}

interface Connection {
  socket: net.Socket;
  /** Set once the hello presented the right secret. */
  server?: string;
  calls: Map<JsonRpcId, CancellationTokenSource>;
}

/** Unix socket paths longer than this fail to bind on macOS (104 bytes) and Linux (108). */
const MAX_SOCKET_PATH = 100;

export class GateChannel implements Disposable {
  private readonly connections = new Set<Connection>();
  private readonly netServer = net.createServer((socket) => this.accept(socket));
  private closed = false;

  private constructor(
    /** The socket path, or the pipe name on Windows. */
    readonly path: string,
    readonly secret: string,
    private readonly dir: string | undefined,
    private readonly handler: GateChannelHandler,
    private readonly options: GateChannelOptions,
  ) {}

  /** Creates the private directory and listens. Rejects when the socket cannot be bound. */
  static async open(handler: GateChannelHandler, options: GateChannelOptions = {}): Promise<GateChannel> {
    const secret = options.secret ?? randomBytes(32).toString('base64url');
    let dir: string | undefined;
    let socketPath: string;
    if (process.platform === 'win32') {
      socketPath = `\\\\.\\pipe\\plangate-gate-${randomBytes(16).toString('hex')}`;
    } else {
      const base = options.baseDir ?? tmpdir();
      // mkdtemp adds 6 characters, then "/gate.sock": fall back to /tmp when that would not fit in a socket address.
      dir = mkdtempSync(path.join(path.join(base, 'plangate-').length + 17 > MAX_SOCKET_PATH ? '/tmp' : base, 'plangate-'));
      chmodSync(dir, 0o700);
      socketPath = path.join(dir, 'gate.sock');
    }
    const channel = new GateChannel(socketPath, secret, dir, handler, options);
    try {
      await new Promise<void>((resolve, reject) => {
        channel.netServer.once('error', reject);
        channel.netServer.listen(socketPath, () => {
          channel.netServer.off('error', reject);
          resolve();
        });
      });
      if (dir) chmodSync(socketPath, 0o600);
    } catch (err) {
      channel.dispose();
      throw new Error(`Plangate could not open its gate channel at ${socketPath}: ${err instanceof Error ? err.message : String(err)}`);
    }
    return channel;
  }

  /** How many gated servers are connected (past the hello). */
  get connectedCount(): number {
    return [...this.connections].filter((c) => c.server !== undefined).length;
  }

  /** The environment a gated server for `server` needs to reach this channel. */
  envFor(server: string): Record<string, string> {
    return { [GateEnv.socket]: this.path, [GateEnv.secret]: this.secret, [GateEnv.server]: server };
  }

  /** Tells every gated server fronting `server` that its tool list changed (they tell the agent). */
  toolsChanged(server: string): void {
    for (const c of this.connections) {
      if (c.server === server) this.send(c, { jsonrpc: '2.0', method: GateMethods.toolsChanged, params: {} });
    }
  }

  /** Stops listening, drops every connection (their pending calls are cancelled) and removes the socket directory. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.netServer.close();
    for (const c of this.connections) this.drop(c);
    this.connections.clear();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  private accept(socket: net.Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    const conn: Connection = { socket, calls: new Map() };
    this.connections.add(conn);
    socket.setEncoding('utf8');
    const helloTimer = setTimeout(() => this.refuse(conn, null, 'no hello within the time allowed'), this.options.helloTimeoutMs ?? 5000);
    const reader = new LineReader(
      () => (conn.server === undefined ? MAX_HELLO_LINE : MAX_LINE),
      (message) => {
        if (conn.server === undefined) {
          clearTimeout(helloTimer);
          this.onHello(conn, message);
        } else {
          this.onMessage(conn, message);
        }
      },
      () => {
        if (conn.server === undefined) this.refuse(conn, null, 'the first line is too long to be a hello');
        else this.drop(conn);
      },
      () => {
        if (conn.server === undefined) this.refuse(conn, null, 'the first line is not JSON');
      },
    );
    socket.on('data', (chunk: string) => reader.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(helloTimer);
      this.drop(conn);
      this.connections.delete(conn);
    });
  }

  private onHello(conn: Connection, message: Record<string, unknown>): void {
    const id = field(message, 'id');
    const params = field(message, 'params');
    const secret = field(params, 'secret');
    const server = field(params, 'server');
    const replyId = typeof id === 'number' || typeof id === 'string' ? id : null;
    if (field(message, 'method') !== GateMethods.hello || replyId === null)
      return this.refuse(conn, replyId, 'the first message is not a hello');
    if (typeof secret !== 'string' || !sameSecret(secret, this.secret))
      return this.refuse(conn, replyId, "the secret does not match this window's");
    if (typeof server !== 'string' || server === '') return this.refuse(conn, replyId, 'the hello names no server');
    if (field(params, 'protocol') !== GATE_PROTOCOL_VERSION) {
      return this.refuse(
        conn,
        replyId,
        `the gated server speaks channel protocol ${String(field(params, 'protocol'))}, Plangate speaks ${GATE_PROTOCOL_VERSION}; restart the server`,
      );
    }
    conn.server = server;
    let hello: HelloResult = {};
    try {
      hello = this.handler.hello?.(server) ?? {};
    } catch {
      // the hello's extras are optional
    }
    this.send(conn, { jsonrpc: '2.0', id: replyId, result: hello });
    this.options.log?.('info', `gated server '${server}' connected`);
  }

  private refuse(conn: Connection, id: JsonRpcId | null, why: string): void {
    this.options.log?.('warn', `gate channel: refused a connection: ${why}`);
    if (!conn.socket.destroyed) {
      conn.socket.end(encodeLine({ jsonrpc: '2.0', id, error: { code: GateErrors.refused, message: `Refused: ${why}.` } }));
      setTimeout(() => conn.socket.destroy(), 200).unref();
    }
  }

  private onMessage(conn: Connection, message: Record<string, unknown>): void {
    const method = field(message, 'method');
    const id = field(message, 'id');
    const params = field(message, 'params');
    if (typeof method !== 'string') return; // the proxy sends no responses
    if (id === undefined) {
      if (method === GateMethods.cancelled) {
        const requestId = field(params, 'requestId');
        if (typeof requestId === 'number' || typeof requestId === 'string') conn.calls.get(requestId)?.cancel();
      }
      return;
    }
    if (typeof id !== 'number' && typeof id !== 'string') return;
    const server = conn.server!;
    const cts = new CancellationTokenSource();
    conn.calls.set(id, cts);
    const answer = (result: unknown) => this.send(conn, { jsonrpc: '2.0', id, result });
    const fail = (code: number, text: string) => this.send(conn, { jsonrpc: '2.0', id, error: { code, message: text } });
    let work: Promise<void>;
    switch (method) {
      case GateMethods.listTools:
        work = this.handler.listTools(server, cts.token).then((tools) => answer({ tools }));
        break;
      case GateMethods.callTool: {
        const name = field(params, 'name');
        const args = field(params, 'arguments') ?? {};
        if (typeof name !== 'string' || name === '' || typeof args !== 'object' || args === null || Array.isArray(args)) {
          work = Promise.resolve(fail(GateErrors.invalidParams, 'tools/call needs a tool name and an arguments object.'));
          break;
        }
        const wantsProgress = field(params, 'wantsProgress') === true;
        let last = '';
        const progress = (text: string) => {
          if (!wantsProgress || cts.token.isCancellationRequested || text === last) return;
          last = text;
          this.send(conn, { jsonrpc: '2.0', method: GateMethods.progress, params: { requestId: id, message: text } });
        };
        work = this.handler.callTool(server, name, args as Record<string, unknown>, { token: cts.token, progress }).then(answer);
        break;
      }
      default:
        work = Promise.resolve(fail(GateErrors.methodNotFound, `The gate channel has no method '${method}'.`));
    }
    void work
      .catch((err: unknown) => fail(GateErrors.internal, err instanceof Error ? err.message : String(err)))
      .finally(() => {
        conn.calls.delete(id);
        cts.dispose();
      });
  }

  private send(conn: Connection, message: Parameters<typeof encodeLine>[0]): void {
    if (!conn.socket.destroyed && conn.socket.writable) conn.socket.write(encodeLine(message));
  }

  /** Closes a connection; the calls it was waiting on are cancelled (the agent can no longer receive them). */
  private drop(conn: Connection): void {
    for (const cts of conn.calls.values()) cts.cancel();
    conn.socket.destroy();
  }
}

/** Constant-time comparison (of SHA-256 digests, so the lengths never leak either). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * Forwards tool-list changes of the registry's servers to the gated servers: whenever a server's tools change (or
 * it starts or stops), the gated servers fronting it are told.
 */
export function forwardToolChanges(registry: ServerRegistry, channel: GateChannel): Disposable {
  const seen = new Map<string, string>();
  const fingerprint = (c: ServerConnection) => (c.state === 'running' ? JSON.stringify(c.tools) : '');
  for (const c of registry.connections) seen.set(c.name, fingerprint(c));
  return registry.onDidChange(() => {
    const names = new Set<string>();
    for (const c of registry.connections) {
      names.add(c.name);
      const fp = fingerprint(c);
      if (seen.get(c.name) !== fp) {
        seen.set(c.name, fp);
        channel.toolsChanged(c.name);
      }
    }
    for (const name of [...seen.keys()]) if (!names.has(name)) seen.delete(name);
  });
}
