/**
 * What keeps an app's frame off the network where the page policy's fetch directives do not reach. Three holes, each
 * tried in Chromium 156 (what code-server's VS Code 1.139 runs in):
 *
 * - **WebRTC.** CSP's fetch directives do not cover `RTCPeerConnection`: an app sent STUN/TURN packets (data in the TURN
 *   user name) to any host. The `webrtc 'block'` directive would stop it, but Chromium does not know it yet
 *   ("Unrecognized Content-Security-Policy directive"); it is in the policy for the browsers that do. What blocks it
 *   now is {@link APP_GUARD}, the first script of the app's document: it removes every `RTC…` constructor (and
 *   `XSLTProcessor`, see below) before any script of the app runs.
 * - **Other realms.** A frame inside the app's has a WebRTC of its own. The app's frame is sandboxed without
 *   `allow-same-origin`, so a child is a cross-origin realm the app cannot reach into; only a child whose own scripts
 *   run is a danger, and a script runs there only with the panel's app nonce — in a `srcdoc` the app writes. So:
 *   Trusted Types (`require-trusted-types-for 'script'`, with only the guard's `default` policy) make the browser refuse
 *   every `srcdoc` string an app sets (the property, `setAttribute`, `Attr` nodes, `innerHTML`, `document.write`, …);
 *   XSLT, which builds attributes outside Trusted Types, is removed; and the app's own HTML gets the nonce only on its
 *   real `<script>` start tags, never inside an attribute value (appResource.ts `preparePage`).
 * - **Script URLs.** A nonce admits a script from any URL (`<script nonce src>`, `import()`, `modulepreload`): a second
 *   policy, {@link urlFreePolicy}, admits no script URL at all and no style URL but the granted ones.
 *
 * Pure: strings only.
 */

/** The policy words that make the browser call the guard's Trusted Types policy and no other. */
export const TRUSTED_TYPES_DIRECTIVES = ["require-trusted-types-for 'script'", 'trusted-types default'] as const;

/** The directive that blocks WebRTC in browsers that implement it (ignored, with a console note, by Chromium 156). */
export const WEBRTC_DIRECTIVE = "webrtc 'block'";

/**
 * The page's second policy. A page is held to every policy it has, so this one only narrows the first: its
 * `'unsafe-inline'` admits nothing the first (nonce-only) policy refuses, and having no URL for scripts it refuses the
 * script URLs a nonce would admit (`<script nonce src>`, `import()`, module preloads, workers). Styles: inline (still
 * nonce-only by the first policy) and the granted resource origins.
 */
export function urlFreePolicy(resourceDomains: readonly string[]): string {
  return [`script-src 'unsafe-inline'`, `style-src ${["'unsafe-inline'", ...resourceDomains].join(' ')}`].join('; ');
}

/**
 * The first script of every app document (it carries the app nonce). It removes the WebRTC constructors and
 * `XSLTProcessor` from the app's window, and creates the one Trusted Types policy the page's policy allows (`default`,
 * so no app can create it or another): HTML with `srcdoc` in it, or bound for a `srcdoc`, is refused (a TypeError in
 * the app); script URLs are refused; the rest passes, so apps that use `innerHTML` keep working.
 */
export const APP_GUARD = `(() => {
  'use strict';
  const w = window;
  for (const name of Object.getOwnPropertyNames(w)) {
    if (/^(webkit|moz)?RTC/.test(name) || name === 'XSLTProcessor') {
      try { delete w[name]; } catch (e) {}
      if (name in w) try { Object.defineProperty(w, name, { value: undefined, writable: false, configurable: false }); } catch (e) {}
    }
  }
  const srcdoc = /srcdoc/i;
  if (w.trustedTypes && w.trustedTypes.createPolicy) {
    w.trustedTypes.createPolicy('default', {
      createHTML: (html, _type, sink) => (srcdoc.test(String(html)) || srcdoc.test(String(sink)) ? null : html),
      createScript: (script) => script,
      createScriptURL: () => null,
    });
  }
})();`;
