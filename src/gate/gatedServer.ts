// Entry of the gated server program (bundled to dist/gatedServer.js). VS Code starts it over stdio from Plangate's
// MCP server definition provider with the extension host's Node (`process.execPath` + ELECTRON_RUN_AS_NODE=1);
// the channel's socket, the window's secret and the fronted server's name come in the environment (GateEnv).
// It exits when stdin closes (VS Code stopped it).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { GateEnv } from './channelProtocol';
import { createGatedProxy } from './gatedProxy';

async function main(): Promise<void> {
  const socketPath = process.env[GateEnv.socket];
  const secret = process.env[GateEnv.secret];
  const server = process.env[GateEnv.server];
  if (!socketPath || !secret || !server) {
    process.stderr.write(
      `plangate gated server: ${GateEnv.socket}, ${GateEnv.secret} and ${GateEnv.server} must be set; ` +
        'this program is started by the Plangate extension, not by hand.\n',
    );
    process.exit(2);
  }
  // The secret is not needed by anything this process starts.
  delete process.env[GateEnv.secret];
  const proxy = await createGatedProxy({ socketPath, secret, server, log: (line) => process.stderr.write(`${line}\n`) });
  const exit = () => {
    void proxy.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.stdin.on('end', exit);
  process.stdin.on('close', exit);
  await proxy.connect(new StdioServerTransport());
}

main().catch((err: unknown) => {
  process.stderr.write(`plangate gated server: failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
