// The real-VS-Code harness: one code-server (VS Code 1.139 on Node 24) with Plangate installed from the .vsix,
// driven through headless Debian Chromium by playwright-core. One session per spec file:
//
//   const vs = await launchVSCode({ name: 'views', workspace: { files: {...}, servers: (dir) => ({ fixture: fixtureServer(dir) }) } });
//   try { await vs.runCommand('Plangate: Show Plan Panel'); ... } finally { await vs.close(); }
//
// Every session gets a fresh user-data-dir, extensions dir, workspace, browser profile and a free port, all in
// <run dir>/<name>/ (.e2e/runs/<timestamp>/ by default) together with code-server.log, browser-console.log, the
// extension host logs (user-data/logs/) and shots/*.png. code-server runs in its own process group and the whole
// group is killed by close(), on SIGINT/SIGTERM/SIGHUP, and (SIGKILL) on exit.
import { chromium } from 'playwright-core';
import { after, afterEach, before } from 'node:test';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { CODE_SERVER, E2E_HOME, EXTENSION_ID, ROOT, VSIX, chromiumPath, isolatedEnv, runDir } from './env.mjs';
import { killGroup, onInterrupt, spawnGroup, trackGroup } from './processes.mjs';
import { CALL_LOG, createWorkspace, readJsonLines } from './workspace.mjs';

const execFileAsync = promisify(execFile);

/** Color themes by short name; any other string is taken as a theme's full name. */
export const THEMES = { dark: 'Default Dark Modern', light: 'Default Light Modern' };

/**
 * User settings for every session: no start page, updates, telemetry, AI side bar or tips in the way; and an editor
 * that types what it is given, so editUserSettings can replace the settings file's text as it is.
 */
const BASE_SETTINGS = {
  'editor.autoIndent': 'none',
  'editor.autoClosingBrackets': 'never',
  'editor.autoClosingQuotes': 'never',
  'editor.formatOnType': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'chat.disableAIFeatures': true,
  'git.openRepositoryInParentFolders': 'never',
};

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const exactly = (text) => (text instanceof RegExp ? text : new RegExp(`^\\s*${escapeRegExp(text)}\\s*$`));

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/** A folder under the run dir named `name`, or `name-2`, `name-3`… when a session of that name ran already. */
function sessionDir(name) {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-');
  for (let i = 1; ; i++) {
    const dir = path.join(runDir(), i === 1 ? safe : `${safe}-${i}`);
    try {
      fs.mkdirSync(dir);
      return dir;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
  }
}

/** The main chromium process playwright started for `profileDir` (a child of this process, leader of its own group). */
function findBrowserPid(profileDir) {
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(profileDir)) return Number(d);
    } catch {
      // raced with an exiting process
    }
  }
  return undefined;
}

/**
 * Starts code-server with Plangate installed and opens its workbench in headless Chromium.
 *
 * Options:
 * - `name`: folder and label of this session (default 'vscode').
 * - `workspace`: `{ files, servers, settings }` for createWorkspace (servers may be `(dir) => map`).
 * - `theme`: 'dark' (default), 'light' or a theme's full name.
 * - `trust`: 'trusted' (default: workspace trust off) or 'untrusted' (trust on, restricted mode, no prompt).
 * - `env`: extra environment for code-server and so for the extension host (e.g. PLANGATE_TEST_SUITE).
 * - `settings`: extra user settings.
 * - `vsix`: the package to install (default plangate.vsix at the root); `dev: true` (or PLANGATE_E2E_DEV=1)
 *   links the repository folder into the extensions dir instead, for quick iteration on a fresh `npm run build`.
 * - `waitForExtension`: wait for the Plangate status bar item (default true).
 * - `extraExtensions`: folders of other (test-only, unbuilt) extensions linked beside Plangate, e2e/fakeModel say.
 * On failure the session is screenshotted, closed, and the error names the session folder.
 */
/** @param {SessionOptions} [options] @returns {Promise<VSCodeSession>} */
export async function launchVSCode(options = {}) {
  const session = new VSCodeSession(options);
  try {
    await session.start();
  } catch (err) {
    await session.screenshot('launch-failure').catch(() => {});
    await session.close();
    err.message += `\n  session files: ${session.dir}${session.consoleHints()}${session.tailLog()}`;
    throw err;
  }
  return session;
}

