// Servers in a sandbox, in a real VS Code: a workspace whose .vscode/mcp.json says "sandboxEnabled": true for the
// fixture server (as VS Code's own MCP support reads it). The Servers view marks it sandboxed with its rules on
// hover; its hostile tool (escape_attempt), called from Call Tool…, reads a planted ~/.ssh key, writes outside the
// workspace, writes inside and connects to a local port: only the write inside succeeds, and the refusals are in
// the server's log with the path and host.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { fixtureServer } from '../lib/workspace.mjs';
import { callTool, waitForServerRunning } from '../lib/panel.mjs';
import { fixtureProcesses, hoverText, treeRow, waitForRow } from '../lib/servers.mjs';

/** Beside the workspace (outside it): the server's HOME with its planted key, and a folder it must not write. */
const homeOf = (dir) => `${dir}-home`;
const outsideOf = (dir) => path.join(`${dir}-outside`, 'escaped.txt');

/** Plangate's log of this session (its LogOutputChannel's file). */
function plangateLog(vs) {
  const logs = path.join(vs.userDataDir, 'logs');
  const files = fs
    .readdirSync(logs, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(path.join('plangate.plangate', 'Plangate.log')));
  return files.map((f) => fs.readFileSync(path.join(logs, f), 'utf8')).join('\n');
}

