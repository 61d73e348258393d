/**
 * The redirect URI of a sign-in: a one-shot HTTP listener on the loopback interface (RFC 8252 §7.3). The browser comes
 * back to it with `code` and `state`; a redirect whose state is not the one sent is refused and the wait goes on.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where the browser comes back to, and the wait for it. */
export interface RedirectReceiver {
  /** The redirect URI to send to the authorization server. */
  readonly redirectUrl: string;
  /**
   * Resolves with the authorization code of the first redirect that carries `state`; rejects when the server sent
   * the browser back with an error, when `signal` aborts, or after `timeoutMs`.
   */
  code(state: string, signal: AbortSignal | undefined, timeoutMs: number): Promise<string>;
  close(): void;
}

/** A redirect that came back with `error=` (the user declined, or the server refused the request). */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly error: string,
    description: string | undefined,
  ) {
    super(`the authorization server answered ${error}${description ? `: ${description}` : ''}`);
    this.name = 'AuthorizationRedirectError';
  }
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body>`;

/**
 * Listens on 127.0.0.1 (on `preferredPort` when it is free, else any free port) at path `/callback` (any path that
 * ends so: a proxy in front, such as code-server's `/proxy/<port>/`, may keep a prefix).
 */
export async function listenForRedirect(options: { preferredPort?: number } = {}): Promise<RedirectReceiver> {
  type Waiter = { state: string; resolve(code: string): void; reject(err: Error): void };
  let waiter: Waiter | undefined;
  // A browser may come back before anyone waits (an authorization server that approves at once): its request is held
  // open until `code()` says which state to expect, then answered.
  const early: { url: URL; res: ServerResponse }[] = [];
  const send = (res: ServerResponse, status: number, title: string, text: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(PAGE(title, text));
  };
  const answer = (url: URL, res: ServerResponse) => {
    if (!waiter || url.searchParams.get('state') !== waiter.state) {
      return send(
        res,
        400,
        'Sign-in refused',
        'This sign-in response does not belong to the sign-in Plangate started (its state does not match). Nothing was done.',
      );
    }
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    const w = waiter;
    waiter = undefined;
    if (error) {
      send(res, 400, 'Sign-in failed', `The authorization server answered "${escapeHtml(error)}". You can close this tab.`);
      w.reject(new AuthorizationRedirectError(error, url.searchParams.get('error_description') ?? undefined));
    } else if (!code) {
      send(res, 400, 'Sign-in failed', 'The response carries no authorization code. You can close this tab.');
      w.reject(new Error('the redirect carried no authorization code'));
    } else {
      send(res, 200, 'Signed in', 'Plangate is signed in. You can close this tab and return to your editor.');
      w.resolve(code);
    }
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (!url.pathname.endsWith('/callback')) return send(res, 404, 'Not found', 'This is Plangate’s sign-in listener.');
    if (!waiter && early.length < 8) early.push({ url, res });
    else answer(url, res);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  try {
    await listen(options.preferredPort ?? 0);
  } catch (err) {
    if (!options.preferredPort) throw err;
    await listen(0);
  }
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    code(state, signal, timeoutMs) {
      return new Promise<string>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        const onAbort = () => {
          waiter = undefined;
          done();
          reject(new Error('the sign-in was cancelled'));
        };
        const timer = setTimeout(() => {
          waiter = undefined;
          done();
          reject(new Error(`the browser did not come back within ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        waiter = {
          state,
          resolve: (c) => {
            done();
            resolve(c);
          },
          reject: (e) => {
            done();
            reject(e);
          },
        };
        for (const held of early.splice(0)) answer(held.url, held.res);
      });
    },
    close() {
      for (const held of early.splice(0)) send(held.res, 400, 'Sign-in over', 'Plangate no longer waits for this sign-in.');
      server.close();
      server.closeAllConnections?.();
    },
  };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
