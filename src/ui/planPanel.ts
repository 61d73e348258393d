import * as vscode from 'vscode';
import { assertNever, DisposableBase } from '../core/base/lifecycle';
import type { CallOutcome, Gate } from '../core/engine/gate';
import { planTitle } from '../core/present/workflowWords';
import { diffPanel } from '../core/present/panelDiff';
import { PlanPresenter } from '../core/present/planItem';
import { planBadge } from '../core/present/planWords';
import { nestedPlans, rootPlanId } from '../core/workflow/planTree';
import type { StepResult } from '../core/engine/runner';
import type { ToolResult } from '../core/base/toolResult';
import type { AppCsp } from '../core/apps/appNetwork';
import type {
  AppToWebview,
  CallCardView,
  CallFormView,
  ElicitView,
  FromWebview,
  PanelItem,
  PanelState,
  ResultView,
  ToWebview,
  TouchedGlobView,
} from '../shared/protocol';
import type { ElicitAnswer } from '../mcp/connection';
import { validateArgs } from '../mcp/validateArgs';
import { PanelViewType } from './constants';
import { newAppNonce, panelHtml, panelOptions } from './webviewHtml';
import type { TouchedFiles } from './touchedFiles';
import type { PlanFiles } from './planFiles';
import type { CollectFormHost } from './collectForms';
import { openServerLink } from './openUrl';

type ItemModel =
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
    };

/** The user's answer on a single-call card; closing the card (or the panel) answers `cancelled`. */
export type CallCardAnswer = { answer: 'once' | 'always' } | { answer: 'deny'; note?: string } | { answer: 'cancelled' };

/** The servers' tools as the panel checks them: hints (annotations) and argument edits (input schemas). */
export interface ToolCatalog {
  /** The tool `name` as the running server a step would use offers it (`preferredServer` first). */
  findTool(name: string, preferredServer: string): { tool: { annotations?: unknown } } | undefined;
  /** A configured server and the tools it lists now. */
  get(server: string): { tools: readonly { name: string; inputSchema?: unknown }[] } | undefined;
  /** Fires when servers start, stop or change their tools (the steps' hints may change). */
  readonly onDidChange: (listener: () => void) => { dispose(): void };
}

/** What the panel shows plans from. */
export interface PanelSources {
  gate: Gate;
  /** Touched files: predictions before approval, changes after a run, diffs and revert. */
  files: PlanFiles;
  touched: TouchedFiles;
  tools: ToolCatalog;
  log: vscode.LogOutputChannel;
}

/** Call Tool and results: where the panel's forms send their calls and where re-plans' results are shown. */
export interface PanelCalls {
  /** Calls a tool from the Call Tool form; routes the result (plan, form, or result card). */
  call(request: { server: string; tool: string; args: Record<string, unknown> }): Promise<void>;
  /** Cancels the Call Tool form's call of `tool` on `server`, if one is in flight. */
  cancel(server: string, tool: string): void;
  /** Routes a result the gate classified (after a re-plan or recovery action). */
  show(outcome: CallOutcome): void;
  /** The user answered Yes to a plan's follow-up question. */
  followUpYes(planId: string): Promise<void>;
}

/** What the panel's intents reach besides the gate (connected once, right after the panel and its handlers exist). */
export interface PanelHandlers {
  calls: PanelCalls;
  /** Collect-mode forms: their views and their buttons (collectForms.ts). */
  collect: CollectFormHost;
  exportPlan(planId: string): Promise<void>;
  /** Server apps shown in result cards (appHost.ts). */
  apps?: PanelApps;
}

/** The panel's side of server apps: what it tells the app host. */
export interface PanelApps {
  /** A message from an app's iframe, or the theme of its frame, as the webview relayed it. */
  fromWebview(message: Extract<FromWebview, { type: 'appMessage' | 'appTheme' }>): void;
  /** The webview (re)loaded with no app frames: mount the open apps again. */
  webviewReady(): void;
  /** The item showing app `appId` closed: tear the app down. */
  closed(appId: string): void;
  /** The `ui://` page of `tool` on `server` when it carries one and apps are shown (a step offers Open app). */
  pageFor(server: string, tool: string): string | undefined;
  /** A plan step succeeded with `result` (kept for Open app when its tool has an app). */
  stepResult(step: StepResult): void;
  /** Open app on a plan step; the error in words, or undefined. */
  openStep(planId: string, step: number): Promise<string | undefined>;
  /** Whether app `appId` is still open. */
  isOpen(appId: string): boolean;
  /** The toggle: shows a submission's server form app in place of item `replace`; the error in words, or undefined. */
  showForm(submissionId: string, replace: string): Promise<string | undefined>;
  /** The network notice of app `appId` answered: Allow grants its server the origins asked; the error in words, or undefined. */
  answerNetwork(appId: string, allow: boolean): Promise<string | undefined>;
  /** After a window reload: shows an app again in item `replace`; the reason in words when it cannot, or undefined. */
  reopen(
    view: ResultView & { result: ToolResult },
    uri: string,
    options: { replace: string; title: string; submissionId?: string; focus: boolean; waitMs?: number },
  ): Promise<string | undefined>;
}

