import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  ConfigError,
  formatConfigProblem,
  isWorkspaceSource,
  parseMcpJson,
  parseServersSetting,
  resolveServer,
  serverFingerprint,
  type InputDef,
  type ResolveContext,
  type ServerConfig,
} from '../../src/mcp/config';
import { redact, redactMap } from '../../src/mcp/redact';

const FILE = '.vscode/mcp.json';

function ctx(over: Partial<ResolveContext> = {}): ResolveContext {
  return {
    workspaceFolder: '/ws/proj',
    env: { HOME: '/home/u', API: 'from-env' },
    userHome: '/home/u',
    resolveInput: async () => undefined,
    ...over,
  };
}

test('reads VS Code mcp.json with comments and trailing commas, servers in file order, type inferred', () => {
  const text = `{
    // my servers
    "servers": {
      "zeta": { "command": "npx", "args": ["-y", "srv",], },  /* stdio */
      "10": { "url": "http://127.0.0.1:3000/mcp", "headers": { "Authorization": "Bearer x" } },
      "alpha": { "type": "sse", "url": "http://127.0.0.1:3001/sse" },
    },
    "inputs": [ { "type": "promptString", "id": "tok", "description": "API token", "password": true }, ],
  }`;
  const r = parseMcpJson(text, FILE);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(
    r.servers.map((s) => [s.name, s.type]),
    [
      ['zeta', 'stdio'],
      ['10', 'http'],
      ['alpha', 'sse'],
    ],
  );
  const zeta = r.servers[0] as Extract<ServerConfig, { type: 'stdio' }>;
  assert.deepEqual(zeta.args, ['-y', 'srv']);
  assert.equal(zeta.source, 'mcp.json');
  assert.deepEqual(r.inputs, [{ id: 'tok', type: 'promptString', description: 'API token', password: true }]);
});

test('a syntax error is reported with file, line and column; servers outside it survive', () => {
  const text = '{\n  "servers": {\n    "ok": { "command": "node" },\n    "bad": { "command": "x" "args": [] }\n  }\n}';
  const r = parseMcpJson(text, FILE);
  assert.deepEqual(
    r.servers.map((s) => s.name),
    ['ok'],
  );
  assert.equal(r.problems.length, 1);
  const p = r.problems[0]!;
  assert.equal(p.line, 4);
  assert.equal(p.column, 29);
  assert.match(formatConfigProblem(p), /^\.vscode\/mcp\.json:4:29: syntax error: expected a comma$/);
});

test('schema errors name the key path and the position; one bad server does not drop the others', () => {
  const text = `{
  "servers": {
    "db": { "command": 42 },
    "web": { "type": "http" },
    "neither": { "args": ["x"] },
    "weird": { "type": "ftp", "url": "ftp://x" },
    "envy": { "command": "srv", "env": { "A": 1, "B": null, "C": {} } },
    "good": { "command": "node", "args": ["server.js"] }
  }
}`;
  const r = parseMcpJson(text, FILE);
  assert.deepEqual(
    r.servers.map((s) => s.name),
    ['good'],
  );
  const texts = r.problems.map(formatConfigProblem);
  assert.ok(texts.includes('.vscode/mcp.json:3:24: servers.db.command: expected a string, got a number'), texts.join('\n'));
  assert.ok(
    texts.some((t) => t.endsWith('servers.web.url: an "http" server needs "url"')),
    texts.join('\n'),
  );
  assert.ok(
    texts.some((t) => t.endsWith('servers.neither: needs "command" (a stdio server) or "url" (an http/sse server)')),
    texts.join('\n'),
  );
  assert.ok(
    texts.some((t) => /servers\.weird\.type: expected "stdio" or "http" or "sse", got "ftp"$/.test(t)),
    texts.join('\n'),
  );
  assert.ok(
    texts.some((t) => t.endsWith('servers.envy.env.C: expected a string, got an object')),
    texts.join('\n'),
  );
});

