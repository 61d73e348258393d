// Server apps and the policy where the user meets them, in a real VS Code: an app's page in the panel and every call it
// makes asked on the policy's card; its network only once allowed; the policy's card, Always allow, a denied plan step,
// policy problems in the Problems panel, and the decisions in the Plans view. (Split from gate.test.mjs, whose session
// they shared, so the two run side by side.) What ran is read from the fixture's call log, what the user sees from the
// webview.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { callToolFromPalette } from '../lib/servers.mjs';
import { ROOT } from '../lib/env.mjs';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer } from '../lib/workspace.mjs';
import { callTool, panel, setTheme, settlePanel, waitForServerRunning } from '../lib/panel.mjs';

const log = callLogBeside('fixture-calls.jsonl');
const BASIC_APP_SERVER = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-basic-vanillajs', 'dist', 'index.js');

const vs = useVSCode({
  name: 'apps-policy',
  workspace: {
    files: { 'README.md': '# apps and policy workspace\n' },
    servers: (dir) => ({
      fixture: fixtureServer(dir, { callLog: log.path(dir) }),
      // A real MCP App server published by the protocol's maintainers (the ext-apps "basic" example), over stdio.
      'basic-app': { type: 'stdio', command: 'node', args: [BASIC_APP_SERVER, '--stdio'] },
    }),
  },
});

afterEach(async (t) => {
  if (/** @type {any} */ (t)?.passed === false) await settlePanel(vs);
});

const { lastSeq, callsAfter, toolsAfter, toolsOnceThere } = log.of(() => vs.workspaceDir);
const planOf = (web) => web.locator('main article.top-plan');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Server apps (MCP Apps): the fixture's app page (fixture/appTools.ts) in the panel, reached through the webview's
// frames. Every status the app shows is an <output id>; what reached the server is read from the call log.
const appFrame = (web) => web.frameLocator('#apps iframe.app-frame:not([hidden])');
/** The single-call card the policy shows (for an app's calls, Call Tool's and the agent's). */
const card = (web) => web.locator('main .call-card');
const appDialog = (text) => vs.page.locator('.monaco-dialog-box').filter({ hasText: text });

/**
 * Presses `button` in the app and waits until its status reads `want` (a RegExp). The press is a click event dispatched
 * in the app's own document, not a mouse click at a point of the page: late in a long session (many panel items, a
 * window reload before), Chromium here has delivered such mouse clicks on a frame shown after it was hidden to the
 * panel under it instead (the app never heard it; the panel's tab strip took the focus). The app tests before this one
 * click with the mouse.
 */
async function appSays(app, button, want, timeout = 20_000) {
  if (button) await app.getByRole('button', { name: button, exact: true }).dispatchEvent('click');
  const status = app.locator('#status');
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline && !want.test(text)) {
    text = await status.innerText({ timeout: 2000 }).catch(() => '');
    if (!want.test(text)) await sleep(150);
  }
  assert.match(text, want);
  return text;
}

test("a server's app renders from a Call Tool result; its call asks on the policy's card: Deny sends nothing, Allow once sends it once", async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'app_panel', { fill: async (form) => form.getByLabel(/^label/).fill('Ada') });
  await web.locator('main .result .app-caption').waitFor({ timeout: 20_000 });
  assert.match(await web.locator('main .result .app-caption').innerText(), /ui:\/\/fixture\/panel-app/);
  const app = appFrame(web);
  await app.locator('#result', { hasText: 'App panel for Ada' }).waitFor({ timeout: 20_000 });
  assert.equal(await app.locator('#input').innerText(), '{"label":"Ada"}');
  assert.equal(await app.locator('#theme').innerText(), 'dark');
  await vs.screenshot('app-dark');

  // The theme follows VS Code's, told to the running app.
  await setTheme(vs, 'light', web);
  await app.locator('#theme', { hasText: 'light' }).waitFor({ timeout: 15_000 });
  await vs.screenshot('app-light');
  await setTheme(vs, 'dark', web);

  // The app's call waits on the single-call card (Plangate's default for an app's calls), once, not in a second prompt.
  await app.getByRole('button', { name: 'Call app_echo', exact: true }).click();
  const shown = card(web);
  await shown.waitFor({ timeout: 15_000 });
  assert.match(await shown.locator('.card-who').innerText(), /An MCP App of server 'fixture' calls app_echo on server fixture/);
  assert.match(await shown.locator('.card-because').innerText(), /Asked because: the app of server 'fixture' asked for this call/);
  assert.match(await shown.locator('.card-args').innerText(), /"text": "from the app"/, 'the card shows the arguments');
  assert.equal(await vs.page.locator('.monaco-dialog-box').count(), 0, 'no modal besides the card');
  await vs.screenshot('app-call-asks');
  await shown.getByLabel('Note for the caller').fill('not now');
  await shown.getByRole('button', { name: 'Deny' }).click();
  // The card goes, the app comes back, and it hears the refusal with the user's note.
  await appSays(app, null, /app_echo refused: .*The user denied the call to 'app_echo' on server 'fixture': not now/);
  assert.deepEqual(toolsAfter(since), ['app_panel'], 'nothing was sent when the user said no');

  await app.getByRole('button', { name: 'Call app_echo', exact: true }).click();
  await shown.waitFor({ timeout: 15_000 });
  await shown.getByRole('button', { name: 'Allow once' }).click();
  await appSays(app, null, /^app_echo: echo: from the app$/);
  assert.deepEqual(await toolsOnceThere(since, 2), ['app_panel', 'app_echo']);
  assert.deepEqual(callsAfter(since)[1], ['app_echo', { text: 'from the app' }]);
});

