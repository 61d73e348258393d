// Helpers for the Servers view specs: rows of the Servers tree, their hover, Plangate: Call Tool… through the
// palette and its quick pick, the result card in the panel, and the fixture server processes behind the rows.
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURE_SERVER } from './env.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const exactly = (text) => new RegExp(`^\\s*${escapeRegExp(text)}\\s*$`);
const squash = (s) => (s ?? '').replace(/\s+/g, ' ').trim();

/** The Servers tree's row whose label is exactly `label` (a server or a tool), within the Servers pane. */
export function treeRow(vs, label) {
  return vs
    .viewPane('Servers')
    .locator('.pane-body .monaco-list-row')
    .filter({ has: vs.page.locator('.label-name', { hasText: exactly(label) }) })
    .first();
}

/** A tree row's description (the grey text after its label), e.g. "running · 46 tools". */
export async function rowDescription(row) {
  return squash(
    await row
      .locator('.label-description')
      .first()
      .innerText({ timeout: 5000 })
      .catch(() => ''),
  );
}

/**
 * Waits until the row labelled `label` exists and its description matches `want` (RegExp); returns the description.
 * The tree re-renders as servers change state, so the row is looked up afresh each time.
 */
export async function waitForRow(vs, label, want, timeout = 45_000) {
  const deadline = Date.now() + timeout;
  let last = '(no row)';
  while (Date.now() < deadline) {
    const row = treeRow(vs, label);
    if (await row.isVisible().catch(() => false)) {
      last = await rowDescription(row);
      if (want.test(last)) return last;
    }
    await sleep(200);
  }
  throw new Error(
    `the Servers view's row "${label}" never read ${want} within ${timeout} ms; last description: "${last}"; rows: ${JSON.stringify(await visibleRows(vs))}`,
  );
}

/** The visible rows of the Servers tree as "label — description" strings, top to bottom. */
export async function visibleRows(vs) {
  const rows = vs.viewPane('Servers').locator('.pane-body .monaco-list-row');
  const out = [];
  for (const row of await rows.all()) {
    const name = squash(
      await row
        .locator('.label-name')
        .first()
        .innerText()
        .catch(() => ''),
    );
    const desc = await rowDescription(row);
    out.push(desc ? `${name} — ${desc}` : name);
  }
  return out;
}

/** Expands a collapsed server row by clicking its twistie; resolves once the row says aria-expanded="true". */
export async function expandRow(vs, label) {
  const row = treeRow(vs, label);
  await row.waitFor({ state: 'visible', timeout: 15_000 });
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.locator('.monaco-tl-twistie').click();
  // Through the locator, not an element handle: the tree re-renders its rows when a server's tools change, and a
  // handle to the replaced row would never say expanded (seen once, right after the servers started).
  const deadline = Date.now() + 10_000;
  while ((await row.getAttribute('aria-expanded').catch(() => null)) !== 'true') {
    if (Date.now() > deadline) throw new Error(`the Servers view's row "${label}" did not expand within 10 s`);
    await sleep(100);
  }
}

/**
 * Scrolls the Servers tree (a virtual list: rows off screen are not in the DOM) from the top down, less than a
 * row at a time, until the row labelled `label` sits wholly inside the visible part of the list and below the sticky row of
 * its server; returns its locator. The wheel events are dispatched on the list itself, so neither the mouse
 * position nor a hover that pops up over the tree can swallow them.
 */
export async function revealRow(vs, label, { maxScrolls = 150 } = {}) {
  const scrollable = vs.viewPane('Servers').locator('.pane-body .monaco-list .monaco-scrollable-element').first();
  const wheel = (deltaY) =>
    scrollable.evaluate(
      (el, dy) => el.dispatchEvent(new WheelEvent('wheel', { deltaY: dy, deltaMode: 0, bubbles: true, cancelable: true })),
      deltaY,
    );
  const row = treeRow(vs, label);
  const inView = async () => {
    if ((await row.count()) === 0) return false;
    const [r, l] = await Promise.all([row.boundingBox({ timeout: 500 }).catch(() => null), scrollable.boundingBox()]);
    // r.height: room for the server's sticky row at the top
    return !!r && !!l && r.y >= l.y + r.height && r.y + r.height <= l.y + l.height + 1;
  };
  // Monaco reads a synthetic wheel event's legacy wheelDeltaY (= -deltaY): a positive deltaY scrolls UP, and
  // -44 scrolls down about 18 px, less than a row (22 px)
  await wheel(100_000);
  for (let i = 0; i < maxScrolls; i++) {
    await sleep(60);
    if (await inView()) return row;
    await wheel(-44);
  }
  throw new Error(`no row "${label}" in view in the Servers tree after scrolling; visible rows: ${JSON.stringify(await visibleRows(vs))}`);
}

