/**
 * The gated server: an MCP server (spoken to by VS Code's agent over stdio) that fronts one Plangate server. It
 * forwards `tools/list` and `tools/call` over the gate channel to the running extension, which answers through the
 * same connection, classification and panel as manual calls. Tools pass through unchanged (annotations, titles,
 * schemas), so the agent's own confirmation rules still apply — but for a server app's address, which the extension
 * leaves out (core/apps/appTool.ts `withoutAppUi`). When the channel is gone every request gets a clear error at once
 * instead of hanging.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
} from '@modelcontextprotocol/sdk/types.js';
import { ChannelClient, ChannelClosedError, ChannelRequestError } from './channelClient';
import { field, GateMethods } from './channelProtocol';

export interface GatedProxyOptions {
  /** The channel's socket path (or pipe name). */
  socketPath: string;
  secret: string;
  /** The Plangate server this gated server fronts. */
  server: string;
  /** How long connecting to the channel may take (default 10 s). */
  connectTimeoutMs?: number;
  /** Diagnostics (the program writes them to stderr, which VS Code shows in the server's output). */
  log?: (line: string) => void;
}

export interface GatedProxy {
  readonly server: Server;
  /** Why the channel is unusable, or undefined while it is open. */
  readonly channelError: string | undefined;
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

const VERSION = '0.1.0';

/**
 * Connects to the channel (a failure is remembered, not thrown: the proxy still starts and answers every request
 * with that failure) and builds the MCP server. Call `connect(transport)` to serve.
 */
export async function createGatedProxy(options: GatedProxyOptions): Promise<GatedProxy> {
  const log = options.log ?? (() => undefined);
  let channel: ChannelClient | undefined;
  let channelError: string | undefined;
  try {
    channel = await ChannelClient.connect({
      path: options.socketPath,
      secret: options.secret,
      server: options.server,
      timeoutMs: options.connectTimeoutMs,
    });
  } catch (err) {
    channelError = err instanceof Error ? err.message : String(err);
    log(`plangate gated server '${options.server}': ${channelError}`);
  }
  channel?.onClose((reason) => {
    channelError = reason;
    log(`plangate gated server '${options.server}': ${reason}`);
  });

  const info = channel?.hello.serverInfo;
  const server = new Server(
    {
      name: info ? `${info.name} (gated by Plangate)` : `${options.server} (gated by Plangate)`,
      version: info?.version ?? VERSION,
      title: `${options.server} (gated)`,
    },
    {
      capabilities: { tools: { listChanged: true } },
      ...(channel?.hello.instructions ? { instructions: channel.hello.instructions } : {}),
    },
  );
  const unavailable = () =>
    `Plangate cannot answer for server '${options.server}': ${channelError ?? 'the channel is closed.'} ` +
    "Restart this server from VS Code's MCP server list (or reload the window) once Plangate is running.";

  server.setRequestHandler(ListToolsRequestSchema, async (): Promise<ListToolsResult> => {
    if (!channel || channelError) throw new McpError(ErrorCode.InternalError, unavailable());
    try {
      const result = await channel.request(GateMethods.listTools, {});
      const tools = field(result, 'tools');
      return { tools: Array.isArray(tools) ? tools : [] } as ListToolsResult;
    } catch (err) {
      if (err instanceof ChannelClosedError) throw new McpError(ErrorCode.InternalError, unavailable());
      throw new McpError(ErrorCode.InternalError, err instanceof Error ? err.message : String(err));
    }
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    if (!channel || channelError) return errorResult(unavailable());
    const progressToken = request.params._meta?.progressToken;
    let requestId: number | undefined;
    let progress = 0;
    const onProgress = (method: string, params: unknown) => {
      if (
        method !== GateMethods.progress ||
        requestId === undefined ||
        field(params, 'requestId') !== requestId ||
        progressToken === undefined
      )
        return;
      const message = field(params, 'message');
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: ++progress, ...(typeof message === 'string' ? { message } : {}) },
        })
        .catch(() => undefined);
    };
    progressListeners.add(onProgress);
    const onAbort = () => {
      if (requestId !== undefined)
        channel?.notify(GateMethods.cancelled, { requestId, reason: String(extra.signal.reason ?? 'Cancelled by the client') });
    };
    extra.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await channel.request(
        GateMethods.callTool,
        {
          name: request.params.name,
          arguments: request.params.arguments ?? {},
          wantsProgress: progressToken !== undefined,
        },
        (id) => {
          requestId = id;
        },
      );
      return result as CallToolResult;
    } catch (err) {
      if (err instanceof ChannelClosedError) {
        return errorResult(
          `Plangate's channel closed while the call to '${request.params.name}' was waiting, so its outcome is unknown: ${err.message} ` +
            'Check the Plangate panel (Plans view) before calling again.',
        );
      }
      if (err instanceof ChannelRequestError) return errorResult(err.message);
      return errorResult(
        `Plangate could not answer the call to '${request.params.name}': ${err instanceof Error ? err.message : String(err)}`,
      );
    } finally {
      progressListeners.delete(onProgress);
      extra.signal.removeEventListener('abort', onAbort);
    }
  });

  const progressListeners = new Set<(method: string, params: unknown) => void>();
  channel?.onNotification((method, params) => {
    if (method === GateMethods.toolsChanged) {
      void server.sendToolListChanged().catch(() => undefined);
      return;
    }
    for (const l of progressListeners) l(method, params);
  });

  return {
    server,
    get channelError() {
      return channelError;
    },
    connect: (transport) => server.connect(transport),
    async close() {
      channel?.close();
      await server.close().catch(() => undefined);
    },
  };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
