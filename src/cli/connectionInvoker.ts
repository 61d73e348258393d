/**
 * The runner's ToolInvoker over the CLI's one connection: the catalog holds only that server, so every step's tool
 * must be on it (there is no other server to fall back to).
 */
import type { ServerTools, TaskReport, ToolCallOptions, ToolInvoker } from '../core/engine/invoker';
import type { ToolResult } from '../core/base/toolResult';
import type { ServerConnection } from '../mcp/connection';

export class ConnectionInvoker implements ToolInvoker {
  constructor(private readonly connection: ServerConnection) {}

  async catalog(): Promise<readonly ServerTools[]> {
    await this.connection.whenToolsFresh(); // a list the server announced as changed is listed again first
    return [{ server: this.connection.name, tools: this.connection.tools.map((t) => t.name), hashes: this.connection.toolHashes }];
  }

  callTool(server: string, tool: string, args: Record<string, unknown>, options?: ToolCallOptions): Promise<ToolResult> {
    if (server !== this.connection.name) {
      return Promise.reject(new Error(`Server '${server}' is not connected; the CLI talks only to '${this.connection.name}'.`));
    }
    return this.connection.callTool(tool, args, options);
  }

  taskStatus(server: string, taskId: string): Promise<TaskReport | undefined> {
    return server === this.connection.name ? this.connection.taskStatus(taskId) : Promise.resolve(undefined);
  }
}
