/**
 * An MCP App's HTML as Plangate renders it: the `ui://` resource checked (type, size), and its Content Security
 * Policy built from the resource's own `_meta.ui.csp` with network denied unless declared and granted by the user
 * (appNetwork.ts). The page runs in a sandboxed iframe inside the panel; the policy written here travels as the first
 * element of its document, and the panel's own policy (which the iframe inherits) stays the ceiling above it.
 *
 * Pure: no vscode, no I/O.
 */
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { APP_MIME_TYPE } from './appTool';
import { declaredNetwork, grantedPart, type AppCsp, type AppCspRefusal } from './appNetwork';
import { APP_GUARD, TRUSTED_TYPES_DIRECTIVES, WEBRTC_DIRECTIVE, urlFreePolicy } from './appGuard';

/** The largest app page Plangate renders (characters of HTML); a larger one falls back to the plain result. */
export const MAX_APP_HTML = 5 * 1024 * 1024;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type { AppCsp } from './appNetwork';

/** A checked app page, ready for the panel. */
export interface AppPage {
  uri: string;
  /** The page with its policy `<meta>` first and the panel's app nonce on its inline scripts and styles. */
  html: string;
  /** The policy put into the page: the declared origins granted to the app's server, and no others. */
  csp: string;
  /** The page's second policy, which only narrows the first: no script URL at all (appGuard.ts `urlFreePolicy`). */
  urlFree: string;
  /** Origins the app declared for network access (src/core/apps/appNetwork.ts), granted or not. */
  declared: AppCsp;
  /** What the page declared and Plangate refuses (invalid origins, frames, base URIs, permissions). */
  refused: AppCspRefusal[];
  /** `_meta.ui.prefersBorder`. */
  prefersBorder?: boolean;
}

/** Why an app is not shown; `message` is for the note that replaces it ("The server's app … is not shown: …"). */
export interface AppRefusal {
  reason: 'not_found' | 'wrong_type' | 'too_large' | 'unreadable';
  message: string;
}

/** The declared policy of a resource (contents entry first, then its `resources/list` entry); see appNetwork.ts. */
export function declaredCsp(...metas: unknown[]): AppCsp {
  return declaredNetwork(...metas).declared;
}

/**
 * The page's policy: the spec's restrictive default (no network at all, no frames, no plugins, no navigation of
 * forms or base), widened only by `origins` — the declared origins granted to the app's server (appNetwork.ts
 * `grantedPart`). Resource origins serve images, styles, fonts and media, not scripts (the panel's policy, which the
 * frame inherits, keeps scripts to its nonces). `nonce` is the panel's app nonce (the inherited panel policy admits
 * inline scripts and styles that carry it). No WebRTC and no `srcdoc` frames: Trusted Types with only the guard's
 * policy, and `webrtc 'block'` where the browser knows it (appGuard.ts).
 */
export function appCsp(origins: AppCsp, nonce: string): string {
  const res = origins.resourceDomains.join(' ');
  const src = (extra: string) => [extra, res].filter(Boolean).join(' ');
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'${res ? ` ${res}` : ''}`,
    `img-src ${src('data:')}`,
    `media-src ${src('data:')}`,
    `font-src ${src('data:')}`,
    `connect-src ${origins.connectDomains.length ? origins.connectDomains.join(' ') : "'none'"}`,
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    ...TRUSTED_TYPES_DIRECTIVES,
    WEBRTC_DIRECTIVE,
  ].join('; ');
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

type Node = DefaultTreeAdapterMap['node'];

/**
 * The offsets in `html` of the start tags that get the app nonce: every `<style>` and every inline `<script>` (HTML or
 * SVG) as the HTML parser reads the page — so never a `<script` written inside an attribute value (a `srcdoc`), a
 * comment or a script's text. A script with a URL gets none: the panel admits no script URL (appGuard.ts).
 */
function nonceOffsets(html: string): number[] {
  const offsets: number[] = [];
  const visit = (node: Node): void => {
    if ('tagName' in node && (node.tagName === 'script' || node.tagName === 'style')) {
      const start = node.sourceCodeLocation?.startTag?.startOffset;
      const fromUrl = node.tagName === 'script' && node.attrs.some((a) => a.name === 'src' || a.name === 'href' || a.name === 'xlink:href');
      const tag = `<${node.tagName}`;
      if (start !== undefined && !fromUrl && html.slice(start, start + tag.length).toLowerCase() === tag) offsets.push(start + tag.length);
    }
    if ('childNodes' in node) for (const child of node.childNodes) visit(child);
    if ('content' in node) visit(node.content);
  };
  visit(parse(html, { sourceCodeLocationInfo: true }));
  return offsets.sort((a, b) => a - b);
}

