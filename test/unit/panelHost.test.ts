// The panel hosts features (issue 25, item 2): the panel gets its features at construction and routes each intent the
// webview posts to the one feature of its kind; the reply goes back by id. Driven here through a stand-in webview (the
// panel's own files import no `vscode`): a single-call card shown by the card feature, answered and closed as a user
// would, and the Call Tool form's intents reaching the caller.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FromWebview, ToWebview } from '../../src/shared/protocol/panel';
import type { CallCardAnswer } from '../../src/ui/panel/panelItems';
import { CardFeature } from '../../src/ui/panel/cardFeature';
import { CallFormFeature } from '../../src/ui/panel/callFormFeature';
import { PlanPanel, type PanelFeatures } from '../../src/ui/planPanel';
import { standInPanel } from './helpers/panelStandIn';

function setup() {
  const { received, posted, webview, items } = standInPanel();
  const calls: [string, string, Record<string, unknown>][] = [];
  const cards = new CardFeature(items);
  // Only the features this test drives are real; the others answer nothing here and present nothing.
  const idle = { kinds: [], intents: {}, present: () => undefined, summary: () => undefined };
  const features = {
    plan: { ...idle, kinds: ['plan'], activePlan: () => undefined },
    callForm: new CallFormFeature(items, {
      call: async ({ server, tool, args }) => void calls.push([server, tool, args]),
      cancel: () => {},
    }),
    collect: { ...idle, kinds: ['collectForm'] },
    cards,
    apps: { ...idle, kinds: ['result'] },
    sampling: { ...idle, kinds: ['sampling'] },
    reviews: { ...idle, kinds: ['resultCard'] },
  } as unknown as PanelFeatures;
  const panel = new PlanPanel({
    webview,
    items,
    features,
    openLink: async () => {},
    openResource: async () => undefined,
    log: { error: () => {} },
  });
  const send = async (m: FromWebview) => {
    received.fire(m);
    await new Promise((r) => setTimeout(r, 0));
  };
  const replies = () => posted.filter((m): m is Extract<ToWebview, { type: 'reply' }> => m.type === 'reply');
  return { panel, items, cards, calls, send, replies };
}

const card = {
  server: 'demo',
  tool: 'write_file',
  caller: 'Call Tool',
  args: {},
  because: 'b',
  ruleId: 'r',
  ruleSource: 's',
  canAlwaysAllow: false,
};

describe('the panel routes each intent to its feature', () => {
  it('a card is answered through its feature and leaves the panel when its owner closes it; the reply carries the feature error by id', async () => {
    const t = setup();
    const answers: CallCardAnswer[] = [];
    // The owner (policyCards.ts) closes the card once no call waits behind it.
    const id: string = t.cards.showCallCard(card, async (a) => {
      answers.push(a);
      t.cards.closeCallCard(id);
    });
    const [shown] = t.panel.snapshot().items;
    assert.equal(shown?.kind, 'callCard');
    await t.send({ type: 'callCardAnswer', id: 7, itemId: shown!.id, answer: 'always' });
    assert.deepEqual(t.replies().at(-1), {
      type: 'reply',
      id: 7,
      ok: false,
      error: 'Only Allow once or Deny is offered for this call.',
    });
    await t.send({ type: 'callCardAnswer', id: 8, itemId: shown!.id, answer: 'once' });
    assert.deepEqual(answers, [{ answer: 'once' }]);
    assert.deepEqual(t.replies().at(-1), { type: 'reply', id: 8, ok: true });
    assert.equal(t.panel.snapshot().items.length, 0, 'the answered card is gone');
  });

  it('closing a card the user did not answer answers it cancelled', async () => {
    const t = setup();
    const answers: CallCardAnswer[] = [];
    t.cards.showCallCard(card, async (a) => void answers.push(a));
    await t.send({ type: 'close', itemId: t.panel.snapshot().items[0]!.id });
    assert.deepEqual(answers, [{ answer: 'cancelled' }]);
  });

  it("the Call Tool form's Call reaches the caller with the form's server and tool", async () => {
    const t = setup();
    t.items.showCallForm({ server: 'fixture', tool: 'echo', title: 'Echo', inputSchema: {} });
    const [form] = t.panel.snapshot().items;
    await t.send({ type: 'callTool', id: 3, itemId: form!.id, args: { text: 'hi' } });
    assert.deepEqual(t.calls, [['fixture', 'echo', { text: 'hi' }]]);
    await t.send({ type: 'callTool', id: 4, itemId: 'call:gone:x', args: {} });
    assert.deepEqual(t.replies().at(-1), { type: 'reply', id: 4, ok: false, error: 'That form is closed.' });
  });
});