test('an app cannot call a model-only tool, reach the network or the webview, or navigate; a link asks first', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'app_panel', { fill: async (form) => form.getByLabel(/^label/).fill('Bo') });
  const app = appFrame(web);
  await app.locator('#result', { hasText: 'App panel for Bo' }).waitFor({ timeout: 20_000 });

  await appSays(app, 'Call a model-only tool', /app_panel refused: .*not meant for apps/);
  assert.equal(await vs.page.locator('.monaco-dialog-box').count(), 0, 'no dialog: refused before asking');
  await appSays(app, 'Fetch', /^network blocked$/);
  await appSays(app, 'Reach the webview', /^webview not reached$/);
  // A frame the app makes inside its own posts a fake empty panel to the panel's document: ignored.
  await appSays(app, 'Spoof the panel', /^spoof sent from the app \(its own frame refused: TypeError\)$/);
  await sleep(1000);
  assert.match(await web.locator('main .result .origin').innerText(), /fixture · app_panel/, 'the panel still shows its own state');

  // Navigating its own frame away only restarts the app (its page is put back, with its input and result again).
  await app.getByRole('button', { name: 'Navigate', exact: true }).dispatchEvent('click');
  await app.locator('#status', { hasText: /^ready$/ }).waitFor({ timeout: 15_000 });
  await app.locator('#result', { hasText: 'App panel for Bo' }).waitFor({ timeout: 15_000 });
  assert.equal(await app.locator('h2').innerText(), 'Fixture app');
  assert.match(await web.locator('main .result .origin').innerText(), /fixture · app_panel/);

  await app.getByRole('button', { name: 'Open link', exact: true }).dispatchEvent('click');
  const dialog = appDialog("The app of server 'fixture' wants to open a link.");
  await dialog.waitFor({ timeout: 15_000 });
  assert.match(await dialog.innerText(), /https:\/\/example\.com\/from-app/);
  await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
  await appSays(app, null, /^link not opened$/);
  assert.deepEqual(toolsAfter(since), ['app_panel'], 'the app sent nothing to the server');
});

test('an app page of the wrong type or over the size cap: the plain result with a note; closing an app removes its frame', async () => {
  await waitForServerRunning(vs);
  await callToolFromPalette(vs, 'app_bad_mime'); // no arguments: called at once, no form
  let web = await panel(vs);
  const note = web.locator('main .result .app-note');
  await note.waitFor({ timeout: 20_000 });
  assert.match(await note.innerText(), /is not shown: its type is "text\/html", not "text\/html;profile=mcp-app"/);
  assert.match(await web.locator('main .result pre.text-block').first().innerText(), /A result whose app is not shown/);
  await vs.screenshot('app-fallback-note');
  await callToolFromPalette(vs, 'app_too_big');
  await web.locator('main .result .app-note', { hasText: 'larger than' }).waitFor({ timeout: 30_000 });

  web = await callTool(vs, 'app_panel', { fill: async (form) => form.getByLabel(/^label/).fill('Cy') });
  await appFrame(web).locator('#result', { hasText: 'App panel for Cy' }).waitFor({ timeout: 20_000 });
  const frames = web.locator('#apps iframe.app-frame');
  const before = await frames.count();
  await web.getByRole('button', { name: 'Close app_panel result' }).first().click();
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && (await frames.count()) >= before) await sleep(150);
  assert.equal(await frames.count(), before - 1, 'the closed result took its app frame with it');
});

