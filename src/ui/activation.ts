// Activation in three parts — the engine, the panel and what shows things in it, the entrances and commands — and
// the helpers they use (the ledger, the gate's failures, the tree views). extension.ts reads as the table of contents
// that calls them, in that order.
import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Broker } from '../core/base/broker';
import { throttled, type Event } from '../core/base/lifecycle';
import { Door, type CallAsk, type CallAskAnswer, type ResultReview, type ResultReviewAnswer } from '../core/engine/door';
import { Gate } from '../core/engine/gate';
import { FilesEngine } from '../core/files/engine';
import type { Workflow } from '../core/workflow/ledger';
import type { ElicitHandler, SamplingHandler } from '../mcp/connection';
import type { SamplingUser } from '../core/engine/sampling';
import { SamplingRefusal } from '../core/engine/sampling';
import { extensionSampling, type SamplingAsks } from './sampling';
import { SamplingFeature } from './panel/samplingFeature';
import { ServerRegistry } from '../mcp/registry';
import { srtCliPath } from '../mcp/sandbox';
import { openFileLedger, type OpenedLedger } from '../node/fileLedger';
import { nodeCheckpointStore, nodeWorkspaceDisk } from '../node/planFilesPorts';
import { registerAgentEntrance } from './agentEntrance';
import { AppHost } from './appHost';
import { ToolCaller } from './callTool';
import { CollectForms } from './collectForms';
import { runUserHook } from './decisionHooks';
import { exportPlan, registerCommands } from './commands';
import { PanelViewType, Views } from './constants';
import { trackApprovals } from './demo';
import { elicitationHandler } from './elicitation';
import { logRegistry, logWorkflow } from './log';
import { PlanFiles, vscodeFileWatcher, vscodeWorkspaceFolder } from './planFiles';
import { LinkedResources } from './linkedResources';
import { openLink } from './openUrl';
import { AppsFeature } from './panel/appsFeature';
import { CallFormFeature } from './panel/callFormFeature';
import { CardFeature } from './panel/cardFeature';
import { CollectFeature } from './panel/collectFeature';
import { PanelItems } from './panel/panelItems';
import { PanelWebview } from './panel/panelWebview';
import { PlanFeature, planTree } from './panel/planFeature';
import { ResultCardFeature } from './panel/resultCardFeature';
import { PlanPanel } from './planPanel';
import { PlansView } from './plansView';
import { PolicySource } from './policy';
import { PolicyCards } from './policyCards';
import { ApprovalStore } from './approvals';
import { ApprovalsView } from './approvalsView';
import { grantKey } from '../core/apps/appNetwork';
import { RunProgress } from './runProgress';
import { ServerConfigs } from './serverConfigs';
import { ServersView } from './serversView';
import { autoApprovePlans, CachedSettings, gateSettings, ledgerRetention, previewSettings, sandboxSettings } from './settings';
import { oauthSupport, registerSignIn } from './signIn';
import { workspaceRootsSource } from './workspaceRoots';
import { StagedView } from './stagedView';
import { WorkflowStatusBar } from './statusBar';
import { Attention } from './attention';
import { cardWaits, planWaits } from '../core/present/attention';
import { attentionSettings } from './settings';
import { TouchedFiles } from './touchedFiles';

/** The engine: the ledger and its workflow, the servers, the policy, the gate with its one door, the plans' files. */
export interface Engine {
  workflow: Workflow;
  servers: ServerRegistry;
  configs: ServerConfigs;
  policy: PolicySource;
  /** The card's standing approvals (session, workspace). */
  approvals: ApprovalStore;
  gate: Gate;
  files: FilesEngine;
  /** Questions the engine asks that the panel answers once it exists (the single-call card; elicitation forms). */
  asks: EngineAsks;
}

