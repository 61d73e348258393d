/**
 * vscode-shaped events, disposables and cancellation for code that must not import `vscode`
 * (core, mcp, cli). ui/ can pass a `vscode.CancellationToken` wherever a {@link CancellationToken} is asked for.
 */

export interface Disposable {
  dispose(): void;
}

/** A function that subscribes a listener and returns its unsubscription (vscode.Event's shape). */
export type Event<T> = (listener: (e: T) => unknown, thisArg?: unknown, disposables?: Disposable[]) => Disposable;

export function toDisposable(fn: () => void): Disposable {
  let done = false;
  return {
    dispose: () => {
      if (!done) {
        done = true;
        fn();
      }
    },
  };
}

/** Owns disposables; anything added after {@link dispose} is disposed at once, so nothing leaks late. */
export class DisposableStore implements Disposable {
  private readonly items = new Set<Disposable>();
  private disposed = false;

  add<T extends Disposable>(item: T): T {
    if (this.disposed) item.dispose();
    else this.items.add(item);
    return item;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const item of [...this.items].reverse()) {
      try {
        item.dispose();
      } catch {
        /* one failing disposable must not keep the others alive */
      }
    }
    this.items.clear();
  }
}

/** Base class for objects that own disposables. */
export abstract class DisposableBase implements Disposable {
  protected readonly store = new DisposableStore();
  protected _register<T extends Disposable>(item: T): T {
    return this.store.add(item);
  }
  dispose(): void {
    this.store.dispose();
  }
}

export class Emitter<T> implements Disposable {
  private listeners = new Set<(e: T) => unknown>();

  readonly event: Event<T> = (listener, thisArg, disposables) => {
    const bound = thisArg ? listener.bind(thisArg) : listener;
    this.listeners.add(bound);
    const d = toDisposable(() => this.listeners.delete(bound));
    disposables?.push(d);
    return d;
  };

  fire(e: T): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}

/**
 * `event`, at most once every `ms`: the first change fires at once, changes during the next `ms` fire once when it
 * ends (so the last state is always shown). For surfaces that redraw what they show from the current state and need
 * not hear every event of a burst — a 1,000-step run makes thousands (status bar, tree views, progress).
 */
export function throttled(event: Event<unknown>, ms: number): Event<void> & Disposable {
  const out = new Emitter<void>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending = false;
  const tick = () => {
    if (pending) {
      pending = false;
      out.fire();
      timer = setTimeout(tick, ms);
    } else timer = undefined;
  };
  const sub = event(() => {
    if (timer) pending = true;
    else {
      out.fire();
      timer = setTimeout(tick, ms);
    }
  });
  const subscribe: Event<void> = (listener, thisArg, disposables) => out.event(listener, thisArg, disposables);
  return Object.assign(subscribe, {
    dispose: () => {
      sub.dispose();
      if (timer) clearTimeout(timer);
      out.dispose();
    },
  });
}

export interface CancellationToken {
  readonly isCancellationRequested: boolean;
  readonly onCancellationRequested: Event<unknown>;
}

export class CancellationTokenSource implements Disposable {
  private readonly emitter = new Emitter<void>();
  private cancelled = false;
  readonly token: CancellationToken;

  constructor(parent?: CancellationToken) {
    const isCancelled = () => this.cancelled;
    this.token = {
      get isCancellationRequested() {
        return isCancelled();
      },
      onCancellationRequested: (listener, thisArg, disposables) => {
        if (this.cancelled) {
          queueMicrotask(() => listener.call(thisArg, undefined));
          return toDisposable(() => undefined);
        }
        return this.emitter.event(listener, thisArg, disposables);
      },
    };
    parent?.onCancellationRequested(() => this.cancel());
    if (parent?.isCancellationRequested) this.cancel();
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.emitter.fire();
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
