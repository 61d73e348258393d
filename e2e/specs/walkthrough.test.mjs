// README: "the Welcome page walks you from there to a first approved plan on the bundled demo server". Followed in a
// real VS Code as a new user would: the "Get started with Plangate" walkthrough, its buttons pressed in order (Add the
// Demo Server, Call Tool…), the demo's plan_scaffold called, approved, and run to its follow-up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { panel } from '../lib/panel.mjs';
import { useVSCode } from '../lib/vscode.mjs';

const vs = useVSCode({ name: 'walkthrough', workspace: { files: { 'README.md': '# a new project\n' } } });

/** The walkthrough's step `title`, opened, and the button it offers. */
async function stepButton(title, button) {
  const page = vs.page;
  const step = page.locator('.getting-started-step', { hasText: title }).first();
  if (!/\bexpanded\b/.test((await step.getAttribute('class')) ?? '')) await step.click();
  const b = page.locator('.getting-started-step.expanded').getByRole('button', { name: button }).first();
  await b.waitFor({ state: 'visible', timeout: 15_000 });
  return b;
}

/** Opens Plangate's walkthrough from the palette's "Welcome: Open Walkthrough..." list. */
async function openWalkthrough() {
  const input = await vs.openPalette();
  await input.fill('>Welcome: Open Walkthrough');
  await vs.page
    .locator('.quick-input-list .monaco-list-row', { hasText: 'Welcome: Open Walkthrough' })
    .first()
    .waitFor({ timeout: 10_000 });
  await vs.page.keyboard.press('Enter');
  const pick = vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'from install to your first approved plan' }).first();
  await pick.waitFor({ state: 'visible', timeout: 15_000 });
  await pick.click();
}

test('the Welcome walkthrough leads to a first approved plan on the demo server', { timeout: 300_000 }, async () => {
  await openWalkthrough();
  await vs.page.locator('.getting-started-step', { hasText: 'Add the demo server' }).first().waitFor({ timeout: 20_000 });
  await vs.screenshot('walkthrough-open');

  await (await stepButton('Add the demo server', 'Add the Demo Server')).click();
  await vs.openView('Servers');
  const row = vs.page
    .locator('.monaco-list-row', { hasText: /demo/ })
    .filter({ hasText: /running/ })
    .first();
  await row.waitFor({ timeout: 90_000 });

  await openWalkthrough();
  await (await stepButton('Call a tool that answers with a plan', 'Call Tool')).click();
  const input = vs.page.locator('.quick-input-widget .quick-input-box input');
  await vs.page.locator('.quick-input-widget .quick-input-title', { hasText: 'Plangate: Call Tool' }).waitFor({ timeout: 15_000 });
  await input.fill('plan_scaffold');
  await vs.page.locator('.quick-input-list .monaco-list-row', { hasText: 'plan_scaffold' }).first().click();
  const web = await panel(vs);
  await web.locator('form.call-form').getByRole('button', { name: 'Call', exact: true }).click({ timeout: 20_000 });

  const plan = web.locator('main article.top-plan');
  await plan.getByRole('button', { name: 'Approve and run' }).click({ timeout: 30_000 });
  await plan.locator('p.follow-up').waitFor({ timeout: 90_000 });
  const states = (await plan.locator('ol.steps > li.step .step-state-text').allInnerTexts()).map((t) => t.trim());
  assert.ok(states.length > 0 && states.every((s) => s === 'ok'), `the plan's steps ended ${JSON.stringify(states)}`);
  await vs.screenshot('walkthrough-approved');
});
