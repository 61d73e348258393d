/** The webview's side of the protocol: posting intents, awaiting replies by id, keeping UI state. */
import type { FromWebview, ToWebview } from '../../shared/protocol/panel';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
let nextId = 1;
const pending = new Map<number, (reply: { ok: boolean; error?: string }) => void>();

type WithoutId<T> = T extends { id: number } ? Omit<T, 'id'> : never;
export type Request = WithoutId<FromWebview>;

/** Posts an intent that carries an id and resolves with the extension's reply. */
export function request(message: Request): Promise<{ ok: boolean; error?: string }> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    vscode.postMessage({ ...message, id } as FromWebview);
  });
}

/** Posts an intent that needs no reply. */
export function post(message: Exclude<FromWebview, { id: number }>): void {
  vscode.postMessage(message);
}

export function onReply(message: Extract<ToWebview, { type: 'reply' }>): void {
  const resolve = pending.get(message.id);
  pending.delete(message.id);
  resolve?.({ ok: message.ok, error: message.error });
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
