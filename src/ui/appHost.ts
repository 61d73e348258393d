import * as vscode from 'vscode';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { appResourceUri, type AppToolLike } from '../core/apps/appTool';
import { checkAppResource, isAppRefusal } from '../core/apps/appResource';
import {
  allGranted,
  grantKey,
  networkView,
  originsOf,
  readGrants,
  serverOfKey,
  ungrantedPart,
  withGrant,
  type AppCsp,
  type AppCspRefusal,
  type NetworkGrants,
  type ServerIdentity,
} from '../core/apps/appNetwork';
import type { Door } from '../core/engine/door';
import type { StepResult } from '../core/engine/runner';
import type { ToolResult } from '../core/base/toolResult';
import { AppSession } from '../mcp/appSession';
import type { AppToWebview } from '../shared/protocol/apps';
import type { FromWebview } from '../shared/protocol/panel';
import type { ResultView } from '../shared/protocol/results';
import type { PanelApps } from './panel/appsFeature';
import { confirmAndOpenUrl } from './openUrl';
import { appSettings } from './settings';

/** Where the app host reads pages and tools, sends calls, and shows results. */
export interface AppHostDeps {
  servers: {
    get(server: string):
      | {
          tools: readonly AppToolLike[];
          readResource(uri: string): Promise<{ read: unknown; listMeta?: unknown }>;
          /** How the server is reached now: its grants are kept under it (appNetwork.ts `grantKey`). */
          config: ServerIdentity;
        }
      | undefined;
    /** Fires when servers start, stop or change their tools (a restored app waits for its server). */
    onDidChange?: (listener: () => void) => { dispose(): void };
  };
  /** Where an app's calls go: the policy asks on the single-call card (an app's calls by default), refuses or sends. */
  door: Pick<Door, 'call'>;
  panel: {
    readonly appNonce: string;
    postApp(message: AppToWebview): boolean;
    showResult(view: ResultView, options?: { focus?: boolean; title?: string; replace?: string }): void;
    /** Shows the item of app `appId` again; false when no item shows it any more. */
    selectApp(appId: string): boolean;
    /**
     * Sets the origins apps may reach in the panel's policy: a change reloads the webview (open apps mount again);
     * false when the policy stays as it was.
     */
    setAppNetwork(granted: AppCsp): boolean;
    /** Changes the view of app `appId`'s item (its network notice). */
    updateApp(appId: string, patch: Partial<ResultView>): void;
  };
  /** Workspace state: where the user's network grants to servers' apps are kept. */
  state: vscode.Memento;
  /**
   * Collect mode: stages a submission with the fields a form app collected, recorded as the app's doing (entrance
   * `app`, asked as an app's calls are); the error, if any.
   */
  collect?: {
    stageFromApp(submissionId: string, fields: Record<string, unknown>, app: string): Promise<string | undefined>;
    /** A submission's form tool call and result, with the user's values as defaults (collectForms.ts `formFor`). */
    formFor(
      submissionId: string,
    ): { server: string; tool: string; args: Record<string, unknown>; title: string; result: ToolResult } | undefined;
  };
  log: vscode.LogOutputChannel;
}

interface LiveApp {
  appId: string;
  server: string;
  /** The server as it was when its page was read: its grants' key (appNetwork.ts `grantKey`). */
  grantKey: string;
  tool: AppToolLike;
  uri: string;
  args: Record<string, unknown>;
  result: ToolResult;
  read: unknown;
  listMeta?: unknown;
  /** The collect-mode submission a form app fills (its `collect_form_data` stages it). */
  submissionId?: string;
  /** The session of the current mount; made when the frame reports its theme (before the app can speak). */
  session?: AppSession;
  /** Aborted when the app closes: a card still waiting for one of its calls is withdrawn, the call not sent. */
  closing: AbortController;
  /** The network origins its page declared (checked), and what of its request Plangate refuses. */
  declared: AppCsp;
  refused: AppCspRefusal[];
  /** The user pressed Keep blocked on its notice. */
  kept?: boolean;
}

/**
 * Workspace state key of the network grants (server identity → origins). A new key: grants kept by server name alone
 * (before 0.2) are not carried over (readGrants drops them); the user allows again.
 */
const GRANTS_KEY = 'plangate.apps.networkGrants';

