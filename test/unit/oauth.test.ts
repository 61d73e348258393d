// Sign-in to remote MCP servers (OAuth 2.1, MCP authorization spec) through the real flow: the SDK's own example server
// with its demo authorization server (a peer nobody here wrote), and a fixture authorization server for the variants
// the example cannot show (2025-03-26 fallbacks, pre-registered clients, token endpoint auth methods, refresh,
// step-up, failing steps). The "browser" fetches the authorization URL and follows its redirects, as a browser would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMcpJson, resolveServer, type ResolvedHttpServer } from '../../src/mcp/config';
import { ServerConnection, type LogEntry, type OAuthSupport, type SignInInteraction } from '../../src/mcp/connection';
import { listenForRedirect } from '../../src/mcp/oauth/loopback';
import { MemoryOAuthStore, oauthKey, readRecord } from '../../src/mcp/oauth/store';
import { SignInRequiredError } from '../../src/mcp/oauth/errors';
import { startOAuthFixture, type OAuthFixtureOptions } from './helpers/oauthFixture';
import { startSdkOAuthExample, type SdkOAuthExample } from './helpers/sdkOAuthExample';

/** A browser that follows the authorization page's redirects back to the loopback listener. */
function browser(): SignInInteraction & { opened: URL[] } {
  const opened: URL[] = [];
  return {
    opened,
    listen: (preferredPort) => listenForRedirect({ preferredPort }),
    async open(url) {
      opened.push(url);
      // Not awaited by the flow's logic: the listener answers only once the code arrived.
      void fetch(url, { redirect: 'follow' })
        .then((r) => r.text())
        .catch(() => undefined);
    },
  };
}

function httpServer(url: string, name = 'remote'): ResolvedHttpServer {
  return { name, source: 'settings-user', type: 'http', url, headers: {}, secrets: [] };
}

function connect(url: string, oauth: Partial<OAuthSupport> & { interaction?: SignInInteraction }) {
  const store = oauth.store ?? new MemoryOAuthStore();
  const conn = new ServerConnection(httpServer(url), {
    reconnect: { maxAttempts: 0 },
    startTimeoutMs: 15_000,
    oauth: { store, scope: 'test', clientName: 'Plangate tests', waitMs: 15_000, ...oauth },
  });
  const log: LogEntry[] = [];
  conn.onLog((e) => log.push(e));
  return { conn, store, log };
}

const text = (r: { content?: unknown }) => ((r.content as { text?: string }[] | undefined) ?? []).map((c) => c.text).join('');

describe("sign-in against the SDK's example server and its demo authorization server", () => {
  let server: SdkOAuthExample;
  before(async () => {
    server = await startSdkOAuthExample();
  });
  after(() => server.close());

  test('a background start ends in "sign-in required" without registering a client; Sign in runs discovery, registration, PKCE and the token request, then a tool call works; Sign out forgets it', async () => {
    const b = browser();
    const { conn, store, log } = connect(server.url, { interaction: b });
    await assert.rejects(conn.start(), /Sign in/);
    assert.equal(conn.state, 'signInRequired');
    assert.equal((await readRecord(store, oauthKey('test', server.url))).client, undefined, 'nothing registered in the background');
    assert.equal(b.opened.length, 0, 'no browser in the background');

    await conn.signIn();
    assert.equal(conn.state, 'running');
    assert.equal(b.opened.length, 1);
    const authorize = b.opened[0]!;
    assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(authorize.searchParams.get('code_challenge'));
    assert.ok(authorize.searchParams.get('state'));
    assert.equal(authorize.searchParams.get('resource'), server.url, 'RFC 8707 resource names the MCP server');
    assert.equal(authorize.searchParams.get('scope'), 'mcp:tools', 'the scopes_supported of the resource metadata');
    const record = await readRecord(store, oauthKey('test', server.url));
    assert.ok(record.client?.client_id, 'registered dynamically');
    assert.ok(record.tokens?.access_token);
    assert.equal(text(await conn.callTool('greet', { name: 'Ada' })), 'Hello, Ada!');
    for (const e of log) assert.ok(!e.text.includes(record.tokens.access_token), `token in the log: ${e.text}`);

    // A later start reuses the stored sign-in: no browser.
    await conn.stop();
    await conn.start();
    assert.equal(conn.state, 'running');
    assert.equal(b.opened.length, 1);

    await conn.signOut();
    assert.equal(conn.state, 'signInRequired');
    assert.deepEqual(await readRecord(store, oauthKey('test', server.url)), {});
    await conn.dispose();
  });

  test('the redirect listener refuses a response whose state is not the one sent, and keeps waiting for the real one', async () => {
    const b = browser();
    let forged: Promise<{ status: number; text: string }> | undefined;
    const sneaky: SignInInteraction = {
      listen: b.listen,
      async open(url) {
        // Another page sends the browser to the redirect URI first, with a code and a state of its own.
        const redirect = new URL(url.searchParams.get('redirect_uri')!);
        redirect.searchParams.set('code', 'forged');
        redirect.searchParams.set('state', 'not-the-state');
        forged = fetch(redirect).then(async (r) => ({ status: r.status, text: await r.text() }));
        await b.open(url, 'remote');
      },
    };
    const { conn } = connect(server.url, { interaction: sneaky });
    await conn.signIn();
    const refused = await forged!;
    assert.equal(refused.status, 400);
    assert.match(refused.text, /state does not match/);
    assert.equal(conn.state, 'running');
    assert.equal(text(await conn.callTool('greet', { name: 'x' })), 'Hello, x!');
    await conn.dispose();
  });
});

