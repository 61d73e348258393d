/**
 * An MCP App's network access: which origins a page may name (`_meta.ui.csp`), which of them the user granted to its
 * server, and the policies that follow. A server app runs in a `srcdoc` iframe, which inherits the panel's policy and
 * adds its own page policy on top, so what it can reach is what both allow:
 *
 * - the panel's policy admits the origins granted to any server ({@link panelCsp}); nothing else;
 * - the page's policy admits its own declared origins that were granted to its own server ({@link grantedPart}), so a
 *   grant to one server never opens an origin to another server's app, nor one the page did not declare.
 *
 * Pure: no vscode, no I/O. Server data is hostile: only plain origins pass, the rest is refused with a note.
 */

import type { AppNetworkView } from '../../shared/protocol/apps';
import { sha256Hex } from '../base/json';

/** The most origins of each kind a page may ask for; the rest are refused. */
export const MAX_ORIGINS = 20;

/** A page's network request, as far as Plangate honours it. */
export interface AppCsp {
  /** For `fetch`, XHR, WebSocket, EventSource (`connect-src`). */
  connectDomains: string[];
  /** For images, styles, fonts and media (`img-src`, `style-src`, `font-src`, `media-src`). */
  resourceDomains: string[];
}

/** What a page declared and Plangate does not offer, each with why, in words for the notice. */
export interface AppCspRefusal {
  /** The value as declared (clipped). */
  value: string;
  why: string;
}

/** Origins granted to servers (workspace state: {@link grantKey} of a server → its grant). */
export type NetworkGrants = Record<string, AppCsp>;

/**
 * What a server is, as far as its grants go: its name and how it is reached — its command line and working folder
 * (stdio), or its URL (http, sse). Environment and headers are left out: they hold tokens that change, not the server.
 */
export type ServerIdentity =
  | { name: string; type: 'stdio'; command: string; args: readonly string[]; cwd?: string }
  | { name: string; type: 'http' | 'sse'; url: string };

/**
 * The key a server's grants are kept under: its name, a space, and the SHA-256 of its {@link ServerIdentity}. A later
 * server of the same name with another command line or URL has another key, so it inherits nothing.
 */
export function grantKey(server: ServerIdentity): string {
  const how = server.type === 'stdio' ? [server.command, [...server.args], server.cwd ?? null] : [server.url];
  return `${server.name} ${sha256Hex(JSON.stringify([server.name, server.type, ...how]))}`;
}

const GRANT_KEY = /^(.*) [0-9a-f]{64}$/s;

