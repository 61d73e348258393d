// The client the MCP conformance suite (@modelcontextprotocol/conformance) runs for each client scenario: the real
// `plangate run` CLI bundle, given the scenario's server URL (the last argument). It lists the tools and calls
// `test-tool`, as the suite's own reference client does. Sign-in pages are "opened" by fetchBrowser.mjs, which follows
// the authorization server's redirect back to Plangate's loopback listener. The pre-registration scenario hands its
// client credentials in MCP_CONFORMANCE_CONTEXT: they go in as --client-id and PLANGATE_CLIENT_SECRET; the Client ID
// Metadata Document scenario gets --client-metadata-url with the document URL it expects.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const url = process.argv.at(-1);
const cli = process.env.PLANGATE_CONFORMANCE_CLI;
if (!url || !cli) {
  console.error('usage: PLANGATE_CONFORMANCE_CLI=cli.js node client.mjs URL');
  process.exit(2);
}
const browser = join(dirname(fileURLToPath(import.meta.url)), '..', 'fetchBrowser.mjs');
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
const args = ['run', '--url', url, '--tool', 'test-tool', '--yes', '--verbose', '--timeout', '20'];
const env = { ...process.env, BROWSER: `"${process.execPath}" "${browser}"` };
if (typeof context.client_id === 'string') args.push('--client-id', context.client_id);
if (typeof context.client_secret === 'string') env.PLANGATE_CLIENT_SECRET = context.client_secret;
// The CIMD scenario's authorization server takes this document URL as the client id (it never fetches it).
if (process.env.MCP_CONFORMANCE_SCENARIO === 'auth/basic-cimd')
  args.push('--client-metadata-url', 'https://conformance-test.local/client-metadata.json');
const child = spawn(process.execPath, [cli, ...args], { env, stdio: 'inherit' });
child.on('close', (code) => process.exit(code ?? 1));