/**
 * Hosts server apps (MCP Apps) in the plan panel. A plain result of a tool whose definition carries a `ui://` page shows
 * that page (read from the same server, checked by core/apps/appResource.ts) in a sandboxed iframe below its result
 * card. Each mount has an {@link AppSession} (src/mcp/appSession.ts) that decides the app's requests; this class gives
 * it VS Code: the door (entrance `app`: the policy's card asks, the ledger records), links, the chat input and the log.
 */
export class AppHost implements PanelApps {
  private readonly apps = new Map<string, LiveApp>();
  private seq = 0;
  /**
   * The results of plan steps whose tools have apps, by `planId:step`, newest last (at most {@link MAX_STEP_RESULTS}):
   * the workflow keeps a step's result only as a summary, and Open app needs the result itself.
   */
  private readonly stepResults = new Map<string, StepResult>();
  /** The app opened for a step, by `planId:step`: Open app again shows it instead of a second one. */
  private readonly stepApps = new Map<string, string>();

  /** The origins the user let each server's apps reach (workspace state). */
  private grants: NetworkGrants;

  constructor(private readonly deps: AppHostDeps) {
    this.grants = readGrants(deps.state.get(GRANTS_KEY));
    deps.panel.setAppNetwork(allGranted(this.grants));
  }

  /**
   * The `ui://` page of `tool` on `server`, when the tool carries one and the user wants it shown: server apps are on
   * (`plangate.serverApps.enabled`) and, for a result Plangate can show as a native form (`form`), the user prefers
   * the server's app (`plangate.preferServerApps`).
   */
  pageFor(server: string, tool: string, options: { form?: boolean } = {}): string | undefined {
    const apps = appSettings();
    if (!apps.enabled) return undefined;
    if (options.form && !apps.preferForForms) return undefined;
    return appResourceUri(this.deps.servers.get(server)?.tools.find((t) => t.name === tool));
  }

  /**
   * Shows `view` (a plain result of a tool with a page) with its app; when the page cannot be shown, the plain result
   * card with a note saying why.
   */
  async show(
    view: ResultView & { result: ToolResult },
    uri: string,
    options: {
      focus?: boolean;
      /** The collect-mode submission this form app fills: its `collect_form_data` stages it for review. */
      submissionId?: string;
      /** What to show instead when the page cannot be shown (the native form); default: the plain result card. */
      fallback?: (note: string) => void;
      /** The item's title in the switcher (default: "<tool> result"). */
      title?: string;
      /** The panel item the app takes the place of (Plangate's form of the same submission). */
      replace?: string;
    } = {},
  ): Promise<string | undefined> {
    const conn = this.deps.servers.get(view.server);
    const tool = conn?.tools.find((t) => t.name === view.tool);
    const why = (message: string) => {
      const note = `The server’s app (${uri}) is not shown: ${message}.`;
      this.deps.log.warn(`app ${uri} of server '${view.server}' not shown: ${message}`);
      if (options.fallback) options.fallback(note);
      else this.deps.panel.showResult({ ...view, appNote: note }, { focus: options.focus, title: options.title });
      return undefined;
    };
    if (!conn || !tool) return why('the server is no longer running');
    const key = grantKey(conn.config);
    let read: { read: unknown; listMeta?: unknown };
    try {
      read = await conn.readResource(uri);
    } catch (err) {
      return why(`reading it failed (${err instanceof Error ? err.message : String(err)})`);
    }
    const page = checkAppResource(uri, read.read, this.deps.panel.appNonce, {
      listMeta: read.listMeta,
      granted: this.grants[key],
    });
    if (isAppRefusal(page)) return why(page.message);
    const appId = `app-${++this.seq}-${Math.random().toString(36).slice(2, 8)}`;
    const app: LiveApp = {
      appId,
      server: view.server,
      grantKey: key,
      tool,
      uri,
      args: view.args,
      result: view.result,
      closing: new AbortController(),
      declared: page.declared,
      refused: page.refused,
      ...read,
    };
    if (options.submissionId) app.submissionId = options.submissionId;
    this.apps.set(appId, app);
    this.deps.log.info(`app ${uri} of server '${view.server}' shown for ${view.tool} (${appId})`);
    if (page.refused.length)
      this.deps.log.warn(
        `app ${uri} of server '${view.server}': refused from its declared policy: ${page.refused.map((r) => `${r.value} (${r.why})`).join('; ')}`,
      );
    const network = this.networkOf(app);
    this.deps.panel.showResult(
      {
        ...view,
        app: { appId, uri },
        ...(options.submissionId ? { formOf: options.submissionId } : {}),
        ...(network ? { network } : {}),
      },
      { focus: options.focus, title: options.title, replace: options.replace },
    );
    this.mount(app);
    return appId;
  }

