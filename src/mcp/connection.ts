/**
 * One MCP server: one SDK Client and its transport (stdio, Streamable HTTP with SSE fallback, or SSE), its
 * state, its tools, and reconnection with backoff after the server goes away by itself.
 */
import { toolDefinitionHash, type ToolDefinitionLike } from '../core/approval';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type Implementation, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Readable } from 'node:stream';
import { Emitter, type Event } from '../core/lifecycle';
import type { ToolCallOptions } from '../core/invoker';
import type { ToolResult } from '../core/toolResult';
import type { ResolvedServer } from './config';
import { redact } from './redact';
import { augmentedPath } from './shellPath';
import {
  CallError,
  closeSession,
  createClient,
  describeStartFailure,
  listAllTools,
  MAX_TIMER_MS,
  rawResultSchema,
  shouldFallBackToSse,
  StderrTail,
  timeoutError,
  toCallError,
  TrackedStdioTransport,
  type ElicitAnswer,
  type ElicitParams,
  type LogLevel,
  type Session,
} from './transport';

export { CallError, type ElicitAnswer, type ElicitParams, type LogLevel } from './transport';
export type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
export type ServerState = 'stopped' | 'starting' | 'running' | 'error';
export interface ConnectionStatus {
  state: ServerState;
  message?: string;
}
export interface LogEntry {
  server: string;
  level: LogLevel;
  text: string;
}
/** Answers a server's elicitation request (the UI or CLI asks the user). */
export type ElicitHandler = (server: string, params: ElicitParams) => Promise<ElicitAnswer>;

export interface ConnectionOptions {
  clientInfo?: Implementation;
  /** The PATH given to stdio servers (default: the augmented login-shell PATH, computed once). */
  pathProvider?: () => Promise<string>;
  /** Reconnection after an unexpected close: `maxAttempts` tries (default 5), delays base·2^k (default 1000 ms). */
  reconnect?: { maxAttempts?: number; baseDelayMs?: number };
  /** How long `initialize` may take (default 60 s). */
  startTimeoutMs?: number;
  /** Per-call timeout when the caller gives none (default 60 s). */
  callTimeoutMs?: number;
  /**
   * HTTP and SSE servers: how often a running server is pinged (default 30 s), and how long a ping may take
   * (default 10 s). A dead HTTP server closes nothing the client can see, so without this its death would only show
   * on the next call; a transport error pings at once.
   */
  heartbeat?: { everyMs?: number; timeoutMs?: number };
  /**
   * Advertise URL-mode elicitation (the server may ask the user to open a page). Only where something can answer it:
   * the extension asks in a dialog; the CLI declines URL requests, so it does not advertise them.
   */
  urlElicitation?: boolean;
}

/** `start()` lost the race against `stop()`; the state is already 'stopped'. */
class StoppedWhileStarting extends Error {}

export class ServerConnection {
  private _config: ResolvedServer;
  private status: ConnectionStatus = { state: 'stopped' };
  private _tools: readonly Tool[] = [];
  private session?: Session;
  private gen = 0;
  private pending?: Promise<void>;
  private failures = 0;
  private runningSince = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private refreshTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private probing = false;
  /** Sessions being closed; stop() waits for them so no child process outlives the connection. */
  private readonly closing = new Set<Promise<void>>();
  private readonly tail = new StderrTail((line) => {
    this.stderrEmitter.fire(line);
    this.log('info', `[stderr] ${line}`);
  });
  private readonly stderrEmitter = new Emitter<string>();
  private readonly stateEmitter = new Emitter<ConnectionStatus>();
  private readonly toolsEmitter = new Emitter<readonly Tool[]>();
  private readonly logEmitter = new Emitter<LogEntry>();
  readonly onDidChangeState: Event<ConnectionStatus> = this.stateEmitter.event;
  readonly onDidChangeTools: Event<readonly Tool[]> = this.toolsEmitter.event;
  readonly onLog: Event<LogEntry> = this.logEmitter.event;
  /** Each line a stdio server writes to stderr, unredacted (onLog carries the redacted copy). */
  readonly onStderr: Event<string> = this.stderrEmitter.event;
  /** Answers elicitation requests; without one, every request is declined. */
  onElicit?: ElicitHandler;
  /** Elicitation requests being answered now, and the calls in flight that hear when that count leaves or reaches 0. */
  private asking = 0;
  private readonly waitListeners = new Set<(waiting: boolean) => void>();

