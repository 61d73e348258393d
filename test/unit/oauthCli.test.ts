// `plangate run --url` signing in: the real CLI bundle against the SDK's example server (and the fixture
// authorization server for a pre-registered client), with $BROWSER set to a small script that fetches the URL it is
// given and follows the redirects, as a browser would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundles, runCli } from './helpers/cliHarness';
import { REPO_ROOT } from './helpers/fixture';
import { startOAuthFixture, type OAuthFixture } from './helpers/oauthFixture';
import { startSdkOAuthExample, type SdkOAuthExample } from './helpers/sdkOAuthExample';

const FETCH_BROWSER = join(REPO_ROOT, 'test', 'unit', 'helpers', 'fetchBrowser.mjs');
const browserEnv = (log: string) => ({ BROWSER: `"${process.execPath}" "${FETCH_BROWSER}"`, FETCH_BROWSER_LOG: log });
const visits = (log: string) => {
  try {
    return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

/** Starts the CLI and resolves once its stderr matches `ready`; the caller then acts and awaits `done`. */
async function startCli(args: string[], env: Record<string, string>, ready: RegExp) {
  const { cli } = await bundles();
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  void done.then(() => clearTimeout(killer));
  const matched = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = ready.exec(stderr);
      if (m) resolve(m);
    });
    void done.then(() => reject(new Error(`the CLI ended before printing ${ready}:\n${stderr}`)));
  });
  return { child, matched, done };
}

