/**
 * The plan panel: one editor webview showing plans, results, forms and cards, one at a time with a switcher. It hosts
 * features (GitLens's split): the webview's life and transport (panel/panelWebview.ts, panel/panelUpdates.ts), the
 * open items and their persistence (panel/panelItems.ts), and one feature per kind of item, each answering its own
 * intents (panel/*Feature.ts). Made last, with its features: nothing is connected to it later.
 */
import { assertNever, DisposableBase } from '../core/base/lifecycle';
import type { FromWebview, PanelState } from '../shared/protocol/panel';
import type { AppsFeature } from './panel/appsFeature';
import type { CallFormFeature } from './panel/callFormFeature';
import type { CardFeature } from './panel/cardFeature';
import type { CollectFeature } from './panel/collectFeature';
import type { IntentHandler, IntentTable, PanelFeature } from './panel/panelFeature';
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

  private reply(id: number, error?: string): void {
    void this.deps.webview.post({ type: 'reply', id, ok: !error, error });
  }

  private async onMessage(message: FromWebview): Promise<void> {
    const handler = this.intents[message.type] as IntentHandler<typeof message.type> | undefined;
    if (!handler) return assertNever(message as never, 'webview message');
    const id = 'id' in message ? message.id : undefined;
    try {
      const result = await handler(message as never);
      if (id !== undefined) this.reply(id, typeof result === 'string' ? result : undefined);
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      this.deps.log.error(`Panel action failed: ${text}`);
      if (id !== undefined) this.reply(id, text);
    }
  }
}
