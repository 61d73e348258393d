/**
 * An MCP App's HTML as Plangate renders it: the `ui://` resource checked (type, size), and its Content Security
 * Policy built from the resource's own `_meta.ui.csp` with network denied unless declared and granted by the user
 * (appNetwork.ts). The page runs in a sandboxed iframe inside the panel; the policy written here travels as the first
 * element of its document, and the panel's own policy (which the iframe inherits) stays the ceiling above it.
 *
 * Pure: no vscode, no I/O.
 */
import { APP_MIME_TYPE } from './appTool';
import { declaredNetwork, grantedPart, type AppCsp, type AppCspRefusal } from './appNetwork';

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
 * inline scripts and styles that carry it).
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
  ].join('; ');
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The page as the iframe loads it: the policy `<meta>` goes before anything of the server's (after a leading doctype,
 * which must stay first), so it covers every script and style; every `<script` and `<style` start tag gets the nonce
 * (an inline element that already names a nonce keeps ours: the first attribute wins).
 */
export function preparePage(html: string, csp: string, nonce: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">`;
  const withNonce = html.replace(/<(script|style)(?=[\s>/])/gi, (_m, tag: string) => `<${tag} nonce="${nonce}"`);
  const doctype = /^\uFEFF?\s*<!doctype[^>]*>/i.exec(withNonce);
  return doctype
    ? `${doctype[0]}${meta}${withNonce.slice(doctype[0].length)}`
    : `<!DOCTYPE html>${meta}${withNonce.replace(/^\uFEFF/, '')}`;
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
  const csp = appCsp(grantedPart(declared, options.granted), nonce);
  const meta = isObj(entry._meta) && isObj(entry._meta.ui) ? entry._meta.ui : {};
  return {
    uri,
    html: preparePage(html, csp, nonce),
    csp,
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
