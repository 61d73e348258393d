/**
 * The wire of the gate channel: the local, per-window connection between a gated server (the stdio proxy VS Code
 * starts) and the Plangate extension that answers its calls. Newline-delimited JSON-RPC 2.0 over a Unix domain
 * socket (a named pipe on Windows). Shared by both ends; Node only, no vscode, no SDK.
 *
 * A connection is refused unless its first line is a `plangate/hello` request carrying the window's secret.
 * After that the proxy sends `tools/list` and `tools/call` requests and `notifications/cancelled`; the extension
 * answers, and sends `notifications/progress` (for a call) and `notifications/tools/list_changed`.
 */

/** Environment of a gated server process: where the channel is, the window's secret, which server it fronts. */
export const GateEnv = {
  socket: 'PLANGATE_GATE_SOCKET',
  secret: 'PLANGATE_GATE_SECRET',
  server: 'PLANGATE_GATE_SERVER',
} as const;

/** Bumped when the wire changes incompatibly; the hello carries it. */
export const GATE_PROTOCOL_VERSION = 1;

export const GateMethods = {
  /** proxy → extension, first line: `{secret, server, protocol}` → {@link HelloResult}. */
  hello: 'plangate/hello',
  /** proxy → extension: `{}` → `{tools}` (the real server's tools, unchanged). */
  listTools: 'tools/list',
  /** proxy → extension: {@link CallParams} → a CallToolResult. */
  callTool: 'tools/call',
  /** proxy → extension: `{requestId, reason?}` — the agent cancelled that call. */
  cancelled: 'notifications/cancelled',
  /** extension → proxy: {@link ProgressParams} while a call waits or runs. */
  progress: 'notifications/progress',
  /** extension → proxy: `{}` — the real server's tool list changed. */
  toolsChanged: 'notifications/tools/list_changed',
} as const;

/** Error codes the extension answers with (JSON-RPC's application range). */
export const GateErrors = {
  /** The hello was missing, malformed, late, or carried the wrong secret. */
  refused: -32001,
  /** A request the channel does not know. */
  methodNotFound: -32601,
  invalidParams: -32602,
  /** The handler failed; the message says why. */
  internal: -32603,
} as const;

export interface HelloParams {
  secret: string;
  /** The Plangate server this gated server fronts (its name in mcp.json or plangate.servers). */
  server: string;
  protocol: number;
}

/** What the proxy learns at hello: passed on in its own `initialize` answer. */
export interface HelloResult {
  serverInfo?: { name: string; version: string; title?: string };
  instructions?: string;
}

export interface CallParams {
  name: string;
  arguments: Record<string, unknown>;
  /** The agent's request carried a progressToken: the extension may send progress for it. */
  wantsProgress?: boolean;
}

export interface ProgressParams {
  /** The id of the `tools/call` request this progress belongs to. */
  requestId: number;
  message: string;
}

export type JsonRpcId = number | string;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: unknown;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result?: unknown;
  error?: { code: number; message: string };
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Longest line accepted before the hello is through: a hello is a few hundred bytes. */
export const MAX_HELLO_LINE = 8 * 1024;
/** Longest line accepted afterwards (a tool result with images can be large). */
export const MAX_LINE = 64 * 1024 * 1024;

/** One message as a line. */
export function encodeLine(message: JsonRpcMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/**
 * Splits a byte stream into lines and parses each as JSON. A line longer than `maxLine()` is an error (the
 * reader then stops); a line that is not a JSON object is reported through `onBadLine` and skipped.
 */
export class LineReader {
  private buffer = '';
  private failed = false;

  constructor(
    private readonly maxLine: () => number,
    private readonly onMessage: (message: Record<string, unknown>) => void,
    private readonly onTooLong: () => void,
    private readonly onBadLine: (line: string) => void = () => undefined,
  ) {}

  push(chunk: string): void {
    if (this.failed) return;
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (line.length > this.maxLine()) return this.fail();
      if (line.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        this.onBadLine(line);
        continue;
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) this.onBadLine(line);
      else this.onMessage(parsed as Record<string, unknown>);
      if (this.failed) return;
    }
    if (this.buffer.length > this.maxLine()) this.fail();
  }

  private fail(): void {
    this.failed = true;
    this.buffer = '';
    this.onTooLong();
  }
}

/** Own-property read of a server-supplied object (`__proto__` and friends are plain data). */
export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}
