// Restricted Mode in a real VS Code: nothing of the folder runs. The workspace's own server (.vscode/mcp.json) and
// a user-settings server that uses ${workspaceFolder} wait for trust, and the Servers view says so and why; a
// user-settings server that needs nothing of the folder runs, in the user's home rather than the folder. Trusting
// the workspace (from the waiting row, as a user would) starts the waiting servers.
// Which process runs for which server is read from /proc: each server's --name is in its command line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { FIXTURE_SERVER, runDir } from '../lib/env.mjs';
import { fixtureProcesses, hoverText, treeRow, waitForProcesses, waitForRow } from '../lib/servers.mjs';
import { useVSCode } from '../lib/vscode.mjs';
import { callTool } from '../lib/panel.mjs';
import { fixtureServer, readJsonLines } from '../lib/workspace.mjs';

const WAITS = 'waits for workspace trust';
const RUNNING = /^running · \d+ tools$/;
const root = path.join(runDir(), 'trust-root');
fs.mkdirSync(root, { recursive: true });

const vs = useVSCode({
  name: 'trust',
  trust: 'untrusted',
  workspace: {
    files: {
      'README.md': '# an untrusted folder\n',
      // Read only once the folder is trusted: until then a cloned repository's rules decide nothing.
      '.vscode/plangate-policy.json': JSON.stringify({
        rules: [{ id: 'repo-no-echo', decision: 'deny', reason: 'the repository forbids echo', tool: 'echo' }],
      }),
    },
    servers: (dir) => ({
      fixture: fixtureServer(dir, { callLog: path.join(path.dirname(dir), 'fixture-calls.jsonl'), args: ['--name', 'ws-fixture'] }),
    }),
  },
  settings: {
    'plangate.servers': {
      // needs nothing of the folder: may run, but not in it
      plain: {
        type: 'stdio',
        command: 'node',
        args: [FIXTURE_SERVER, '--root', root, '--name', 'plain-fixture', '--call-log', path.join(runDir(), 'trust-plain-calls.jsonl')],
      },
      // would hand the folder to the server: waits
      folderArg: { type: 'stdio', command: 'node', args: [FIXTURE_SERVER, '--root', '${workspaceFolder}', '--name', 'folder-fixture'] },
    },
  },
});

/** The working directory of the one live fixture process whose command line holds `name`. */
/** @param {string} name @param {(proc: string) => boolean} [accept] */
async function cwdOf(name, accept = () => true) {
  const [proc] = await waitForProcesses(name, (l) => l.length === 1 && accept(l[0]), `one process of ${name}`);
  return { proc, cwd: fs.realpathSync(`/proc/${proc.split(':')[0]}/cwd`) };
}

let plainBefore;

test(
  "untrusted: the workspace's server and a server that uses ${workspaceFolder} wait, and the view says why",
  { timeout: 120_000 },
  async () => {
    await vs.openView('Servers');
    await waitForRow(vs, 'plain', RUNNING, 60_000);
    // a server of the user's own settings that would hand the folder to its process waits, and says why
    assert.equal(await waitForRow(vs, 'folderArg', /\S/), WAITS);
    const folderHover = await hoverText(vs, treeRow(vs, 'folderArg'));
    assert.match(folderHover, /uses \$\{workspaceFolder\}/);
    assert.doesNotMatch(folderHover, /comes from/, 'a user-settings server is not said to come from the workspace');
    // the one that needs nothing of the folder runs, but not in it
    const plain = await cwdOf('plain-fixture');
    plainBefore = plain.proc;
    assert.equal(plain.cwd, fs.realpathSync(os.homedir()), "the plain server runs in the user's home");
    assert.notEqual(plain.cwd, fs.realpathSync(vs.workspaceDir));
    // the workspace's own server waits, and says where it comes from
    assert.equal(await waitForRow(vs, 'fixture', /\S/), WAITS);
    const fixtureHover = await hoverText(vs, treeRow(vs, 'fixture'));
    assert.match(fixtureHover, /Restricted Mode/);
    assert.match(fixtureHover, /comes from \.vscode\/mcp\.json/);
    await vs.page.mouse.move(700, 450);
    await vs.screenshot('trust-waiting');
    assert.deepEqual(fixtureProcesses('ws-fixture'), [], 'the mcp.json server was started');
    assert.deepEqual(fixtureProcesses('folder-fixture'), [], 'the ${workspaceFolder} server was started');
  },
);

test('untrusted: the workspace policy file is not read, so its deny rule does not stop a call', { timeout: 60_000 }, async () => {
  const web = await callTool(vs, 'echo', { fill: (form) => form.getByLabel(/^message/).fill('untrusted echo') });
  await web.locator('main .result', { hasText: 'untrusted echo' }).waitFor({ timeout: 20_000 });
  assert.doesNotMatch(await web.locator('main .result').first().innerText(), /repo-no-echo/);
  assert.ok(
    readJsonLines(path.join(runDir(), 'trust-plain-calls.jsonl')).some((c) => c.tool === 'echo' && c.args?.message === 'untrusted echo'),
    'echo reached the plain server',
  );
  await vs.screenshot('trust-policy-file-unread');
});

test('trusting the workspace from the waiting row starts the waiting servers', { timeout: 120_000 }, async () => {
  await vs.openView('Servers');
  // the waiting row's command opens VS Code's workspace trust editor
  await treeRow(vs, 'fixture').click();
  const trust = vs.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^\s*Trust( Folder| Workspace)?\s*$/ }).first();
  await trust.waitFor({ state: 'visible', timeout: 30_000 });
  await vs.screenshot('trust-editor');
  await trust.click();
  await vs.openView('Servers');
  await waitForRow(vs, 'fixture', RUNNING, 60_000);
  await waitForRow(vs, 'folderArg', RUNNING, 60_000);
  await waitForRow(vs, 'plain', RUNNING, 60_000);
  await vs.screenshot('trust-granted');
  const workspace = fs.realpathSync(vs.workspaceDir);
  assert.equal((await cwdOf('ws-fixture')).cwd, workspace, "a trusted workspace's server runs in its folder");
  // the plain server restarts in the folder now that the folder may be its working directory
  assert.equal((await cwdOf('plain-fixture', (p) => p !== plainBefore)).cwd, workspace);
});

test(
  "trusted: the workspace policy file is read, and its deny rule refuses the call with the rule's reason",
  { timeout: 60_000 },
  async () => {
    const before = readJsonLines(path.join(runDir(), 'trust-plain-calls.jsonl')).length;
    const web = await callTool(vs, 'echo', { fill: (form) => form.getByLabel(/^message/).fill('trusted echo') });
    await web
      .locator('main .result', {
        hasText: /the repository forbids echo \(rule 'repo-no-echo'\)|Denied by the workspace's rule 'repo-no-echo'/,
      })
      .waitFor({ timeout: 20_000 });
    await vs.screenshot('trust-policy-file-read');
    assert.equal(readJsonLines(path.join(runDir(), 'trust-plain-calls.jsonl')).length, before, 'the denied call reached a server');
  },
);
