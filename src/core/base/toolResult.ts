/**
 * The shape of an MCP `CallToolResult` as core sees it: structurally the SDK's type, declared here so that
 * core stays free of the SDK. Everything in it is untrusted server data.
 */
export interface ToolResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: unknown;
  [extra: string]: unknown;
}

/** The text of the first `text` content blocks, joined, cut at `max` characters (for summaries and logs). */
export function resultText(result: ToolResult, max = 2000): string {
  const parts: string[] = [];
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (block && typeof block === 'object' && (block as { type?: unknown }).type === 'text') {
      const text = (block as { text?: unknown }).text;
      if (typeof text === 'string') parts.push(text);
    }
    if (parts.join('\n').length >= max) break;
  }
  const joined = parts.join('\n');
  return joined.length > max ? `${joined.slice(0, max)}…` : joined;
}
