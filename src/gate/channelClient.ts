/**
 * The gated server's end of the gate channel: connects to the extension's socket, says hello with the window's
 * secret, then sends requests and hears notifications. When the channel closes (the extension is gone), every
 * pending request rejects with a {@link ChannelClosedError} and later requests reject at once.
 */
import * as net from 'node:net';
import {
  encodeLine,
  field,
  GATE_PROTOCOL_VERSION,
  GateMethods,
  LineReader,
  MAX_LINE,
  type HelloResult,
  type JsonRpcId,
} from './channelProtocol';

/** The channel is closed (or never opened); `message` says why and what to do. */
export class ChannelClosedError extends Error {}

/** The extension answered a request with an error. */
export class ChannelRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

export interface ChannelClientOptions {
  /** Socket path (or Windows pipe name). */
  path: string;
  secret: string;
  server: string;
  /** How long connect + hello may take (default 10 s). */
  timeoutMs?: number;
}

export class ChannelClient {
  private nextId = 1;
  private readonly pending = new Map<JsonRpcId, Pending>();
  private closedReason?: string;
  private readonly closeListeners: ((reason: string) => void)[] = [];
  private readonly notificationListeners: ((method: string, params: unknown) => void)[] = [];

  private constructor(
    private readonly socket: net.Socket,
    readonly hello: HelloResult,
  ) {}

  /**
   * Connects and says hello. Rejects with a {@link ChannelClosedError} naming the cause: no such socket, refused
   * (wrong secret), or no answer in time.
   */
  static connect(options: ChannelClientOptions): Promise<ChannelClient> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(options.path);
      socket.setEncoding('utf8');
      let settled = false;
      let client: ChannelClient | undefined;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        reject(new ChannelClosedError(message));
      };
      const timer = setTimeout(() => fail(`Plangate did not answer on its channel within ${timeoutMs / 1000} s.`), timeoutMs);
      const reader = new LineReader(
        () => MAX_LINE,
        (message) => {
          if (client) return client.onMessage(message);
          // Before the hello is answered only its response is expected.
          if (field(message, 'id') !== 0) return;
          const error = field(message, 'error');
          if (error !== undefined) return fail(`Plangate refused the connection: ${String(field(error, 'message') ?? 'no reason given')}`);
          settled = true;
          clearTimeout(timer);
          client = new ChannelClient(socket, sanitizeHello(field(message, 'result')));
          resolve(client);
        },
        () => {
          if (client) client.shutdown('Plangate sent a line longer than the channel allows.');
          else fail('Plangate sent a line longer than the channel allows.');
        },
      );
      socket.on('data', (chunk: string) => reader.push(chunk));
      socket.on('error', (err: NodeJS.ErrnoException) => {
        const why =
          err.code === 'ENOENT' || err.code === 'ECONNREFUSED'
            ? "Plangate's channel is not there (the VS Code window that started this gated server closed, or Plangate was deactivated)"
            : `the channel failed: ${err.message}`;
        if (client) client.shutdown(`${why}.`);
        else fail(`${why}.`);
      });
      socket.on('close', () => {
        if (client)
          client.shutdown(
            'Plangate closed the channel (the VS Code window that started this gated server closed, or Plangate was deactivated or reloaded).',
          );
        else fail('Plangate closed the channel before answering the hello (wrong secret?).');
      });
      socket.once('connect', () => {
        socket.write(
          encodeLine({
            jsonrpc: '2.0',
            id: 0,
            method: GateMethods.hello,
            params: { secret: options.secret, server: options.server, protocol: GATE_PROTOCOL_VERSION },
          }),
        );
      });
    });
  }

  /** Why the channel is closed, or undefined while it is open. */
  get closed(): string | undefined {
    return this.closedReason;
  }

  /** Sends a request; the id is passed to `onId` first (for cancellation and progress). */
  request(method: string, params: unknown, onId?: (id: number) => void): Promise<unknown> {
    if (this.closedReason) return Promise.reject(new ChannelClosedError(this.closedReason));
    const id = this.nextId++;
    onId?.(id);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.write(encodeLine({ jsonrpc: '2.0', id, method, params }));
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.closedReason) this.socket.write(encodeLine({ jsonrpc: '2.0', method, params }));
  }

  onNotification(listener: (method: string, params: unknown) => void): void {
    this.notificationListeners.push(listener);
  }

  onClose(listener: (reason: string) => void): void {
    if (this.closedReason) listener(this.closedReason);
    else this.closeListeners.push(listener);
  }

  close(): void {
    this.shutdown('The gated server closed the channel.');
  }

  private onMessage(message: Record<string, unknown>): void {
    const id = field(message, 'id');
    const method = field(message, 'method');
    if (typeof method === 'string' && id === undefined) {
      for (const l of this.notificationListeners) l(method, field(message, 'params'));
      return;
    }
    if (typeof id !== 'number' && typeof id !== 'string') return;
    const waiter = this.pending.get(id);
    if (!waiter) return;
    this.pending.delete(id);
    const error = field(message, 'error');
    if (error !== undefined) {
      const code = field(error, 'code');
      waiter.reject(
        new ChannelRequestError(
          typeof code === 'number' ? code : -32603,
          String(field(error, 'message') ?? 'Plangate answered with an error.'),
        ),
      );
    } else {
      waiter.resolve(field(message, 'result'));
    }
  }

  private shutdown(reason: string): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    this.socket.destroy();
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new ChannelClosedError(reason));
    for (const l of this.closeListeners.splice(0)) l(reason);
  }
}

function sanitizeHello(value: unknown): HelloResult {
  const out: HelloResult = {};
  const info = field(value, 'serverInfo');
  const name = field(info, 'name');
  const version = field(info, 'version');
  if (typeof name === 'string' && typeof version === 'string') {
    const title = field(info, 'title');
    out.serverInfo = { name, version, ...(typeof title === 'string' ? { title } : {}) };
  }
  const instructions = field(value, 'instructions');
  if (typeof instructions === 'string') out.instructions = instructions;
  return out;
}
