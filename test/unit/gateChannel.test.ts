// The gate channel (extension side): a private per-window socket that refuses every connection that does not present
// the window's secret first, and answers the gated servers' tools/list and tools/call from the real servers Plangate
// runs (the fixture over stdio, through a ServerRegistry).
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import * as net from 'node:net';
import { ChannelClient, ChannelClosedError } from '../../src/gate/channelClient';
import { GateEnv, GateMethods } from '../../src/gate/channelProtocol';
import type { CancellationToken } from '../../src/core/base/lifecycle';
import type { GateChannelHandler } from '../../src/core/agent/agentCall';
import { GateChannel } from '../../src/mcp/gateChannel';
import { ServerRegistry } from '../../src/mcp/registry';
import { fixtureStdio, waitFor } from './helpers/mcpFixture';

/** A handler backed by a real registry; records what reached it. */
function registryHandler(reg: ServerRegistry, seen: string[]): GateChannelHandler {
  return {
    hello: (server) => ({ instructions: `instructions of ${server}` }),
    listTools: async (server) => {
      seen.push(`list ${server}`);
      return reg.get(server)?.tools ?? [];
    },
    callTool: async (server, tool, args) => {
      seen.push(`call ${server}/${tool}`);
      return reg.callTool(server, tool, args);
    },
  };
}

/** A channel; `withServer` also starts the fixture as server 'demo' in a registry the default handler answers from. */
async function setup(t: TestContext, handler?: GateChannelHandler, options: { helloTimeoutMs?: number; withServer?: boolean } = {}) {
  const reg = new ServerRegistry({ pathProvider: async () => process.env.PATH ?? '' });
  t.after(() => reg.dispose());
  if (options.withServer) await reg.applyConfig([fixtureStdio('demo')]);
  const seen: string[] = [];
  const logs: string[] = [];
  const channel = await GateChannel.open(handler ?? registryHandler(reg, seen), { ...options, log: (_l, text) => logs.push(text) });
  t.after(() => channel.dispose());
  return { reg, channel, seen, logs };
}

/** Opens a raw socket to the channel, writes `lines`, and resolves with everything it read once the channel closed it. */
function rawExchange(path: string, lines: string[], { waitMs = 3000 } = {}): Promise<{ text: string; closedByPeer: boolean }> {
  return new Promise((resolve) => {
    const socket = net.createConnection(path);
    let text = '';
    let closedByPeer = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedByPeer });
    }, waitMs);
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closedByPeer = true;
      clearTimeout(timer);
      resolve({ text, closedByPeer });
    });
    socket.on('connect', () => {
      for (const l of lines) socket.write(l);
    });
  });
}

