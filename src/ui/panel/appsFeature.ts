/**
 * The feature of results and server apps in the panel: a result card (with the server's app below it when its tool has
 * one), the apps' messages relayed by the webview, their network notice, Reopen app after a reload, and Open app on a
 * plan step. The apps themselves live in the app host (ui/appHost.ts).
 */
import type { StepResult } from '../../core/engine/runner';
import type { ToolResult } from '../../core/base/toolResult';
import type { Event } from '../../core/base/lifecycle';
import type { FromWebview, PanelItem } from '../../shared/protocol/panel';
import type { ResultView } from '../../shared/protocol/results';
import type { IntentTable, PanelFeature } from './panelFeature';
import type { ItemModel, PanelItems, PersistedApp } from './panelItems';

/** The panel's side of server apps: what it tells the app host. */
export interface PanelApps {
  /** A message from an app's iframe, or the theme of its frame, as the webview relayed it. */
  fromWebview(message: Extract<FromWebview, { type: 'appMessage' | 'appTheme' }>): void;
  /** The webview (re)loaded with no app frames: mount the open apps again. */
  webviewReady(): void;
  /** The item showing app `appId` closed: tear the app down. */
  closed(appId: string): Promise<void>;
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

/** How long a restored app waits for its server to list its tool before it stays at Reopen app. */
const REOPEN_WAIT_MS = 60_000;

export interface AppsFeatureDeps {
  items: PanelItems;
  /** The app host; none: results are shown without apps. */
  apps?: PanelApps;
  /** Plan steps that succeeded (the gate's `onDidStepResult`): kept for Open app. */
  onDidStepResult: Event<StepResult>;
  /** Whether a collect submission is open (a form app of a finished one does not come back). */
  formOpen(submissionId: string): boolean;
  warn(message: string): void;
}

export class AppsFeature implements PanelFeature {
  readonly kinds = ['result'] as const;
  private readonly subscription: { dispose(): void } | undefined;

  constructor(private readonly deps: AppsFeatureDeps) {
    const apps = deps.apps;
    this.subscription = apps && deps.onDidStepResult((r) => apps.stepResult(r));
  }

  summary(item: ItemModel): { title: string } | undefined {
    return this.kinds.some((k) => k === item.kind) ? { title: (item as { title: string }).title } : undefined;
  }

  present(item: ItemModel): PanelItem | undefined {
    return item.kind === 'result' ? { kind: 'result', id: item.id, title: item.title, view: item.view } : undefined;
  }

  removed(item: ItemModel): void {
    if (item.kind === 'result' && item.view.app) void this.deps.apps?.closed(item.view.app.appId);
  }

  webviewReady(): void {
    this.deps.apps?.webviewReady();
  }

  /**
   * After a reload, apps that were open come back as their result card with Reopen app, and reopen by themselves once
   * their server lists the tool again: the page is read afresh and the tool's input and result are replayed.
   */
  restore(persisted: { apps: PersistedApp[] }): () => void {
    const restored: string[] = [];
    for (const saved of persisted.apps) {
      if (!saved?.view?.result || typeof saved.uri !== 'string') continue;
      // A form app whose submission was submitted or discarded is history: it does not come back as a live app.
      if (saved.view.formOf && !this.deps.formOpen(saved.view.formOf)) continue;
      const id = this.deps.items.newResultId();
      this.deps.items.restore({ kind: 'result', id, title: saved.title, view: { ...saved.view, reopen: saved.uri } });
      restored.push(id);
    }
    return () => restored.forEach((id) => void this.reopen(id, true));
  }

  readonly intents = {
    appMessage: (m) => this.deps.apps?.fromWebview(m),
    appTheme: (m) => this.deps.apps?.fromWebview(m),
    reopenApp: (m) => this.reopen(m.itemId, false),
    appNetwork: (m) => {
      const appId = this.deps.items.find(m.itemId, 'result')?.view.app?.appId;
      if (!appId || !this.deps.apps) return 'That app is no longer open.';
      return this.deps.apps.answerNetwork(appId, m.allow);
    },
    openStepApp: (m) => this.deps.apps?.openStep(m.planId, m.step) ?? 'Server apps are not available.',
  } satisfies Partial<IntentTable>;

  /**
   * Reopen app on a result item restored after a reload (`auto`: by itself, waiting for the server, without focus).
   * The reason in words when it cannot be shown (the item keeps its Reopen app), or undefined.
   */
  private async reopen(itemId: string, auto: boolean): Promise<string | undefined> {
    const item = this.deps.items.find(itemId, 'result');
    if (!item?.view.reopen || !item.view.result) return 'That app is no longer here to reopen.';
    const apps = this.deps.apps;
    if (!apps) return 'Server apps are not available.';
    const { reopen: uri, formOf: form, ...rest } = item.view;
    const formOf = form && this.deps.formOpen(form) ? form : undefined;
    const error = await apps.reopen({ ...rest, result: rest.result! }, uri, {
      replace: itemId,
      title: item.title,
      submissionId: formOf,
      focus: !auto,
      waitMs: auto ? REOPEN_WAIT_MS : undefined,
    });
    if (error) this.deps.warn(`Plangate: ${error}`);
    return error;
  }

  dispose(): void {
    this.subscription?.dispose();
  }
}
