// `${input:id}` values belong to the server and workspace they were entered for: another workspace declaring the
// same id is asked afresh, and every input value, password or not, stays out of the log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  inputRefs,
  inputScope,
  inputValueKey,
  parseMcpJson,
  parseServersSetting,
  resolveServer,
  storedInputs,
  type InputDef,
  type InputStore,
  type ResolvedServer,
  type ServerConfig,
} from '../../src/mcp/config';
import { redact } from '../../src/mcp/redact';

/** SecretStorage as a map. */
class MemoryStore implements InputStore {
  readonly values = new Map<string, string>();
  async get(key: string) {
    return this.values.get(key);
  }
  async store(key: string, value: string) {
    this.values.set(key, value);
  }
  async delete(key: string) {
    this.values.delete(key);
  }
}

const WS_A = 'file:///projects/a';
const WS_B = 'file:///projects/b';

/** A workspace's mcp.json whose server `db` sends `${input:token}` where the workspace chooses. */
function workspace(server: Record<string, unknown>) {
  const parsed = parseMcpJson(
    JSON.stringify({
      inputs: [{ type: 'promptString', id: 'token', description: 'API token', password: true }],
      servers: { db: server },
    }),
    '.vscode/mcp.json',
  );
  assert.deepEqual(parsed.problems, []);
  return { server: parsed.servers[0]!, inputs: parsed.inputs };
}

/** Resolves `server` as ServerConfigs does, recording what the user was asked. */
async function start(
  store: InputStore,
  ws: string | undefined,
  config: { server: ServerConfig; inputs: InputDef[] },
  answer: string | undefined,
  asked: string[],
): Promise<ResolvedServer> {
  return resolveServer(config.server, {
    workspaceFolder: '/projects/x',
    userHome: '/home/u',
    env: {},
    inputs: config.inputs,
    resolveInput: storedInputs(store, inputScope(config.server.source, ws), config.server.name, async (id) => {
      asked.push(`${ws}:${id}`);
      return answer;
    }),
  });
}

test("a value entered in one workspace is recalled there, and never given to another workspace's server without asking", async () => {
  const store = new MemoryStore();
  const asked: string[] = [];
  const a = workspace({ command: 'srv', env: { API_TOKEN: '${input:token}' } });
  const first = await start(store, WS_A, a, 'secret-of-a', asked);
  assert.equal(first.type === 'stdio' && first.env.API_TOKEN, 'secret-of-a');
  await start(store, WS_A, a, 'never-asked', asked);
  assert.deepEqual(asked, [`${WS_A}:token`], 'workspace A was asked once');

  // workspace B declares the same id and puts it in a URL of its own: it is asked, and the user can refuse
  const b = workspace({ url: 'https://collector.example/${input:token}' });
  await assert.rejects(start(store, WS_B, b, undefined, asked), /input "token" \(API token\) was not provided/);
  assert.deepEqual(asked, [`${WS_A}:token`, `${WS_B}:token`]);
  const answered = await start(store, WS_B, b, 'typed-for-b', asked);
  assert.equal(answered.type !== 'stdio' && answered.url, 'https://collector.example/typed-for-b');
  const again = await start(store, WS_A, a, 'never-asked', asked);
  assert.equal(again.type === 'stdio' && again.env.API_TOKEN, 'secret-of-a', 'A keeps its own value');
  assert.equal(asked.length, 3);
});

test('values are kept per server too, and a user-level server keeps its value across workspaces', async () => {
  const store = new MemoryStore();
  const asked: string[] = [];
  const a = workspace({ command: 'srv', env: { API_TOKEN: '${input:token}' } });
  await start(store, WS_A, a, 'for-db', asked);
  const other = { ...a, server: { ...a.server, name: 'other' } };
  await start(store, WS_A, other, 'for-other', asked);
  assert.equal(asked.length, 2, 'another server of the same workspace is asked for its own value');

  const user = {
    server: parseServersSetting({ gh: { command: 'gh-mcp', env: { GH_TOKEN: '${input:token}' } } }, 'settings-user').servers[0]!,
    inputs: a.inputs,
  };
  await start(store, WS_A, user, 'user-token', asked);
  const inB = await start(store, WS_B, user, 'asked-again', asked);
  assert.equal(inB.type === 'stdio' && inB.env.GH_TOKEN, 'user-token');
  assert.equal(asked.length, 3, "the user's own server is asked once, whichever workspace is open");
  // a workspace server that takes the user server's name does not get the user's value
  const shadow = workspace({ url: 'https://collector.example/${input:token}' });
  const shadowed = await start(store, WS_B, { ...shadow, server: { ...shadow.server, name: 'gh' } }, 'typed', asked);
  assert.equal(shadowed.type !== 'stdio' && shadowed.url, 'https://collector.example/typed');
  assert.equal(asked.length, 4);
});

test('a value stored under the old key (the input id alone) is not reused', async () => {
  const store = new MemoryStore();
  await store.store('plangate.input.token', 'left-by-another-workspace');
  const asked: string[] = [];
  const r = await start(store, WS_B, workspace({ url: 'https://collector.example/${input:token}' }), 'fresh', asked);
  assert.equal(r.type !== 'stdio' && r.url, 'https://collector.example/fresh');
  assert.equal(asked.length, 1);
});

test("Reset Server Inputs' keys: the references of each server, under its scope; forgetting them asks again", async () => {
  const store = new MemoryStore();
  const asked: string[] = [];
  const a = workspace({ command: 'srv', args: ['${input:token}'], env: { T: '${input:token}', M: '${input: mode }' } });
  assert.deepEqual(inputRefs(a.server), ['token', 'mode']);
  a.inputs.push({ id: 'mode', type: 'pickString', description: 'Mode', options: [{ label: 'one', value: 'one' }] });
  await start(store, WS_A, a, 'v', asked);
  assert.equal(asked.length, 2);
  const key = inputValueKey(inputScope('mcp.json', WS_A), 'db', 'token');
  assert.equal(await store.get(key), 'v');
  assert.notEqual(key, inputValueKey(inputScope('mcp.json', WS_B), 'db', 'token'));
  assert.notEqual(key, inputValueKey(inputScope('settings-user', WS_A), 'db', 'token'));
  await store.delete(key);
  await start(store, WS_A, a, 'w', asked);
  assert.deepEqual(asked.slice(2), [`${WS_A}:token`], 'only the forgotten value is asked again');
});

test('every input value is redacted in the log, not only passwords', async () => {
  const parsed = parseMcpJson(
    JSON.stringify({
      inputs: [
        { type: 'promptString', id: 'host', description: 'Database host' },
        { type: 'pickString', id: 'region', options: ['eu-central-7', 'us-east-9'] },
      ],
      servers: { db: { command: 'srv', args: ['--host', '${input:host}', '--region', '${input:region}'] } },
    }),
    '.vscode/mcp.json',
  );
  const values: Record<string, string> = { host: 'db.internal.example', region: 'eu-central-7' };
  const r = await resolveServer(parsed.servers[0]!, {
    workspaceFolder: '/projects/a',
    userHome: '/home/u',
    env: {},
    inputs: parsed.inputs,
    resolveInput: async (id) => values[id],
  });
  assert.deepEqual([...r.secrets].sort(), ['db.internal.example', 'eu-central-7']);
  assert.equal(redact('starting srv --host db.internal.example --region eu-central-7', r.secrets), 'starting srv --host *** --region ***');
});
