/**
 * `plangate servers [--json]`: the servers of the current directory's `.vscode/mcp.json` (name, type, command line or
 * URL, with `${workspaceFolder}` and the like filled in for this folder), and its problems as `file:line:column: path: message`. Exit 0 when the file has no problems, 1 when it has
 * some, 2 when there is no readable file.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join, sep } from 'node:path';
import { formatConfigProblem, parseMcpJson, type ServerConfig } from '../mcp/config';
import type { Output } from './output';
import { safeText } from './safeText';
import { quoteCommandLine } from './splitCommandLine';

const FILE_LABEL = '.vscode/mcp.json';

/**
 * `text` with the variables that name places filled in as the server would get them here: `${workspaceFolder}` (this
 * folder), `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}` and `${/}`. `${env:…}` and `${input:…}`
 * stay as written: their values may be secrets, and a listing does not print them.
 */
function placesFilledIn(text: string, cwd: string): string {
  return text.replace(/\$\{([^}]+)\}/g, (whole, raw: string) => {
    const v = raw.trim();
    if (v === 'workspaceFolder') return cwd;
    if (v === 'workspaceFolderBasename') return basename(cwd);
    if (v === 'userHome') return homedir();
    if (v === 'pathSeparator' || v === '/') return sep;
    return whole;
  });
}

function target(server: ServerConfig, cwd: string): string {
  return server.type === 'stdio'
    ? quoteCommandLine([server.command, ...server.args].map((w) => placesFilledIn(w, cwd)))
    : placesFilledIn(server.url, cwd);
}

/** Runs `plangate servers` in `cwd`; resolves with the exit code. */
export async function serversCommand(options: { json: boolean; cwd?: string }, out: Output): Promise<number> {
  const cwd = options.cwd ?? process.cwd();
  const file = join(cwd, '.vscode', 'mcp.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    out.error(
      code === 'ENOENT'
        ? `plangate servers: there is no ${FILE_LABEL} in ${safeText(cwd)}. Run it in a workspace folder that has one.`
        : `plangate servers: cannot read ${safeText(file)}: ${safeText(code ?? (err instanceof Error ? err.message : String(err)))}`,
    );
    return 2;
  }
  const parsed = parseMcpJson(text, FILE_LABEL);
  if (options.json) {
    out.report({
      file,
      servers: parsed.servers.map((s) =>
        s.type === 'stdio' ? { name: s.name, type: s.type, command: s.command, args: s.args } : { name: s.name, type: s.type, url: s.url },
      ),
      problems: parsed.problems.map((p) => ({ ...p, text: formatConfigProblem(p) })),
    });
  } else {
    if (parsed.servers.length === 0) out.info(`No servers in ${FILE_LABEL}.`);
    const names = parsed.servers.map((s) => safeText(s.name, { max: 100 }));
    const width = Math.min(30, Math.max(4, ...names.map((n) => n.length)));
    parsed.servers.forEach((s, i) =>
      out.info(`${names[i]!.padEnd(width)}  ${s.type.padEnd(5)}  ${safeText(target(s, cwd), { max: 1000 })}`),
    );
    for (const p of parsed.problems) out.error(safeText(formatConfigProblem(p), { max: 1000 }));
  }
  return parsed.problems.length ? 1 : 0;
}
