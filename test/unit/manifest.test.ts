import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { Commands, PanelViewType, Settings, UserOnlySettings, Views } from '../../src/ui/constants';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

test('every command id in code is contributed with the Plangate category, and vice versa', () => {
  const contributed = pkg.contributes.commands as { command: string; title: string; category: string }[];
  assert.deepEqual(new Set(contributed.map((c) => c.command)), new Set(Object.values(Commands)));
  for (const c of contributed) assert.equal(c.category, 'Plangate', `${c.command} has the Plangate category`);
  assert.ok(
    contributed.some((c) => c.title === 'Call Tool…'),
    'the contract names the command "Plangate: Call Tool…"',
  );
});

test('the views of the contract live in one Plangate activity-bar container', () => {
  assert.deepEqual(
    pkg.contributes.viewsContainers.activitybar.map((c: { id: string }) => c.id),
    [Views.container],
  );
  const views = pkg.contributes.views[Views.container] as { id: string; name: string }[];
  assert.deepEqual(
    views.map((v) => [v.id, v.name]),
    [
      [Views.servers, 'Servers'],
      [Views.plans, 'Plans'],
      [Views.staged, 'Staged'],
      [Views.approvals, 'Approvals'],
    ],
  );
});

test('settings in code are contributed, each with a scope and a description', () => {
  const props = pkg.contributes.configuration.properties as Record<string, { scope?: string; markdownDescription?: string }>;
  for (const key of [
    Settings.servers,
    Settings.readMcpJson,
    Settings.allowCrossServerSteps,
    Settings.stepTimeoutSeconds,
    Settings.attentionNotify,
  ]) {
    const p = props[`${Settings.section}.${key}`];
    assert.ok(p, `plangate.${key} is contributed`);
    assert.ok(p.scope && p.markdownDescription, `plangate.${key} has a scope and a description`);
  }
});

test('the manifest targets VS Code ^1.101.0 with @types/vscode pinned to match, and restores the panel', () => {
  assert.equal(pkg.engines.vscode, '^1.101.0');
  assert.equal(pkg.devDependencies['@types/vscode'], '1.101.0');
  assert.ok(pkg.activationEvents.includes(`onWebviewPanel:${PanelViewType}`));
  assert.equal(pkg.name, 'plangate');
  assert.equal(pkg.displayName, 'Plangate');
});

test('marketplace fields and walkthrough media exist', () => {
  for (const field of ['icon', 'categories', 'keywords', 'license', 'repository']) assert.ok(pkg[field], `${field} is set`);
  assert.ok(existsSync(pkg.icon), 'the icon file exists');
  const steps = pkg.contributes.walkthroughs[0].steps as { media: { markdown: string } }[];
  for (const s of steps) assert.ok(existsSync(s.media.markdown), `${s.media.markdown} exists`);
});

test("the settings that decide what reaches a server are the user's only: application scope, said in the description", () => {
  const props = pkg.contributes.configuration.properties as Record<string, { scope?: string; markdownDescription?: string }>;
  for (const key of UserOnlySettings) {
    const p = props[`plangate.${key}`];
    assert.equal(p?.scope, 'application', `plangate.${key} can be set by a workspace (scope ${p?.scope})`);
    assert.match(
      p.markdownDescription ?? '',
      /A user setting: a workspace cannot change it\b/,
      `plangate.${key} does not say it is the user's`,
    );
  }
  for (const key of ['allowCrossServerSteps', 'previewWithDryRun', 'serverApps.enabled', 'preferServerApps', 'gatedServers.enabled'])
    assert.ok((UserOnlySettings as readonly string[]).includes(key), `plangate.${key} is missing from UserOnlySettings`);
});