describe('sign-in variants against a fixture authorization server', () => {
  const fixtures: { close(): Promise<void> }[] = [];
  after(() => Promise.all(fixtures.map((f) => f.close())));
  const fixture = async (options: OAuthFixtureOptions) => {
    const f = await startOAuthFixture(options);
    fixtures.push(f);
    return f;
  };

  test('2025-11-25 without resource_metadata in the header: protected-resource metadata found at the path-aware well-known URL first, then the authorization server under its path; scope from WWW-Authenticate', async () => {
    const f = await fixture({ spec: '2025-11-25', headerMetadata: false });
    const b = browser();
    const { conn } = connect(f.url, { interaction: b });
    await conn.signIn();
    const probes = f.seen.requests.filter((r) => r.includes('/.well-known/'));
    assert.equal(probes[0], 'GET /.well-known/oauth-protected-resource/mcp');
    assert.ok(probes.includes('GET /.well-known/oauth-authorization-server/as'));
    assert.equal(b.opened[0]!.pathname, '/as/authorize');
    assert.equal(b.opened[0]!.searchParams.get('scope'), 'read');
    assert.equal(b.opened[0]!.searchParams.get('resource'), f.url);
    assert.equal(text(await conn.callTool('read_thing', {})), 'read ok');
    await conn.dispose();
  });

  test('2025-03-26 fallback: no protected-resource metadata, the authorization server metadata on the MCP server origin', async () => {
    const f = await fixture({ spec: '2025-03-26' });
    const b = browser();
    const { conn } = connect(f.url, { interaction: b });
    await conn.signIn();
    assert.ok(f.seen.requests.includes('GET /.well-known/oauth-authorization-server'));
    assert.equal(b.opened[0]!.pathname, '/authorize');
    assert.equal(text(await conn.callTool('read_thing', {})), 'read ok');
    await conn.dispose();
  });

  test('2025-03-26 fallback without any metadata: the default /register, /authorize and /token endpoints', async () => {
    const f = await fixture({ spec: '2025-03-26', legacyMetadata: false });
    const b = browser();
    const { conn } = connect(f.url, { interaction: b });
    await conn.signIn();
    assert.ok(f.seen.requests.includes('POST /register'));
    assert.ok(f.seen.requests.includes('POST /token'));
    assert.equal(b.opened[0]!.pathname, '/authorize');
    assert.equal(text(await conn.callTool('read_thing', {})), 'read ok');
    await conn.dispose();
  });

  for (const method of ['client_secret_basic', 'client_secret_post', 'none'] as const) {
    test(`a pre-registered client without dynamic registration authenticates at the token endpoint with ${method}`, async () => {
      const secret = method === 'none' ? undefined : 'pre-registered-secret-1234';
      const f = await fixture({
        spec: '2025-11-25',
        dcr: false,
        authMethods: [method],
        preRegistered: { clientId: 'plangate-pre', clientSecret: secret, method },
      });
      const { conn, log } = connect(f.url, {
        interaction: browser(),
        preRegistered: () => ({ clientId: 'plangate-pre', clientSecret: secret }),
      });
      await conn.signIn();
      assert.equal(f.seen.registrations, 0);
      assert.deepEqual(
        f.seen.tokens.map((t) => t.method),
        [method],
      );
      assert.equal(text(await conn.callTool('read_thing', {})), 'read ok');
      if (secret) for (const e of log) assert.ok(!e.text.includes(secret));
      await conn.dispose();
    });
  }

  test('an expired access token is refreshed with the refresh token, without a browser', async () => {
    const f = await fixture({ spec: '2025-11-25' });
    const b = browser();
    const { conn } = connect(f.url, { interaction: b });
    await conn.signIn();
    f.expireAccessTokens();
    assert.equal(text(await conn.callTool('read_thing', {})), 'read ok');
    assert.deepEqual(
      f.seen.tokens.map((t) => t.grant),
      ['authorization_code', 'refresh_token'],
    );
    assert.equal(b.opened.length, 1);
    // A connection started later (stored refresh token, expired access token) also refreshes silently.
    await conn.stop();
    f.expireAccessTokens();
    await conn.start();
    assert.equal(conn.state, 'running');
    assert.equal(b.opened.length, 1);
    await conn.dispose();
  });

  test('403 insufficient_scope: signs in once more with the new scope (not a refresh) and sends the call once more', async () => {
    const f = await fixture({ spec: '2025-11-25' });
    const b = browser();
    const { conn } = connect(f.url, { interaction: b });
    await conn.signIn();
    assert.equal(text(await conn.callTool('write_thing', {})), 'write ok');
    assert.equal(b.opened.length, 2);
    assert.equal(b.opened[1]!.searchParams.get('scope'), 'read write');
    assert.deepEqual(
      f.seen.tokens.map((t) => t.grant),
      ['authorization_code', 'authorization_code'],
    );
    assert.deepEqual(f.seen.calls, ['write_thing'], 'the refused call never reached the tool; the retry did, once');
    await conn.dispose();
  });

  test('403 insufficient_scope again after the step-up fails the call: one step-up, no loop', async () => {
    const f = await fixture({ spec: '2025-11-25', alwaysInsufficient: true });
    const b = browser();
    const { conn } = connect(f.url, { interaction: b });
    await conn.signIn();
    await assert.rejects(
      conn.callTool('write_thing', {}),
      /still refuses 'write_thing' after signing in \(it asks for scope: read write\)/,
    );
    assert.equal(b.opened.length, 2, 'one sign-in for the step-up, then no more');
    assert.deepEqual(f.seen.calls, []);
    assert.equal(conn.state, 'running');
    await conn.dispose();
  });

  test('errors name the step that failed and its URL: registration not offered, the token endpoint refusing, metadata failing', async () => {
    const noDcr = await fixture({ spec: '2025-11-25', dcr: false });
    const a = connect(noDcr.url, { interaction: browser() });
    await assert.rejects(a.conn.signIn(), (err: Error) => {
      assert.match(err.message, /sign-in failed at the registration step/);
      assert.match(err.message, /dynamic client registration/);
      assert.match(err.message, /clientId/);
      return true;
    });
    assert.equal(a.conn.state, 'error');

    const badToken = await fixture({ spec: '2025-11-25', fail: 'token' });
    const b = connect(badToken.url, { interaction: browser() });
    await assert.rejects(b.conn.signIn(), (err: Error) => {
      assert.match(err.message, /sign-in failed at the token step/);
      assert.ok(err.message.includes(`${badToken.origin}/as/token`), err.message);
      assert.match(err.message, /invalid_client/);
      return true;
    });

    const badMeta = await fixture({ spec: '2025-11-25', fail: 'metadata' });
    const c = connect(badMeta.url, { interaction: browser() });
    await assert.rejects(c.conn.signIn(), (err: Error) => {
      assert.match(err.message, /sign-in failed at the discovery step/);
      assert.ok(err.message.includes(`${badMeta.origin}/.well-known/oauth-authorization-server/as`), err.message);
      return true;
    });
    for (const x of [a, b, c]) await x.conn.dispose();
  });

  test('no access or refresh token ever reaches the log', async () => {
    const f = await fixture({ spec: '2025-11-25' });
    const { conn, log } = connect(f.url, { interaction: browser() });
    await conn.signIn();
    f.expireAccessTokens();
    await conn.callTool('read_thing', {});
    await conn.callTool('write_thing', {});
    const all = log.map((e) => e.text).join('\n');
    for (const t of f.issuedTokens()) assert.ok(!all.includes(t), `${t} is in the log`);
    await conn.dispose();
  });
});

