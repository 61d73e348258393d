// MCP Apps' network access, the pure rules (src/core/apps/appNetwork.ts): which origins a page may ask for (server data
// is hostile), the policy the panel gets for a set of grants, and that an app's page policy holds only what it declared
// and its own server was granted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allGranted,
  checkOrigin,
  declaredNetwork,
  grantedPart,
  grantKey,
  MAX_ORIGINS,
  networkView,
  panelCsp,
  readGrants,
  serverOfKey,
  withGrant,
  type AppCsp,
  type ServerIdentity,
} from '../../src/core/apps/appNetwork';
import { checkAppResource, type AppPage } from '../../src/core/apps/appResource';

const MIME = 'text/html;profile=mcp-app';
const none: AppCsp = { connectDomains: [], resourceDomains: [] };
const directive = (csp: string, name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `));

test('plain origins pass, normalised: https and wss, a leading *. wildcard, local http with a port', () => {
  const ok = (v: string) => (checkOrigin(v) as { origin?: string }).origin;
  assert.equal(ok('https://api.example.com'), 'https://api.example.com');
  assert.equal(ok('HTTPS://API.Example.com:8443/'), 'https://api.example.com:8443');
  assert.equal(ok('wss://live.example.com'), 'wss://live.example.com');
  assert.equal(ok('https://*.cdn.example.com'), 'https://*.cdn.example.com');
  assert.equal(ok('http://127.0.0.1:4100'), 'http://127.0.0.1:4100');
  assert.equal(ok('http://localhost:3000'), 'http://localhost:3000');
  assert.equal(ok('ws://localhost:3000'), 'ws://localhost:3000');
});

test('hostile origins are refused with a reason: keywords, quotes, separators, paths, wildcards, schemes, controls', () => {
  const hostile = [
    "'unsafe-eval'",
    "'self'",
    '*',
    'https://*',
    'https://*.com',
    'https://a.*.example.com',
    '*.example.com',
    'https://x.example.com; script-src *',
    'https://x.example.com script-src',
    'https://x.example.com,https://y.example.com',
    'https://x.example.com/path',
    'https://x.example.com/?q=1',
    'https://user@x.example.com',
    'https://x.example.com:0',
    'https://x.example.com:70000',
    'https://x.example.com:',
    'http://plain.example.com',
    'http://localhost',
    'http://127.0.0.1',
    'http://10.0.0.1:80',
    'data:',
    'blob:',
    'javascript://x.example.com',
    'file:///etc/passwd',
    'https://exa\u0000mple.com',
    'https://exa\nmple.com',
    'https://exämple.com',
    'https://ex\u202eample.com',
    'https://-bad-.example.com',
    'https://"x".example.com',
    `https://${'a'.repeat(300)}.com`,
    '',
  ];
  for (const v of hostile) assert.ok('why' in checkOrigin(v), JSON.stringify(v));
  for (const v of [42, null, undefined, {}, ['https://a.example.com']]) assert.ok('why' in checkOrigin(v), String(v));
  assert.match((checkOrigin('http://plain.example.com') as { why: string }).why, /only offered for localhost or 127\.0\.0\.1 with a port/);
});

test("a page's request: valid origins kept (deduplicated, capped), the rest refused and named; frames, base URIs and permissions never offered", () => {
  const many = Array.from({ length: MAX_ORIGINS + 5 }, (_, i) => `https://h${i}.example.com`);
  const { declared, refused } = declaredNetwork({
    ui: {
      csp: {
        connectDomains: ['https://api.example.com', 'https://API.example.com', "'unsafe-inline'", 'http://127.0.0.1:9'],
        resourceDomains: many,
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://cdn.example.com'],
      },
      permissions: { camera: {}, microphone: {} },
    },
  });
  assert.deepEqual(declared.connectDomains, ['https://api.example.com', 'http://127.0.0.1:9']);
  assert.equal(declared.resourceDomains.length, MAX_ORIGINS);
  const values = refused.map((r) => r.value);
  assert.ok(values.includes("'unsafe-inline'"));
  assert.deepEqual(
    refused.filter((r) => /more than 20/.test(r.why)).map((r) => r.value),
    many.slice(MAX_ORIGINS),
  );
  assert.ok(refused.some((r) => r.value === 'https://www.youtube.com' && /frameDomains are not offered/.test(r.why)));
  assert.ok(refused.some((r) => /baseUriDomains are not offered/.test(r.why)));
  assert.ok(refused.some((r) => r.value === 'camera, microphone' && /permissions are not offered/.test(r.why)));
  // Not a list, or nothing at all.
  assert.match(declaredNetwork({ ui: { csp: { connectDomains: 'https://a.example.com' } } }).refused[0]!.why, /not a list/);
  assert.deepEqual(declaredNetwork({}, undefined), { declared: none, refused: [] });
});

