// Restricted Mode: in an untrusted workspace nothing of the folder runs or is read. Servers of the user's own
// settings that need nothing of the folder start in the user's home; the others wait for trust and say why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  decideStart,
  describeTrustWait,
  parseMcpJson,
  parseServersSetting,
  resolveServer,
  TrustRequiredError,
  type ResolveContext,
  type ServerConfig,
} from '../../src/mcp/config';

const HOME = '/home/u';
const FOLDER = '/ws/proj';

/** The servers of a user's `plangate.servers` setting. */
function userServers(value: Record<string, unknown>): ServerConfig[] {
  const parsed = parseServersSetting(value, 'settings-user', 'plangate.servers (user settings)');
  assert.deepEqual(parsed.problems, []);
  return parsed.servers;
}

function one(value: Record<string, unknown>): ServerConfig {
  return userServers({ s: value })[0]!;
}

const untrusted = { trusted: false, workspaceFolder: FOLDER, userHome: HOME };

test("untrusted: a user server that needs nothing of the folder starts, in the user's home, not in the folder", async () => {
  const server = one({ command: 'python3', args: ['-m', 'mod'] });
  assert.deepEqual(decideStart(server, untrusted), { kind: 'start', cwd: HOME });
  const resolved = await resolveServer(server, { ...untrusted, env: {}, resolveInput: async () => undefined });
  assert.equal(resolved.type === 'stdio' && resolved.cwd, HOME);
  // trusted, the folder is its working directory as before
  assert.deepEqual(decideStart(server, { ...untrusted, trusted: true }), { kind: 'start', cwd: FOLDER });
  const trusted = await resolveServer(server, { ...untrusted, trusted: true, env: {}, resolveInput: async () => undefined });
  assert.equal(trusted.type === 'stdio' && trusted.cwd, FOLDER);
});

test('untrusted: servers that would use the folder wait for trust, and each reason is named', () => {
  const cases: [Record<string, unknown>, string[]][] = [
    [{ command: 'npx', args: ['-y', 'pkg', '${workspaceFolder}'] }, ['uses ${workspaceFolder}']],
    [{ command: 'srv', args: ['--name', '${workspaceFolderBasename}', '${file}'] }, ['uses ${workspaceFolderBasename}', 'uses ${file}']],
    [{ url: 'http://127.0.0.1:9/${workspaceFolder}' }, ['uses ${workspaceFolder}']],
    [{ command: 'srv', envFile: '.env' }, ['reads envFile ".env" from the workspace folder']],
    [{ command: 'srv', envFile: `${FOLDER}/conf/.env` }, [`reads envFile "${FOLDER}/conf/.env" from the workspace folder`]],
    [{ command: 'srv', cwd: 'tools' }, ['runs in "tools", inside the workspace folder']],
    [{ command: 'node', args: [`${FOLDER}/server.js`] }, [`runs "${FOLDER}/server.js", inside the workspace folder`]],
    [{ command: 'srv', env: { TOKEN: '${input:tok}' } }, ["uses ${input:tok}, an input defined in the workspace's mcp.json"]],
  ];
  for (const [value, reasons] of cases) {
    assert.deepEqual(decideStart(one(value), untrusted), { kind: 'waitForTrust', reasons }, JSON.stringify(value));
  }
  // opened on a folder that holds the user's home, there is no working directory outside it
  assert.deepEqual(decideStart(one({ command: 'srv' }), { ...untrusted, workspaceFolder: '/home' }), {
    kind: 'waitForTrust',
    reasons: ['would run in your home folder, which is inside the workspace folder'],
  });
  // paths outside the folder, including a sibling whose name starts with the folder's, are the user's own
  for (const value of [
    { command: 'srv', envFile: `${HOME}/.env`, cwd: `${HOME}/srv` },
    { command: 'node', args: [`${FOLDER}-other/x.js`] },
  ]) {
    assert.deepEqual(decideStart(one(value), untrusted), { kind: 'start', cwd: HOME }, JSON.stringify(value));
  }
});

