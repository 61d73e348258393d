/**
 * Plangate's `OAuthClientProvider`: the SDK's `auth()` runs discovery, registration, PKCE and the token requests;
 * this keeps what they produce in an {@link OAuthStore}, opens the browser only in an interactive sign-in, and knows
 * which step the flow is at (for error messages). In the background it never starts an authorization: it throws
 * {@link SignInRequiredError}, and the server shows "sign-in required".
 */
import { randomBytes } from 'node:crypto';
import { extractWWWAuthenticateParams, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SignInRequiredError, type SignInStep } from './errors';
import { readRecord, type OAuthRecord, type OAuthStore } from './store';

/** A client registered with the authorization server beforehand (mcp.json `oauth`, or `--client-id`). */
export interface PreRegisteredClient {
  clientId: string;
  clientSecret?: string;
}

export interface OAuthProviderOptions {
  store: OAuthStore;
  /** The record's key (see `oauthKey`). */
  key: string;
  /** The MCP server's URL: requests to it are the MCP traffic, not a sign-in step. */
  serverUrl: string;
  /** What the authorization server shows the user (`client_name`). */
  clientName: string;
  preRegistered?: PreRegisteredClient;
  /**
   * An HTTPS URL of a Client ID Metadata Document describing this client (its name and loopback redirect URI): used as
   * the client id where the authorization server supports such documents, instead of registering.
   */
  clientMetadataUrl?: string;
  /** Present only in an interactive sign-in: where the browser comes back to, and how to open it. */
  interactive?: { redirectUrl: string; open(url: URL): Promise<void> };
}

/** The redirect URI a background provider reports (it never starts an authorization, so it is never sent). */
const BACKGROUND_REDIRECT = 'http://127.0.0.1/callback';

export class PlangateOAuthProvider implements OAuthClientProvider {
  /** The step the flow is at, and the URL it last talked to for it. */
  step: SignInStep = 'discovery';
  stepUrl?: string;
  /** Whether a sign-in step ran since the MCP server last answered a request: an error now is a sign-in error. */
  authActive = false;
  /** The first refusal of a registration or token request (or a failing metadata server), as the server put it. */
  refusal?: { step: SignInStep; url: string; said: string };
  /** The authorization URL the browser was sent to (interactive), once there is one. */
  authorizationUrl?: URL;
  /** The `state` sent with the authorization request; the redirect must carry it back. */
  expectedState?: string;
  /** The scope a 403 `insufficient_scope` asked for: a refresh cannot widen a token, so the next `auth()` must authorize. */
  private stepUpScope?: string;
  /** What the MCP server's last 401 or 403 asked for (its WWW-Authenticate challenge): the sign-in it leads to uses it. */
  challenge?: { scope?: string; resourceMetadataUrl?: URL };
  private verifier?: string;
  /** Token and secret values this provider has handled, to keep them out of messages. */
  private readonly seen = new Set<string>();

  constructor(private readonly options: OAuthProviderOptions) {}

  get redirectUrl(): string {
    return this.options.interactive?.redirectUrl ?? BACKGROUND_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A public client: an editor or a terminal cannot keep a secret (RFC 8252 §8.4); PKCE protects the code.
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.expectedState = randomBytes(32).toString('base64url');
    return this.expectedState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    this.step = 'registration';
    const pre = this.options.preRegistered;
    if (pre) return { client_id: pre.clientId, ...(pre.clientSecret !== undefined && { client_secret: pre.clientSecret }) };
    const record = await this.load();
    const client = record.client;
    if (client && this.options.interactive && record.registered) {
      // Registered for another redirect URI (the loopback port moved): register again rather than be refused.
      const uris = 'redirect_uris' in client ? (client.redirect_uris as string[] | undefined) : undefined;
      if (uris && !uris.includes(this.redirectUrl)) return undefined;
    }
    if (!client && !this.options.interactive)
      throw new SignInRequiredError(
        'Sign in to use this server (it answered 401 Unauthorized). If it takes an API key instead, put it in its "headers".',
        this.challenge?.scope,
        false,
        this.challenge?.resourceMetadataUrl,
      );
    return client;
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    if (this.options.preRegistered) return; // the configuration holds it; nothing to remember
    await this.save((r) => ({ ...r, client: info, registered: true }));
  }

  /** The next `auth()` must send the user to authorize (a refresh cannot widen a token's scope). */
  requireAuthorization(): void {
    this.stepUpScope ??= '';
  }

