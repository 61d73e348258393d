/**
 * The Call Tool form feature of the panel: a form generated from a tool's input schema (its item holds the view the
 * caller made) and its two intents, Call and Cancel, which go to the caller (ui/callTool.ts).
 */
import type { PanelItem } from '../../shared/protocol/panel';
import type { IntentTable, PanelFeature } from './panelFeature';
import type { ItemModel, PanelItems } from './panelItems';

/** Where the form's calls go. */
export interface FormCalls {
  /** Calls a tool from the Call Tool form; routes the result (plan, form, or result card). */
  call(request: { server: string; tool: string; args: Record<string, unknown> }): Promise<void>;
  /** Cancels the Call Tool form's call of `tool` on `server`, if one is in flight. */
  cancel(server: string, tool: string): void;
}

export class CallFormFeature implements PanelFeature {
  readonly kinds = ['callForm'] as const;

  constructor(
    private readonly items: PanelItems,
    private readonly calls: FormCalls,
  ) {}

  summary(item: ItemModel): { title: string } | undefined {
    return this.kinds.some((k) => k === item.kind) ? { title: (item as { title: string }).title } : undefined;
  }

  present(item: ItemModel): PanelItem | undefined {
    return item.kind === 'callForm' ? { kind: 'callForm', id: item.id, title: item.title, view: item.view } : undefined;
  }

  readonly intents = {
    callTool: async (m) => {
      const item = this.items.find(m.itemId, 'callForm');
      if (!item) return 'That form is closed.';
      await this.calls.call({ server: item.view.server, tool: item.view.tool, args: m.args });
    },
    cancelCall: (m) => {
      const item = this.items.find(m.itemId, 'callForm');
      if (item) this.calls.cancel(item.view.server, item.view.tool);
    },
  } satisfies Partial<IntentTable>;
}
