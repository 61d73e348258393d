/**
 * The pieces of a connection that talk to processes and sockets: the stdio transport that remembers how its
 * child exited, the stderr ring buffer, the schema validator that never loses a result, and the translation of
 * SDK start-up errors into messages that name the server and say what to do.
 */
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CreateMessageResult,
  type ElicitRequest,
  type Implementation,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpRoot } from './roots';
import { APPS_CAPABILITY } from '../core/apps/appTool';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';
export type ElicitParams = ElicitRequest['params'];
export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

/** Why a call failed: `kind` lets callers tell a timeout from a cancel from a lost connection. */
export class CallError extends Error {
  constructor(
    readonly kind: 'timeout' | 'cancelled' | 'closed' | 'notRunning' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'CallError';
  }
}

/** The error of a call that ran past its timeout. */
export function timeoutError(timeoutMs: number): CallError {
  return new CallError('timeout', `Timed out after ${Number((timeoutMs / 1000).toFixed(1))} s`);
}

/** The longest delay setTimeout takes (a larger one fires at once): the SDK's own request timer is parked there. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Maps an SDK request failure to the message users see. The SDK uses -32001 for both timeout and abort. */
export function toCallError(err: unknown, server: string, timeoutMs: number, signal: AbortSignal | undefined): CallError {
  if (signal?.aborted) return new CallError('cancelled', 'Cancelled');
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) return timeoutError(timeoutMs);
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed)
    return new CallError('closed', `Server '${server}' closed the connection`);
  return new CallError('failed', `Server '${server}': ${err instanceof Error ? err.message : String(err)}`);
}

/** Results are fetched raw (no output-schema check), so a tool whose structuredContent breaks its schema still answers. */
export const rawResultSchema = z.looseObject({});

export interface ClientHooks {
  /** Declare URL-mode elicitation besides form mode (servers send URL requests only to clients that declare it). */
  urlElicitation?: boolean;
  /** The current elicitation answerer; `undefined` declines. */
  elicitHandler(): ((params: ElicitParams) => Promise<ElicitAnswer>) | undefined;
  onToolsChanged(): void;
  log(level: LogLevel, text: string): void;
  /** The roots to answer `roots/list` with; given, the client declares `roots` (with listChanged). */
  roots?: () => readonly McpRoot[];
  /**
   * Answers `sampling/createMessage`; given, the client declares `sampling`. It resolves with the result or rejects with
   * an error whose `code` and `message` the server gets as they are (core/engine/sampling.ts's refusal).
   */
  sampling?: (params: unknown, signal: AbortSignal) => Promise<CreateMessageResult>;
}

/** A Client that answers elicitation, follows tools/list_changed and forwards server log messages. */
export function createClient(info: Implementation, hooks: ClientHooks): Client {
  const roots = hooks.roots;
  const client = new Client(info, {
    // Declared before the handlers (the SDK insists). `roots` only where something supplies them: server-filesystem
    // replaces the directories of its command line with the roots it is given.
    // `extensions`: Plangate hosts MCP Apps (src/ui/appHost.ts), so servers send their app tools and `ui://` pages.
    capabilities: {
      elicitation: hooks.urlElicitation ? { form: {}, url: {} } : { form: {} },
      ...(roots && { roots: { listChanged: true } }),
      ...(hooks.sampling && { sampling: {} }),
      extensions: APPS_CAPABILITY,
    },
    jsonSchemaValidator: tolerantValidator(),
  });
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, () => {
      const list = roots().map((r) => ({ ...r }));
      hooks.log('info', `roots/list: answered ${list.length === 0 ? 'no roots' : list.map((r) => r.uri).join(', ')}`);
      return { roots: list };
    });
  }
  const sampling = hooks.sampling;
  if (sampling) client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => sampling(request.params, extra.signal));
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const handler = hooks.elicitHandler();
    if (!handler) {
      hooks.log('info', 'elicitation declined: nothing here can answer it');
      return { action: 'decline' };
    }
    try {
      const answer = await handler(request.params);
      return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action };
    } catch (err) {
      hooks.log('warn', `elicitation failed, declined: ${err instanceof Error ? err.message : String(err)}`);
      return { action: 'decline' };
    }
  });
  // Our own handler, not the `listChanged` option: we page through tools/list, the option reads one page.
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.onToolsChanged());
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    const { level, data, logger } = n.params;
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    const mapped: LogLevel =
      level === 'debug' ? 'debug' : level === 'info' || level === 'notice' ? 'info' : level === 'warning' ? 'warn' : 'error';
    hooks.log(mapped, `${logger ? `[${logger}] ` : ''}${text}`);
  });
  client.onerror = (err) => hooks.log('debug', `transport: ${err.message}`);
  return client;
}

