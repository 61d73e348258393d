/**
 * Whether a URL that a server (or an app, or a server's sign-in metadata) supplied may be opened outside Plangate —
 * in the browser, by the operating system — and the text to show it with. Only `http:` and `https:` are opened: other
 * schemes hand the URL to whatever program the system registered for them (`file:` runs or opens a local file,
 * `vscode:` drives an extension, `ms-msdt:`/`search-ms:` reach Windows' troubleshooters and search), which a server
 * must never choose. What is opened is the URL as WHATWG `URL` reads it, with every character RFC 3986 does not allow
 * in a URL percent-encoded as well (`|`, `^`, `\`, `{`, …): the same place, in a form no command line or opener can
 * read differently. The text shown is that URL, with invisible and layout-changing characters marked, plus the
 * server's own text when it held such characters, so the user sees where the link goes.
 */
import { hasInvisible, visibleText } from '../../shared/visibleText';

/** Longer URLs are refused: no sign-in page or link needs more, and a modal or command line cannot show it. */
export const MAX_EXTERNAL_URL = 16_384;

export type ExternalUrl =
  | {
      ok: true;
      /** The URL to open: `http:` or `https:`, ASCII only, nothing outside RFC 3986's characters (no spaces, quotes, `|`, `^`). */
      url: string;
      /** The URL as the user should read it before it opens (marked; notes what the server's text hid). */
      shown: string;
    }
  | {
      ok: false;
      /** Why it is not opened, as a sentence for the user and the log (names what was asked, says what to do). */
      reason: string;
      /** The server's text, marked and cut, for the log. */
      shown: string;
    };

/** RFC 3986's characters (unreserved, reserved, and `%` of an escape); everything else is percent-encoded. */
const OUTSIDE_RFC3986 = /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/g;

/**
 * Decides whether `raw` (what a server sent, any type) may be opened outside. `what` names it without an article, for
 * the refusal ("link server 'acme' sent" → "Plangate did not open the vscode: link server 'acme' sent: …"). Total:
 * never throws.
 */
export function checkExternalUrl(raw: unknown, what = 'link'): ExternalUrl {
  const text = typeof raw === 'string' ? raw : raw instanceof URL ? raw.href : '';
  const shownRaw = visibleText(text.length > 300 ? `${text.slice(0, 300)}…` : text);
  const refuse = (why: string, kind = ''): ExternalUrl => ({
    ok: false,
    reason: `Plangate did not open the ${kind}${what}: ${why}`,
    shown: shownRaw,
  });
  if (typeof raw !== 'string' && !(raw instanceof URL)) return refuse('it is not a URL (no text was given).');
  if (text.length > MAX_EXTERNAL_URL)
    return refuse(
      `the URL is ${text.length.toLocaleString('en-US')} characters long, over the ${MAX_EXTERNAL_URL.toLocaleString('en-US')} Plangate opens.`,
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse(`"${shownRaw}" is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const scheme = visibleText(url.protocol.slice(0, 40));
    return refuse('it opens only http: and https: links from servers.', `${scheme} `);
  }
  if (url.username || url.password)
    return refuse(`the URL holds a user name or password before its host ("${shownRaw}"), which can make one site look like another.`);
  const href = url.href.replace(OUTSIDE_RFC3986, (c) => encodeURIComponent(c));
  // WHATWG drops tabs and newlines and encodes the rest, so `href` shows no invisible character; say what the server hid.
  const hidden = hasInvisible(text) || /[\t\n]/.test(text);
  return {
    ok: true,
    url: href,
    shown: hidden ? `${visibleText(href)}\n(as the server wrote it, with hidden characters marked: ${shownRaw})` : visibleText(href),
  };
}
