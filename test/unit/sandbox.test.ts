// Servers in a sandbox: VS Code's `sandboxEnabled` / `sandbox` read from mcp.json and plangate.servers, a server that
// asks for a sandbox where none can be had never starts unsandboxed by itself, and the hostile fixture against the
// real sandbox (bubblewrap through @anthropic-ai/sandbox-runtime): sandboxed, only its write inside the workspace
// succeeds and each refusal is in its log; unsandboxed, everything succeeds.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Gate } from '../../src/core/engine/gate';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { resultText } from '../../src/core/base/toolResult';
import type { PlanRecord } from '../../src/core/workflow/workflow';
import { parseMcpJson, parseServersSetting, resolveServer, type ResolvedServer, type ResolvedStdioServer } from '../../src/mcp/config';
import { ServerConnection, type ConnectionOptions, type LogEntry } from '../../src/mcp/connection';
import { ServerRegistry } from '../../src/mcp/registry';
import { probeSandbox, sandboxRules, sandboxStderrLine, srtCliPath } from '../../src/mcp/sandbox';
import { testBundles } from './helpers/bundles';
import { fixtureCommand } from './helpers/fixture';
import { FILESYSTEM_SERVER, fixtureStdio, REPO, waitForState } from './helpers/mcpFixture';

const PATH = process.env.PATH ?? '';
const SRT = srtCliPath(path.join(REPO, 'src/mcp'));

