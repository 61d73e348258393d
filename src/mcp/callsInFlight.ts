/**
 * The calls one connection has in flight, and the server's waits for the user. A call's timeout is Plangate's, not the
 * SDK's, because it must stand still while the server waits for the user (an elicitation form or a sampling review is
 * open), which the SDK's timer cannot; progress (or any sign of life) restarts it, as does the end of such a wait. A
 * sampling request names the calls in flight it came from.
 */
import type { LogLevel } from './transport';

/** One call's clock: its timeout, standing still while the server waits for the user. */
export interface CallClock {
  /** Aborts when the call timed out or its caller cancelled it: the one signal the call's request gets. */
  readonly signal: AbortSignal;
  /** The call timed out (not cancelled by its caller). */
  readonly timedOut: boolean;
  /** A sign of life (progress, a task's status): the timeout starts afresh. */
  alive(): void;
  /** The call waits for the user (`true`: a sign-in, a form), or no longer does: the clock stands still, or starts afresh. */
  wait(now: boolean): void;
  /** The call ended: the clock stops and the call leaves the calls in flight. */
  end(): void;
}

export class CallsInFlight {
  /** Requests of the server being answered by the user now (elicitation, sampling). */
  private asking = 0;
  /** The tools being called now, one entry per call. */
  private readonly calls: string[] = [];
  private readonly waitListeners = new Set<(waiting: boolean) => void>();

  constructor(private readonly log: (level: LogLevel, text: string) => void) {}

  /** The tools being called now, each once (what a sampling request names as the calls it came from). */
  get tools(): string[] {
    return [...new Set(this.calls)];
  }

  /**
   * Starts a call of `tool` with a timeout of `timeoutMs`; `onWaitingForUser` hears when the server starts or stops
   * waiting for the user, and the caller's `cancel` aborts the clock's signal too. The caller ends it with
   * {@link CallClock.end}.
   */
  start(tool: string, timeoutMs: number, onWaitingForUser?: (waiting: boolean) => void, cancel?: AbortSignal): CallClock {
    // One controller per call, aborted by the timeout or by the caller's signal: a listener forwards the caller's abort
    // (removed when the call ends) instead of AbortSignal.any, whose weakly held composite signal cost Node 20 about as
    // much per call as the rest of the call (and a GC tax after it). The SDK adds an abort listener it never removes, so
    // the signal it gets must be this call's own.
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(cancel?.reason);
    if (cancel?.aborted) forwardAbort();
    else cancel?.addEventListener('abort', forwardAbort, { once: true });
    let timedOut = false;
    let waiting = this.asking > 0;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      if (!waiting)
        timer = setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs);
    };
    const wait = (now: boolean) => {
      waiting = now;
      arm();
      onWaitingForUser?.(now);
    };
    this.waitListeners.add(wait);
    this.calls.push(tool);
    arm();
    return {
      signal: controller.signal,
      get timedOut() {
        return timedOut;
      },
      alive: arm,
      wait,
      end: () => {
        clearTimeout(timer);
        cancel?.removeEventListener('abort', forwardAbort);
        this.waitListeners.delete(wait);
        this.calls.splice(this.calls.indexOf(tool), 1);
      },
    };
  }

  /** Runs `answer` (the user answering a request of the server) as a wait for the user: the calls' clocks stand still. */
  async whileAsking<T>(answer: () => Promise<T>): Promise<T> {
    this.setAsking(+1);
    try {
      return await answer();
    } finally {
      this.setAsking(-1);
    }
  }

  /** Counts the requests being answered; calls in flight hear when the server starts or stops waiting. */
  private setAsking(delta: number): void {
    const was = this.asking > 0;
    this.asking = Math.max(0, this.asking + delta);
    const now = this.asking > 0;
    if (was === now) return;
    this.log(
      'debug',
      now
        ? 'waiting for the user to answer an elicitation request: call timeouts stand still'
        : 'the elicitation request was answered: call timeouts start afresh',
    );
    for (const listener of [...this.waitListeners]) listener(now);
  }
}