/** The server name in a {@link grantKey} (for the log). */
export function serverOfKey(key: string): string {
  return GRANT_KEY.exec(key)?.[1] ?? key;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The origin `value` names, normalised (lower case, no trailing `/`), or why it is refused. Accepted:
 * `https://host[:port]` and `wss://host[:port]`, the host optionally led by `*.` (a subdomain wildcard, as the spec
 * allows, over at least two labels); and for local development `http://` or `ws://` `localhost` / `127.0.0.1` with a
 * port. Anything else — a CSP keyword, a quote, a `;`, a space, a path, a query, user info, a bare `*` — is refused.
 */
export function checkOrigin(value: unknown): { origin: string } | { why: string } {
  if (typeof value !== 'string') return { why: 'not a string' };
  if (value.length > 260) return { why: 'too long' };
  if (/[\s'";,\\\u0000-\u001f\u007f-\u009f]/.test(value) || /[^\x21-\x7e]/.test(value))
    return { why: 'it holds spaces, quotes, separators or characters outside plain ASCII' };
  const m = /^([a-z]+):\/\/([^/:?#@]+)(?::(\d{1,5}))?\/?$/i.exec(value);
  if (!m) return { why: 'not an origin (scheme://host[:port], no path, query or user)' };
  const scheme = m[1]!.toLowerCase();
  const host = m[2]!.toLowerCase();
  const port = m[3];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535 || port.startsWith('0'))) return { why: 'its port is not 1–65535' };
  const local = LOCAL_HOSTS.has(host);
  if (scheme === 'http' || scheme === 'ws') {
    if (!local || port === undefined) return { why: `${scheme}:// is only offered for localhost or 127.0.0.1 with a port` };
  } else if (scheme !== 'https' && scheme !== 'wss') return { why: `the scheme ${scheme}: is not offered (https or wss only)` };
  const wildcard = host.startsWith('*.');
  const labels = (wildcard ? host.slice(2) : host).split('.');
  if (host.length > 253 || !labels.every((l) => LABEL.test(l))) return { why: 'its host is not a plain host name' };
  if (wildcard && labels.length < 2) return { why: 'a wildcard must stand before at least two labels' };
  return { origin: `${scheme}://${host}${port !== undefined ? `:${port}` : ''}` };
}

const clip = (v: unknown) => {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
};

/** The valid origins of one declared list (deduplicated, at most {@link MAX_ORIGINS}), and the values refused. */
export function checkOrigins(values: unknown, kind: string): { origins: string[]; refused: AppCspRefusal[] } {
  const origins: string[] = [];
  const refused: AppCspRefusal[] = [];
  if (values === undefined) return { origins, refused };
  if (!Array.isArray(values)) return { origins, refused: [{ value: clip(values), why: `${kind} is not a list` }] };
  for (const value of values.slice(0, 200)) {
    const checked = checkOrigin(value);
    if ('why' in checked) refused.push({ value: clip(value), why: checked.why });
    else if (origins.includes(checked.origin)) continue;
    else if (origins.length >= MAX_ORIGINS) refused.push({ value: checked.origin, why: `more than ${MAX_ORIGINS} ${kind}` });
    else origins.push(checked.origin);
  }
  if (values.length > 200) refused.push({ value: `${values.length - 200} more`, why: `more than ${MAX_ORIGINS} ${kind}` });
  return { origins, refused };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The page's network request from its `_meta.ui` (the contents entry first, then its `resources/list` entry): the
 * origins Plangate may grant, and what it refuses — invalid origins, and what it never offers (nested frames,
 * base URIs, camera and the other permissions).
 */
export function declaredNetwork(...metas: unknown[]): { declared: AppCsp; refused: AppCspRefusal[] } {
  const ui = metas.map((m) => (isObj(m) && isObj(m.ui) ? m.ui : undefined));
  const csp = ui.map((u) => (u && isObj(u.csp) ? u.csp : undefined)).find(Boolean);
  const permissions = ui.map((u) => (u && isObj(u.permissions) ? u.permissions : undefined)).find(Boolean);
  const connect = checkOrigins(csp?.connectDomains, 'connectDomains');
  const resource = checkOrigins(csp?.resourceDomains, 'resourceDomains');
  const refused = [...connect.refused, ...resource.refused];
  for (const key of ['frameDomains', 'baseUriDomains'] as const) {
    const list = csp?.[key];
    if (Array.isArray(list) && list.length)
      refused.push({ value: clip(list.slice(0, 5).join(' ')), why: `${key} are not offered (apps get no nested frames and no base URI)` });
  }
  const asked = permissions ? Object.keys(permissions).filter((k) => permissions[k] !== false && permissions[k] !== undefined) : [];
  if (asked.length) refused.push({ value: clip(asked.slice(0, 8).join(', ')), why: 'permissions are not offered' });
  return { declared: { connectDomains: connect.origins, resourceDomains: resource.origins }, refused };
}

/** The origins of `declared` that `granted` covers (exact origins: a grant of `https://*.x.com` covers only that). */
export function grantedPart(declared: AppCsp, granted: AppCsp | undefined): AppCsp {
  return {
    connectDomains: declared.connectDomains.filter((o) => granted?.connectDomains.includes(o)),
    resourceDomains: declared.resourceDomains.filter((o) => granted?.resourceDomains.includes(o)),
  };
}

/** The origins of `declared` not yet granted: what the notice asks for. */
export function ungrantedPart(declared: AppCsp, granted: AppCsp | undefined): AppCsp {
  return {
    connectDomains: declared.connectDomains.filter((o) => !granted?.connectDomains.includes(o)),
    resourceDomains: declared.resourceDomains.filter((o) => !granted?.resourceDomains.includes(o)),
  };
}

/** Every origin of `csp`, connect first, once each. */
export function originsOf(csp: AppCsp): string[] {
  return [...new Set([...csp.connectDomains, ...csp.resourceDomains])];
}

/** `grants` with `origins` added to the grant under `server` (its {@link grantKey}). */
export function withGrant(grants: NetworkGrants, server: string, origins: AppCsp): NetworkGrants {
  const had = grants[server] ?? { connectDomains: [], resourceDomains: [] };
  return {
    ...grants,
    [server]: {
      connectDomains: [...new Set([...had.connectDomains, ...origins.connectDomains])],
      resourceDomains: [...new Set([...had.resourceDomains, ...origins.resourceDomains])],
    },
  };
}

/**
 * The grants as read back from workspace state, checked again (the state is ours, but an older or edited one must not
 * widen the panel's policy): each origin passes {@link checkOrigin} or is dropped, and so is a grant kept under a bare
 * server name (before grants were keyed by {@link grantKey}): it would go to whatever server takes that name.
 */
export function readGrants(stored: unknown): NetworkGrants {
  const out: NetworkGrants = {};
  if (!isObj(stored)) return out;
  for (const [server, grant] of Object.entries(stored)) {
    if (!isObj(grant) || !GRANT_KEY.test(server)) continue;
    const connect = checkOrigins(grant.connectDomains, 'connectDomains').origins;
    const resource = checkOrigins(grant.resourceDomains, 'resourceDomains').origins;
    if (connect.length || resource.length) out[server] = { connectDomains: connect, resourceDomains: resource };
  }
  return out;
}

/** Every origin granted to any server: what the panel's policy admits. */
export function allGranted(grants: NetworkGrants): AppCsp {
  const all = Object.values(grants);
  const union = (pick: (g: AppCsp) => string[]) => [...new Set(all.flatMap(pick))].sort();
  return { connectDomains: union((g) => g.connectDomains), resourceDomains: union((g) => g.resourceDomains) };
}

/**
 * The panel webview's policy. Its own scripts run by `nonce`; server apps' inline scripts and styles by `appNonce`
 * (their `srcdoc` frames inherit this policy); styles, fonts and images from the extension (`cspSource`). `granted`
 * (see {@link allGranted}) adds the origins the user allowed: `connectDomains` to `connect-src`, `resourceDomains` to
 * `img-src`, `style-src`, `font-src` and `media-src` — never to `script-src`, which stays nonce-only, so the panel's
 * own page can load no remote script either. Without grants there is no network at all.
 */
export function panelCsp(options: { cspSource: string; nonce: string; appNonce: string; granted?: AppCsp }): string {
  const { cspSource, nonce, appNonce } = options;
  const res = options.granted?.resourceDomains ?? [];
  const connect = options.granted?.connectDomains ?? [];
  const join = (...parts: string[]) => parts.filter(Boolean).join(' ');
  return [
    "default-src 'none'",
    `style-src ${join(cspSource, `'nonce-${appNonce}'`, ...res)}`,
    `font-src ${join(cspSource, ...res)}`,
    `img-src ${join(cspSource, 'data:', ...res)}`,
    ...(res.length ? [`media-src ${join(...res)}`] : []),
    `script-src 'nonce-${nonce}' 'nonce-${appNonce}'`,
    ...(connect.length ? [`connect-src ${join(...connect)}`] : []),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
    "object-src 'none'",
  ].join('; ');
}

/**
 * The app item's network notice: the declared origins not yet granted to `server` (asked), those granted (allowed),
 * and what is refused; undefined when the page declared nothing of the kind. `kept`: the user pressed Keep blocked.
 */
export function networkView(
  server: string,
  declared: AppCsp,
  refused: AppCspRefusal[],
  granted: AppCsp | undefined,
  kept = false,
): AppNetworkView | undefined {
  const asking = originsOf(ungrantedPart(declared, granted));
  const allowed = originsOf(grantedPart(declared, granted));
  if (!asking.length && !allowed.length && !refused.length) return undefined;
  return { server, asking, allowed, refused, ...(kept && asking.length ? { kept: true } : {}) };
}