/** Collapses every server in the Servers tree with the view's own "Collapse All" action. */
export async function collapseAll(vs) {
  const pane = vs.viewPane('Servers');
  if ((await pane.locator('.pane-body .monaco-list-row[aria-expanded="true"]').count()) === 0) return;
  await pane.locator('.pane-header').hover();
  await pane.locator('.pane-header .actions .action-label[aria-label^="Collapse All"]').click();
  await vs.page.waitForFunction((el) => !el.querySelector('.monaco-list-row[aria-expanded="true"]'), await pane.elementHandle(), {
    timeout: 5000,
  });
}

/** A hover's text (MarkdownString.appendText turns spaces into &nbsp;) with its no-break spaces as plain spaces. @param {string} text */
const plain = (text) => text.replace(/\u00a0/g, ' ').trim();

/**
 * Hovers a row and returns the text of the hover VS Code shows for it (the tree item's tooltip), non-breaking spaces
 * as plain spaces. Moves the mouse away first so that a hover of another row closes.
 */
export async function hoverText(vs, row, { timeout = 15_000 } = {}) {
  const hover = vs.page.locator('.monaco-hover, .workbench-hover').filter({ visible: true });
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    await vs.page.mouse.move(700, 450);
    // The hover of the row hovered before fades out slowly: read it here and the words would be that row's.
    await hover
      .first()
      .waitFor({ state: 'hidden', timeout: 3000 })
      .catch(() => undefined);
    await sleep(150);
    // A hover still up now is another's (the activity bar's "Plangate", after a view was opened from it, seen in a
    // clean-clone run): only a hover that comes after the row is hovered is the row's.
    const stale = new Set((await hover.allInnerTexts().catch(() => [])).map(plain));
    await row.locator('.label-name').first().hover();
    const until = Date.now() + 4000;
    while (Date.now() < until) {
      const fresh = (await hover.allInnerTexts().catch(() => [])).map(plain).find((t) => t && !stale.has(t));
      if (fresh) return fresh;
      await sleep(100);
    }
    // no hover of the row yet: move away and back
  }
  throw new Error(`no hover appeared over the row within ${timeout} ms`);
}

/**
 * Runs Plangate: Call Tool… from the palette and picks `tool` in its quick pick by typing the name and pressing
 * Enter (the first match: the first server in configuration order that offers it). Returns once the quick pick closed.
 * If the tool pick closes by itself before the tool is picked (seen in 5 of ~30 runs, right after a click in the
 * panel's webview: the webview takes focus back a moment after the palette closed, and the pick closes on blur),
 * this is logged and the whole pick is tried once more.
 */
export async function callToolFromPalette(vs, tool, { attempts = 2 } = {}) {
  for (let i = 1; ; i++) {
    try {
      return await pickTool(vs, tool);
    } catch (err) {
      if (i >= attempts) throw err;
      vs.log(`Call Tool… pick of "${tool}" failed (attempt ${i}): ${err.message.split('\n')[0]}; trying again`);
      await vs.page.keyboard.press('Escape').catch(() => {});
    }
  }
}

async function pickTool(vs, tool) {
  const input = await vs.openPalette();
  await input.fill('>Plangate: Call Tool');
  const command = vs.page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: vs.page.locator('.label-name', { hasText: /Plangate: Call Tool/ }) })
    .first();
  await command.waitFor({ state: 'visible', timeout: 10_000 });
  await vs.page.keyboard.press('Enter');
  // The tool pick replaces the palette in the same widget: wait for its title before typing.
  await vs.page
    .locator('.quick-input-widget .quick-input-title', { hasText: 'Plangate: Call Tool' })
    .waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(tool, { timeout: 5000 });
  const toolRow = vs.page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: vs.page.locator('.label-name', { hasText: exactly(tool) }) })
    .first();
  await toolRow.waitFor({ state: 'visible', timeout: 10_000 });
  // the first row is the active one; make sure the filter settled on the exact tool before Enter
  await vs.page.waitForFunction(
    (want) => {
      const active = document.querySelector('.quick-input-list .monaco-list-row.focused .label-name');
      return active?.textContent?.trim() === want;
    },
    tool,
    { timeout: 10_000 },
  );
  await vs.page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10_000 });
}

