import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Gate } from './core/gate';
import { ServerRegistry } from './mcp/registry';
import { openLedger, registerViews, reportGateFailures } from './ui/activation';
import { registerAgentEntrance } from './ui/agentEntrance';
import type { PlangateApi } from './ui/api';
import { ToolCaller } from './ui/callTool';
import { AppHost } from './ui/appHost';
import { CollectForms } from './ui/collectForms';
import { exportPlan, registerCommands } from './ui/commands';
import { trackApprovals } from './ui/demo';
import { elicitationHandler } from './ui/elicitation';
import { logRegistry, logWorkflow } from './ui/log';
import { PlanFiles } from './ui/planFiles';
import { PlanPanel } from './ui/planPanel';
import { PolicySource } from './ui/policy';
import { PolicyCards } from './ui/policyCards';
import { RunProgress } from './ui/runProgress';
import { ServerConfigs } from './ui/serverConfigs';
import { oauthSupport, registerSignIn } from './ui/signIn';
import { autoApprovePlans, gateSettings } from './ui/settings';
import { WorkflowStatusBar } from './ui/statusBar';
import { registerTestHook } from './ui/testHook';
import { TouchedFiles } from './ui/touchedFiles';

let registry: ServerRegistry | undefined;

export function activate(context: vscode.ExtensionContext): PlangateApi {
  const subs = context.subscriptions;
  const log = vscode.window.createOutputChannel('Plangate', { log: true });
  const storage = (context.storageUri ?? context.globalStorageUri).fsPath;
  const stepTimeoutMs = () => gateSettings().stepTimeoutMs;

  // The engine: the ledger and its workflow, the servers, the gate with its one door, the checkpoint of touched files.
  const ledger = openLedger(path.join(storage, 'ledger.jsonl'), log);
  const workflow = ledger.workflow;
  // The extension answers URL elicitation in a dialog, and signs in to servers that ask for OAuth.
  const servers = (registry = new ServerRegistry({ urlElicitation: true, oauth: oauthSupport(context.secrets) }));
  const configs = new ServerConfigs(context.secrets, log);
  // The policy (allow / ask / deny by rule) sits in the door; its single-call card lives in the panel, made below.
  // The user settings file beside the extension's global storage (User/globalStorage/<id>): where the user's policy problems show.
  const policy = new PolicySource(servers, log, vscode.Uri.joinPath(context.globalStorageUri, '..', '..', 'settings.json'));
  const card: { ask?: PolicyCards['ask'] } = {};
  const gate = new Gate(workflow, {
    invoker: servers,
    settings: gateSettings,
    newId: randomUUID,
    policy: {
      policy: (call) => policy.verdict(call),
      toolInfo: (server, tool) => servers.get(server)?.tools.find((t) => t.name === tool),
      ask: (ask) => card.ask?.(ask) ?? Promise.resolve({ answer: 'cancelled' }),
    },
    autoApprovePlans,
  });
  const files = new PlanFiles(storage, servers, workflow, log, stepTimeoutMs, gate.door);
  gate.checkpointWith((plan) => files.beforeRun(plan));
  subs.push(
    log,
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
    policy,
    policy.onDidChange(() => void gate.refreshResolutions()),
  ); // a server's tools or the policy changed: waiting plans are resolved (and judged) again

  // The panel, and what shows things in it: Call Tool and result cards, collect-mode forms, elicitation.
  const panel = new PlanPanel(context.extensionUri, context.workspaceState, {
    gate,
    files,
    touched: new TouchedFiles(),
    tools: servers,
    log,
  });
  const collect = new CollectForms(workflow, servers, panel, log, {
    door: gate.door,
    newId: randomUUID,
    timeoutMs: stepTimeoutMs,
    memento: context.workspaceState,
  });
  const apps = new AppHost({ servers, door: gate.door, panel, collect, log });
  context.subscriptions.push(apps);
  const caller = new ToolCaller(servers, gate, panel, context.workspaceState, log, collect, apps);
  panel.connect({ calls: caller, collect, apps, exportPlan: (planId) => exportPlan(gate, planId) });
  servers.onElicit = elicitationHandler(panel);
  const cards = new PolicyCards(panel, policy, log);
  card.ask = cards.ask;
  subs.push(
    panel,
    collect,
    new RunProgress(gate),
    cards,
    new WorkflowStatusBar(workflow, cards),
    ...registerViews(servers, configs, workflow),
    trackApprovals(workflow),
  );

  // Commands, the agent entrance (gated servers in VS Code's MCP list), and the servers: they start after activation
  // returns, never synchronously in it.
  subs.push(
    ...registerCommands({ gate, registry: servers, configs, panel, caller, log, extensionUri: context.extensionUri }),
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

  const api: PlangateApi = { workflow, gate, registry: servers, configs, panel, caller, policy };
  const hook = registerTestHook(context, api);
  if (hook) subs.push(hook);
  return api;
}

export async function deactivate(): Promise<void> {
  await registry?.dispose();
}
