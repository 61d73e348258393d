// Typed replies (issue 25, item 2): a request the webview makes (an intent with an `id`) names its reply
// (shared/protocol/panel.ts `ReplyOf`), and tsc holds each feature's handler to it. What tsc cannot see is what arrives
// at run time: an intent no feature answers, a handler that fails without a reason, a reply for no request waiting.
// Each must end with one honest answer: the control that asked never waits for ever, and "done" is never said of a
// request that failed.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FromWebview, ReplyMessage, ToWebview } from '../../src/shared/protocol/panel';
import { CallFormFeature } from '../../src/ui/panel/callFormFeature';
import { NO_REASON, replyTo } from '../../src/ui/panel/panelFeature';
import { PlanPanel, type PanelFeatures } from '../../src/ui/planPanel';
import { installFakeDom } from './helpers/fakeDom';
import { standInPanel } from './helpers/panelStandIn';

function setup(call: () => Promise<void>) {
  const { received, posted, webview, items } = standInPanel();
  const idle = { kinds: [], intents: {}, present: () => undefined, summary: () => undefined };
  const features = {
    plan: { ...idle, kinds: ['plan'], activePlan: () => undefined },
    callForm: new CallFormFeature(items, { call, cancel: () => {} }),
    collect: { ...idle, kinds: ['collectForm'] },
    cards: { ...idle, kinds: ['callCard', 'elicit'] },
    apps: { ...idle, kinds: ['result'] },
    sampling: { ...idle, kinds: ['sampling'] },
    reviews: { ...idle, kinds: ['resultCard'] },
  } as unknown as PanelFeatures;
  const logged: string[] = [];
  new PlanPanel({
    webview,
    items,
    features,
    openLink: async () => {},
    openResource: async () => undefined,
    log: { error: (m) => void logged.push(m) },
  });
  const send = async (m: unknown) => {
    received.fire(m as FromWebview);
    await new Promise((r) => setTimeout(r, 0));
  };
  const replies = () => posted.filter((m): m is ReplyMessage => m.type === 'reply');
  return { items, send, replies, logged };
}

describe('the extension answers every request once, honestly', () => {
  it('an intent no feature answers is refused by its id (the control that asked does not wait for ever), and logged', async () => {
    const t = setup(async () => {});
    await t.send({ type: 'renamedInAnotherVersion', id: 5, planId: 'p' });
    assert.deepEqual(t.replies(), [
      {
        type: 'reply',
        id: 5,
        ok: false,
        error: 'Plangate does not know this action ("renamedInAnotherVersion"): reload the window.',
      },
    ]);
    assert.match(t.logged.join('\n'), /no feature answers the webview's intent "renamedInAnotherVersion"/);
    // Without an id there is no one to answer: logged only.
    await t.send({ type: 'renamedInAnotherVersion' });
    assert.equal(t.replies().length, 1);
    assert.equal(t.logged.length, 2);
  });

  it("an intent named like an Object method ('constructor', 'toString') is no handler: refused, not reported done", async () => {
    const t = setup(async () => {});
    await t.send({ type: 'constructor', id: 6 });
    await t.send({ type: 'toString', id: 7 });
    assert.deepEqual(
      t.replies().map((r) => [r.id, r.ok]),
      [
        [6, false],
        [7, false],
      ],
    );
    assert.match((t.replies()[0] as { error: string }).error, /does not know this action \("constructor"\)/);
  });

  it('a request whose handler throws without a message is refused with a reason, not reported done', async () => {
    const t = setup(async () => {
      throw new Error('');
    });
    t.items.showCallForm({ server: 'fixture', tool: 'echo', title: 'Echo', inputSchema: {} });
    const form = t.items.all[0]!;
    await t.send({ type: 'callTool', id: 3, itemId: form.id, args: {} });
    assert.deepEqual(t.replies(), [{ type: 'reply', id: 3, ok: false, error: NO_REASON }]);
    assert.match(t.logged.join('\n'), /Panel action 'callTool' failed/);
  });

  it('a done request without data is replied exactly as before: type, id, ok (no value on the wire)', async () => {
    const t = setup(async () => {});
    t.items.showCallForm({ server: 'fixture', tool: 'echo', title: 'Echo', inputSchema: {} });
    await t.send({ type: 'callTool', id: 4, itemId: t.items.all[0]!.id, args: {} });
    assert.deepEqual(t.replies(), [{ type: 'reply', id: 4, ok: true }]);
  });

  it('what a handler returns becomes the reply: a string refuses (never empty), anything else is done and carried', () => {
    assert.deepEqual(replyTo(1, { result: 'That form is closed.' }), { type: 'reply', id: 1, ok: false, error: 'That form is closed.' });
    assert.deepEqual(replyTo(2, { result: '' }), { type: 'reply', id: 2, ok: false, error: NO_REASON });
    assert.deepEqual(replyTo(3, { result: undefined }), { type: 'reply', id: 3, ok: true });
    assert.deepEqual(replyTo(4, { result: { reverted: ['a.txt'] } }), { type: 'reply', id: 4, ok: true, value: { reverted: ['a.txt'] } });
    assert.deepEqual(replyTo(5, { thrown: new Error('server fx is not running') }), {
      type: 'reply',
      id: 5,
      ok: false,
      error: 'server fx is not running',
    });
    assert.deepEqual(replyTo(6, { thrown: undefined }), { type: 'reply', id: 6, ok: false, error: NO_REASON });
  });
});

describe("the webview's requests resolve with their own reply", () => {
  const posted: { type: string; id?: number }[] = [];
  let messaging: typeof import('../../src/webview/base/messaging');
  before(async () => {
    installFakeDom(posted, { open: {}, drafts: {} });
    // A computed path: the root type check (no DOM types) must not follow it into the webview.
    const path = 'base/messaging';
    messaging = (await import(`../../src/webview/${path}`)) as typeof messaging;
  });

  const reply = (m: ToWebview) => messaging.onReply(m as ReplyMessage);

  it('a reply for no request waiting, or a second reply for one, is dropped; each request gets the reply with its id', async () => {
    const first = messaging.request({ type: 'cancel', planId: 'p1' });
    const second = messaging.request({ type: 'stop', planId: 'p1' });
    const [a, b] = posted.slice(-2);
    assert.deepEqual([a?.type, b?.type], ['cancel', 'stop']);
    assert.notEqual(a?.id, b?.id);
    reply({ type: 'reply', id: 999_999, ok: true });
    reply({ type: 'reply', id: b!.id!, ok: false, error: 'Nothing is running.' });
    reply({ type: 'reply', id: b!.id!, ok: true });
    reply({ type: 'reply', id: a!.id!, ok: true });
    assert.deepEqual(await second, { ok: false, error: 'Nothing is running.' });
    assert.deepEqual(await first, { ok: true, value: undefined });
  });

  it('a refusal that arrives without a reason gets one: the error slot never shows empty', async () => {
    const pending = messaging.request({ type: 'retryStep', planId: 'p1' });
    reply({ type: 'reply', id: posted.at(-1)!.id!, ok: false, error: '' });
    assert.deepEqual(await pending, { ok: false, error: 'The action failed.' });
  });
});
