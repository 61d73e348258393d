/**
 * The plan panel's webview rendering a plan: a 1,000-step plan against a 3-step one, side by side in this run, in
 * headless Chromium (the e2e suite's browser and playwright-core; not measured when they are not installed). Two
 * figures: the first render (the plan's head, its actions, its first rows) and every row in the DOM. The page
 * is the panel's own bundle (dist/webview.js) and stylesheet, sent the snapshot the extension would send (the real
 * PlanPresenter over the fixture's `plan_big` answer). Timed from the message to the end of the frame it is drawn in
 * (style, layout and paint of what it drew included). The whole panel — the extension's side, the window's
 * message passing, code-server — is measured in e2e/specs/longPlan.test.mjs; this is the part that grows with the plan.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { classifyResult } from '../src/core/plan/classify';
import { PlanPresenter } from '../src/core/present/planItem';
import type { ToolResult } from '../src/core/base/toolResult';
import { EMPTY_WORKFLOW, getPlan, reduce, type WorkflowState } from '../src/core/workflow/workflow';
import type { PanelState } from '../src/shared/protocol/panel';
import { figure, ms, notMeasured, type Figure } from './figure';
import { rawFixtureClient } from './servers';
import { median } from './stats';

const ROOT = join(__dirname, '..');
const BIG = 1000;
const SMALL = 3;
const RUNS = 9;

/** In the page (a string: this file is not compiled against the DOM): clears, posts the snapshot, waits a frame. */
const RENDER_IN_PAGE = `async (state, seq, steps) => {
  document.getElementById('root').replaceChildren();
  // A new plan each time, as each plan the extension sends has its own id (a plan shown again is drawn differently).
  const id = 'p' + seq, view = state.selected.view, plan = view.plans.p;
  plan.id = view.rootId = id;
  view.plans = { [id]: plan };
  state.items[0].id = state.selected.id = 'plan:' + id;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const t0 = performance.now();
  // From this document's own origin, as VS Code's host frame posts (the panel ignores messages from anywhere else).
  window.dispatchEvent(new MessageEvent('message', { data: { type: 'state', seq, state }, origin: window.origin }));
  // The panel renders in the next animation frame (its callback was queued first); a task queued from a callback of
  // that same frame runs once the frame has been styled, laid out and painted — before the next frame, in which a long
  // plan adds its next rows. (Two animation frames here counted those 120 rows into the first frame's time.)
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const first = performance.now() - t0;
  if (!document.querySelector('li.step')) throw new Error('no step row rendered in the first frame');
  // A long plan's other rows follow in the frames after: until they are all there.
  while (!document.querySelector('ol.steps[data-complete]')) await new Promise((r) => requestAnimationFrame(r));
  await new Promise((r) => requestAnimationFrame(r));
  const rows = document.querySelectorAll('li.step').length;
  if (rows !== steps) throw new Error(rows + ' step rows rendered, not ' + steps);
  return [first, performance.now() - t0];
}`;

/** What of playwright-core's API this uses (it is the e2e suite's dependency, loaded from e2e/node_modules). */
interface Launcher {
  launch(options: { executablePath: string; args: string[] }): Promise<{
    newPage(options: { viewport: { width: number; height: number } }): Promise<{
      setContent(html: string): Promise<void>;
      addScriptTag(options: { content: string }): Promise<unknown>;
      evaluate(expression: string): Promise<unknown>;
    }>;
    close(): Promise<void>;
  }>;
}

