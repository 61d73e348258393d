// MCP Apps, what keeps an app's frame off the network where the page policy's fetch directives do not reach
// (src/core/apps/appGuard.ts): no WebRTC, no frame of its own that runs scripts, no script from a URL. The browser's part
// is in e2e/specs/appsPolicy.test.mjs (a page that tries, a UDP listener that hears nothing); here, the page as Plangate
// writes it and the guard script run against a stand-in window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { APP_GUARD } from '../../src/core/apps/appGuard';
import { checkAppResource, preparePage, type AppPage } from '../../src/core/apps/appResource';

const MIME = 'text/html;profile=mcp-app';
const nonces = (html: string, nonce: string) => html.split(`nonce="${nonce}"`).length - 1;

test("the nonce goes on the page's own inline scripts and styles only: not inside a srcdoc, a comment, a script's text, nor on a script URL", () => {
  const html = [
    '<!doctype html><html><head><style>b{}</style></head><body>',
    // Written by the server: a frame whose script would run with the nonce if it got one, and has its own WebRTC.
    `<iframe srcdoc='<script>new RTCPeerConnection({iceServers:[{urls:"turn:10.0.0.1"}]})</script>'></iframe>`,
    '<!-- <script>commented</script> -->',
    '<script>const s = "<script>not a tag";</script>',
    '<script src="https://evil.example/x.js"></script>',
    '<SCRIPT type="module">upper()</SCRIPT>',
    '<svg><script>svg()</script><script href="https://evil.example/s.js"></script></svg>',
    '<template><script>cloned()</script></template>',
    '</body></html>',
  ].join('\n');
  const out = preparePage(html, 'default-src', 'N');
  // The guard, the style, the page's two inline HTML scripts, the SVG one and the template's: 6.
  assert.equal(nonces(out, 'N'), 6);
  assert.match(out, /<iframe srcdoc='<script>new RTCPeerConnection/, 'the srcdoc is left as written: no nonce in it');
  assert.match(out, /<!-- <script>commented/);
  assert.match(out, /const s = "<script>not a tag"/);
  assert.match(out, /<script src="https:\/\/evil\.example\/x\.js">/, 'a script URL gets no nonce');
  assert.match(out, /<script href="https:\/\/evil\.example\/s\.js">/);
  assert.match(out, /<SCRIPT nonce="N" type="module">upper/);
  assert.match(out, /<template><script nonce="N">cloned/);
  // A byte order mark and CRLF line ends do not shift where the nonce goes.
  assert.equal(
    preparePage('\uFEFF<p>a\r\n</p>\r\n<script>x</script>', 'p', 'N').endsWith('<p>a\r\n</p>\r\n<script nonce="N">x</script>'),
    true,
  );
});

test('the page gets two policies before anything of its own: no WebRTC, Trusted Types with only the guard, and no script URL', () => {
  const text = '<!DOCTYPE html><html><body><script>go()</script></body></html>';
  const page = checkAppResource('ui://s/a', { contents: [{ uri: 'ui://s/a', mimeType: MIME, text }] }, 'N0', {
    listMeta: { ui: { csp: { resourceDomains: ['https://cdn.example.com'] } } },
    granted: { connectDomains: [], resourceDomains: ['https://cdn.example.com'] },
  }) as AppPage;
  assert.match(page.csp, /require-trusted-types-for 'script'; trusted-types default; webrtc 'block'$/);
  assert.equal(page.urlFree, "script-src 'unsafe-inline'; style-src 'unsafe-inline' https://cdn.example.com");
  const metas = [...page.html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)].map((m) =>
    m[1]!.replace(/&#39;|&apos;/g, "'"),
  );
  assert.deepEqual(metas, [page.csp, page.urlFree]);
  // The guard is the first script of the document, right after the policies.
  const firstScript = page.html.indexOf('<script');
  assert.equal(page.html.slice(firstScript, firstScript + 20), '<script nonce="N0">(');
  assert.ok(firstScript < page.html.indexOf('go()'));
  assert.ok(page.html.indexOf('<meta', page.html.indexOf('</script>')) === -1, 'no policy after the guard');
});

/** Runs the guard in a stand-in window: the constructors Chromium exposes, and a Trusted Types factory that keeps the policy. */
function runGuard(): { window: Record<string, unknown>; policies: Map<string, Record<string, (...a: string[]) => unknown>> } {
  const policies = new Map<string, Record<string, (...a: string[]) => unknown>>();
  const ctor = () => function Stand() {};
  const window: Record<string, unknown> = {
    RTCPeerConnection: ctor(),
    RTCDataChannel: ctor(),
    RTCRtpSender: ctor(),
    RTCIceCandidate: ctor(),
    RTCSessionDescription: ctor(),
    XSLTProcessor: ctor(),
    fetch: ctor(),
    HTMLIFrameElement: ctor(),
    trustedTypes: {
      createPolicy(name: string, rules: Record<string, (...a: string[]) => unknown>) {
        if (policies.has(name)) throw new TypeError(`Policy with name "${name}" already exists.`);
        policies.set(name, rules);
        return rules;
      },
    },
  };
  window.webkitRTCPeerConnection = window.RTCPeerConnection;
  const context = vm.createContext(window);
  window.window = context;
  vm.runInContext(APP_GUARD, context);
  return { window: context, policies };
}

test('the guard removes every WebRTC constructor and XSLT before the app runs, and nothing else', () => {
  const { window } = runGuard();
  for (const name of [
    'RTCPeerConnection',
    'webkitRTCPeerConnection',
    'RTCDataChannel',
    'RTCRtpSender',
    'RTCIceCandidate',
    'RTCSessionDescription',
    'XSLTProcessor',
  ])
    assert.equal(typeof window[name], 'undefined', `${name} is gone`);
  assert.equal(typeof window.fetch, 'function', 'the rest of the window is untouched (the page policy governs fetch)');
  assert.equal(typeof window.HTMLIFrameElement, 'function');
});

test("the guard's Trusted Types policy refuses srcdoc and script URLs, lets other HTML through, and is the only one", () => {
  const { window, policies } = runGuard();
  assert.deepEqual([...policies.keys()], ['default']);
  const rules = policies.get('default')!;
  const html = (value: string, sink: string) => rules.createHTML!(value, 'TrustedHTML', sink);
  assert.equal(html('<p>Hello <b>there</b></p>', 'Element innerHTML'), '<p>Hello <b>there</b></p>');
  assert.equal(html('<script nonce="n">new RTCPeerConnection()</script>', 'HTMLIFrameElement srcdoc'), null, 'any srcdoc');
  assert.equal(html('<p>harmless</p>', 'HTMLIFrameElement srcdoc'), null);
  assert.equal(html('<iframe SrcDoc="&lt;script nonce=n&gt;x&lt;/script&gt;"></iframe>', 'Element innerHTML'), null);
  assert.equal(html('<iframe srcdoc="x">', 'Document write'), null);
  assert.equal(rules.createScriptURL!('https://evil.example/x.js', 'TrustedScriptURL', 'HTMLScriptElement src'), null);
  assert.equal(rules.createScript!('console.log(1)', 'TrustedScript', 'HTMLScriptElement text'), 'console.log(1)');
  // The app cannot make the policy again, nor another (the page policy allows only `default`, once).
  const tt = window.trustedTypes as { createPolicy(n: string, r: object): unknown };
  assert.throws(() => tt.createPolicy('default', {}), /already exists/);
});
