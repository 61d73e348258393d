// How long an approval lasts, in a real VS Code (issue 28): a polling MCP App's calls wait behind ONE card that says
// how many wait, and an allow for this session lets every waiting call go (the fixture's call log); an allow for this
// session holds until the window reloads, one in this workspace holds across a reload but not in another folder, and
// Revoke in the Approvals view makes the next call ask again. The view's rows are compared with what the ledger (how
// often each approval was used) and the user's settings (Always allow's rule) hold, read from disk.
//
// The lengths are driven through Call Tool on a destructive tool (write_file_step, asked by Plangate's default): the
// agent entrance has no chat model to drive it in this workbench, and an app's calls come at the app's pace; Call Tool
// makes exactly one call when asked. The polling app is the app entrance, asked by Plangate's default for app calls —
// a rule of the user's that asks could not be lifted by an allow of any length (only Allow once is offered then).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { callToolFromPalette } from '../lib/servers.mjs';
import { ledgerRecords } from '../lib/ledger.mjs';
import { callTool, panel, settlePanel, waitForServerRunning } from '../lib/panel.mjs';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, createWorkspace, fixtureServer } from '../lib/workspace.mjs';

const log = callLogBeside('fixture-calls.jsonl');
/**
 * The fixture as both folders start it: the same command, arguments and working directory (outside either folder), so
 * it is the same server by identity (the serverKey an approval's rule holds) in both, and only the folder differs.
 */
const fixtureEntry = (dir) => ({ ...fixtureServer(dir, { callLog: log.path(dir) }), cwd: path.dirname(dir) });

const vs = useVSCode({
  name: 'approvals',
  workspace: {
    files: { 'README.md': '# approval lengths workspace\n' },
    servers: (dir) => ({ fixture: fixtureEntry(dir) }),
  },
});

afterEach(async (t) => {
  if (/** @type {any} */ (t)?.passed === false) await settlePanel(vs);
});

const { entries, lastSeq, toolsAfter } = log.of(() => vs.workspaceDir);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const card = (web) => web.locator('main .call-card');
/** Set once the polling app's test allowed app_tick for this session: that approval then stands in the next tests. */
let appAllowedForSession = false;
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Polls `read` until `ok(value)` holds or `timeout` ms pass; returns the last value for the caller to assert on. */
async function until(read, ok, timeout = 30_000, every = 250) {
  const deadline = Date.now() + timeout;
  let value = await read();
  while (!ok(value) && Date.now() < deadline) {
    await sleep(every);
    value = await read();
  }
  return value;
}

// ---- the polling app ------------------------------------------------------------------------------------------

/** The polling app's counters (read from its page even while the card hides its frame). */
async function appCounts(web) {
  const app = web.frameLocator('#apps iframe.app-frame').first();
  const read = async (id) =>
    Number(
      (await app
        .locator(`#${id}`)
        .textContent({ timeout: 5000 })
        .catch(() => '')) ?? NaN,
    );
  return { sent: await read('sent'), answered: await read('answered'), refused: await read('refused') };
}

/** The app_tick calls in the call log after `since`, by their poll number. */
const ticksAfter = (since) =>
  entries()
    .filter((e) => e.seq > since && e.tool === 'app_tick')
    .map((e) => e.args.n);

