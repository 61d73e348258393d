/**
 * Attention while the window is not focused: when a card or a plan waits and the user is elsewhere, the status bar
 * says what waits and for how long, the Plans view's badge counts it, and a notification (which takes no focus) tells
 * of each new wait once, with a button that opens it. Nothing of this while the window is focused: the user sees the
 * panel. The words come from core/present/attention.ts; the window, the sources and the surfaces are ports, so this
 * file imports no `vscode` at run time (activation.ts binds them; test/unit/attention.test.ts drives them).
 */
import { DisposableBase, Emitter, type Disposable, type Event } from '../core/base/lifecycle';
import { attentionView, noteFirstSeen, noticeText, type AttentionView, type ShownWait, type Wait } from '../core/present/attention';

/** How often the wait's time is redrawn while the window is unfocused and something waits (its words change by the minute). */
export const ATTENTION_TICK_MS = 30_000;

export interface AttentionPorts {
  /** The window's focus (`vscode.window.state.focused`, `onDidChangeWindowState`). */
  window: { readonly focused: boolean; readonly onDidChangeFocus: Event<boolean> };
  /** What waits now (plans and the panel's cards), and when that may have changed. */
  waits: { current(): Wait[]; readonly onDidChange: Event<void> };
  /** Shows a notification without taking the focus; `open` runs when the user presses its button. */
  notify(text: string, open: () => void): void;
  /** Whether notifications are wanted (the user's setting), read at each one. */
  notifyEnabled(): boolean;
  /** Opens a wait where it is answered (the panel, on its item), taking the focus: the user asked. */
  open(wait: ShownWait): void;
  now?: () => number;
  /** A repeating timer (tests pass a fake one). */
  every?: (ms: number, tick: () => void) => Disposable;
}

export class Attention extends DisposableBase {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** {@link view} changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly now: () => number;
  private readonly every: (ms: number, tick: () => void) => Disposable;
  /** When this window began: waits recorded before (a plan restored after a reload) are shown, never notified. */
  private readonly started: number;
  private seen = new Map<string, number>();
  private readonly notified = new Set<string>();
  private timer: Disposable | undefined;
  private shown: AttentionView | undefined;
  private shownKey = '';

  constructor(private readonly ports: AttentionPorts) {
    super();
    this.now = ports.now ?? Date.now;
    this.every =
      ports.every ??
      ((ms, tick) => {
        const handle = setInterval(tick, ms);
        return { dispose: () => clearInterval(handle) };
      });
    this.started = this.now();
    this._register(ports.window.onDidChangeFocus(() => this.update()));
    this._register(ports.waits.onDidChange(() => this.update()));
    this._register({ dispose: () => this.stopTimer() });
    this.update();
  }

  /** What waits, in words, while the window is not focused; undefined while it is focused or nothing waits. */
  get view(): AttentionView | undefined {
    return this.shown;
  }

  /** Whether the wait's time is being redrawn (only while unfocused and something waits). */
  get ticking(): boolean {
    return this.timer !== undefined;
  }

  private update(): void {
    const now = this.now();
    const waits = this.ports.waits.current();
    // Times count from when a thing began to wait, focused or not: a card left unanswered before the user looked away
    // has waited since it came.
    this.seen = noteFirstSeen(this.seen, waits, now);
    for (const key of [...this.notified]) if (!this.seen.has(key)) this.notified.delete(key);
    const view = this.ports.window.focused ? undefined : attentionView(waits, this.seen, now);
    if (view) {
      this.timer ??= this.every(ATTENTION_TICK_MS, () => this.update());
      this.tell(view.waits);
    } else this.stopTimer();
    const key = view ? `${view.text}\n${view.tooltip}` : '';
    if (key === this.shownKey) return;
    this.shown = view;
    this.shownKey = key;
    this._onDidChange.fire();
  }

  /** One notification for the waits not yet told of (those that began in this window), opening the longest one. */
  private tell(waits: readonly ShownWait[]): void {
    const fresh = waits.filter((w) => !this.notified.has(w.key) && w.since >= this.started);
    for (const w of waits) this.notified.add(w.key);
    if (fresh.length === 0 || !this.ports.notifyEnabled()) return;
    const first = fresh[0]!;
    this.ports.notify(noticeText(fresh), () => this.ports.open(first));
  }

  private stopTimer(): void {
    this.timer?.dispose();
    this.timer = undefined;
  }
}
