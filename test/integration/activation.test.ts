// Plangate starts in a real extension host: it activates, registers every command it contributes, and hands
// its services to whoever activates it.
import { assert, suite, test } from './suite';

interface ContributedCommand {
  command: string;
}

suite('activation', () => {
  test('the extension is active', ({ extension }) => {
    assert.equal(extension.isActive, true, `${extension.id} is installed but not active`);
  });

  test('every command in contributes.commands is registered', async ({ vscode, extension }) => {
    const contributed = ((extension.packageJSON as { contributes?: { commands?: ContributedCommand[] } }).contributes?.commands ?? []).map(
      (c) => c.command,
    );
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  test('activate() returns the API object with its services', ({ api, extension }) => {
    assert.ok(api !== null && typeof api === 'object', 'activate() returned no object');
    assert.equal(extension.exports, api, 'extension.exports is not the object activate() returned');
    for (const service of ['workflow', 'gate', 'registry', 'configs', 'panel', 'caller']) {
      assert.ok(service in (api as Record<string, unknown>), `the API has no "${service}"`);
    }
  });
});