  constructor(
    config: ResolvedServer,
    private readonly options: ConnectionOptions = {},
  ) {
    this._config = config;
  }

  get name(): string {
    return this._config.name;
  }
  get config(): ResolvedServer {
    return this._config;
  }
  get state(): ServerState {
    return this.status.state;
  }
  /** Why the server is in its state (the error, the reconnect countdown), if there is something to say. */
  get message(): string | undefined {
    return this.status.message;
  }
  get tools(): readonly Tool[] {
    return this._tools;
  }

  private hashCache?: { tools: readonly Tool[]; hashes: ReadonlyMap<string, string> };
  /** Each listed tool's definition hash by name (computed once per tool list). */
  get toolHashes(): ReadonlyMap<string, string> {
    if (this.hashCache?.tools !== this._tools) {
      this.hashCache = {
        tools: this._tools,
        hashes: new Map(this._tools.map((t) => [t.name, toolDefinitionHash(t as ToolDefinitionLike)])),
      };
    }
    return this.hashCache.hashes;
  }
  get serverInfo(): Implementation | undefined {
    return this.session?.client?.getServerVersion();
  }
  get instructions(): string | undefined {
    return this.session?.client?.getInstructions();
  }
  /** The process id of a running stdio server. */
  get pid(): number | undefined {
    const t = this.session?.transport;
    return t instanceof TrackedStdioTransport ? (t.pid ?? undefined) : undefined;
  }
  /** The last stderr lines of a stdio server (about 40 lines / 8 KB). */
  stderrTail(): string {
    return this.tail.text();
  }

  /** Replaces the configuration; takes effect at the next start (the registry restarts when it changed). */
  setConfig(config: ResolvedServer): void {
    this._config = config;
  }