test('not an object, bad inputs, __proto__ keys are data', () => {
  assert.match(formatConfigProblem(parseMcpJson('[]', FILE).problems[0]!), /expected a JSON object with "servers"/);
  assert.deepEqual(parseMcpJson('', FILE), { servers: [], inputs: [], problems: [] });
  const r = parseMcpJson(
    '{"servers":{"__proto__":{"command":"node"},"constructor":{"command":"x"}},"inputs":[{"id":"a","type":"command"}]}',
    FILE,
  );
  assert.deepEqual(
    r.servers.map((s) => s.name),
    ['__proto__', 'constructor'],
  );
  assert.equal(({} as Record<string, unknown>).command, undefined);
  assert.deepEqual(
    r.problems.map((p) => p.path),
    ['inputs.0.type'],
  );
});

test('the plangate.servers setting uses the same schema and keeps its source', () => {
  const r = parseServersSetting({ a: { command: 'node' }, b: { url: 7 } }, 'settings-workspace');
  assert.deepEqual(
    r.servers.map((s) => [s.name, s.source, s.file]),
    [['a', 'settings-workspace', 'plangate.servers']],
  );
  assert.deepEqual(r.problems.map(formatConfigProblem), ['plangate.servers: b.url: expected a string, got a number']);
  assert.match(formatConfigProblem(parseServersSetting([], 'settings-user').problems[0]!), /expected an object of servers, got an array/);
  assert.equal(isWorkspaceSource('settings-user'), false);
  assert.equal(isWorkspaceSource('settings-workspace'), true);
  assert.equal(isWorkspaceSource('mcp.json'), true);
});

test('resolveServer substitutes variables, inputs (asked once), and reads envFile relative to the workspace folder', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'plangate-config-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, '.env'), '# comment\nFROM_FILE=file-value\nOVERRIDDEN=file\n');
  const text = `{
    "inputs": [{ "type": "promptString", "id": "token", "description": "API token", "password": true }],
    "servers": { "s": {
      "command": "\${workspaceFolder}/bin/srv", "args": ["\${workspaceFolderBasename}", "\${userHome}\${pathSeparator}x", "\${env:API}", "\${env:NOPE}", "\${unknown}"],
      "env": { "API_TOKEN": "\${input:token}", "AGAIN": "t=\${input:token}", "OVERRIDDEN": "env", "N": 5 },
      "envFile": ".env"
    } }
  }`;
  const parsed = parseMcpJson(text, FILE);
  const asked: string[] = [];
  const r = await resolveServer(
    parsed.servers[0]!,
    ctx({
      workspaceFolder: dir,
      inputs: parsed.inputs,
      resolveInput: async (id, def: InputDef) => {
        asked.push(`${id}:${def.description}`);
        return 's3cret-value';
      },
    }),
  );
  assert.equal(r.type, 'stdio');
  if (r.type !== 'stdio') return;
  assert.deepEqual(asked, ['token:API token']);
  assert.equal(r.command, `${dir}/bin/srv`);
  assert.deepEqual(r.args, [path.basename(dir), `/home/u${path.sep}x`, 'from-env', '', '${unknown}']);
  assert.deepEqual(r.env, { FROM_FILE: 'file-value', OVERRIDDEN: 'env', API_TOKEN: 's3cret-value', AGAIN: 't=s3cret-value', N: '5' });
  assert.equal(r.cwd, dir);
  assert.ok(r.secrets.includes('s3cret-value'));
  assert.equal(redact(`starting with t=s3cret-value`, r.secrets), 'starting with t=***');
});

test('resolveServer errors name the server, the input, and the fix', async () => {
  const parsed = parseMcpJson(
    '{"servers":{"db":{"command":"x","env":{"K":"${input:missing}"}},"w":{"command":"${workspaceFolder}/x"},"e":{"command":"x","envFile":"/nope/.env"}},"inputs":[{"type":"promptString","id":"p","description":"Pass"}]}',
    FILE,
  );
  const [db, w, e] = parsed.servers;
  await assert.rejects(
    resolveServer(db!, ctx({ inputs: parsed.inputs })),
    (err: Error) =>
      err instanceof ConfigError &&
      err.server === 'db' &&
      /Server 'db' .*\$\{input:missing\} refers to an input that is not defined/.test(err.message),
  );
  await assert.rejects(resolveServer(w!, ctx({ workspaceFolder: undefined })), /Server 'w' .*\$\{workspaceFolder\} needs an open folder/);
  await assert.rejects(resolveServer(e!, ctx()), /Server 'e' .*envFile \/nope\/\.env could not be read \(ENOENT\)/);
  const withInput = parseMcpJson(
    '{"servers":{"h":{"url":"http://h/${input:p}"}},"inputs":[{"type":"promptString","id":"p","description":"Pass"}]}',
    FILE,
  );
  await assert.rejects(resolveServer(withInput.servers[0]!, ctx({ inputs: withInput.inputs })), /input "p" \(Pass\) was not provided/);
});

