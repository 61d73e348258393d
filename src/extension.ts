import * as vscode from 'vscode';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { Gate } from './core/gate';
import { ServerRegistry } from './mcp/registry';
import { openFileLedger } from './node/fileLedger';
import type { PlangateApi } from './ui/api';
import { ToolCaller } from './ui/callTool';
import { exportPlan, registerCommands } from './ui/commands';
import { registerAgentEntrance } from './ui/agentEntrance';
import { trackApprovals } from './ui/demo';
import { Views } from './ui/constants';
import { elicitationHandler } from './ui/elicitation';
import { followUpYes } from './ui/followUp';
import { logRegistry, logWorkflow } from './ui/log';
import { gateSettings, ledgerRetention } from './ui/settings';
import { PlanFiles } from './ui/planFiles';
import { PlanPanel } from './ui/planPanel';
import { PlansView } from './ui/plansView';
import { RunProgress } from './ui/runProgress';
import { ServerConfigs } from './ui/serverConfigs';
import { ServersView } from './ui/serversView';
import { StagedView } from './ui/stagedView';
import { CollectForms } from './ui/collectForms';
import { WorkflowStatusBar } from './ui/statusBar';
import { registerTestHook } from './ui/testHook';
import { TouchedFiles } from './ui/touchedFiles';
import { validateArgs } from './mcp/validateArgs';

let registry: ServerRegistry | undefined;

export function activate(context: vscode.ExtensionContext): PlangateApi {
  const subs = context.subscriptions;
  const log = vscode.window.createOutputChannel('Plangate', { log: true });
  subs.push(log);

  const storage = (context.storageUri ?? context.globalStorageUri).fsPath;
  const ledger = openFileLedger(path.join(storage, 'ledger.jsonl'), { retention: ledgerRetention() });
  ledger.warnings.forEach((w) => log.warn(`Ledger: ${w}`));
  if (ledger.compaction) log.info(`Ledger: dropped ${ledger.compaction.droppedPlans} finished plan(s) past the plangate.ledger limits (${(ledger.compaction.bytesBefore / 1048576).toFixed(1)} MB → ${(ledger.compaction.bytesAfter / 1048576).toFixed(1)} MB).`);
  const workflow = ledger.workflow;
  registry = new ServerRegistry({ urlElicitation: true }); // the extension answers URL requests in a dialog
  subs.push(registry.onLog(logRegistry(log)), workflow.onDidChange(logWorkflow(log)));
  const configs = new ServerConfigs(context.secrets, log);
  const files: PlanFiles = new PlanFiles(storage, registry, workflow, log, () => gateSettings().stepTimeoutMs, () => gate.door);
  const gate = new Gate(workflow, { invoker: registry, settings: gateSettings, newId: randomUUID, beforeRun: (plan) => files.beforeRun(plan) });
  subs.push(gate.onDidFail(({ planId, message }) => {
    log.error(`Plan ${planId.slice(0, 8)}: ${message}`);
    void vscode.window.showErrorMessage(`Plangate: ${message}`);
  }));
  // A server's tools changed: plans awaiting approval are resolved again (the panel shows where each step runs now).
  subs.push(registry.onDidChange(() => void gate.refreshResolutions()));
  subs.push(ledger, workflow, configs, files, gate, { dispose: () => void registry?.dispose() });

  // The caller and the panel need each other: the caller shows results in the panel, the panel's forms call tools.
  const caller: ToolCaller = new ToolCaller(registry, gate, () => panel, context.workspaceState, log, () => collect);
  const collect: CollectForms = new CollectForms(workflow, registry, () => panel, log, { door: gate.door, newId: randomUUID, timeoutMs: () => gateSettings().stepTimeoutMs, memento: context.workspaceState });
  const panel: PlanPanel = new PlanPanel(context.extensionUri, context.workspaceState, {
    gate, log, files, touched: new TouchedFiles(),
    toolAnnotations: (tool, preferred) => registry?.findTool(tool, preferred)?.tool.annotations,
    onDidChangeServers: (listener) => registry?.onDidChange(listener) ?? { dispose: () => undefined },
    validateArgs: (server, tool, args) => validateArgs(tool, registry?.get(server ?? '')?.tools.find((t) => t.name === tool)?.inputSchema, args),
    callFromForm: (server, tool, args) => caller.call(server, tool, args),
    cancelCall: (server, tool) => caller.cancel(server, tool),
    showReceived: (...a) => caller.show(...a),
    exportPlan: (planId) => exportPlan(gate, planId),
    followUpYes: (planId) => followUpYes(gate, caller, planId),
    collect,
  });
  registry.onElicit = elicitationHandler(() => panel);
  subs.push(panel, collect, new RunProgress(gate), new WorkflowStatusBar(workflow));

  const serversView = new ServersView(registry, configs);
  const plansView = new PlansView(workflow);
  const stagedView = new StagedView(workflow, registry);
  subs.push(serversView, plansView, stagedView,
    vscode.window.createTreeView(Views.servers, { treeDataProvider: serversView, showCollapseAll: true }),
    vscode.window.createTreeView(Views.plans, { treeDataProvider: plansView }),
    vscode.window.createTreeView(Views.staged, { treeDataProvider: stagedView }));

  subs.push(...registerCommands({ gate, registry, configs, panel, caller, log, extensionUri: context.extensionUri }), trackApprovals(workflow));
  subs.push(configs.onDidChange((snap) => void registry?.applyConfig(snap.resolved, { workspaceTrusted: vscode.workspace.isTrusted })));
  void configs.reload(); // servers start after activation returns, never synchronously in it
  subs.push(registerAgentEntrance(context, { registry, gate, caller, log, changedFiles: async (planId) => (await files.settledChanges(planId))?.map((c) => c.path) })); // agent entrance: gated servers for VS Code's MCP list

  const api: PlangateApi = { workflow, gate, registry, configs, panel, caller };
  const hook = registerTestHook(context, api);
  if (hook) subs.push(hook);
  return api;
}

export async function deactivate(): Promise<void> {
  await registry?.dispose();
}