/** The questions the engine asks and the surfaces answer, made before both (core/base/broker.ts). */
export interface EngineAsks {
  /** The door's single-call card: unanswered (no panel), a call the policy asks about is cancelled. */
  calls: Broker<(ask: CallAsk) => Promise<CallAskAnswer>>;
  /** Servers' elicitation requests: unanswered, declined. */
  elicitations: Broker<ElicitHandler>;
  /** Servers' sampling requests (served once the policy and the ledger exist): unanswered, refused. */
  sampling: Broker<SamplingHandler>;
  /** The panel's sampling items (samplingFeature.ts): unanswered, declined. */
  samplingUser: SamplingAsks;
  /** Results a policy rule asks to review (the result card): unanswered, withheld. */
  reviews: Broker<(review: ResultReview) => Promise<ResultReviewAnswer>>;
}

/** Where the extension shows things: the panel and the parts that put items in it. */
export interface Surfaces {
  panel: PlanPanel;
  caller: ToolCaller;
  apps: AppHost;
  /** The tree views' rows, as VS Code asks for them. */
  views: TreeViews;
}

/** The tree views in Plangate's container. */
export interface TreeViews {
  servers: ServersView;
  plans: PlansView;
  staged: StagedView;
  approvals: ApprovalsView;
}

/**
 * Opens the ledger, makes the servers (which answer URL elicitation in a dialog and sign in to servers that ask for
 * OAuth), the policy and the gate; starts nothing. A server's tools or the policy changing resolves (and judges)
 * waiting plans again.
 */
