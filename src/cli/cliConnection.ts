/**
 * The connection a CLI command other than `run` opens to one server (`plangate tools`): no reconnects, `--timeout`
 * for the start-up, a sign-in in the browser when an HTTP server asks for one (kept for this command only, or in
 * `--token-store FILE`), the sandbox runtime beside the CLI, and the connection's log on stderr with `--verbose`.
 * The same settings as `plangate run`'s connection (runCommand.ts).
 */
import { ServerConnection } from '../mcp/connection';
import type { ResolvedServer } from '../mcp/config';
import { listenForRedirect } from '../mcp/oauth/loopback';
import { FileOAuthStore, MemoryOAuthStore } from '../mcp/oauth/store';
import { srtCliPath } from '../mcp/sandbox';
import { openInBrowser } from './browser';
import type { Output } from './output';
import { safeText } from './safeText';

export interface CliConnectionOptions {
  timeoutMs: number;
  version: string;
  verbose: boolean;
  clientId?: string;
  clientSecret?: string;
  tokenStore?: string;
}

/** A connection to `config`, not started yet. */
export function cliConnection(config: ResolvedServer, options: CliConnectionOptions, out: Output): ServerConnection {
  const connection = new ServerConnection(config, {
    clientInfo: { name: 'plangate-cli', version: options.version },
    reconnect: { maxAttempts: 0 },
    startTimeoutMs: options.timeoutMs,
    callTimeoutMs: options.timeoutMs,
    pathProvider: async () => process.env.PATH ?? '',
    oauth: {
      store: options.tokenStore ? new FileOAuthStore(options.tokenStore) : new MemoryOAuthStore(),
      scope: 'cli',
      clientName: 'Plangate CLI',
      preRegistered: () => (options.clientId ? { clientId: options.clientId, clientSecret: options.clientSecret } : undefined),
      interaction: {
        listen: (preferredPort) => listenForRedirect({ preferredPort }),
        open: (url, server) => openInBrowser(url.href, server, (line) => out.error(line)),
      },
      signInOnStart: true,
    },
    sandbox: { srtPath: srtCliPath(__dirname), unsandboxedHint: 'To start it unsandboxed, run without --sandbox.' },
  });
  if (options.verbose) connection.onLog((e) => out.error(`[${e.server} ${e.level}] ${safeText(e.text, { max: 2000 })}`));
  else if (config.type === 'stdio' && config.sandbox)
    connection.onLog((e) => e.level === 'warn' && out.error(`[${e.server} ${e.level}] ${safeText(e.text, { max: 2000 })}`));
  return connection;
}
