/**
 * The plan panel: one editor webview showing plans, results, forms and cards, one at a time with a switcher. It hosts
 * features (GitLens's split): the webview's life and transport (panel/panelWebview.ts, panel/panelUpdates.ts), the
 * open items and their persistence (panel/panelItems.ts), and one feature per kind of item, each answering its own
 * intents (panel/*Feature.ts). Made last, with its features: nothing is connected to it later.
 */
import { DisposableBase } from '../core/base/lifecycle';
import type { FromWebview, PanelState, ReplyMessage } from '../shared/protocol/panel';
import type { AppsFeature } from './panel/appsFeature';
import type { CallFormFeature } from './panel/callFormFeature';
import type { CardFeature } from './panel/cardFeature';
import type { CollectFeature } from './panel/collectFeature';
import { replyTo, type IntentTable, type PanelFeature } from './panel/panelFeature';
import type { CallCardAnswer, ItemKind, PanelItems } from './panel/panelItems';
import { PanelUpdates } from './panel/panelUpdates';
import type { PanelWebview } from './panel/panelWebview';
import type { PlanFeature } from './panel/planFeature';
import type { SamplingFeature } from './panel/samplingFeature';
import type { ResultCardFeature } from './panel/resultCardFeature';

/** The panel's features, one per kind of item. */
export interface PanelFeatures {
  plan: PlanFeature;
  callForm: CallFormFeature;
  collect: CollectFeature;
  cards: CardFeature;
  apps: AppsFeature;
  sampling: SamplingFeature;
  /** Results a policy rule asks to review before their caller reads them. */
  reviews: ResultCardFeature;
}

export interface PlanPanelDeps {
  webview: PanelWebview;
  items: PanelItems;
  features: PanelFeatures;
  /** Opens a link from server data (a result's or a plan's file). */
  openLink(target: string): Promise<void>;
  /** Opens the resource a `resource_link` of `server`'s result names, read-only (linkedResources.ts); the reason if not. */
  openResource(server: string, uri: string, name?: string): Promise<string | undefined>;
  log: { error(message: string): void };
}

export class PlanPanel extends DisposableBase {
  private readonly updates: PanelUpdates;
  private readonly byKind: Record<ItemKind, PanelFeature>;
  private readonly intents: IntentTable;

  constructor(private readonly deps: PlanPanelDeps) {
    super();
    const { webview, items, features } = deps;
    const all: PanelFeature[] = Object.values(features);
    this.byKind = Object.fromEntries(all.flatMap((f) => f.kinds.map((k) => [k, f]))) as Record<ItemKind, PanelFeature>;
    const { plan, callForm, collect, cards, apps, sampling, reviews } = features;
    // Every intent has exactly one handler: the type says so (a missing one, or a key spelled wrong, does not compile).
    this.intents = {
      ready: () => {
        this.updates.reset();
        for (const f of all) f.webviewReady?.();
      },
      applied: (m) => this.updates.applied(m.seq),
      resync: () => this.updates.reset(),
      select: (m) => items.select(m.itemId),
      close: (m) => items.remove(m.itemId),
      openFile: (m) => deps.openLink(m.path),
      openResource: (m) => deps.openResource(m.server, m.uri, m.name),
      ...plan.intents,
      ...callForm.intents,
      ...collect.intents,
      ...cards.intents,
      ...apps.intents,
      ...sampling.intents,
      ...reviews.intents,
    };
    this.updates = new PanelUpdates(webview, () => this.snapshot());
    this._register({ dispose: () => this.updates.dispose() });
    this._register(items.onDidChange(() => this.updates.schedule()));
    this._register(items.onDidShow(({ focus }) => webview.open(focus)));
    this._register(items.onDidRemove((item) => this.byKind[item.kind].removed?.(item)));
    for (const f of all) if (f.onDidChange) this._register(f.onDidChange(() => this.updates.schedule()));
    this._register(webview.onDidLoad(() => this.updates.loaded()));
    this._register(webview.onDidReceive((m) => void this.onMessage(m)));
    this._register(
      webview.onDidClose(() => {
        for (const f of all) f.webviewClosed?.();
      }),
    );
    this._register(webview.onDidRestore(() => this.restore(all)));
  }

  /** Shows a plan (its top-level plan when nested). Reveals the panel without taking focus unless asked. */
  showPlan(planId: string, options: { focus?: boolean } = {}): void {
    this.deps.items.showPlan(planId, options);
  }

  /** Reveals the panel, on the newest active plan when nothing is selected. */
  reveal(): void {
    const active = this.deps.items.selected ? undefined : this.deps.features.plan.activePlan();
    if (active) this.deps.items.showPlan(active, { focus: true });
    else this.deps.items.show(true);
  }

  /** A single-call card's answer, as its buttons give it (the in-host tests answer cards through this). */
  answerCallCard(itemId: string, answer: CallCardAnswer): Promise<string | undefined> {
    return this.deps.features.cards.answerCallCard(itemId, answer);
  }

  /** A result card's answer, as its buttons give it (the in-host tests answer result cards through this). */
  answerResultCard(itemId: string, answer: 'pass' | 'withhold'): unknown {
    return this.deps.features.reviews.intents.resultCardAnswer({ type: 'resultCardAnswer', id: 0, itemId, answer });
  }

  /** The snapshot the webview renders: every open item in the switcher, the one shown whole. */
  snapshot(): PanelState {
    const { items } = this.deps;
    const listed = items.all.flatMap((item) => {
      const summary = this.byKind[item.kind].summary(item);
      return summary ? [{ item, summary }] : [];
    });
    const selected = (listed.find((l) => l.item.id === items.selected) ?? listed.at(-1))?.item;
    return {
      items: listed.map(({ item, summary }) => ({ id: item.id, kind: item.kind, title: summary.title, badge: summary.badge })),
      selected: selected && this.byKind[selected.kind].present(selected),
    };
  }

  /** After a window reload: each feature brings back its items (plans, then apps, then forms); then the apps reopen. */
  private restore(all: PanelFeature[]): void {
    const persisted = this.deps.items.persisted();
    const after = all.map((f) => f.restore?.(persisted));
    this.deps.items.selectLastIfNone();
    for (const then of after) then?.();
  }

  /**
   * Routes an intent to its handler and answers a request (an intent with an `id`) once: with what the handler returned,
   * or its refusal. An intent of a type no feature answers (a webview of another version) is refused, not dropped: the
   * control that asked would wait for ever.
   */
  private async onMessage(message: FromWebview): Promise<void> {
    const id = 'id' in message && typeof message.id === 'number' ? message.id : undefined;
    const handler = Object.hasOwn(this.intents, message.type) ? (this.intents[message.type] as (m: FromWebview) => unknown) : undefined;
    if (!handler) {
      const type = JSON.stringify(String((message as { type?: unknown }).type)).slice(0, 80);
      this.deps.log.error(`Panel: no feature answers the webview's intent ${type}.`);
      if (id !== undefined) this.post(replyTo(id, { result: `Plangate does not know this action (${type}): reload the window.` }));
      return;
    }
    let reply: ReplyMessage | undefined;
    try {
      const result = await handler(message);
      if (id !== undefined) reply = replyTo(id, { result });
    } catch (thrown) {
      reply = id === undefined ? undefined : replyTo(id, { thrown });
      this.deps.log.error(`Panel action '${message.type}' failed: ${reply && !reply.ok ? reply.error : String(thrown)}`);
    }
    if (reply) this.post(reply);
  }

  private post(reply: ReplyMessage): void {
    void this.deps.webview.post(reply);
  }
}
