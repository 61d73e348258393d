// Helpers for driving Plangate's plan panel in a VSCodeSession (see vscode.mjs): calling a tool through
// "Plangate: Call Tool…", finding the panel's webview, sampling the status bar and reading the webview DOM.
import { createRequire } from 'node:module';
import { EXTENSION_ID } from './env.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The panel's title (the webview panel's title, which VS Code also puts on its inner frame). */
export const PANEL_TITLE = 'Plangate';

/** The plan panel's content (a FrameLocator); opens nothing, waits up to `timeout` for the webview. */
export function panel(vs, timeout = 30_000) {
  return vs.webview({ title: PANEL_TITLE, timeout });
}

/**
 * Waits until the Servers view lists `server` as running (so Call Tool has its tools), opening the view first.
 * Returns the server row's text, e.g. "fixture running · 46 tools".
 */
export async function waitForServerRunning(vs, server = 'fixture', timeout = 45_000) {
  const pane = await vs.openView('Servers');
  const row = pane.locator('.monaco-list-row').filter({ hasText: server }).first();
  const deadline = Date.now() + timeout;
  let last = '';
  while (Date.now() < deadline) {
    last = (await row.innerText({ timeout: 1000 }).catch(() => '')).replace(/\s+/g, ' ').trim();
    if (/running/.test(last)) return last;
    await sleep(250);
  }
  throw new Error(`server "${server}" was not running within ${timeout} ms; its row in the Servers view read "${last}"`);
}

/**
 * Opens the command palette and types `text` into it. Focus is first taken out of any webview. Now and then the
 * palette closes again right after F1 opened it (seen after clicks in the panel's webview); that attempt fails
 * fast with what had the focus, and the callers retry.
 */
async function paletteWith(vs, text) {
  const page = vs.page;
  await page.evaluate(() => (document.activeElement instanceof HTMLIFrameElement ? document.activeElement.blur() : undefined));
  const input = await vs.openPalette();
  await sleep(250);
  if (!(await input.isVisible())) {
    const focus = await page.evaluate(() => `${document.activeElement?.tagName}.${document.activeElement?.className}`);
    throw new Error(`the command palette closed again right after it opened (focus on ${focus})`);
  }
  await input.fill(text, { timeout: 3000 });
  return input;
}

/**
 * Runs "Plangate: Call Tool…", picks `tool` in its quick pick and, when the panel shows the tool's form, lets
 * `fill(form)` fill it (a FrameLocator of the panel) and presses Call. Returns the panel FrameLocator.
 * The harness's runCommand() waits for the palette to close, which a command that opens a quick pick never
 * does, hence the palette is driven here by hand.
 */
/**
 * @param {import('./vscode.mjs').VSCodeSession} vs
 * @param {string} tool
 * @param {{ fill?: (form: import('playwright-core').FrameLocator) => Promise<unknown>, nth?: number }} [options]
 *   `nth`: which of the servers offering `tool` (0: the first in configuration order, as the pick lists them)
 */
export async function callTool(vs, tool, { fill, nth = 0 } = {}) {
  const page = vs.page;
  const input = page.locator('.quick-input-widget .quick-input-box input');
  const title = page.locator('.quick-input-widget .quick-input-title');
  const toolRow = page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) }) })
    .nth(nth);
  let lastErr;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      await paletteWith(vs, '>Plangate: Call Tool');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Plangate: Call Tool' }).first().waitFor({ timeout: 10_000 });
      await page.keyboard.press('Enter');
      await title.filter({ hasText: 'Plangate: Call Tool' }).waitFor({ state: 'visible', timeout: 10_000 });
      await input.fill(tool, { timeout: 2000 });
      await toolRow.waitFor({ state: 'visible', timeout: 10_000 });
      await toolRow.click();
      await input.waitFor({ state: 'hidden', timeout: 5000 });
      break;
    } catch (err) {
      lastErr = err;
      const focus = await page.evaluate(() => `${document.activeElement?.tagName}.${document.activeElement?.className}`).catch(() => '?');
      vs.log(`callTool ${tool}: attempt ${attempt} failed (${err.message.split('\n')[0]}; focus on ${focus})`);
      await page.keyboard.press('Escape').catch(() => {});
      if (attempt === 3) throw new Error(`could not pick ${tool} in "Plangate: Call Tool…": ${lastErr.message}`);
    }
  }
  const web = await panel(vs);
  const form = web.locator('form.call-form');
  await form.waitFor({ state: 'visible', timeout: 15_000 });
  if (fill) await fill(form);
  await form.getByRole('button', { name: 'Call', exact: true }).click();
  return web;
}

/**
 * Starts recording every text the Plangate status bar item shows (a MutationObserver in the workbench page plus
 * a 50 ms poll, so short-lived states are caught). `texts()` returns the distinct texts in order of appearance
 * (consecutive repeats collapsed); `stop()` ends the recording and returns them.
 */
export async function recordStatus(vs) {
  const id = `${EXTENSION_ID}.plangate.status`; // as VSCodeSession.statusBarItem() finds it
  const key = `__plangateStatus_${Date.now()}`;
  await vs.page.evaluate(
    ({ id, key }) => {
      const seen = [];
      const read = () => {
        const el = document.getElementById(id);
        const text = el ? el.innerText.replace(/\s+/g, ' ').trim() : '';
        if (text && seen[seen.length - 1] !== text) seen.push(text);
      };
      const observer = new MutationObserver(read);
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      const timer = setInterval(read, 50);
      read();
      /** @type {any} */ (window)[key] = {
        seen,
        stop: () => {
          observer.disconnect();
          clearInterval(timer);
          read();
        },
      };
    },
    { id, key },
  );
  const texts = () => vs.page.evaluate((key) => [.../** @type {any} */ (window)[key].seen], key);
  return {
    texts,
    async stop() {
      await vs.page.evaluate((key) => window[key].stop(), key);
      return texts();
    },
  };
}