test("a real MCP App server's page (the ext-apps basic example) renders; its button's tool call asks first, then goes through", async () => {
  await waitForServerRunning(vs, 'basic-app');
  await callToolFromPalette(vs, 'Get Time'); // its title; no arguments: called at once
  const web = await panel(vs);
  await web.locator('main .result .app-caption', { hasText: 'ui://get-time/mcp-app.html' }).waitFor({ timeout: 20_000 });
  const app = appFrame(web);
  const time = app.locator('#server-time');
  const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;
  const deadline = Date.now() + 20_000;
  let first = '';
  while (Date.now() < deadline && !iso.test(first)) first = (await time.innerText({ timeout: 2000 }).catch(() => '')).trim();
  assert.match(first, iso, 'the app shows the time from its tool result');
  await vs.screenshot('basic-app');
  await sleep(1100); // the next time differs by at least a second
  await app.getByRole('button', { name: 'Get Server Time' }).click();
  await card(web).waitFor({ timeout: 15_000 });
  assert.match(await card(web).locator('.card-who').innerText(), /An MCP App of server 'basic-app' calls get-time/);
  await card(web).getByRole('button', { name: 'Allow once' }).click();
  let second = first;
  const until = Date.now() + 15_000;
  while (Date.now() < until && second === first) second = (await time.innerText({ timeout: 2000 }).catch(() => first)).trim();
  assert.notEqual(second, first, 'the allowed call went through and its result reached the app');
  assert.match(second, iso);
});

test("a plan step on an app tool offers Open app once it ran: its app shows the step's input and result, and its calls still ask", async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await callTool(vs, 'plan_app', { fill: async (form) => form.getByLabel(/^label/).fill('Dee') });
  const plan = planOf(web);
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 20_000 });
  const openButtons = plan.getByRole('button', { name: /^Open the app of step/ });
  assert.equal(await openButtons.count(), 0, 'nothing to open before the steps ran');
  const frames = web.locator('#apps iframe.app-frame');
  const framesBefore = await frames.count();
  await plan.getByRole('button', { name: 'Approve and run' }).click();
  await vs.waitForStatus('Plangate: idle', 30_000);
  const open = plan.getByRole('button', { name: 'Open the app of step 2' });
  await open.waitFor({ timeout: 15_000 });
  assert.equal(await openButtons.count(), 1, 'only the step whose tool has an app offers it');
  assert.equal(await frames.count(), framesBefore, 'no frame until the user opens the app');
  await vs.screenshot('plan-step-open-app');

  await open.click();
  const app = appFrame(web);
  await app.locator('#result', { hasText: 'App panel for Dee' }).waitFor({ timeout: 20_000 });
  assert.equal(await app.locator('#input').innerText(), '{"label":"Dee"}', "the step's arguments are the app's tool input");
  assert.match(await web.locator('main .result .origin').innerText(), /fixture · app_panel/);
  assert.match(await web.locator('nav.switcher .tab.selected').innerText(), /app_panel · step 2/);
  await vs.screenshot('plan-step-app');

  // The app's call goes through the door as any app's: asked on the card first.
  await app.getByRole('button', { name: 'Call app_echo', exact: true }).dispatchEvent('click');
  await card(web).waitFor({ timeout: 15_000 });
  await card(web).getByRole('button', { name: 'Allow once' }).click();
  await appSays(app, null, /^app_echo: echo: from the app$/);
  assert.deepEqual(
    await toolsOnceThere(since, 4),
    ['plan_app', 'succeed', 'app_panel', 'app_echo'],
    'the step ran once; opening its app ran nothing',
  );

  // Open app again shows the same app, not a second one.
  const count = await frames.count();
  await web.locator('nav.switcher .tab-button', { hasText: 'Say hello, then show the fixture app' }).click();
  await open.waitFor({ timeout: 15_000 });
  await open.click();
  await app.locator('#result', { hasText: 'App panel for Dee' }).waitFor({ timeout: 20_000 });
  assert.equal(await frames.count(), count, 'no second frame for the same step');
});

