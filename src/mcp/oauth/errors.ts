/**
 * What can go wrong when signing in to a server, in words that name the step (discovery, registration,
 * authorization, token) and the URL it talked to.
 */
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

/** The steps of the sign-in flow, in the order they run. */
export type SignInStep = 'discovery' | 'registration' | 'authorization' | 'token';

/**
 * The server wants the user to sign in, and nothing may open a browser now (a connection started in the background,
 * or a call that needs more permission). `scope` is what the server asked for, when it said.
 */
export class SignInRequiredError extends Error {
  constructor(
    message: string,
    readonly scope?: string,
    /** A running server refused a call for want of `scope` (403 insufficient_scope): sign in again with it. */
    readonly stepUp = false,
    /** The `resource_metadata` URL of the server's challenge (where its protected-resource metadata is). */
    readonly resourceMetadataUrl?: URL,
  ) {
    super(message);
    this.name = 'SignInRequiredError';
  }
}

/** A sign-in that failed at `step` while talking to `url`. */
export class SignInError extends Error {
  constructor(
    readonly step: SignInStep,
    readonly url: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'SignInError';
  }
}

/** The message of a sign-in failure: the step, the URL, what the server said, and what to do. */
export function describeSignInFailure(server: string, step: SignInStep, url: string | undefined, err: unknown): string {
  const at = url ? ` (${url})` : '';
  const said =
    err instanceof OAuthError
      ? `${err.errorCode}${err.message ? `: ${err.message}` : ''}`
      : err instanceof Error
        ? err.message
        : String(err);
  const advice: Record<SignInStep, string> = {
    discovery: 'Check "url", and that the server supports OAuth sign-in.',
    registration: /dynamic client registration/i.test(said)
      ? 'This authorization server does not register clients itself: register one there and give its client id ("oauth": {"clientId"} in mcp.json, or --client-id).'
      : 'Check the pre-registered client id and secret, if any.',
    authorization: 'Sign in again.',
    token: 'Sign in again; if it keeps failing, check the client id and secret.',
  };
  return `Server '${server}': sign-in failed at the ${step} step${at}: ${said.replace(/\.$/, '')}. ${advice[step]}`;
}
