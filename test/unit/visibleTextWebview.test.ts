// The panel's renderers show invisible characters as marks wherever server text reaches the DOM: instruction,
// labels, arguments, file names, results, titles and accessible names. The renderers only build nodes through a
// tiny `document`, so a stand-in that records nodes and attributes is enough to read what the user would see.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hasInvisible } from '../../src/shared/visibleText';
import type { PlanItemView } from '../../src/shared/protocol/plan';
import type { ResultView } from '../../src/shared/protocol/results';
import { PlanPresenter } from '../../src/core/present/planItem';
import type { OrchestratedPlan } from '../../src/core/plan/plan';
import { EMPTY_WORKFLOW } from '../../src/core/workflow/workflow';
import { apply } from './helpers/applyEvents';

class FakeNode {
  readonly childNodes: FakeNode[] = [];
  readonly attributes = new Map<string, string>();
  classList = { add() {}, remove() {}, toggle() {} };
  dataset: Record<string, string> = {};
  style = { setProperty() {} };
  constructor(
    readonly tagName: string,
    public data = '',
  ) {}
  appendChild(child: FakeNode): FakeNode {
    this.childNodes.push(child);
    return child;
  }
  append(...children: (FakeNode | string)[]): void {
    for (const c of children) this.appendChild(typeof c === 'string' ? new FakeNode('#text', c) : c);
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, String(value));
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  addEventListener(): void {}
  replaceWith(): void {}
  querySelector(): null {
    return null;
  }
  focus(): void {}
  get textContent(): string {
    return this.tagName === '#text' ? this.data : this.childNodes.map((c) => c.textContent).join('');
  }
  set textContent(text: string) {
    this.childNodes.splice(0, this.childNodes.length, new FakeNode('#text', text));
  }
}

/** Every text node and every attribute value under `node` (what is read on screen or by a screen reader). */
function shown(node: FakeNode, out: string[] = []): string[] {
  if (node.tagName === '#text') out.push(node.data);
  for (const [name, value] of node.attributes) if (!name.startsWith('data-') && name !== 'id' && name !== 'for') out.push(value);
  for (const c of node.childNodes) shown(c, out);
  return out;
}

let renderPlan: (view: PlanItemView) => unknown;
let renderResult: (view: ResultView) => unknown;
before(async () => {
  const g = globalThis as Record<string, unknown>;
  g.Node = FakeNode;
  g.document = {
    createElement: (tag: string) => new FakeNode(tag),
    createTextNode: (text: string) => new FakeNode('#text', text),
    getElementById: () => null,
  };
  // Every step's arguments open, as after the user unfolded them.
  const open: Record<string, boolean> = Object.fromEntries([0, 1].map((i) => [`args:p1:${i}`, true]));
  open['tool:p1:0'] = true; // and the first step's tool definition
  g.acquireVsCodeApi = () => ({ postMessage() {}, getState: () => ({ open, drafts: {} }), setState() {} });
  // Loaded by a computed name: the webview sources are type-checked with the DOM library (src/webview/tsconfig.json),
  // which this test's program does not have.
  const webview = (name: string) => import(`../../src/webview/${name}`) as Promise<Record<string, unknown>>;
  renderPlan = (await webview('plan/planView')).renderPlan as typeof renderPlan;
  renderResult = (await webview('resultView')).renderResult as typeof renderResult;
});

const RLO = '\u202e';
const PLAN: OrchestratedPlan = {
  kind: 'orchestrated_plan',
  version: '1',
  status: 'ok',
  instruction: `Rename report${RLO}fdp.exe\u202c. Delete\u200b nothing\u{e0041}.`,
  next_actions: [
    { tool: `noop\u200d`, label: `Rename \u2067x\u2069`, args: { path: `a${RLO}b`, note: 'safe\u2060\ufeff\u200e' } },
    { tool: 'noop', args: {} },
  ],
  safety: { writes_code: false, touches_files: [`report${RLO}fdp.exe`, 'src/\u200b**'] },
  follow_up: `Done\u061c?`,
  recovery_actions: [{ tool: 'fix', label: `Fix\u200f`, args: { x: RLO } }],
};