/** All tools, following `nextCursor` (a repeated cursor or 100 pages end the loop). */
export async function listAllTools(client: Client): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return tools;
}

/** One connection attempt: the client and transport in use (the SSE fallback replaces them). */
export interface Session {
  client?: Client;
  transport?: Transport;
  closed: boolean;
}

/** Closes the session's client (and so its transport; a stdio child is waited for). Idempotent. */
export async function closeSession(session: Session): Promise<void> {
  if (session.closed) return;
  session.closed = true;
  try {
    await session.client?.close();
  } catch {
    /* already closed */
  }
}

/** A stdio transport that records the child's exit code and signal (the SDK only reports "Connection closed"). */
export class TrackedStdioTransport extends StdioClientTransport {
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** The server closed its stdout but did not exit: nothing it says can arrive any more, so it was stopped. */
  stdoutClosed = false;

  override async start(): Promise<void> {
    await super.start();
    // The SDK keeps the child private; reading it is the only way to learn the exit code. Absent → code unknown.
    const child = (this as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (code, signal) => {
      this.exit = { code, signal };
    });
    // A server whose stdout ends while it lives on can never answer again; without this its calls would wait for
    // their timeout. An exiting server ends its stdout too, so give the exit a moment to be the one reported.
    child?.stdout?.once('end', () =>
      setTimeout(() => {
        if (this.exit || child.exitCode !== null || child.signalCode !== null) return;
        this.stdoutClosed = true;
        void this.close();
      }, STDOUT_END_GRACE_MS).unref(),
    );
  }
}

/** How long a server whose stdout ended may take to exit before it counts as "closed its stdout, still running". */
const STDOUT_END_GRACE_MS = 250;

/** The last lines a server wrote to stderr (at most `maxLines` lines and `maxBytes` characters). */
export class StderrTail {
  private lines: string[] = [];
  private partial = '';
  private total = 0;

  constructor(
    private readonly onLine: (line: string) => void,
    /** Lines passed to `onLine` but not kept (a sandbox's own chatter). */
    private readonly skip: (line: string) => boolean = () => false,
    private readonly maxLines = 40,
    private readonly maxBytes = 8192,
  ) {}

  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    if (this.partial.length > this.maxBytes) {
      parts.push(this.partial);
      this.partial = '';
    }
    for (const line of parts) this.add(line);
  }

  /** Flushes an unterminated last line (the process ended). */
  flush(): void {
    if (this.partial) this.add(this.partial);
    this.partial = '';
  }

  /** A counter to pass to {@link text} to get only the lines written since. */
  mark(): number {
    return this.total;
  }

  text(since = 0): string {
    const keep = Math.min(this.lines.length, this.total - since);
    return this.lines.slice(this.lines.length - Math.max(0, keep)).join('\n');
  }

  private add(line: string): void {
    if (this.skip(line)) return this.onLine(line);
    this.total++;
    this.lines.push(line.length > this.maxBytes ? `${line.slice(0, this.maxBytes)}…` : line);
    while (this.lines.length > this.maxLines || (this.lines.length > 1 && this.lines.join('\n').length > this.maxBytes)) this.lines.shift();
    this.onLine(line);
  }
}

/**
 * The SDK's Ajv validator, except that a schema Ajv cannot compile validates nothing instead of throwing out of
 * `tools/list`. Tool results are fetched without output validation (see `ServerConnection.callTool`).
 */
export function tolerantValidator(): jsonSchemaValidator {
  const ajv = new AjvJsonSchemaValidator();
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      try {
        return ajv.getValidator<T>(schema);
      } catch {
        return (input: unknown) => ({ valid: true, data: input as T, errorMessage: undefined });
      }
    },
  };
}

/** The HTTP status of a transport error, if it carries one. */
export function httpStatus(err: unknown): number | undefined {
  return err instanceof StreamableHTTPError || err instanceof SseError ? err.code : undefined;
}