async function tempDir(t: TestContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const ctx = (folder: string, extra: object = {}) => ({
  workspaceFolder: folder,
  env: {},
  userHome: '/home/u',
  resolveInput: async () => undefined,
  ...extra,
});

describe('sandbox configuration (VS Code format)', () => {
  test('sandboxEnabled and sandbox from mcp.json: VS Code defaults merged, variables substituted', async () => {
    const parsed = parseMcpJson(
      `{ "servers": { "fs": { "command": "node", "args": ["s.js"], "sandboxEnabled": true,
          "sandbox": { "filesystem": { "allowWrite": ["\${workspaceFolder}/out"], "denyRead": ["~/.ssh"] },
                       "network": { "allowedDomains": ["api.example.com"], "deniedDomains": ["evil.example.com"] } } } } }`,
      '.vscode/mcp.json',
    );
    assert.deepEqual(parsed.problems, []);
    const resolved = (await resolveServer(parsed.servers[0]!, ctx('/ws'))) as ResolvedStdioServer;
    assert.deepEqual(resolved.sandbox, {
      reason: 'requested',
      rules: {
        filesystem: { allowWrite: ['/ws/out', '~/.npm'], denyRead: ['~/.ssh'], denyWrite: [] },
        network: { allowedDomains: ['api.example.com', '*.npmjs.org'], deniedDomains: ['evil.example.com'] },
      },
    });
  });

  test('without sandboxEnabled (or with false) a server is not sandboxed; the same fields work in plangate.servers', async () => {
    const parsed = parseServersSetting(
      { a: { command: 'x', sandbox: { filesystem: { allowWrite: ['/tmp'] } } }, b: { command: 'y', sandboxEnabled: true } },
      'settings-user',
    );
    assert.deepEqual(parsed.problems, []);
    const [a, b] = await Promise.all(parsed.servers.map((s) => resolveServer(s, ctx('/ws')) as Promise<ResolvedStdioServer>));
    assert.equal(a!.sandbox, undefined);
    assert.equal(b!.sandbox?.reason, 'requested');
    assert.deepEqual(b!.sandbox?.rules.network.allowedDomains, ['*.npmjs.org']);
  });

  test('a wrong type is a problem naming the key path', () => {
    const parsed = parseMcpJson(
      '{ "servers": { "s": { "command": "x", "sandboxEnabled": "yes", "sandbox": { "network": { "allowedDomains": "a.com" } } } } }',
      'mcp.json',
    );
    assert.deepEqual(
      parsed.problems.map((p) => `${p.path}: ${p.message}`),
      [
        'servers.s.sandboxEnabled: expected a boolean, got a string',
        'servers.s.sandbox.network.allowedDomains: expected an array, got a string',
      ],
    );
  });

  test('plangate.sandbox.workspaceServers: every workspace stdio server sandboxed (folder writable, no network), a repository cannot opt out, user servers untouched', async () => {
    const ws = parseMcpJson(
      '{ "servers": { "plain": { "command": "x" }, "optOut": { "command": "x", "sandboxEnabled": false, "sandbox": { "network": { "allowedDomains": ["api.example.com"] } } } } }',
      '.vscode/mcp.json',
    );
    const user = parseServersSetting({ mine: { command: 'x' } }, 'settings-user');
    const on = ctx('/ws', { sandboxWorkspaceServers: true });
    const [plain, optOut] = await Promise.all(ws.servers.map((s) => resolveServer(s, on) as Promise<ResolvedStdioServer>));
    assert.deepEqual(plain!.sandbox, {
      reason: 'workspaceDefault',
      rules: {
        filesystem: { allowWrite: ['~/.npm', '/ws'], denyRead: ['~/.ssh', '~/.gnupg', '~/.aws'], denyWrite: [] },
        network: { allowedDomains: [], deniedDomains: [] },
      },
    });
    assert.deepEqual(optOut!.sandbox?.rules.network.allowedDomains, ['api.example.com']);
    assert.equal(((await resolveServer(user.servers[0]!, on)) as ResolvedStdioServer).sandbox, undefined);
    assert.equal(((await resolveServer(ws.servers[0]!, ctx('/ws'))) as ResolvedStdioServer).sandbox, undefined);
  });
});

describe('where no sandbox can be had', () => {
  test('probe: missing tools named with what to install; no user namespaces; Windows', async () => {
    const none = await probeSandbox('linux', '/nonexistent');
    assert.equal(none.ok, false);
    assert.match(!none.ok ? none.reason : '', /bubblewrap \(bwrap\), socat, ripgrep \(rg\) are not installed/);
    assert.match(!none.ok ? none.fix : '', /apt-get install bubblewrap socat ripgrep/);
    const noUserns = await probeSandbox('linux', PATH, async () => false);
    assert.match(!noUserns.ok ? noUserns.reason : 'ok', /user namespaces/);
    const win = await probeSandbox('win32', PATH);
    assert.match(!win.ok ? win.reason : 'ok', /Windows/);
  });

  test('a server asking for a sandbox does not start, says why and what to install; allowUnsandboxed starts it, logged', async (t) => {
    const dir = await tempDir(t, 'plangate-nosandbox-');
    const callLog = path.join(dir, 'calls.jsonl');
    const config: ResolvedStdioServer = {
      ...fixtureStdio('wants-sandbox', ['--call-log', callLog]),
      sandbox: { reason: 'requested', rules: sandboxRules(undefined, 'requested') },
    };
    const refused = {
      ok: false as const,
      reason: 'bubblewrap (bwrap) is not installed',
      fix: 'Install it: sudo apt-get install bubblewrap socat ripgrep.',
    };
    const base: ConnectionOptions = { pathProvider: async () => PATH, reconnect: { maxAttempts: 0 } };
    const strict = new ServerConnection(config, { ...base, sandbox: { srtPath: SRT, probe: async () => refused } });
    t.after(() => strict.dispose());
    await assert.rejects(strict.start(), (err: Error) => {
      assert.match(
        err.message,
        /Server 'wants-sandbox' was not started: it asks for a sandbox \("sandboxEnabled": true, or --sandbox\), but no sandbox can be had here — bubblewrap \(bwrap\) is not installed/,
      );
      assert.match(err.message, /apt-get install bubblewrap/);
      assert.match(err.message, /plangate\.sandbox\.allowUnsandboxed/);
      return true;
    });
    assert.equal(strict.state, 'error');
    assert.equal(strict.pid, undefined);
    // A host that knows nothing of sandboxes refuses too.
    const unaware = new ServerConnection(config, base);
    t.after(() => unaware.dispose());
    await assert.rejects(unaware.start(), /was not started/);

    const logs: LogEntry[] = [];
    const lenient = new ServerConnection(config, {
      ...base,
      sandbox: { srtPath: SRT, probe: async () => refused, allowUnsandboxed: () => true },
    });
    lenient.onLog((e) => logs.push(e));
    t.after(() => lenient.dispose());
    await lenient.start();
    assert.equal(lenient.sandboxed, false);
    assert.ok(
      logs.some((e) => e.level === 'warn' && /WITHOUT a sandbox.*bubblewrap \(bwrap\) is not installed.*allowUnsandboxed/.test(e.text)),
      logs.map((e) => e.text).join('\n'),
    );
  });
});

describe('stderr of a sandboxed server', () => {
  test('srt chatter is trace, refusals name the host, path and rule', () => {
    const rules = sandboxRules({ filesystem: { denyRead: ['~/.ssh'] } }, 'requested');
    assert.equal(sandboxStderrLine('[SandboxDebug] Mux proxy (HTTP+SOCKS) listening on localhost:1').level, 'trace');
    assert.deepEqual(sandboxStderrLine('[SandboxDebug] Connection blocked to evil.example.com:443'), {
      level: 'warn',
      text: 'sandbox refused a connection to evil.example.com:443 (not in sandbox.network.allowedDomains; add the host there to allow it)',
    });
    assert.match(sandboxStderrLine("EROFS: read-only file system, open '/etc/x'").text, /'\/etc\/x'.*sandbox refused a write.*allowWrite/);
    assert.match(
      sandboxStderrLine('read /h/.ssh/id_ed25519 failed: ENOENT', rules, '/h').text,
      /hides \/h\/\.ssh \(sandbox\.filesystem\.denyRead\)/,
    );
    assert.deepEqual(sandboxStderrLine('hello', rules, '/h'), { level: 'info', text: '[stderr] hello' });
  });
});

/** A TCP server on 127.0.0.1 that counts the connections it accepts. */
async function listener(t: TestContext): Promise<{ port: number; accepted: () => number }> {
  let count = 0;
  const server: Server = createServer((s) => {
    count++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as { port: number }).port, accepted: () => count };
}

describe('the hostile fixture against the real sandbox', { concurrency: 1 }, () => {
  async function attempt(t: TestContext, sandboxed: boolean) {
    const support = await probeSandbox(process.platform, PATH);
    assert.ok(support.ok, `no sandbox on this machine: ${!support.ok ? `${support.reason}. ${support.fix}` : ''} (npm test installs it)`);
    const home = await tempDir(t, 'plangate-home-');
    await mkdir(path.join(home, '.ssh'));
    await writeFile(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
    const ws = await tempDir(t, 'plangate-ws-');
    const elsewhere = await tempDir(t, 'plangate-elsewhere-');
    const outside = path.join(elsewhere, 'escaped.txt');
    const tcp = await listener(t);
    const rules = sandboxRules({ filesystem: { allowWrite: [ws], denyRead: ['~/.ssh'] } }, 'requested');
    const config: ResolvedStdioServer = {
      ...fixtureStdio('hostile', ['--root', ws], { HOME: home }),
      cwd: ws,
      ...(sandboxed && { sandbox: { reason: 'requested' as const, rules } }),
    };
    const conn = new ServerConnection(config, { pathProvider: async () => PATH, reconnect: { maxAttempts: 0 }, sandbox: { srtPath: SRT } });
    const logs: LogEntry[] = [];
    conn.onLog((e) => logs.push(e));
    t.after(() => conn.dispose());
    await conn.start();
    await waitForState(conn, 'running');
    const result = await conn.callTool('escape_attempt', { outside, port: tcp.port });
    const outcome = JSON.parse(resultText(result)) as Record<string, string | number>;
    return { conn, logs, outcome, outside, ws, tcp, home };
  }

  test('sandboxed: only the write inside the workspace succeeds; each refusal is in the log with its path or host', async (t) => {
    const { conn, logs, outcome, outside, ws, tcp, home } = await attempt(t, true);
    const log = logs.map((e) => `${e.level} ${e.text}`).join('\n');
    assert.equal(conn.sandboxed, true);
    assert.notEqual(outcome.read, 'ok', log);
    assert.equal(outcome.secretLength, 0);
    assert.equal(outcome.writeOutside, 'EROFS', log);
    assert.equal(outcome.writeInside, 'ok', log);
    assert.notEqual(outcome.connect, 'ok', log);
    assert.equal(outcome.viaProxy, 'proxy 403', log);
    assert.equal(existsSync(outside), false);
    assert.equal(await readFile(path.join(ws, 'escape-inside.txt'), 'utf8'), 'inside\n');
    assert.equal(tcp.accepted(), 0);
    const key = path.join(home, '.ssh', 'id_ed25519');
    assert.match(log, /info starting in a sandbox — .*Writes only to: .*plangate-ws-/);
    assert.match(
      log,
      new RegExp(`warn \\[stderr\\] escape_attempt: read ${key} failed: \\w+ .*the sandbox hides ${path.join(home, '.ssh')}`),
    );
    assert.match(log, new RegExp(`warn \\[stderr\\] escape_attempt: write ${outside} failed: EROFS .*sandbox refused a write`));
    assert.match(log, new RegExp(`warn sandbox refused a connection to 127\\.0\\.0\\.1:${tcp.port} `));
    assert.doesNotMatch(log, /^info \[stderr\] \[SandboxDebug\]/m);
  });

  test('unsandboxed: every attempt succeeds (so the test above can fail)', async (t) => {
    const { conn, outcome, outside, tcp } = await attempt(t, false);
    assert.equal(conn.sandboxed, false);
    assert.deepEqual(outcome, { read: 'ok', secretLength: 12, writeOutside: 'ok', writeInside: 'ok', connect: 'ok' });
    assert.equal(await readFile(outside, 'utf8'), 'escaped\n');
    assert.equal(tcp.accepted(), 1);
  });
});

describe('plangate run --sandbox', () => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [testBundles().cli, 'run', ...args], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: 60_000,
    });

  test('FILE: the server runs in the sandbox it describes; refusals on stderr without --verbose', async (t) => {
    const ws = await tempDir(t, 'plangate-cli-ws-');
    const elsewhere = await tempDir(t, 'plangate-cli-else-');
    const tcp = await listener(t);
    const rulesFile = path.join(ws, 'sandbox.json');
    await writeFile(rulesFile, JSON.stringify({ filesystem: { allowWrite: [ws] } }));
    const outside = path.join(elsewhere, 'escaped.txt');
    const r = cli([
      '--server',
      `"${process.execPath}" "${testBundles().fixture}" --root "${ws}"`,
      '--sandbox',
      rulesFile,
      '--tool',
      'escape_attempt',
      '--args',
      JSON.stringify({ outside, port: tcp.port }),
      '--yes',
    ]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /"writeOutside":"EROFS"/);
    assert.match(r.stdout, /"writeInside":"ok"/);
    assert.match(r.stderr, new RegExp(`write ${outside} failed: EROFS .*sandbox refused a write`));
    assert.match(r.stderr, new RegExp(`sandbox refused a connection to 127\\.0\\.0\\.1:${tcp.port}`));
    assert.equal(existsSync(outside), false);
    assert.equal(tcp.accepted(), 0);
  });

  test('a broken FILE, or --sandbox with --url, is a usage error naming the problem', async (t) => {
    const dir = await tempDir(t, 'plangate-cli-bad-');
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ network: { allowedDomains: 'example.com' } }));
    const r = cli(['--server', 'node x.js', '--sandbox', bad, '--tool', 't']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--sandbox .*bad\.json: sandbox\.network\.allowedDomains: expected an array, got a string/);
    const u = cli(['--url', 'http://127.0.0.1:1/mcp', '--sandbox', 'on', '--tool', 't']);
    assert.equal(u.status, 2);
    assert.match(u.stderr, /--sandbox applies only to --server/);
  });
});

