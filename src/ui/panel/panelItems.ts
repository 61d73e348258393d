/**
 * The panel's open items and their persistence: which plans, results, forms and cards are open, which one is shown,
 * and what of that survives a window reload (workspace state). Knows nothing of the webview or of what an item does:
 * the panel renders the items (planPanel.ts), the features act on them (features/*.ts).
 */
import type * as vscode from 'vscode';
import { DisposableBase, Emitter } from '../../core/base/lifecycle';
import type { ToolResult } from '../../core/base/toolResult';
import type { ElicitAnswer } from '../../mcp/connection';
import type { CardAnswer } from '../../core/engine/askQueue';
import type { CallFormView } from '../../shared/protocol/callForm';
import type { CallCardView, ElicitView } from '../../shared/protocol/cards';
import type { ResultView } from '../../shared/protocol/results';
import type { ResultCardView } from '../../shared/protocol/review';
import type { SamplingView } from '../../shared/protocol/sampling';

/** The user's answer on a single-call card; closing the card (or the panel) answers `cancelled`. */
export type CallCardAnswer = CardAnswer;

/** One open item as the extension keeps it (the webview gets its view model, planPanel.ts). */
export type ItemModel =
  | { kind: 'plan'; id: string; planId: string }
  | { kind: 'result'; id: string; title: string; view: ResultView }
  | { kind: 'callForm'; id: string; title: string; view: CallFormView }
  | { kind: 'elicit'; id: string; title: string; view: ElicitView; answer: (a: ElicitAnswer) => void }
  | {
      kind: 'collectForm';
      id: string;
      title: string;
      submissionId: string;
      /** The server's form app of the same submission, kept open and hidden while this form is shown (the toggle). */
      parked?: ResultView;
    }
  | {
      kind: 'callCard';
      id: string;
      title: string;
      view: CallCardView;
      answer: (a: CallCardAnswer) => Promise<string | undefined>;
      /** The item shown when the card came (an app's result, say): shown again once the card is gone. */
      returnTo?: string;
    }
  /** A server's sampling request (samplingFeature.ts); `answer` takes the user's button, `closed` a close unanswered. */
  | { kind: 'sampling'; id: string; title: string; view: SamplingView; answer?: (a: SamplingButton) => void }
  | {
      kind: 'resultCard';
      id: string;
      title: string;
      view: ResultCardView;
      /** Passes the result on or withholds it; closing the card (or the panel) answers `cancelled` (withheld). */
      answer: (a: 'pass' | 'withhold' | 'cancelled') => void;
      returnTo?: string;
    };

/** A sampling item's buttons; `closed`: the item or the panel was closed unanswered. */
export type SamplingButton =
  { action: 'approve'; modelId: string } | { action: 'send'; text: string } | { action: 'decline' } | { action: 'closed' };

export type ItemKind = ItemModel['kind'];
export type ItemOf<K extends ItemKind> = Extract<ItemModel, { kind: K }>;

/** An app item as kept across window reloads: the call, its result, the page and the item's title. */
export interface PersistedApp {
  title: string;
  uri: string;
  view: ResultView & { result: ToolResult };
}

/** What the items need to know of the plans: the top-level plan of a nested one, and which plans are finished. */
export interface PlanTreePort {
  rootOf(planId: string): string;
  finished(planId: string): boolean;
  /** A plan that just arrived and is being resolved (which server runs each step): settles when resolved. */
  resolution(planId: string): Promise<unknown> | undefined;
}

const PERSIST_KEY = 'plangate.panel.openPlans';
const PERSIST_FORMS_KEY = 'plangate.panel.openForms';
const PERSIST_APPS_KEY = 'plangate.panel.openApps';
/** The largest app item (its result, as JSON) kept for after a window reload; a larger one is not restored. */
const MAX_PERSISTED_APP_CHARS = 512 * 1024;
/** How long a plan that just arrived may wait for its resolution before the panel shows it anyway. */
const RESOLUTION_WAIT_MS = 300;
/** Result cards and finished plans kept open each (the newest; never the one shown). */
const KEEP_OPEN = 10;

const newItemId = (prefix: string) => `${prefix}:${Date.now()}:${Math.random().toString(36).slice(2, 8)}`;

/**
 * The open items, newest last, and the one shown. Every change fires {@link onDidChange}; a change the user should see
 * now fires {@link onDidShow} (with whether to take the focus); an item that goes away fires {@link onDidRemove}.
 */
export class PanelItems extends DisposableBase {
  private readonly list: ItemModel[] = [];
  private selectedId: string | undefined;

  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Something the panel shows changed: post an update. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidShow = this._register(new Emitter<{ focus: boolean }>());
  /** An item was put in front: reveal the panel (taking the focus only when `focus`). */
  readonly onDidShow = this._onDidShow.event;
  private readonly _onDidRemove = this._register(new Emitter<ItemModel>());
  /** An item left the panel (closed, answered, trimmed or replaced): its feature lets go of what it holds. */
  readonly onDidRemove = this._onDidRemove.event;