/** A local HTTP server answering any origin (CORS `*`), counting the requests it saw. */
async function countingServer() {
  /** @type {string[]} */
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'text/plain' });
    res.end('ok');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  return { port: /** @type {import('node:net').AddressInfo} */ (server.address()).port, seen, close: () => server.close() };
}

test("an app's declared origin: blocked until the user allows it for the server, then reached; an undeclared one stays blocked", async () => {
  await waitForServerRunning(vs);
  const declared = await countingServer();
  const other = await countingServer();
  try {
    let web = await callTool(vs, 'app_network', {
      fill: async (form) => {
        await form.getByLabel(/^declared/).fill(String(declared.port));
        await form.getByLabel(/^other/).fill(String(other.port));
      },
    });
    const origin = `http://127.0.0.1:${declared.port}`;
    let notice = web.locator('main .result .app-network');
    await notice.waitFor({ timeout: 20_000 });
    assert.equal((await notice.innerText()).replace(/\s+/g, ' ').trim(), `fixture’s app asks to reach: ${origin} Allow Keep blocked`);
    assert.match((await notice.getAttribute('title')) ?? '', /Plangate: Reset Server App Network Access/);
    let app = appFrame(web);
    // On load, and again on the app's button: both blocked, and nothing reached either server.
    await app.locator('#declared', { hasText: 'blocked (1)' }).waitFor({ timeout: 20_000 });
    await app.locator('#other', { hasText: 'blocked (1)' }).waitFor({ timeout: 20_000 });
    await app.getByRole('button', { name: 'Fetch again' }).dispatchEvent('click');
    await app.locator('#declared', { hasText: 'blocked (2)' }).waitFor({ timeout: 20_000 });
    await app.locator('#other', { hasText: 'blocked (2)' }).waitFor({ timeout: 20_000 });
    await vs.screenshot('app-network-asks');
    assert.deepEqual([declared.seen, other.seen], [[], []], 'no request left the app before Allow');

    // Something typed in a native form (Call Tool's, not sent) must outlive the reload Allow causes.
    const typed = new Error('form filled, not called');
    await callTool(vs, 'app_panel', {
      fill: async (form) => {
        await form.getByLabel(/^label/).fill('typed before Allow');
        throw typed;
      },
    }).catch((err) => {
      if (err !== typed) throw err;
    });
    // The harness marks the panel's frame anew for each lookup: the locators follow the new mark.
    web = await panel(vs);
    notice = web.locator('main .result .app-network');
    app = appFrame(web);
    await web.locator('nav.switcher .tab-button', { hasText: 'app_network result' }).click();
    await notice.waitFor({ timeout: 15_000 });

    // Allow, from the keyboard: the panel loads again with the grant and the app starts afresh, fetching on load.
    await notice.getByRole('button', { name: 'Allow', exact: true }).focus();
    await vs.page.keyboard.press('Enter');
    const allowed = web.locator('main .result .app-network', { hasText: 'Allowed:' });
    await allowed.waitFor({ timeout: 20_000 });
    assert.equal((await allowed.innerText()).replace(/\s+/g, ' ').trim(), `Allowed: ${origin}`);
    assert.equal(await web.getByRole('button', { name: 'Allow', exact: true }).count(), 0, 'nothing left to ask');
    await app.locator('#declared', { hasText: 'reached (1)' }).waitFor({ timeout: 20_000 });
    await app.locator('#other', { hasText: 'blocked (1)' }).waitFor({ timeout: 20_000 });
    await app.getByRole('button', { name: 'Fetch again' }).dispatchEvent('click');
    await app.locator('#declared', { hasText: 'reached (2)' }).waitFor({ timeout: 20_000 });
    await app.locator('#other', { hasText: 'blocked (2)' }).waitFor({ timeout: 20_000 });
    await vs.screenshot('app-network-allowed');
    assert.deepEqual(declared.seen, ['/declared?try=1', '/declared?try=2'], 'the allowed origin got the requests after Allow');
    assert.deepEqual(other.seen, [], 'the undeclared origin got none');
    await web.locator('nav.switcher .tab-button', { hasText: 'Call app_panel' }).click();
    assert.equal(
      await web
        .locator('form.call-form')
        .getByLabel(/^label/)
        .inputValue({ timeout: 15_000 }),
      'typed before Allow',
      'the draft in the native form survived the reload',
    );
    await web.locator('nav.switcher .tab-button', { hasText: 'app_network result' }).click();
    await notice.waitFor({ timeout: 15_000 });

    // Reset forgets the grant: the app asks again and reaches nothing.
    await vs.runCommand('Plangate: Reset Server App Network Access');
    await web.locator('main .result .app-network', { hasText: 'asks to reach' }).waitFor({ timeout: 20_000 });
    await app.locator('#declared', { hasText: 'blocked (1)' }).waitFor({ timeout: 20_000 });
    assert.equal(declared.seen.length, 2, 'nothing more reached the origin after the reset');
    // Keep blocked: the notice says so and stops asking.
    await web.getByRole('button', { name: 'Keep blocked', exact: true }).click();
    await web.locator('main .result .app-network', { hasText: `Kept blocked: ${origin}` }).waitFor({ timeout: 15_000 });
    assert.equal(await web.getByRole('button', { name: 'Allow', exact: true }).count(), 0);
  } finally {
    declared.close();
    other.close();
  }
});

