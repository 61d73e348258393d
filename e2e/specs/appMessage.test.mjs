// An MCP App's `ui/message` in the real VS Code (code-server 4.139.1, chat features on; no model is needed, since
// nothing is sent): the fixture's app (fixture/appTools.ts, its **Send message** button) asks to put a message into the
// chat. README: "`ui/message` puts its text into the chat input for you to send (never sent for you)". The text waits in
// the Chat view's input; the chat holds no request, also a few seconds later; nothing reached the server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer } from '../lib/workspace.mjs';
import { callTool, waitForServerRunning } from '../lib/panel.mjs';

const log = callLogBeside('fixture-calls.jsonl');
const vs = useVSCode({
  name: 'app-message',
  // The harness turns chat features off; the chat input is what this test is about.
  settings: { 'chat.disableAIFeatures': false },
  workspace: { servers: (dir) => ({ fixture: fixtureServer(dir, { callLog: log.path(dir) }) }) },
});
const { callsAfter, lastSeq } = log.of(() => vs.workspaceDir);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("an app's ui/message waits in the chat input for the user, and is never sent", async () => {
  await waitForServerRunning(vs);
  const web = await callTool(vs, 'app_panel', { fill: async (form) => form.getByLabel(/^label/).fill('Ada') });
  const app = web.frameLocator('#apps iframe.app-frame:not([hidden])');
  await app.locator('#result', { hasText: 'App panel for Ada' }).waitFor({ timeout: 20_000 });
  const since = lastSeq();
  const chat = vs.page.locator('.interactive-session');
  const requests = chat.locator('.interactive-request');
  assert.equal(await requests.count(), 0, 'the chat starts empty');

  await app.getByRole('button', { name: 'Send message', exact: true }).click();
  await app.locator('#status', { hasText: 'message given' }).waitFor({ timeout: 20_000 });
  const input = chat.locator('.interactive-input-part .view-lines').first();
  await input.filter({ hasText: 'Hello from the fixture app' }).waitFor({ timeout: 20_000 });
  // Time for a submitted message to show as a request (it would, at once, with or without a model to answer it).
  await sleep(3000);
  await vs.screenshot('app-message-in-chat-input');
  // Monaco draws spaces as no-break spaces.
  assert.equal((await input.innerText()).replace(/\u00a0/g, ' '), 'Hello from the fixture app', 'the text still waits in the input');
  assert.equal(await requests.count(), 0, 'the message was sent for the user');
  assert.deepEqual(callsAfter(since), [], 'the message reached the server');
  const logFile = vs.extensionHostLogs().find((f) => path.basename(f) === 'Plangate.log');
  assert.ok(logFile, 'the Plangate log');
  assert.match(
    fs.readFileSync(logFile, 'utf8'),
    /app ui:\/\/fixture\/panel-app of server 'fixture' put a message into the chat input \(26 characters; not sent\)/,
  );
});
