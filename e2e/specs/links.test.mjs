// The real @modelcontextprotocol/server-everything in a real VS Code, from the user's settings (it needs nothing of
// the folder, so it runs in Restricted Mode too). Roots: in Restricted Mode its get-roots-list learns no roots; once
// the folder is trusted, it is told, and lists the workspace folder. Resources behind links: get-resource-links's
// result offers Open on each link, which reads the resource from the server into a read-only editor tab.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { ROOT } from '../lib/env.mjs';
import { callTool, panel } from '../lib/panel.mjs';
import { callToolFromPalette, waitForRow } from '../lib/servers.mjs';
import { useVSCode } from '../lib/vscode.mjs';

const EVERYTHING = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const RUNNING = /^running · \d+ tools$/;

const vs = useVSCode({
  name: 'links',
  trust: 'untrusted',
  workspace: { files: { 'README.md': '# a folder for roots\n' } },
  settings: { 'plangate.servers': { everything: { type: 'stdio', command: 'node', args: [EVERYTHING, 'stdio'] } } },
});

/** The text of the result card the panel shows, once it holds `want`. */
async function resultOf(web, want) {
  const result = web.locator('main .result', { hasText: want });
  await result.waitFor({ timeout: 30_000 });
  return result.innerText();
}

/** Calls server-everything's get-roots-list (no arguments: called at once) and returns its result card's text. */
async function rootsList() {
  await callToolFromPalette(vs, 'Get Roots List Tool');
  return resultOf(await panel(vs), /Current MCP Roots|no roots are currently configured/);
}

test('Restricted Mode: get-roots-list of server-everything learns no roots', { timeout: 120_000 }, async () => {
  await vs.openView('Servers');
  await waitForRow(vs, 'everything', RUNNING, 60_000);
  const text = await rootsList();
  assert.match(text, /no roots are currently configured/);
  assert.ok(!text.includes(pathToFileURL(fs.realpathSync(vs.workspaceDir)).href), text);
  await vs.screenshot('roots-untrusted');
});

test("a resource_link of get-resource-links opens its resource's text in a read-only editor tab", { timeout: 120_000 }, async () => {
  const web = await callTool(vs, 'Get Resource Links Tool');
  await resultOf(web, 'Text Resource 2');
  await vs.screenshot('links-result');
  await web.getByRole('button', { name: 'Open resource Text Resource 2' }).click();
  const tab = vs.editorTab('Text Resource 2');
  await tab.waitFor({ state: 'visible', timeout: 20_000 });
  // Monaco draws spaces as no-break spaces: \s matches both.
  const editor = vs.page
    .locator('.part.editor .editor-instance .view-lines')
    .filter({ hasText: /Resource\s2:\sThis\sis\sa\splaintext\sresource\screated\sat/ })
    .first();
  await editor.waitFor({ timeout: 20_000 });
  // read-only: typing changes nothing
  await editor.click();
  await vs.page.keyboard.type('typed');
  assert.doesNotMatch(await editor.innerText(), /typed/);
  await vs.screenshot('links-text-tab');
  // the blob (base64 of text/plain) is decoded into its text, in its own tab
  await (await panel(vs)).getByRole('button', { name: 'Open resource Blob Resource 1' }).click();
  await vs.editorTab('Blob Resource 1').waitFor({ state: 'visible', timeout: 20_000 });
  await vs.page
    .locator('.part.editor .editor-instance .view-lines')
    .filter({ hasText: /Resource\s1:\sThis\sis\sa\sbase64\sblob\screated\sat/ })
    .first()
    .waitFor({ timeout: 20_000 });
  await vs.screenshot('links-blob-tab');
});

test(
  'trusted: server-everything is told the roots changed, and get-roots-list returns the workspace folder',
  { timeout: 180_000 },
  async () => {
    await vs.runCommand('Workspaces: Manage Workspace Trust');
    const trust = vs.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^\s*Trust( Folder| Workspace)?\s*$/ }).first();
    await trust.waitFor({ state: 'visible', timeout: 30_000 });
    await trust.click();
    await vs.openView('Servers');
    await waitForRow(vs, 'everything', RUNNING, 60_000);
    const folder = pathToFileURL(fs.realpathSync(vs.workspaceDir)).href;
    let text = '';
    // The server may restart (it may now run in the folder): ask until it answers with roots.
    for (let attempt = 0; attempt < 5 && !text.includes(folder); attempt++) {
      text = await rootsList();
      if (!text.includes(folder)) await new Promise((r) => setTimeout(r, 2000));
    }
    assert.ok(text.includes(folder), `get-roots-list did not return ${folder}:\n${text}`);
    await vs.screenshot('roots-trusted');
  },
);
