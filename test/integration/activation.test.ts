// Plangate starts in a real extension host: it activates, registers every command it contributes, and hands
// its services to nobody but the in-host test hook.
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

  test('another extension gets nothing that approves or calls: activate() exports nothing', async ({ vscode, extension }) => {
    assert.equal(extension.exports, undefined, `extension.exports holds ${Object.keys(Object(extension.exports)).join(', ')}`);
    // What another extension would do: look Plangate up and activate it.
    const other = vscode.extensions.getExtension(extension.id);
    assert.equal(await other?.activate(), undefined, 'activate() handed out an object');
  });

  test('the test hook, and only it, hands the suite the services', ({ api }) => {
    assert.ok(api !== null && typeof api === 'object', 'the test hook passed no services');
    for (const service of ['workflow', 'gate', 'registry', 'configs', 'panel', 'caller', 'policy']) {
      assert.ok(service in (api as Record<string, unknown>), `the services have no "${service}"`);
    }
  });
});
