// A low-level SDK Server over stdio that behaves in ways the fixture does not: tools/list in pages, a tool whose
// structuredContent breaks its declared outputSchema, one that declares an outputSchema but returns none, and an
// outputSchema Ajv cannot compile. Run: node --import tsx test/unit/helpers/mcpOddServer.ts
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

const tools: Tool[] = [
  {
    name: 'weather',
    description: 'Declares temperature: number, answers a string.',
    inputSchema: { type: 'object' },
    outputSchema: {
      type: 'object',
      properties: { temperature: { type: 'number' } },
      required: ['temperature'],
      additionalProperties: false,
    },
  },
  {
    name: 'no_structured',
    description: 'Declares an outputSchema, returns only text.',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  },
  {
    name: 'bad_schema',
    description: 'An outputSchema that does not compile.',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } } as unknown as Tool['outputSchema'],
  },
  { name: 'page2_tool', description: 'Only on the second page of tools/list.', inputSchema: { type: 'object' } },
];

const server = new Server({ name: 'odd', version: '0.0.1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (req) => {
  const page = req.params?.cursor === 'page-2' ? 1 : 0;
  return page === 0 ? { tools: tools.slice(0, 3), nextCursor: 'page-2' } : { tools: tools.slice(3) };
});
server.setRequestHandler(CallToolRequestSchema, (req) => {
  switch (req.params.name) {
    case 'weather':
      return { content: [{ type: 'text', text: 'It is hot.' }], structuredContent: { temperature: 'hot', extra: true } };
    case 'no_structured':
      return { content: [{ type: 'text', text: 'plain text only' }] };
    case 'bad_schema':
      return { content: [{ type: 'text', text: 'x' }], structuredContent: { x: 1 } };
    default:
      return { content: [{ type: 'text', text: `called ${req.params.name}` }] };
  }
});
process.stdin.on('end', () => process.exit(0));
void server.connect(new StdioServerTransport());