/** A UDP socket on a random local port that keeps every datagram it hears (a TURN/STUN server that never answers). */
async function udpListener() {
  /** @type {Buffer[]} */
  const heard = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg) => heard.push(msg));
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', () => resolve(undefined)));
  return { port: socket.address().port, heard, close: () => socket.close() };
}

test('an app has no WebRTC: not in its page, nor in a frame it makes or writes; and no script from a URL — nothing is heard', async () => {
  await waitForServerRunning(vs);
  const udp = await udpListener();
  const scripts = await countingServer();
  try {
    const web = await callTool(vs, 'app_webrtc', {
      fill: async (form) => {
        await form.getByLabel(/^udp/).fill(String(udp.port));
        await form.getByLabel(/^http/).fill(String(scripts.port));
      },
    });
    const app = appFrame(web);
    await app.locator('h2', { hasText: 'WebRTC app' }).waitFor({ timeout: 20_000 });
    const said = async (id) => (await app.locator(`#${id}`).innerText()).trim();
    for (const id of ['top', 'nested', 'xslt', 'scripts'])
      await app
        .locator(`#${id}`)
        .filter({ hasNotText: /^not tried$/ })
        .waitFor({ timeout: 20_000 });
    // Let anything the page started reach the listeners (ICE gathering sends at once; TURN retries for seconds).
    await sleep(5000);
    await vs.screenshot('app-webrtc');
    const outcomes = { top: await said('top'), nested: await said('nested'), parsed: await said('parsed'), xslt: await said('xslt') };
    assert.deepEqual(
      { datagrams: udp.heard.length, withData: udp.heard.filter((b) => b.includes('secret-from')).length, scriptRequests: scripts.seen },
      { datagrams: 0, withData: 0, scriptRequests: [] },
      `nothing reached the network (the page said ${JSON.stringify(outcomes)})`,
    );
    assert.equal(outcomes.top, 'RTCPeerConnection unavailable', 'the page has no RTCPeerConnection');
    assert.match(outcomes.nested, /^frame refused: TypeError$/, 'a frame of its own that runs scripts is refused');
    assert.equal(outcomes.parsed, 'no word from it', "the frame in the page's HTML runs no script");
    assert.equal(outcomes.xslt, 'refused: XSLTProcessor unavailable');
    assert.equal(await said('scripts'), 'import blocked');
  } finally {
    udp.close();
    scripts.close();
  }
});

// Policy (allow / ask / deny by rule). Call Tool is an entrance like the agent's: a destructive tool is asked on the
// single-call card, which is the same card the agent's and an app's calls get.
const userSettingsFile = () => vs.userSettingsFile;
const policyFile = () => path.join(vs.workspaceDir, '.vscode', 'plangate-policy.json');

/** Calls write_file_step from Call Tool with `file` as its path; returns the panel once the card shows. */
async function cardFor(file) {
  const web = await callTool(vs, 'write_file_step', {
    fill: async (form) => {
      await form.getByLabel(/^path/).fill(file);
      await form.getByLabel(/^content/).fill('written by the policy test\n');
    },
  });
  await card(web).waitFor({ timeout: 15_000 });
  return web;
}

