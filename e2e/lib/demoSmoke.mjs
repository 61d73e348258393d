// `npm run demo -- --smoke` (scripts/demo.sh): opens the running demo workbench in headless Chromium, waits for
// Plangate's status bar item (= the extension activated) and for the workspace's "demo" server in the Servers
// view, and saves screenshots.
//   node e2e/lib/demoSmoke.mjs URL DIR
import { callTool } from './panel.mjs';
import { attachVSCode } from './vscode.mjs';

const [url, dir] = process.argv.slice(2);
if (!url || !dir) {
  console.error('usage: node e2e/lib/demoSmoke.mjs URL DIR');
  process.exit(2);
}
const vs = await attachVSCode(url, { dir, name: 'demo-smoke' });
try {
  const text = await vs.statusBarText();
  if (!/^Plangate: /.test(text)) throw new Error(`the Plangate status bar item reads "${text}"`);
  await vs.screenshot('demo-workbench');
  await vs.openView('Servers');
  const deadline = Date.now() + 60_000;
  let row = '';
  while (Date.now() < deadline) {
    const demo = (await vs.viewItems('Servers')).find((item) => item.label === 'demo');
    row = demo ? `${demo.label} ${demo.description}` : '(no "demo" row)';
    if (/running/.test(row)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  if (!/running/.test(row)) throw new Error(`the demo MCP server did not start: the Servers view shows ${row} (see Plangate: Show Log)`);
  const shot = await vs.screenshot('demo-servers');
  console.log(`[demo] status bar "${text}"; Servers view: "${row}"; screenshot ${shot}`);
  // The README's walk-through itself, when the end-to-end suite asks for it (it writes the plan's files into the demo
  // workspace, so a user's own `--smoke` leaves it out): Call Tool… → demo → plan_scaffold → Call → Approve and run.
  if (process.env.PLANGATE_DEMO_SMOKE_WALKTHROUGH === '1') {
    const web = await callTool(vs, 'plan_scaffold');
    const plan = web.locator('main article.top-plan');
    await plan.getByRole('button', { name: 'Approve and run' }).click({ timeout: 30_000 });
    await plan.locator('p.follow-up').waitFor({ timeout: 60_000 });
    const states = (await plan.locator('ol.steps > li.step .step-state-text').allInnerTexts()).map((t) => t.trim());
    if (states.length === 0 || states.some((st) => st !== 'ok')) throw new Error(`the demo plan's steps ended ${JSON.stringify(states)}`);
    const done = await vs.screenshot('demo-approved');
    console.log(`[demo] walk-through: plan_scaffold approved and run, ${states.length} steps ok; screenshot ${done}`);
  }
} finally {
  await vs.close();
}
