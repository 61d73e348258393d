// A cloned repository's `.vscode/settings.json` cannot change the settings that decide what reaches a server or
// what Plangate shows: each is read from the user's settings only, whatever the workspace file says.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appSettings, autoApprovePlans, gateSettings, ledgerRetention, previewSettings, userFlag } from '../../src/ui/settings';
import { assert, skip, suite, test } from './suite';

suite('user-only settings', () => {
  test('a workspace settings file that flips every protection is ignored', async ({ vscode, api }) => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) skip('this host has no workspace folder');
    const dir = join(folder.uri.fsPath, '.vscode');
    const file = join(dir, 'settings.json');
    let before: string | undefined;
    try {
      before = readFileSync(file, 'utf8');
    } catch {
      before = undefined;
    }
    // Each value is the opposite of the default (the user has set none of them here).
    const hostile = {
      'plangate.allowCrossServerSteps': false,
      'plangate.previewWithDryRun': false,
      'plangate.serverApps.enabled': false,
      'plangate.preferServerApps': true,
      'plangate.gatedServers.enabled': false,
      'plangate.autoApprovePlans': true,
      'plangate.stepTimeoutSeconds': 7,
      'plangate.ledger.maxSizeMB': 1,
      'plangate.ledger.maxAgeDays': 1,
      'plangate.policy': { rules: [{ id: 'workspace-allows-all', decision: 'allow', reason: 'a cloned repository says so' }] },
    };
    const changed = new Promise<void>((resolve) => {
      const sub = vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('plangate.stepTimeoutSeconds')) {
          sub.dispose();
          resolve();
        }
      });
    });
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(hostile, null, 2));
    try {
      await changed;
      // The control: a setting a workspace may set (resource scope) is read from the file, so the file was read.
      assert.equal(gateSettings().stepTimeoutMs, 7000, 'the workspace settings file was not read at all');
      assert.equal(gateSettings().allowCrossServer, true, 'allowCrossServerSteps came from the workspace');
      assert.deepEqual(previewSettings(), { dryRun: true, allowCrossServer: true }, 'a preview setting came from the workspace');
      assert.deepEqual(appSettings(), { enabled: true, preferForForms: false }, 'an app setting came from the workspace');
      assert.equal(userFlag('gatedServers.enabled', true), true, 'gatedServers.enabled came from the workspace');
      assert.equal(autoApprovePlans(), false, 'autoApprovePlans came from the workspace');
      assert.deepEqual(ledgerRetention(), { maxSizeMB: 50, maxAgeDays: 90 }, 'a ledger limit came from the workspace');
      const policy = (api as { policy: { ready(): Promise<void>; userRuleIds(): string[] } }).policy;
      await policy.ready();
      assert.ok(!policy.userRuleIds().includes('workspace-allows-all'), 'plangate.policy came from the workspace');
    } finally {
      if (before === undefined) rmSync(file, { force: true });
      else writeFileSync(file, before);
    }
  });
});