test('policy: a destructive tool asks on the card, saying why; Deny sends nothing and the note reaches the caller; Allow once runs it once', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  let web = await cardFor('policy-once.txt');
  const shown = card(web);
  assert.match(await shown.locator('.card-who').innerText(), /Call Tool calls write_file_step on server fixture/);
  assert.match(
    await shown.locator('.card-because').innerText(),
    /Asked because: tool 'write_file_step' says it may destroy data \(destructiveHint\), and destructive tools are asked by default/,
  );
  assert.match(await shown.locator('.card-args').innerText(), /"path": "policy-once\.txt"/);
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  await vs.screenshot('policy-card');
  await shown.getByLabel('Note for the caller').fill('not before the review');
  await shown.getByRole('button', { name: 'Deny' }).click();
  await web
    .locator('main .result')
    .filter({ hasText: "The user denied the call to 'write_file_step' on server 'fixture': not before the review" })
    .waitFor({ timeout: 15_000 });
  await sleep(500);
  assert.deepEqual(toolsAfter(since), [], 'Deny: nothing reached the server');
  assert.equal(fs.existsSync(path.join(vs.workspaceDir, 'policy-once.txt')), false);

  web = await cardFor('policy-once.txt');
  await card(web).getByRole('button', { name: 'Allow once' }).click();
  await web.locator('main .result').waitFor({ timeout: 15_000 });
  assert.deepEqual(await toolsOnceThere(since, 1), ['write_file_step']);
  assert.equal(fs.readFileSync(path.join(vs.workspaceDir, 'policy-once.txt'), 'utf8'), 'written by the policy test\n');
});

test('policy: Always allow writes the narrowest rule to the user settings and shows it; the next call runs without the card', async () => {
  // The rule it writes stays in the user settings for the rest of this session (no later test calls write_file_step
  // from Call Tool); the settings editor that would take it out again keeps the command palette shut here.
  await waitForServerRunning(vs);
  const since = lastSeq();
  const web = await cardFor('policy-always.txt');
  const always = card(web).locator('details.card-always');
  await always.locator('summary').click();
  // Each length shows the rule it writes; Always allow's is the last.
  assert.equal(await always.locator('pre').count(), 3);
  assert.match(await always.locator('pre').last().innerText(), /"tool": "write_file_step"/);
  await card(web).getByRole('button', { name: 'Always allow' }).click();
  await vs.page
    .locator('.notifications-toasts .notification-toast', { hasText: "rule 'allow-fixture-write-file-step' added to your user settings" })
    .first()
    .waitFor({ timeout: 15_000 });
  await vs.screenshot('policy-always-allowed');
  const settings = JSON.parse(fs.readFileSync(userSettingsFile(), 'utf8'));
  assert.deepEqual(settings['plangate.policy']?.rules, [
    {
      id: 'allow-fixture-write-file-step',
      decision: 'allow',
      reason: settings['plangate.policy'].rules[0].reason,
      server: 'fixture',
      serverKey: settings['plangate.policy'].rules[0].serverKey,
      tool: 'write_file_step',
      entrance: ['call'],
    },
  ]);
  // This server by identity: its name and the hash of how it is started (a same-named other server inherits nothing).
  assert.match(settings['plangate.policy'].rules[0].serverKey, /^fixture [0-9a-f]{64}$/);
  assert.deepEqual(await toolsOnceThere(since, 1), ['write_file_step']);

  const next = await callTool(vs, 'write_file_step', {
    fill: async (form) => {
      await form.getByLabel(/^path/).fill('policy-always.txt');
      await form.getByLabel(/^content/).fill('again\n');
    },
  });
  await next.locator('main .result').waitFor({ timeout: 15_000 });
  assert.equal(await card(next).count(), 0, 'no card: the rule allowed it');
  assert.deepEqual(await toolsOnceThere(since, 2), ['write_file_step', 'write_file_step']);
});

test("policy: a plan step that the workspace policy denies is marked before approval and never runs; the plan stops there with the rule's reason", async () => {
  await waitForServerRunning(vs);
  fs.writeFileSync(
    policyFile(),
    JSON.stringify({
      rules: [{ id: 'no-components', decision: 'deny', reason: 'components are made by hand here', tool: 'create_component' }],
    }),
  );
  try {
    await sleep(1500); // the file watcher reads it
    const since = lastSeq();
    const web = await callTool(vs, 'plan_scaffold');
    const plan = planOf(web);
    const marks = plan.locator('ol.steps > li.step .step-policy.policy-deny');
    await marks.first().waitFor({ timeout: 15_000 });
    assert.match(
      await marks.first().innerText(),
      /Cannot run: Denied by the workspace's rule 'no-components': components are made by hand here/,
    );
    assert.equal(await plan.locator('li.step[data-step="1"] .step-policy').count(), 0, 'the allowed step carries no mark');
    await vs.screenshot('policy-denied-step');
    await plan.getByRole('button', { name: 'Approve and run' }).click();
    await plan.getByRole('button', { name: 'Stop', exact: true }).waitFor({ timeout: 20_000 });
    assert.match(
      await plan.locator('li.step[data-step="2"] .step-error').innerText(),
      /Not sent: Policy denies calling 'create_component'.*components are made by hand here \(rule 'no-components'\)/,
    );
    assert.deepEqual(toolsAfter(since), ['plan_scaffold', 'create_screen'], 'the denied step was never sent');
    await plan.getByRole('button', { name: 'Stop', exact: true }).click();
    await vs.waitForStatus('Plangate: idle', 20_000);
  } finally {
    fs.rmSync(policyFile(), { force: true });
  }
});

