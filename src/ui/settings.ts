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
