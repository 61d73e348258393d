/**
 * `--server NAME`: a server of the current folder's `.vscode/mcp.json`, started as VS Code would start it (variables
 * substituted against this folder, `envFile` read, `sandboxEnabled` honoured) on top of the user's own environment,
 * as a command line given to `--server` is. Running the CLI in the folder and naming the server is the user's
 * decision, so the folder counts as trusted. `${input:…}` values are not asked for: the CLI has no hidden prompt for
 * passwords, so such a server is refused with what to do instead.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatConfigProblem, inputRefs, parseMcpJson, resolveServer, type ResolvedServer } from '../mcp/config';

export const MCP_JSON_LABEL = '.vscode/mcp.json';

/** What `--server WORD` names: a server of mcp.json, a mistake in its entry, or nothing (WORD is a command then). */
export type NamedServer = { kind: 'server'; server: ResolvedServer } | { kind: 'problem'; message: string } | { kind: 'none' };

/** Whether `--server`'s value could be a server's name rather than a command line: one word, no path. */
export function mayBeServerName(value: string): boolean {
  return /^[^\s/\\'"]+$/.test(value.trim());
}

/** Looks `name` up in `cwd`/.vscode/mcp.json and resolves it; `none` when there is no such file or server. */
export async function mcpJsonServer(name: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<NamedServer> {
  let text: string;
  try {
    text = await readFile(join(cwd, '.vscode', 'mcp.json'), 'utf8');
  } catch {
    return { kind: 'none' };
  }
  const parsed = parseMcpJson(text, MCP_JSON_LABEL);
  const config = parsed.servers.find((s) => s.name === name);
  if (!config) {
    const problems = parsed.problems.filter((p) => p.path === `servers.${name}` || p.path?.startsWith(`servers.${name}.`));
    if (!problems.length) return { kind: 'none' };
    return {
      kind: 'problem',
      message: `server '${name}' of ${MCP_JSON_LABEL} cannot start: ${problems.map(formatConfigProblem).join('; ')}. Fix the entry (plangate servers lists every problem).`,
    };
  }
  const inputs = inputRefs(config);
  if (inputs.length) {
    return {
      kind: 'problem',
      message: `server '${name}' of ${MCP_JSON_LABEL} asks for ${inputs.map((id) => `\${input:${id}}`).join(', ')}, which the CLI does not ask for. Start it from VS Code, or give its command line with --server "…" (or its URL with --url).`,
    };
  }
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) inherited[k] = v;
  try {
    const server = await resolveServer(config, {
      workspaceFolder: cwd,
      trusted: true,
      env: inherited,
      userHome: homedir(),
      inputs: parsed.inputs,
      resolveInput: () => Promise.resolve(undefined),
    });
    if (server.type === 'stdio' && config.type === 'stdio') {
      // The user's own environment below the entry's, as for a command line; `"NAME": null` still removes NAME.
      const base = { ...inherited };
      for (const [k, v] of Object.entries(config.env)) if (v === null) delete base[k];
      server.env = { ...base, ...server.env };
    }
    return { kind: 'server', server };
  } catch (err) {
    if (err instanceof ConfigError) return { kind: 'problem', message: err.message };
    throw err;
  }
}
