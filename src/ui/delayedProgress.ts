import * as vscode from 'vscode';

/** How long work may take before its progress notification appears. */
export const PROGRESS_DELAY_MS = 800;

export interface DelayedProgress {
  /** The latest message (and, for a known total, the percentage done); shown now or when the toast appears. */
  report(message: string, percent?: number): void;
  /** The work ended: no toast appears, or the one shown closes. */
  done(): void;
}

/**
 * A cancellable progress notification that appears only once the work has gone on for `delayMs`: a quick call or a
 * plan that stops at once ends without a toast (VS Code keeps a notification up a moment after its work is done,
 * so an immediate one outlives the work it describes). Cancelling it calls `onCancel`.
 */
export function delayedProgress(title: string, onCancel: () => void, delayMs = PROGRESS_DELAY_MS): DelayedProgress {
  let message: string | undefined;
  let percent: number | undefined;
  let shownPercent = 0;
  let report: ((v: { message?: string; increment?: number }) => void) | undefined;
  let finish: (() => void) | undefined;
  let ended = false;
  const push = () => {
    if (!report) return;
    const increment = percent !== undefined && percent > shownPercent ? percent - shownPercent : undefined;
    if (increment !== undefined) shownPercent = percent!;
    report({ message, increment });
  };
  const timer = setTimeout(() => {
    if (ended) return;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (progress, token) => {
      report = (v) => progress.report(v);
      token.onCancellationRequested(onCancel);
      push();
      // The work may have ended between the timer and this callback: close at once then.
      return ended ? Promise.resolve() : new Promise<void>((resolve) => (finish = resolve));
    });
  }, delayMs);
  return {
    report(text, pct) {
      message = text;
      if (pct !== undefined) percent = pct;
      push();
    },
    done() {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      finish?.();
    },
  };
}
