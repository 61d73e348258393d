/**
 * The collect-mode feature of the panel: a submission's native form (core/present/collectView.ts through the collect
 * host, ui/collectForms.ts), its buttons and drafts, and the toggle between it and the server's own form app.
 */
import type { Event } from '../../core/base/lifecycle';
import type { CollectFormView } from '../../shared/protocol/collect';
import type { FromWebview, PanelItem } from '../../shared/protocol/panel';
import type { IntentTable, PanelFeature } from './panelFeature';
import type { ItemModel, PanelItems } from './panelItems';
import type { ControlValue } from '../../shared/forms';

/** Collect-mode forms: their views and their buttons (ui/collectForms.ts). */
export interface CollectPort {
  readonly onDidChange: Event<unknown>;
  view(submissionId: string): CollectFormView | undefined;
  title(submissionId: string): string;
  badge(submissionId: string): string | undefined;
  /** The form tool's server and name, for its app. */
  origin(submissionId: string): { server: string; tool: string } | undefined;
  handle(message: Extract<FromWebview, { type: 'collectForm' }>): Promise<string | undefined>;
  saveDraft(submissionId: string, field: string, value: ControlValue): void;
}

/** What the toggle needs of server apps (ui/appHost.ts). */
export interface FormApps {
  pageFor(server: string, tool: string): string | undefined;
  isOpen(appId: string): boolean;
  /** Shows a submission's server form app in place of item `replace`; the error in words, or undefined. */
  showForm(submissionId: string, replace: string): Promise<string | undefined>;
  /** The item showing app `appId` closed: tear the app down. */
  closed(appId: string): void;
}

export class CollectFeature implements PanelFeature {
  readonly kinds = ['collectForm'] as const;
  readonly onDidChange: Event<unknown>;

  constructor(
    private readonly items: PanelItems,
    private readonly collect: CollectPort,
    private readonly apps?: FormApps,
  ) {
    this.onDidChange = collect.onDidChange;
  }

  /** Whether submission `id` is there and not finished (submitted, discarded or replaced). */
  formOpen(id: string): boolean {
    const view = this.collect.view(id);
    return view !== undefined && view.record.phase !== 'finished';
  }

  present(item: ItemModel): PanelItem | undefined {
    if (item.kind !== 'collectForm') return undefined;
    const view = this.collect.view(item.submissionId);
    const origin = view && view.record.phase !== 'finished' ? this.collect.origin(item.submissionId) : undefined;
    const serverApp = origin && this.apps?.pageFor(origin.server, origin.tool);
    return view && { kind: 'collectForm', id: item.id, title: item.title, view: serverApp ? { ...view, serverApp } : view };
  }

  summary(item: ItemModel): { title: string; badge?: string } | undefined {
    if (item.kind !== 'collectForm') return undefined;
    // The badge is the submission's state: none means the submission is gone from the ledger.
    const badge = this.collect.badge(item.submissionId);
    return badge === undefined ? undefined : { title: item.title, badge };
  }

  removed(item: ItemModel): void {
    if (item.kind === 'collectForm' && item.parked?.app) void this.apps?.closed(item.parked.app.appId);
  }

  /** After a reload: the forms that were open come back (after the apps: the last form is still the one shown). */
  restore(persisted: { forms: string[] }): void {
    for (const submissionId of persisted.forms)
      if (this.collect.view(submissionId))
        this.items.restore({ kind: 'collectForm', id: `form:${submissionId}`, title: this.collect.title(submissionId), submissionId });
  }

  readonly intents = {
    collectForm: (m) => this.collect.handle(m),
    collectDraft: (m) => this.collect.saveDraft(m.submissionId, m.field, m.value),
    switchForm: (m) => this.switchForm(m.itemId, m.to),
  } satisfies Partial<IntentTable>;

  /**
   * The form toggle: Plangate's form and the server's form app of one submission take each other's place. The app is
   * kept open (hidden) while the native form is shown, so switching back finds what was typed in it; switching to an
   * app that is gone starts it with the values so far. The submission is the same either way, staged or not.
   */
  private async switchForm(itemId: string, to: 'app' | 'native'): Promise<string | undefined> {
    if (to === 'native') {
      const item = this.items.find(itemId, 'result');
      if (!item?.view.formOf) return 'That app is no longer open.';
      const submissionId = item.view.formOf;
      if (!this.collect.view(submissionId)) return 'That form is no longer open.';
      const title = this.collect.title(submissionId);
      this.items.swap(itemId, { kind: 'collectForm', id: `form:${submissionId}`, title, submissionId, parked: item.view });
      return undefined;
    }
    const item = this.items.find(itemId, 'collectForm');
    if (!item) return 'That form is no longer open.';
    const parked = item.parked;
    if (parked?.app && this.apps?.isOpen(parked.app.appId)) {
      this.items.swap(itemId, { kind: 'result', id: this.items.newResultId(), title: item.title, view: parked });
      return undefined;
    }
    return this.apps?.showForm(item.submissionId, itemId) ?? 'Server apps are not available.';
  }
}