  /** Starts the server if it is not running; rejects with a message naming the server when it cannot start. */
  start(): Promise<void> {
    if (this.status.state === 'running') return Promise.resolve();
    if (this.pending) return this.pending;
    clearTimeout(this.reconnectTimer);
    this.failures = 0;
    this.pending = this.connect()
      .catch((err: Error) => {
        if (!(err instanceof StoppedWhileStarting)) this.setStatus('error', err.message);
        throw err;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /** Stops the server (no reconnect) and waits for a stdio child to exit. */
  async stop(): Promise<void> {
    this.gen++;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.refreshTimer);
    clearInterval(this.heartbeatTimer);
    const session = this.session;
    this.session = undefined;
    if (session) this.close(session);
    await Promise.all(this.closing);
    if (this._tools.length) {
      this._tools = [];
      this.toolsEmitter.fire(this._tools);
    }
    if (this.status.state !== 'stopped') this.setStatus('stopped');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /**
   * Calls a tool and returns its raw result (tool failures are in-band, `isError: true`). Rejects with a
   * {@link CallError}: "Timed out after N s", "Cancelled", "Server 'x' closed the connection", or not running.
   */
  async callTool(name: string, args: Record<string, unknown>, options: ToolCallOptions = {}): Promise<ToolResult> {
    if (this.pending) await this.pending.catch(() => undefined);
    const client = this.session?.client;
    if (this.status.state !== 'running' || !client) {
      throw new CallError(
        'notRunning',
        `Server '${this.name}' is not running${this.status.message ? ` (${this.status.message})` : ''}. Start it, then try again.`,
      );
    }
    const { signal, onProgress, onWaitingForUser } = options;
    if (signal?.aborted) throw new CallError('cancelled', 'Cancelled');
    const timeout = options.timeoutMs ?? this.options.callTimeoutMs ?? 60_000;
    const started = Date.now();
    const took = () => `${Date.now() - started} ms`;
    // The timeout is ours, not the SDK's: it must stand still while the server waits for the user (an elicitation
    // form is open), which the SDK's timer cannot. Progress restarts it, as does the end of such a wait.
    const timeoutController = new AbortController();
    let timedOut = false;
    let waiting = this.asking > 0;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      if (!waiting)
        timer = setTimeout(() => {
          timedOut = true;
          timeoutController.abort();
        }, timeout);
    };
    const onWait = (now: boolean) => {
      waiting = now;
      arm();
      onWaitingForUser?.(now);
    };
    this.waitListeners.add(onWait);
    arm();
    try {
      const result = (await client.request({ method: 'tools/call', params: { name, arguments: args } }, rawResultSchema, {
        signal: signal ? AbortSignal.any([signal, timeoutController.signal]) : timeoutController.signal,
        timeout: MAX_TIMER_MS,
        // Always ask for progress: it is what restarts the timeout of a slow but alive tool.
        onprogress: (p) => {
          arm();
          onProgress?.({
            progress: p.progress,
            ...(p.total !== undefined && { total: p.total }),
            ...(p.message !== undefined && { message: p.message }),
          });
        },
      })) as ToolResult;
      this.log(result.isError ? 'warn' : 'info', `call ${name}: ${result.isError ? 'tool error' : 'ok'} in ${took()}`);
      this.failures = 0; // the server does useful work: a later crash starts a fresh series of reconnects
      return result;
    } catch (err) {
      const e = timedOut && !signal?.aborted ? timeoutError(timeout) : toCallError(err, this.name, timeout, signal);
      this.log(e.kind === 'cancelled' ? 'info' : 'error', `call ${name}: ${e.message} after ${took()}`);
      throw e;
    } finally {
      clearTimeout(timer);
      this.waitListeners.delete(onWait);
    }
  }

  /**
   * Reads a resource (an MCP App's `ui://` page) and, when the server lists resources, its `resources/list` entry's
   * `_meta` (where the page's policy may be declared instead). Rejects when the server is not running or refuses.
   */
  async readResource(uri: string, options: { timeoutMs?: number } = {}): Promise<{ read: unknown; listMeta?: unknown }> {
    if (this.pending) await this.pending.catch(() => undefined);
    const client = this.session?.client;
    if (this.status.state !== 'running' || !client) throw new CallError('notRunning', `Server '${this.name}' is not running.`);
    const timeout = options.timeoutMs ?? 30_000;
    const read = await client.readResource({ uri }, { timeout });
    let listMeta: unknown;
    if (client.getServerCapabilities()?.resources) {
      try {
        listMeta = (await client.listResources(undefined, { timeout })).resources.find((r) => r.uri === uri)?._meta;
      } catch {
        /* the list is only a fallback for the page's own _meta */
      }
    }
    this.log('info', `read ${uri}`);
    return { read, listMeta };
  }

  /** Counts elicitation requests being answered; calls in flight hear when the server starts or stops waiting. */
  private setAsking(delta: number): void {
    const was = this.asking > 0;
    this.asking = Math.max(0, this.asking + delta);
    const now = this.asking > 0;
    if (was === now) return;
    this.log(
      'debug',
      now
        ? 'waiting for the user to answer an elicitation request: call timeouts stand still'
        : 'the elicitation request was answered: call timeouts start afresh',
    );
    for (const listener of [...this.waitListeners]) listener(now);
  }

  /** Stops the server; the promise settles when its process has exited. */
  async dispose(): Promise<void> {
    await this.stop();
    this.stateEmitter.dispose();
    this.toolsEmitter.dispose();
    this.logEmitter.dispose();
    this.stderrEmitter.dispose();
  }

  private async connect(): Promise<void> {
    const gen = ++this.gen;
    const session: Session = { closed: false };
    const live = () => {
      if (gen !== this.gen) throw new StoppedWhileStarting(`Server '${this.name}' was stopped while starting.`);
    };
    if (!this.failures || this.status.state !== 'starting') this.setStatus('starting');
    const config = this._config;
    const mark = this.tail.mark();
    const timeout = this.options.startTimeoutMs ?? 60_000;
    const attach = async (transport: Transport) => {
      const client = createClient(this.options.clientInfo ?? { name: 'plangate', version: '0.1.0' }, {
        urlElicitation: this.options.urlElicitation ?? false,
        elicitHandler: () => {
          const h = this.onElicit;
          return (
            h &&
            (async (params) => {
              this.setAsking(+1);
              try {
                return await h(this.name, params);
              } finally {
                this.setAsking(-1);
              }
            })
          );
        },
        onToolsChanged: () => {
          // Until the new list is in, the old one is stale: the door waits for it before it checks a step.
          if (!this.staleTools) {
            let done!: () => void;
            this.staleTools = {
              promise: new Promise<void>((r) => {
                done = r;
              }),
              done,
            };
          }
          clearTimeout(this.refreshTimer);
          this.refreshTimer = setTimeout(() => void this.refreshTools(gen), 50);
        },
        log: (level, text) => this.log(level, text),
      });
      Object.assign(session, { client, transport });
      await client.connect(transport, { timeout });
    };
    let exitOf: () => TrackedStdioTransport['exit'] = () => undefined;
    let stdoutClosed = () => false;
    try {
      if (config.type === 'stdio') {
        const PATH = config.env.PATH ?? (await (this.options.pathProvider ?? augmentedPath)());
        live();
        const transport = new TrackedStdioTransport({
          command: config.command,
          args: config.args,
          env: { ...config.env, PATH },
          cwd: config.cwd,
          stderr: 'pipe',
        });
        exitOf = () => transport.exit;
        stdoutClosed = () => transport.stdoutClosed;
        (transport.stderr as Readable | null)
          ?.setEncoding('utf8')
          .on('data', (chunk: string) => this.tail.push(chunk))
          .on('end', () => this.tail.flush());
        this.session = session;
        await attach(transport);
      } else {
        this.session = session;
        const url = new URL(config.url);
        const requestInit = { headers: config.headers };
        try {
          await attach(
            config.type === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit }),
          );
        } catch (err) {
          if (config.type !== 'http' || !shouldFallBackToSse(err)) throw err;
          live();
          this.log('info', `Streamable HTTP answered ${(err as { code?: number }).code}; trying the legacy SSE transport`);
          await attach(new SSEClientTransport(url, { requestInit }));
        }
      }
      live();
      this._tools = await listAllTools(session.client!);
      live();
    } catch (err) {
      if (this.session === session) this.session = undefined;
      this.close(session);
      live();
      const message = describeStartFailure(err, {
        server: this.name,
        url: config.type === 'stdio' ? undefined : config.url,
        command: config.type === 'stdio' ? config.command : undefined,
        exit: exitOf(),
        stderr: this.tail.text(mark),
        timeoutMs: timeout,
      });
      throw new Error(redact(message, config.secrets));
    }
    session.client!.onclose = () =>
      this.onUnexpectedClose(
        gen,
        exitOf(),
        stdoutClosed() ? 'server closed its stdout but kept running, so it could not answer any more; it was stopped' : undefined,
      );
    this.runningSince = Date.now();
    const info = session.client!.getServerVersion();
    this.setStatus('running', info ? `${info.name} ${info.version}` : undefined);
    this.toolsEmitter.fire(this._tools);
    if (config.type !== 'stdio') this.startHeartbeat(gen, session);
  }