/** A TCP listener on 127.0.0.1 counting the connections it accepts. */
async function listener() {
  let accepted = 0;
  const server = net.createServer((s) => {
    accepted++;
    s.destroy();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  return { port: /** @type {net.AddressInfo} */ (server.address()).port, accepted: () => accepted, close: () => server.close() };
}

/**
 * Calls escape_attempt from Call Tool… (allowed once on the policy's card) with a local listener's port; returns the
 * outcome it answers, the path it tried outside the workspace, the listener's port and how many connections it took.
 */
async function escape(vs) {
  const tcp = await listener();
  try {
    const outside = outsideOf(vs.workspaceDir);
    const web = await callTool(vs, 'escape_attempt', {
      fill: async (form) => {
        await form.getByLabel(/^outside/).fill(outside);
        await form.getByLabel(/^port/).fill(String(tcp.port));
      },
    });
    // A destructive tool is asked on the single-call card first.
    const card = web.locator('main .call-card');
    await card.waitFor({ timeout: 15_000 });
    await card.getByRole('button', { name: 'Allow once' }).click();
    const result = web.locator('main .result pre.text-block').first();
    await result.waitFor({ timeout: 30_000 });
    return { outcome: JSON.parse(await result.innerText()), outside, port: tcp.port, accepted: tcp.accepted() };
  } finally {
    tcp.close();
  }
}

describe('a workspace whose mcp.json says "sandboxEnabled": true', () => {
  const vs = useVSCode({
    name: 'sandbox',
    workspace: {
      files: { 'README.md': '# A sandboxed MCP server\n' },
      servers: (dir) => {
        fs.mkdirSync(path.join(homeOf(dir), '.ssh'), { recursive: true });
        fs.writeFileSync(path.join(homeOf(dir), '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
        fs.mkdirSync(path.dirname(outsideOf(dir)), { recursive: true });
        fs.rmSync(outsideOf(dir), { force: true });
        // A PATH with node and nothing else: no bubblewrap, socat or ripgrep for the second server.
        const bare = `${dir}-bare-bin`;
        fs.mkdirSync(bare, { recursive: true });
        if (!fs.existsSync(path.join(bare, 'node'))) fs.symlinkSync(process.execPath, path.join(bare, 'node'));
        return {
          nobox: { ...fixtureServer(dir, { callLog: path.join(dir, 'nobox-calls.jsonl') }), env: { PATH: bare }, sandboxEnabled: true },
          boxed: {
            ...fixtureServer(dir),
            env: { HOME: homeOf(dir) },
            sandboxEnabled: true,
            sandbox: { filesystem: { allowWrite: ['${workspaceFolder}'], denyRead: ['~/.ssh'] } },
          },
        };
      },
    },
  });

  test('the Servers view marks the server sandboxed, and its hover lists the rules', { timeout: 120_000 }, async () => {
    await vs.openView('Servers');
    const description = await waitForRow(vs, 'boxed', /running/);
    assert.match(description, /^sandboxed · running · \d+ tools$/);
    const hover = await hoverText(vs, treeRow(vs, 'boxed'));
    assert.match(hover, /Sandboxed: its entry says "sandboxEnabled": true/);
    assert.ok(hover.includes(`Writes only to: ${vs.workspaceDir}, ~/.npm`), `the hover names the writable places; it reads:\n${hover}`);
    assert.match(hover, /Reads everything except: ~\/\.ssh/);
    assert.match(hover, /Network: only \*\.npmjs\.org/);
    await vs.screenshot('sandboxed-server-hover');
    await vs.page.mouse.move(700, 450);
  });

  test('its hostile tool: only the write inside the workspace succeeds', { timeout: 120_000 }, async () => {
    await waitForServerRunning(vs, 'boxed');
    const { outcome, outside, port, accepted } = await escape(vs);
    await vs.screenshot('sandboxed-escape-result');
    assert.equal(outcome.writeOutside, 'EROFS', `the write outside was refused: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.writeInside, 'ok');
    assert.notEqual(outcome.read, 'ok');
    assert.equal(outcome.secretLength, 0);
    assert.notEqual(outcome.connect, 'ok');
    assert.equal(fs.existsSync(outside), false, 'nothing was written outside the workspace');
    assert.equal(fs.readFileSync(path.join(vs.workspaceDir, 'escape-inside.txt'), 'utf8'), 'inside\n');
    assert.equal(accepted, 0, 'no connection reached the local port');
    // The refusals are in the server's log, with the path or host, so the user can widen a rule knowingly.
    let log = '';
    for (let i = 0; i < 40 && !/sandbox refused a connection/.test(log); i++) {
      log = plangateLog(vs);
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(log.includes(`[boxed] [stderr] escape_attempt: write ${outside} failed: EROFS  ← sandbox refused a write`), log.slice(-3000));
    assert.match(log, /\[boxed\] \[stderr\] escape_attempt: read .*\.ssh\/id_ed25519 failed: ENOENT {2}← the sandbox hides /);
    assert.ok(log.includes(`[boxed] sandbox refused a connection to 127.0.0.1:${port}`), log.slice(-3000));
  });

  test(
    'a server asking for a sandbox where none can be had does not start; its row says why and what to install',
    { timeout: 120_000 },
    async () => {
      await vs.openView('Servers');
      const description = await waitForRow(vs, 'nobox', /^error: /);
      assert.match(description, /^error: was not started: it asks for a sandbox/);
      const hover = await hoverText(vs, treeRow(vs, 'nobox'));
      assert.match(hover, /bubblewrap \(bwrap\), socat, ripgrep \(rg\) are not installed/);
      assert.match(hover, /sudo apt-get install bubblewrap socat ripgrep/);
      assert.match(hover, /plangate\.sandbox\.allowUnsandboxed/);
      assert.match(hover, /Asks for a sandbox with these rules:\n+Writes only to: ~\/\.npm/);
      await vs.screenshot('no-sandbox-hover');
      await vs.page.mouse.move(700, 450);
      assert.deepEqual(fixtureProcesses(path.join(vs.workspaceDir, 'nobox-calls.jsonl')), [], 'no process runs for the server');
    },
  );
});

describe('plangate.sandbox.workspaceServers on in the user settings (and off in the workspace settings)', () => {
  const vs = useVSCode({
    name: 'sandbox-default',
    settings: { 'plangate.sandbox.workspaceServers': true },
    workspace: {
      files: { 'README.md': '# A workspace server that asks for nothing\n' },
      // The repository tries to turn the user's sandbox off: a user-only setting, so this is ignored.
      settings: { 'plangate.sandbox.workspaceServers': false },
      servers: (dir) => {
        fs.mkdirSync(path.join(homeOf(dir), '.ssh'), { recursive: true });
        fs.writeFileSync(path.join(homeOf(dir), '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
        fs.mkdirSync(path.dirname(outsideOf(dir)), { recursive: true });
        fs.rmSync(outsideOf(dir), { force: true });
        return { repo: { ...fixtureServer(dir), env: { HOME: homeOf(dir) }, sandboxEnabled: false } };
      },
    },
  });

  test('the workspace server runs sandboxed: the folder writable, ~/.ssh hidden, no network', { timeout: 180_000 }, async () => {
    await vs.openView('Servers');
    assert.match(await waitForRow(vs, 'repo', /running/), /^sandboxed · running · \d+ tools$/);
    const hover = await hoverText(vs, treeRow(vs, 'repo'));
    assert.match(hover, /it comes from the workspace and plangate\.sandbox\.workspaceServers is on/);
    assert.match(hover, /Network: none/);
    await vs.screenshot('workspace-default-hover');
    await vs.page.mouse.move(700, 450);
    const { outcome, outside, accepted } = await escape(vs);
    await vs.screenshot('workspace-default-escape-result');
    assert.equal(outcome.writeOutside, 'EROFS', JSON.stringify(outcome));
    assert.equal(outcome.writeInside, 'ok');
    assert.equal(outcome.secretLength, 0, 'the planted key stays hidden');
    assert.notEqual(outcome.connect, 'ok');
    assert.equal(outcome.viaProxy, 'proxy 403', 'the proxy lets no host through');
    assert.equal(fs.existsSync(outside), false);
    assert.equal(accepted, 0);
  });
});