test('a polling app: its calls wait behind one card that counts them; Allow for this session lets every waiting call go, and the next ones run without a card', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  await callToolFromPalette(vs, 'app_poll'); // no arguments: called at once, its app shows and starts polling
  const web = await panel(vs);
  const shown = card(web);
  await shown.waitFor({ timeout: 30_000 });
  assert.match(await shown.locator('.card-who').innerText(), /An MCP App of server 'fixture' calls app_tick on server fixture/);

  // Let calls pile up: at least four wait (about six seconds of polling).
  const waitingOf = async () =>
    Number(
      /(\d+) calls/.exec(
        await shown
          .locator('.card-waiting')
          .innerText({ timeout: 2000 })
          .catch(() => ''),
      )?.[1] ?? 0,
    );
  const piled = await until(waitingOf, (n) => n >= 4, 60_000);
  assert.ok(piled >= 4, `the card counts the calls that wait; it said ${piled}`);

  // One card however many wait, and its count is the app's: every call the app sent (none answered) waits behind it.
  const cardTabs = web.locator('nav.switcher .tab-button', { hasText: /Allow app_tick\?/ });
  const agree = await until(
    async () => {
      const before = await appCounts(web);
      const waiting = await waitingOf();
      const after = await appCounts(web);
      return {
        before,
        waiting,
        after,
        cards: await cardTabs.count(),
        tab: await cardTabs
          .first()
          .innerText()
          .catch(() => ''),
      };
    },
    (s) => s.before.sent === s.after.sent && s.waiting === s.after.sent,
    20_000,
  );
  assert.equal(agree.cards, 1, 'exactly one card for the app and its tool');
  assert.equal(agree.waiting, agree.after.sent, `the card's count is how many calls the app sent: ${JSON.stringify(agree)}`);
  assert.equal(agree.after.answered, 0, 'no call was answered while the card waited');
  assert.match(agree.tab.replace(/\s+/g, ' '), new RegExp(`Allow app_tick\\? \\(${agree.waiting} waiting\\)`));
  assert.match(
    (await shown.locator('.card-waiting').innerText()).replace(/\s+/g, ' '),
    new RegExp(`^\\s*${agree.waiting} calls of an MCP App of server 'fixture' to app_tick are waiting: this card shows the first\\.`),
  );
  await shown.getByRole('button', { name: new RegExp(`^\\s*Deny all ${agree.waiting} waiting$`) }).waitFor({ timeout: 5000 });
  assert.deepEqual(toolsAfter(since), ['app_poll'], 'no app_tick reached the server while the card waited');
  await vs.screenshot('polling-app-one-card');

  await shown.getByRole('button', { name: 'Allow for this session' }).click();
  appAllowedForSession = true;
  const atAllow = agree.waiting;
  // No card remains, not even for a moment later: every waiting call went, and the next polls are allowed.
  await shown.waitFor({ state: 'detached', timeout: 20_000 });
  const ran = await until(
    () => ticksAfter(since),
    (t) => t.length >= atAllow + 2,
    30_000,
  );
  assert.ok(ran.length >= atAllow + 2, `the waiting calls and two more polls ran: ${JSON.stringify(ran)}`);
  assert.deepEqual(
    ran,
    ran.map((_, i) => i + 1),
    'every poll reached the server once, in order: none was lost or sent twice',
  );
  assert.equal(await cardTabs.count(), 0, 'no card came back for the polls after the allow');
  const counts = await until(
    () => appCounts(web),
    (c) => c.answered >= ran.length && c.refused === 0,
    15_000,
  );
  assert.equal(counts.refused, 0, 'no call was refused');
  assert.ok(counts.answered >= ran.length, `the app heard every answer: ${JSON.stringify(counts)}`);
  await vs.waitForStatus('Plangate: idle', 15_000);
  await vs.screenshot('polling-app-allowed');

  // The ledger: the waiting calls went by the card's answer, the later ones by the approval it made.
  const sent = await ledgerRecords(vs, 'callSent', (r) => r.filter((e) => e.tool === 'app_tick').length >= ran.length);
  const ticks = sent.filter((e) => e.tool === 'app_tick');
  assert.ok(ticks.length >= ran.length);
  for (const e of ticks) {
    assert.equal(e.entrance, 'app');
    assert.equal(e.policy.approvalRule ?? e.policy.ruleId, 'session-allow-fixture-app-tick', JSON.stringify(e.policy));
  }
  // Every call waiting when the user answered (at least those the card counted, and any that joined them before the
  // click landed) went by the answer; the later ones by the approval it made.
  const byAnswer = ticks.filter((e) => e.policy.answer === 'session').map((e) => e.args?.n);
  assert.ok(byAnswer.length >= atAllow, `the ${atAllow} waiting calls were let go by the answer: ${JSON.stringify(byAnswer)}`);
  assert.deepEqual(
    [...byAnswer].sort((a, b) => a - b),
    byAnswer.map((_, i) => i + 1),
    'the calls the answer let go are the first polls',
  );
  assert.ok(
    ticks.filter((e) => e.policy.answer !== 'session').every((e) => e.policy.decision === 'allow' && e.args?.n > byAnswer.length),
    'the later polls were allowed by the approval, without a card',
  );

  // Closing the app stops its polling (its frame goes). The panel offers Close on an item once there are two: Call
  // Tool's form for echo is the second.
  await callToolFromPalette(vs, 'echo');
  await web.locator('form.call-form').waitFor({ timeout: 15_000 });
  await web.getByRole('button', { name: 'Close app_poll result' }).click();
  await web.locator('#apps iframe.app-frame').first().waitFor({ state: 'detached', timeout: 15_000 });
  const stopped = ticksAfter(since).length;
  await vs.waitForStatus('Plangate: idle', 15_000);
  await web.getByRole('button', { name: 'Call', exact: true }).waitFor({ timeout: 5000 });
  assert.equal(await cardTabs.count(), 0);
  vs.log(`the polling app was closed after ${stopped} polls`);
});