const EVERYTHING_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** A stdio server run by Node from `args`, in `folder`, in the sandbox Plangate gives workspace servers (the folder writable, no network). */
function workspaceSandboxed(name: string, args: string[], folder: string): ResolvedStdioServer {
  return {
    name,
    source: 'mcp.json',
    type: 'stdio',
    command: process.execPath,
    args,
    env: {},
    cwd: folder,
    secrets: [],
    sandbox: { reason: 'workspaceDefault', rules: sandboxRules(undefined, 'workspaceDefault', folder) },
  };
}

describe('a real server in the sandbox', () => {
  test('@modelcontextprotocol/server-filesystem rooted at the workspace: edit_file works sandboxed, its sandbox marks it', async (t) => {
    const ws = await tempDir(t, 'plangate-fs-ws-');
    await writeFile(path.join(ws, 'notes.md'), 'hello sandbox\n');
    const config = workspaceSandboxed('fs', [FILESYSTEM_SERVER, ws], ws);
    const conn = new ServerConnection(config, { pathProvider: async () => PATH, reconnect: { maxAttempts: 0 }, sandbox: { srtPath: SRT } });
    t.after(() => conn.dispose());
    await conn.start();
    assert.equal(conn.sandboxed, true);
    const result = await conn.callTool('edit_file', {
      path: path.join(ws, 'notes.md'),
      edits: [{ oldText: 'hello sandbox', newText: 'edited in the sandbox' }],
    });
    assert.notEqual(result.isError, true, resultText(result));
    assert.equal(await readFile(path.join(ws, 'notes.md'), 'utf8'), 'edited in the sandbox\n');
  });

  test('@modelcontextprotocol/server-everything over stdio works sandboxed with no network: its tools list, echo answers', async (t) => {
    const ws = await tempDir(t, 'plangate-everything-ws-');
    const config = workspaceSandboxed('everything', [EVERYTHING_SERVER, 'stdio'], ws);
    const conn = new ServerConnection(config, { pathProvider: async () => PATH, reconnect: { maxAttempts: 0 }, sandbox: { srtPath: SRT } });
    t.after(() => conn.dispose());
    await conn.start();
    assert.equal(conn.sandboxed, true);
    assert.ok(
      conn.tools.some((tool) => tool.name === 'echo'),
      `tools: ${conn.tools.map((tool) => tool.name).join(', ')}`,
    );
    const result = await conn.callTool('echo', { message: 'hi from the sandbox' });
    assert.notEqual(result.isError, true, resultText(result));
    assert.match(resultText(result), /hi from the sandbox/);
  });
});

