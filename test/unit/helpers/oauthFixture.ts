// A small OAuth 2.1 authorization server and protected MCP server in one HTTP listener, for the sign-in variants the
// SDK's example server cannot show: the 2025-03-26 fallbacks (no protected-resource metadata; metadata on the MCP
// server's origin, or none and the default /authorize, /token, /register), pre-registered clients without dynamic
// registration, each token endpoint auth method, refresh tokens, 403 insufficient_scope step-up, and failing steps.
// Its authorize endpoint approves at once and redirects, as the SDK's demo server does. Everything it saw is in `seen`.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export type AuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

export interface OAuthFixtureOptions {
  /** '2025-11-25': protected-resource metadata naming an authorization server at `/as` (path-aware discovery).
   *  '2025-03-26': no protected-resource metadata; the MCP server's origin is the authorization server. */
  spec: '2025-11-25' | '2025-03-26';
  /** 2025-11-25: put `resource_metadata` in WWW-Authenticate (default true); without it the client probes well-known paths. */
  headerMetadata?: boolean;
  /** 2025-03-26: serve authorization server metadata on the origin (default true); without it, default endpoints. */
  legacyMetadata?: boolean;
  /** Offer dynamic client registration (default true). */
  dcr?: boolean;
  /** `token_endpoint_auth_methods_supported` (default ['none']). */
  authMethods?: AuthMethod[];
  /** A client registered beforehand, and the auth method the token endpoint expects of it. */
  preRegistered?: { clientId: string; clientSecret?: string; method: AuthMethod };
  /** Issue refresh tokens (default true). */
  refresh?: boolean;
  /** `write_thing` answers 403 insufficient_scope even to a token with `write` (the client must not loop). */
  alwaysInsufficient?: boolean;
  /** A step that fails: the token endpoint answers 400 invalid_client, or the AS metadata answers 500. */
  fail?: 'token' | 'metadata';
  /** JSON-RPC methods the MCP endpoint serves without a token (e.g. `initialize`): it asks for a sign-in only later. */
  open?: string[];
  /** The user refuses at the authorization page: it redirects back with `error=access_denied`. */
  deny?: boolean;
  /** 2025-11-25: the authorization server publishes OpenID Connect discovery metadata only (`/.well-known/openid-configuration`). */
  oidcOnly?: boolean;
  /** The `authorization_endpoint` the metadata names, given the origin (a hostile server's choice); default `<origin>/as/authorize`. */
  authorizationEndpoint?: (origin: string) => string;
}

interface Client {
  id: string;
  secret?: string;
  method: AuthMethod;
  redirectUris?: string[];
}

export interface Seen {
  /** Every request: method and path (with the query for well-known probes). */
  requests: string[];
  /** The query of each authorization request. */
  authorizations: URLSearchParams[];
  /** Each token request: grant type and the client auth method used. */
  tokens: { grant: string; method: AuthMethod; resource?: string }[];
  registrations: number;
  /** Tool calls that reached the MCP server. */
  calls: string[];
  /** Each JSON-RPC request or notification POSTed to the MCP endpoint, and whether it carried a valid token. */
  methods: { method: string; authorized: boolean }[];
}

