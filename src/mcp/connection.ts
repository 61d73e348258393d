/**
 * One MCP server: one SDK Client and its transport (stdio, Streamable HTTP with SSE fallback, or SSE), its
 * state, its tools, and reconnection with backoff after the server goes away by itself.
 */
import { toolDefinitionHash, type ToolDefinitionLike } from '../core/plan/approval';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CreateMessageResult, type Implementation, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { Emitter, type Event } from '../core/base/lifecycle';
import type { TaskReport, ToolCallOptions } from '../core/engine/invoker';
import { runToolTask, taskStatusOf } from './toolTask';
import { CallsInFlight } from './callsInFlight';
import type { ToolResult } from '../core/base/toolResult';
import type { ResolvedHttpServer, ResolvedServer } from './config';
import { redact } from './redact';
import type { RootsSource } from './roots';
import { describeNoSandbox, describeSandbox, probeSandbox, sandboxLaunch, sandboxStderrLine, type SandboxSupport } from './sandbox';
import { augmentedPath } from './shellPath';
import { describeSignInFailure, SignInError, SignInRequiredError } from './oauth/errors';
import type { RedirectReceiver } from './oauth/loopback';
import { PlangateOAuthProvider, type PreRegisteredClient } from './oauth/provider';
import { oauthKey, readRecord, type OAuthStore } from './oauth/store';
import {
  CallError,
  closeSession,
  createClient,
  describeStartFailure,
  httpStatus,
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
/** `signInRequired`: an HTTP server that wants an OAuth sign-in nobody has given yet (not an error: Sign in). */
export type ServerState = 'stopped' | 'starting' | 'running' | 'error' | 'signInRequired';
export interface ConnectionStatus {
  state: ServerState;
  message?: string;
}
export interface LogEntry {
  server: string;
  level: LogLevel;
  text: string;
}
/**
 * Answers a server's `sampling/createMessage` request (core/engine/sampling.ts): `calls` are the tool calls in flight on
 * that server when it asked; `signal` aborts when the server cancels. Rejects with the refusal the server gets.
 */
export type SamplingHandler = (
  server: string,
  params: unknown,
  calls: readonly string[],
  signal: AbortSignal,
) => Promise<CreateMessageResult>;

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
  /** OAuth sign-in for HTTP and SSE servers (without it, a 401 is an error). */
  oauth?: OAuthSupport;
  /** How sandboxed stdio servers start; without it a server that asks for a sandbox does not start. */
  sandbox?: SandboxSupportOptions;
  /** The roots offered to the server (`roots/list`); without it the client does not declare `roots`. */
  roots?: RootsSource;
  /** Answers elicitation requests (unless a connection's own {@link ServerConnection.onElicit} does); without either, they are declined. */
  elicit?: ElicitHandler;
  /** Answers sampling requests; given, the client declares `sampling` (without it, servers do not send them). */
  sampling?: SamplingHandler;
}

/** Where srt is, whether a sandbox can be had, and whether the user lets a server start unsandboxed anyway. */
export interface SandboxSupportOptions {
  /** srt's CLI (see `srtCliPath`). */
  srtPath: string;
  /** Whether a sandbox can be had (default {@link probeSandbox} on this platform, once per PATH). */
  probe?: (PATH: string) => Promise<SandboxSupport>;
  /** The user's `plangate.sandbox.allowUnsandboxed` (read at each start). */
  allowUnsandboxed?: () => boolean;
  /** How the refusal tells the user to start the server unsandboxed anyway (default: the user setting). */
  unsandboxedHint?: string;
}

const probes = new Map<string, Promise<SandboxSupport>>();
const cachedProbe = (PATH: string) => {
  let p = probes.get(PATH);
  if (!p) probes.set(PATH, (p = probeSandbox(process.platform, PATH)));
  return p;
};