/**
 * The plan's step states once they read `wanted` (e.g. ['ok', 'skipped', 'ok']), waiting up to `timeout`: the
 * status bar is told before the panel draws, so a spec that waited for the status reads the panel through this.
 * When they never match, returns the states last seen, for the caller's assertion to show.
 */
export async function stepStates(plan, wanted, timeout = 10_000) {
  const read = async () => (await plan.locator('ol.steps > li.step .step-state-text').allInnerTexts()).map((t) => t.trim());
  const until = Date.now() + timeout;
  let seen = await read();
  while (JSON.stringify(seen) !== JSON.stringify(wanted) && Date.now() < until) {
    await sleep(100);
    seen = await read();
  }
  return seen;
}

/** Whether `wanted` (strings matched whole, or RegExps) occur in `seen` in this order, not necessarily adjacent. */
export function inOrder(seen, wanted) {
  let i = 0;
  for (const text of seen) {
    const w = wanted[i];
    if (w !== undefined && (w instanceof RegExp ? w.test(text) : w === text)) i++;
  }
  return i === wanted.length;
}

/**
 * Closes every item in the panel's switcher for which `keep(text)` is false, `text` being the item's tab text,
 * e.g. "Run three steps; the second one fails. · blocked". Plans are not affected, only their tabs in the panel.
 */
export async function closeOtherItems(web, keep) {
  const tabs = web.getByRole('navigation', { name: 'Open items' }).locator('span.tab');
  for (let guard = 0; guard < 100; guard++) {
    const texts = (await tabs.locator('button.tab-button').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    const index = texts.findIndex((t) => !keep(t));
    if (index < 0) return;
    await tabs.nth(index).locator('button.tab-close').click();
    await web.locator('body').evaluate(
      (body, n) =>
        new Promise((resolve) => {
          const check = () => (body.querySelectorAll('nav span.tab').length !== n ? resolve() : setTimeout(check, 50));
          check();
        }),
      texts.length,
    );
  }
  throw new Error('closeOtherItems: the switcher still had items to close after 100 closes');
}

/**
 * Switches a running session to the 'light' or 'dark' theme (Default Light Modern / Default Dark Modern) the way a
 * user can, with "Preferences: Toggle between Light/Dark Themes", and waits until the workbench and the panel's
 * webview (`web`, or the panel found anew) show it. (Rewriting the user settings file is not noticed by
 * code-server's workbench, and the Color Theme picker waits on the marketplace, which is offline here.)
 */
export async function setTheme(vs, theme, web) {
  if (theme !== 'light' && theme !== 'dark') throw new Error(`setTheme: 'light' or 'dark', not ${theme}`);
  const kind = theme === 'light' ? 'vs' : 'vs-dark';
  const page = vs.page;
  const isKind = () => page.evaluate((kind) => document.querySelector('.monaco-workbench')?.classList.contains(kind), kind);
  if (!(await isKind())) {
    await page.evaluate(() => (document.activeElement instanceof HTMLIFrameElement ? document.activeElement.blur() : undefined));
    await vs.runCommand('Preferences: Toggle between Light/Dark Themes');
    await page.waitForFunction((kind) => document.querySelector('.monaco-workbench')?.classList.contains(kind), kind, { timeout: 15_000 });
  }
  const webview = web ?? (await panel(vs));
  await webview.locator(`body.${kind === 'vs' ? 'vscode-light' : 'vscode-dark'}`).waitFor({ timeout: 20_000 });
}

let axeSource;
/**
 * Runs axe-core (the version @axe-core/playwright depends on) inside the panel's webview document and returns
 * its violations (each with id, impact, help and nodes). Only the webview is scanned, not the workbench.
 */
export async function a11yScan(web) {
  if (!axeSource) {
    const require = createRequire(import.meta.url);
    const fromPlaywright = createRequire(require.resolve('@axe-core/playwright'));
    axeSource = fromPlaywright('axe-core').source;
  }
  const body = await web.locator('body').elementHandle();
  const frame = await body.ownerFrame();
  await body.dispose();
  if (!(await frame.evaluate(() => typeof (/** @type {any} */ (window).axe) === 'object'))) await frame.evaluate(axeSource);
  const result = await frame.evaluate(() => /** @type {any} */ (window).axe.run(document, { resultTypes: ['violations'] }));
  return result.violations;
}

/**
 * Leaves no plan waiting after a failed test: for every item in the panel, presses whichever of Reject, Stop,
 * Cancel or No its plan offers. Best effort (errors are logged, not thrown).
 */
export async function settlePanel(vs) {
  try {
    const web = await panel(vs, 10_000);
    const tabs = web.getByRole('navigation', { name: 'Open items' }).locator('button.tab-button');
    const count = await tabs.count();
    for (let i = 0; i < Math.max(1, count); i++) {
      if (count) await tabs.nth(i).click();
      await sleep(300);
      const actions = web.locator('main article.top-plan').getByRole('group', { name: 'Plan actions' });
      for (const name of ['Reject', 'Stop', 'Cancel', 'No']) {
        const button = actions.getByRole('button', { name, exact: true });
        if (await button.count()) {
          await button.click();
          break;
        }
      }
    }
    await vs.waitForStatus('Plangate: idle', 10_000);
  } catch (err) {
    vs.log(`settlePanel: ${err.message.split('\n')[0]}`);
  }
}