describe('gate channel', { concurrency: 2 }, () => {
  test('a connection presenting the wrong secret is refused and reaches nothing', async (t) => {
    const { channel, seen, logs } = await setup(t);
    await assert.rejects(
      ChannelClient.connect({ path: channel.path, secret: 'not-the-secret', server: 'demo' }),
      (err: Error) => err instanceof ChannelClosedError && /refused.*secret does not match/i.test(err.message),
    );
    // An almost-right secret (same length, last character changed) is refused as well.
    const almost = channel.secret.slice(0, -1) + (channel.secret.endsWith('A') ? 'B' : 'A');
    await assert.rejects(ChannelClient.connect({ path: channel.path, secret: almost, server: 'demo' }), /secret does not match/);
    assert.equal(channel.connectedCount, 0);
    assert.deepEqual(seen, [], 'the handler was never asked anything');
    assert.ok(
      logs.some((l) => /refused a connection: the secret does not match/.test(l)),
      'the refusal is logged',
    );
  });

  test('a request sent before the hello, a non-JSON first line and silence are all refused', async (t) => {
    const { channel, seen } = await setup(t, undefined, { helloTimeoutMs: 300 });
    const early = await rawExchange(channel.path, [
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: GateMethods.listTools, params: {} })}\n`,
    ]);
    assert.equal(early.closedByPeer, true);
    assert.match(early.text, /Refused: the first message is not a hello/);
    const garbage = await rawExchange(channel.path, ['GET / HTTP/1.1\r\n\r\n']);
    assert.equal(garbage.closedByPeer, true);
    assert.match(garbage.text, /Refused: the first line is not JSON/);
    const huge = await rawExchange(channel.path, ['x'.repeat(20_000)]);
    assert.equal(huge.closedByPeer, true, 'a first line longer than a hello can be is cut off');
    const silent = await rawExchange(channel.path, []);
    assert.equal(silent.closedByPeer, true, 'a connection that says nothing is closed after the hello timeout');
    assert.match(silent.text, /no hello/);
    assert.deepEqual(seen, []);
  });

  test('the socket lives in a private directory (0700) and is removed on dispose', { skip: process.platform === 'win32' }, async (t) => {
    const { channel } = await setup(t);
    const dir = channel.path.slice(0, channel.path.lastIndexOf('/'));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(channel.path).mode & 0o077, 0, 'no one else may open the socket');
    assert.ok(channel.secret.length >= 40, 'the secret is long and random');
    const env = channel.envFor('demo');
    assert.deepEqual(Object.keys(env).sort(), [GateEnv.secret, GateEnv.server, GateEnv.socket].sort());
    channel.dispose();
    assert.equal(existsSync(dir), false);
    await assert.rejects(ChannelClient.connect({ path: channel.path, secret: channel.secret, server: 'demo' }), /channel is not there/);
  });

  test('with the secret: the hello, tools/list and tools/call reach the real server unchanged', async (t) => {
    const { reg, channel, seen } = await setup(t, undefined, { withServer: true });
    const client = await ChannelClient.connect({ path: channel.path, secret: channel.secret, server: 'demo' });
    t.after(() => client.close());
    assert.equal(client.hello.instructions, 'instructions of demo');
    await waitFor(() => channel.connectedCount === 1, 'the connection to count');
    const listed = (await client.request(GateMethods.listTools, {})) as { tools: unknown[] };
    assert.deepEqual(listed.tools, JSON.parse(JSON.stringify(reg.get('demo')!.tools)), 'titles, annotations and schemas are unchanged');
    const result = (await client.request(GateMethods.callTool, { name: 'echo', arguments: { message: 'hi there' } })) as {
      content: { text: string }[];
    };
    assert.equal(result.content[0]!.text, 'hi there');
    await assert.rejects(client.request('resources/list', {}), /no method 'resources\/list'/);
    await assert.rejects(client.request(GateMethods.callTool, { name: 'echo', arguments: 'nope' }), /arguments object/);
    assert.deepEqual(seen, ['list demo', 'call demo/echo']);
  });

  test('tools/list_changed reaches only the gated servers of that server; a dropped connection cancels its calls', async (t) => {
    let callToken: CancellationToken | undefined;
    const handler: GateChannelHandler = {
      listTools: async () => [],
      callTool: (_s, _t, _a, ctx) => {
        callToken = ctx.token;
        ctx.progress('waiting for the user');
        return new Promise((resolve) => ctx.token.onCancellationRequested(() => resolve({ content: [], isError: true })));
      },
    };
    const { channel } = await setup(t, handler);
    const a = await ChannelClient.connect({ path: channel.path, secret: channel.secret, server: 'a' });
    const b = await ChannelClient.connect({ path: channel.path, secret: channel.secret, server: 'b' });
    t.after(() => {
      a.close();
      b.close();
    });
    const heard: string[] = [];
    a.onNotification((m, p) => heard.push(`a ${m} ${JSON.stringify(p)}`));
    b.onNotification((m) => heard.push(`b ${m}`));
    channel.toolsChanged('a');
    await waitFor(() => heard.length === 1, 'the notification');
    assert.deepEqual(heard, [`a ${GateMethods.toolsChanged} {}`]);

    // Progress goes out only for calls that asked for it.
    let id = -1;
    const pending = a.request(GateMethods.callTool, { name: 'x', arguments: {}, wantsProgress: true }, (i) => {
      id = i;
    });
    await waitFor(() => heard.length === 2, 'the progress notification');
    assert.equal(heard[1], `a ${GateMethods.progress} ${JSON.stringify({ requestId: id, message: 'waiting for the user' })}`);
    assert.equal(callToken!.isCancellationRequested, false);
    a.close();
    await assert.rejects(pending, ChannelClosedError);
    await waitFor(() => callToken!.isCancellationRequested, 'the call to be cancelled when its gated server went away');
  });
});