test('the panel with no grants has no network; with grants, exactly the granted origins, and never for scripts', () => {
  const bare = panelCsp({ cspSource: 'vscode-resource:', nonce: 'N', appNonce: 'A' });
  assert.equal(directive(bare, 'connect-src'), undefined, 'falls back to default-src none');
  assert.equal(directive(bare, 'media-src'), undefined);
  assert.match(bare, /^default-src 'none'; /);
  assert.equal(directive(bare, 'script-src'), "script-src 'nonce-N' 'nonce-A'");

  const grants = withGrant(withGrant({}, 'alpha', { connectDomains: ['http://127.0.0.1:4100'], resourceDomains: [] }), 'beta', {
    connectDomains: ['https://api.example.com', 'http://127.0.0.1:4100'],
    resourceDomains: ['https://cdn.example.com'],
  });
  const csp = panelCsp({ cspSource: 'vscode-resource:', nonce: 'N', appNonce: 'A', granted: allGranted(grants) });
  assert.equal(directive(csp, 'connect-src'), 'connect-src http://127.0.0.1:4100 https://api.example.com');
  assert.equal(directive(csp, 'img-src'), 'img-src vscode-resource: data: https://cdn.example.com');
  assert.equal(directive(csp, 'font-src'), 'font-src vscode-resource: https://cdn.example.com');
  assert.equal(directive(csp, 'style-src'), "style-src vscode-resource: 'nonce-A' https://cdn.example.com");
  assert.equal(directive(csp, 'media-src'), 'media-src https://cdn.example.com');
  assert.equal(directive(csp, 'script-src'), "script-src 'nonce-N' 'nonce-A'", 'no remote script, even granted');
  for (const d of ["frame-src 'none'", "object-src 'none'", "base-uri 'none'", "form-action 'none'"]) assert.ok(csp.includes(d), d);
});

test("an app's page policy is what it declared ∩ what its own server was granted", () => {
  const read = (csp: unknown) => ({ contents: [{ uri: 'ui://s/a', mimeType: MIME, text: '<p>', _meta: { ui: { csp } } }] });
  const declared = { connectDomains: ['http://127.0.0.1:4100', 'https://api.example.com'], resourceDomains: ['https://cdn.example.com'] };
  const granted = { connectDomains: ['http://127.0.0.1:4100', 'http://127.0.0.1:4200'], resourceDomains: [] };
  assert.deepEqual(grantedPart(declared, granted), { connectDomains: ['http://127.0.0.1:4100'], resourceDomains: [] });

  const before = checkAppResource('ui://s/a', read(declared), 'n') as AppPage;
  assert.equal(directive(before.csp, 'connect-src'), "connect-src 'none'", 'declared but not granted: no network');
  assert.equal(directive(before.csp, 'img-src'), 'img-src data:');
  const after = checkAppResource('ui://s/a', read(declared), 'n', { granted }) as AppPage;
  assert.equal(directive(after.csp, 'connect-src'), 'connect-src http://127.0.0.1:4100', 'granted and declared only');
  assert.doesNotMatch(after.csp, /4200/, 'granted but not declared');
  assert.deepEqual(after.declared, declared, 'the declaration itself is kept, for the notice');
  const both = checkAppResource('ui://s/a', read(declared), 'n', {
    granted: { connectDomains: declared.connectDomains, resourceDomains: declared.resourceDomains },
  }) as AppPage;
  assert.equal(directive(both.csp, 'img-src'), 'img-src data: https://cdn.example.com');
  assert.equal(directive(both.csp, 'script-src'), "script-src 'nonce-n'");
});

