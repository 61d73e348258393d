import * as vscode from 'vscode';
import { Settings } from './constants';

/** The settings the gate reads at each run (so a change applies to the next plan without a reload). */
export function gateSettings(): { stepTimeoutMs: number; allowCrossServer: boolean } {
  const config = vscode.workspace.getConfiguration(Settings.section);
  return {
    stepTimeoutMs: Math.max(1, config.get<number>(Settings.stepTimeoutSeconds, 120)) * 1000,
    allowCrossServer: config.get<boolean>(Settings.allowCrossServerSteps, true),
  };
}

/** What a plan's preview may do before approval: dry runs (on the step's resolved server), and whether cross-server steps may run. */
export function previewSettings(): { dryRun: boolean; allowCrossServer: boolean } {
  const config = vscode.workspace.getConfiguration(Settings.section);
  return {
    dryRun: config.get<boolean>(Settings.previewWithDryRun, true),
    allowCrossServer: config.get<boolean>(Settings.allowCrossServerSteps, true),
  };
}

/** How much settled history the ledger keeps (read when the ledger is opened, at activation). 0: no limit. */
export function ledgerRetention(): { maxSizeMB: number; maxAgeDays: number } {
  const config = vscode.workspace.getConfiguration(Settings.section);
  const limit = (key: string, fallback: number) => {
    const value = config.get<number>(key, fallback);
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
  };
  return { maxSizeMB: limit(Settings.ledgerMaxSizeMB, 50), maxAgeDays: limit(Settings.ledgerMaxAgeDays, 90) };
}

/** `plangate.autoApprovePlans` as the user set it (a user setting only: a workspace value is ignored). */
export function autoApprovePlans(): boolean {
  return vscode.workspace.getConfiguration(Settings.section).inspect<boolean>(Settings.autoApprovePlans)?.globalValue === true;
}
