/**
 * What an app may ask of its host, decided before anything leaves Plangate: a `tools/call` only to a tool of the
 * app's own server that is meant for apps, with an object of arguments; a link only to http(s); a chat message only as
 * text; a log line clipped. The host (src/ui/appHost.ts) asks the user and sends through the door; this file only
 * says yes, no, and why.
 *
 * Pure: no vscode, no I/O.
 */
import { callableByApp, type AppToolLike } from './appTool';
import { checkExternalUrl } from '../base/externalUrl';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A `tools/call` an app may make: the tool (of the app's own server) and its arguments. */
export interface AppToolCall {
  tool: string;
  args: Record<string, unknown>;
}

/**
 * Checks an app's `tools/call` params against the tools its own server lists now. There is no way to name another
 * server: the call goes to the app's server or nowhere, so a tool of the same name elsewhere is never reached.
 */
export function checkAppToolCall(server: string, params: unknown, tools: readonly AppToolLike[]): AppToolCall | { error: string } {
  const name = isObj(params) ? params.name : undefined;
  if (typeof name !== 'string' || !name) return { error: 'The app asked to call a tool without naming it.' };
  const args = isObj(params) ? (params.arguments ?? {}) : {};
  if (!isObj(args)) return { error: `The app's arguments for '${name.slice(0, 100)}' are not an object.` };
  const tool = tools.find((t) => t.name === name);
  if (!tool) return { error: `Server '${server}' offers no tool '${name.slice(0, 100)}', so its app cannot call it.` };
  if (!callableByApp(tool))
    return { error: `Tool '${name}' of server '${server}' is not meant for apps (its visibility leaves "app" out).` };
  return { tool: name, args };
}

/** The link an app asked to open, if Plangate may offer to open it: what core/base/externalUrl.ts allows (http and https). */
export function checkOpenLink(params: unknown): URL | { error: string } {
  const checked = checkExternalUrl(isObj(params) ? params.url : undefined, 'link the app asked for');
  return checked.ok ? new URL(checked.url) : { error: checked.reason };
}

/** The text of an app's `ui/message` (its text blocks, joined), for the chat input; undefined when there is none. */
export function messageText(params: unknown, max = 20_000): string | undefined {
  const content = isObj(params) && Array.isArray(params.content) ? params.content : [];
  const text = content
    .filter(isObj)
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n')
    .trim();
  if (!text) return undefined;
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** An app's `notifications/message` as one log line: level word, logger, data (JSON when not a string), clipped. */
export function appLogLine(params: unknown, max = 2000): { level: 'debug' | 'info' | 'warn' | 'error'; text: string } {
  const p = isObj(params) ? params : {};
  const level =
    p.level === 'debug' ? 'debug' : p.level === 'info' || p.level === 'notice' ? 'info' : p.level === 'warning' ? 'warn' : 'error';
  let data: string;
  try {
    data = typeof p.data === 'string' ? p.data : (JSON.stringify(p.data) ?? '');
  } catch {
    data = String(p.data);
  }
  const logger = typeof p.logger === 'string' ? `${p.logger.slice(0, 100)}: ` : '';
  const text = `${logger}${data}`;
  return { level, text: text.length > max ? `${text.slice(0, max)}…` : text };
}

/**
 * Whether a log message is mcp-rune's "form done" signal (`{type: "completed", summary}`), and its summary.
 */
export function completedSignal(params: unknown): { summary: string } | undefined {
  const data = isObj(params) ? params.data : undefined;
  if (!isObj(data) || data.type !== 'completed') return undefined;
  return { summary: typeof data.summary === 'string' ? data.summary.slice(0, 500) : '' };
}