  constructor(
    private readonly memento: vscode.Memento,
    private readonly plans: PlanTreePort,
  ) {
    super();
  }

  /** Every open item, newest last. */
  get all(): readonly ItemModel[] {
    return this.list;
  }

  get selected(): string | undefined {
    return this.selectedId;
  }

  find<K extends ItemKind>(id: string, kind: K): ItemOf<K> | undefined {
    const item = this.list.find((i) => i.id === id);
    return item?.kind === kind ? (item as ItemOf<K>) : undefined;
  }

  /** Marks the panel's content changed (an item's view changed in place). */
  changed(): void {
    this._onDidChange.fire();
  }

  select(id: string): void {
    this.selectedId = id;
    this.changed();
  }

  /** Shows a plan (its top-level plan when nested). Reveals the panel without taking focus unless asked. */
  showPlan(planId: string, options: { focus?: boolean } = {}): void {
    const top = this.plans.rootOf(planId);
    // A plan that just arrived is being resolved (which server runs each step): shown a moment later with its
    // servers, it is rendered once, not once without them and again with them — a second full render for a long plan.
    const resolution = this.plans.resolution(top);
    if (resolution && !this.list.some((i) => i.id === `plan:${top}`)) {
      void Promise.race([resolution, new Promise((r) => setTimeout(r, RESOLUTION_WAIT_MS))]).then(() => this.showTop(top, options));
      return;
    }
    this.showTop(top, options);
  }

  private showTop(top: string, options: { focus?: boolean }): void {
    const id = `plan:${top}`;
    if (!this.list.some((i) => i.id === id)) this.list.push({ kind: 'plan', id, planId: top });
    this.selectedId = id;
    this.trim();
    this.persist();
    this.show(options.focus ?? false);
  }

  /** A re-plan replaces the old plan's tab with the new plan. */
  replacePlan(oldPlanId: string, newPlanId: string): void {
    const index = this.list.findIndex((i) => i.kind === 'plan' && i.planId === oldPlanId);
    const item: ItemModel = { kind: 'plan', id: `plan:${newPlanId}`, planId: newPlanId };
    if (index >= 0) this.list[index] = item;
    else this.list.push(item);
    this.selectedId = item.id;
    this.persist();
    this.changed();
  }

  showResult(view: ResultView, options: { focus?: boolean; title?: string; replace?: string } = {}): void {
    const item: ItemModel = { kind: 'result', id: newItemId('result'), title: options.title ?? `${view.tool} result`, view };
    const at = options.replace === undefined ? -1 : this.list.findIndex((i) => i.id === options.replace);
    // In place of another item: shown if that one was (or the user asked), else the selection stays.
    const select = at < 0 || options.focus === true || this.selectedId === options.replace;
    if (at >= 0) this.list[at] = item;
    else this.list.push(item);
    this.trim();
    if (select) this.selectedId = item.id;
    if (view.app || at >= 0) this.persist();
    this.show(options.focus ?? true);
  }

  showCallForm(view: CallFormView): void {
    const id = `call:${view.server}:${view.tool}`;
    const existing = this.find(id, 'callForm');
    if (existing) existing.view = view;
    else this.list.push({ kind: 'callForm', id, title: `Call ${view.tool}`, view });
    this.selectedId = id;
    this.show(true);
  }

  /** Updates a Call Tool form in place (busy, error) without changing the selection. */
  updateCallForm(server: string, tool: string, patch: Partial<CallFormView>): void {
    const item = this.find(`call:${server}:${tool}`, 'callForm');
    if (!item) return;
    item.view = { ...item.view, ...patch };
    this.changed();
  }

  /** Closes a Call Tool form (its call succeeded and the result took its place). */
  closeCallForm(server: string, tool: string): void {
    const index = this.list.findIndex((i) => i.id === `call:${server}:${tool}`);
    if (index >= 0) this.list.splice(index, 1);
    this.changed();
  }

  /** Shows a collect-mode form (its submission) titled `title`, taking focus unless told not to. */
  showCollectForm(submissionId: string, title: string, options: { focus?: boolean } = {}): void {
    const id = `form:${submissionId}`;
    if (!this.list.some((i) => i.id === id)) this.list.push({ kind: 'collectForm', id, title, submissionId });
    this.selectedId = id;
    this.persist();
    this.show(options.focus ?? true);
  }

  /** Puts `item` in the place of item `id` (the form toggle), shown, without telling the old one's feature. */
  swap(id: string, item: ItemModel): void {
    const index = this.list.findIndex((i) => i.id === id);
    if (index < 0) return;
    const other = this.list.findIndex((i) => i.id === item.id);
    if (other >= 0 && other !== index) this.list.splice(other, 1);
    this.list[this.list.findIndex((i) => i.id === id)] = item;
    this.selectedId = item.id;
    this.persist();
    this.changed();
  }

  /** A new result item id (for {@link swap}). */
  newResultId(): string {
    return newItemId('result');
  }

