// A ToolInvoker over real SDK Clients (each connected to a real MCP server: in memory through
// InMemoryTransport.createLinkedPair(), or over stdio), for the runner's tests. It is the smallest faithful adapter:
// catalog = tools/list of each server in the order given; callTool = client.callTool with the signal, timeout and
// progress options mapped onto the SDK's RequestOptions, and a lost connection reported as the runner expects.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { toolDefinitionHash, type ToolDefinitionLike } from '../../../src/core/plan/approval';
import type { ServerTools, ToolCallOptions, ToolInvoker } from '../../../src/core/engine/invoker';
import type { ToolResult } from '../../../src/core/base/toolResult';

export interface InvokerCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
}

export class ClientInvoker implements ToolInvoker {
  /** Every callTool made through this invoker, in order. */
  readonly calls: InvokerCall[] = [];

  constructor(private readonly servers: { name: string; client: Client }[]) {}

  async catalog(): Promise<readonly ServerTools[]> {
    const out: ServerTools[] = [];
    for (const { name, client } of this.servers) {
      const tools: string[] = [];
      const hashes = new Map<string, string>();
      const definitions = new Map<string, ToolDefinitionLike>();
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        tools.push(...page.tools.map((t) => t.name));
        for (const t of page.tools) {
          hashes.set(t.name, toolDefinitionHash(t as ToolDefinitionLike));
          definitions.set(t.name, t as ToolDefinitionLike);
        }
        cursor = page.nextCursor;
      } while (cursor);
      out.push({ server: name, tools, hashes, definitions });
    }
    return out;
  }

  /** The tools of `server` as it lists them (the definitions: annotations, `_meta`, schemas), for the policy's tests. */
  async definitions(server: string): Promise<{ name: string; annotations?: unknown; _meta?: unknown }[]> {
    const entry = this.servers.find((s) => s.name === server);
    return entry ? (await entry.client.listTools()).tools : [];
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, options: ToolCallOptions = {}): Promise<ToolResult> {
    const entry = this.servers.find((s) => s.name === server);
    if (!entry) throw new Error(`Server '${server}' is not connected.`);
    this.calls.push({ server, tool, args });
    const onProgress = options.onProgress;
    try {
      return (await entry.client.callTool({ name: tool, arguments: args }, undefined, {
        signal: options.signal,
        timeout: options.timeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: onProgress ? (p) => onProgress({ progress: p.progress, total: p.total, message: p.message }) : undefined,
      })) as ToolResult;
    } catch (err) {
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        throw Object.assign(new Error(`Server '${server}' closed the connection`), { code: err.code });
      }
      throw err;
    }
  }
}

/** Connects each server in memory (in the order given, which is the catalog's configuration order). */
export async function connectInMemory(
  servers: { name: string; server: McpServer | Server }[],
): Promise<{ invoker: ClientInvoker; close(): Promise<void> }> {
  const connected: { name: string; client: Client; server: McpServer | Server }[] = [];
  for (const { name, server } of servers) {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'plangate-test', version: '0.0.0' });
    await client.connect(clientSide);
    connected.push({ name, client, server });
  }
  return {
    invoker: new ClientInvoker(connected),
    async close() {
      for (const c of connected) {
        await c.client.close().catch(() => undefined);
        await c.server.close().catch(() => undefined);
      }
    },
  };
}