const PERSIST_KEY = 'plangate.panel.openPlans';
const PERSIST_FORMS_KEY = 'plangate.panel.openForms';
const PERSIST_APPS_KEY = 'plangate.panel.openApps';
/** The largest app item (its result, as JSON) kept for after a window reload; a larger one is not restored. */
const MAX_PERSISTED_APP_CHARS = 512 * 1024;
/** How long a restored app waits for its server to list its tool before it stays at Reopen app. */
const REOPEN_WAIT_MS = 60_000;

/** An app item as kept across window reloads: the call, its result, the page and the item's title. */
interface PersistedApp {
  title: string;
  uri: string;
  view: ResultView & { result: ToolResult };
}
/** How long an update waits for the webview's `applied` for the previous one before it goes anyway. */
const MAX_WAIT_MS = 250;
/**
 * The least time between two updates: a fast run changes a step every few milliseconds, and each post crosses to the
 * window and back; ten a second keep "step k of n" well within a second of the run and leave the window idle between.
 */
const MIN_INTERVAL_MS = 100;
/** How long a plan that just arrived may wait for its resolution before the panel shows it anyway. */
const RESOLUTION_WAIT_MS = 300;

/**
 * The plan panel: one editor webview showing plans, results and Call Tool forms, one at a time with a
 * switcher. The extension owns the state and posts snapshots; the webview posts intents. It never takes focus
 * from the editor unless the user asked for it, and it comes back after a reload through its serializer.
 */
