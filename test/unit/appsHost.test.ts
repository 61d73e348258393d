// A server app's requests, through the extension's own path: the fixture server over stdio (ServerRegistry, which
// declares the MCP Apps extension), the gate's door with its ledger, and an AppSession (src/mcp/appSession.ts) talking
// to a real ext-apps `App` — the runtime servers ship in their pages — over an in-memory link instead of the iframe.
// The app gets the tool's input and result after its handshake; its call of an app tool is asked first — by the
// door's policy (Plangate's default for an app's calls), on the single-call card — then sent (ledgered, entrance "app",
// with the verdict and the answer); a denied call sends nothing and the app hears the user's note; a user's allow
// rule lets calls go without asking; a model-only tool, a tool the server does not offer and a non-http link are
// refused without asking; teardown reaches the app.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from '@modelcontextprotocol/ext-apps';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { readCallLog } from '../../fixture/callLog';
import { checkAppResource, isAppRefusal } from '../../src/core/apps/appResource';
import { appResourceUri } from '../../src/core/apps/appTool';
import type { CallAskAnswer } from '../../src/core/engine/door';
import { Gate } from '../../src/core/engine/gate';
import { evaluate } from '../../src/core/policy/evaluate';
import { EMPTY_RULES, type PolicyRules } from '../../src/core/policy/rules';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import type { ResolvedServer } from '../../src/mcp/config';
import { AppSession } from '../../src/mcp/appSession';
import { ServerRegistry } from '../../src/mcp/registry';
import { fixtureCommand } from './helpers/fixture';