/** How connections sign in to servers that ask for OAuth (MCP authorization spec). */
export interface OAuthSupport {
  /** Where registrations and tokens are kept. */
  store: OAuthStore;
  /** The part of the storage key besides the server URL: the workspace (extension) or the run (CLI). */
  scope: string;
  /** The `client_name` registered with authorization servers. */
  clientName: string;
  /** Pre-registered clients by server name (mcp.json `oauth`, `--client-id`); others register dynamically. */
  preRegistered?(server: string): PreRegisteredClient | undefined;
  /** A Client ID Metadata Document URL (`--client-metadata-url`): the client id where the authorization server takes one. */
  clientMetadataUrl?: string;
  /** What signs the user in; without it a server that wants a sign-in stays "sign-in required". */
  interaction?: SignInInteraction;
  /** Sign in as part of `start()` when the server asks (the CLI); otherwise `start()` ends in `signInRequired`. */
  signInOnStart?: boolean;
  /** How long to wait for the browser to come back (default 5 min). */
  waitMs?: number;
}

/** The user's side of a sign-in: a redirect listener and a browser. */
export interface SignInInteraction {
  /** Starts listening for the redirect (on `preferredPort`, the one registered before, when it is free). */
  listen(preferredPort: number | undefined): Promise<RedirectReceiver>;
  /** Sends the user to the authorization URL (opens the browser, or prints the URL). */
  open(url: URL, server: string): Promise<void>;
}

/**
 * A sign-in failure in words: the step and URL where the authorization server first refused (the SDK may retry and
 * fail later for a reason that hides it), else where the flow was when it failed.
 */
function describeFailure(server: string, provider: PlangateOAuthProvider, err: unknown): string {
  const refused = provider.refusal;
  if (refused) return describeSignInFailure(server, refused.step, refused.url, new Error(refused.said));
  if (err instanceof SignInError) return describeSignInFailure(server, err.step, err.url, err.message);
  return describeSignInFailure(server, provider.step, provider.stepUrl, err);
}

/** A server that asks for a sandbox where none can be had; the message says why and what to install. */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxUnavailableError';
  }
}

/**
 * Whether `err` is a server's refusal for want of a sign-in (401) or of scope (403 insufficient_scope): the session's
 * provider throws SignInRequiredError; the SDK itself throws a 403 when the same challenge comes back after a step-up.
 */