export class PlanPanel extends DisposableBase {
  private panel: vscode.WebviewPanel | undefined;
  private ready = false;
  private readonly items: ItemModel[] = [];
  private selectedId: string | undefined;
  private postScheduled = false;
  private readonly touchedViews = new Map<string, TouchedGlobView[]>();
  private readonly presenter = new PlanPresenter();
  /** The nonce server apps' pages carry in this webview load (webviewHtml.ts). */
  private _appNonce = newAppNonce();
  /** The origins server apps may reach (granted by the user), in the panel's policy (webviewHtml.ts). */
  private appNetwork: AppCsp | undefined;
  /** Updates of this webview load: `seq` of the last one posted, and the state the webview holds after applying it. */
  private seq = 0;
  private sent: PanelState | undefined;
  /** The last update the webview said it applied, and when the last update was posted. */
  private acked = 0;
  private postedAt = 0;
  /** A post waiting for the webview's `applied` (or for MAX_WAIT_MS) while changes coalesce. */
  private waitTimer: ReturnType<typeof setTimeout> | undefined;
  private dirty = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly state: vscode.Memento,
    private readonly sources: PanelSources,
  ) {
    super();
    const { gate } = sources;
    this._register(
      gate.workflow.onDidChange(({ event }) => {
        // What the globs match changes when a plan's steps ran: count again once it is no longer running.
        if (['stepSucceeded', 'stepFailed', 'cancelled', 'stopped', 'reverted'].includes(event.type) && 'planId' in event)
          this.refreshTouched(event.planId);
        this.schedulePost();
      }),
    );
    this._register(gate.onDidChange(() => this.schedulePost()));
    this._register(sources.files.onDidChange(() => this.schedulePost()));
    this._register(
      sources.tools.onDidChange(() => {
        // A server's tools changed: the steps' hints may have too.
        this.presenter.invalidateHints();
        if (this.items.some((i) => i.kind === 'plan')) this.schedulePost();
      }),
    );
    this._register(
      vscode.window.registerWebviewPanelSerializer(PanelViewType, {
        deserializeWebviewPanel: async (panel) => this.adopt(panel, true),
      }),
    );
  }

  /**
   * Connects the panel's intents to their handlers. Called once in activation, right after the handlers exist (they
   * show things in this panel, so they are made after it); a restored webview only loads after activation returns.
   */
  connect(handlers: PanelHandlers): void {
    if (this.handlers) throw new Error('The Plangate panel is already connected.');
    this.handlers = handlers;
    this._register(handlers.collect.onDidChange(() => this.schedulePost()));
    const apps = handlers.apps;
    if (apps) this._register(this.sources.gate.onDidStepResult((r) => apps.stepResult(r)));
  }

  private handlers: PanelHandlers | undefined;

  private get on(): PanelHandlers {
    if (!this.handlers) throw new Error('The Plangate panel is not connected to its handlers yet.');
    return this.handlers;
  }

  /** Shows a plan (its top-level plan when nested). Reveals the panel without taking focus unless asked. */
  showPlan(planId: string, options: { focus?: boolean } = {}): void {
    const top = rootPlanId(this.sources.gate.workflow.state, planId);
    this.resolveTouched(top);
    // A plan that just arrived is being resolved (which server runs each step): shown a moment later with its
    // servers, it is rendered once, not once without them and again with them — a second full render for a long plan.
    const resolution = this.sources.gate.resolution(top);
    if (resolution && !this.items.some((i) => i.id === `plan:${top}`)) {
      void Promise.race([resolution, new Promise((r) => setTimeout(r, RESOLUTION_WAIT_MS))]).then(() => this.showTop(top, options));
      return;
    }
    this.showTop(top, options);
  }

  private showTop(top: string, options: { focus?: boolean }): void {
    const id = `plan:${top}`;
    if (!this.items.some((i) => i.id === id)) this.items.push({ kind: 'plan', id, planId: top });
    this.selectedId = id;
    this.trim();
    this.persist();
    this.open(options.focus ?? false);
  }

  showResult(view: ResultView, options: { focus?: boolean; title?: string; replace?: string } = {}): void {
    const id = `result:${Date.now()}:${Math.random().toString(36).slice(2, 8)}`;
    const item: ItemModel = { kind: 'result', id, title: options.title ?? `${view.tool} result`, view };
    const at = options.replace === undefined ? -1 : this.items.findIndex((i) => i.id === options.replace);
    // In place of another item: shown if that one was (or the user asked), else the selection stays.
    const select = at < 0 || options.focus === true || this.selectedId === options.replace;
    if (at >= 0) this.items[at] = item;
    else this.items.push(item);
    this.trim();
    if (select) this.selectedId = id;
    if (view.app || at >= 0) this.persist();
    this.open(options.focus ?? true);
  }

  showCallForm(view: CallFormView): void {
    const id = `call:${view.server}:${view.tool}`;
    const existing = this.items.find((i) => i.id === id);
    if (existing && existing.kind === 'callForm') existing.view = view;
    else this.items.push({ kind: 'callForm', id, title: `Call ${view.tool}`, view });
    this.selectedId = id;
    this.open(true);
  }

  /** Shows a collect-mode form (its submission), taking focus unless told not to. */
  showCollectForm(submissionId: string, options: { focus?: boolean } = {}): void {
    const id = `form:${submissionId}`;
    if (!this.items.some((i) => i.id === id))
      this.items.push({ kind: 'collectForm', id, title: this.on.collect.title(submissionId), submissionId });
    this.selectedId = id;
    this.persist();
    this.open(options.focus ?? true);
  }

  /** Closes a Call Tool form (its call succeeded and the result took its place). */
  closeCallForm(server: string, tool: string): void {
    const index = this.items.findIndex((i) => i.id === `call:${server}:${tool}`);
    if (index >= 0) this.items.splice(index, 1);
    this.schedulePost();
  }

  /** Updates a Call Tool form in place (busy, error) without changing the selection. */
  updateCallForm(server: string, tool: string, patch: Partial<CallFormView>): void {
    const item = this.items.find((i) => i.id === `call:${server}:${tool}`);
    if (item?.kind === 'callForm') {
      item.view = { ...item.view, ...patch };
      this.schedulePost();
    }
  }

  /** Shows the result item of app `appId` (taking focus); false when no item shows it. */
  selectApp(appId: string): boolean {
    const item = this.items.find((i) => i.kind === 'result' && i.view.app?.appId === appId);
    if (!item) return false;
    this.selectedId = item.id;
    this.open(true);
    return true;
  }

  /** The nonce app pages must carry to run in the current webview. */
  get appNonce(): string {
    return this._appNonce;
  }

  /**
   * Sets the origins server apps may reach; false when they are what they were. The panel's policy cannot be widened in a loaded page, so a change loads
   * the webview afresh: its items come back from the next snapshot, native forms' drafts from the webview's state, and
   * open apps are mounted again (webviewReady), starting afresh.
   */
  setAppNetwork(granted: AppCsp): boolean {
    if (JSON.stringify(granted) === JSON.stringify(this.appNetwork ?? { connectDomains: [], resourceDomains: [] })) return false;
    this.appNetwork = granted;
    if (this.panel) this.load(this.panel);
    return true;
  }

  /** Changes the view of the result item showing app `appId` (its network notice). */
  updateApp(appId: string, patch: Partial<ResultView>): void {
    const item = this.items.find((i) => i.kind === 'result' && i.view.app?.appId === appId);
    if (item?.kind !== 'result') return;
    item.view = { ...item.view, ...patch };
    this.schedulePost();
  }

  /** Posts an app message to the webview; false when there is no loaded webview (it mounts the apps when it loads). */
  postApp(message: AppToWebview): boolean {
    if (!this.panel || !this.ready) return false;
    void this.panel.webview.postMessage(message);
    return true;
  }

  /**
   * Shows a server's elicitation request as a form and resolves with the user's answer. Closing the form or the
   * panel answers `cancel`.
   */
  elicit(view: ElicitView): Promise<ElicitAnswer> {
    return new Promise((resolve) => {
      const id = `elicit:${Date.now()}:${Math.random().toString(36).slice(2, 8)}`;
      this.items.push({ kind: 'elicit', id, title: `${view.server} asks`, view, answer: resolve });
      this.selectedId = id;
      this.open(true);
    });
  }

  /**
   * Shows a single call the policy asks about (policyCards.ts) and takes the user's answer: `answer` resolves with an
   * error to show on the card, or undefined once it is done (the card then closes). The card closes, unanswered, when
   * `signal` aborts (the caller gave up); closing it, or the panel, answers `cancelled`.
   */
  showCallCard(view: CallCardView, answer: (a: CallCardAnswer) => Promise<string | undefined>, signal?: AbortSignal): void {
    const id = `card:${Date.now()}:${Math.random().toString(36).slice(2, 8)}`;
    this.items.push({ kind: 'callCard', id, title: `Allow ${view.tool}?`, view, answer, returnTo: this.selectedId });
    this.selectedId = id;
    signal?.addEventListener('abort', () => this.removeItem(id), { once: true });
    this.open(false);
  }

  /** What a single-call card's buttons do: answers it and closes it; the error to show on the card, if any. */
  async answerCallCard(itemId: string, answer: CallCardAnswer): Promise<string | undefined> {
    const item = this.items.find((i) => i.id === itemId);
    if (item?.kind !== 'callCard') return 'That call was already decided, or its caller stopped waiting.';
    if (answer.answer === 'always' && !item.view.canAlwaysAllow) return 'Always allow is not offered for this call: Allow once or Deny.';
    const error = await item.answer(answer);
    if (error) return error;
    this.removeItem(item.id);
    return undefined;
  }

  /**
   * Removes an item (a card that was answered or withdrawn) and, if it was shown, shows what was shown before it came
   * (the app that asked, say), else the last item left.
   */
  private removeItem(id: string): void {
    const index = this.items.findIndex((i) => i.id === id);
    if (index < 0) return;
    const [removed] = this.items.splice(index, 1);
    if (this.selectedId === id) {
      const back = removed?.kind === 'callCard' ? removed.returnTo : undefined;
      this.selectedId = back && this.items.some((i) => i.id === back) ? back : this.items.at(-1)?.id;
    }
    this.schedulePost();
  }

  reveal(): void {
    const state = this.sources.gate.workflow.state;
    if (!this.selectedId) {
      const active = [...state.order].reverse().find((id) => state.plans[id]?.depth === 0 && state.plans[id].phase !== 'finished');
      if (active) return this.showPlan(active, { focus: true });
    }
    this.open(true);
  }

  private open(focus: boolean): void {
    if (this.panel) {
      if (!this.panel.visible || focus) this.panel.reveal(undefined, !focus);
      this.schedulePost();
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      PanelViewType,
      'Plangate',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: !focus },
      panelOptions(this.extensionUri),
    );
    this.adopt(panel, false);
  }

  private adopt(panel: vscode.WebviewPanel, restored: boolean): void {
    this.panel?.dispose();
    this.panel = panel;
    this.ready = false;
    this.resetUpdates();
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'plangate.svg');
    panel.webview.options = panelOptions(this.extensionUri);
    this.load(panel);
    if (restored) this.restoreItems();
    const subs = [
      panel.webview.onDidReceiveMessage((m: FromWebview) => void this.onMessage(m)),
      panel.onDidDispose(() => {
        subs.forEach((d) => d.dispose());
        if (this.panel === panel) {
          this.panel = undefined;
          this.ready = false;
          this.resetUpdates();
          // A closed panel cannot answer: pending elicitation requests are cancelled, not left hanging.
          for (const item of this.items.filter((i) => i.kind === 'elicit'))
            (item as { answer: (a: ElicitAnswer) => void }).answer({ action: 'cancel' });
          for (const item of this.items) if (item.kind === 'callCard') void item.answer({ answer: 'cancelled' });
          this.items.splice(0, this.items.length, ...this.items.filter((i) => i.kind !== 'elicit' && i.kind !== 'callCard'));
        }
      }),
    ];
  }

  /** Loads the webview's page (again): it says `ready` when it listens, and gets a snapshot. */
  private load(panel: vscode.WebviewPanel): void {
    this.ready = false;
    this.resetUpdates();
    this._appNonce = newAppNonce();
    panel.webview.html = panelHtml(panel.webview, this.extensionUri, this._appNonce, this.appNetwork);
  }

  /** After a reload: the plans that were open and are still active (awaiting approval, blocked, …) come back. */
  private restoreItems(): void {
    const state = this.sources.gate.workflow.state;
    const saved = this.state.get<string[]>(PERSIST_KEY, []);
    const ids = new Set([...saved, ...state.order.filter((id) => state.plans[id]?.depth === 0 && state.plans[id].phase !== 'finished')]);
    for (const planId of ids) {
      if (!state.plans[planId] || this.items.some((i) => i.id === `plan:${planId}`)) continue;
      this.items.push({ kind: 'plan', id: `plan:${planId}`, planId });
      this.resolveTouched(planId);
    }
    // Apps that were open come back as their result card with Reopen app, and reopen by themselves once their server
    // lists the tool again: the page is read afresh and the tool's input and result are replayed. Before the forms: the
    // last form is still the item shown first.
    const restored: string[] = [];
    for (const saved of this.state.get<PersistedApp[]>(PERSIST_APPS_KEY, [])) {
      if (!saved?.view?.result || typeof saved.uri !== 'string') continue;
      // A form app whose submission was submitted or discarded is history: it does not come back as a live app.
      if (saved.view.formOf && !this.formOpen(saved.view.formOf)) continue;
      const id = `result:${Date.now()}:${Math.random().toString(36).slice(2, 8)}`;
      this.items.push({ kind: 'result', id, title: saved.title, view: { ...saved.view, reopen: saved.uri } });
      restored.push(id);
    }
    for (const submissionId of this.state.get<string[]>(PERSIST_FORMS_KEY, [])) {
      if (!this.on.collect.view(submissionId) || this.items.some((i) => i.id === `form:${submissionId}`)) continue;
      this.items.push({ kind: 'collectForm', id: `form:${submissionId}`, title: this.on.collect.title(submissionId), submissionId });
    }
    this.selectedId ??= this.items.at(-1)?.id;
    for (const id of restored) void this.reopenApp(id, true);
  }

  /** Whether submission `id` is there and not finished (submitted, discarded or replaced). */
  private formOpen(id: string): boolean {
    const view = this.on.collect.view(id);
    return view !== undefined && view.record.phase !== 'finished';
  }

  /**
   * Reopen app on a result item restored after a reload (`auto`: by itself, waiting for the server, without focus).
   * The reason in words when it cannot be shown (the item keeps its Reopen app), or undefined.
   */
  private async reopenApp(itemId: string, auto: boolean): Promise<string | undefined> {
    const item = this.items.find((i) => i.id === itemId);
    if (item?.kind !== 'result' || !item.view.reopen || !item.view.result) return 'That app is no longer here to reopen.';
    const apps = this.handlers?.apps;
    if (!apps) return 'Server apps are not available.';
    const { reopen: uri, formOf: form, ...rest } = item.view;
    const formOf = form && this.formOpen(form) ? form : undefined;
    const error = await apps.reopen({ ...rest, result: rest.result! }, uri, {
      replace: itemId,
      title: item.title,
      submissionId: formOf,
      focus: !auto,
      waitMs: auto ? REOPEN_WAIT_MS : undefined,
    });
    if (error) this.sources.log.warn(`Plangate: ${error}`);
    return error;
  }

  private persist(): void {
    void this.state.update(
      PERSIST_KEY,
      this.items.filter((i) => i.kind === 'plan').map((i) => (i as { planId: string }).planId),
    );
    void this.state.update(
      PERSIST_FORMS_KEY,
      this.items.flatMap((i) => (i.kind === 'collectForm' ? [i.submissionId] : [])),
    );
    const apps: PersistedApp[] = [];
    for (const i of this.items) {
      const uri = i.kind === 'result' ? (i.view.app?.uri ?? i.view.reopen) : undefined;
      if (i.kind !== 'result' || !uri || !i.view.result) continue;
      const { app: _app, reopen: _reopen, appNote: _note, network: _network, ...view } = i.view;
      const saved: PersistedApp = { title: i.title, uri, view: { ...view, result: i.view.result } };
      if (JSON.stringify(saved).length <= MAX_PERSISTED_APP_CHARS) apps.push(saved);
    }
    void this.state.update(PERSIST_APPS_KEY, apps);
  }

  /**
   * Keeps the switcher short: the newest 10 result cards and the newest 10 finished plans stay open (never the one
   * shown); older ones close. A finished plan is history: the Plans view opens it again.
   */
  private trim(): void {
    const state = this.sources.gate.workflow.state;
    const keep = (list: ItemModel[]) => {
      for (const old of list.slice(0, Math.max(0, list.length - 10)))
        if (old.id !== this.selectedId) {
          this.items.splice(this.items.indexOf(old), 1);
          if (old.kind === 'result' && old.view.app) this.handlers?.apps?.closed(old.view.app.appId);
        }
    };
    keep(this.items.filter((i) => i.kind === 'result'));
    keep(this.items.filter((i) => i.kind === 'plan' && state.plans[i.planId]?.phase === 'finished'));
  }

  private refreshTouched(planId: string): void {
    const root = rootPlanId(this.sources.gate.workflow.state, planId);
    const plan = this.sources.gate.workflow.state.plans[root];
    if (!plan || plan.phase === 'executing' || !this.touchedViews.has(root)) return;
    this.touchedViews.delete(root);
    this.sources.touched.forget(root);
    this.resolveTouched(root);
  }

  private resolveTouched(planId: string): void {
    const record = this.sources.gate.workflow.state.plans[planId];
    const globs = record?.plan.safety?.touches_files ?? [];
    if (!globs.length || this.touchedViews.has(planId)) return;
    void this.sources.touched.resolve(planId, globs).then((views) => {
      this.touchedViews.set(planId, views);
      this.schedulePost();
    });
  }

  /**
   * Posts what changed, once the current microtask's burst of events is over. While the webview has not said `applied`
   * for the last update, changes only mark the state dirty and the next update carries them all; it goes when the
   * webview answers, or after MAX_WAIT_MS (a webview answering slowly still sees progress). So however fast a run goes,
   * at most one update waits in the extension, and few are ever on their way.
   */
  private schedulePost(): void {
    this.dirty = true;
    if (this.postScheduled || this.waitTimer) return;
    this.postScheduled = true;
    queueMicrotask(() => {
      this.postScheduled = false;
      this.post();
    });
  }

  private post(): void {
    if (!this.panel || !this.ready || !this.dirty || this.waitTimer) return;
    const since = Date.now() - this.postedAt;
    const wait = this.seq > this.acked ? MAX_WAIT_MS - since : this.sent ? MIN_INTERVAL_MS - since : 0;
    if (wait > 0) {
      this.waitTimer = setTimeout(() => {
        this.waitTimer = undefined;
        this.post();
      }, wait);
      return;
    }
    this.dirty = false;
    const state = this.snapshot();
    let message: Extract<ToWebview, { seq: number }>;
    if (!this.sent) message = { type: 'state', seq: ++this.seq, state };
    else {
      const patch = diffPanel(this.sent, state);
      if (!patch) return;
      message = { type: 'patch', seq: ++this.seq, patch };
    }
    this.sent = state;
    this.postedAt = Date.now();
    const panel = this.panel;
    void panel.webview.postMessage(message).then((delivered) => {
      // Not delivered (the webview is hidden and unloaded): it says `ready` when it loads again, and gets a snapshot.
      if (delivered || this.panel !== panel || this.seq !== message.seq) return;
      this.sent = undefined;
      this.acked = this.seq;
      this.dirty = true;
    });
  }

  /** The webview applied update `seq`: the next one may go at once. */
  private applied(seq: number): void {
    if (seq <= this.acked || seq > this.seq) return;
    this.acked = seq;
    if (this.waitTimer) {
      clearTimeout(this.waitTimer);
      this.waitTimer = undefined;
    }
    if (this.dirty) this.schedulePost();
  }

  /** The next update is a snapshot (a new webview load, or one that lost track), sent without waiting. */
  private resetUpdates(): void {
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    this.sent = undefined;
    this.acked = this.seq;
    this.schedulePost();
  }

  /** The snapshot the webview renders. */
  snapshot(): PanelState {
    const { gate } = this.sources;
    const state = gate.workflow.state;
    const visibleItems = this.items.filter(
      (i) => (i.kind !== 'plan' || state.plans[i.planId]) && (i.kind !== 'collectForm' || state.submissions[i.submissionId]),
    );
    const selected = visibleItems.find((i) => i.id === this.selectedId) ?? visibleItems.at(-1);
    const toItem = (model: ItemModel): PanelItem | undefined => {
      switch (model.kind) {
        case 'plan': {
          const record = state.plans[model.planId];
          const view = this.presenter.present(state, model.planId, {
            touched: this.touchedViews.get(model.planId),
            pending: gate.pending,
            readOnly: record.phase === 'finished' && record.outcome !== 'not_ok',
            predicted: record.phase === 'awaiting_approval' ? this.sources.files.predicted(model.planId) : undefined,
            changes: record.approvedAt !== undefined && record.phase !== 'executing' ? this.sources.files.changed(model.planId) : undefined,
            annotations: (tool: string, preferred: string) => this.sources.tools.findTool(tool, preferred)?.tool.annotations,
            appOf: this.handlers?.apps ? (tool: string, server: string) => this.handlers?.apps?.pageFor(server, tool) : undefined,
            review: (planId: string) => gate.review(planId),
          });
          return view && { kind: 'plan', id: model.id, title: planTitle(record, 40), view };
        }
        case 'result':
          return { kind: 'result', id: model.id, title: model.title, view: model.view };
        case 'callForm':
          return { kind: 'callForm', id: model.id, title: model.title, view: model.view };
        case 'elicit':
          return { kind: 'elicit', id: model.id, title: model.title, view: model.view };
        case 'callCard':
          return { kind: 'callCard', id: model.id, title: model.title, view: model.view };
        case 'collectForm': {
          const view = this.on.collect.view(model.submissionId);
          const origin = view && view.record.phase !== 'finished' ? this.on.collect.origin(model.submissionId) : undefined;
          const serverApp = origin && this.handlers?.apps?.pageFor(origin.server, origin.tool);
          return view && { kind: 'collectForm', id: model.id, title: model.title, view: serverApp ? { ...view, serverApp } : view };
        }
        default:
          return assertNever(model, 'item');
      }
    };
    return {
      items: visibleItems.map((i) => {
        const record = i.kind === 'plan' ? state.plans[i.planId] : undefined;
        return {
          id: i.id,
          kind: i.kind,
          title: record ? planTitle(record, 40) : (i as { title: string }).title,
          badge: record ? planBadge(record) : i.kind === 'collectForm' ? this.on.collect.badge(i.submissionId) : undefined,
        };
      }),
      selected: selected && toItem(selected),
    };
  }

  private reply(id: number, error?: string): void {
    void this.panel?.webview.postMessage({ type: 'reply', id, ok: !error, error });
  }

  private async onMessage(message: FromWebview): Promise<void> {
    const { gate } = this.sources;
    const wrap = async (id: number, fn: () => unknown) => {
      try {
        const error = await fn();
        this.reply(id, typeof error === 'string' ? error : undefined);
      } catch (err) {
        const text = err instanceof Error ? err.message : String(err);
        this.sources.log.error(`Panel action failed: ${text}`);
        this.reply(id, text);
      }
    };
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.resetUpdates();
        this.handlers?.apps?.webviewReady();
        return;
      case 'appMessage':
      case 'appTheme':
        this.handlers?.apps?.fromWebview(message);
        return;
      case 'applied':
        this.applied(message.seq);
        return;
      case 'resync':
        this.resetUpdates();
        return;
      case 'select':
        this.selectedId = message.itemId;
        this.schedulePost();
        return;
      case 'close': {
        const index = this.items.findIndex((i) => i.id === message.itemId);
        const item = this.items[index];
        if (item?.kind === 'elicit') item.answer({ action: 'cancel' });
        if (item?.kind === 'callCard') void item.answer({ answer: 'cancelled' });
        if (item?.kind === 'plan') {
          this.sources.touched.forget(item.planId);
          this.touchedViews.delete(item.planId);
          this.presenter.forget([item.planId, ...Object.keys(nestedPlans(gate.workflow.state, item.planId))]);
        }
        if (item?.kind === 'result' && item.view.app) this.handlers?.apps?.closed(item.view.app.appId);
        if (item?.kind === 'collectForm' && item.parked?.app) this.handlers?.apps?.closed(item.parked.app.appId);
        if (index >= 0) this.items.splice(index, 1);
        if (this.selectedId === message.itemId) this.selectedId = this.items.at(-1)?.id;
        this.persist();
        this.schedulePost();
        return;
      }
      case 'approve':
        return wrap(message.id, () => gate.approve(message.planId, message.note, message.shownHash));
      case 'reject':
        return wrap(message.id, () => gate.reject(message.planId, message.reason));
      case 'acceptChange':
        return wrap(message.id, () => gate.acceptChange(message.planId, message.step, message.shownHash));
      case 'editArgs':
        return wrap(message.id, () => {
          let args: unknown;
          try {
            args = JSON.parse(message.argsJson);
          } catch (err) {
            return `The arguments are not valid JSON: ${(err as Error).message}`;
          }
          if (typeof args !== 'object' || args === null || Array.isArray(args))
            return 'The arguments must be a JSON object, like {"path": "a.txt"}.';
          const record = gate.workflow.state.plans[message.planId];
          const step = record?.steps[message.step];
          if (!step) return 'That step no longer exists.';
          const problem = validateArgs(
            step.call.tool,
            this.sources.tools.get(gate.serverFor(message.planId, message.step) ?? '')?.tools.find((t) => t.name === step.call.tool)
              ?.inputSchema,
            args as Record<string, unknown>,
          );
          if (problem) return problem;
          return gate.editArgs(message.planId, message.step, args as Record<string, unknown>);
        });
      case 'resetArgs':
        return wrap(message.id, () => {
          const step = gate.workflow.state.plans[message.planId]?.steps[message.step];
          return step ? gate.editArgs(message.planId, message.step, step.proposed.args) : 'That step no longer exists.';
        });
      case 'skip':
        return wrap(message.id, () => gate.markSkip(message.planId, message.step, message.skip));
      case 'cancel':
        return wrap(message.id, () => gate.cancel(message.planId));
      case 'retryStep':
        return wrap(message.id, () => gate.retry(message.planId));
      case 'skipStep':
        return wrap(message.id, () => gate.skipFailed(message.planId));
      case 'stop':
        return wrap(message.id, () => gate.stop(message.planId));
      case 'confirmStep':
        return wrap(message.id, () => gate.answerConfirm(message.planId, message.step, message.granted));
      case 'answerAskUser':
        return wrap(message.id, () => gate.answerAskUser(message.planId, message.step, message.values));
      case 'answerAsk':
        return wrap(message.id, async () => {
          const outcome = await gate.replan(message.planId, message.values, message.shown);
          if (outcome.received.kind === 'plan') this.replaceItem(message.planId, outcome.received.planId);
          else this.on.calls.show(outcome);
        });
      case 'runRecovery':
        return wrap(message.id, async () => {
          const record = gate.workflow.state.plans[message.planId];
          const action = record?.plan.recovery_actions?.[message.index];
          if (!action) return 'That recovery action no longer exists.';
          // A recovery action is a one-step plan: shown with its server, tool and arguments, approved like any plan.
          const proposed = gate.proposeRecovery(message.planId, message.index);
          if ('error' in proposed) return proposed.error;
          this.showPlan(proposed.planId, { focus: true });
        });
      case 'followUp':
        return wrap(message.id, async () => {
          const error = gate.followUp(message.planId, message.answer);
          if (error) return error;
          if (message.answer === 'yes') await this.on.calls.followUpYes(message.planId);
        });
      case 'exportPlan':
        void this.on.exportPlan(message.planId);
        return;
      case 'callTool':
        return wrap(message.id, async () => {
          const item = this.items.find((i) => i.id === message.itemId);
          if (item?.kind !== 'callForm') return 'That form is closed.';
          await this.on.calls.call({ server: item.view.server, tool: item.view.tool, args: message.args });
        });
      case 'cancelCall': {
        const item = this.items.find((i) => i.id === message.itemId);
        if (item?.kind === 'callForm') this.on.calls.cancel(item.view.server, item.view.tool);
        return;
      }
      case 'previewStep':
        return wrap(message.id, () => this.sources.files.previewStep(message.planId, message.step));
      case 'openPredicted':
        await this.sources.files.openPredicted(message.planId, message.index);
        return;
      case 'openChange':
        await this.sources.files.openChange(message.planId, message.path);
        return;
      case 'revert':
        return wrap(message.id, async () => {
          await this.sources.files.revert(message.planId, message.path);
        });
      case 'elicitAnswer':
        return wrap(message.id, () => {
          const index = this.items.findIndex((i) => i.id === message.itemId);
          const item = this.items[index];
          if (item?.kind !== 'elicit') return 'That request was already answered.';
          this.items.splice(index, 1);
          if (this.selectedId === item.id) this.selectedId = this.items.at(-1)?.id;
          item.answer({
            action: message.action,
            content: message.action === 'accept' ? (message.content as ElicitAnswer['content']) : undefined,
          });
          this.schedulePost();
        });
      case 'callCardAnswer':
        return wrap(message.id, () =>
          this.answerCallCard(
            message.itemId,
            message.answer === 'deny' ? { answer: 'deny', note: message.note } : { answer: message.answer },
          ),
        );
      case 'openFile':
        await openLink(message.path);
        return;
      case 'reopenApp':
        return wrap(message.id, () => this.reopenApp(message.itemId, false));
      case 'appNetwork':
        return wrap(message.id, () => {
          const item = this.items.find((i) => i.id === message.itemId);
          const appId = item?.kind === 'result' ? item.view.app?.appId : undefined;
          if (!appId || !this.handlers?.apps) return 'That app is no longer open.';
          return this.handlers.apps.answerNetwork(appId, message.allow);
        });
      case 'switchForm':
        return wrap(message.id, () => this.switchForm(message.itemId, message.to));
      case 'openStepApp':
        return wrap(message.id, () => this.handlers?.apps?.openStep(message.planId, message.step) ?? 'Server apps are not available.');
      case 'collectForm':
        return wrap(message.id, () => this.on.collect.handle(message));
      case 'collectDraft':
        this.on.collect.saveDraft(message.submissionId, message.field, message.value);
        return;
      default:
        assertNever(message, 'webview message');
    }
  }

  /**
   * The form toggle: Plangate's form and the server's form app of one submission take each other's place. The app is
   * kept open (hidden) while the native form is shown, so switching back finds what was typed in it; switching to an
   * app that is gone starts it with the values so far. The submission is the same either way, staged or not.
   */
  private async switchForm(itemId: string, to: 'app' | 'native'): Promise<string | undefined> {
    const index = this.items.findIndex((i) => i.id === itemId);
    const item = this.items[index];
    if (to === 'native') {
      if (item?.kind !== 'result' || !item.view.formOf) return 'That app is no longer open.';
      const submissionId = item.view.formOf;
      if (!this.on.collect.view(submissionId)) return 'That form is no longer open.';
      const id = `form:${submissionId}`;
      const other = this.items.findIndex((i) => i.id === id);
      if (other >= 0 && other !== index) this.items.splice(other, 1);
      this.items[this.items.indexOf(item)] = {
        kind: 'collectForm',
        id,
        title: this.on.collect.title(submissionId),
        submissionId,
        parked: item.view,
      };
      this.selectedId = id;
      this.persist();
      this.schedulePost();
      return undefined;
    }
    if (item?.kind !== 'collectForm') return 'That form is no longer open.';
    const parked = item.parked;
    if (parked?.app && this.handlers?.apps?.isOpen(parked.app.appId)) {
      const id = `result:${Date.now()}:${Math.random().toString(36).slice(2, 8)}`;
      this.items[index] = { kind: 'result', id, title: item.title, view: parked };
      this.selectedId = id;
      this.persist();
      this.schedulePost();
      return undefined;
    }
    return this.handlers?.apps?.showForm(item.submissionId, itemId) ?? 'Server apps are not available.';
  }

  /** A re-plan replaces the old plan's tab with the new plan. */
  private replaceItem(oldPlanId: string, newPlanId: string): void {
    const index = this.items.findIndex((i) => i.kind === 'plan' && i.planId === oldPlanId);
    const id = `plan:${newPlanId}`;
    if (index >= 0) this.items[index] = { kind: 'plan', id, planId: newPlanId };
    else this.items.push({ kind: 'plan', id, planId: newPlanId });
    this.selectedId = id;
    this.persist();
    this.resolveTouched(newPlanId);
    this.schedulePost();
  }

  override dispose(): void {
    this.panel?.dispose();
    super.dispose();
  }
}

/** Opens a link from server data: workspace files directly, anything else only after the user confirms. */
async function openLink(target: string): Promise<void> {
  let uri: vscode.Uri;
  try {
    uri = /^[a-z][a-z0-9+.-]*:/i.test(target) ? vscode.Uri.parse(target, true) : vscode.Uri.file(target);
  } catch {
    void vscode.window.showErrorMessage(`Plangate: "${target.slice(0, 200)}" is not a link that can be opened.`);
    return;
  }
  const inWorkspace = uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(uri);
  if (inWorkspace) {
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: false });
    return;
  }
  await openServerLink(uri, target);
}