const editUserSettings = (text) => vs.editUserSettings(text);

test('policy: a mistake in your own plangate.policy shows in the Problems panel at its place in the user settings file', async () => {
  const before = fs.readFileSync(userSettingsFile(), 'utf8');
  const settings = JSON.parse(before);
  settings['plangate.policy'] = {
    rules: [
      { id: 'mine', decision: 'alow', reason: 'a typo' },
      { id: 'ghost', server: 'no-such-server', decision: 'ask', reason: 'a server that is not configured' },
    ],
  };
  const text = JSON.stringify(settings, null, 2);
  const lines = text.split('\n');
  const typoLine = lines.findIndex((l) => l.includes('"alow"')) + 1;
  const typoCol = lines[typoLine - 1].indexOf('"alow"') + 1;
  await editUserSettings(text);
  const rows = vs.page.locator('.markers-panel .monaco-list-row');
  try {
    await vs.runCommand('View: Toggle Problems').catch(() => vs.runCommand('Problems: Focus on Problems View'));
    const typo = rows.filter({ hasText: `Rule 'mine': "decision" must be "allow", "ask" or "deny".` });
    await typo.first().waitFor({ timeout: 20_000 });
    assert.match(await typo.first().innerText(), new RegExp(`Ln ${typoLine}, Col ${typoCol}`));
    await rows.filter({ hasText: 'no-such-server' }).first().waitFor({ timeout: 10_000 });
    assert.ok((await rows.filter({ hasText: 'settings.json' }).count()) > 0, 'the problems are listed under settings.json');
    await vs.screenshot('policy-user-problems');
  } finally {
    await editUserSettings(before);
  }
  // Fixed: the problems go.
  await rows.filter({ hasText: "Rule 'mine'" }).first().waitFor({ state: 'detached', timeout: 20_000 });
});

test('policy: a workspace policy file with a mistake shows it in the Problems panel with its line; a rule that loosens your policy is flagged', async () => {
  fs.writeFileSync(
    policyFile(),
    [
      '{',
      '  // a broken rule and a loosening one',
      '  "rules": [',
      '    { "id": "typo", "decision": "alow", "reason": "x" },',
      '    { "id": "repo-allows-all", "decision": "allow", "reason": "the repository says so" }',
      '  ]',
      '}',
    ].join('\n'),
  );
  try {
    await vs.page
      .locator('.notifications-toasts .notification-toast', { hasText: 'would loosen your own policy' })
      .first()
      .waitFor({ timeout: 15_000 });
    await vs.runCommand('View: Toggle Problems').catch(() => vs.runCommand('Problems: Focus on Problems View'));
    const rows = vs.page.locator('.markers-panel .monaco-list-row');
    const typo = rows.filter({ hasText: `Rule 'typo': "decision" must be "allow", "ask" or "deny".` });
    await typo.first().waitFor({ timeout: 15_000 });
    assert.match(await typo.first().innerText(), /Ln 4, Col 33/);
    await rows.filter({ hasText: "Rule 'repo-allows-all' would loosen your own policy" }).first().waitFor({ timeout: 10_000 });
    await vs.screenshot('policy-problems');
  } finally {
    fs.rmSync(policyFile(), { force: true });
  }
});

/** Accepts code-server's save dialog (a quick input holding the proposed path) once the name matches; returns the file. */
async function acceptSaveDialog(name) {
  const input = vs.page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  // The dialog shows the folder first and fills in the file name a moment later.
  let proposed = '';
  for (let i = 0; i < 50 && !name.test(proposed); i++) {
    proposed = await input.inputValue();
    if (!name.test(proposed)) await sleep(200);
  }
  assert.match(proposed, name);
  await vs.page.keyboard.press('Enter');
  return path.join(vs.workspaceDir, path.basename(proposed));
}

