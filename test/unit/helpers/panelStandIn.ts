// The panel's parts without VS Code (they import no `vscode`): a stand-in webview that keeps what is posted to it and
// lets a test send intents and loads, and open items kept in a memory memento. Used by the panel host tests.
import { Emitter } from '../../../src/core/base/lifecycle';
import type { FromWebview, ToWebview } from '../../../src/shared/protocol/panel';
import { PanelItems } from '../../../src/ui/panel/panelItems';
import type { PanelWebview } from '../../../src/ui/panel/panelWebview';

export function standInPanel() {
  const received = new Emitter<FromWebview>();
  const load = new Emitter<void>();
  const none = new Emitter<void>();
  const posted: ToWebview[] = [];
  const webview = {
    ready: true,
    post: (m: ToWebview) => {
      posted.push(m);
      return Promise.resolve(true);
    },
    open: () => {},
    onDidReceive: received.event,
    onDidLoad: load.event,
    onDidRestore: none.event,
    onDidClose: none.event,
  } as unknown as PanelWebview;
  const memento = new Map<string, unknown>();
  const items = new PanelItems(
    {
      get: (k: string, d?: unknown) => memento.get(k) ?? d,
      update: async (k: string, v: unknown) => void memento.set(k, v),
      keys: () => [],
    } as never,
    { rootOf: (id) => id, finished: () => false, resolution: () => undefined },
  );
  return { received, load, posted, webview, items };
}