describe('plangate run --url signs in', () => {
  let server: SdkOAuthExample;
  let fixture: OAuthFixture;
  const dir = mkdtempSync(join(tmpdir(), 'plangate-oauth-cli-'));
  before(async () => {
    [server, fixture] = await Promise.all([
      startSdkOAuthExample(),
      startOAuthFixture({
        spec: '2025-11-25',
        dcr: false,
        authMethods: ['client_secret_basic'],
        preRegistered: { clientId: 'cli-client', clientSecret: 'cli-secret-5678', method: 'client_secret_basic' },
      }),
    ]);
  });
  after(async () => {
    await Promise.all([server.close(), fixture.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('opens the authorization page with $BROWSER, waits for the redirect, calls the tool; a --token-store file (0600) spares the next run the browser', async () => {
    const log = join(dir, 'visits.jsonl');
    const store = join(dir, 'tokens.json');
    const ledger = join(dir, 'ledger.jsonl');
    const args = [
      'run',
      '--url',
      server.url,
      '--tool',
      'greet',
      '--args',
      '{"name":"Ada"}',
      '--token-store',
      store,
      '--verbose',
      '--ledger',
      ledger,
    ];
    const first = await runCli(args, { env: browserEnv(log) });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /Hello, Ada!/);
    assert.match(first.stderr, /signing in to '[^']+' in your browser/);
    assert.equal(visits(log), 1);
    assert.equal(statSync(store).mode & 0o777, 0o600);
    const stored = readFileSync(store, 'utf8');
    const token = /access_token\\":\\"([^\\]+)/.exec(stored)?.[1];
    assert.ok(token, 'the store holds the token');
    assert.ok(!first.stderr.includes(token), 'the token is not in the verbose log');
    assert.ok(!first.stdout.includes(token), 'nor in the output');
    // The ledger is what the Plans view shows and what Export as JSON writes from: the call is on it, the token not.
    const recorded = readFileSync(ledger, 'utf8');
    assert.match(recorded, /"tool":"greet"/, 'the call is on the record');
    assert.ok(!recorded.includes(token), 'the token is not in the ledger');

    const second = await runCli(args, { env: browserEnv(log) });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(visits(log), 1, 'no second visit to the authorization page');
  });

  test('without --token-store the sign-in lasts for the run only', async () => {
    const log = join(dir, 'visits-run-only.jsonl');
    const args = ['run', '--url', server.url, '--tool', 'greet', '--args', '{"name":"Bo"}'];
    for (let i = 0; i < 2; i++) assert.equal((await runCli(args, { env: browserEnv(log) })).code, 0);
    assert.equal(visits(log), 2);
  });

  test('prints the URL when no browser can be opened, and continues once someone visits it', async () => {
    const { matched, done } = await startCli(
      ['run', '--url', server.url, '--tool', 'greet', '--args', '{"name":"Cy"}'],
      { BROWSER: 'no-such-browser-command-xyz', DISPLAY: '', WAYLAND_DISPLAY: '' },
      /no browser could be opened.*\n\s+(http\S+)/,
    );
    await fetch(matched[1]!, { redirect: 'follow' }).then((r) => r.text());
    const r = await done;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Hello, Cy!/);
  });

  test('Ctrl-C while waiting for the browser gives up (exit 2, nothing ran)', async () => {
    const { child, done } = await startCli(
      ['run', '--url', server.url, '--tool', 'greet', '--args', '{"name":"Di"}'],
      { BROWSER: 'true' },
      /visit:\n\s+http/,
    );
    child.kill('SIGINT');
    const r = await done;
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /cancelled while connecting; nothing ran/);
  });

  test('--client-id and --client-secret sign in with a pre-registered client (client_secret_basic); the secret stays out of the output', async () => {
    const log = join(dir, 'visits-pre.jsonl');
    const r = await runCli(
      ['run', '--url', fixture.url, '--tool', 'read_thing', '--client-id', 'cli-client', '--client-secret', 'cli-secret-5678', '--verbose'],
      { env: browserEnv(log) },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /read ok/);
    assert.equal(fixture.seen.registrations, 0);
    assert.deepEqual(
      fixture.seen.tokens.map((t) => t.method),
      ['client_secret_basic'],
    );
    assert.ok(!r.stderr.includes('cli-secret-5678'));
  });

  test('a wrong client secret fails at the token step, naming the token endpoint', async () => {
    const r = await runCli(
      ['run', '--url', fixture.url, '--tool', 'read_thing', '--client-id', 'cli-client', '--client-secret', 'wrong-secret-0000'],
      {
        env: browserEnv(join(dir, 'visits-wrong.jsonl')),
      },
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /sign-in failed at the token step \(http:\/\/127\.0\.0\.1:\d+\/as\/token\): invalid_client/);
    assert.ok(!r.stderr.includes('wrong-secret-0000'));
  });

  test('usage: --client-secret needs --client-id; the sign-in flags need --url', async () => {
    const a = await runCli(['run', '--url', server.url, '--tool', 'greet', '--client-secret', 's']);
    assert.equal(a.code, 2);
    assert.match(a.stderr, /--client-secret needs --client-id/);
    const b = await runCli(['run', '--server', 'node x.js', '--tool', 'greet', '--token-store', 'f']);
    assert.equal(b.code, 2);
    assert.match(b.stderr, /--token-store applies only to --url/);
    const c = await runCli(['run', '--url', server.url, '--tool', 'greet', '--client-metadata-url', 'http://example.test/client.json']);
    assert.equal(c.code, 2);
    assert.match(c.stderr, /--client-metadata-url must be an https:\/\/ URL with a path/);
  });
});

// The variants of oauth.test.ts, each through the real CLI process: the sign-in code is the connection's, shared
// with the extension, but these show that `plangate run --url` reaches every one of them from its command line.
describe('plangate run --url against each sign-in variant of the fixture authorization server', () => {
  const fixtures: OAuthFixture[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'plangate-oauth-cli-variants-'));
  after(async () => {
    await Promise.all(fixtures.map((f) => f.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  const fixtureWith = async (options: Parameters<typeof startOAuthFixture>[0]) => {
    const f = await startOAuthFixture(options);
    fixtures.push(f);
    return f;
  };
  let n = 0;
  const run = async (f: OAuthFixture, tool: string, extra: string[] = []) => {
    const log = join(dir, `visits-${++n}.jsonl`);
    const r = await runCli(['run', '--url', f.url, '--tool', tool, ...extra], { env: browserEnv(log) });
    return { ...r, visits: visits(log), log };
  };

  test('2025-11-25 without resource_metadata in the header: the path-aware protected-resource metadata, then the authorization server under its path', async () => {
    const f = await fixtureWith({ spec: '2025-11-25', headerMetadata: false });
    const r = await run(f, 'read_thing');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /read ok/);
    const probes = f.seen.requests.filter((q) => q.includes('/.well-known/'));
    assert.equal(probes[0], 'GET /.well-known/oauth-protected-resource/mcp');
    assert.ok(probes.includes('GET /.well-known/oauth-authorization-server/as'), probes.join('\n'));
    assert.equal(f.seen.registrations, 1, 'registered dynamically');
    assert.equal(r.visits, 1);
  });

  test('2025-03-26: the authorization server metadata on the MCP server origin', async () => {
    const f = await fixtureWith({ spec: '2025-03-26' });
    const r = await run(f, 'read_thing');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /read ok/);
    assert.ok(f.seen.requests.includes('GET /.well-known/oauth-authorization-server'), f.seen.requests.join('\n'));
  });

  test('2025-03-26 without any metadata: the default /register, /authorize and /token endpoints', async () => {
    const f = await fixtureWith({ spec: '2025-03-26', legacyMetadata: false });
    const r = await run(f, 'read_thing');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /read ok/);
    for (const q of ['POST /register', 'POST /token']) assert.ok(f.seen.requests.includes(q), `${q} in ${f.seen.requests.join(', ')}`);
    assert.ok(
      f.seen.requests.some((q) => q.startsWith('GET /authorize')),
      f.seen.requests.join('\n'),
    );
  });

  for (const method of ['client_secret_post', 'none'] as const) {
    test(`--client-id${method === 'none' ? '' : ' and --client-secret'}: a pre-registered client without registration, token endpoint auth ${method}`, async () => {
      const secret = method === 'none' ? undefined : 'cli-post-secret-9012';
      const f = await fixtureWith({
        spec: '2025-11-25',
        dcr: false,
        authMethods: [method],
        preRegistered: { clientId: 'cli-pre', clientSecret: secret, method },
      });
      const r = await run(f, 'read_thing', ['--client-id', 'cli-pre', ...(secret ? ['--client-secret', secret] : []), '--verbose']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /read ok/);
      assert.equal(f.seen.registrations, 0);
      assert.deepEqual(
        f.seen.tokens.map((t) => t.method),
        [method],
      );
      if (secret) assert.ok(!r.stderr.includes(secret) && !r.stdout.includes(secret), 'the secret stays out of the output');
    });
  }

  test('a stored sign-in whose access token expired is refreshed without a browser', async () => {
    const f = await fixtureWith({ spec: '2025-11-25' });
    const store = join(dir, 'refresh-store.json');
    const first = await run(f, 'read_thing', ['--token-store', store]);
    assert.equal(first.code, 0, first.stderr);
    f.expireAccessTokens();
    const second = await run(f, 'read_thing', ['--token-store', store]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /read ok/);
    assert.equal(second.visits, 0, 'no browser for the refresh');
    assert.deepEqual(
      f.seen.tokens.map((t) => t.grant),
      ['authorization_code', 'refresh_token'],
    );
  });

  test('403 insufficient_scope: signs in once more with the wider scope and the call is sent once', async () => {
    const f = await fixtureWith({ spec: '2025-11-25' });
    const r = await run(f, 'write_thing');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /write ok/);
    assert.equal(r.visits, 2, 'the first sign-in and the step-up');
    const scopes = readFileSync(r.log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => new URL((JSON.parse(l) as { url: string }).url).searchParams.get('scope'));
    assert.deepEqual(scopes, ['read', 'read write']);
    assert.deepEqual(f.seen.calls, ['write_thing']);
  });

  test('403 again after the step-up: the run fails with the scope named, after one step-up', async () => {
    const f = await fixtureWith({ spec: '2025-11-25', alwaysInsufficient: true });
    const r = await run(f, 'write_thing');
    assert.notEqual(r.code, 0);
    assert.match(r.stdout + r.stderr, /still refuses 'write_thing' after signing in \(it asks for scope: read write\)/);
    assert.equal(r.visits, 2);
    assert.deepEqual(f.seen.calls, []);
  });

  test('discovery failing: the error names the discovery step and the metadata URL', async () => {
    const f = await fixtureWith({ spec: '2025-11-25', fail: 'metadata' });
    const r = await run(f, 'read_thing');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /sign-in failed at the discovery step/);
    assert.ok(r.stderr.includes(`${f.origin}/.well-known/oauth-authorization-server/as`), r.stderr);
  });

  test('no dynamic registration and no --client-id: the error names the registration step and the flag to use', async () => {
    const f = await fixtureWith({ spec: '2025-11-25', dcr: false });
    const r = await run(f, 'read_thing');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /sign-in failed at the registration step/);
    assert.match(r.stderr, /--client-id/);
    assert.equal(r.visits, 0, 'no browser opened');
  });
});