/** Whether a Streamable HTTP failure means "try the legacy SSE transport" (a 4xx that is not about auth). */
export function shouldFallBackToSse(err: unknown): boolean {
  const code = err instanceof StreamableHTTPError ? err.code : undefined;
  return code !== undefined && code >= 400 && code < 500 && code !== 401 && code !== 403;
}

export interface StartFailureContext {
  server: string;
  url?: string;
  command?: string;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** stderr lines written during this start. */
  stderr: string;
  timeoutMs: number;
}

/** Turns an error from `Client.connect` into a message naming the server, what happened and what to do. */
export function describeStartFailure(err: unknown, ctx: StartFailureContext): string {
  const name = `Server '${ctx.server}'`;
  const tail = ctx.stderr.trim() ? `\nLast stderr lines:\n${ctx.stderr.trim()}` : '';
  const status = httpStatus(err);
  if (status === 401)
    return `${name} answered 401 Unauthorized at ${ctx.url}. Check the Authorization header in its "headers" configuration.`;
  if (status === 403) return `${name} answered 403 Forbidden at ${ctx.url}. Check the credentials in its "headers" configuration.`;
  const code = networkCode(err);
  if (code === 'ECONNREFUSED') return `${name}: nothing listens at ${ctx.url} (connection refused). Start the server, or fix "url".`;
  if (code === 'ENOTFOUND') return `${name}: the host of ${ctx.url} was not found. Fix "url".`;
  const errno = (err as NodeJS.ErrnoException | undefined)?.code;
  if (errno === 'ENOENT' && ctx.command !== undefined) {
    return `${name} could not start: command '${ctx.command}' was not found (not on PATH, nor in the usual tool directories). Install it, or set "command" to its absolute path.`;
  }
  if (errno === 'EACCES' && ctx.command !== undefined)
    return `${name} could not start: '${ctx.command}' is not executable. Fix its permissions or "command".`;
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
    const how = !ctx.exit
      ? 'closed the connection during start-up'
      : ctx.exit.code !== null
        ? `exited during start-up (exit code ${ctx.exit.code})`
        : `was killed during start-up (${ctx.exit.signal})`;
    return `${name} ${how}.${tail || ' It wrote nothing to stderr.'}`;
  }
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
    return `${name} did not answer "initialize" within ${ctx.timeoutMs / 1000} s.${tail}`;
  }
  if (status !== undefined)
    return `${name} answered HTTP ${status} at ${ctx.url}${status === 404 || status === 405 ? ' (tried Streamable HTTP and SSE)' : ''}. Check "url": the MCP endpoint is often /mcp or /sse.`;
  if (code) return `${name}: could not reach ${ctx.url} (${code}). Check that the server runs and "url" is right.`;
  const fetchFailure = ctx.url !== undefined ? describeFetchFailure(err, ctx.url) : undefined;
  if (fetchFailure) return `${name}: ${fetchFailure}`;
  return `${name} could not start: ${err instanceof Error ? err.message : String(err)}${tail}`;
}

/**
 * Node's fetch says only "fetch failed" and hides why in `cause` (a refused port, a TLS error, a reset): the innermost
 * cause in words, with where it tried and what to check. Undefined when `err` is no such failure.
 */
function describeFetchFailure(err: unknown, url: string): string | undefined {
  const messages: string[] = [];
  const seen = new Set<unknown>();
  for (let e: unknown = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const m = (e as { message?: unknown }).message;
    if (typeof m === 'string' && m.trim()) messages.push(m.trim());
  }
  if (messages[0] !== 'fetch failed') return undefined;
  let where = url;
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    /* the URL as given */
  }
  const why = messages.length > 1 ? messages[messages.length - 1]! : undefined;
  if (why === 'bad port')
    return `cannot connect to ${where}: its port is one that fetch refuses to use (a "bad port" of the Fetch standard, such as 1, 21, 22, 25 or 6000). Run the server on another port and fix "url".`;
  return `could not reach ${where} (${why ?? 'fetch failed'}). Check that the server runs there, and "url" (scheme, host, port and path).`;
}

function networkCode(err: unknown): string | undefined {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && code !== 'ENOENT' && code !== 'EACCES') return code;
    const msg = (e as { message?: unknown }).message;
    if (typeof msg === 'string') {
      const m = /\b(ECONNREFUSED|ENOTFOUND)\b/.exec(msg);
      if (m) return m[1];
    }
    e = (e as { cause?: unknown }).cause ?? (e as { event?: unknown }).event;
  }
  return undefined;
}
