// The card's words read as a sentence whoever calls: "5 calls of an MCP App of server 'fixture' to app_tick are
// waiting", not "of An MCP App" (issue 28's polling app showed it); the approval's "why" in the Approvals view and the
// log say "an MCP App … called" the same way. Names (Call Tool) keep their capitals.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallCardView } from '../../src/shared/protocol/cards';
import { callerMidSentence, midSentence } from '../../src/core/present/callCard';
import { byClass, installFakeDom, type FakeNode } from './helpers/fakeDom';

let renderCallCard: (itemId: string, view: CallCardView) => unknown;
before(async () => {
  installFakeDom([], { open: {}, drafts: {} });
  // By a computed path, as shownArgs.test.ts does: the webview's sources are type-checked with the DOM's types, apart.
  const webview = (name: string) => import(`../../src/webview/${name}`) as Promise<Record<string, unknown>>;
  renderCallCard = (await webview('callCard')).renderCallCard as typeof renderCallCard;
});

const view = (caller: string, waiting: number): CallCardView => ({
  server: 'fixture',
  tool: 'app_tick',
  caller,
  args: { n: 1 },
  because: "Asked because: the app of server 'fixture' asked for this call",
  ruleId: 'plangate:app',
  ruleSource: "Plangate's default",
  canAlwaysAllow: true,
  waiting,
});

describe('the card counts the waiting calls in a sentence', () => {
  for (const [caller, said] of [
    ["An MCP App of server 'fixture'", "an MCP App of server 'fixture'"],
    ['The chat agent', 'the chat agent'],
    ['A plan step', 'a plan step'],
    ['Call Tool', 'Call Tool'],
  ] as const) {
    it(`${caller}: "${said}" mid-sentence`, () => {
      const card = renderCallCard('c1', view(caller, 5)) as FakeNode;
      const [waiting] = byClass(card, 'card-waiting');
      assert.ok(waiting, 'the waiting line');
      assert.match(waiting.textContent, new RegExp(`^ ?5 calls of ${said} to app_tick are waiting: this card shows the first\\.`));
    });
  }

  it('one call waiting: no count', () => {
    assert.equal(byClass(renderCallCard('c2', view('The chat agent', 1)) as FakeNode, 'card-waiting').length, 0);
  });

  it("core's words for the log and the Approvals view: the same rule", () => {
    assert.equal(
      callerMidSentence({ entrance: 'app', call: { server: 'fixture', tool: 'app_tick', args: {}, entrance: 'app' } } as never),
      "an MCP App of server 'fixture'",
    );
    assert.equal(
      callerMidSentence({ entrance: 'agent', call: { server: 's', tool: 't', args: {}, entrance: 'agent' } } as never),
      'the chat agent',
    );
    assert.equal(midSentence('Call Tool'), 'Call Tool');
    assert.equal(midSentence('Another thing'), 'Another thing', 'only a whole leading article');
  });
});