/**
 * Opens an already running workbench (e.g. the demo's code-server) in headless Chromium, without starting or
 * stopping any server: `url` is the full workbench address, `dir` receives shots/ and browser-console.log.
 * Waits for the Plangate status bar item unless `waitForExtension` is false. close() closes only the browser.
 */
/** @param {string} url @param {{ dir?: string, name?: string, waitForExtension?: boolean }} [options] */
export async function attachVSCode(url, { dir, name = 'attached', waitForExtension = true } = {}) {
  const session = new VSCodeSession({ name, dir, waitForExtension });
  session.attachedUrl = url;
  try {
    await session.openBrowser();
    if (waitForExtension) await session.statusBarItem().waitFor({ state: 'visible', timeout: 60_000 });
  } catch (err) {
    await session.screenshot('attach-failure').catch(() => {});
    await session.close();
    throw err;
  }
  return session;
}

/**
 * @typedef {object} SessionOptions
 * @property {string} [name] the session's name (its folder under the run directory, its log tag)
 * @property {string} [dir] the session folder (default: a new folder named after the session)
 * @property {import('./workspace.mjs').WorkspaceSpec} [workspace] files, servers and settings of the workspace
 * @property {string} [theme] 'dark', 'light' or a theme's name
 * @property {'trusted' | 'untrusted'} [trust]
 * @property {Record<string, string>} [env] extra environment of code-server (and so of the extension host)
 * @property {Record<string, unknown>} [settings] extra user settings
 * @property {string} [vsix] the package to install
 * @property {boolean} [dev] link the repository folder instead of installing the package
 * @property {boolean} [waitForExtension] wait for the Plangate status bar item
 * @property {string[]} [extraExtensions] folders of other extensions to link into the extensions dir
 */

export class VSCodeSession {
  /** @param {SessionOptions} [options] */
  constructor({
    name = 'vscode',
    dir,
    workspace = {},
    theme = 'dark',
    trust = 'trusted',
    env = {},
    settings = {},
    vsix = VSIX,
    dev = process.env.PLANGATE_E2E_DEV === '1',
    waitForExtension = true,
    extraExtensions = [],
  } = {}) {
    if (!['trusted', 'untrusted'].includes(trust)) throw new Error(`trust must be 'trusted' or 'untrusted', not ${trust}`);
    this.name = name;
    this.workspaceSpec = workspace;
    this.theme = theme;
    this.trust = trust;
    this.extraEnv = env;
    this.extraSettings = settings;
    this.vsix = vsix;
    this.dev = dev;
    this.waitForExtension = waitForExtension;
    this.extraExtensions = extraExtensions;
    /** @type {string | undefined} the workbench address when attached to a running code-server */
    this.attachedUrl = undefined;
    this.dir = dir ?? sessionDir(name);
    fs.mkdirSync(this.dir, { recursive: true });
    this.workspaceDir = path.join(this.dir, 'workspace');
    this.userDataDir = path.join(this.dir, 'user-data');
    this.extensionsDir = path.join(this.dir, 'extensions');
    this.shotsDir = path.join(this.dir, 'shots');
    this.profileDir = path.join(this.dir, 'chromium-profile');
    this.logFile = path.join(this.dir, 'code-server.log');
    this.consoleLog = path.join(this.dir, 'browser-console.log');
    this.pageErrors = [];
    this.shotCount = 0;
    this.closed = false;
    this.env = isolatedEnv(E2E_HOME, env);
    this.unregisterInterrupt = onInterrupt(() => this.close());
  }

  /** The workbench URL for the session's workspace. */
  get url() {
    return this.attachedUrl ?? `http://127.0.0.1:${this.port}/?folder=${this.workspaceDir}`;
  }

