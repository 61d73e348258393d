// README "Remote servers and sign-in", claim by claim, against the fixture authorization server (a real HTTP listener)
// and the real CLI bundle: a server whose headers carry Authorization is not signed in to; OpenID Connect metadata
// discovery; a sign-in kept for one workspace is not used by another; the browser is waited for 5 minutes;
// PLANGATE_CLIENT_SECRET; tokens and client secrets never in the ledger (what the Plans view and exports are made of).
import { after, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerConnection, type SignInInteraction } from '../../src/mcp/connection';
import { listenForRedirect } from '../../src/mcp/oauth/loopback';
import { MemoryOAuthStore } from '../../src/mcp/oauth/store';
import { runCli } from './helpers/cliHarness';
import { REPO_ROOT } from './helpers/fixture';
import { startOAuthFixture, type OAuthFixture, type OAuthFixtureOptions } from './helpers/oauthFixture';

const fixtures: OAuthFixture[] = [];
after(() => Promise.all(fixtures.map((f) => f.close())));
async function fixture(options: OAuthFixtureOptions): Promise<OAuthFixture> {
  const f = await startOAuthFixture(options);
  fixtures.push(f);
  return f;
}

/** A browser that follows the authorization page's redirects back to the loopback listener. */
function browser(): SignInInteraction & { opened: URL[] } {
  const opened: URL[] = [];
  return {
    opened,
    listen: (preferredPort) => listenForRedirect({ preferredPort }),
    async open(url) {
      opened.push(url);
      void fetch(url, { redirect: 'follow' })
        .then((r) => r.text())
        .catch(() => undefined);
    },
  };
}

function connection(
  url: string,
  options: { headers?: Record<string, string>; store?: MemoryOAuthStore; scope?: string; interaction?: SignInInteraction },
) {
  return new ServerConnection(
    { name: 'remote', source: 'settings-user', type: 'http', url, headers: options.headers ?? {}, secrets: [] },
    {
      reconnect: { maxAttempts: 0 },
      startTimeoutMs: 15_000,
      oauth: {
        store: options.store ?? new MemoryOAuthStore(),
        scope: options.scope ?? 'workspace:file:///a',
        clientName: 'Plangate tests',
        waitMs: 15_000,
        interaction: options.interaction ?? browser(),
      },
    },
  );
}

