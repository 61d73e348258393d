/**
 * The flow of updates to the webview: a snapshot after each load, then patches numbered by `seq`, each sent once the
 * webview said it applied the one before (or after MAX_WAIT_MS), at most one every MIN_INTERVAL_MS. So however fast a
 * run goes, at most one update waits in the extension, and few are ever on their way.
 */
import { diffPanel } from '../../core/present/panelDiff';
import type { PanelState, ToWebview } from '../../shared/protocol/panel';

/** How long an update waits for the webview's `applied` for the previous one before it goes anyway. */
const MAX_WAIT_MS = 250;
/**
 * The least time between two updates: a fast run changes a step every few milliseconds, and each post crosses to the
 * window and back; ten a second keep "step k of n" well within a second of the run and leave the window idle between.
 */
const MIN_INTERVAL_MS = 100;

/** Where updates go: the loaded webview (panelWebview.ts). */
export interface UpdateSink {
  readonly ready: boolean;
  post(message: ToWebview): Thenable<boolean>;
}

export class PanelUpdates {
  private postScheduled = false;
  /** Updates of this webview load: `seq` of the last one posted, and the state the webview holds after applying it. */
  private seq = 0;
  private sent: PanelState | undefined;
  /** The last update the webview said it applied, and when the last update was posted. */
  private acked = 0;
  private postedAt = 0;
  /** A post waiting for the webview's `applied` (or for MAX_WAIT_MS) while changes coalesce. */
  private waitTimer: ReturnType<typeof setTimeout> | undefined;
  private dirty = false;
  /** Which webview load the updates are for: a post's answer from an earlier load is ignored. */
  private load = 0;

  constructor(
    private readonly sink: UpdateSink,
    private readonly snapshot: () => PanelState,
  ) {}

  /**
   * Posts what changed, once the current microtask's burst of events is over. While the webview has not said `applied`
   * for the last update, changes only mark the state dirty and the next update carries them all; it goes when the
   * webview answers, or after MAX_WAIT_MS (a webview answering slowly still sees progress).
   */
  schedule(): void {
    this.dirty = true;
    if (this.postScheduled || this.waitTimer) return;
    this.postScheduled = true;
    queueMicrotask(() => {
      this.postScheduled = false;
      this.post();
    });
  }

  /** The webview applied update `seq`: the next one may go at once. */
  applied(seq: number): void {
    if (seq <= this.acked || seq > this.seq) return;
    this.acked = seq;
    if (this.waitTimer) {
      clearTimeout(this.waitTimer);
      this.waitTimer = undefined;
    }
    if (this.dirty) this.schedule();
  }

  /** The next update is a snapshot (a new webview load, or one that lost track), sent without waiting. */
  reset(): void {
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    this.sent = undefined;
    this.acked = this.seq;
    this.schedule();
  }

  /** The webview's page (re)loaded, or the panel closed: answers to earlier posts are about a page that is gone. */
  loaded(): void {
    this.load++;
    this.reset();
  }

  private post(): void {
    if (!this.sink.ready || !this.dirty || this.waitTimer) return;
    const since = Date.now() - this.postedAt;
    const wait = this.seq > this.acked ? MAX_WAIT_MS - since : this.sent ? MIN_INTERVAL_MS - since : 0;
    if (wait > 0) {
      this.waitTimer = setTimeout(() => {
        this.waitTimer = undefined;
        this.post();
      }, wait);
      return;
    }
    this.dirty = false;
    const state = this.snapshot();
    let message: Extract<ToWebview, { seq: number }>;
    if (!this.sent) message = { type: 'state', seq: ++this.seq, state };
    else {
      const patch = diffPanel(this.sent, state);
      if (!patch) return;
      message = { type: 'patch', seq: ++this.seq, patch };
    }
    this.sent = state;
    this.postedAt = Date.now();
    const load = this.load;
    void this.sink.post(message).then((delivered) => {
      // Not delivered (the webview is hidden and unloaded): it says `ready` when it loads again, and gets a snapshot.
      if (delivered || this.load !== load || this.seq !== message.seq) return;
      this.sent = undefined;
      this.acked = this.seq;
      this.dirty = true;
    });
  }

  dispose(): void {
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
  }
}