// ---- the lengths ------------------------------------------------------------------------------------------------

const WRITE_RULE = {
  session: { id: 'session-allow-fixture-write-file-step', tool: 'write_file_step' },
  workspace: { id: 'workspace-allow-fixture-write-file-step', tool: 'write_file_step' },
};

/**
 * Calls write_file_step from Call Tool writing `file`; resolves with 'card' when the policy's card asks, or 'ran' when
 * the result shows that it ran without one.
 */
async function callWrite(file) {
  const web = await callTool(vs, 'write_file_step', {
    fill: async (form) => {
      await form.getByLabel(/^path/).fill(file);
      await form.getByLabel(/^content/).fill(`${file}\n`);
    },
  });
  const ran = web.locator('main .result', { hasText: `to ${file}` });
  const asks = writeCard(web);
  await asks.or(ran).first().waitFor({ timeout: 30_000 });
  return { web, outcome: (await asks.count()) > 0 ? 'card' : 'ran' };
}

/** The paths write_file_step wrote after `since` (the fixture's call log). */
const writesAfter = (since) =>
  entries()
    .filter((e) => e.seq > since && e.tool === 'write_file_step')
    .map((e) => e.args.path);

/** The card asking about write_file_step (not another caller's). */
const writeCard = (web) => web.locator('main .call-card', { has: web.locator('.card-tool', { hasText: /^write_file_step$/ }) });

/** Answers the open card with `button` and waits until the call ran (its result shows). */
async function answer(web, button, file) {
  await writeCard(web)
    .getByRole('button', { name: new RegExp(`^\\s*${escapeRegExp(button)}$`) })
    .click();
  await writeCard(web).waitFor({ state: 'detached', timeout: 20_000 });
  if (button !== 'Deny') await web.locator('main .result', { hasText: `to ${file}` }).waitFor({ timeout: 20_000 });
}

/** After a reload or a change of folder: the workbench, Plangate and the fixture are back. */
async function workbenchBack() {
  await vs.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await vs.statusBarItem().waitFor({ state: 'visible', timeout: 60_000 });
  await waitForServerRunning(vs, 'fixture', 60_000);
}

async function reload() {
  await vs.page.reload({ waitUntil: 'domcontentloaded' });
  await workbenchBack();
}