describe('README: sign-in claims', () => {
  test('a server whose "headers" already carry Authorization is not signed in to: the header is sent as given, no discovery, no browser', async () => {
    const f = await fixture({ spec: '2025-11-25' });
    const b = browser();
    const conn = connection(f.url, { headers: { authorization: 'Bearer my-own-token' }, interaction: b });
    await assert.rejects(conn.start(), (err: Error) => {
      assert.doesNotMatch(err.message, /Sign in/i, `offered a sign-in: ${err.message}`);
      return true;
    });
    assert.notEqual(conn.state, 'signInRequired', 'the server was marked "sign-in required"');
    await assert.rejects(conn.signIn());
    assert.deepEqual(b.opened, [], 'a browser was opened');
    assert.deepEqual(
      f.seen.requests.filter((r) => !r.endsWith(' /mcp')),
      [],
      'Plangate looked for OAuth metadata or a token endpoint',
    );
    assert.equal(f.seen.registrations, 0);
    await conn.dispose();
  });

  test('OpenID Connect metadata discovery: an authorization server that publishes only /.well-known/openid-configuration is signed in to', async () => {
    const f = await fixture({ spec: '2025-11-25', oidcOnly: true });
    const conn = connection(f.url, {});
    await conn.signIn();
    assert.equal(conn.state, 'running');
    assert.ok(
      f.seen.requests.includes('GET /.well-known/openid-configuration/as'),
      `OIDC metadata was not read: ${f.seen.requests.join(', ')}`,
    );
    assert.equal(f.seen.registrations, 1);
    assert.deepEqual(await conn.callTool('read_thing', {}).then((r) => (r.content as { text: string }[])[0]!.text), 'read ok');
    await conn.dispose();
  });

  test('a sign-in in one workspace is not used by another: the same store and server, another workspace asks for its own sign-in', async () => {
    const f = await fixture({ spec: '2025-11-25' });
    const store = new MemoryOAuthStore();
    const a = connection(f.url, { store, scope: 'workspace:file:///projects/a' });
    await a.signIn();
    assert.equal(a.state, 'running');
    const again = connection(f.url, { store, scope: 'workspace:file:///projects/a' });
    await again.start();
    assert.equal(again.state, 'running', 'the control: the same workspace reuses its sign-in');
    const b = connection(f.url, {
      store,
      scope: 'workspace:file:///projects/b',
      interaction: { ...browser(), open: async () => assert.fail('a browser in the background') },
    });
    await assert.rejects(b.start(), /Sign in/);
    assert.equal(b.state, 'signInRequired', "the other workspace used the first one's tokens");
    for (const c of [a, again, b]) await c.dispose();
  });

  test('the browser is waited for 5 minutes (the default wait, in the editor and the CLI alike)', async () => {
    const f = await fixture({ spec: '2025-11-25' });
    let waited: number | undefined;
    const interaction: SignInInteraction = {
      async listen(preferredPort) {
        const real = await listenForRedirect({ preferredPort });
        return {
          redirectUrl: real.redirectUrl,
          close: () => real.close(),
          code: (state, signal, timeoutMs) => {
            waited = timeoutMs;
            return real.code(state, signal, 1); // give up at once: only the wait asked for is checked here
          },
        };
      },
      open: async () => undefined,
    };
    const conn = new ServerConnection(
      { name: 'remote', source: 'settings-user', type: 'http', url: f.url, headers: {}, secrets: [] },
      { reconnect: { maxAttempts: 0 }, oauth: { store: new MemoryOAuthStore(), scope: 's', clientName: 'Plangate tests', interaction } },
    );
    await assert.rejects(conn.signIn(), /did not come back/);
    assert.equal(waited, 5 * 60 * 1000);
    await conn.dispose();

    // And the listener honours it: still waiting a second before, given up at 5 minutes.
    const receiver = await listenForRedirect();
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let settled: string | undefined;
      const pending = receiver.code('state', undefined, 5 * 60 * 1000).then(
        () => (settled = 'resolved'),
        (e: Error) => (settled = e.message),
      );
      mock.timers.tick(5 * 60 * 1000 - 1000);
      await Promise.resolve();
      assert.equal(settled, undefined, 'gave up before 5 minutes');
      mock.timers.tick(1000);
      await pending;
      assert.equal(settled, 'the browser did not come back within 300 s');
    } finally {
      mock.timers.reset();
      receiver.close();
    }
  });
});

describe('README: the CLI and secrets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-claims-signin-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const FETCH_BROWSER = join(REPO_ROOT, 'test', 'unit', 'helpers', 'fetchBrowser.mjs');

  test('PLANGATE_CLIENT_SECRET gives the pre-registered client its secret; neither it nor a token reaches the output or the ledger', async () => {
    const secret = 'env-secret-4242-abcdef';
    const f = await fixture({
      spec: '2025-11-25',
      dcr: false,
      authMethods: ['client_secret_post'],
      preRegistered: { clientId: 'env-client', clientSecret: secret, method: 'client_secret_post' },
    });
    const ledger = join(dir, 'ledger.jsonl');
    const r = await runCli(
      [
        'run',
        '--url',
        f.url,
        '--tool',
        'write_thing',
        '--args',
        '{"value":"v"}',
        '--client-id',
        'env-client',
        '--verbose',
        '--ledger',
        ledger,
      ],
      {
        env: {
          PLANGATE_CLIENT_SECRET: secret,
          BROWSER: `"${process.execPath}" "${FETCH_BROWSER}"`,
          FETCH_BROWSER_LOG: join(dir, 'visits.jsonl'),
        },
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /write ok/);
    assert.deepEqual(
      f.seen.tokens.map((t) => t.method),
      ['client_secret_post', 'client_secret_post'],
      'the token endpoint saw the secret from the environment (a sign-in, then the step-up to write)',
    );
    const recorded = readFileSync(ledger, 'utf8');
    assert.match(recorded, /"tool":"write_thing"/, 'the call is on the record');
    for (const s of [secret, ...f.issuedTokens()]) {
      assert.ok(!recorded.includes(s), `${s} is in the ledger`);
      assert.ok(!r.stdout.includes(s) && !r.stderr.includes(s), `${s} is in the output`);
    }
  });
});
