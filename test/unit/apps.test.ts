// MCP Apps, the pure rules (src/core/apps): which tools carry an app and for whom, what makes a ui:// page renderable
// (type, size, its declared policy, hostile policy words), and what an app may ask (its own server's app tools only,
// http(s) links only, text messages).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appResourceUri, callableByApp, visibleToModel, withoutAppUi } from '../../src/core/apps/appTool';
import { appCsp, checkAppResource, declaredCsp, isAppRefusal, preparePage, type AppPage } from '../../src/core/apps/appResource';
import { appLogLine, checkAppToolCall, checkOpenLink, completedSignal, messageText } from '../../src/core/apps/appRequests';
import { toolPickRows } from '../../src/core/present/toolPick';

const MIME = 'text/html;profile=mcp-app';

test('a tool carries an app through _meta.ui.resourceUri or the legacy key, and only a plain ui:// URI', () => {
  assert.equal(appResourceUri({ name: 't', _meta: { ui: { resourceUri: 'ui://s/a' } } }), 'ui://s/a');
  assert.equal(appResourceUri({ name: 't', _meta: { 'ui/resourceUri': 'ui://s/legacy' } }), 'ui://s/legacy');
  assert.equal(appResourceUri({ name: 't', _meta: { ui: { resourceUri: 'ui://new' }, 'ui/resourceUri': 'ui://old' } }), 'ui://new');
  for (const bad of ['https://evil.example/app', 'ui://a b', 'ui://"x"', 'javascript:alert(1)', 42, `ui://${'x'.repeat(3000)}`])
    assert.equal(appResourceUri({ name: 't', _meta: { ui: { resourceUri: bad } } }), undefined, String(bad).slice(0, 30));
  assert.equal(appResourceUri({ name: 't' }), undefined);
  assert.equal(appResourceUri(undefined), undefined);
});

test('visibility: ["app"] tools are callable by apps and hidden from the model; absent means both', () => {
  const appOnly = { name: 'a', _meta: { ui: { visibility: ['app'] } } };
  const modelOnly = { name: 'm', _meta: { ui: { visibility: ['model'] } } };
  const plain = { name: 'p' };
  assert.deepEqual([visibleToModel(appOnly), callableByApp(appOnly)], [false, true]);
  assert.deepEqual([visibleToModel(modelOnly), callableByApp(modelOnly)], [true, false]);
  assert.deepEqual([visibleToModel(plain), callableByApp(plain)], [true, true]);
  assert.deepEqual(
    [
      visibleToModel({ name: 'x', _meta: { ui: { visibility: [] } } }),
      callableByApp({ name: 'x', _meta: { ui: { visibility: ['evil'] } } }),
    ],
    [false, false],
  );
  const rows = toolPickRows([{ name: 's', state: 'running', tools: [appOnly, modelOnly, plain] }]);
  assert.deepEqual(
    rows.filter((r) => r.kind === 'tool').map((r) => (r as { tool: string }).tool),
    ['m', 'p'],
    "Call Tool's list leaves out the app-only tool",
  );
});

test('a gated server offers a tool without its app (the panel shows it), keeping the rest of its _meta', () => {
  const both = {
    name: 't',
    title: 'T',
    _meta: { ui: { resourceUri: 'ui://s/a', visibility: ['model', 'app'] }, 'ui/resourceUri': 'ui://s/a', other: 1 },
  };
  assert.deepEqual(withoutAppUi(both), { name: 't', title: 'T', _meta: { ui: { visibility: ['model', 'app'] }, other: 1 } });
  assert.equal(appResourceUri(withoutAppUi(both)), undefined);
  assert.deepEqual(withoutAppUi({ name: 'l', _meta: { 'ui/resourceUri': 'ui://s/legacy' } }), { name: 'l', _meta: {} });
  assert.deepEqual(withoutAppUi({ name: 'u', _meta: { ui: { resourceUri: 'ui://s/u' } } }), { name: 'u', _meta: {} });
  const plain = { name: 'p', _meta: { ui: { visibility: ['model'] } } };
  assert.equal(withoutAppUi(plain), plain, 'a tool without an app is handed over as it is');
  assert.deepEqual(both._meta.ui, { resourceUri: 'ui://s/a', visibility: ['model', 'app'] }, "the connection's own tool is not changed");
});

test('a page of the right type gets the default policy first (network denied) and the nonce on its scripts and styles', () => {
  const html =
    '<!DOCTYPE html><html><head><script>go()</script><style>b{}</style></head><body><script type="module" nonce="theirs">x</script></body></html>';
  const page = checkAppResource('ui://s/a', { contents: [{ uri: 'ui://s/a', mimeType: MIME, text: html }] }, 'N0NCE') as AppPage;
  assert.ok(!isAppRefusal(page));
  assert.match(page.html, /^<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src 'none'; /);
  assert.match(page.csp, /connect-src 'none'/);
  assert.match(page.csp, /frame-src 'none'/);
  assert.doesNotMatch(page.csp, /unsafe/);
  assert.equal((page.html.match(/<script nonce="N0NCE"/g) ?? []).length, 3, "the page's two, after Plangate's guard");
  assert.equal((page.html.match(/<style nonce="N0NCE"/g) ?? []).length, 1);
  // A page without a doctype still gets the policy before anything of its own.
  assert.match(
    preparePage('<script>x</script>', 'default-src', 'n'),
    /^<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src"><script nonce="n">\(\(\) => \{.*<\/script><script nonce="n">x<\/script>$/s,
  );
});