test('http servers: headers resolved, secret header values recorded; fingerprint changes only with what matters', async () => {
  const parsed = parseMcpJson(
    '{"servers":{"h":{"url":"http://127.0.0.1:1/mcp","headers":{"Authorization":"Bearer ${env:API}","X-Trace":"on"}}}}',
    FILE,
  );
  const r = await resolveServer(parsed.servers[0]!, ctx());
  assert.deepEqual(r.type === 'http' && r.headers, { Authorization: 'Bearer from-env', 'X-Trace': 'on' });
  assert.deepEqual(r.secrets, ['Bearer from-env']);
  assert.deepEqual(redactMap({ Authorization: 'Bearer from-env', 'X-Trace': 'on' }), { Authorization: '***', 'X-Trace': 'on' });
  const again = await resolveServer(
    parseMcpJson('{"servers":{"h":{"headers":{"X-Trace":"on","Authorization":"Bearer ${env:API}"},"url":"http://127.0.0.1:1/mcp"}}}', FILE)
      .servers[0]!,
    ctx(),
  );
  assert.equal(serverFingerprint(again), serverFingerprint(r));
  const changed = await resolveServer(parsed.servers[0]!, ctx({ env: { API: 'other' } }));
  assert.notEqual(serverFingerprint(changed), serverFingerprint(r));
  await assert.rejects(
    resolveServer(parseMcpJson('{"servers":{"u":{"url":"not a url"}}}', FILE).servers[0]!, ctx()),
    /"url" is not a valid URL/,
  );
});

test('redact hides credentials in free text', () => {
  assert.equal(redact('Authorization: Bearer abcdef123456 sent'), 'Authorization: Bearer *** sent');
  assert.equal(redact('GITHUB_TOKEN=ghp_123 and api_key: "xyz"'), 'GITHUB_TOKEN=*** and api_key: ***');
  assert.equal(redact('max_tokens: 100, ok'), 'max_tokens: 100, ok');
});

test('pickString inputs read their options (strings or {label, value}); a command input is refused by name', () => {
  const r = parseMcpJson(
    `{
    "servers": { "db": { "command": "x", "env": { "MODE": "\${input:mode}" } } },
    "inputs": [
      { "type": "pickString", "id": "mode", "description": "Which database", "options": ["dev", "prod"], "default": "dev" },
      { "type": "pickString", "id": "region", "options": [{ "label": "Europe", "value": "eu-1" }, { "value": "us-1" }] },
      { "type": "command", "id": "tok", "command": "other.extension.getToken" },
      { "type": "pickString", "id": "empty", "options": [] }
    ]
  }`,
    FILE,
  );
  assert.deepEqual(r.inputs, [
    {
      id: 'mode',
      type: 'pickString',
      description: 'Which database',
      options: [
        { label: 'dev', value: 'dev' },
        { label: 'prod', value: 'prod' },
      ],
      default: 'dev',
    },
    {
      id: 'region',
      type: 'pickString',
      description: 'region',
      options: [
        { label: 'Europe', value: 'eu-1' },
        { label: 'us-1', value: 'us-1' },
      ],
    },
  ]);
  assert.deepEqual(
    r.problems.map((p) => `${p.path}: ${p.message}`),
    [
      'inputs.2.type: expected "promptString" or "pickString" (Plangate does not run "command" inputs), got "command"',
      'inputs.3.options: must not be empty',
    ],
  );
});