  /** The token and secret values seen so far (for redaction). */
  secrets(): string[] {
    return [...this.seen];
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = (await this.load()).tokens;
    this.remember(tokens);
    if (tokens && this.stepUpScope !== undefined) {
      const { refresh_token: _hidden, ...rest } = tokens;
      return rest;
    }
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.remember(tokens);
    this.stepUpScope = undefined;
    await this.save((r) => ({ ...r, tokens }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.step = 'authorization';
    this.stepUrl = `${url.origin}${url.pathname}`;
    const scope = url.searchParams.get('scope') ?? undefined;
    const stepUp = this.stepUpScope !== undefined;
    this.stepUpScope = undefined;
    if (!this.options.interactive) {
      throw new SignInRequiredError(
        stepUp
          ? `The server needs more permission${scope ? ` (scope: ${scope})` : ''}. Sign in again to grant it.`
          : 'Sign in to use this server.',
        scope,
        stepUp,
        this.challenge?.resourceMetadataUrl,
      );
    }
    this.authorizationUrl = url;
    await this.options.interactive.open(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no sign-in was started here (no PKCE code verifier)');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    await this.save((r) =>
      scope === 'all'
        ? {}
        : scope === 'client'
          ? { ...r, client: undefined, registered: undefined }
          : scope === 'tokens'
            ? { ...r, tokens: undefined }
            : { ...r, discovery: undefined },
    );
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.save((r) => ({ ...r, discovery: state }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.load()).discovery;
  }

  /**
   * The fetch the transport and `auth()` use: it notes which sign-in step each request belongs to, and a
   * `403 insufficient_scope` from the MCP server (so that the step-up authorizes instead of refreshing).
   */
  fetch(base: FetchLike = fetch): FetchLike {
    return async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const step = this.classify(url, init);
      if (step) {
        this.step = step;
        this.stepUrl = url.split('?')[0];
        this.authActive = true;
      }
      const res = await base(input, init);
      if (!step && res.ok) this.authActive = false;
      if (step && !this.refusal && (step === 'discovery' ? res.status >= 500 : res.status >= 400)) {
        this.refusal = { step, url: url.split('?')[0]!, said: await refusalText(res) };
      }
      if (!step && (res.status === 401 || res.status === 403)) {
        const { scope, resourceMetadataUrl, error } = extractWWWAuthenticateParams(res);
        this.challenge = { scope, resourceMetadataUrl };
        if (res.status === 403 && error === 'insufficient_scope') this.stepUpScope = scope ?? '';
      }
      return res;
    };
  }

  private remember(tokens: OAuthTokens | undefined): void {
    for (const v of [tokens?.access_token, tokens?.refresh_token, tokens?.id_token, this.options.preRegistered?.clientSecret])
      if (v) this.seen.add(v);
  }

  private classify(url: string, init: RequestInit | undefined): SignInStep | undefined {
    if (url.split('?')[0] === this.options.serverUrl.split('?')[0]) return undefined;
    if (url.includes('/.well-known/')) return 'discovery';
    const body = init?.body;
    if (body instanceof URLSearchParams && body.has('grant_type')) return 'token';
    // A registration request carries client metadata; other JSON posts (an SSE server's message endpoint) are MCP.
    if ((init?.method ?? 'GET').toUpperCase() === 'POST' && typeof body === 'string' && body.includes('"redirect_uris"'))
      return 'registration';
    return undefined;
  }

  private async load(): Promise<OAuthRecord> {
    // Read afresh each time: a sign-in in another connection (or a step-up) may have stored new tokens.
    return readRecord(this.options.store, this.options.key);
  }

  private async save(change: (r: OAuthRecord) => OAuthRecord): Promise<void> {
    const next = change(await readRecord(this.options.store, this.options.key));
    await this.options.store.store(this.options.key, JSON.stringify(next));
  }
}

/** What an authorization server said when it refused: `error: error_description`, or the status and some of the body. */
async function refusalText(res: Response): Promise<string> {
  const body = await res
    .clone()
    .text()
    .catch(() => '');
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    if (typeof parsed.error === 'string')
      return `${parsed.error}${typeof parsed.error_description === 'string' && parsed.error_description ? `: ${parsed.error_description}` : ''}`;
  } catch {
    /* not JSON */
  }
  return `HTTP ${res.status}${body.trim() ? `: ${body.trim().slice(0, 200)}` : ''}`;
}