  /**
   * After a window reload: shows again, in item `replace`, the app a result item showed before — its page read afresh
   * from its server, the tool's input and result replayed as the spec's host lifecycle has it (a new `ui/initialize`,
   * then tool-input and tool-result). With `waitMs`, waits that long for the server to list the tool (servers start
   * after the window). The reason in words when it cannot be shown (the item keeps its Reopen app), or undefined.
   */
  async reopen(
    view: ResultView & { result: ToolResult },
    uri: string,
    options: { replace: string; title: string; submissionId?: string; focus: boolean; waitMs?: number },
  ): Promise<string | undefined> {
    if (options.waitMs) await this.whenListed(view.server, view.tool, options.waitMs);
    let failed: string | undefined;
    await this.show({ ...view, reopen: undefined }, uri, {
      focus: options.focus,
      title: options.title,
      replace: options.replace,
      submissionId: options.submissionId,
      fallback: (note) => (failed = note),
    });
    return failed;
  }

  /** Resolves once server `server` lists `tool`, or after `ms`. */
  private whenListed(server: string, tool: string, ms: number): Promise<void> {
    const listed = () => this.deps.servers.get(server)?.tools.some((t) => t.name === tool) === true;
    const onDidChange = this.deps.servers.onDidChange;
    if (listed() || !onDidChange) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      };
      const timer = setTimeout(done, ms);
      const sub = onDidChange(() => {
        if (listed()) done();
      });
    });
  }

  /** Whether app `appId` is open (shown, or kept hidden while Plangate's form of its submission is shown). */
  isOpen(appId: string): boolean {
    return this.apps.has(appId);
  }

  /**
   * The toggle on Plangate's form of a submission: shows the server's form app instead, in item `replace`, with the
   * values so far as the form's defaults. The error in words (the native form stays), or undefined.
   */
  async showForm(submissionId: string, replace: string): Promise<string | undefined> {
    const form = this.deps.collect?.formFor(submissionId);
    if (!form) return 'That form is no longer open.';
    const uri = appSettings().enabled
      ? appResourceUri(this.deps.servers.get(form.server)?.tools.find((t) => t.name === form.tool))
      : undefined;
    if (!uri) return `Server '${form.server}' offers no app for ${form.tool} now (or plangate.serverApps.enabled is off).`;
    let failed: string | undefined;
    await this.show({ server: form.server, tool: form.tool, args: form.args, result: form.result }, uri, {
      focus: true,
      submissionId,
      title: form.title,
      replace,
      fallback: (note) => (failed = note),
    });
    return failed;
  }

  /** A plan step succeeded (gate.ts `onDidStepResult`): its result is kept when its tool has an app, for Open app. */
  stepResult(step: StepResult): void {
    // Every step of every plan passes here: the tool's own page first (cheap), the settings only at Open app.
    if (!appResourceUri(this.deps.servers.get(step.server)?.tools.find((t) => t.name === step.tool))) return;
    const key = `${step.planId}:${step.step}`;
    this.stepResults.delete(key);
    this.stepResults.set(key, step);
    for (const old of [...this.stepResults.keys()].slice(0, Math.max(0, this.stepResults.size - MAX_STEP_RESULTS)))
      this.stepResults.delete(old);
  }

  /**
   * Open app on a plan step: shows the step's app with its input and result as a panel item of its own (the one already
   * open for it, if any). The error in words, or undefined.
   */
  async openStep(planId: string, step: number): Promise<string | undefined> {
    const key = `${planId}:${step}`;
    const open = this.stepApps.get(key);
    if (open && this.apps.has(open) && this.deps.panel.selectApp(open)) return undefined;
    const held = this.stepResults.get(key);
    if (!held)
      return `Plangate no longer holds the result of step ${step + 1} (it keeps the last ${MAX_STEP_RESULTS} results of steps with apps), so its app cannot be shown.`;
    const uri = this.pageFor(held.server, held.tool);
    if (!uri) return `Tool '${held.tool}' of server '${held.server}' no longer carries an app, or server apps are off.`;
    const appId = await this.show({ server: held.server, tool: held.tool, args: held.args, result: held.result }, uri, {
      focus: true,
      title: `${held.tool} · step ${step + 1}`,
    });
    if (appId) this.stepApps.set(key, appId);
    return undefined;
  }

  /**
   * The network notice of app `appId` answered. Allow grants the app's server the origins its page asked for (kept in
   * workspace state, logged), and the panel loads again with them in its policy; Keep blocked leaves them blocked.
   */
  async answerNetwork(appId: string, allow: boolean): Promise<string | undefined> {
    const app = this.apps.get(appId);
    if (!app) return 'That app is no longer open.';
    const asked = ungrantedPart(app.declared, this.grants[app.grantKey]);
    if (!originsOf(asked).length) return undefined;
    if (!allow) {
      app.kept = true;
      this.deps.log.info(`app ${app.uri} of server '${app.server}': network kept blocked (${originsOf(asked).join(' ')})`);
      this.deps.panel.updateApp(appId, { network: this.networkOf(app) });
      return undefined;
    }
    app.kept = false;
    this.grants = withGrant(this.grants, app.grantKey, asked);
    await this.deps.state.update(GRANTS_KEY, this.grants);
    this.deps.log.info(
      `network: server '${app.server}' allowed to reach ${originsOf(asked).join(' ')} from its apps (asked by ${app.uri}; Plangate: Reset Server App Network Access forgets it)`,
    );
    this.networkChanged(app.grantKey);
    return undefined;
  }

  /** Plangate: Reset Server App Network Access — forgets every grant; open apps lose their network at once. */
  async resetNetwork(): Promise<void> {
    const had = [...new Set(Object.keys(this.grants).map(serverOfKey))];
    this.grants = {};
    await this.deps.state.update(GRANTS_KEY, undefined);
    this.deps.log.info(`network: every server app network grant forgotten${had.length ? ` (servers: ${had.join(', ')})` : ''}`);
    this.networkChanged();
  }

  /**
   * The grants changed (under `key`, or all): every open app's notice says so, and the panel loads again with the new
   * policy. When the panel's policy already held them (another server's grant), the apps of that server mount again,
   * with the grant in their page's own policy.
   */
  private networkChanged(key?: string): void {
    for (const app of this.apps.values()) this.deps.panel.updateApp(app.appId, { network: this.networkOf(app) });
    if (this.deps.panel.setAppNetwork(allGranted(this.grants))) return;
    for (const app of this.apps.values()) if (key === undefined || app.grantKey === key) this.mount(app);
  }

  private networkOf(app: LiveApp) {
    return networkView(app.server, app.declared, app.refused, this.grants[app.grantKey], app.kept);
  }

  /** How many apps are open. */
  get size(): number {
    return this.apps.size;
  }

  webviewReady(): void {
    for (const app of this.apps.values()) this.mount(app);
  }

  fromWebview(message: Extract<FromWebview, { type: 'appMessage' | 'appTheme' }>): void {
    const app = this.apps.get(message.appId);
    if (!app) return;
    if (message.type === 'appMessage') {
      app.session?.deliver(message.message);
      return;
    }
    const theme: Partial<McpUiHostContext> = {
      theme: message.theme === 'light' ? 'light' : 'dark',
      styles: { variables: sanitizeVariables(message.variables) as NonNullable<McpUiHostContext['styles']>['variables'] },
    };
    if (app.session) app.session.updateContext(theme);
    else app.session = this.startSession(app, theme);
  }

  async closed(appId: string): Promise<void> {
    const app = this.apps.get(appId);
    if (!app) return;
    this.apps.delete(appId);
    for (const [key, id] of this.stepApps) if (id === appId) this.stepApps.delete(key);
    app.closing.abort();
    await app.session?.teardown();
    this.deps.panel.postApp({ type: 'appUnmount', appId });
    this.deps.log.info(`app ${app.uri} of server '${app.server}' closed (${appId})`);
  }

  dispose(): void {
    for (const appId of [...this.apps.keys()]) void this.closed(appId);
  }

  /** Sends the page (with the current webview's nonce) to the webview; a new mount starts a new session. */
  private mount(app: LiveApp): void {
    void app.session?.close();
    app.session = undefined;
    const page = checkAppResource(app.uri, app.read, this.deps.panel.appNonce, {
      listMeta: app.listMeta,
      granted: this.grants[app.grantKey],
    });
    if (isAppRefusal(page)) return;
    this.deps.panel.postApp({
      type: 'appMount',
      appId: app.appId,
      html: page.html,
      title: `App of server ${app.server}: ${app.tool.name}`,
    });
  }

  private async stageFromApp(app: LiveApp, args: Record<string, unknown>): Promise<ToolResult> {
    const fields = args.fields;
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return stagedResult('the app sent no fields');
    this.deps.log.info(`app ${app.uri} of server '${app.server}' collected its form: staging submission ${app.submissionId}`);
    return stagedResult(await this.deps.collect!.stageFromApp(app.submissionId!, fields as Record<string, unknown>, app.uri));
  }

  private startSession(app: LiveApp, theme: Partial<McpUiHostContext>): AppSession {
    const { log, door, servers, panel } = this.deps;
    return new AppSession(
      {
        server: app.server,
        uri: app.uri,
        tool: app.tool,
        args: app.args,
        result: app.result,
        hostContext: {
          ...theme,
          toolInfo: { tool: app.tool as never },
          displayMode: 'inline',
          availableDisplayModes: ['inline'],
          platform: 'desktop',
          locale: vscode.env.language,
          timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
          containerDimensions: { maxHeight: 4000 },
        },
      },
      {
        post: (message) => void panel.postApp({ type: 'appPost', appId: app.appId, message }),
        tools: () => servers.get(app.server)?.tools ?? [],
        // A form app's Done in collect mode: the submission is staged for review through the collect engine (which
        // sends collect_form_data and get_form_data through the door), and nothing is created until Submit.
        stage:
          app.submissionId && this.deps.collect
            ? (tool, args) => (tool === 'collect_form_data' ? this.stageFromApp(app, args) : undefined)
            : undefined,
        // Closing the app withdraws a card still waiting for its call.
        call: (tool, args) =>
          door.call(
            { server: app.server, tool, args, entrance: 'app', decision: { by: 'app', what: `the app ${app.uri} asked for it` } },
            { signal: app.closing.signal },
          ),
        openLink: (url) =>
          confirmAndOpenUrl(
            url.href,
            `The app of server '${app.server}' wants to open a link.`,
            `link the app of server '${app.server}' asked for`,
            log,
          ),
        putInChat: async (text) => {
          try {
            // isPartialQuery: the text waits in the input for the user to send or change; nothing is sent for them.
            await vscode.commands.executeCommand('workbench.action.chat.open', { query: text, isPartialQuery: true });
          } catch {
            await vscode.env.clipboard.writeText(text);
            void vscode.window.showInformationMessage(
              `The app of server '${app.server}' wrote a message for the chat; there is no chat here, so it is on the clipboard.`,
            );
          }
          return true;
        },
        log: (level, text) => log[level](text),
      },
    );
  }
}

/** How many plan steps' results Plangate keeps for Open app. */
export const MAX_STEP_RESULTS = 50;

/** Wraps the collect engine's answer to a form app's `collect_form_data` as the tool result the app expects. */
function stagedResult(error: string | undefined): ToolResult {
  return error
    ? { content: [{ type: 'text', text: `Not staged: ${error}` }], isError: true }
    : { content: [{ type: 'text', text: JSON.stringify({ ok: true, message: 'Staged for review in Plangate (the Staged view).' }) }] };
}

/** Style variables from the webview: known shapes only, plain values (no `;`, braces or `url(`), clipped. */
function sanitizeVariables(input: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof input !== 'object' || input === null) return out;
  for (const [k, v] of Object.entries(input)) {
    if (/^--[a-z0-9-]{1,60}$/.test(k) && typeof v === 'string' && v.length <= 300 && !/[;{}]|url\(/i.test(v)) out[k] = v;
  }
  return out;
}