test('the notice: asked until granted, then allowed; kept blocked; refused named; nothing declared, no notice', () => {
  const declared = { connectDomains: ['http://127.0.0.1:4100'], resourceDomains: ['https://cdn.example.com'] };
  assert.deepEqual(networkView('s', declared, [], undefined), {
    server: 's',
    asking: ['http://127.0.0.1:4100', 'https://cdn.example.com'],
    allowed: [],
    refused: [],
  });
  const grants = withGrant({}, 's', declared);
  assert.deepEqual(networkView('s', declared, [], grants.s), {
    server: 's',
    asking: [],
    allowed: ['http://127.0.0.1:4100', 'https://cdn.example.com'],
    refused: [],
  });
  assert.deepEqual(networkView('other', declared, [], grants.other)?.asking.length, 2, "another server's grant does not count");
  assert.equal(networkView('s', declared, [], undefined, true)?.kept, true);
  assert.equal(networkView('s', none, [], undefined), undefined);
  assert.deepEqual(networkView('s', none, [{ value: '*', why: 'x' }], undefined)?.refused, [{ value: '*', why: 'x' }]);
});

test('grants read back from workspace state are checked again; grants kept by a bare server name are dropped', () => {
  const good = grantKey({ name: 'good', type: 'http', url: 'https://mcp.example.com/' });
  const bad = grantKey({ name: 'bad', type: 'http', url: 'https://mcp.example.com/' });
  assert.deepEqual(
    readGrants({
      [good]: { connectDomains: ['https://api.example.com', "'unsafe-eval'"], resourceDomains: ['*'] },
      [bad]: { connectDomains: ['*; script-src *'] },
      junk: 'https://x.example.com',
      // As kept before grants were keyed by identity: whatever server is named "fixture" next would get it.
      fixture: { connectDomains: ['https://api.example.com'], resourceDomains: [] },
    }),
    { [good]: { connectDomains: ['https://api.example.com'], resourceDomains: [] } },
  );
  assert.deepEqual(readGrants(undefined), {});
  assert.deepEqual(readGrants([1, 2]), {});
});

test("a grant is kept by the server's identity: the same name with another command line, folder or URL inherits nothing", () => {
  const read = {
    contents: [{ uri: 'ui://x/a', mimeType: MIME, text: '<p>', _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] } } } }],
  };
  const a: ServerIdentity = { name: 'x', type: 'stdio', command: 'node', args: ['server-a.js'], cwd: '/w' };
  const grants = withGrant({}, grantKey(a), { connectDomains: ['https://api.example.com'], resourceDomains: [] });
  const pagePolicy = (server: ServerIdentity) =>
    directive((checkAppResource('ui://x/a', read, 'n', { granted: grants[grantKey(server)] }) as AppPage).csp, 'connect-src');
  assert.equal(pagePolicy(a), 'connect-src https://api.example.com', 'the server the user allowed');
  assert.equal(pagePolicy({ ...a, args: ['server-a.js'] }), 'connect-src https://api.example.com', 'the same server, configured again');
  for (const other of [
    { ...a, args: ['server-b.js'] },
    { ...a, command: 'python3' },
    { ...a, cwd: '/elsewhere' },
    { ...a, args: ['server-a.js', '--evil'] },
    { name: 'x', type: 'http', url: 'https://x.example.com/mcp' },
  ] satisfies ServerIdentity[])
    assert.equal(pagePolicy(other), "connect-src 'none'", `not honoured for ${JSON.stringify(other)}`);
  // Arguments are a list, not a line: ["a b"] and ["a", "b"] are two servers.
  assert.notEqual(grantKey({ ...a, args: ['a b'] }), grantKey({ ...a, args: ['a', 'b'] }));
  assert.notEqual(grantKey({ name: 'x', type: 'http', url: 'https://h/' }), grantKey({ name: 'x', type: 'sse', url: 'https://h/' }));
  assert.equal(serverOfKey(grantKey(a)), 'x');
  assert.equal(serverOfKey(grantKey({ ...a, name: 'my server 1' })), 'my server 1');
});