function signInRefusal(err: unknown): { message: string; scope?: string; stepUp: boolean; resourceMetadataUrl?: URL } | undefined {
  if (err instanceof SignInRequiredError)
    return { message: err.message, scope: err.scope, stepUp: err.stepUp, resourceMetadataUrl: err.resourceMetadataUrl };
  if (httpStatus(err) === 403 && /after trying upscoping/.test((err as Error).message))
    return { message: 'it still answers 403 insufficient_scope', stepUp: false };
  return undefined;
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
  /** Aborts a sign-in that waits for the browser (stop() cancels it). */
  private signInAbort?: AbortController;
  /** Sessions being closed; stop() waits for them so no child process outlives the connection. */
  private readonly closing = new Set<Promise<void>>();
  private readonly tail = new StderrTail(
    (line) => {
      this.stderrEmitter.fire(line);
      if (!this.sandboxed) return this.log('info', `[stderr] ${line}`);
      const config = this._config;
      const sorted = sandboxStderrLine(
        line,
        config.type === 'stdio' ? config.sandbox?.rules : undefined,
        config.type === 'stdio' ? (config.env.HOME ?? homedir()) : undefined,
      );
      this.log(sorted.level, sorted.text);
    },
    // srt's own start-up chatter stays out of the tail that start failures quote.
    (line) => this.sandboxed && sandboxStderrLine(line).level === 'trace',
  );
  /** Whether the running (or last started) process runs in a sandbox. */
  sandboxed = false;
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
  /** The calls in flight, each with its clock, and the server's waits for the user that stop those clocks. */
  private readonly calls = new CallsInFlight((level, text) => this.log(level, text));

  /** The subscription to the roots' changes (disposed with the connection). */
  private readonly rootsListener?: { dispose(): void };

  constructor(
    config: ResolvedServer,
    private readonly options: ConnectionOptions = {},
  ) {
    this._config = config;
    this.rootsListener = options.roots?.onDidChange?.(() => this.rootsChanged());
  }

  /** Tells a running server that the roots changed (`notifications/roots/list_changed`); it asks again with `roots/list`. */
  private rootsChanged(): void {
    const client = this.session?.client;
    if (this.status.state !== 'running' || !client) return;
    this.log('info', 'roots changed: notifying the server');
    client.sendRootsListChanged().catch((err: unknown) => {
      this.log('warn', `could not tell the server that the roots changed: ${err instanceof Error ? err.message : String(err)}`);
    });
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
    return this.begin(this.options.oauth?.signInOnStart === true);
  }

  /**
   * Signs in to the server (opening the browser through the sign-in interaction) and starts it. Resolves once it
   * runs; rejects with a message naming the failed step and URL. A running server is signed in again.
   */
  async signIn(): Promise<void> {
    if (!this.options.oauth?.interaction) throw new Error(`Server '${this.name}': nothing here can open a browser to sign in.`);
    if (this.status.state === 'running' || this.status.state === 'starting') await this.stop();
    return this.begin(true);
  }

  /** Forgets the server's tokens and client registration, and stops it: it is "sign-in required" until signed in again. */
  async signOut(): Promise<void> {
    const oauth = this.options.oauth;
    await this.stop();
    if (oauth && this._config.type !== 'stdio') await oauth.store.delete(oauthKey(oauth.scope, this._config.url));
    this.setStatus('signInRequired', 'Signed out.');
  }

  private begin(interactive: boolean): Promise<void> {
    if (this.status.state === 'running') return Promise.resolve();
    if (this.pending) return this.pending;
    clearTimeout(this.reconnectTimer);
    this.failures = 0;
    this.pending = this.connect(interactive)
      .catch((err: Error) => {
        if (err instanceof SignInRequiredError) this.setStatus('signInRequired', err.message);
        else if (!(err instanceof StoppedWhileStarting)) this.setStatus('error', err.message);
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
    this.signInAbort?.abort();
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
    // The timeout stands still while the server waits for the user; progress restarts it; the caller's signal aborts it
    // (callsInFlight.ts).
    const clock = this.calls.start(name, timeout, onWaitingForUser, signal);
    const asTask = options.task?.resume !== undefined || this.callsAsTask(name, options.task?.prefer === true);
    // A task already created is watched on a retry after sign-in, never created again (nothing is sent twice).
    let taskId = options.task?.resume;
    const sendTask = () =>
      runToolTask({
        client,
        server: this.name,
        tool: name,
        args,
        ...(taskId !== undefined ? { resume: taskId } : {}),
        signal: clock.signal,
        // Each status poll is a sign of life: it restarts the timeout, as progress does.
        onTask: (task) => {
          taskId = task.taskId;
          clock.alive();
          options.task?.onTask?.(task);
        },
        onProgress: (p) => {
          clock.alive();
          onProgress?.(p);
        },
        log: (level, text) => this.log(level, text),
      });
    const send = async () =>
      asTask
        ? await sendTask()
        : ((await client.request({ method: 'tools/call', params: { name, arguments: args } }, rawResultSchema, {
            signal: clock.signal,
            timeout: MAX_TIMER_MS,
            // Always ask for progress: it is what restarts the timeout of a slow but alive tool.
            onprogress: (p) => {
              clock.alive();
              onProgress?.({
                progress: p.progress,
                ...(p.total !== undefined && { total: p.total }),
                ...(p.message !== undefined && { message: p.message }),
              });
            },
          })) as ToolResult);
    try {
      // A refusal for want of a sign-in or of scope (the HTTP layer refused it: nothing ran) signs in and sends once more.
      const result = await this.withSignIn(`'${name}'`, true, send, undefined, clock.wait);
      this.log(result.isError ? 'warn' : 'info', `call ${name}: ${result.isError ? 'tool error' : 'ok'} in ${took()}`);
      this.failures = 0; // the server does useful work: a later crash starts a fresh series of reconnects
      return result;
    } catch (err) {
      if (err instanceof SignInRequiredError && !this.options.oauth?.interaction) this.setStatus('signInRequired', err.message);
      const e =
        clock.timedOut && !signal?.aborted
          ? timeoutError(timeout)
          : err instanceof CallError
            ? err
            : toCallError(err, this.name, timeout, signal);
      this.log(e.kind === 'cancelled' ? 'info' : 'error', `call ${name}: ${e.message} after ${took()}`);
      throw e;
    } finally {
      clock.end();
    }
  }

  /**
   * Whether `tools/call` of `name` goes as a task: the server declares task-augmented tool calls, and the tool's listed
   * definition requires it (`execution.taskSupport: "required"`) or allows it and the caller prefers it.
   */
  private callsAsTask(name: string, prefer: boolean): boolean {
    if (!this.session?.client?.getServerCapabilities()?.tasks?.requests?.tools?.call) return false;
    const support = (this._tools.find((t) => t.name === name) as { execution?: { taskSupport?: unknown } } | undefined)?.execution
      ?.taskSupport;
    return support === 'required' || (support === 'optional' && prefer);
  }

  /** The status of task `taskId` now (`tasks/get`), or undefined when the server is not running or does not know it. */
  async taskStatus(taskId: string): Promise<TaskReport | undefined> {
    if (this.pending) await this.pending.catch(() => undefined);
    const client = this.session?.client;
    if (this.status.state !== 'running' || !client) return undefined;
    return taskStatusOf(client, taskId);
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

  /**
   * Reads the resource a `resource_link` of this server's result named (`resources/read`, nothing else): the raw,
   * untrusted answer (core/base/resourceLink.ts checks it). Rejects when the server is not running or refuses.
   */
  async readLinkedResource(uri: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<unknown> {
    if (this.pending) await this.pending.catch(() => undefined);
    const client = this.session?.client;
    if (this.status.state !== 'running' || !client) throw new CallError('notRunning', `Server '${this.name}' is not running.`);
    const read = await client.readResource({ uri }, { timeout: options.timeoutMs ?? 30_000, signal: options.signal });
    this.log('info', `read linked resource ${uri}`);
    return read;
  }

  /** Stops the server; the promise settles when its process has exited. */
  async dispose(): Promise<void> {
    this.rootsListener?.dispose();
    await this.stop();
    this.stateEmitter.dispose();
    this.toolsEmitter.dispose();
    this.logEmitter.dispose();
    this.stderrEmitter.dispose();
  }

  private async connect(interactive = false): Promise<void> {
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
          const h = this.onElicit ?? this.options.elicit;
          return h && ((params) => this.calls.whileAsking(() => h(this.name, params)));
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
        roots: this.options.roots && (() => this.options.roots!.roots()),
        // The user's review of a sampling request is a wait for the user, like an elicitation form: timeouts stand still.
        sampling:
          this.options.sampling &&
          ((params, signal) => this.calls.whileAsking(() => this.options.sampling!(this.name, params, this.calls.tools, signal))),
      });
      Object.assign(session, { client, transport });
      await client.connect(transport, { timeout });
    };
    let exitOf: () => TrackedStdioTransport['exit'] = () => undefined;
    let stdoutClosed = () => false;
    let provider: PlangateOAuthProvider | undefined;
    try {
      if (config.type === 'stdio') {
        const PATH = config.env.PATH ?? (await (this.options.pathProvider ?? augmentedPath)());
        live();
        let launch = { command: config.command, args: config.args, env: { ...config.env, PATH } };
        let sandboxed = false;
        let settingsFile: string | undefined;
        if (config.sandbox) {
          const opts = this.options.sandbox;
          const support: SandboxSupport = opts
            ? await (opts.probe ?? cachedProbe)(PATH)
            : { ok: false, reason: 'this host does not run sandboxed servers', fix: 'Start it from VS Code or the plangate CLI.' };
          live();
          if (support.ok) {
            const l = await sandboxLaunch(config.sandbox.rules, config.command, config.args, opts!.srtPath);
            live();
            launch = { command: l.command, args: l.args, env: { ...launch.env, ...l.env } };
            settingsFile = l.settingsFile;
            sandboxed = true;
            this.log('info', `starting in a sandbox — ${describeSandbox(config.sandbox).join('; ')}`);
          } else if (opts?.allowUnsandboxed?.()) {
            this.log(
              'warn',
              `starting WITHOUT a sandbox although it asks for one (${support.reason}), because plangate.sandbox.allowUnsandboxed is set in your user settings`,
            );
          } else {
            throw new SandboxUnavailableError(describeNoSandbox(this.name, config.sandbox, support, opts?.unsandboxedHint));
          }
        }
        const transport = new TrackedStdioTransport({ ...launch, cwd: config.cwd, stderr: 'pipe' });
        this.sandboxed = sandboxed;
        exitOf = () => transport.exit;
        stdoutClosed = () => transport.stdoutClosed;
        (transport.stderr as Readable | null)
          ?.setEncoding('utf8')
          .on('data', (chunk: string) => this.tail.push(chunk))
          .on('end', () => this.tail.flush());
        this.session = session;
        try {
          await attach(transport);
        } finally {
          // srt read its settings before the server could answer "initialize"; the rules stay in force.
          if (settingsFile) void rm(path.dirname(settingsFile), { recursive: true, force: true }).catch(() => undefined);
        }
      } else {
        this.session = session;
        const url = new URL(config.url);
        const requestInit = { headers: config.headers };
        // The session's provider never opens a browser: a 401 or 403 at any request (initialize, tools/list, a call)
        // surfaces as SignInRequiredError, and `withSignIn` decides whether the user signs in now.
        provider = this.oauthFor(config) && this.provider(config, undefined);
        const make = (sse: boolean) => {
          const authOptions = provider ? { authProvider: provider, fetch: provider.fetch() } : {};
          return sse
            ? new SSEClientTransport(url, { requestInit, ...authOptions })
            : new StreamableHTTPClientTransport(url, { requestInit, ...authOptions });
        };
        const attachHttp = async () => {
          if (session.client) {
            // A refused initialize: the next attempt is a new client on a new transport.
            await session.client.close().catch(() => undefined);
            live();
          }
          try {
            await attach(make(config.type === 'sse'));
          } catch (err) {
            if (config.type !== 'http' || !shouldFallBackToSse(err)) throw err;
            live();
            this.log('info', `Streamable HTTP answered ${(err as { code?: number }).code}; trying the legacy SSE transport`);
            await attach(make(true));
          }
        };
        await this.withSignIn('initialize', interactive, attachHttp, live);
      }
      live();
      this._tools = await this.withSignIn('tools/list', interactive, () => listAllTools(session.client!), live);
      live();
    } catch (err) {
      if (this.session === session) this.session = undefined;
      this.close(session);
      live();
      if (err instanceof SignInRequiredError || err instanceof SandboxUnavailableError) throw err;
      // A sign-in that failed or was refused, or a server that refuses even after it: the message says which (redacted).
      if (err instanceof CallError) throw new Error(err.message);
      if (config.type !== 'stdio' && (err instanceof SignInError || provider?.authActive)) {
        const unauthorized = httpStatus(err) === 401;
        throw new Error(
          redact(
            unauthorized
              ? `Server '${this.name}' still answers 401 Unauthorized at ${config.url} after signing in: it does not accept the token it got. Sign in again, or check the server.`
              : describeFailure(this.name, provider!, err),
            [...config.secrets, ...provider!.secrets()],
          ),
        );
      }
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
   * Sends one request (`what`: initialize, tools/list, a tool call); when the server refuses it for want of a sign-in
   * (401) or of scope (403 insufficient_scope) — the HTTP layer refused it, so nothing ran — and `interactive`, the user
   * signs in (the browser) and the request is sent once more. A second refusal may sign in once more only to widen the
   * scope (a step-up asking for a scope not just granted); otherwise it is final, and says so naming the server. Never
   * sends anything again without a sign-in in between. Not interactive: the refusal is thrown as it is.
   */
  private async withSignIn<T>(
    what: string,
    interactive: boolean,
    send: () => Promise<T>,
    live: () => void = () => undefined,
    onWait?: (waiting: boolean) => void,
  ): Promise<T> {
    const granted = new Set<string>();
    for (;;) {
      try {
        return await send();
      } catch (err) {
        const refusal = signInRefusal(err);
        if (!refusal || !interactive || !this.options.oauth?.interaction || this._config.type === 'stdio') throw err;
        const scope = refusal.scope;
        if (granted.size >= 2 || (granted.size > 0 && (!refusal.stepUp || granted.has(scope ?? '')))) {
          throw new CallError(
            'failed',
            `Server '${this.name}' still refuses ${what} after signing in${scope ? ` (it asks for scope: ${scope})` : ''}: the account may lack that permission. Nothing ran; sign in with an account that has it, or check the server.`,
          );
        }
        this.log('info', `${what}: ${refusal.message}`);
        const before = this.status;
        if (before.state === 'starting') this.setStatus('starting', 'waiting for the sign-in in the browser');
        onWait?.(true);
        try {
          await this.authorizeAgain(scope, refusal.resourceMetadataUrl);
        } finally {
          onWait?.(false);
        }
        live();
        granted.add(scope ?? '');
      }
    }
  }

  /**
   * Signs in (the browser) for `scope`: the SDK's `auth()` with a provider that may not refresh, so it authorizes — a
   * first sign-in, an expired token beyond refresh, or a step-up to a wider scope.
   */
  private async authorizeAgain(scope: string | undefined, resourceMetadataUrl?: URL): Promise<void> {
    const oauth = this.options.oauth!;
    const config = this._config;
    if (config.type === 'stdio') return;
    const receiver = await oauth.interaction!.listen(await this.registeredPort());
    const provider = this.provider(config, receiver);
    provider.requireAuthorization();
    const fetchFn = provider.fetch();
    this.signInAbort = new AbortController();
    try {
      const result = await auth(provider, { serverUrl: config.url, scope, resourceMetadataUrl, fetchFn });
      if (result === 'REDIRECT') {
        const code = await receiver
          .code(provider.expectedState ?? '', this.signInAbort.signal, oauth.waitMs ?? 300_000)
          .catch((e: Error) => {
            throw new SignInError('authorization', provider.stepUrl, e.message);
          });
        provider.step = 'token';
        await auth(provider, { serverUrl: config.url, scope, resourceMetadataUrl, fetchFn, authorizationCode: code });
      }
      this.log('info', `signed in${scope ? ` with scope ${scope}` : ''}`);
    } catch (err) {
      throw new CallError('failed', redact(describeFailure(this.name, provider, err), [...config.secrets, ...provider.secrets()]));
    } finally {
      receiver.close();
    }
  }

  /** The sign-in support for an HTTP server, unless none is configured or its headers carry their own Authorization. */
  private oauthFor(config: ResolvedServer): OAuthSupport | undefined {
    const oauth = this.options.oauth;
    if (!oauth || config.type === 'stdio') return undefined;
    if (Object.keys(config.headers).some((h) => h.toLowerCase() === 'authorization')) return undefined;
    return oauth;
  }

  /** A provider over the server's stored sign-in: interactive with a redirect receiver, else background. */
  private provider(config: ResolvedHttpServer, receiver: RedirectReceiver | undefined): PlangateOAuthProvider {
    const oauth = this.options.oauth!;
    const interaction = oauth.interaction;
    return new PlangateOAuthProvider({
      store: oauth.store,
      key: oauthKey(oauth.scope, config.url),
      serverUrl: config.url,
      clientName: oauth.clientName,
      preRegistered: config.oauth ?? oauth.preRegistered?.(this.name),
      clientMetadataUrl: oauth.clientMetadataUrl,
      interactive:
        receiver && interaction
          ? {
              redirectUrl: receiver.redirectUrl,
              open: async (url) => {
                this.log(
                  'info',
                  `sign-in: opening the authorization page of ${url.origin}${url.pathname}; the browser comes back to ${url.searchParams.get('redirect_uri')}`,
                );
                await interaction.open(url, this.name);
              },
            }
          : undefined,
    });
  }

  /** The loopback port of the redirect URI registered last time (registering again is needed when it moves). */
  private async registeredPort(): Promise<number | undefined> {
    const oauth = this.options.oauth;
    if (!oauth || this._config.type === 'stdio') return undefined;
    const client = (await readRecord(oauth.store, oauthKey(oauth.scope, this._config.url))).client;
    const uri = client && 'redirect_uris' in client ? (client.redirect_uris as string[] | undefined)?.[0] : undefined;
    const port = uri && URL.canParse(uri) ? Number(new URL(uri).port) : NaN;
    return Number.isInteger(port) && port > 0 ? port : undefined;
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
      // An error answer (e.g. "Method not found" from a server that skips ping) is still an answer: it is alive. So is
      // a refusal for want of a sign-in (a server that asks for one only after initialize): the next call signs in.
      if (err instanceof McpError && err.code !== ErrorCode.RequestTimeout && err.code !== ErrorCode.ConnectionClosed) return;
      if (signInRefusal(err)) return;
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
          if (err instanceof SignInRequiredError) this.setStatus('signInRequired', err.message);
          else if (this.status.state === 'starting' && !this.session) this.scheduleReconnect(err.message);
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