  /** Adds an item the user must answer (a card, an elicitation form) and shows it; returns its id. */
  ask(item: ItemOf<'elicit'> | ItemOf<'callCard'> | ItemOf<'sampling'> | ItemOf<'resultCard'>, focus: boolean): string {
    this.list.push(item);
    this.selectedId = item.id;
    this.show(focus);
    return item.id;
  }

  /** A new id for an item of `kind` asked with {@link ask}. */
  newAskId(kind: 'elicit' | 'card' | 'sampling' | 'review'): string {
    return newItemId(kind);
  }

  /** Shows the result item of app `appId` (taking focus); false when no item shows it. */
  selectApp(appId: string): boolean {
    const item = this.list.find((i) => i.kind === 'result' && i.view.app?.appId === appId);
    if (!item) return false;
    this.selectedId = item.id;
    this.show(true);
    return true;
  }

  /** Changes the view of the result item showing app `appId` (its network notice). */
  updateApp(appId: string, patch: Partial<ResultView>): void {
    const item = this.list.find((i) => i.kind === 'result' && i.view.app?.appId === appId);
    if (item?.kind !== 'result') return;
    item.view = { ...item.view, ...patch };
    this.changed();
  }

  /**
   * Removes an item (closed by the user, answered or withdrawn) and, if it was shown, shows what was shown before it
   * came (the app that asked a card, say), else the last item left. `quiet`: its feature is not told (it asked).
   */
  remove(id: string, quiet = false): void {
    const index = this.list.findIndex((i) => i.id === id);
    if (index < 0) return;
    const [removed] = this.list.splice(index, 1);
    if (this.selectedId === id) {
      // A card answered or withdrawn gives the view back to what it covered; one the user closed, to the last item.
      const back = quiet && (removed?.kind === 'callCard' || removed?.kind === 'resultCard') ? removed.returnTo : undefined;
      this.selectedId = back && this.list.some((i) => i.id === back) ? back : this.list.at(-1)?.id;
    }
    if (!quiet && removed) this._onDidRemove.fire(removed);
    this.persist();
    this.changed();
  }

  /** Drops the items that cannot outlive the webview (cards, elicitation forms) after their feature answered them. */
  dropUnanswerable(): void {
    const kept = this.list.filter((i) => i.kind !== 'elicit' && i.kind !== 'callCard' && i.kind !== 'sampling' && i.kind !== 'resultCard');
    this.list.splice(0, this.list.length, ...kept);
  }

  /** Shows the last item when none is selected (after a reload). */
  selectLastIfNone(): void {
    this.selectedId ??= this.list.at(-1)?.id;
  }

  /** Reveals the panel on the current item. */
  show(focus: boolean): void {
    this._onDidShow.fire({ focus });
    this.changed();
  }

  /** What was open before the window reloaded: plan ids, collect submissions, apps (restored by their features). */
  persisted(): { plans: string[]; forms: string[]; apps: PersistedApp[] } {
    return {
      plans: this.memento.get<string[]>(PERSIST_KEY, []),
      forms: this.memento.get<string[]>(PERSIST_FORMS_KEY, []),
      apps: this.memento.get<PersistedApp[]>(PERSIST_APPS_KEY, []),
    };
  }

  /** Adds a restored item (after a reload), not shown and not persisted yet. */
  restore(item: ItemModel): void {
    if (!this.list.some((i) => i.id === item.id)) this.list.push(item);
  }

  persist(): void {
    void this.memento.update(
      PERSIST_KEY,
      this.list.flatMap((i) => (i.kind === 'plan' ? [i.planId] : [])),
    );
    void this.memento.update(
      PERSIST_FORMS_KEY,
      this.list.flatMap((i) => (i.kind === 'collectForm' ? [i.submissionId] : [])),
    );
    const apps: PersistedApp[] = [];
    for (const i of this.list) {
      const uri = i.kind === 'result' ? (i.view.app?.uri ?? i.view.reopen) : undefined;
      if (i.kind !== 'result' || !uri || !i.view.result) continue;
      const { app: _app, reopen: _reopen, appNote: _note, network: _network, ...view } = i.view;
      const saved: PersistedApp = { title: i.title, uri, view: { ...view, result: i.view.result } };
      if (JSON.stringify(saved).length <= MAX_PERSISTED_APP_CHARS) apps.push(saved);
    }
    void this.memento.update(PERSIST_APPS_KEY, apps);
  }

  /**
   * Keeps the switcher short: the newest 10 result cards and the newest 10 finished plans stay open (never the one
   * shown); older ones close. A finished plan is history: the Plans view opens it again.
   */
  private trim(): void {
    const keep = (list: ItemModel[]) => {
      for (const old of list.slice(0, Math.max(0, list.length - KEEP_OPEN)))
        if (old.id !== this.selectedId) {
          this.list.splice(this.list.indexOf(old), 1);
          this._onDidRemove.fire(old);
        }
    };
    keep(this.list.filter((i) => i.kind === 'result'));
    keep(this.list.filter((i) => i.kind === 'plan' && this.plans.finished(i.planId)));
  }
}