/** Opens `folder` in this window (same user data: another folder's workspace state). */
async function openFolder(folder) {
  const url = new URL(vs.page.url());
  url.searchParams.set('folder', folder);
  await vs.page.goto(url.href, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  await workbenchBack();
}

const GROUPS = {
  'For this session': 'session',
  'In this workspace': 'workspace',
  'Always (your settings)': 'user',
  'Workspace policy file': 'file',
};

/**
 * The Approvals view as the user sees it: `{ session, workspace, user, file }`, each a list of rows `{ label,
 * description }`, and `counts`, what each group's row says it holds. The other views are folded first, so the whole
 * list is drawn (a tree draws only the rows in sight).
 */
async function approvalsView() {
  for (const other of ['Servers', 'Plans', 'Staged']) {
    const header = vs.viewPane(other).locator('.pane-header').first();
    if ((await header.getAttribute('aria-expanded').catch(() => null)) === 'true') await header.click();
  }
  await vs.openView('Approvals');
  const rows = await vs.viewItems('Approvals');
  /** @type {{ session: any[], workspace: any[], user: any[], file: any[], counts: Record<string, number> }} */
  const view = { session: [], workspace: [], user: [], file: [], counts: {} };
  let group;
  for (const r of rows) {
    if (GROUPS[r.label]) {
      group = GROUPS[r.label];
      view.counts[group] = Number(/^(\d+) ·/.exec(r.description)?.[1]);
    } else if (group) view[group].push(r);
  }
  return view;
}

/** How often the ledger says rule `id` let a call through (as the view counts: allowed by it, or by the card's answer that made it). */
async function usesInLedger(id, atLeast = 0) {
  const uses = (records) =>
    records.filter(
      (e) => e.policy && (e.policy.decision === 'allow' ? e.policy.ruleId : (e.policy.approvalRule ?? e.policy.alwaysRule)) === id,
    ).length;
  return uses(await ledgerRecords(vs, 'callSent', (r) => uses(r) >= atLeast));
}

/** The allow rules in the user's settings file. */
const userAllows = () =>
  (JSON.parse(fs.readFileSync(vs.userSettingsFile, 'utf8'))['plangate.policy']?.rules ?? []).filter((r) => r.decision === 'allow');

/**
 * Compares the view with what is held: the standing approvals of each length (`want`: `{ id, tool }` as the test made
 * them), the allow rules in the user's settings file (read from disk), and each row's "used N×" with the ledger's count
 * of the calls its rule let through. Waits (the view refreshes on each recorded call, the ledger commits in groups)
 * before judging. Returns the view.
 */
async function assertViewHolds(want) {
  const held = {
    session: want.session,
    workspace: want.workspace,
    user: userAllows().map((r) => ({ id: r.id, tool: r.tool, server: r.server })),
  };
  const labels = (rows) => rows.map((r) => `${r.tool} on ${r.server ?? 'fixture'}`).sort();
  const shown = (v) => JSON.stringify(['session', 'workspace', 'user'].map((g) => v[g].map((r) => r.label).sort()));
  const expected = JSON.stringify(['session', 'workspace', 'user'].map((g) => labels(held[g])));
  // Empty lists also read as "expected" while the view is still drawing its groups (after a reload or another folder
  // opens): wait for each group's row and its count too.
  const groupsDrawn = (v) => ['session', 'workspace', 'user'].every((g) => v.counts[g] === held[g].length);
  const view = await until(approvalsView, (v) => shown(v) === expected && groupsDrawn(v), 20_000, 500);
  assert.equal(shown(view), expected, 'the view lists the approvals in force and the allow rules in the settings file');
  for (const g of ['session', 'workspace', 'user']) {
    assert.equal(view.counts[g], held[g].length, `the ${g} group's count`);
    for (const rule of held[g]) {
      const row = view[g].find((r) => r.label === `${rule.tool} on ${rule.server ?? 'fixture'}`);
      const said = Number(/^used (\d+)×/.exec(row.description)?.[1] ?? 0);
      const ledger = await usesInLedger(rule.id, said);
      assert.equal(said, ledger, `${g} row "${row.label}" (${row.description}) against the ledger's uses of '${rule.id}'`);
      if (ledger === 0) assert.match(row.description, /^not used yet/);
    }
  }
  return view;
}

test('each length: for this session until a reload; in this workspace across a reload, not in another folder; Revoke makes the next call ask — the view as the ledger and settings hold it', async () => {
  await waitForServerRunning(vs);
  const since = lastSeq();
  // The polling app's approval (the test before) is in force for this session too. Known from that test, not read
  // from the view: a view still drawing its rows would say it is not there.
  const appApproval = appAllowedForSession ? [{ id: 'session-allow-fixture-app-tick', tool: 'app_tick' }] : [];

  // For this session: asked once, then it runs without a card.
  let call = await callWrite('len-1.txt');
  assert.equal(call.outcome, 'card', 'the first call asks');
  await vs.screenshot('lengths-card');
  await answer(call.web, 'Allow for this session', 'len-1.txt');
  call = await callWrite('len-2.txt');
  assert.equal(call.outcome, 'ran', 'allowed for this session: no card');
  let view = await assertViewHolds({ session: [...appApproval, WRITE_RULE.session], workspace: [] });
  const sessionRow = view.session.find((r) => r.label === 'write_file_step on fixture');
  assert.equal(sessionRow?.label, 'write_file_step on fixture');
  assert.match(sessionRow?.description ?? '', /^used 2×, last .* UTC · by call$/);
  await vs.screenshot('lengths-view-session');

  // A reload ends the session: the same call asks again.
  await reload();
  await assertViewHolds({ session: [], workspace: [] });
  call = await callWrite('len-3.txt');
  assert.equal(call.outcome, 'card', 'after a reload the session approval is gone');
  // The rule Allow in this workspace writes: this server by identity, this tool, this caller.
  await writeCard(call.web).locator('details.card-always summary').click();
  const workspaceRuleHere = JSON.parse(await writeCard(call.web).locator('details.card-always pre').nth(1).innerText());
  assert.equal(workspaceRuleHere.id, WRITE_RULE.workspace.id);
  assert.match(workspaceRuleHere.serverKey, /^fixture [0-9a-f]{64}$/);
  await answer(call.web, 'Allow in this workspace', 'len-3.txt');
  call = await callWrite('len-4.txt');
  assert.equal(call.outcome, 'ran', 'allowed in this workspace: no card');

  // In this workspace: kept across a reload.
  await reload();
  call = await callWrite('len-5.txt');
  assert.equal(call.outcome, 'ran', 'the workspace approval holds after a reload');
  view = await assertViewHolds({ session: [], workspace: [WRITE_RULE.workspace] });
  assert.match(view.workspace[0].description, /^used 3×, .* · by call$/);
  await vs.screenshot('lengths-view-workspace');

  // Another folder, the same server (by identity): it asks there, and the view there holds no workspace approval.
  const other = createWorkspace(path.join(vs.dir, 'other-folder'), {
    files: { 'README.md': '# another folder\n' },
    servers: { fixture: fixtureEntry(vs.workspaceDir) },
  });
  await openFolder(other);
  try {
    await assertViewHolds({ session: [], workspace: [] });
    call = await callWrite('len-6.txt');
    assert.equal(call.outcome, 'card', 'another folder does not inherit the workspace approval');
    await writeCard(call.web).locator('details.card-always summary').click();
    const workspaceRuleThere = JSON.parse(await writeCard(call.web).locator('details.card-always pre').nth(1).innerText());
    assert.deepEqual(
      { ...workspaceRuleThere, reason: undefined },
      { ...workspaceRuleHere, reason: undefined },
      'the same rule would be written here: only the folder differs',
    );
    await vs.screenshot('lengths-other-folder-asks');
    await answer(call.web, 'Deny', 'len-6.txt');
  } finally {
    await openFolder(vs.workspaceDir);
  }
  call = await callWrite('len-7.txt');
  assert.equal(call.outcome, 'ran', 'back in the first folder, its workspace approval still holds');

  // Revoke in the view: the next call asks.
  await vs.openView('Approvals');
  await vs.clickViewItemAction('Approvals', 'write_file_step on fixture', 'Revoke');
  await vs.page
    .locator('.notifications-toasts .notification-toast', { hasText: `'${WRITE_RULE.workspace.id}' revoked` })
    .first()
    .waitFor({ timeout: 15_000 });
  await assertViewHolds({ session: [], workspace: [] });
  call = await callWrite('len-8.txt');
  assert.equal(call.outcome, 'card', 'revoked: the next call asks');

  // Always allow: a rule in the user's settings, listed; Revoke takes it out of the file, and the next call asks.
  await answer(call.web, 'Always allow', 'len-8.txt');
  assert.deepEqual(
    (await until(userAllows, (rules) => rules.length > 0, 15_000)).map((r) => r.id),
    ['allow-fixture-write-file-step'],
  );
  call = await callWrite('len-9.txt');
  assert.equal(call.outcome, 'ran', 'always allowed: no card');
  view = await assertViewHolds({ session: [], workspace: [] });
  assert.deepEqual(
    view.user.map((r) => r.label),
    ['write_file_step on fixture'],
  );
  await vs.screenshot('lengths-view-always');
  await vs.clickViewItemAction('Approvals', 'write_file_step on fixture', 'Revoke');
  assert.deepEqual(await until(userAllows, (rules) => rules.length === 0, 15_000), [], 'Revoke took the rule out of the settings file');
  await assertViewHolds({ session: [], workspace: [] });
  call = await callWrite('len-10.txt');
  assert.equal(call.outcome, 'card', 'the revoked rule no longer allows');
  await answer(call.web, 'Deny', 'len-10.txt');

  assert.deepEqual(
    writesAfter(since),
    ['len-1.txt', 'len-2.txt', 'len-3.txt', 'len-4.txt', 'len-5.txt', 'len-7.txt', 'len-8.txt', 'len-9.txt'],
    'what ran is what was allowed; the denied calls never reached the server',
  );
});
