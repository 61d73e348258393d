// README "Server apps", the sentences an app's session decides, against a real ext-apps `App` (the runtime servers ship
// in their pages) over an in-memory link: what is "Not offered" in Plangate's host capabilities (ui/download-file, an
// app's own resources/read, display modes other than inline), `ui/update-model-context` acknowledged and not kept, and
// `ui/message` put into the chat input (never a tool call, never sent for you).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { App } from '@modelcontextprotocol/ext-apps';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AppSession } from '../../src/mcp/appSession';

async function session() {
  const calls: string[] = [];
  const chat: string[] = [];
  const logs: string[] = [];
  const [appSide, hostSide] = InMemoryTransport.createLinkedPair();
  const s = new AppSession(
    {
      server: 'fixture',
      uri: 'ui://fixture/panel-app',
      tool: { name: 'app_panel', _meta: { ui: { resourceUri: 'ui://fixture/panel-app' } } },
      args: { label: 'Ada' },
      result: { content: [{ type: 'text', text: 'App panel for Ada' }] },
      hostContext: { theme: 'dark', displayMode: 'inline', availableDisplayModes: ['inline'] },
    },
    {
      post: (m) => void hostSide.send(m),
      tools: () => [],
      call: async (tool) => {
        calls.push(tool);
        return { content: [] };
      },
      openLink: async () => false,
      putInChat: async (text) => {
        chat.push(text);
        return true;
      },
      log: (_level, text) => logs.push(text),
    },
  );
  hostSide.onmessage = (m) => s.deliver(m);
  await hostSide.start();
  const app = new App({ name: 'claims-app', version: '1.0.0' }, {}, { autoResize: false });
  await app.connect(appSide);
  return { app, s, calls, chat, logs };
}

test('README "Not offered": no ui/download-file, no resources/read of the app\'s own, display modes inline only', async () => {
  const { app, s } = await session();
  const caps = app.getHostCapabilities() as Record<string, unknown> | undefined;
  assert.ok(caps, 'the host declared its capabilities');
  assert.equal(caps.downloadFile, undefined, 'ui/download-file is declared');
  assert.equal(caps.serverResources, undefined, "an app's own resources/read is declared");
  assert.deepEqual(Object.keys(caps).sort(), ['logging', 'message', 'openLinks', 'serverTools'], 'what is offered');
  await assert.rejects(app.downloadFile({ contents: [{ type: 'text', text: 'x' }] } as never), 'a download was accepted');
  await assert.rejects(app.readServerResource({ uri: 'ui://fixture/panel-app' }), 'a resources/read was answered');
  const mode = await app.requestDisplayMode({ mode: 'fullscreen' }).then(
    (r) => r.mode,
    () => 'refused',
  );
  assert.ok(mode === 'inline' || mode === 'refused', `fullscreen was granted: ${mode}`);
  assert.deepEqual(app.getHostContext()?.availableDisplayModes, ['inline']);
  await s.teardown();
});

test('README: ui/update-model-context is acknowledged and not kept; ui/message goes to the chat input only, nothing is called', async () => {
  const { app, s, calls, chat, logs } = await session();
  await app.updateModelContext({ content: [{ type: 'text', text: 'context' }] });
  assert.ok(
    logs.some((l) => /updated its model context \(Plangate keeps none; ignored\)/.test(l)),
    logs.join('\n'),
  );
  const answer = await app.sendMessage({ role: 'user', content: [{ type: 'text', text: 'Please summarise the panel' }] });
  assert.notEqual(answer.isError, true);
  assert.deepEqual(chat, ['Please summarise the panel'], 'the text reaches the chat input');
  assert.deepEqual(calls, [], 'a message became a call');
  assert.ok(
    logs.some((l) => /put a message into the chat input \(\d+ characters; not sent\)/.test(l)),
    logs.join('\n'),
  );
  await s.teardown();
});