/**
 * The page as the iframe loads it: the policies' `<meta>` elements and the guard script (appGuard.ts) go before
 * anything of the server's (after a leading doctype, which must stay first), so they cover every script and style;
 * every inline `<script>` and every `<style>` start tag gets the nonce (one that already names a nonce keeps ours: the
 * first attribute wins). `csp` is the page's policy, or its policies (each its own `<meta>`, each enforced).
 */
export function preparePage(html: string, csp: string | readonly string[], nonce: string): string {
  const policies = typeof csp === 'string' ? [csp] : csp;
  const head =
    policies.map((p) => `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(p)}">`).join('') +
    `<script nonce="${nonce}">${APP_GUARD}</script>`;
  const page = html.replace(/^\uFEFF/, '');
  let withNonce = '';
  let from = 0;
  for (const at of nonceOffsets(page)) {
    withNonce += `${page.slice(from, at)} nonce="${nonce}"`;
    from = at;
  }
  withNonce += page.slice(from);
  const doctype = /^\s*<!doctype[^>]*>/i.exec(withNonce);
  return doctype ? `${doctype[0]}${head}${withNonce.slice(doctype[0].length)}` : `<!DOCTYPE html>${head}${withNonce}`;
}

/**
 * The contents of a `resources/read` result for `uri`, checked; `listMeta` is the `resources/list` entry's `_meta`,
 * `granted` the origins the user granted to the app's server (none: the page gets no network).
 */
export function checkAppResource(
  uri: string,
  read: unknown,
  nonce: string,
  options: { maxChars?: number; listMeta?: unknown; granted?: AppCsp } = {},
): AppPage | AppRefusal {
  const max = options.maxChars ?? MAX_APP_HTML;
  const contents = isObj(read) && Array.isArray(read.contents) ? read.contents.filter(isObj) : [];
  const entry = contents.find((c) => c.uri === uri) ?? contents[0];
  if (!entry) return { reason: 'not_found', message: `the server returned no contents for ${uri}` };
  const mime = typeof entry.mimeType === 'string' ? entry.mimeType : '';
  if (mime.replace(/\s/g, '').toLowerCase() !== APP_MIME_TYPE)
    return {
      reason: 'wrong_type',
      message: `its type is ${mime ? `"${mime.slice(0, 80)}"` : 'not given'}, not "${APP_MIME_TYPE}"`,
    };
  let html: string;
  if (typeof entry.text === 'string') html = entry.text;
  else if (typeof entry.blob === 'string') {
    // base64 is 4/3 of the bytes: refuse before decoding what is plainly too large.
    if (entry.blob.length > (max * 4) / 3 + 4) return tooLarge(max);
    try {
      html = new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(atob(entry.blob), (c) => c.charCodeAt(0)));
    } catch {
      return { reason: 'unreadable', message: 'its base64 content does not decode' };
    }
  } else return { reason: 'unreadable', message: 'it has neither text nor blob content' };
  if (html.length > max) return tooLarge(max);
  const { declared, refused } = declaredNetwork(entry._meta, options.listMeta);
  const granted = grantedPart(declared, options.granted);
  const csp = appCsp(granted, nonce);
  const urlFree = urlFreePolicy(granted.resourceDomains);
  const meta = isObj(entry._meta) && isObj(entry._meta.ui) ? entry._meta.ui : {};
  return {
    uri,
    html: preparePage(html, [csp, urlFree], nonce),
    csp,
    urlFree,
    declared,
    refused,
    ...(typeof meta.prefersBorder === 'boolean' && { prefersBorder: meta.prefersBorder }),
  };
}

function tooLarge(max: number): AppRefusal {
  return { reason: 'too_large', message: `it is larger than ${Math.round(max / 1024)} KB, the most Plangate renders` };
}

export function isAppRefusal(page: AppPage | AppRefusal): page is AppRefusal {
  return 'reason' in page;
}
