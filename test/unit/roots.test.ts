// MCP roots: Plangate offers the workspace folders (trusted workspaces only) or the CLI's --root folders, and tells
// running servers when they change. Against real peers: @modelcontextprotocol/server-everything (its get-roots-list
// tool shows what the server learned) and @modelcontextprotocol/server-filesystem started without directories (it
// works in the roots its client gives).
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Emitter } from '../../src/core/base/lifecycle';
import { resultText } from '../../src/core/base/toolResult';
import type { ResolvedStdioServer } from '../../src/mcp/config';
import { ServerConnection, type LogEntry } from '../../src/mcp/connection';
import { workspaceRoots, type RootsSource } from '../../src/mcp/roots';
import { runCli } from './helpers/cliHarness';
import { quoteCommandLine } from '../../src/cli/splitCommandLine';
import { FILESYSTEM_SERVER, REPO, waitFor } from './helpers/mcpFixture';

const EVERYTHING_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

function stdio(name: string, script: string, args: string[] = []): ResolvedStdioServer {
  return {
    name,
    source: 'settings-user',
    type: 'stdio',
    command: process.execPath,
    args: [script, ...args],
    env: {},
    cwd: REPO,
    secrets: [],
  };
}

async function tempDir(t: TestContext): Promise<string> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'plangate-roots-')));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A workspace as the extension sees it: folders and trust that the test changes, and the change event. */
function workspace(folders: { uri: string; name: string }[], trusted: boolean) {
  const changed = new Emitter<void>();
  const state = { folders, trusted };
  const source: RootsSource = { roots: () => workspaceRoots(state.folders, state.trusted), onDidChange: changed.event };
  return { state, source, changed };
}

function open(t: TestContext, config: ResolvedStdioServer, roots?: RootsSource) {
  const conn = new ServerConnection(config, { reconnect: { maxAttempts: 0 }, pathProvider: async () => process.env.PATH ?? '', roots });
  const logs: LogEntry[] = [];
  conn.onLog((e) => logs.push(e));
  t.after(() => conn.dispose());
  return { conn, logs };
}

describe('workspaceRoots: what the extension offers', () => {
  test('an untrusted workspace offers no roots at all (Restricted Mode)', () => {
    const folders = [{ uri: 'file:///home/u/project', name: 'project' }];
    assert.deepEqual(workspaceRoots(folders, false), []);
    assert.deepEqual(workspaceRoots(folders, true), [{ uri: 'file:///home/u/project', name: 'project' }]);
  });

  test('only folders on this disk (file:) are offered; no folder open, no roots', () => {
    assert.deepEqual(
      workspaceRoots(
        [
          { uri: 'vscode-vfs://github/o/r', name: 'remote' },
          { uri: 'file:///a', name: 'a' },
        ],
        true,
      ),
      [{ uri: 'file:///a', name: 'a' }],
    );
    assert.deepEqual(workspaceRoots(undefined, true), []);
  });
});

describe('roots against server-everything (get-roots-list)', { concurrency: 2 }, () => {
  test('untrusted: the server learns no roots; trust granted: it is told (roots/list_changed), asks again and sees the folder', async (t) => {
    const dir = await tempDir(t);
    const uri = pathToFileURL(dir).href;
    const ws = workspace([{ uri, name: 'proj' }], false);
    const { conn, logs } = open(t, stdio('everything', EVERYTHING_SERVER, ['stdio']), ws.source);
    await conn.start();
    await waitFor(() => conn.tools.some((x) => x.name === 'get-roots-list'), 'get-roots-list to be offered');
    const before = resultText(await conn.callTool('get-roots-list', {}));
    assert.match(before, /no roots are currently configured/);
    assert.ok(!before.includes(uri));

    ws.state.trusted = true;
    ws.changed.fire();
    await waitFor(() => logs.filter((l) => l.text.startsWith('roots/list: answered file://')).length > 0, 'the server to ask again');
    const after = resultText(await conn.callTool('get-roots-list', {}));
    assert.ok(after.includes(uri), after);
    assert.ok(logs.some((l) => l.text === 'roots changed: notifying the server'));
    assert.ok(
      logs.some((l) => l.text === 'roots/list: answered no roots'),
      'each roots/list is in the log',
    );
  });

  test('without a roots source the client declares no roots: get-roots-list is not offered', async (t) => {
    const { conn } = open(t, stdio('everything', EVERYTHING_SERVER, ['stdio']));
    await conn.start();
    await new Promise((r) => setTimeout(r, 500)); // time for a tools/list_changed that would add it
    assert.ok(conn.tools.some((x) => x.name === 'echo'));
    assert.ok(!conn.tools.some((x) => x.name === 'get-roots-list'));
  });
});

describe('plangate run --root', () => {
  test('server-filesystem started without directories works in the --root folder', async (t) => {
    const dir = await tempDir(t);
    await writeFile(path.join(dir, 'notes.md'), 'hello roots\n');
    const server = quoteCommandLine([process.execPath, FILESYSTEM_SERVER]);
    const listed = await runCli(['run', '--server', server, '--root', dir, '--tool', 'list_allowed_directories']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.includes(dir), listed.stdout);
    const read = await runCli([
      'run',
      '--server',
      server,
      '--root',
      dir,
      '--tool',
      'read_text_file',
      '--args',
      JSON.stringify({ path: path.join(dir, 'notes.md') }),
    ]);
    assert.equal(read.code, 0, read.stderr);
    assert.equal(read.stdout, 'hello roots\n\n');
  });

  test("server-everything's get-roots-list returns the --root folder; --verbose shows the roots/list request", async (t) => {
    const dir = await tempDir(t);
    const r = await runCli([
      'run',
      '--server',
      quoteCommandLine([process.execPath, EVERYTHING_SERVER, 'stdio']),
      '--root',
      dir,
      '--tool',
      'get-roots-list',
      '--verbose',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(pathToFileURL(dir).href), r.stdout);
    assert.match(r.stderr, /roots\/list: answered file:\/\//);
  });

  test('--root that is not a directory is a usage error (exit 2)', async () => {
    const r = await runCli(['run', '--server', 'node x.js', '--root', path.join(REPO, 'package.json'), '--tool', 't']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--root .*package\.json is not a directory/);
  });
});
