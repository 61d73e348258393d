/**
 * One server app's conversation with its host: ext-apps' {@link AppBridge}, given no MCP client (so nothing is
 * forwarded on its own), with every request of the app decided here. The app's `tools/call` goes only to a tool of
 * its own server that is meant for apps, through the host's `call` — the door, where the policy asks the user on the
 * single-call card (an app's calls are asked by default), denies, or lets it go, and the ledger records it; a link is
 * offered only when http(s); a message only as text; logs are clipped. What leaves the app is JSON-RPC checked by the
 * SDK's schema; anything else is dropped.
 *
 * No vscode: the host (src/ui/appHost.ts) supplies the asking, the opening, the chat and the transport to the iframe.
 */
import { AppBridge, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, McpError, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { appLogLine, checkAppToolCall, checkOpenLink, messageText } from '../core/apps/appRequests';
import type { AppToolLike } from '../core/apps/appTool';
import { GateRefusal } from '../core/engine/door';
import type { ToolResult } from '../core/base/toolResult';

/** What one app session needs from its host. */
export interface AppSessionHooks {
  /** Posts a JSON-RPC message into the app's frame. */
  post(message: JSONRPCMessage): void;
  /** The tools the app's server lists now. */
  tools(): readonly AppToolLike[];
  /**
   * A call the host handles itself instead of asking and sending it (a form app's `collect_form_data` in collect
   * mode becomes a staged submission); undefined: ask and send as usual.
   */
  stage?(tool: string, args: Record<string, unknown>): Promise<ToolResult> | undefined;
  /**
   * Sends the call through the door (entrance `app`), which asks, refuses or sends it; a refusal or a user's No
   * rejects, with the reason.
   */
  call(tool: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Asks, then opens an http(s) link; true when it was opened. */
  openLink(url: URL): Promise<boolean>;
  /** Puts text into the chat input for the user to send (never sends it); true when it got there. */
  putInChat(text: string): Promise<boolean>;
  log(level: 'debug' | 'info' | 'warn' | 'error', text: string): void;
}

/** What the session shows: the app's server and page, the call its result came from, and the host context. */
export interface AppSessionInfo {
  server: string;
  uri: string;
  tool: AppToolLike;
  args: Record<string, unknown>;
  result: ToolResult;
  hostContext: McpUiHostContext;
}

/** The JSON-RPC link between the bridge and the frame, through the host's `post` and {@link AppSession.deliver}. */
class HookTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  closed = false;
  constructor(private readonly post: (message: JSONRPCMessage) => void) {}
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.closed) this.post(message);
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/** How long a closing app has to answer `ui/resource-teardown`. */
export const TEARDOWN_TIMEOUT_MS = 2000;

export class AppSession {
  private readonly bridge: AppBridge;
  private readonly transport: HookTransport;
  private _initialized = false;
  private hostContext: McpUiHostContext;

  constructor(
    private readonly info: AppSessionInfo,
    private readonly hooks: AppSessionHooks,
  ) {
    this.hostContext = info.hostContext;
    this.transport = new HookTransport((m) => hooks.post(m));
    const bridge = (this.bridge = new AppBridge(
      null,
      { name: 'Plangate', version: '0.1.0' },
      { openLinks: {}, serverTools: {}, logging: {}, message: { text: {} } },
      { hostContext: info.hostContext },
    ));
    const from = `app ${info.uri} of server '${info.server}'`;
    bridge.oninitialized = () => {
      this._initialized = true;
      // The spec's order: the call's input once, then its result.
      void bridge
        .sendToolInput({ arguments: info.args })
        .then(() => bridge.sendToolResult(info.result as CallToolResult))
        .catch((err: unknown) => hooks.log('warn', `${from}: could not send the tool result: ${String(err)}`));
    };
    bridge.oncalltool = async (params) => this.askAndSend(params);
    bridge.onopenlink = async (params) => {
      const url = checkOpenLink(params);
      if ('error' in url) {
        hooks.log('warn', `${from}: ${url.error}`);
        return { isError: true };
      }
      const opened = await hooks.openLink(url);
      hooks.log('info', `${from} asked to open ${url.toString()}: ${opened ? 'opened' : 'not opened'}`);
      return opened ? {} : { isError: true };
    };
    bridge.onmessage = async (params) => {
      const text = messageText(params);
      if (!text) return { isError: true };
      hooks.log('info', `${from} put a message into the chat input (${text.length} characters; not sent)`);
      return (await hooks.putInChat(text)) ? {} : { isError: true };
    };
    bridge.onloggingmessage = (params) => {
      const line = appLogLine(params);
      hooks.log(line.level, `${from}: ${line.text}`);
    };
    bridge.onupdatemodelcontext = async () => {
      hooks.log('info', `${from} updated its model context (Plangate keeps none; ignored)`);
      return {};
    };
    bridge.onrequestteardown = () => hooks.log('info', `${from} asked to be closed; closing its result closes it`);
    bridge.onsizechange = () => undefined; // the webview sizes the frame itself
    void bridge.connect(this.transport);
  }

  /** The app answered `ui/initialize` and said `initialized`. */
  get initialized(): boolean {
    return this._initialized;
  }

  /** A message the app posted; anything that is not JSON-RPC is dropped. */
  deliver(message: unknown): void {
    if (this.transport.closed) return;
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (parsed.success) this.transport.onmessage?.(parsed.data);
  }

  /**
   * New host context (VS Code's theme changed), told to an initialized app at once. Before that nothing may be sent,
   * and the context it gets at its initialize is the one the session was made with.
   */
  updateContext(patch: Partial<McpUiHostContext>): void {
    this.hostContext = { ...this.hostContext, ...patch };
    if (this._initialized) this.bridge.setHostContext(this.hostContext);
  }

  /** Sends `ui/resource-teardown` (when the app was initialized) and waits for its answer, at most a while; then closes. */
  async teardown(): Promise<void> {
    if (this._initialized && !this.transport.closed) {
      try {
        await this.bridge.teardownResource({}, { timeout: TEARDOWN_TIMEOUT_MS });
      } catch {
        /* an app that does not answer is removed all the same */
      }
    }
    await this.close();
  }

  async close(): Promise<void> {
    await this.bridge.close().catch(() => undefined);
  }

  /**
   * An app's `tools/call`: its own server's app-visible tool, through the door. Refusals (here, by the policy, or the
   * user's No on the card) are JSON-RPC errors (-32000) carrying the reason; a failed call is an internal error.
   */
  private async askAndSend(params: unknown): Promise<CallToolResult> {
    const { server, uri } = this.info;
    const from = `app ${uri} of server '${server}'`;
    const checked = checkAppToolCall(server, params, this.hooks.tools());
    if ('error' in checked) {
      this.hooks.log('warn', `${from}: refused: ${checked.error}`);
      throw new McpError(-32000, checked.error);
    }
    const staged = this.hooks.stage?.(checked.tool, checked.args);
    if (staged) return (await staged) as CallToolResult;
    try {
      return (await this.hooks.call(checked.tool, checked.args)) as CallToolResult;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof GateRefusal) {
        this.hooks.log('info', `${from}: its call of '${checked.tool}' was not sent: ${message}`);
        throw new McpError(-32000, message);
      }
      throw new McpError(ErrorCode.InternalError, message);
    }
  }
}
