import * as vscode from 'vscode';
import { Settings, type UserOnlySetting } from './constants';

/**
 * A boolean setting of `UserOnlySettings`: the user's value, else `fallback`. Workspace and folder values are
 * ignored whatever scope the running VS Code gives the key, so a repository's `.vscode/settings.json` cannot change it.
 */
export function userFlag(key: UserOnlySetting, fallback: boolean): boolean {
  const value = vscode.workspace.getConfiguration(Settings.section).inspect<unknown>(key)?.globalValue;
  return typeof value === 'boolean' ? value : fallback;
}

/** The settings the gate reads at each run (so a change applies to the next plan without a reload). */
export function gateSettings(): { stepTimeoutMs: number; allowCrossServer: boolean } {
  const config = vscode.workspace.getConfiguration(Settings.section);
  return {
    stepTimeoutMs: Math.max(1, config.get<number>(Settings.stepTimeoutSeconds, 120)) * 1000,
    allowCrossServer: userFlag(Settings.allowCrossServerSteps, true),
  };
}

/**
 * A reading of settings kept until a Plangate setting changes (then read again on the next `get`). The door asks for
 * the cross-server setting before every step it sends, and VS Code's getConfiguration + inspect cost the extension
 * host about 0.4 ms a read: 438 ms of a 1,000-step run's profile, ahead of the whole workflow reducer.
 */
export class CachedSettings<T> implements vscode.Disposable {
  private value: { read: T } | undefined;
  private readonly subscription = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(Settings.section)) this.value = undefined;
  });

  constructor(private readonly read: () => T) {}

  get(): T {
    return (this.value ??= { read: this.read() }).read;
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

/** What a plan's preview may do before approval: dry runs (on the step's resolved server), and whether cross-server steps may run. */
export function previewSettings(): { dryRun: boolean; allowCrossServer: boolean } {
  return {
    dryRun: userFlag(Settings.previewWithDryRun, true),
    allowCrossServer: userFlag(Settings.allowCrossServerSteps, true),
  };
}

/**
 * How much settled history the ledger keeps (read when the ledger is opened, at activation). 0: no limit. User
 * settings only, as `userFlag`: a workspace value could make the ledger drop the record of what ran.
 */
export function ledgerRetention(): { maxSizeMB: number; maxAgeDays: number } {
  const config = vscode.workspace.getConfiguration(Settings.section);
  const limit = (key: string, fallback: number) => {
    const value = config.inspect<unknown>(key)?.globalValue ?? fallback;
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
  };
  return { maxSizeMB: limit(Settings.ledgerMaxSizeMB, 50), maxAgeDays: limit(Settings.ledgerMaxAgeDays, 90) };
}

/** `plangate.autoApprovePlans` as the user set it (a user setting only: a workspace value is ignored). */
export function autoApprovePlans(): boolean {
  return userFlag(Settings.autoApprovePlans, false);
}

/** Server apps in the panel (`plangate.serverApps.enabled`), and whether a form prefers its server's app. User settings only. */
export function appSettings(): { enabled: boolean; preferForForms: boolean } {
  return { enabled: userFlag(Settings.serverAppsEnabled, true), preferForForms: userFlag(Settings.preferServerApps, false) };
}

/** The sandbox settings (user settings only): sandbox workspace servers, and start unsandboxed where none can be had. */
export function sandboxSettings(): { workspaceServers: boolean; allowUnsandboxed: boolean } {
  return {
    workspaceServers: userFlag(Settings.sandboxWorkspaceServers, false),
    allowUnsandboxed: userFlag(Settings.sandboxAllowUnsandboxed, false),
  };
}

/** Attention while the window is not focused (attention.ts): whether a new wait gets a notification. */
export function attentionSettings(): { notify: boolean } {
  return { notify: vscode.workspace.getConfiguration(Settings.section).get<boolean>(Settings.attentionNotify, true) !== false };
}
