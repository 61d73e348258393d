// A small stdio MCP server for the CLI's elicitation tests: its tools ask the client with `elicitation/create` and
// answer with what came back ("action: …\ncontent: …"). The fixture's elicit_name has no defaults; these do.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';

const server = new McpServer({ name: 'cli-elicit-test', version: '1.0.0' }, { capabilities: { tools: {} } });

function register(name: string, requestedSchema: ElicitRequestFormParams['requestedSchema']): void {
  server.registerTool(name, { description: `Elicits ${Object.keys(requestedSchema.properties).join(', ')}` }, async (extra) => {
    const result = await server.server.elicitInput(
      { mode: 'form', message: `Settings for ${name}?`, requestedSchema },
      { relatedRequestId: extra.requestId },
    );
    return { content: [{ type: 'text', text: `action: ${result.action}\ncontent: ${JSON.stringify(result.content ?? null)}` }] };
  });
}

// Every required field has a default: accepted with the defaults under --yes without a terminal.
register('ask_defaults', {
  type: 'object',
  properties: {
    color: { type: 'string', title: 'Color', enum: ['red', 'blue'], default: 'blue' },
    count: { type: 'integer', title: 'Count', minimum: 1, maximum: 9, default: 3 },
    note: { type: 'string', title: 'Note' },
  },
  required: ['color', 'count'],
});

// A required field without a default: declined without a terminal, even under --yes.
register('ask_required', {
  type: 'object',
  properties: {
    token: { type: 'string', title: 'Token', minLength: 2 },
    verbose: { type: 'boolean', title: 'Verbose', default: false },
  },
  required: ['token'],
});

process.stdin.on('end', () => process.exit(0));
void server.connect(new StdioServerTransport());