test('declared origins widen the policy; policy words, paths and separators a server slips in are dropped', () => {
  const declared = declaredCsp({
    ui: {
      csp: {
        connectDomains: [
          'https://api.example.com',
          "'unsafe-eval'",
          'https://x.example.com; script-src *',
          '*',
          'http://plain.example.com',
        ],
        resourceDomains: ['https://*.cdn.example.com', 'https://cdn.example.com/path'],
      },
    },
  });
  assert.deepEqual(declared, { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] });
  const csp = appCsp(declared, 'n');
  assert.match(csp, /connect-src https:\/\/api\.example\.com;/);
  assert.match(csp, /script-src 'nonce-n';/, 'resource origins serve no scripts');
  assert.match(csp, /img-src data: https:\/\/\*\.cdn\.example\.com;/);
  // The resources/list entry's _meta is the fallback when the contents carry none.
  const page = checkAppResource('ui://s/a', { contents: [{ uri: 'ui://s/a', mimeType: MIME, text: '' }] }, 'n', {
    listMeta: { ui: { csp: { connectDomains: ['wss://live.example.com'] } } },
  }) as AppPage;
  assert.deepEqual(page.declared.connectDomains, ['wss://live.example.com']);
});

test('wrong type, too large, no contents and unreadable blobs are refused with a reason', () => {
  const read = (entry: Record<string, unknown>) => ({ contents: [{ uri: 'ui://s/a', ...entry }] });
  const refusal = (r: unknown) => {
    const out = checkAppResource('ui://s/a', r, 'n', { maxChars: 100 });
    assert.ok(isAppRefusal(out));
    return out;
  };
  assert.equal(refusal(read({ mimeType: 'text/html', text: '<p>' })).reason, 'wrong_type');
  assert.match(refusal(read({ mimeType: 'text/html', text: '<p>' })).message, /"text\/html", not "text\/html;profile=mcp-app"/);
  assert.equal(refusal(read({ mimeType: MIME, text: 'x'.repeat(101) })).reason, 'too_large');
  assert.equal(refusal(read({ mimeType: MIME, blob: btoa('x'.repeat(400)) })).reason, 'too_large');
  assert.equal(refusal({ contents: [] }).reason, 'not_found');
  assert.equal(refusal(read({ mimeType: MIME, blob: '%%%' })).reason, 'unreadable');
  assert.equal(refusal(read({ mimeType: MIME })).reason, 'unreadable');
  const fromBlob = checkAppResource('ui://s/a', read({ mimeType: MIME, blob: btoa('<p>hi</p>') }), 'n') as AppPage;
  assert.match(fromBlob.html, /<p>hi<\/p>$/);
});

test("an app's tools/call: only its own server's tools meant for apps, with object arguments", () => {
  const tools = [
    { name: 'echo', _meta: { ui: { visibility: ['app'] } } },
    { name: 'plan', _meta: { ui: { visibility: ['model'] } } },
    { name: 'free' },
  ];
  assert.deepEqual(checkAppToolCall('s', { name: 'echo', arguments: { a: 1 } }, tools), { tool: 'echo', args: { a: 1 } });
  assert.deepEqual(checkAppToolCall('s', { name: 'free' }, tools), { tool: 'free', args: {} });
  assert.match((checkAppToolCall('s', { name: 'plan' }, tools) as { error: string }).error, /not meant for apps/);
  assert.match((checkAppToolCall('s', { name: 'write_file' }, tools) as { error: string }).error, /Server 's' offers no tool 'write_file'/);
  assert.match((checkAppToolCall('s', { name: 'echo', arguments: [1] }, tools) as { error: string }).error, /not an object/);
  assert.match((checkAppToolCall('s', {}, tools) as { error: string }).error, /without naming it/);
});

test('links, messages and log lines from an app', () => {
  assert.equal(String(checkOpenLink({ url: 'https://example.com/x' })), 'https://example.com/x');
  for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'command:workbench.action.quit', 'vscode://x', 'not a url', 7])
    assert.ok('error' in checkOpenLink({ url }), String(url));
  assert.equal(
    messageText({ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }] }),
    'a\nb',
  );
  assert.equal(messageText({ content: [{ type: 'image', data: '' }] }), undefined);
  assert.deepEqual(appLogLine({ level: 'warning', logger: 'form', data: { n: 1 } }), { level: 'warn', text: 'form: {"n":1}' });
  assert.equal(appLogLine({ level: 'info', data: 'x'.repeat(5000) }).text.length, 2001);
  assert.deepEqual(completedSignal({ level: 'info', data: { type: 'completed', summary: 'Contact form data collected' } }), {
    summary: 'Contact form data collected',
  });
  assert.equal(completedSignal({ data: 'completed' }), undefined);
});