export interface OAuthFixture {
  url: string;
  origin: string;
  seen: Seen;
  /** Makes every access token issued so far invalid (as if it expired). */
  expireAccessTokens(): void;
  /** Every access token issued so far (to check none leaks into a log). */
  issuedTokens(): string[];
  close(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString('base64url');

export async function startOAuthFixture(options: OAuthFixtureOptions): Promise<OAuthFixture> {
  const seen: Seen = { requests: [], authorizations: [], tokens: [], registrations: 0, calls: [], methods: [] };
  const clients = new Map<string, Client>();
  if (options.preRegistered) {
    const p = options.preRegistered;
    clients.set(p.clientId, { id: p.clientId, secret: p.clientSecret, method: p.method });
  }
  const codes = new Map<string, { clientId: string; challenge: string; redirectUri: string; scope: string; resource?: string }>();
  const access = new Map<string, { scope: string }>();
  const refreshTokens = new Map<string, { clientId: string; scope: string }>();
  const issued: string[] = [];
  const legacy = options.spec === '2025-03-26';
  const asPath = legacy ? '' : '/as';
  let origin = '';

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const asMetadata = () => ({
    issuer: `${origin}${asPath || '/'}`,
    authorization_endpoint: options.authorizationEndpoint?.(origin) ?? `${origin}${asPath}/authorize`,
    token_endpoint: `${origin}${asPath}/token`,
    ...(options.dcr !== false && { registration_endpoint: `${origin}${asPath}/register` }),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: options.authMethods ?? ['none'],
    scopes_supported: ['read', 'write'],
  });
  const challengeHeader = (error?: string, scope = 'read') =>
    [
      `Bearer${error ? ` error="${error}",` : ''} scope="${scope}"`,
      !legacy && options.headerMetadata !== false ? `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` : undefined,
    ]
      .filter(Boolean)
      .join(', ');

  const issue = (clientId: string, scope: string) => {
    const token = `at-${randomUUID()}`;
    access.set(token, { scope });
    issued.push(token);
    const body: Record<string, unknown> = { access_token: token, token_type: 'Bearer', expires_in: 3600, scope };
    if (options.refresh !== false) {
      const rt = `rt-${randomUUID()}`;
      refreshTokens.set(rt, { clientId, scope });
      issued.push(rt);
      body.refresh_token = rt;
    }
    return body;
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: String(err) });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const path = url.pathname;
    seen.requests.push(`${req.method} ${path}`);
    // Protected resource metadata (2025-11-25 only), path-aware location first.
    if (path === '/.well-known/oauth-protected-resource/mcp' && !legacy) {
      return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [`${origin}/as`], scopes_supported: ['read', 'write'] });
    }
    if (path === `/.well-known/openid-configuration${asPath}` && options.oidcOnly && !legacy) {
      const oidc = { jwks_uri: `${origin}/as/jwks`, subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] };
      return json(res, 200, { ...asMetadata(), ...oidc });
    }
    if (path === `/.well-known/oauth-authorization-server${asPath}` && !options.oidcOnly && (!legacy || options.legacyMetadata !== false)) {
      if (options.fail === 'metadata') return json(res, 500, { error: 'server_error' });
      return json(res, 200, asMetadata());
    }
    if (path.startsWith('/.well-known/')) return json(res, 404, { error: 'not_found' });
    if (path === `${asPath}/register` && req.method === 'POST') {
      if (options.dcr === false) return json(res, 404, { error: 'not_found' });
      const meta = JSON.parse(await readBody(req)) as { redirect_uris: string[]; token_endpoint_auth_method?: AuthMethod };
      seen.registrations++;
      const method = meta.token_endpoint_auth_method ?? 'client_secret_basic';
      const client: Client = { id: randomUUID(), method, redirectUris: meta.redirect_uris };
      if (method !== 'none') client.secret = randomUUID();
      clients.set(client.id, client);
      return json(res, 201, {
        ...meta,
        client_id: client.id,
        ...(client.secret && { client_secret: client.secret }),
        client_id_issued_at: Math.floor(Date.now() / 1000),
      });
    }
    if (path === `${asPath}/authorize` && req.method === 'GET') {
      const q = url.searchParams;
      seen.authorizations.push(q);
      const client = clients.get(q.get('client_id') ?? '');
      const redirectUri = q.get('redirect_uri') ?? '';
      // Registered URIs match exactly; a pre-registered client may use any loopback port (RFC 8252 §7.3).
      const allowed = client?.redirectUris ? client.redirectUris.includes(redirectUri) : /^http:\/\/127\.0\.0\.1:\d+\//.test(redirectUri);
      if (!client || !allowed) return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
        return json(res, 400, { error: 'invalid_request', error_description: 'PKCE S256 is required' });
      if (options.deny) {
        const back = new URL(redirectUri);
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'the user declined');
        if (q.get('state')) back.searchParams.set('state', q.get('state')!);
        res.writeHead(302, { location: back.href });
        return void res.end();
      }
      const code = randomUUID();
      codes.set(code, {
        clientId: client.id,
        challenge: q.get('code_challenge')!,
        redirectUri,
        scope: q.get('scope') ?? '',
        resource: q.get('resource') ?? undefined,
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { location: back.href });
      return void res.end();
    }
    if (path === `${asPath}/token` && req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      let method: AuthMethod = 'none';
      let clientId = form.get('client_id') ?? '';
      let secret: string | undefined;
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      if (basic) {
        method = 'client_secret_basic';
        const [id, s] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
        clientId = decodeURIComponent(id ?? '');
        secret = decodeURIComponent(s ?? '');
      } else if (form.has('client_secret')) {
        method = 'client_secret_post';
        secret = form.get('client_secret') ?? undefined;
      }
      const grant = form.get('grant_type') ?? '';
      seen.tokens.push({ grant, method, resource: form.get('resource') ?? undefined });
      if (options.fail === 'token') return json(res, 400, { error: 'invalid_client', error_description: 'client authentication failed' });
      const client = clients.get(clientId);
      if (!client || client.method !== method || (client.secret !== undefined && client.secret !== secret))
        return json(res, 401, {
          error: 'invalid_client',
          error_description: `expected ${client?.method ?? 'a known client'}, got ${method}`,
        });
      if (grant === 'authorization_code') {
        const entry = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (!entry || entry.clientId !== client.id || entry.redirectUri !== form.get('redirect_uri'))
          return json(res, 400, { error: 'invalid_grant', error_description: 'unknown code' });
        if (b64url(createHash('sha256').update(verifier).digest()) !== entry.challenge)
          return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        return json(res, 200, issue(client.id, entry.scope));
      }
      if (grant === 'refresh_token') {
        const entry = refreshTokens.get(form.get('refresh_token') ?? '');
        if (!entry || entry.clientId !== client.id)
          return json(res, 400, { error: 'invalid_grant', error_description: 'unknown refresh token' });
        refreshTokens.delete(form.get('refresh_token')!);
        return json(res, 200, issue(client.id, entry.scope));
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    if (path === '/mcp') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const grant = token ? access.get(token) : undefined;
      const body: unknown = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
      const message = (body ?? {}) as { method?: string; params?: { name?: string } };
      if (message.method) seen.methods.push({ method: message.method, authorized: grant !== undefined });
      const open = message.method !== undefined && (options.open ?? []).includes(message.method);
      if (!grant && !open)
        return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': challengeHeader(token ? 'invalid_token' : undefined) });
      if (req.method !== 'POST') return json(res, 405, { error: 'method not allowed' });
      if (grant && message.method === 'tools/call' && message.params?.name === 'write_thing') {
        const scopes = grant.scope.split(' ');
        if (options.alwaysInsufficient || !scopes.includes('write'))
          return json(
            res,
            403,
            { error: 'insufficient_scope' },
            { 'www-authenticate': challengeHeader('insufficient_scope', 'read write') },
          );
      }
      if (message.method === 'tools/call') seen.calls.push(message.params?.name ?? '');
      const mcp = new McpServer({ name: 'oauth-fixture', version: '1.0.0' });
      mcp.registerTool('read_thing', { inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'read ok' }] }));
      mcp.registerTool('write_thing', { inputSchema: { value: z.string().optional() } }, async () => ({
        content: [{ type: 'text', text: 'write ok' }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    json(res, 404, { error: 'not_found' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    seen,
    expireAccessTokens: () => access.clear(),
    issuedTokens: () => [...issued],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