test('untrusted: a server from .vscode/mcp.json or workspace settings waits, saying where it comes from', () => {
  const fromFile = parseMcpJson('{"servers":{"db":{"command":"node","args":["${workspaceFolder}/srv.js"]}}}', '.vscode/mcp.json')
    .servers[0]!;
  const decision = decideStart(fromFile, untrusted);
  assert.deepEqual(decision, { kind: 'waitForTrust', reasons: ['comes from .vscode/mcp.json', 'uses ${workspaceFolder}'] });
  assert.equal(
    describeTrustWait('db', decision.kind === 'waitForTrust' ? decision.reasons : []),
    "Server 'db' waits for workspace trust: this workspace is in Restricted Mode, and the server comes from .vscode/mcp.json; " +
      'uses ${workspaceFolder}. Trust the workspace to start it.',
  );
  const fromSettings = parseServersSetting({ w: { command: 'srv' } }, 'settings-workspace', 'plangate.servers (workspace settings)')
    .servers[0]!;
  assert.deepEqual(decideStart(fromSettings, untrusted), {
    kind: 'waitForTrust',
    reasons: ['comes from plangate.servers (workspace settings)'],
  });
  // granting trust starts them all
  assert.deepEqual(decideStart(fromFile, { ...untrusted, trusted: true }), { kind: 'start', cwd: FOLDER });
  assert.deepEqual(decideStart(fromSettings, { ...untrusted, trusted: true }), { kind: 'start', cwd: FOLDER });
});

test('untrusted: resolveServer substitutes nothing of the folder, reads no envFile in it, and asks for no input', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plangate-trust-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, '.env'), 'PLANTED=1\n');
  const asked: string[] = [];
  const ctx: ResolveContext = {
    trusted: false,
    workspaceFolder: dir,
    userHome: HOME,
    env: {},
    inputs: [{ id: 'tok', type: 'promptString', description: 'Token', password: false }],
    resolveInput: async (id) => {
      asked.push(id);
      return 'value';
    },
  };
  const [npx, envFile, input] = userServers({
    npx: { command: 'npx', args: ['-y', 'pkg', '${workspaceFolder}'] },
    envFile: { command: 'srv', envFile: '.env' },
    input: { url: 'http://127.0.0.1:9/mcp', headers: { 'X-Token': '${input:tok}' } },
  });
  await assert.rejects(
    resolveServer(npx!, ctx),
    (err: Error) =>
      err instanceof TrustRequiredError &&
      err.server === 'npx' &&
      /waits for workspace trust.*uses \$\{workspaceFolder\}/.test(err.message) &&
      !err.message.includes(dir),
  );
  await assert.rejects(
    resolveServer(envFile!, ctx),
    (err: Error) => err instanceof TrustRequiredError && /reads envFile "\.env"/.test(err.message),
  );
  await assert.rejects(resolveServer(input!, ctx), TrustRequiredError);
  assert.deepEqual(asked, [], 'no input was asked for');
});

test("untrusted: a user server like `node -e \"require('./planted')\"` does not load the folder's module", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plangate-trust-'));
  const home = path.join(dir, 'home');
  const folder = path.join(dir, 'project');
  t.after(() => rm(dir, { recursive: true, force: true }));
  await mkdir(home);
  await mkdir(folder);
  const marker = path.join(dir, 'planted-ran');
  // what `python3 -m mod` or `npx -y pkg` does: load a module by a name that resolves in the working directory
  await writeFile(path.join(folder, 'planted.js'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
  const server = one({ command: process.execPath, args: ['-e', "try { require('./planted.js') } catch {}"] });
  const resolved = await resolveServer(server, {
    trusted: false,
    workspaceFolder: folder,
    userHome: home,
    env: {},
    resolveInput: async () => undefined,
  });
  assert.equal(resolved.type, 'stdio');
  if (resolved.type !== 'stdio') return;
  const run = spawnSync(resolved.command, resolved.args, { cwd: resolved.cwd, env: { ...process.env, ...resolved.env }, timeout: 20_000 });
  assert.equal(run.status, 0, String(run.stderr));
  assert.equal(existsSync(marker), false, "the folder's planted.js ran");
});
