/**
 * A server's URL-mode elicitation (`elicitation/create` with `mode: "url"`): the server asks the user to open a page.
 * Only an http(s) URL is offered (core/base/externalUrl.ts decides); anything else is declined without asking, the log and
 * the user told why. An offered URL is shown first — the server's message and the URL, hidden characters marked — and
 * opens only when the user says so. The surface (a modal in VS Code) comes in through {@link UrlElicitationPorts}.
 */
import { visibleText } from '../../shared/visibleText';
import { checkExternalUrl } from './externalUrl';

/** What the server is answered (the MCP result's `action`). */
export interface UrlElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
}

export interface UrlElicitationPorts {
  /** Asks the user, showing `message` and `detail`; resolves with their choice (`cancel`: dismissed). */
  ask(message: string, detail: string): PromiseLike<'open' | 'decline' | 'cancel'>;
  /** Opens the checked URL outside; resolves whether it was opened. */
  open(url: string): PromiseLike<boolean>;
  /** Tells the user that a request was refused (without waiting for them). */
  refused(text: string): void;
  log(level: 'info' | 'warn', text: string): void;
}

/** The server's message is cut here in the question (the rest is noise in a modal). */
const MAX_MESSAGE = 500;

/** Answers one URL request from `server`; never throws on what the server sent. */
export async function answerUrlElicitation(server: string, params: unknown, ports: UrlElicitationPorts): Promise<UrlElicitationAnswer> {
  const p = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  const name = visibleText(server.length > 100 ? `${server.slice(0, 100)}…` : server);
  const checked = checkExternalUrl(p.url, `link server "${name}" sent`);
  if (!checked.ok) {
    ports.log('warn', `URL request from server "${name}" declined: ${checked.reason} (the URL: ${checked.shown})`);
    ports.refused(checked.reason);
    return { action: 'decline' };
  }
  const raw = typeof p.message === 'string' ? p.message : '';
  const message = visibleText(raw.length > MAX_MESSAGE ? `${raw.slice(0, MAX_MESSAGE)}…` : raw);
  const choice = await ports.ask(
    `Server "${name}" asks you to open a page${message ? `: ${message}` : '.'}`,
    `${checked.shown}\n\nIt opens in your browser. Open it only if you expected this server to send you there.`,
  );
  if (choice !== 'open') {
    ports.log('info', `URL request from server "${name}": ${choice === 'decline' ? 'declined' : 'dismissed'} (${checked.url})`);
    return { action: choice };
  }
  const opened = await ports.open(checked.url);
  ports.log(opened ? 'info' : 'warn', `URL request from server "${name}": ${opened ? 'opened' : 'could not be opened'} ${checked.url}`);
  return { action: opened ? 'accept' : 'cancel' };
}
