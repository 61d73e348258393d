// Attention (issue 28) in a real VS Code: a plan waits for approval and the window loses focus — the status bar says
// what waits and for how long, one notification says so and its Show opens the plan; focus back, the status bar has
// its usual words. Headless Chromium keeps the page focused, so the window's loss of focus is made as the workbench
// reads it: document.hasFocus() answers false and the window gets a `blur` event (undone for `focus`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useVSCode } from '../lib/vscode.mjs';
import { callLogBeside, fixtureServer } from '../lib/workspace.mjs';
import { callTool } from '../lib/panel.mjs';

const log = callLogBeside('fixture-calls.jsonl');

const vs = useVSCode({
  name: 'attention',
  workspace: {
    files: { 'README.md': '# attention workspace\n' },
    servers: (dir) => ({ fixture: fixtureServer(dir, { callLog: log.path(dir) }) }),
  },
});

/**
 * Makes the workbench see its window lose (`false`) or regain (`true`) the focus: the workbench reads
 * `document.hasFocus()` when the window's focus or blur, or the document's visibility, changes.
 */
async function windowFocus(focused) {
  await vs.page.evaluate((focused) => {
    if (focused) Reflect.deleteProperty(document, 'hasFocus');
    else Object.defineProperty(document, 'hasFocus', { value: () => false, configurable: true });
    if (!focused) window.dispatchEvent(new FocusEvent('focus'));
    window.dispatchEvent(new FocusEvent(focused ? 'focus' : 'blur'));
    document.dispatchEvent(new Event('visibilitychange'));
  }, focused);
}

test('a plan waits while the window is not focused: the status bar says so with the wait, one notification whose Show opens it', async () => {
  const web = await callTool(vs, 'plan_scaffold');
  const plan = web.locator('main article.top-plan');
  await plan.getByRole('button', { name: 'Approve and run' }).waitFor({ timeout: 20_000 });
  await vs.waitForStatus('Plangate: awaiting approval (1)');
  const toasts = vs.page.locator('.notifications-toasts .notification-toast', { hasText: /Plangate: Plan ".*" waits for your approval/ });
  assert.equal(await toasts.count(), 0, 'no notification while the window is focused');

  await windowFocus(false);
  await vs.waitForStatus('Plangate: 1 plan waiting · <1 min', 15_000);
  const toast = toasts.first();
  await toast.waitFor({ timeout: 15_000 });
  assert.match(await toast.innerText(), /Plangate: Plan "Scaffold[^"]*" waits for your approval \(waiting <1 min\)\./);
  await vs.screenshot('unfocused-plan-waits');

  await windowFocus(true);
  await vs.waitForStatus('Plangate: awaiting approval (1)', 15_000);
  // Leaving again, the same plan is not notified a second time.
  await windowFocus(false);
  await vs.waitForStatus('Plangate: 1 plan waiting · <1 min', 15_000);
  assert.equal(await toasts.count(), 1, 'one notification per wait');
  await windowFocus(true);

  await toast.getByRole('button', { name: 'Show' }).click();
  await plan.getByRole('button', { name: 'Reject' }).click();
  await vs.waitForStatus('Plangate: idle', 20_000);
});