  /**
   * HTTP/SSE: pings the server now and then, and at once when the transport reports an error (a dropped event
   * stream, a refused reconnect). A server that does not answer is treated as closed: reconnect, then give up.
   */
  private startHeartbeat(gen: number, session: Session): void {
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => void this.probe(gen, session, 'heartbeat'), this.options.heartbeat?.everyMs ?? 30_000);
    this.heartbeatTimer.unref?.();
    session.client!.onerror = (err) => {
      this.log('debug', `transport error: ${err.message}`);
      void this.probe(gen, session, `after a transport error (${err.message})`);
    };
  }

  private async probe(gen: number, session: Session, why: string): Promise<void> {
    if (gen !== this.gen || this.session !== session || this.probing || !session.client) return;
    this.probing = true;
    try {
      await session.client.ping({ timeout: this.options.heartbeat?.timeoutMs ?? 10_000 });
    } catch (err) {
      if (gen !== this.gen || this.session !== session) return;
      // An error answer (e.g. "Method not found" from a server that skips ping) is still an answer: it is alive.
      if (err instanceof McpError && err.code !== ErrorCode.RequestTimeout && err.code !== ErrorCode.ConnectionClosed) return;
      const reason = `server stopped answering (a ping ${why} failed: ${err instanceof Error ? err.message : String(err)})`;
      this.onUnexpectedClose(gen, undefined, reason); // first: the close below then finds an old generation
      this.close(session);
    } finally {
      this.probing = false;
    }
  }

  /**
   * Resolves once the tool list is current: at once, or after the refresh that a `tools/list_changed` notification
   * started (at most `waitMs`). The door checks a step's tool definition against this list.
   */
  whenToolsFresh(waitMs = 5000): Promise<void> {
    const stale = this.staleTools;
    if (!stale) return Promise.resolve();
    return Promise.race([stale.promise, new Promise<void>((r) => setTimeout(r, waitMs).unref?.())]);
  }

  private staleTools: { promise: Promise<void>; done: () => void } | undefined;

  private async refreshTools(gen: number): Promise<void> {
    const stale = this.staleTools;
    try {
      await this.refreshToolsNow(gen);
    } finally {
      if (this.staleTools === stale) {
        this.staleTools = undefined;
        stale?.done();
      }
    }
  }

  private async refreshToolsNow(gen: number): Promise<void> {
    const client = this.session?.client;
    if (gen !== this.gen || !client) return;
    try {
      const tools = await listAllTools(client);
      if (gen !== this.gen) return;
      this._tools = tools;
      this.log('info', `tools changed: ${tools.length} tools`);
      this.toolsEmitter.fire(tools);
    } catch (err) {
      this.log('warn', `could not refresh the tools: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private onUnexpectedClose(gen: number, exit: TrackedStdioTransport['exit'], reason?: string): void {
    if (gen !== this.gen) return; // a deliberate stop/restart
    this.gen++;
    this.session = undefined;
    clearInterval(this.heartbeatTimer);
    if (Date.now() - this.runningSince > 60_000) this.failures = 0; // a server that ran a while starts a fresh series
    const how = exit ? (exit.code !== null ? `exited with code ${exit.code}` : `was killed (${exit.signal})`) : 'closed the connection';
    const last = this.tail.text().split('\n').at(-1);
    this.scheduleReconnect(reason ?? `server ${how}${last ? `; last stderr: ${last}` : ''}`);
  }

  private scheduleReconnect(reason: string): void {
    const max = this.options.reconnect?.maxAttempts ?? 5;
    if (this.failures >= max) {
      this.setStatus('error', `stopped reconnecting after ${max} failure${max === 1 ? '' : 's'}: ${reason}`);
      return;
    }
    const delay = (this.options.reconnect?.baseDelayMs ?? 1000) * 2 ** this.failures;
    this.failures++;
    this.setStatus(
      'starting',
      `${reason.split('\n')[0]!.replace(/\.$/, '')}; reconnecting in ${delay / 1000} s (attempt ${this.failures} of ${max})`,
    );
    this.reconnectTimer = setTimeout(() => {
      this.pending = this.connect()
        .catch((err: Error) => {
          if (this.status.state === 'starting' && !this.session) this.scheduleReconnect(err.message);
        })
        .finally(() => {
          this.pending = undefined;
        });
    }, delay);
  }

  private close(session: Session): void {
    const done: Promise<void> = closeSession(session).finally(() => this.closing.delete(done));
    this.closing.add(done);
  }

  private setStatus(state: ServerState, message?: string): void {
    const msg = message === undefined ? undefined : redact(message, this._config.secrets);
    this.status = msg === undefined ? { state } : { state, message: msg };
    this.log(state === 'error' ? 'error' : 'info', `${state}${msg ? `: ${msg}` : ''}`);
    this.stateEmitter.fire(this.status);
  }

  private log(level: LogLevel, text: string): void {
    this.logEmitter.fire({ server: this.name, level, text: redact(text, this._config.secrets) });
  }
}