test('policy: the Plans view lists a denied and an allowed call with their rule ids; Export Calls as JSON writes both with them', async () => {
  await waitForServerRunning(vs);
  fs.writeFileSync(
    policyFile(),
    JSON.stringify({
      rules: [
        { id: 'no-echo-here', decision: 'deny', reason: 'echo is not for this repository', tool: 'echo' },
        { id: 'succeed-ok', decision: 'allow', reason: 'succeed only reports success', tool: 'succeed' },
      ],
    }),
  );
  try {
    await sleep(1500); // the file watcher reads it
    const since = lastSeq();
    let web = await callTool(vs, 'echo', { fill: (form) => form.getByLabel(/^message/).fill('policy-calls') });
    await web.locator('main .result').filter({ hasText: "Policy denies calling 'echo'" }).waitFor({ timeout: 15_000 });
    web = await callTool(vs, 'succeed', { fill: (form) => form.getByLabel(/^message/).fill('policy-calls') });
    await web.locator('main .result').filter({ hasText: 'policy-calls' }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await toolsOnceThere(since, 1), ['succeed'], 'the denied call never reached the server');

    const pane = await vs.openView('Plans');
    const group = pane.locator('.monaco-list-row', { has: vs.page.locator('.label-name', { hasText: /^Calls$/ }) }).first();
    await group.waitFor({ timeout: 15_000 });
    if ((await group.getAttribute('aria-expanded')) !== 'true') await group.click();
    const rowOf = async (label) =>
      (await vs.viewItems('Plans')).find((i) => i.label === label && /· fixture · Call Tool$/.test(i.description));
    let denied;
    let allowed;
    for (let i = 0; i < 50 && !(denied && allowed); i++) {
      [denied, allowed] = [await rowOf('echo'), await rowOf('succeed')];
      if (!(denied && allowed)) await sleep(200);
    }
    assert.equal(denied?.description, "refused · denied by rule 'no-echo-here' · fixture · Call Tool");
    assert.equal(allowed?.description, "ok · allowed by rule 'succeed-ok' · fixture · Call Tool");
    const items = (await vs.viewItems('Plans')).map((i) => i.label);
    assert.ok(items.indexOf('succeed') < items.indexOf('echo'), `newest first: ${JSON.stringify(items)}`);
    await vs.screenshot('policy-calls-in-plans-view');

    // The denied call's row alone, then the whole group.
    await vs.clickViewItemAction('Plans', 'echo', 'Export Calls as JSON');
    const one = await acceptSaveDialog(/call-[0-9a-f-]{8}\.json$/);
    await vs.page
      .locator('.notifications-toasts .notification-toast', { hasText: 'call exported to' })
      .first()
      .waitFor({ timeout: 15_000 });
    const single = JSON.parse(fs.readFileSync(one, 'utf8'));
    fs.rmSync(one);
    assert.equal(single.exportedBy, 'Plangate');
    assert.deepEqual(
      single.calls.map((c) => [c.tool, c.outcome, c.policy.decision, c.policy.ruleId, c.policy.source]),
      [['echo', 'refused', 'deny', 'no-echo-here', 'workspace']],
    );
    assert.equal(single.calls[0].decisionText, "Denied by rule 'no-echo-here': echo is not for this repository.");
    assert.deepEqual(single.calls[0].args, { message: 'policy-calls' });

    await vs.clickViewItemAction('Plans', 'Calls', 'Export Calls as JSON');
    const all = await acceptSaveDialog(/calls-\d{4}-\d{2}-\d{2}\.json$/);
    await vs.page
      .locator('.notifications-toasts .notification-toast', { hasText: 'calls exported to' })
      .first()
      .waitFor({ timeout: 15_000 });
    const data = JSON.parse(fs.readFileSync(all, 'utf8'));
    fs.rmSync(all);
    const mine = data.calls.filter((c) => c.args?.message === 'policy-calls');
    assert.deepEqual(
      mine.map((c) => [c.tool, c.outcome, c.policy.decision, c.policy.ruleId]),
      [
        ['succeed', 'ok', 'allow', 'succeed-ok'],
        ['echo', 'refused', 'deny', 'no-echo-here'],
      ],
    );
  } finally {
    fs.rmSync(policyFile(), { force: true });
  }
});