export function startEngine(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Engine {
  const storage = (context.storageUri ?? context.globalStorageUri).fsPath;
  const ledger = openLedger(path.join(storage, 'ledger.jsonl'), log);
  const workflow = ledger.workflow;
  const roots = workspaceRootsSource();
  const asks: EngineAsks = {
    calls: new Broker<(ask: CallAsk) => Promise<CallAskAnswer>>(async () => ({ answer: 'cancelled' })),
    elicitations: new Broker<ElicitHandler>(async () => ({ action: 'decline' })),
    sampling: new Broker<SamplingHandler>(async () => {
      throw new SamplingRefusal('Plangate is still starting');
    }),
    samplingUser: {
      approvals: new Broker<SamplingUser['approve']>(async () => ({ action: 'decline', reason: 'the Plangate panel is not open' })),
      reviews: new Broker<SamplingUser['review']>(async () => ({ action: 'decline', reason: 'the Plangate panel is not open' })),
    },
    reviews: new Broker<(review: ResultReview) => Promise<ResultReviewAnswer>>(async () => 'cancelled'),
  };
  const servers = new ServerRegistry({
    urlElicitation: true,
    roots,
    elicit: asks.elicitations.ask,
    sampling: asks.sampling.ask,
    oauth: oauthSupport(context.secrets),
    sandbox: { srtPath: srtCliPath(__dirname), allowUnsandboxed: () => sandboxSettings().allowUnsandboxed },
  });
  const configs = new ServerConfigs(context.secrets, log);
  // The user settings file beside the extension's global storage (User/globalStorage/<id>): where the user's policy problems show.
  const approvals = new ApprovalStore(context.workspaceState);
  const policy = new PolicySource(servers, log, vscode.Uri.joinPath(context.globalStorageUri, '..', '..', 'settings.json'), approvals);
  // A server's sampling request: the policy's `sampling` entrance, the panel's items, VS Code's models, the ledger.
  context.subscriptions.push(
    asks.sampling.serve(
      extensionSampling({
        asks: asks.samplingUser,
        policy: (call) => policy.verdict(call),
        sandboxed: (server) => servers.get(server)?.sandboxed === true,
        record: (event) => void workflow.dispatch(event),
      }),
    ),
  );
  // In dependency order: the door, then the files engine (its previews go through the door), then the gate (which
  // checkpoints through the files engine before a plan's first step).
  const gateConfig = new CachedSettings(gateSettings);
  context.subscriptions.push(gateConfig);
  const door = new Door(servers, workflow, {
    allowCrossServer: () => gateConfig.get().allowCrossServer,
    newId: randomUUID,
    policy: (call) => policy.verdict(call),
    toolInfo: (server, tool) => servers.get(server)?.tools.find((t) => t.name === tool),
    serverSandboxed: (server) => servers.get(server)?.sandboxed === true,
    serverKey: (server) => {
      const conn = servers.get(server);
      return conn && grantKey(conn.config);
    },
    ask: asks.calls.ask,
    decisionHook: (request) => runUserHook(request, log),
    review: asks.reviews.ask,
  });
  const files = new FilesEngine({
    workflow,
    folder: vscodeWorkspaceFolder,
    disk: nodeWorkspaceDisk(),
    checkpoints: nodeCheckpointStore(storage),
    watcher: vscodeFileWatcher,
    previews: {
      door,
      tool: (server, tool) => servers.get(server)?.tools.find((t) => t.name === tool),
      settings: previewSettings,
      timeoutMs: () => gateConfig.get().stepTimeoutMs,
    },
    log: (level, line) => (level === 'warn' ? log.warn(line) : log.info(line)),
  });
  const gate = new Gate(workflow, {
    invoker: servers,
    door,
    settings: () => gateConfig.get(),
    newId: randomUUID,
    autoApprovePlans,
    beforeRun: (plan) => files.beforeRun(plan),
  });
  context.subscriptions.push(
    log,
    roots,
    ledger,
    workflow,
    configs,
    files,
    gate,
    { dispose: () => void servers.dispose() },
    reportGateFailures(gate, log),
    servers.onLog(logRegistry(log)),
    workflow.onDidChange(logWorkflow(log)),
    servers.onDidChange(() => void gate.refreshResolutions()),
    // After a reload, a step whose call ran as a task is watched again once its server is up and still knows the task.
    servers.onDidChange(() => void gate.resumeTasks()),
    policy,
    approvals,
    policy.onDidChange(() => void gate.refreshResolutions()),
  );
  return { workflow, servers, configs, policy, approvals, gate, files, asks };
}

/**
 * The panel, and what shows things in it: Call Tool and result cards, collect-mode forms, server apps, elicitation,
 * the policy's single-call card (which the door asks through); the status bar, run progress and the tree views.
 */
export function openSurfaces(context: vscode.ExtensionContext, engine: Engine, log: vscode.LogOutputChannel): Surfaces {
  const { workflow, servers, configs, policy, gate, files, asks } = engine;
  const planFiles = new PlanFiles(files);
  // In dependency order: the panel's webview and its items first (what shows things), then what puts things in them
  // (collect forms, server apps, Call Tool, the cards), then the panel with one feature per kind of item.
  const webview = new PanelWebview(context.extensionUri, PanelViewType);
  const items = new PanelItems(context.workspaceState, planTree(gate));
  const collect = new CollectForms(workflow, servers, items, log, {
    door: gate.door,
    newId: randomUUID,
    timeoutMs: () => gateSettings().stepTimeoutMs,
    memento: context.workspaceState,
  });
  const apps = new AppHost({ servers, door: gate.door, panel: appPanel(webview, items), collect, log, state: context.workspaceState });
  const caller = new ToolCaller(servers, gate, items, context.workspaceState, log, collect, apps);
  const cardFeature = new CardFeature(items);
  const samplingFeature = new SamplingFeature(items);
  const reviews = new ResultCardFeature(items, log);
  const forms = new CollectFeature(items, collect, apps);
  const features = {
    plan: new PlanFeature({
      gate,
      items,
      files: planFiles,
      touched: new TouchedFiles(),
      tools: servers,
      calls: caller,
      exportPlan: (planId) => exportPlan(gate, planId),
      appPage: (server, tool) => apps.pageFor(server, tool),
    }),
    callForm: new CallFormFeature(items, caller),
    collect: forms,
    cards: cardFeature,
    apps: new AppsFeature({
      items,
      apps,
      onDidStepResult: gate.onDidStepResult,
      formOpen: (id) => forms.formOpen(id),
      warn: (message) => log.warn(message),
    }),
    sampling: samplingFeature,
    reviews,
  };
  const resources = new LinkedResources(servers, workflow, log);
  const openResource = (server: string, uri: string, name?: string) => resources.open(server, uri, name);
  const panel = new PlanPanel({ webview, items, features, openLink, openResource, log });
  const cards = new PolicyCards(asks.calls, cardFeature, policy, engine.approvals, log);
  const views: TreeViews = {
    servers: new ServersView(servers, configs),
    plans: new PlansView(workflow),
    staged: new StagedView(workflow, servers),
    approvals: new ApprovalsView(engine.approvals, policy, workflow),
  };
  const attention = watchAttention(workflow, items, context.subscriptions);
  context.subscriptions.push(
    asks.elicitations.serve(elicitationHandler(cardFeature, log)),
    asks.samplingUser.approvals.serve((ask, signal) => samplingFeature.approve(ask, signal)),
    asks.samplingUser.reviews.serve((ask, answer, signal) => samplingFeature.review(ask, answer, signal)),
    asks.reviews.serve(reviews.review),
    reviews,
    samplingFeature,
    planFiles,
    apps,
    resources,
    panel,
    features.plan,
    features.apps,
    items,
    webview,
    collect,
    new RunProgress(gate),
    cards,
    attention,
    new WorkflowStatusBar(workflow, waitingCards(cards, reviews, samplingFeature), attention),
    ...Object.values(views),
    ...registerViews(views, attention),
    trackApprovals(workflow),
  );
  return { panel, caller, apps, views };
}

/**
 * What waits for the user — plans (workflow state) and the panel's cards — said while the window is not focused: the
 * status bar and the Plans view's badge read {@link Attention.view}; a new wait gets one notification (unless
 * `plangate.attention.notify` is off) whose **Show** opens it in the panel.
 */
function watchAttention(workflow: Workflow, items: PanelItems, subscriptions: vscode.Disposable[]): Attention {
  // A long run changes the workflow thousands of times: what waits is looked at most ten times a second.
  const workflowChanged = throttled(workflow.onDidChange, 100);
  const attention = new Attention({
    window: {
      get focused() {
        return vscode.window.state.focused;
      },
      onDidChangeFocus: (listener) => vscode.window.onDidChangeWindowState((state) => listener(state.focused)),
    },
    waits: {
      current: () => [
        ...planWaits(workflow.state),
        ...cardWaits(
          items.all.flatMap((item) =>
            item.kind === 'callCard' || item.kind === 'resultCard' || item.kind === 'elicit' || (item.kind === 'sampling' && item.answer)
              ? [{ id: item.id, kind: item.kind, title: item.title }]
              : [],
          ),
        ),
      ],
      onDidChange: (listener) => {
        const subs = [workflowChanged(listener), items.onDidChange(listener)];
        return { dispose: () => subs.forEach((d) => d.dispose()) };
      },
    },
    notify: (text, open) =>
      void vscode.window.showInformationMessage(text, 'Show').then((choice) => {
        if (choice) open();
      }),
    notifyEnabled: () => attentionSettings().notify,
    open: (wait) => {
      if ('plan' in wait.open) return items.showPlan(wait.open.plan, { focus: true });
      const id = wait.open.item;
      if (items.all.some((i) => i.id === id)) items.select(id);
      items.show(true);
    },
  });
  subscriptions.push(workflowChanged);
  return attention;
}

/** The single-call cards, result cards and sampling requests waiting for the user, counted together (the status bar's "awaiting"). */
function waitingCards(
  ...sources: { readonly pending: number; readonly onDidChange?: Event<void>; readonly onDidChangePending?: Event<void> }[]
): { readonly pending: number; readonly onDidChange: Event<void> } {
  return {
    get pending() {
      return sources.reduce((n, s) => n + s.pending, 0);
    },
    onDidChange: (listener) => {
      const subs = sources.flatMap((s) => [s.onDidChange, s.onDidChangePending].flatMap((e) => (e ? [e(listener)] : [])));
      return { dispose: () => subs.forEach((d) => d.dispose()) };
    },
  };
}

/**
 * Commands, sign-in, the agent entrance (gated servers in VS Code's MCP list), and the servers themselves: they
 * start when the configuration is read, after activation returns, never synchronously in it.
 */
export function registerEntrances(
  context: vscode.ExtensionContext,
  engine: Engine,
  surfaces: Surfaces,
  log: vscode.LogOutputChannel,
): void {
  const { servers, configs, gate, files } = engine;
  const { panel, caller, apps } = surfaces;
  context.subscriptions.push(
    ...registerCommands({ gate, registry: servers, configs, panel, caller, apps, log, extensionUri: context.extensionUri }),
    ...registerSignIn(servers, log),
    registerAgentEntrance(context, {
      registry: servers,
      gate,
      caller,
      log,
      changedFiles: async (planId) => (await files.settledChanges(planId))?.map((c) => c.path),
    }),
    configs.onDidChange((snap) => void servers.applyConfig(snap.resolved, { workspaceTrusted: vscode.workspace.isTrusted })),
  );
  void configs.reload();
}

/** Opens the ledger at `file` under the retention settings; its warnings and compaction go to the log. */
export function openLedger(file: string, log: vscode.LogOutputChannel): OpenedLedger {
  const ledger = openFileLedger(file, { retention: ledgerRetention() });
  ledger.warnings.forEach((w) => log.warn(`Ledger: ${w}`));
  const c = ledger.compaction;
  if (c)
    log.info(
      `Ledger: dropped ${c.droppedPlans} finished plan(s) past the plangate.ledger limits (${(c.bytesBefore / 1048576).toFixed(1)} MB → ${(c.bytesAfter / 1048576).toFixed(1)} MB).`,
    );
  return ledger;
}

/** A plan the gate could not carry on with (a failed checkpoint, a run that threw): in the log and in front of the user. */
export function reportGateFailures(gate: Gate, log: vscode.LogOutputChannel): vscode.Disposable {
  return gate.onDidFail(({ planId, message }) => {
    log.error(`Plan ${planId.slice(0, 8)}: ${message}`);
    void vscode.window.showErrorMessage(`Plangate: ${message}`);
  });
}

/** The Servers, Plans and Staged views in Plangate's activity bar container. */
export function registerViews(views: TreeViews, attention?: Pick<Attention, 'view' | 'onDidChange'>): vscode.Disposable[] {
  const plansTree = vscode.window.createTreeView(Views.plans, { treeDataProvider: views.plans });
  // The Plans view's badge (on Plangate's activity bar icon too) counts what waits while the window is not focused.
  const badge = () => {
    const view = attention?.view;
    plansTree.badge = view ? { value: view.count, tooltip: `Plangate: ${view.text}` } : undefined;
  };
  badge();
  return [
    ...(attention ? [attention.onDidChange(badge)] : []),
    vscode.window.createTreeView(Views.servers, { treeDataProvider: views.servers, showCollapseAll: true }),
    plansTree,
    vscode.window.createTreeView(Views.staged, { treeDataProvider: views.staged }),
    // The allows in force, with Revoke and Reset.
    vscode.window.createTreeView(Views.approvals, { treeDataProvider: views.approvals }),
  ];
}

/** What the app host needs of the panel: its webview (the apps' frames and their policy) and its items (results). */
function appPanel(webview: PanelWebview, items: PanelItems): ConstructorParameters<typeof AppHost>[0]['panel'] {
  return {
    get appNonce() {
      return webview.appNonce;
    },
    postApp: (message) => webview.postApp(message),
    setAppNetwork: (granted) => webview.setAppNetwork(granted),
    showResult: (view, options) => items.showResult(view, options),
    selectApp: (appId) => items.selectApp(appId),
    updateApp: (appId, patch) => items.updateApp(appId, patch),
  };
}
