// MCP connections through the UI of a real VS Code, installed from the packaged extension: its status bar item and
// its three views; the Servers view lists the workspace's .vscode/mcp.json servers with their state and tools,
// Plangate: Call Tool… calls a tool and shows its result card, a server that fails to start shows its stderr, editing
// mcp.json restarts only the server that changed, and the walkthrough adds the demo server. (Restricted Mode: trust.)
// Which process runs for which server is read from /proc (each server has its own call log path in its command line).
// A remote server that asks for OAuth (the MCP SDK's own example server with its demo authorization server) is signed
// in to from its row, through a browser tab, and signed out of.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ROOT } from '../lib/env.mjs';
import { useVSCode } from '../lib/vscode.mjs';
import { fixtureServer, readJsonLines, withWorkspaceSettings } from '../lib/workspace.mjs';
import {
  callToolFromPalette,
  collapseAll,
  editMcpJson,
  expandRow,
  fixtureProcesses,
  hoverText,
  panel,
  readResultCard,
  revealRow,
  rowDescription,
  treeRow,
  visibleRows,
  waitForProcesses,
  waitForRow,
  waitForToastGone,
} from '../lib/servers.mjs';

const STDERR = 'boom: missing API key';
const RUNNING = /^running · \d+ tools$/;
const logOf = (dir, server) => path.join(dir, `${server}-calls.jsonl`);

/** Three fixture servers: alpha and beta run (each logging its calls to its own file), broken dies at start. */
function servers(dir, alphaArgs = []) {
  return {
    alpha: fixtureServer(dir, { callLog: logOf(dir, 'alpha'), args: ['--name', 'alpha-fixture', ...alphaArgs] }),
    beta: fixtureServer(dir, { callLog: logOf(dir, 'beta'), args: ['--name', 'beta-fixture'] }),
    broken: fixtureServer(dir, { callLog: logOf(dir, 'broken'), args: ['--fail-start', STDERR] }),
  };
}

const SDK_OAUTH_EXAMPLE = path.join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js');

/** A free port on 127.0.0.1 (bound, then closed). */
async function freePort() {
  const server = net.createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  await new Promise((done) => server.close(() => done(undefined)));
  return port;
}

/**
 * Starts the SDK's example server `simpleStreamableHttp --oauth` (a peer nobody here wrote): an MCP server that answers
 * 401 until signed in, and its in-memory authorization server, whose authorize page approves at once and redirects.
 */
async function startOAuthExample() {
  const [mcpPort, authPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [SDK_OAUTH_EXAMPLE, '--oauth'], {
    env: { ...process.env, MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`the SDK example server did not start within 15 s:\n${output}`)), 15_000);
    const onData = (/** @type {Buffer} */ c) => {
      output += c.toString();
      if (/Authorization Server listening/.test(output) && /MCP Streamable HTTP Server listening/.test(output)) {
        clearTimeout(timer);
        ready(undefined);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => fail(new Error(`the SDK example server exited:\n${output}`)));
  });
  return { url: `http://localhost:${mcpPort}/mcp`, close: () => child.kill('SIGKILL') };
}