export async function webviewRenderFigures(log: (line: string) => void): Promise<Figure[]> {
  const name = 'webview_render_1000_vs_3_steps';
  const title = `panel webview renders a plan: ${BIG} steps / ${SMALL} steps`;
  const chromium = process.env.CHROMIUM ?? ['/usr/bin/chromium', '/usr/lib/chromium/chromium'].find((p) => existsSync(p));
  const pw = join(ROOT, 'e2e', 'node_modules', 'playwright-core');
  if (!chromium || !existsSync(pw) || !existsSync(join(ROOT, 'dist', 'webview.js')))
    return [
      notMeasured(
        name,
        title,
        'x',
        2,
        0.2,
        'needs Chromium and e2e/node_modules (npm run test:e2e sets them up) and dist/ (npm run build)',
      ),
    ];

  log(`webview render: a ${BIG}-step plan from the fixture…`);
  const dir = mkdtempSync(join(tmpdir(), 'plangate-bench-webview-'));
  let answer: ToolResult;
  let tools: { name: string; annotations?: unknown }[];
  try {
    const client = await rawFixtureClient(dir);
    try {
      answer = (await client.callTool({ name: 'plan_big', arguments: { steps: BIG } })) as ToolResult;
      tools = (await client.listTools()).tools;
    } finally {
      await client.close().catch(() => undefined);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const c = classifyResult(answer);
  if (c.kind !== 'plan') throw new Error('plan_big did not classify as a plan');
  const snapshot = (steps: number): PanelState => {
    const plan = { ...c.plan, next_actions: c.plan.next_actions.slice(0, steps) };
    let s: WorkflowState = reduce(EMPTY_WORKFLOW, {
      type: 'planReceived',
      at: 1,
      planId: 'p',
      origin: { server: 'fixture', tool: 'plan_big', args: { steps }, entrance: 'manual' },
      plan,
    });
    s = reduce(s, {
      type: 'resolved',
      at: 2,
      planId: 'p',
      steps: getPlan(s, 'p')!.steps.map(() => ({ server: 'fixture', crossServer: false })),
    });
    // Each step with its tool's hints, as the extension shows them (the server's tool list).
    const view = new PlanPresenter().present(s, 'p', { annotations: (tool) => tools.find((t) => t.name === tool)?.annotations })!;
    return {
      items: [{ id: 'plan:p', kind: 'plan', title: 'plan_big', badge: 'awaiting approval' }],
      selected: { kind: 'plan', id: 'plan:p', title: 'plan_big', view },
    };
  };
  const states = new Map([BIG, SMALL].map((n) => [n, snapshot(n)]));

  const { chromium: launcher } = createRequire(join(pw, 'package.json'))('playwright-core') as { chromium: Launcher };
  const browser = await launcher.launch({ executablePath: chromium, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const css = readFileSync(join(ROOT, 'media', 'panel.css'), 'utf8');
    await page.setContent(
      `<!doctype html><html><head><style>${css}</style></head><body><div id="root"></div>` +
        `<script>window.acquireVsCodeApi = () => ({ postMessage() {}, getState() { return undefined; }, setState() {} });</script></body></html>`,
    );
    await page.addScriptTag({ content: readFileSync(join(ROOT, 'dist', 'webview.js'), 'utf8') });
    const inPage = new Map([...states].map(([n, state]) => [n, JSON.stringify(state)]));
    /** Milliseconds from posting the snapshot to the end of the frame after the render, in the page. */
    const render = (steps: number, seq: number) =>
      page.evaluate(`(${RENDER_IN_PAGE})(${inPage.get(steps)}, ${seq}, ${steps})`) as Promise<[number, number]>;
    log(`webview render: ${RUNS} interleaved runs of ${SMALL} and ${BIG} steps…`);
    let seq = 0;
    await render(SMALL, ++seq);
    await render(BIG, ++seq);
    const small: [number, number][] = [];
    const big: [number, number][] = [];
    for (let i = 0; i < RUNS; i++) {
      small.push(await render(SMALL, ++seq));
      big.push(await render(BIG, ++seq));
    }
    const at = (runs: [number, number][], k: 0 | 1) => median(runs.map((r) => r[k]));
    return [
      figure(
        name,
        title,
        at(big, 0) / at(small, 0),
        'x',
        2,
        0.2, // 1.50–1.84× across runs: frames in headless Chromium on a shared machine
        `medians of ${RUNS} interleaved runs in headless Chromium: ${BIG} steps ${ms(at(big, 0))}, ${SMALL} steps ${ms(at(small, 0))} (message to the end of the frame the plan is first drawn in: its head, its actions and its first ${60} rows; counted to the next frame before, with 120 more rows)`,
      ),
      figure(
        `${name}_complete`,
        `panel webview has every row: ${BIG} steps / ${SMALL} steps`,
        at(big, 1) / at(small, 1),
        'x',
        null,
        null,
        `medians of the same runs: ${BIG} steps ${ms(at(big, 1))}, ${SMALL} steps ${ms(at(small, 1))} (message to the frame after the last row was added)`,
      ),
    ];
  } finally {
    await browser.close();
  }
}
