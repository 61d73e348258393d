/** Ids Plangate contributes in package.json; a unit test keeps the two in step. */
export const Commands = {
  callTool: 'plangate.callTool',
  showPanel: 'plangate.showPanel',
  startServer: 'plangate.startServer',
  stopServer: 'plangate.stopServer',
  restartServer: 'plangate.restartServer',
  refreshServers: 'plangate.refreshServers',
  showLog: 'plangate.showLog',
  resetInputs: 'plangate.resetInputs',
  resetAppNetwork: 'plangate.resetAppNetwork',
  openPlan: 'plangate.openPlan',
  exportPlan: 'plangate.exportPlan',
  exportCalls: 'plangate.exportCalls',
  openMcpJson: 'plangate.openMcpJson',
  addDemoServer: 'plangate.addDemoServer',
  signIn: 'plangate.signIn',
  signOut: 'plangate.signOut',
  // Staged view rows (inline buttons and the rows under each submission); hidden from the palette.
  openSubmission: 'plangate.openSubmission',
  submitSubmission: 'plangate.submitSubmission',
  discardSubmission: 'plangate.discardSubmission',
  // Approvals view rows and groups (inline buttons); hidden from the palette.
  revokeApproval: 'plangate.revokeApproval',
  resetApprovals: 'plangate.resetApprovals',
} as const;

export const Views = {
  container: 'plangate',
  servers: 'plangate.servers',
  plans: 'plangate.plans',
  staged: 'plangate.staged',
  approvals: 'plangate.approvals',
} as const;

export const PanelViewType = 'plangate.plan';

export const Settings = {
  section: 'plangate',
  servers: 'servers',
  readMcpJson: 'readMcpJson',
  allowCrossServerSteps: 'allowCrossServerSteps',
  previewWithDryRun: 'previewWithDryRun',
  stepTimeoutSeconds: 'stepTimeoutSeconds',
  ledgerMaxSizeMB: 'ledger.maxSizeMB',
  ledgerMaxAgeDays: 'ledger.maxAgeDays',
  gatedServersEnabled: 'gatedServers.enabled',
  serverAppsEnabled: 'serverApps.enabled',
  preferServerApps: 'preferServerApps',
  policy: 'policy',
  autoApprovePlans: 'autoApprovePlans',
  sandboxWorkspaceServers: 'sandbox.workspaceServers',
  sandboxAllowUnsandboxed: 'sandbox.allowUnsandboxed',
  decisionHooks: 'decisionHooks',
  attentionNotify: 'attention.notify',
} as const;

/**
 * The settings that widen or narrow what reaches a server or what Plangate shows. Each has `application` scope in
 * package.json and is read from the user's settings only (settings.ts `userFlag`, policy.ts): a repository cannot
 * change them, in Restricted Mode or not.
 */
export const UserOnlySettings = [
  Settings.allowCrossServerSteps,
  Settings.previewWithDryRun,
  Settings.serverAppsEnabled,
  Settings.preferServerApps,
  Settings.gatedServersEnabled,
  Settings.autoApprovePlans,
  Settings.policy,
  Settings.sandboxWorkspaceServers,
  Settings.sandboxAllowUnsandboxed,
  Settings.decisionHooks,
] as const;
export type UserOnlySetting = (typeof UserOnlySettings)[number];
