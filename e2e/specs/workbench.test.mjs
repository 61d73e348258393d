// The packaged extension in a real VS Code: it installs from plangate.vsix, activates, shows its status bar
// item, and its activity bar container holds the three views. One code-server for the whole file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { waitForRow } from '../lib/servers.mjs';
import { fixtureServer } from '../lib/workspace.mjs';

const vs = useVSCode({
  name: 'workbench',
  workspace: {
    files: { 'README.md': '# A workspace with one MCP server\n', 'src/modules/.gitkeep': '' },
    servers: (dir) => ({ fixture: fixtureServer(dir) }),
  },
});

test('the packaged extension installs and activates: the status bar reads "Plangate: idle"', async () => {
  assert.equal(await vs.waitForStatus('Plangate: idle'), 'Plangate: idle');
  assert.equal(await vs.statusBarItem().locator('.codicon').count(), 1, 'the status bar item has no codicon before its text');
  await vs.screenshot('status-bar-idle');
});

test('the Plangate activity bar container shows the Servers, Plans and Staged views', async () => {
  await vs.openView('Servers');
  assert.deepEqual(await vs.viewTitles(), ['Servers', 'Plans', 'Staged']);
  for (const view of ['Servers', 'Plans', 'Staged']) assert.ok(await vs.viewPane(view).isVisible(), `the ${view} view is not visible`);
  await vs.screenshot('plangate-views');
});

test('the Servers view lists the fixture server from .vscode/mcp.json, started over stdio', async () => {
  await vs.openView('Servers');
  await waitForRow(vs, 'fixture', /running/, 60_000);
  await vs.screenshot('fixture-server-running');
});

test('the walkthrough\'s "Add the Demo Server" configures plangate-demo, which starts on VS Code\'s own runtime', async () => {
  await vs.runCommand('Plangate: Add the Demo Server to This Workspace');
  await vs.page.locator('.notifications-toasts .notification-toast', { hasText: 'the demo server "plangate-demo" is configured' }).waitFor({ timeout: 15_000 });
  await vs.openView('Servers');
  await waitForRow(vs, 'plangate-demo', /^running · \d+ tools$/, 60_000);
  // What it wrote: the workspace setting, with the bundled server run by VS Code's own executable as Node.
  const settings = JSON.parse(fs.readFileSync(path.join(vs.workspaceDir, '.vscode', 'settings.json'), 'utf8'));
  const demo = settings['plangate.servers']?.['plangate-demo'];
  assert.equal(demo?.type, 'stdio');
  assert.deepEqual(demo.env, { ELECTRON_RUN_AS_NODE: '1' });
  assert.match(demo.args[0], /dist[\\/]fixtureServer\.js$/);
  await vs.screenshot('demo-server-added');
});
