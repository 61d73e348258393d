/**
 * What the Call Tool pick lists, as plain data: each configured server under its name, with its tools once it runs,
 * or a line saying why it has none yet (starting, failed, stopped). The pick is rebuilt from this whenever a server
 * changes, so tools fill in as servers finish starting.
 */
import { visibleToModel } from '../apps/appTool';

export interface PickServer {
  name: string;
  state: 'stopped' | 'starting' | 'running' | 'error' | 'signInRequired';
  /** Why it is stopped or failed, when known. */
  message?: string;
  tools: readonly { name: string; title?: string; description?: string; _meta?: unknown }[];
}

export type PickRow =
  | { kind: 'separator'; label: string }
  /** A tool that can be picked. */
  | { kind: 'tool'; server: string; tool: string; label: string; description?: string; detail?: string }
  /** A server's state where its tools would be: shown whatever the filter, and not a choice. */
  | { kind: 'status'; server: string; label: string; detail?: string };

/** The rows of the pick, servers in the order given. */
export function toolPickRows(servers: readonly PickServer[]): PickRow[] {
  const rows: PickRow[] = [];
  for (const s of servers) {
    rows.push({ kind: 'separator', label: s.name });
    if (s.state === 'running' && s.tools.length > 0) {
      // A tool meant only for its server's app (MCP Apps visibility ["app"]) is not offered here.
      for (const t of s.tools.filter((tool) => visibleToModel(tool))) {
        const row: PickRow = { kind: 'tool', server: s.name, tool: t.name, label: t.title || t.name };
        if (t.title) row.description = t.name;
        const first = t.description?.split('\n')[0];
        if (first) row.detail = first;
        rows.push(row);
      }
      continue;
    }
    rows.push(statusRow(s));
  }
  return rows;
}

function statusRow(s: PickServer): PickRow {
  switch (s.state) {
    case 'starting':
      return {
        kind: 'status',
        server: s.name,
        label: `$(loading~spin) ${s.name} is starting…`,
        detail: 'Its tools appear here as soon as it runs.',
      };
    case 'running':
      return { kind: 'status', server: s.name, label: `${s.name} offers no tools` };
    case 'error':
      return {
        kind: 'status',
        server: s.name,
        label: `$(error) ${s.name} is not running`,
        detail: s.message ? `${s.message.split('\n')[0]} — see Plangate: Show Log` : 'See Plangate: Show Log.',
      };
    case 'signInRequired':
      return {
        kind: 'status',
        server: s.name,
        label: `$(account) ${s.name} needs you to sign in`,
        detail: 'Sign in from the Servers view; its tools appear here once it runs.',
      };
    case 'stopped':
      return {
        kind: 'status',
        server: s.name,
        label: `$(debug-stop) ${s.name} is stopped`,
        detail: s.message ?? 'Start it from the Servers view.',
      };
  }
}

/** The pick's placeholder: what to do, and how many servers are still starting. */
export function toolPickPlaceholder(servers: readonly PickServer[]): string {
  const starting = servers.filter((s) => s.state === 'starting').length;
  const tools = servers.filter((s) => s.state === 'running').reduce((n, s) => n + s.tools.length, 0);
  if (starting === 0) return tools > 0 ? 'Pick a tool to call' : 'No server offers a tool to call';
  const waiting = `${starting} server${starting === 1 ? ' is' : 's are'} still starting`;
  return tools > 0 ? `Pick a tool to call (${waiting}; their tools will appear)` : `Waiting for tools: ${waiting}…`;
}
