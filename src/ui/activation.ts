// The parts of activation that are more than one line: opening the ledger (with what it says in the log), reporting
// the gate's failures, and the three tree views. extension.ts reads as the table of contents that calls them.
import * as vscode from 'vscode';
import type { Gate } from '../core/gate';
import type { Workflow } from '../core/ledger';
import type { ServerRegistry } from '../mcp/registry';
import { openFileLedger, type OpenedLedger } from '../node/fileLedger';
import { Views } from './constants';
import { PlansView } from './plansView';
import type { ServerConfigs } from './serverConfigs';
import { ServersView } from './serversView';
import { ledgerRetention } from './settings';
import { StagedView } from './stagedView';

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
export function registerViews(registry: ServerRegistry, configs: ServerConfigs, workflow: Workflow): vscode.Disposable[] {
  const servers = new ServersView(registry, configs);
  const plans = new PlansView(workflow);
  const staged = new StagedView(workflow, registry);
  return [
    servers,
    plans,
    staged,
    vscode.window.createTreeView(Views.servers, { treeDataProvider: servers, showCollapseAll: true }),
    vscode.window.createTreeView(Views.plans, { treeDataProvider: plans }),
    vscode.window.createTreeView(Views.staged, { treeDataProvider: staged }),
  ];
}