/** The Plangate panel's webview content (the panel's title is "Plangate"). */
export function panel(vs, timeout = 30_000) {
  return vs.webview({ title: 'Plangate', timeout });
}

/**
 * Waits for the panel to show the result card of `tool` and returns what it shows: the badge, the origin
 * ("server · tool") and the text blocks of its Content section.
 */
export async function readResultCard(vs, tool, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    const web = await panel(vs, Math.max(1000, deadline - Date.now()));
    const card = web.locator('main .result');
    if (await card.isVisible().catch(() => false)) {
      last = {
        heading: squash(
          await card
            .locator('h1')
            .first()
            .innerText()
            .catch(() => ''),
        ),
        badge: squash(
          await card
            .locator('.badge')
            .first()
            .innerText()
            .catch(() => ''),
        ),
        origin: squash(
          await card
            .locator('.origin')
            .first()
            .innerText()
            .catch(() => ''),
        ),
        texts: (
          await card
            .locator('pre.text-block')
            .allInnerTexts()
            .catch(() => [])
        ).map((t) => t.trim()),
        tabs: (
          await web
            .locator('nav.switcher .tab-button')
            .allInnerTexts()
            .catch(() => [])
        ).map(squash),
      };
      if (last.origin.endsWith(`· ${tool}`)) return last;
    }
    await sleep(250);
  }
  throw new Error(`the panel never showed a result card for ${tool} within ${timeout} ms; last card: ${JSON.stringify(last)}`);
}

/**
 * The live fixture server processes whose command line contains `marker` (e.g. a server's own call log path), as
 * `pid:starttime` strings (the start time makes a recycled pid count as a different process).
 */
export function fixtureProcesses(marker) {
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (!argv.includes(FIXTURE_SERVER) || !argv.some((a) => a.includes(marker))) continue;
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue; // a zombie is not a running server
      const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
      out.push(`${d}:${startTime}`);
    } catch {
      // raced with an exiting process
    }
  }
  return out.sort();
}

/** Polls `fixtureProcesses(marker)` until `accept(list)` holds; returns the list (throws with the last list on timeout). */
export async function waitForProcesses(marker, accept, what, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let list = fixtureProcesses(marker);
  while (!accept(list) && Date.now() < deadline) {
    await sleep(200);
    list = fixtureProcesses(marker);
  }
  if (!accept(list)) throw new Error(`${what} within ${timeout} ms; fixture processes matching ${marker}: ${JSON.stringify(list)}`);
  return list;
}

/**
 * Waits until no notification toast containing `text` is visible (e.g. the "Plangate: calling echo on alpha"
 * progress once the call has returned); returns how long that took in ms.
 */
export async function waitForToastGone(vs, text, timeout = 10_000) {
  const toast = vs.page.locator('.notifications-toasts .notification-toast', { hasText: text });
  const t0 = Date.now();
  await toast.first().waitFor({ state: 'hidden', timeout });
  return Date.now() - t0;
}

/**
 * Edits .vscode/mcp.json the way a user does: Plangate: Open mcp.json, click the line that contains `line`, press
 * End, type `append` key by key, save with Ctrl+S. (Typed key by key, auto-closed quotes and brackets are typed
 * over, so the text comes out as written.) Resolves once the file on disk parses to `expected`; returns its path.
 */
export async function editMcpJson(vs, { line, append, expected }) {
  const file = path.join(vs.workspaceDir, '.vscode', 'mcp.json');
  await vs.runCommand('Plangate: Open mcp.json');
  // not vs.editorTab('mcp.json'): VS Code 1.139 renders a file tab's name as "mcp" plus a suffix ".json"
  const tab = vs.page.locator('.part.editor .tabs-container .tab[data-resource-name="mcp.json"]').first();
  await tab.waitFor({ state: 'visible', timeout: 15_000 });
  const target = vs.page.locator('.part.editor .editor-instance .monaco-editor .view-line', { hasText: line }).first();
  await target.waitFor({ state: 'visible', timeout: 10_000 });
  await target.click();
  await vs.page.keyboard.press('End');
  await vs.page.keyboard.type(append);
  await vs.page.keyboard.press('Control+S');
  const want = JSON.stringify(expected);
  const deadline = Date.now() + 10_000;
  let onDisk = '';
  while (Date.now() < deadline) {
    onDisk = fs.readFileSync(file, 'utf8');
    try {
      if (JSON.stringify(JSON.parse(onDisk)) === want) return file;
    } catch {
      // not saved yet, or mistyped
    }
    await sleep(100);
  }
  throw new Error(`after typing into mcp.json and saving, the file reads:\n${onDisk}`);
}