describe('the panel shows invisible characters visibly', () => {
  it('in the plan: instruction, labels, tool names, arguments, globs and matched file names', () => {
    const s = apply(EMPTY_WORKFLOW, {
      type: 'planReceived',
      at: 1,
      planId: 'p1',
      origin: { server: `demo${RLO}`, tool: 'plan', args: {}, entrance: 'manual' },
      plan: PLAN,
    });
    const view = new PlanPresenter().present(s, 'p1', {
      touched: [{ glob: `report${RLO}fdp.exe`, count: 1, files: [`report${RLO}fdp.exe`], outside: false }],
    })!;
    const texts = shown(renderPlan(view) as FakeNode);
    const all = texts.join('\n');
    for (const t of texts) assert.equal(hasInvisible(t), false, `shown with an invisible character: ${JSON.stringify(t)}`);
    assert.match(all, /Rename report⟨U\+202E⟩fdp\.exe⟨U\+202C⟩\. Delete⟨U\+200B⟩ nothing⟨U\+E0041⟩\./, 'instruction');
    assert.match(all, /Rename ⟨U\+2067⟩x⟨U\+2069⟩/, 'label');
    assert.match(all, /noop⟨U\+200D⟩/, 'tool name');
    assert.match(all, /"path": "a⟨U\+202E⟩b"/, 'arguments');
    assert.match(all, /"note": "safe⟨U\+2060⟩⟨U\+FEFF⟩⟨U\+200E⟩"/, 'arguments');
    assert.match(all, /src\/⟨U\+200B⟩\*\*/, 'glob');
    assert.ok(texts.includes('report⟨U+202E⟩fdp.exe'), 'glob and matched file name');
    assert.match(all, /Step 1: Rename ⟨U\+2067⟩x⟨U\+2069⟩/, 'accessible name');
    assert.match(all, /demo⟨U\+202E⟩/, 'server');
  });

  it("in a step's tool as listed (title, description, input schema, all of it) and in what changed while you reviewed", () => {
    let s = apply(EMPTY_WORKFLOW, {
      type: 'planReceived',
      at: 1,
      planId: 'p1',
      origin: { server: 'demo', tool: 'plan', args: {}, entrance: 'manual' },
      plan: PLAN,
    });
    s = apply(s, {
      type: 'resolved',
      at: 2,
      planId: 'p1',
      steps: [
        { server: 'demo', crossServer: false, toolHash: 'h1' },
        { server: 'demo', crossServer: false },
      ],
    });
    const listed = (description: string) => ({
      name: 'noop\u200d',
      title: `Echo${RLO}`,
      description,
      inputSchema: { type: 'object', properties: { [`pa${RLO}th`]: { type: 'string', description: 'x\u200by' } } },
    });
    const definitions = new Map([
      ['h0', listed('Harmless.')],
      ['h1', listed(`Harmless${RLO}.\nDeletes\u200b everything.`)],
    ]);
    const change = {
      step: 0,
      before: { server: 'demo', toolHash: 'h0' },
      after: { server: 'demo', toolHash: 'h1' },
      parts: ['description'],
      text: `server 'demo' changed the description of tool 'noop\u200d'`,
    };
    const view = new PlanPresenter().present(s, 'p1', { review: () => ({ changes: [change], definitions }) })!;
    const texts = shown(renderPlan(view) as FakeNode);
    const all = texts.join('\n');
    for (const t of texts) assert.equal(hasInvisible(t), false, `shown with an invisible character: ${JSON.stringify(t)}`);
    assert.match(all, /Echo⟨U\+202E⟩/, 'title');
    assert.match(all, /Harmless⟨U\+202E⟩\./, 'first line of the description');
    assert.match(all, /Deletes⟨U\+200B⟩ everything/, 'the whole description');
    assert.match(all, /"pa⟨U\+202E⟩th"/, 'input schema');
    assert.match(all, /Changed while you were reviewing: server 'demo' changed the description of tool 'noop⟨U\+200D⟩'\./, 'the mark');
    assert.match(all, /\+ {3}"description": "Harmless⟨U\+202E⟩\.\\nDeletes⟨U\+200B⟩ everything\.",/, 'the new line of the diff');
  });

  it("a step's resource links: each with Open, its name and URI marked", () => {
    const s = apply(EMPTY_WORKFLOW, {
      type: 'planReceived',
      at: 1,
      planId: 'p1',
      origin: { server: 'demo', tool: 'plan', args: {}, entrance: 'manual' },
      plan: PLAN,
    });
    const view = new PlanPresenter().present(s, 'p1', {})!;
    const plan = view.plans.p1!;
    plan.steps[0] = {
      ...plan.steps[0]!,
      state: 'ok',
      links: [{ server: 'demo', uri: `demo://r/${RLO}x`, name: `a\u200bb`, mimeType: 'text/plain' }],
    };
    const texts = shown(renderPlan(view) as FakeNode);
    for (const t of texts) assert.equal(hasInvisible(t), false, `shown with an invisible character: ${JSON.stringify(t)}`);
    assert.ok(texts.includes('Open resource a⟨U+200B⟩b'), 'the Open button names the resource');
    assert.ok(texts.includes('demo://r/⟨U+202E⟩x'), 'the URI is shown');
  });

  it('in a result card: text, arguments, structured content', () => {
    const view = {
      server: 'demo',
      tool: `read\u200b`,
      args: { path: `x${RLO}` },
      result: {
        content: [
          { type: 'text', text: `line\u2028two${RLO}` },
          { type: 'resource_link', uri: 'file:///a', name: `a\u200bb` },
        ],
        structuredContent: { k: `\u2066v` },
      },
    } as unknown as ResultView;
    const texts = shown(renderResult(view) as FakeNode);
    for (const t of texts) assert.equal(hasInvisible(t), false, `shown with an invisible character: ${JSON.stringify(t)}`);
    const all = texts.join('\n');
    for (const mark of ['read⟨U+200B⟩', 'x⟨U+202E⟩', 'line⟨U+2028⟩two⟨U+202E⟩', 'a⟨U+200B⟩b', '⟨U+2066⟩v'])
      assert.ok(all.includes(mark), mark);
  });
});
