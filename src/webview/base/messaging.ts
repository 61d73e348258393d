/** The webview's side of the protocol: posting intents, awaiting replies by id, keeping UI state. */
import type {
  FromWebview,
  NotificationIntent,
  Reply,
  ReplyMessage,
  ReplyOf,
  RequestParams,
  RequestType,
} from '../../shared/protocol/panel';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
let nextId = 1;
const pending = new Map<number, (reply: Reply<unknown>) => void>();

/** Any request as the webview makes it (without its `id`). */
export type Request = { [T in RequestType]: RequestParams<T> }[RequestType];

/** Posts a request (an intent that carries an id) and resolves with the extension's reply, typed by the request. */
export function request<T extends RequestType>(message: RequestParams<T>): Promise<Reply<ReplyOf<T>>> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve as (reply: Reply<unknown>) => void);
    vscode.postMessage({ ...message, id } as unknown as FromWebview);
  });
}

/** Posts an intent that needs no reply. */
export function post(message: NotificationIntent): void {
  vscode.postMessage(message);
}

/**
 * Resolves the request `message` answers. A reply for no request waiting (answered already, or asked before the page
 * reloaded) is dropped; a refusal without a reason gets one, so the control that asked never shows an empty error.
 */
export function onReply(message: ReplyMessage): void {
  const resolve = pending.get(message.id);
  if (!resolve) return;
  pending.delete(message.id);
  resolve(message.ok ? { ok: true, value: message.value } : { ok: false, error: message.error || 'The action failed.' });
}

/** Ephemeral view state (open sections, drafts) that survives the webview being hidden or reloaded. */
export interface UiState {
  open: Record<string, boolean>;
  drafts: Record<string, string>;
}

export const ui: UiState = (() => {
  const saved = vscode.getState() as Partial<UiState> | undefined;
  return { open: { ...(saved?.open ?? {}) }, drafts: { ...(saved?.drafts ?? {}) } };
})();

export function saveUi(): void {
  vscode.setState(ui);
}

let rerender: () => void = () => {};

/** main.ts registers how to re-render the current snapshot (at most once a frame). */
export function onRerender(fn: () => void): void {
  rerender = fn;
}

/**
 * Re-renders the current snapshot after a change to `ui` that must show now, e.g. a draft closed once the
 * extension accepted it: the snapshot with the change may have been rendered before the reply arrived.
 */
export function requestRender(): void {
  rerender();
}
