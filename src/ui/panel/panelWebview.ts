/**
 * The panel's webview and its life: made on demand or restored by VS Code's serializer after a reload, loaded with
 * the panel's page (strict CSP, webviewHtml.ts), revealed without taking the focus unless asked, and the transport to
 * it. Knows nothing of what the panel shows: messages from the webview go to {@link onDidReceive}.
 */
import * as vscode from 'vscode';
import { DisposableBase, Emitter } from '../../core/base/lifecycle';
import type { AppCsp } from '../../core/apps/appNetwork';
import type { AppToWebview } from '../../shared/protocol/apps';
import type { FromWebview, ToWebview } from '../../shared/protocol/panel';
import { newAppNonce, panelHtml, panelOptions } from './webviewHtml';

export class PanelWebview extends DisposableBase {
  private panel: vscode.WebviewPanel | undefined;
  private _ready = false;
  /** The nonce server apps' pages carry in this webview load (webviewHtml.ts). */
  private _appNonce = newAppNonce();
  /** The origins server apps may reach (granted by the user), in the panel's policy (webviewHtml.ts). */
  private appNetwork: AppCsp | undefined;

  private readonly _onDidReceive = this._register(new Emitter<FromWebview>());
  /** A message the webview posted. `ready` is handled here first ({@link ready} is true). */
  readonly onDidReceive = this._onDidReceive.event;
  private readonly _onDidLoad = this._register(new Emitter<void>());
  /** The page (re)loads: the next update must be a snapshot, sent once the webview says `ready`. */
  readonly onDidLoad = this._onDidLoad.event;
  private readonly _onDidRestore = this._register(new Emitter<void>());
  /** VS Code brought the panel back after a window reload: the items open then come back. */
  readonly onDidRestore = this._onDidRestore.event;
  private readonly _onDidClose = this._register(new Emitter<void>());
  /** The user closed the panel: what waits for an answer in it is answered `cancel`. */
  readonly onDidClose = this._onDidClose.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    viewType: string,
  ) {
    super();
    this._register(
      vscode.window.registerWebviewPanelSerializer(viewType, {
        deserializeWebviewPanel: async (panel) => this.adopt(panel, true),
      }),
    );
    this.viewType = viewType;
  }

  private readonly viewType: string;

  /** The webview is loaded and listens (it said `ready` in this load). */
  get ready(): boolean {
    return this.panel !== undefined && this._ready;
  }

  /** The nonce app pages must carry to run in the current webview. */
  get appNonce(): string {
    return this._appNonce;
  }

  /** Shows the panel (made when there is none), taking the focus only when `focus`. */
  open(focus: boolean): void {
    if (this.panel) {
      if (!this.panel.visible || focus) this.panel.reveal(undefined, !focus);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      this.viewType,
      'Plangate',
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: !focus },
      panelOptions(this.extensionUri),
    );
    this.adopt(panel, false);
  }

  /** Posts an update or a reply; resolves false when it was not delivered (no loaded webview). */
  post(message: ToWebview): Thenable<boolean> {
    return this.panel?.webview.postMessage(message) ?? Promise.resolve(false);
  }

  /** Posts an app message to the webview; false when there is no loaded webview (it mounts the apps when it loads). */
  postApp(message: AppToWebview): boolean {
    if (!this.ready) return false;
    void this.post(message);
    return true;
  }

  /**
   * Sets the origins server apps may reach; false when they are what they were. The panel's policy cannot be widened in a
   * loaded page, so a change loads the webview afresh: its items come back from the next snapshot, native forms' drafts
   * from the webview's state, and open apps are mounted again (their feature hears `ready`), starting afresh.
   */
  setAppNetwork(granted: AppCsp): boolean {
    if (JSON.stringify(granted) === JSON.stringify(this.appNetwork ?? { connectDomains: [], resourceDomains: [] })) return false;
    this.appNetwork = granted;
    if (this.panel) this.load(this.panel);
    return true;
  }

  private adopt(panel: vscode.WebviewPanel, restored: boolean): void {
    this.panel?.dispose();
    this.panel = panel;
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'plangate.svg');
    panel.webview.options = panelOptions(this.extensionUri);
    this.load(panel);
    if (restored) this._onDidRestore.fire();
    const subs = [
      panel.webview.onDidReceiveMessage((m: FromWebview) => {
        if (this.panel !== panel) return;
        if (m?.type === 'ready') this._ready = true;
        this._onDidReceive.fire(m);
      }),
      panel.onDidDispose(() => {
        subs.forEach((d) => d.dispose());
        if (this.panel !== panel) return;
        this.panel = undefined;
        this._ready = false;
        this._onDidLoad.fire();
        this._onDidClose.fire();
      }),
    ];
  }

  /** Loads the webview's page (again): it says `ready` when it listens, and gets a snapshot. */
  private load(panel: vscode.WebviewPanel): void {
    this._ready = false;
    this._onDidLoad.fire();
    this._appNonce = newAppNonce();
    panel.webview.html = panelHtml(panel.webview, this.extensionUri, this._appNonce, this.appNetwork);
  }

  override dispose(): void {
    this.panel?.dispose();
    super.dispose();
  }
}