/** The text appended to `file` after byte `offset`, once it matches `want` (the log is flushed a little late). */
async function waitForLog(file, offset, want, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline) {
    text = fs.readFileSync(file).subarray(offset).toString('utf8');
    if (want.test(text)) return text;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${file} never logged ${want} within ${timeout} ms; since the edit it reads:\n${text}`);
}

describe('a trusted workspace with servers in .vscode/mcp.json', () => {
  const vs = useVSCode({
    name: 'servers',
    workspace: { files: { 'README.md': '# Three MCP servers, one of them broken\n' }, servers: (dir) => servers(dir) },
  });

  test('the packaged extension installs and activates: the status bar reads "Plangate: idle"', async () => {
    assert.equal(await vs.waitForStatus('Plangate: idle'), 'Plangate: idle');
    assert.equal(await vs.statusBarItem().locator('.codicon').count(), 1, 'the status bar item has no codicon before its text');
    await vs.screenshot('status-bar-idle');
  });

  test('the Plangate activity bar container shows the Servers, Plans, Staged and Approvals views', async () => {
    await vs.openView('Servers');
    assert.deepEqual(await vs.viewTitles(), ['Servers', 'Plans', 'Staged', 'Approvals']);
    for (const view of ['Servers', 'Plans', 'Staged', 'Approvals'])
      assert.ok(await vs.viewPane(view).isVisible(), `the ${view} view is not visible`);
    await vs.screenshot('plangate-views');
  });

  test('the Servers view shows the fixture servers running, with their tools under them', { timeout: 90_000 }, async () => {
    await vs.openView('Servers');
    const alpha = await waitForRow(vs, 'alpha', RUNNING);
    const beta = await waitForRow(vs, 'beta', RUNNING);
    const tools = Number(alpha.match(/(\d+) tools/)[1]);
    assert.ok(tools >= 3, `alpha offers only ${tools} tools`);
    assert.equal(beta, alpha, 'beta runs the same fixture, so it lists as many tools');
    assert.equal(
      fixtureProcesses(logOf(vs.workspaceDir, 'alpha')).length,
      1,
      'one process runs for alpha (this also shows the /proc probe sees fixture servers)',
    );

    await expandRow(vs, 'alpha');
    await treeRow(vs, 'plan_scaffold').waitFor({ state: 'visible', timeout: 10_000 });
    const rows = await visibleRows(vs);
    assert.equal(rows[0], `alpha — ${alpha}`);
    assert.match(rows[1], /^plan_scaffold — read-only$/, `the first tool is listed under alpha, marked read-only: ${JSON.stringify(rows)}`);
    // the tree is a virtual list: scroll each tool into view (echo last, so the screenshot shows noop and echo)
    for (const tool of ['get_env', 'noop', 'echo']) {
      const row = await revealRow(vs, tool);
      assert.equal(await rowDescription(row), 'read-only', `tool ${tool} is listed, marked read-only`);
    }
    await vs.screenshot('servers-alpha-expanded');
    await collapseAll(vs);
    assert.deepEqual(
      (await visibleRows(vs)).map((r) => r.split(' — ')[0]),
      ['alpha', 'beta', 'broken'],
      'Collapse All leaves the three servers',
    );
  });

  test("a tool that two servers offer: the second server's row says which server it is shadowed by", { timeout: 60_000 }, async () => {
    await vs.openView('Servers');
    await collapseAll(vs);
    await expandRow(vs, 'beta');
    await treeRow(vs, 'plan_scaffold').waitFor({ state: 'visible', timeout: 10_000 });
    const rows = await visibleRows(vs);
    const at = rows.findIndex((r) => r.startsWith('beta — '));
    assert.match(rows[at + 1] ?? '', /^plan_scaffold — read-only · shadowed by alpha$/, `rows: ${JSON.stringify(rows)}`);
    await vs.screenshot('shadowed-by');
    await collapseAll(vs);
  });

  test(
    'a server whose command fails shows the error with its stderr tail in the row, and all of it in the hover',
    { timeout: 60_000 },
    async () => {
      await vs.openView('Servers');
      await collapseAll(vs);
      const description = await waitForRow(vs, 'broken', /^error: /);
      assert.match(description, /^error: exited during start-up \(exit code 1\) — boom: missing API key$/);
      await vs.screenshot('servers-running-and-error');
      const hover = await hoverText(vs, treeRow(vs, 'broken'));
      assert.ok(hover.includes(STDERR), `the hover shows the server's stderr "${STDERR}"; it reads:\n${hover}`);
      await vs.screenshot('servers-error-hover');
      await vs.page.mouse.move(700, 450);
    },
  );

  test('Call Tool… on echo: the form takes the message and the result card shows it', { timeout: 60_000 }, async () => {
    const message = 'hello from the servers spec';
    await callToolFromPalette(vs, 'echo');
    const web = await panel(vs);
    const form = web.locator('form.call-form');
    await form.waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal((await web.locator('main h1').first().innerText()).trim(), 'echo', 'the form is titled with the tool');
    await form.getByRole('textbox', { name: /message/ }).fill(message);
    await vs.screenshot('call-form-echo');
    await form.getByRole('button', { name: 'Call' }).click();

    const card = await readResultCard(vs, 'echo');
    assert.equal(card.heading, 'Result');
    assert.equal(card.badge, 'ok');
    assert.equal(card.origin, 'alpha · echo', 'the first server in configuration order answers');
    assert.deepEqual(card.texts, [message]);
    await waitForToastGone(vs, 'calling echo on alpha');
    await vs.screenshot('result-card-echo');
    const calls = readJsonLines(logOf(vs.workspaceDir, 'alpha')).filter((c) => c.tool === 'echo');
    assert.deepEqual(
      calls.map((c) => c.args),
      [{ message }],
      'alpha received exactly the typed message',
    );
    assert.deepEqual(readJsonLines(logOf(vs.workspaceDir, 'beta')), [], 'beta was not called');
  });

  test(
    'the Call Tool form: enum, boolean and nested-object widgets; a value breaking the schema is refused naming its field',
    { timeout: 90_000 },
    async () => {
      const log = logOf(vs.workspaceDir, 'alpha');
      const sent = () => readJsonLines(log).filter((c) => c.tool === 'configure_build');
      await callToolFromPalette(vs, 'configure_build');
      const web = await panel(vs);
      const form = web.locator('form.call-form', { has: web.getByRole('textbox', { name: /^name/ }) });
      await form.waitFor({ state: 'visible', timeout: 15_000 });
      const target = form.getByRole('combobox', { name: /^target/ });
      assert.equal(await target.inputValue(), 'debug', 'the enum shows its schema default, not "(none)"');
      const minify = form.getByRole('checkbox', { name: /^minify/ });
      assert.equal(await minify.isChecked(), false);
      const options = form.getByRole('group', { name: /^options/ });

      // A name the schema's pattern refuses: the form itself does not check patterns, the extension does.
      await form.getByRole('textbox', { name: /^name/ }).fill('Nightly Build!');
      await target.selectOption('release');
      await minify.check();
      await options.getByRole('spinbutton', { name: /^level/ }).fill('3');
      await options.getByRole('textbox', { name: /^label/ }).fill('fast');
      await form.getByRole('button', { name: 'Call' }).click();
      const error = form.locator('.error-text');
      await error.filter({ hasText: /\S/ }).waitFor({ timeout: 15_000 });
      assert.match(await error.innerText(), /The arguments do not fit configure_build's input schema: name must match pattern/);
      await vs.screenshot('call-form-refused');
      assert.deepEqual(sent(), [], 'nothing was sent to the server');

      await form.getByRole('textbox', { name: /^name/ }).fill('nightly');
      await form.getByRole('button', { name: 'Call' }).click();
      const card = await readResultCard(vs, 'configure_build');
      assert.equal(card.badge, 'ok');
      const expected = { name: 'nightly', target: 'release', minify: true, options: { level: 3, label: 'fast' } };
      assert.deepEqual(JSON.parse(card.texts[0]), expected, 'the server received what the widgets say');
      assert.deepEqual(
        sent().map((c) => c.args),
        [expected],
      );
      await waitForToastGone(vs, 'calling configure_build on alpha');
      await vs.screenshot('result-card-configure-build');
    },
  );

  test('Call Tool… on noop, which takes no arguments, calls it at once and shows its result card', { timeout: 60_000 }, async () => {
    await callToolFromPalette(vs, 'noop');
    const card = await readResultCard(vs, 'noop');
    assert.equal(card.badge, 'ok');
    assert.equal(card.origin, 'alpha · noop');
    assert.deepEqual(card.texts, ['ok']);
    assert.ok(!card.tabs.some((t) => /Call noop/.test(t)), `no form was opened for noop; panel tabs: ${JSON.stringify(card.tabs)}`);
    assert.deepEqual(
      readJsonLines(logOf(vs.workspaceDir, 'alpha'))
        .filter((c) => c.tool === 'noop')
        .map((c) => c.args),
      [{}],
    );
    await waitForToastGone(vs, 'calling noop on alpha');
    await vs.screenshot('result-card-noop');
  });

  test('a slow call shows a cancellable progress notification after a moment; its Cancel stops the call', { timeout: 60_000 }, async () => {
    await callToolFromPalette(vs, 'slow');
    const web = await panel(vs);
    const form = web.locator('form.call-form');
    await form.waitFor({ state: 'visible', timeout: 15_000 });
    await form.getByRole('spinbutton', { name: /^ms/ }).fill('30000');
    await form.getByRole('spinbutton', { name: /^steps/ }).fill('30');
    await form.getByRole('button', { name: 'Call' }).click();
    const toast = vs.page.locator('.notifications-toasts .notification-toast', { hasText: 'Plangate: calling slow on alpha' });
    await toast.waitFor({ state: 'visible', timeout: 10_000 });
    // The server's progress reaches the toast.
    await toast.filter({ hasText: /step \d+ of 30/ }).waitFor({ timeout: 10_000 });
    await vs.screenshot('call-progress-toast');
    await toast.getByRole('button', { name: 'Cancel' }).click();
    const card = await readResultCard(vs, 'slow');
    assert.equal(card.badge, 'call failed');
    assert.equal((await (await panel(vs)).locator('main .result .step-error').innerText()).trim(), 'Cancelled');
    await toast.waitFor({ state: 'hidden', timeout: 10_000 });

    // The form has its own Cancel while the call runs (the keyboard reaches it; no toast needed).
    await callToolFromPalette(vs, 'slow');
    const again = (await panel(vs)).locator('form.call-form');
    await again.getByRole('button', { name: 'Call' }).click();
    await again.getByRole('button', { name: 'Cancel' }).click();
    await (await panel(vs)).locator('main .result .step-error', { hasText: 'Cancelled' }).waitFor({ timeout: 15_000 });
    const slowCalls = readJsonLines(logOf(vs.workspaceDir, 'alpha')).filter((c) => c.tool === 'slow');
    assert.equal(slowCalls.length, 2, 'each Call reached the server once');
  });

  test('editing .vscode/mcp.json restarts only the server whose configuration changed', { timeout: 90_000 }, async () => {
    const dir = vs.workspaceDir;
    const [alphaBefore] = await waitForProcesses(logOf(dir, 'alpha'), (l) => l.length === 1, 'alpha is not running as one process');
    const [betaBefore] = await waitForProcesses(logOf(dir, 'beta'), (l) => l.length === 1, 'beta is not running as one process');

    const logFile = vs.extensionHostLogs().find((f) => path.basename(f) === 'Plangate.log');
    assert.ok(logFile, `no Plangate.log among the extension host logs: ${vs.extensionHostLogs().join(', ')}`);
    const logStart = fs.statSync(logFile).size;

    // the user opens mcp.json, gives alpha two more arguments after its last one, and saves
    await editMcpJson(vs, {
      line: '"alpha-fixture"',
      append: ', "--approval-polls", "3"',
      expected: { servers: servers(dir, ['--approval-polls', '3']) },
    });
    await vs.screenshot('mcp-json-edited');

    const [alphaAfter] = await waitForProcesses(
      logOf(dir, 'alpha'),
      (l) => l.length === 1 && l[0] !== alphaBefore,
      'alpha was not restarted by the edit',
    );
    const pid = alphaAfter.split(':')[0];
    assert.ok(
      fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--approval-polls'),
      'the new alpha process runs the edited arguments',
    );
    await vs.openView('Servers');
    await collapseAll(vs);
    await waitForRow(vs, 'alpha', RUNNING);
    await waitForRow(vs, 'beta', RUNNING);
    assert.match(await waitForRow(vs, 'broken', /^error: /), /exited during start-up/);
    assert.deepEqual(fixtureProcesses(logOf(dir, 'beta')), [betaBefore], 'beta kept its process: it was not restarted');
    assert.deepEqual(fixtureProcesses(logOf(dir, 'alpha')), [alphaAfter], 'the old alpha process is gone');
    // the Plangate log (Plangate: Show Log) tells the same story, and covers broken, which has no process to watch
    const since = await waitForLog(logFile, logStart, /\[alpha\] running/);
    assert.match(since, /\[alpha\] stopped\n.*\[alpha\] starting\n/, `alpha was stopped and started again:\n${since}`);
    assert.doesNotMatch(since, /\[(beta|broken)\] (stopped|starting|running|error)/, `only alpha changed state after the edit:\n${since}`);
    await vs.screenshot('servers-after-edit');
  });

  test(
    "Stop, Start and Restart from the server row's inline actions: the process ends, starts, and is replaced",
    { timeout: 90_000 },
    async () => {
      await vs.openView('Servers');
      await collapseAll(vs);
      const marker = logOf(vs.workspaceDir, 'beta');
      const [before] = await waitForProcesses(marker, (l) => l.length === 1, 'one beta process');
      const action = async (label) => {
        const row = treeRow(vs, 'beta');
        await row.hover();
        await row.locator(`.actions .action-label[aria-label="${label}"]`).click();
      };
      await action('Stop Server');
      assert.equal(await waitForRow(vs, 'beta', /^stopped/), 'stopped');
      await waitForProcesses(marker, (l) => l.length === 0, "beta's process to end");
      await vs.screenshot('server-stopped');
      await action('Start Server');
      await waitForRow(vs, 'beta', RUNNING, 60_000);
      const [started] = await waitForProcesses(marker, (l) => l.length === 1, 'one beta process after Start');
      assert.notEqual(started, before);
      await action('Restart Server');
      await waitForProcesses(marker, (l) => l.length === 1 && l[0] !== started, 'a new beta process after Restart');
      await waitForRow(vs, 'beta', RUNNING, 60_000);
      assert.equal(fixtureProcesses(logOf(vs.workspaceDir, 'alpha')).length, 1, 'alpha kept running throughout');
    },
  );

  test(
    'a server that asks for OAuth: "sign-in required" → Sign in → the browser tab completes the flow → a tool call works → Sign out',
    { timeout: 120_000 },
    async () => {
      const remote = await startOAuthExample();
      try {
        await withWorkspaceSettings(vs.workspaceDir, { 'plangate.servers': { remote: { type: 'http', url: remote.url } } }, async () => {
          await vs.openView('Servers');
          await collapseAll(vs);
          assert.equal(await waitForRow(vs, 'remote', /^sign-in required$/), 'sign-in required');
          await vs.page
            .locator('.notifications-toasts .notification-toast', { hasText: 'Plangate: remote needs you to sign in.' })
            .waitFor({ timeout: 15_000 });
          await vs.screenshot('oauth-sign-in-required');

          // Sign in from the row: VS Code opens the authorization page in a new tab (after its own "open external
          // website?" question, if it asks); the demo server approves at once and sends the tab back to Plangate.
          const tab = vs.context.waitForEvent('page', { timeout: 30_000 });
          await vs.clickViewItemAction('Servers', 'remote', 'Sign in');
          const openButton = vs.page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Open$/ });
          const opened = await Promise.race([tab.then(() => 'tab'), openButton.waitFor({ timeout: 30_000 }).then(() => 'dialog')]);
          if (opened === 'dialog') await openButton.click();
          const page = await tab;
          await page.waitForLoadState('domcontentloaded', { timeout: 30_000 });
          await page
            .locator('h1', { hasText: 'Signed in' })
            .waitFor({ timeout: 30_000 })
            .catch(async (err) => {
              const body = await page
                .locator('body')
                .innerText()
                .catch(() => '');
              throw new Error(`the sign-in tab ended at ${page.url()} reading:\n${body.slice(0, 500)}\n${err.message}`);
            });
          await page.screenshot({ path: path.join(vs.shotsDir, 'oauth-browser-tab.png') }).catch(() => undefined);
          await page.close();

          assert.match(await waitForRow(vs, 'remote', RUNNING, 30_000), RUNNING);
          await vs.screenshot('oauth-signed-in');
          await callToolFromPalette(vs, 'Greeting Tool'); // the tool's title; its name is greet
          const form = (await panel(vs)).locator('form.call-form');
          await form.waitFor({ state: 'visible', timeout: 15_000 });
          await form.getByRole('textbox', { name: /^name/ }).fill('Ada');
          await form.getByRole('button', { name: 'Call' }).click();
          const card = await readResultCard(vs, 'greet');
          assert.equal(card.badge, 'ok');
          assert.equal(card.origin, 'remote · greet');
          assert.deepEqual(card.texts, ['Hello, Ada!']);
          await waitForToastGone(vs, 'calling greet on remote');

          // Sign out from the row's context menu: the tokens are forgotten and the row asks for a sign-in again.
          await vs.openView('Servers');
          await treeRow(vs, 'remote').click({ button: 'right' });
          // A context menu's item takes the click once the pointer is on it; Enter on the item it highlights is the
          // keyboard's way, for when the click lands before the menu is ready for it.
          const signOut = vs.page.locator('.monaco-menu .action-label', { hasText: /^Sign out$/ });
          await signOut.hover();
          await signOut.click();
          if (await signOut.isVisible().catch(() => false)) await vs.page.keyboard.press('Enter');
          assert.equal(await waitForRow(vs, 'remote', /^sign-in required$/), 'sign-in required');
          await vs.screenshot('oauth-signed-out');
        });
      } finally {
        remote.close();
      }
    },
  );

  // Last: it adds a server to the workspace's settings.
  test(
    'the walkthrough\'s "Add the Demo Server" configures plangate-demo, which starts on VS Code\'s own runtime',
    { timeout: 90_000 },
    async () => {
      await vs.runCommand('Plangate: Add the Demo Server to This Workspace');
      await vs.page
        .locator('.notifications-toasts .notification-toast', { hasText: 'the demo server "plangate-demo" is configured' })
        .waitFor({ timeout: 15_000 });
      await vs.openView('Servers');
      await waitForRow(vs, 'plangate-demo', RUNNING, 60_000);
      // What it wrote: the workspace setting, with the bundled server run by VS Code's own executable as Node.
      const settings = JSON.parse(fs.readFileSync(path.join(vs.workspaceDir, '.vscode', 'settings.json'), 'utf8'));
      const demo = settings['plangate.servers']?.['plangate-demo'];
      assert.equal(demo?.type, 'stdio');
      assert.deepEqual(demo.env, { ELECTRON_RUN_AS_NODE: '1' });
      assert.match(demo.args[0], /dist[\\/]fixtureServer\.js$/);
      await vs.screenshot('demo-server-added');
    },
  );
});