describe('plangate run --url with a hostile authorization_endpoint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-oauth-hostile-'));
  const recorder = join(dir, 'recordArgv.mjs');
  writeFileSync(
    recorder,
    "import { writeFileSync } from 'node:fs';\nwriteFileSync(process.env.RECORD_ARGV, JSON.stringify(process.argv.slice(2)));\n",
  );
  const recordEnv = (record: string) => ({ BROWSER: `"${process.execPath}" "${recorder}"`, RECORD_ARGV: record });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('an endpoint with | & ^ " in its path reaches $BROWSER as one argument, percent-encoded, with no shell in between', async () => {
    const canary = join(dir, 'canary');
    const fixture = await startOAuthFixture({
      spec: '2025-11-25',
      authorizationEndpoint: (origin) => `${origin}/as/authorize|calc&whoami^x"y;mkdir$IFS$9${canary}`,
    });
    try {
      const record = join(dir, 'argv.json');
      const { child, done } = await startCli(
        ['run', '--url', fixture.url, '--tool', 'read_thing'],
        recordEnv(record),
        /If no page opened, visit:\n\s+http/,
      );
      for (let i = 0; i < 100 && !existsSync(record); i++) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      await done;
      const argv = JSON.parse(readFileSync(record, 'utf8')) as string[];
      assert.equal(argv.length, 1, JSON.stringify(argv));
      const opened = new URL(argv[0]!);
      assert.equal(opened.origin + opened.pathname, `${fixture.origin}/as/authorize%7Ccalc&whoami%5Ex%22y;mkdir$IFS$9${canary}`);
      assert.ok(opened.searchParams.get('code_challenge'), 'the rest of the authorization request is intact');
      assert.equal(existsSync(canary), false, 'no shell ran the text of the URL');
    } finally {
      await fixture.close();
    }
  });

  test('a file: endpoint is not opened: the sign-in fails saying why, nothing is started and nothing ran', async () => {
    const fixture = await startOAuthFixture({ spec: '2025-11-25', authorizationEndpoint: () => 'file:///etc/passwd' });
    try {
      const record = join(dir, 'argv-file.json');
      const r = await runCli(['run', '--url', fixture.url, '--tool', 'read_thing'], { env: recordEnv(record) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /Plangate did not open the file: sign-in page of '[^']+': it opens only http: and https: links from servers/);
      assert.match(r.stderr, /authorization_endpoint\) needs fixing/);
      assert.equal(r.stderr.split('did not open').length, 2, 'said once');
      assert.equal(existsSync(record), false, 'no browser was started');
      assert.deepEqual(fixture.seen.calls, []);
    } finally {
      await fixture.close();
    }
  });
});