describe('a plan whose steps run on a sandboxed server', () => {
  test("a fixture plan's edit_file and write_file steps run on a sandboxed server-filesystem through the gate and the runner", async (t) => {
    const root = await tempDir(t, 'plangate-plan-sbx-');
    await writeFile(path.join(root, 'notes.md'), 'title\nstatus: draft\n');
    await mkdir(path.join(root, 'src'));
    await mkdir(path.join(root, 'outside'));
    const fixture = fixtureCommand(['--root', root]);
    const servers: ResolvedServer[] = [
      { name: 'fixture', source: 'mcp.json', type: 'stdio', command: fixture.command, args: fixture.args, env: {}, secrets: [] },
      workspaceSandboxed('files', [FILESYSTEM_SERVER, root], root),
    ];
    const registry = new ServerRegistry({ pathProvider: async () => PATH, sandbox: { srtPath: SRT } });
    let n = 0;
    const gate = new Gate(new Workflow(new MemoryLedgerSink()), {
      invoker: registry,
      settings: () => ({ stepTimeoutMs: 30_000, allowCrossServer: true }),
      newId: () => `plan-${++n}`,
    });
    t.after(async () => {
      gate.dispose();
      await registry.dispose();
    });
    await registry.applyConfig(servers);
    assert.deepEqual(
      registry.connections.map((c) => [c.name, c.state, c.sandboxed]),
      [
        ['fixture', 'running', false],
        ['files', 'running', true],
      ],
    );
    const args = { root };
    const result = await registry.callTool('fixture', 'plan_cross_server', args);
    const received = gate.receive({ server: 'fixture', tool: 'plan_cross_server', args, entrance: 'manual' }, result);
    assert.equal(received.kind, 'plan');
    const planId = (received as { planId: string }).planId;
    assert.equal(await gate.approve(planId), undefined);
    const done = (await gate.whenSettled(planId)) as PlanRecord;
    assert.notEqual(done.phase, 'blocked', done.blockedReason);
    assert.deepEqual(
      done.steps.map((s) => [s.call.tool, s.state, s.server]),
      [
        ['edit_file', 'ok', 'files'],
        ['write_file', 'ok', 'files'],
        ['write_file', 'ok', 'files'],
      ],
    );
    assert.equal(await readFile(path.join(root, 'notes.md'), 'utf8'), 'title\nstatus: reviewed\n', 'edit_file changed the file');
    assert.ok(existsSync(path.join(root, 'src/new.txt')), 'write_file created the file');
  });
});
