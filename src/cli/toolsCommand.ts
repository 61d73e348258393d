/**
 * `plangate tools`: starts (or connects to) one server and lists its tools, a line each: name, hints (what its MCP
 * annotations claim: read-only, writes, destructive, open world — the server's word, not a guarantee), title and the
 * first line of its description. Everything shown is the server's text, made safe for the terminal. Exit 0: listed;
 * 2: usage, connection or server error. Nothing is called.
 *
 * It declares what `plangate run` declares (sampling too), so it lists the tools `run` would see: a server may list a
 * tool only to a client that declares sampling (server-everything's trigger-sampling-request). Nothing runs here that
 * could need a model, so a sampling request that comes anyway is declined with a line on stderr.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { stepHint, type StepHint } from '../core/base/toolHints';
import { SamplingRefusal } from '../core/engine/sampling';
import type { SamplingHandler } from '../mcp/connection';
import type { ResolvedServer } from '../mcp/config';
import { cliConnection, type CliConnectionOptions } from './cliConnection';
import type { Output } from './output';
import { inCliWords } from './runCommand';
import { firstLine, safeText } from './safeText';
import { stopServer } from './stopServer';

export interface ToolsOptions extends CliConnectionOptions {
  config: ResolvedServer;
  json: boolean;
}

/** A tool's hints in words: "read-only", "writes", "destructive" or "no hints", then "open world", "idempotent". */
export function hintWords(hint: StepHint): string {
  const effect = { read: 'read-only', write: 'writes', destructive: 'destructive', unknown: 'no hints' }[hint.effect];
  return [effect, ...(hint.openWorld ? ['open world'] : []), ...(hint.idempotent ? ['idempotent'] : [])].join(', ');
}

/** The title a tool gives itself (`title`, else `annotations.title`), when it is a string. */
function titleOf(tool: Tool): string | undefined {
  const title = typeof tool.title === 'string' ? tool.title : tool.annotations?.title;
  return typeof title === 'string' && title.trim() ? title.trim() : undefined;
}

/** `plangate tools`'s answer to a sampling request: declined (it calls no tool, so nothing it does needs a model). */
function declineSampling(out: Output): SamplingHandler {
  return async (server) => {
    out.error(
      `plangate tools: server '${safeText(server, { max: 100 })}' asked for a sampling request while its tools were listed; declined (plangate tools calls no tool).`,
    );
    throw new SamplingRefusal('plangate tools answers no sampling requests');
  };
}

/** Runs `plangate tools`; resolves with the exit code once the server is stopped. */
export async function toolsCommand(options: ToolsOptions, out: Output): Promise<number> {
  const connection = cliConnection(options.config, { ...options, sampling: declineSampling(out) }, out);
  try {
    try {
      await connection.start();
    } catch (err) {
      out.error(
        `plangate tools: ${safeText(inCliWords(err instanceof Error ? err.message : String(err)), { keepNewlines: true, max: 10_000 })}`,
      );
      return 2;
    }
    const tools = connection.tools;
    if (options.json) {
      out.report({
        server: connection.name,
        tools: tools.map((t) => ({
          name: t.name,
          ...(titleOf(t) !== undefined && { title: titleOf(t) }),
          hints: stepHint(t.annotations),
          ...(typeof t.description === 'string' && { description: t.description }),
        })),
      });
      return 0;
    }
    const server = safeText(connection.name, { max: 100 });
    if (tools.length === 0) {
      out.info(`Server '${server}' lists no tools.`);
      return 0;
    }
    out.info(`Server '${server}' lists ${tools.length} tool${tools.length === 1 ? '' : 's'}:`);
    const names = tools.map((t) => safeText(t.name, { max: 60 }));
    const hints = tools.map((t) => hintWords(stepHint(t.annotations)));
    const nameWidth = Math.min(40, Math.max(...names.map((n) => n.length)));
    const hintWidth = Math.max(...hints.map((h) => h.length));
    tools.forEach((t, i) => {
      const title = titleOf(t);
      const about = [title && safeText(title, { max: 80 }), safeText(firstLine(t.description ?? '', 100))].filter(Boolean).join(' — ');
      out.info(`  ${names[i]!.padEnd(nameWidth)}  ${hints[i]!.padEnd(hintWidth)}  ${about}`.trimEnd());
    });
    return 0;
  } finally {
    await stopServer(connection);
  }
}
