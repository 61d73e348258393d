import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { resultText } from '../../src/core/base/toolResult';
import type { ResolvedServer } from '../../src/mcp/config';
import type { ConnectionOptions, LogEntry } from '../../src/mcp/connection';
import { ServerRegistry } from '../../src/mcp/registry';
import { alive, FILESYSTEM_SERVER, fixtureStdio } from './helpers/mcpFixture';

function registry(t: TestContext, options: ConnectionOptions = {}): { reg: ServerRegistry; logs: LogEntry[] } {
  const reg = new ServerRegistry({ reconnect: { baseDelayMs: 20 }, pathProvider: async () => process.env.PATH ?? '', ...options });
  const logs: LogEntry[] = [];
  reg.onLog((e) => logs.push(e));
  t.after(() => reg.dispose());
  return { reg, logs };
}

describe('ServerRegistry', { concurrency: 2 }, () => {
  test('applyConfig starts servers in configuration order and restarts only the one whose configuration changed', async (t) => {
    const { reg } = registry(t);
    let changes = 0;
    reg.onDidChange(() => changes++);
    const a = fixtureStdio('alpha', ['--name', 'alpha-server'], { MODE: 'one' });
    const b = fixtureStdio('beta', ['--name', 'beta-server'], { MODE: 'one' });
    await reg.applyConfig([b, a]);
    assert.deepEqual(
      reg.connections.map((c) => [c.name, c.state]),
      [
        ['beta', 'running'],
        ['alpha', 'running'],
      ],
    );
    assert.ok(changes > 0);
    const catalog = await reg.catalog();
    assert.deepEqual(
      catalog.map((c) => c.server),
      ['beta', 'alpha'],
    );
    assert.ok(catalog[0]!.tools.includes('echo'));

    const alpha = reg.get('alpha')!;
    const [alphaPid, betaPid] = [alpha.pid, reg.get('beta')!.pid];
    const alphaStates: string[] = [];
    alpha.onDidChangeState((s) => alphaStates.push(s.state));
    await reg.applyConfig([fixtureStdio('beta', ['--name', 'beta-server'], { MODE: 'two' }), a]);
    assert.equal(resultText(await reg.callTool('beta', 'get_env', { name: 'MODE' })), 'two');
    assert.equal(resultText(await reg.callTool('alpha', 'get_env', { name: 'MODE' })), 'one');
    assert.equal(alpha.pid, alphaPid, 'the unchanged server kept its process');
    assert.deepEqual(alphaStates, []);
    assert.notEqual(reg.get('beta')!.pid, betaPid);
    assert.equal(alive(betaPid), false);

    // removing a server stops it; the order follows the new configuration
    await reg.applyConfig([a]);
    assert.deepEqual(
      reg.connections.map((c) => c.name),
      ['alpha'],
    );
    await assert.rejects(reg.callTool('beta', 'echo', { message: 'x' }), /No server named 'beta' is configured/);
  });

  test('tool name clashes resolve by configuration order and are reported', async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'plangate-reg-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const { reg } = registry(t);
    const files: ResolvedServer = { ...fixtureStdio('files'), args: [FILESYSTEM_SERVER, dir] };
    await reg.applyConfig([fixtureStdio('first'), files, fixtureStdio('second')]);
    const clashes = reg.clashes();
    assert.deepEqual(
      clashes.find((c) => c.tool === 'echo'),
      { tool: 'echo', servers: ['first', 'second'] },
    );
    assert.equal(
      clashes.some((c) => c.tool === 'read_text_file'),
      false,
    );
    assert.equal(reg.serverForTool('echo'), 'first');
    assert.equal(reg.serverForTool('echo', 'second'), 'second');
    assert.equal(reg.serverForTool('read_text_file', 'first'), 'files');
    assert.equal(reg.serverForTool('no_such_tool'), undefined);
    assert.deepEqual(reg.findTool('echo', 'second')?.server, 'second');
    assert.equal(reg.findTool('echo')?.tool.annotations?.readOnlyHint, true, 'the tool comes with its annotations');
    // A tool a server adds later is found once its tools/list_changed arrives.
    const added = new Promise<void>((done) =>
      reg.onDidChange(() => {
        if (reg.findTool('brand_new')) done();
      }),
    );
    await reg.callTool('second', 'add_tool', { name: 'brand_new' });
    await added;
    assert.equal(reg.serverForTool('brand_new', 'first'), 'second');
    await reg.get('first')!.stop();
    assert.equal(reg.serverForTool('echo'), 'second');
    assert.deepEqual(
      reg.clashes().find((c) => c.tool === 'echo'),
      undefined,
    );
    assert.deepEqual(
      (await reg.catalog()).map((c) => c.server),
      ['files', 'second'],
    );
  });

  test('an untrusted workspace starts no server from workspace configuration; trusting starts them', async (t) => {
    const { reg, logs } = registry(t);
    const workspace = fixtureStdio('from-workspace');
    const user: ResolvedServer = { ...fixtureStdio('from-user'), source: 'settings-user' };
    await reg.applyConfig([workspace, user], { workspaceTrusted: false });
    assert.deepEqual(
      reg.connections.map((c) => [c.name, c.state]),
      [
        ['from-workspace', 'stopped'],
        ['from-user', 'running'],
      ],
    );
    assert.ok(logs.some((l) => l.server === 'from-workspace' && l.text === 'not started: the workspace is not trusted'));
    assert.equal(reg.isBlocked('from-workspace'), true);
    await assert.rejects(
      reg.start('from-workspace'),
      /Server 'from-workspace' comes from workspace configuration \(mcp\.json\) and this workspace is not trusted/,
    );
    const userPid = reg.get('from-user')!.pid;
    await reg.applyConfig([workspace, user], { workspaceTrusted: true });
    assert.equal(reg.get('from-workspace')!.state, 'running');
    assert.equal(reg.get('from-user')!.pid, userPid);
  });

  test('elicitation hook reaches every server; dispose waits until every child has exited', async (t) => {
    const { reg } = registry(t, { elicit: async (server) => ({ action: 'accept', content: { name: `answer for ${server}` } }) });
    await reg.applyConfig([fixtureStdio('one'), fixtureStdio('two')]);
    assert.match(resultText(await reg.callTool('two', 'elicit_name', {})), /"name":"answer for two"/);
    const pids = reg.connections.map((c) => c.pid);
    assert.ok(pids.every(alive));
    await reg.dispose();
    assert.deepEqual(pids.map(alive), [false, false]);
    assert.deepEqual(reg.connections, []);
  });
});