describe('sign-in at any 401: a server that lets initialize through and asks for a sign-in only later', () => {
  const fixtures: { close(): Promise<void> }[] = [];
  after(() => Promise.all(fixtures.map((f) => f.close())));
  const fixture = async (options: OAuthFixtureOptions) => {
    const f = await startOAuthFixture(options);
    fixtures.push(f);
    return f;
  };
  const count = (f: { seen: { methods: { method: string; authorized: boolean }[] } }, method: string, authorized: boolean) =>
    f.seen.methods.filter((m) => m.method === method && m.authorized === authorized).length;

  test('401 at tools/list: a background start ends in "sign-in required" (nothing registered); Sign in signs in there, lists the tools once more, and runs', async () => {
    const f = await fixture({ spec: '2025-11-25', open: ['initialize', 'notifications/initialized'] });
    const b = browser();
    const { conn, store } = connect(f.url, { interaction: b });
    await assert.rejects(conn.start(), SignInRequiredError);
    assert.equal(conn.state, 'signInRequired');
    assert.equal(b.opened.length, 0, 'a background start opens no browser');
    assert.equal((await readRecord(store, oauthKey('test', f.url))).client, undefined, 'nothing registered in the background');

    await conn.signIn();
    assert.equal(conn.state, 'running');
    assert.deepEqual(
      conn.tools.map((t) => t.name),
      ['read_thing', 'write_thing'],
    );
    assert.equal(b.opened.length, 1, 'one sign-in');
    assert.equal(b.opened[0]!.searchParams.get('scope'), 'read', "the scope of the server's 401 challenge");
    // Refused once before the sign-in (nothing ran), sent once more after it.
    assert.equal(count(f, 'tools/list', true), 1);
    assert.equal(text(await conn.callTool('read_thing', {})), 'read ok');
    await conn.dispose();
  });

  test('401 at tools/call only: the call signs in, then is sent once more — it reaches the tool exactly once', async () => {
    const f = await fixture({ spec: '2025-11-25', open: ['initialize', 'notifications/initialized', 'tools/list'] });
    const b = browser();
    const { conn } = connect(f.url, { interaction: b });
    await conn.start();
    assert.equal(conn.state, 'running');
    assert.equal(b.opened.length, 0, 'nothing asked for a sign-in yet');
    assert.equal(text(await conn.callTool('read_thing', {})), 'read ok');
    assert.equal(b.opened.length, 1);
    assert.equal(count(f, 'tools/call', false), 1, 'the refused call');
    assert.equal(count(f, 'tools/call', true), 1, 'the call after the sign-in, once');
    assert.deepEqual(f.seen.calls, ['read_thing']);
    await conn.dispose();
  });

  test('401 at tools/list, then 403 insufficient_scope at a call: the step-up signs in with the wider scope and the call runs once', async () => {
    const f = await fixture({ spec: '2025-11-25', open: ['initialize', 'notifications/initialized'] });
    const b = browser();
    const { conn } = connect(f.url, { interaction: b });
    await conn.signIn();
    assert.equal(text(await conn.callTool('write_thing', {})), 'write ok');
    assert.deepEqual(
      b.opened.map((u) => u.searchParams.get('scope')),
      ['read', 'read write'],
    );
    assert.deepEqual(f.seen.calls, ['write_thing']);
    await conn.dispose();
  });

  test('a refused sign-in (the user declines at the authorization page) fails the start with a message naming the server; tools/list is not sent again', async () => {
    const f = await fixture({ spec: '2025-11-25', open: ['initialize', 'notifications/initialized'], deny: true });
    const b = browser();
    const { conn } = connect(f.url, { interaction: b });
    await assert.rejects(conn.signIn(), (err: Error) => {
      assert.match(err.message, /^Server 'remote': sign-in failed at the authorization step/);
      assert.match(err.message, /access_denied/);
      return true;
    });
    assert.equal(conn.state, 'error');
    assert.equal(b.opened.length, 1);
    assert.equal(count(f, 'tools/list', false), 1, 'refused once, never sent again');
    assert.equal(count(f, 'tools/list', true), 0);
    await conn.dispose();
  });

  test('a tool call whose sign-in is refused fails naming the server, and the call never ran', async () => {
    const f = await fixture({ spec: '2025-11-25', open: ['initialize', 'notifications/initialized', 'tools/list'], deny: true });
    const { conn } = connect(f.url, { interaction: browser() });
    await conn.start();
    await assert.rejects(conn.callTool('read_thing', {}), (err: Error) => {
      assert.match(err.message, /^Server 'remote': sign-in failed at the authorization step .*access_denied/);
      return true;
    });
    assert.deepEqual(f.seen.calls, []);
    assert.equal(count(f, 'tools/call', false), 1);
    assert.equal(conn.state, 'running');
    await conn.dispose();
  });
});

