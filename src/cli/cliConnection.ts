/**
 * The connection a CLI command opens to one server (`plangate run`, `plangate tools`): no reconnects, `--timeout` for
 * the start-up too (a server that never answers "initialize" fails after it, not after 60 s), a sign-in in the browser
 * when an HTTP server asks for one (kept for this command only, or in `--token-store FILE`), `--root` folders as MCP
 * roots, the sandbox runtime beside the CLI, and the connection's log on stderr with `--verbose` (what a sandbox
 * refused is shown even without it: the user widens a rule knowingly).
 */
import { ServerConnection, type ElicitHandler, type SamplingHandler } from '../mcp/connection';
import type { ResolvedServer } from '../mcp/config';
import { listenForRedirect } from '../mcp/oauth/loopback';
import { FileOAuthStore, MemoryOAuthStore } from '../mcp/oauth/store';
import { directoryRoots } from '../mcp/roots';
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
  /** `--client-metadata-url`: a Client ID Metadata Document used as the client id where the server supports it. */
  clientMetadataUrl?: string;
  tokenStore?: string;
  /** How long a sign-in waits for the browser (default: the provider's 5 minutes). */
  signInWaitMs?: number;
  /** `--root DIR`s, absolute: offered to the server as MCP roots (none without). */
  roots?: string[];
  /** Answers the server's elicitation requests (without: declined). */
  elicit?: ElicitHandler;
  /** Answers the server's sampling requests (without: the client does not declare sampling). */
  sampling?: SamplingHandler;
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
      clientMetadataUrl: options.clientMetadataUrl,
      interaction: {
        listen: (preferredPort) => listenForRedirect({ preferredPort }),
        open: (url, server) => openInBrowser(url.href, server, (line) => out.error(line)),
      },
      signInOnStart: true,
      waitMs: options.signInWaitMs,
    },
    sandbox: { srtPath: srtCliPath(__dirname), unsandboxedHint: 'To start it unsandboxed, run without --sandbox.' },
    roots: options.roots && directoryRoots(options.roots),
    elicit: options.elicit,
    sampling: options.sampling,
  });
  if (options.verbose) connection.onLog((e) => out.error(`[${e.server} ${e.level}] ${safeText(e.text, { max: 2000 })}`));
  else if (config.type === 'stdio' && config.sandbox)
    connection.onLog((e) => e.level === 'warn' && out.error(`[${e.server} ${e.level}] ${safeText(e.text, { max: 2000 })}`));
  return connection;
}