test("an app's requests over stdio: handshake, asked calls through the door, refusals that send nothing", async (t) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'plangate-apps-')));
  const callLog = join(root, 'calls.jsonl');
  const fixture = fixtureCommand(['--root', root, '--call-log', callLog]);
  const servers: ResolvedServer[] = [
    { name: 'fixture', source: 'mcp.json', type: 'stdio', command: fixture.command, args: fixture.args, env: {}, secrets: [] },
  ];
  const registry = new ServerRegistry();
  const sink = new MemoryLedgerSink();
  const workflow = new Workflow(sink);
  let n = 0;
  const asked: string[] = [];
  let answer: CallAskAnswer = { answer: 'once' };
  let rules: PolicyRules = EMPTY_RULES;
  const gate = new Gate(workflow, {
    invoker: registry,
    settings: () => ({ stepTimeoutMs: 20_000, allowCrossServer: true }),
    newId: () => `id-${++n}`,
    policy: {
      policy: (call) => evaluate(rules, call),
      toolInfo: (server, tool) => registry.get(server)?.tools.find((x) => x.name === tool),
      ask: async (ask) => {
        asked.push(`${ask.entrance} ${ask.call.tool} ${JSON.stringify(ask.call.args)} ${ask.verdict.rule.id}`);
        return answer;
      },
    },
  });
  t.after(async () => {
    gate.dispose();
    await registry.dispose();
    rmSync(root, { recursive: true, force: true });
  });
  await registry.applyConfig(servers);
  const conn = registry.get('fixture')!;
  const tools = () => readCallLog(callLog).map((c) => c.tool);

  // The tool carries its page; the page reads back through the same connection and passes the checks.
  const uri = appResourceUri(conn.tools.find((x) => x.name === 'app_panel'));
  assert.equal(uri, 'ui://fixture/panel-app');
  const { read } = await conn.readResource(uri!);
  const page = checkAppResource(uri!, read, 'n');
  assert.ok(!isAppRefusal(page));
  assert.ok(isAppRefusal(checkAppResource('ui://fixture/bad-mime', (await conn.readResource('ui://fixture/bad-mime')).read, 'n')));
  assert.ok(isAppRefusal(checkAppResource('ui://fixture/too-big', (await conn.readResource('ui://fixture/too-big')).read, 'n')));

  const result = await registry.callTool('fixture', 'app_panel', { label: 'Ada' });
  const logs: string[] = [];
  const opened: string[] = [];
  const [appSide, hostSide] = InMemoryTransport.createLinkedPair();
  const session = new AppSession(
    {
      server: 'fixture',
      uri: uri!,
      tool: conn.tools.find((x) => x.name === 'app_panel')!,
      args: { label: 'Ada' },
      result,
      hostContext: { theme: 'dark' },
    },
    {
      post: (m) => void hostSide.send(m),
      tools: () => conn.tools,
      call: (tool, args) =>
        gate.door.call({ server: 'fixture', tool, args, entrance: 'app', decision: { by: 'app', what: 'test: the app asked for it' } }),
      openLink: async (url) => {
        opened.push(url.toString());
        return true;
      },
      putInChat: async () => true,
      log: (_level, text) => logs.push(text),
    },
  );
  hostSide.onmessage = (m) => session.deliver(m);
  await hostSide.start();

  const app = new App({ name: 'test-app', version: '1.0.0' }, {}, { autoResize: false });
  const input = new Promise((resolve) => (app.ontoolinput = resolve));
  const shown = new Promise<{ content?: unknown[] }>((resolve) => (app.ontoolresult = resolve));
  let tornDown = false;
  app.onteardown = async () => {
    tornDown = true;
    return {};
  };
  await app.connect(appSide);
  assert.equal(app.getHostContext()?.theme, 'dark');
  assert.deepEqual(await input, { arguments: { label: 'Ada' } });
  assert.deepEqual((await shown).content, [{ type: 'text', text: 'App panel for Ada' }]);
  assert.equal(session.initialized, true);

  // Allowed once on the card: asked with the exact call (Plangate's default for an app), sent once through the door,
  // ledgered with entrance "app", the verdict and the answer.
  const echoed = await app.callServerTool({ name: 'app_echo', arguments: { text: 'hi' } });
  assert.deepEqual(echoed.content, [{ type: 'text', text: 'echo: hi' }]);
  assert.deepEqual(asked, ['app app_echo {"text":"hi"} plangate:app']);
  assert.deepEqual(tools(), ['app_panel', 'app_echo']);
  const sent = () =>
    sink.entries
      .map((e) => e.event)
      .filter((e) => e.type === 'callSent')
      .map((e) => {
        const c = e as { tool: string; entrance: string; policy?: { ruleId: string; answer?: string } };
        return `${c.entrance} ${c.tool} ${c.policy?.ruleId} ${c.policy?.answer ?? '-'}`;
      });
  assert.deepEqual(sent(), ['app app_echo plangate:app once']);

  // Denied on the card, with a note: nothing sent; the app hears the refusal with the note; the ledger has it.
  answer = { answer: 'deny', note: 'not now' };
  await assert.rejects(app.callServerTool({ name: 'app_echo', arguments: { text: 'no' } }), /denied the call to 'app_echo'.*not now/);
  assert.deepEqual(tools(), ['app_panel', 'app_echo']);
  assert.deepEqual(sent(), ['app app_echo plangate:app once', 'app app_echo plangate:app deny']);

  // The user's allow rule for this app's calls: sent without asking.
  rules = {
    user: [{ id: 'apps-ok', index: 0, source: 'user', decision: 'allow', reason: 'trusted app', server: 'fixture', entrance: ['app'] }],
    workspace: [],
  };
  asked.length = 0;
  await app.callServerTool({ name: 'app_echo', arguments: { text: 'ok' } });
  assert.deepEqual(asked, []);
  assert.deepEqual(tools(), ['app_panel', 'app_echo', 'app_echo']);
  // A deny rule: refused with its reason, never asked.
  rules = {
    user: [{ id: 'no-apps', index: 0, source: 'user', decision: 'deny', reason: 'no app calls here', entrance: ['app'] }],
    workspace: [],
  };
  await assert.rejects(app.callServerTool({ name: 'app_echo', arguments: { text: 'x' } }), /no app calls here \(rule 'no-apps'\)/);
  assert.deepEqual(asked, []);
  assert.deepEqual(tools(), ['app_panel', 'app_echo', 'app_echo']);
  rules = EMPTY_RULES;

  // Not asked at all: a model-only tool, a tool the server does not offer, arguments that are not an object.
  answer = { answer: 'once' };
  await assert.rejects(app.callServerTool({ name: 'app_panel', arguments: {} }), /not meant for apps/);
  await assert.rejects(app.callServerTool({ name: 'write_file', arguments: {} }), /offers no tool 'write_file'/);
  assert.deepEqual(asked, []);
  assert.deepEqual(tools(), ['app_panel', 'app_echo', 'app_echo']);

  // Links: http(s) goes to the host's asking; anything else never does.
  assert.equal((await app.openLink({ url: 'javascript:alert(1)' })).isError, true);
  assert.equal((await app.openLink({ url: 'https://example.com/x' })).isError, undefined);
  assert.deepEqual(opened, ['https://example.com/x']);

  // Logs reach the log; garbage that is not JSON-RPC is dropped without a word.
  await app.sendLog({ level: 'info', logger: 'form', data: { type: 'completed', summary: 'done' } });
  session.deliver({ hello: 'not json-rpc' });
  session.deliver('x'.repeat(10));
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(
    logs.some((l) => l.includes('form: {"type":"completed","summary":"done"}')),
    logs.join('\n'),
  );

  await session.teardown();
  assert.equal(tornDown, true);
});