  async start() {
    const t0 = Date.now();
    const lap = (what) => this.log(`${what} (+${((Date.now() - t0) / 1000).toFixed(1)}s)`);
    createWorkspace(this.workspaceDir, this.workspaceSpec);
    this.writeUserSettings();
    await this.installExtension();
    this.linkExtraExtensions();
    lap(this.dev ? 'extension linked' : 'extension installed');
    await this.startServer();
    lap(`code-server up on port ${this.port}`);
    await this.openBrowser();
    lap('workbench loaded');
    if (this.waitForExtension) {
      await this.statusBarItem().waitFor({ state: 'visible', timeout: 60_000 });
      lap(`extension active: status bar "${await this.statusBarText()}"`);
    }
  }

  log(message) {
    console.log(`[e2e ${this.name}] ${message}`);
  }

  writeUserSettings() {
    const settings = {
      ...BASE_SETTINGS,
      'workbench.colorTheme': THEMES[this.theme] ?? this.theme,
      'security.workspace.trust.enabled': this.trust !== 'trusted',
      ...(this.trust === 'untrusted'
        ? { 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.emptyWindow': false }
        : {}),
      ...this.extraSettings,
    };
    fs.mkdirSync(path.join(this.userDataDir, 'User'), { recursive: true });
    fs.writeFileSync(path.join(this.userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  }

  async installExtension() {
    fs.mkdirSync(this.extensionsDir, { recursive: true });
    if (this.dev) {
      const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
      fs.symlinkSync(ROOT, path.join(this.extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`));
      return;
    }
    if (!fs.existsSync(this.vsix)) throw new Error(`${this.vsix} is missing: run \`npm run package\` in the repository root first`);
    try {
      await execFileAsync(
        CODE_SERVER,
        ['--user-data-dir', this.userDataDir, '--extensions-dir', this.extensionsDir, '--install-extension', this.vsix, '--force'],
        { env: this.env, timeout: 120_000 },
      );
    } catch (err) {
      throw new Error(`code-server --install-extension ${this.vsix} failed: ${err.stderr || err.stdout || err.message}`);
    }
    const installed = fs.readdirSync(this.extensionsDir).filter((d) => d.toLowerCase().startsWith(`${EXTENSION_ID}-`));
    if (installed.length === 0) throw new Error(`installing ${this.vsix} left no ${EXTENSION_ID}-* folder in ${this.extensionsDir}`);
  }

  /**
   * Links the `extraExtensions` folders beside Plangate. Where `--install-extension` wrote the extensions dir's
   * extensions.json, VS Code loads only what it lists: each linked folder gets its entry there too.
   */
  linkExtraExtensions() {
    const listFile = path.join(this.extensionsDir, 'extensions.json');
    const list = fs.existsSync(listFile) ? JSON.parse(fs.readFileSync(listFile, 'utf8')) : undefined;
    for (const dir of this.extraExtensions) {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      const folder = `${manifest.publisher}.${manifest.name}-${manifest.version}`;
      const target = path.join(this.extensionsDir, folder);
      fs.symlinkSync(dir, target);
      list?.push({
        identifier: { id: `${manifest.publisher}.${manifest.name}` },
        version: manifest.version,
        location: { $mid: 1, path: target, scheme: 'file' },
        relativeLocation: folder,
        metadata: { installedTimestamp: Date.now(), source: 'vsix' },
      });
    }
    if (list && this.extraExtensions.length > 0) fs.writeFileSync(listFile, JSON.stringify(list));
  }

  async startServer() {
    if (!fs.existsSync(CODE_SERVER)) throw new Error(`${CODE_SERVER} is missing: run \`bash e2e/setup.sh\` first`);
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      const args = [
        '--bind-addr',
        `127.0.0.1:${this.port}`,
        '--auth',
        'none',
        '--disable-telemetry',
        '--disable-update-check',
        ...(this.trust === 'trusted' ? ['--disable-workspace-trust'] : []),
        '--user-data-dir',
        this.userDataDir,
        '--extensions-dir',
        this.extensionsDir,
        this.workspaceDir,
      ];
      fs.appendFileSync(this.logFile, `\n# ${new Date().toISOString()} code-server ${args.join(' ')}\n`);
      const { pid, exited } = spawnGroup(CODE_SERVER, args, {
        // VSCODE_CLI=1: VS Code skips asking a login shell for its environment before it starts the extension host —
        // here that probe always ran into its 10-second timeout, at every start of every session. The extension's
        // own PATH lookup (src/mcp/shellPath.ts) is not affected.
        env: { ...this.env, VSCODE_CLI: '1' },
        cwd: this.workspaceDir,
        logFile: this.logFile,
        marker: this.userDataDir,
        label: `code-server (${this.name})`,
      });
      this.serverPid = pid;
      let exitCode;
      exited.then((code) => {
        exitCode = code;
      });
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && exitCode === undefined) {
        try {
          const res = await fetch(`http://127.0.0.1:${this.port}/healthz`);
          if (res.ok) return;
        } catch {
          // not listening yet
        }
        await sleep(150);
      }
      await killGroup(pid);
      this.serverPid = undefined;
      const log = fs.readFileSync(this.logFile, 'utf8');
      if (exitCode !== undefined && /EADDRINUSE/.test(log) && attempt < 3) continue; // the free port was taken meanwhile
      throw new Error(
        exitCode !== undefined
          ? `code-server exited (${exitCode}) before answering /healthz`
          : 'code-server did not answer /healthz within 30 s',
      );
    }
  }

  async openBrowser() {
    this.context = await chromium.launchPersistentContext(this.profileDir, {
      executablePath: chromiumPath(),
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
      env: this.env,
      timeout: 60_000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    this.browserPid = findBrowserPid(this.profileDir);
    if (this.browserPid) trackGroup(this.browserPid, this.profileDir, `chromium (${this.name})`);
    this.page = this.context.pages()[0] ?? (await this.context.newPage());
    const consoleOut = fs.createWriteStream(this.consoleLog, { flags: 'a' });
    this.consoleStream = consoleOut;
    this.page.on('console', (m) => consoleOut.write(`[${m.type()}] ${m.text()}\n`));
    this.page.on('pageerror', (e) => {
      this.pageErrors.push(String(e));
      consoleOut.write(`[pageerror] ${e.stack ?? e}\n`);
    });
    await this.page.goto(this.url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await this.page.locator('.part.statusbar').waitFor({ timeout: 60_000 });
  }

  // ---- the workbench -------------------------------------------------------------------------------------

  /** The Plangate status bar item (VS Code gives its element the id `<extension id>.<item id>`). */
  statusBarItem() {
    return this.page.locator(`[id="${EXTENSION_ID}.plangate.status"]`);
  }

  /** The Plangate status bar item's visible text, e.g. "Plangate: idle" (the codicon before it has no text). */
  async statusBarText() {
    return (await this.statusBarItem().innerText()).replace(/\s+/g, ' ').trim();
  }

  /** Waits until the status bar item's text matches (a string must match it whole, a RegExp anywhere). */
  async waitForStatus(text, timeout = 30_000) {
    const want = exactly(text);
    const deadline = Date.now() + timeout;
    let last = '';
    while (Date.now() < deadline) {
      last = await this.statusBarText().catch(() => '');
      if (want.test(last)) return last;
      await sleep(200);
    }
    throw new Error(`status bar never read ${want} within ${timeout} ms; last: "${last}"`);
  }

  /** Opens the command palette with F1, retrying while the workbench still swallows keys during restore. */
  async openPalette() {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    for (let i = 0; ; i++) {
      if (i > 0) {
        // Whatever holds the keyboard (a hover, a notification's focus, a modal editor) lets go on Escape; the status
        // bar's click takes the focus out of a webview. A short timeout: something covering the status bar would
        // otherwise hold each try for Playwright's default 30 s (a settings edit once took 140 s so).
        await this.page.keyboard.press('Escape').catch(() => {});
        await this.page
          .locator('.part.statusbar')
          .click({ position: { x: 3, y: 3 }, timeout: 2000 })
          .catch(() => {});
      }
      await this.page.keyboard.press('F1');
      try {
        await input.waitFor({ state: 'visible', timeout: 4000 });
        return input;
      } catch (err) {
        if (i >= 4) throw new Error(`the command palette did not open after ${i + 1} presses of F1: ${err.message}`);
      }
    }
  }

  /**
   * Runs a command by its palette title, e.g. 'Plangate: Show Plan Panel'. Picks the row whose label is exactly
   * the title (not a longer title that merely starts with it); retries up to `retries` times.
   */
  async runCommand(title, { retries = 3 } = {}) {
    const row = this.page
      .locator('.quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: exactly(title) }) })
      .first();
    let lastErr;
    for (let i = 0; i < retries; i++) {
      try {
        const input = await this.openPalette();
        await input.fill(`>${title}`);
        await row.waitFor({ state: 'visible', timeout: 10_000 });
        await row.click();
        await input.waitFor({ state: 'hidden', timeout: 5000 });
        return;
      } catch (err) {
        lastErr = err;
        const rows = await this.page
          .locator('.quick-input-list .monaco-list-row')
          .allInnerTexts()
          .catch(() => []);
        this.log(
          `runCommand "${title}" attempt ${i + 1} failed (${err.message.split('\n')[0]}); palette rows: ${JSON.stringify(rows.slice(0, 5))}`,
        );
        await this.page.keyboard.press('Escape').catch(() => {});
      }
    }
    throw new Error(`could not run command "${title}": ${lastErr?.message}`);
  }

  /** The activity bar entry of a view container, by its title ('Plangate', 'Explorer'…). */
  activityBarItem(title = 'Plangate') {
    return this.page
      .locator('.part.activitybar .action-item .action-label, .part.sidebar .composite-bar .action-item .action-label')
      .and(this.page.locator(`[aria-label="${title}"], [aria-label^="${title} ("]`))
      .first();
  }

  /**
   * Shows the view container (default 'Plangate') in the side bar and, if `view` is given, makes sure that view
   * ('Servers', 'Plans', 'Staged') is expanded. Returns the view's pane locator (or the side bar's).
   */
  async openView(view, { container = 'Plangate' } = {}) {
    const sidebar = this.page.locator('.part.sidebar');
    const title = sidebar.locator('.composite.title .title-label');
    if (!(await sidebar.isVisible()) || !exactly(container.toUpperCase()).test((await title.innerText().catch(() => '')).toUpperCase())) {
      await this.activityBarItem(container).click();
      await this.page.mouse.move(1, 1); // no hover tooltip left over the activity bar in screenshots
      await this.page.waitForFunction(
        (want) => {
          const label = document.querySelector('.part.sidebar .composite.title .title-label');
          return !!label && label.textContent.trim().toUpperCase() === want;
        },
        container.toUpperCase(),
        { timeout: 15_000 },
      );
    }
    if (!view) return sidebar;
    const pane = this.viewPane(view);
    const header = pane.locator('.pane-header').first();
    await header.waitFor({ state: 'visible', timeout: 15_000 });
    if ((await header.getAttribute('aria-expanded')) === 'false') await header.click();
    await this.page.waitForFunction((el) => el.getAttribute('aria-expanded') === 'true', await header.elementHandle(), { timeout: 10_000 });
    return pane;
  }

  /** A view's pane in the side bar, by its title; use `.locator('.pane-body')` for its content. */
  viewPane(view) {
    return this.page
      .locator('.part.sidebar .split-view-view .pane')
      .filter({ has: this.page.locator('.pane-header .title', { hasText: exactly(view) }) })
      .first();
  }

  /** The rows of a tree view as `{ label, description }`, top to bottom (only rows rendered, i.e. visible). */
  async viewItems(view) {
    return this.viewPane(view)
      .locator('.monaco-list-row')
      .evaluateAll((rows) =>
        rows.map((r) => ({
          label: r.querySelector('.label-name')?.textContent?.trim() ?? r.textContent.trim(),
          description: r.querySelector('.label-description')?.textContent?.trim() ?? '',
        })),
      );
  }

  /** The inline action buttons of the tree row labelled `label` in `view` (hovered so they show), by their titles. */
  async viewItemActions(view, label) {
    const row = this.viewPane(view)
      .locator('.monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: exactly(label) }) })
      .first();
    await row.hover();
    return row
      .locator('.actions .action-label')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? e.getAttribute('title') ?? ''));
  }

  /** Clicks the inline action `action` (its aria-label or title) of the row `label` in `view`, as a mouse user does. */
  async clickViewItemAction(view, label, action) {
    const row = this.viewPane(view)
      .locator('.monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: exactly(label) }) })
      .first();
    await row.hover();
    await row.locator(`.actions .action-label[aria-label="${action}"], .actions .action-label[title="${action}"]`).first().click();
  }

  /** Titles of the views shown in the side bar right now, top to bottom. */
  async viewTitles() {
    return (await this.page.locator('.part.sidebar .split-view-view .pane-header .title').allInnerTexts()).map((t) => t.trim());
  }

  /**
   * The content of a Plangate webview as a FrameLocator (outer iframe.webview.ready → inner #active-frame).
   * With several webviews open, `title` (string = exact, or RegExp) picks the one whose title (the panel's or
   * view's title, which VS Code puts on the inner frame) matches; otherwise the visible one is taken.
   * `extensionId` restricts to webviews of that extension (default Plangate's). A panel in a background tab has
   * no webview in the DOM, so when no webview matches `title` the editor tab of that title is clicked once.
   */
  /** @param {{ title?: string | RegExp, extensionId?: string, timeout?: number }} [options] */
  async webview({ title, extensionId = EXTENSION_ID, timeout = 30_000 } = {}) {
    const want = title === undefined ? undefined : exactly(title);
    const deadline = Date.now() + timeout;
    const seen = new Set();
    let tabClicked = false;
    for (let round = 0; Date.now() < deadline; round++) {
      if (want && !tabClicked && round >= 4) {
        const tab = this.editorTab(title);
        if (await tab.isVisible().catch(() => false)) {
          await tab.click();
          tabClicked = true;
        }
      }
      for (const outer of this.page.frames()) {
        if (outer.parentFrame() !== this.page.mainFrame()) continue;
        const url = outer.url();
        if (!/\/index\.html\?/.test(url) || (extensionId && new URL(url).searchParams.get('extensionId') !== extensionId)) continue;
        const el = await outer.frameElement().catch(() => null);
        if (!el || !(await el.evaluate((e) => e.classList.contains('ready')).catch(() => false))) continue;
        const innerTitle = await outer
          .locator('#active-frame')
          .getAttribute('title', { timeout: 1000 })
          .catch(() => null);
        if (innerTitle === null) continue;
        seen.add(innerTitle);
        if (want ? !want.test(innerTitle) : !(await el.isVisible())) continue;
        const token = `wv-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
        await el.evaluate((e, t) => e.setAttribute('data-e2e-webview', t), token);
        return this.page.frameLocator(`iframe[data-e2e-webview="${token}"]`).frameLocator('#active-frame');
      }
      await sleep(250);
    }
    throw new Error(
      `no ${title === undefined ? 'visible ' : ''}webview${want ? ` titled ${want}` : ''} of ${extensionId} within ${timeout} ms; webviews seen: ${JSON.stringify([...seen])}`,
    );
  }

  /** An editor tab by its label (string = exact, or RegExp). */
  editorTab(label) {
    return this.page
      .locator('.part.editor .tabs-container .tab')
      .filter({ has: this.page.locator('.label-name', { hasText: exactly(label) }) })
      .first();
  }

  /** Saves a screenshot of the whole window as shots/NN-<name>.png and returns its path. */
  async screenshot(name) {
    if (!this.page) throw new Error('no page to screenshot');
    fs.mkdirSync(this.shotsDir, { recursive: true });
    const file = path.join(this.shotsDir, `${String(++this.shotCount).padStart(2, '0')}-${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** The user's settings file of this session (`<user-data>/User/settings.json`). */
  get userSettingsFile() {
    return path.join(this.userDataDir, 'User', 'settings.json');
  }

  /**
   * Replaces the user settings file's text the way a user does: in VS Code's own editor of it, saved. (A write to the
   * file from outside is not read by code-server while it runs.) Closes the editor after.
   * @param {string} text
   */
  async editUserSettings(text) {
    await this.runCommand('Preferences: Open User Settings (JSON)');
    const editor = this.page.locator('.monaco-editor[data-uri$="/User/settings.json"]').first();
    await editor.waitFor({ timeout: 15_000 });
    await editor.click();
    await this.page.keyboard.press('Control+A');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.insertText(text);
    await this.page.keyboard.press('Control+S');
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && fs.readFileSync(this.userSettingsFile, 'utf8') !== text) await sleep(100);
    if (fs.readFileSync(this.userSettingsFile, 'utf8') !== text) throw new Error('the user settings file was not saved');
    // The settings file may open in a modal editor, which keeps the command palette from opening: Escape closes that
    // one; a settings file in an ordinary editor tab is closed from the palette.
    await editor.click();
    await this.page.keyboard.press('Escape');
    if (
      !(await editor.waitFor({ state: 'hidden', timeout: 3000 }).then(
        () => true,
        () => false,
      ))
    ) {
      await this.runCommand('View: Close Editor');
      await editor.waitFor({ state: 'hidden', timeout: 10_000 });
    }
  }

  /** Entries of the fixture server's call log in this workspace (see workspace.fixtureServer). */
  readCallLog(file = path.join(this.workspaceDir, CALL_LOG)) {
    return readJsonLines(file);
  }

  /** The extension host's log files (code-server's server-side logs under user-data/logs). */
  extensionHostLogs() {
    const out = [];
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/exthost/i.test(p) && e.name.endsWith('.log')) out.push(p);
      }
    };
    try {
      walk(path.join(this.userDataDir, 'logs'));
    } catch {
      // no logs yet
    }
    return out;
  }

  /** Browser console lines about Plangate or extension activation (where an activation error shows up). */
  consoleHints(max = 8) {
    try {
      const hits = fs
        .readFileSync(this.consoleLog, 'utf8')
        .split('\n')
        .filter((l) => /plangate|activating extension/i.test(l))
        .slice(0, max);
      return hits.length ? `\n  browser console:\n    ${hits.join('\n    ')}` : '';
    } catch {
      return '';
    }
  }

  tailLog(lines = 15) {
    try {
      const text = fs.readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n    ');
      return `\n  code-server.log (last ${lines} lines):\n    ${text}`;
    } catch {
      return '';
    }
  }

  /** Closes the browser and kills code-server's whole process group. Safe to call twice. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    this.unregisterInterrupt();
    const t0 = Date.now();
    if (this.context) {
      await Promise.race([this.context.close().catch(() => {}), sleep(10_000)]);
    }
    const tBrowser = Date.now();
    if (this.browserPid) await killGroup(this.browserPid, 1000);
    if (this.serverPid) await killGroup(this.serverPid);
    this.consoleStream?.end();
    fs.rmSync(this.profileDir, { recursive: true, force: true });
    this.log(`closed in ${((Date.now() - t0) / 1000).toFixed(1)}s (browser ${((tBrowser - t0) / 1000).toFixed(1)}s)`);
  }
}

/**
 * Wires a session into a node:test file: `const vs = useVSCode(options)` starts it in `before`, closes it in
 * `after`, and after a failed test saves a `failed-<test name>` screenshot and prints where the session's files are.
 * Returns a proxy that forwards to the session once it is started.
 * @param {SessionOptions} options
 * @returns {VSCodeSession}
 */
export function useVSCode(options) {
  let session;
  before(
    async () => {
      session = await launchVSCode(options);
    },
    { timeout: 180_000 },
  );
  afterEach(async (t) => {
    if (!session || !t || /** @type {any} */ (t).passed !== false) return; // TestContext.passed: Node ≥ 21 (the specs run on 24)
    const shot = await session.screenshot(`failed-${t.name}`).catch(() => undefined);
    console.log(`[e2e ${session.name}] FAILED "${t.name}": screenshot ${shot ?? '(none)'}; session files ${session.dir}`);
  });
  after(
    async () => {
      await session?.close();
    },
    { timeout: 60_000 },
  );
  return /** @type {VSCodeSession} */ (
    new Proxy(
      {},
      {
        get(_, prop) {
          if (!session) throw new Error('the VS Code session has not started (see the failure of `before`)');
          const value = session[prop];
          return typeof value === 'function' ? value.bind(session) : value;
        },
      },
    )
  );
}