describe('mcp.json pre-registered client credentials', () => {
  test('"oauth": {"clientId", "clientSecret": "${input:…}"} resolves the secret from the input, keeps it among the secrets, and the connection uses the client', async () => {
    const parsed = parseMcpJson(
      JSON.stringify({
        inputs: [{ id: 'secret', type: 'promptString', description: 'Client secret', password: true }],
        servers: {
          remote: { type: 'http', url: 'http://127.0.0.1:1/mcp', oauth: { clientId: 'plangate-pre', clientSecret: '${input:secret}' } },
        },
      }),
      '.vscode/mcp.json',
    );
    assert.deepEqual(parsed.problems, []);
    const resolved = await resolveServer(parsed.servers[0]!, {
      env: {},
      userHome: '/home/u',
      inputs: parsed.inputs,
      resolveInput: async () => 'pre-registered-secret-1234',
    });
    if (resolved.type === 'stdio') return assert.fail('an http server');
    assert.deepEqual(resolved.oauth, { clientId: 'plangate-pre', clientSecret: 'pre-registered-secret-1234' });
    assert.ok(resolved.secrets.includes('pre-registered-secret-1234'));

    const f = await startOAuthFixture({
      spec: '2025-11-25',
      dcr: false,
      authMethods: ['client_secret_post'],
      preRegistered: { clientId: 'plangate-pre', clientSecret: 'pre-registered-secret-1234', method: 'client_secret_post' },
    });
    const conn = new ServerConnection(
      { ...resolved, url: f.url },
      { oauth: { store: new MemoryOAuthStore(), scope: 'test', clientName: 'Plangate tests', interaction: browser() } },
    );
    await conn.signIn();
    assert.equal(text(await conn.callTool('read_thing', {})), 'read ok');
    assert.deepEqual(
      f.seen.tokens.map((t) => t.method),
      ['client_secret_post'],
    );
    await conn.dispose();
    await f.close();
  });

  test('a bad "oauth" entry is a problem naming the field', () => {
    const parsed = parseMcpJson(JSON.stringify({ servers: { remote: { url: 'http://x/mcp', oauth: { clientSecret: 's' } } } }), 'mcp.json');
    assert.equal(parsed.servers.length, 0);
    assert.match(parsed.problems.map((p) => `${p.path}: ${p.message}`).join('\n'), /servers\.remote\.oauth\.clientId/);
  });
});
