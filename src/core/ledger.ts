/**
 * The ledger: the append-only list of accepted workflow events. Replaying it rebuilds the workflow state, so a window
 * reload or a crash loses nothing that was recorded; the `restored` event that follows a load marks what was running
 * as interrupted (never to be re-run without the user asking).
 *
 * {@link Workflow} is the store the runner, the UI and the CLI share: `dispatch` checks an event, appends it to the
 * sink synchronously, and only then updates the state and tells listeners — so a `stepStarted` entry is written
 * before the tool call it announces is made.
 */
import { Emitter, type Disposable, type Event } from './lifecycle';
import { canApply, EMPTY_WORKFLOW, reduce, WORKFLOW_EVENT_TYPES, type WorkflowEvent, type WorkflowState } from './workflow';
import { isSubmissionEvent, submissionEventProblem } from './submissions';

/** One ledger line: the event and its sequence number (1, 2, … in the order accepted). */
export interface LedgerEntry {
  seq: number;
  event: WorkflowEvent;
}

/** Where accepted events go. `append` must be durable when it returns (or throw: then the event is not applied). */
export interface LedgerSink {
  append(entry: LedgerEntry): void;
}

/** A sink that keeps entries in memory (tests, the CLI without `--ledger`). */
export class MemoryLedgerSink implements LedgerSink {
  readonly entries: LedgerEntry[] = [];
  append(entry: LedgerEntry): void {
    this.entries.push(entry);
  }
}

/** The state the given entries produce, from an empty workflow (refused events change nothing, as when live). */
export function replay(entries: readonly LedgerEntry[]): WorkflowState {
  let state = EMPTY_WORKFLOW;
  for (const entry of entries) state = reduce(state, entry.event);
  return state;
}

export interface WorkflowChange {
  /** The state after `event`. */
  state: WorkflowState;
  event: WorkflowEvent;
  seq: number;
}

export interface WorkflowOptions {
  /** Clock for the `restored` event dispatched after loading entries. */
  now?: () => number;
}

/**
 * The workflow store. With `entries` (a loaded ledger) it replays them and then dispatches `restored`, which is
 * appended to the sink like any event.
 */
export class Workflow implements Disposable {
  private current: WorkflowState;
  private seq: number;
  private readonly changeEmitter = new Emitter<WorkflowChange>();
  private readonly queue: WorkflowChange[] = [];
  private delivering = false;

  /** Fires after each accepted event, in order, with the state right after it. */
  readonly onDidChange: Event<WorkflowChange> = this.changeEmitter.event;

  constructor(private readonly sink: LedgerSink, entries: readonly LedgerEntry[] = [], options: WorkflowOptions = {}) {
    this.current = replay(entries);
    this.seq = entries.reduce((max, e) => Math.max(max, Number.isFinite(e.seq) ? e.seq : 0), 0);
    if (entries.length) this.dispatch({ type: 'restored', at: (options.now ?? Date.now)() });
  }

  get state(): WorkflowState {
    return this.current;
  }

  /** The sequence number of the last accepted event (0 when none). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Why `event` would be refused now; undefined when it would be accepted. */
  canApply(event: WorkflowEvent): string | undefined {
    const stored = toStored(event);
    return stored === undefined ? 'The event is not plain JSON data (a cycle or a bigint), so it cannot be recorded.' : canApply(this.current, stored);
  }

  /**
   * Applies `event` if it applies (see {@link canApply}); returns false, appending nothing, when refused. The event
   * is recorded as JSON data (a copy: later changes to the caller's objects change nothing, and the live state is
   * exactly what a replay of the file gives). An accepted event is appended to the sink before the state changes and
   * before listeners hear of it; if the sink throws, the error propagates and the state is unchanged. Listeners that
   * dispatch get their events queued in order.
   */
  dispatch(event: WorkflowEvent): boolean {
    const stored = toStored(event);
    if (stored === undefined || canApply(this.current, stored) !== undefined) return false;
    event = stored;
    const next = reduce(this.current, event);
    const entry: LedgerEntry = { seq: this.seq + 1, event };
    this.sink.append(entry);
    this.seq = entry.seq;
    this.current = next;
    this.queue.push({ state: next, event, seq: entry.seq });
    this.deliver();
    return true;
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }

  private deliver(): void {
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let change = this.queue.shift(); change; change = this.queue.shift()) this.changeEmitter.fire(change);
    } finally {
      this.delivering = false;
    }
  }
}

/** The event as JSON data (what a file ledger stores); undefined when it cannot be serialised. */
function toStored(event: WorkflowEvent): WorkflowEvent | undefined {
  try {
    const text = JSON.stringify(event);
    return text === undefined ? undefined : (JSON.parse(text) as WorkflowEvent);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading stored entries

/**
 * Checks one stored ledger value: returns the entry, or a reason it is not one (for a warning). Only the shape is
 * checked here; whether the event applies is the reducer's business.
 */
export function parseLedgerEntry(value: unknown): LedgerEntry | string {
  if (!isObject(value)) return 'not a JSON object';
  if (typeof value.seq !== 'number' || !Number.isInteger(value.seq) || value.seq < 1) return 'seq is not a positive integer';
  const event = value.event;
  if (!isObject(event)) return 'event is not an object';
  const problem = eventProblem(event);
  return problem === undefined ? { seq: value.seq, event: event as unknown as WorkflowEvent } : `event: ${problem}`;
}

function eventProblem(e: Record<string, unknown>): string | undefined {
  const type = e.type;
  if (typeof type !== 'string' || !(WORKFLOW_EVENT_TYPES as readonly string[]).includes(type)) return `unknown type ${JSON.stringify(type)}`;
  if (typeof e.at !== 'number' || !Number.isFinite(e.at)) return `${type}.at is not a number`;
  if (type === 'restored') return undefined;
  if (isSubmissionEvent({ type })) return submissionEventProblem(e);
  if (typeof e.planId !== 'string') return `${type}.planId is not a string`;
  const need = (field: string, ok: (v: unknown) => boolean, what: string, optional = false): string | undefined =>
    (optional && e[field] === undefined) || ok(e[field]) ? undefined : `${type}.${field} is not ${what}`;
  const step = () => need('step', (v) => Number.isInteger(v) && (v as number) >= 0, 'a step index');
  switch (type) {
    case 'planReceived': {
      const origin = e.origin;
      if (!isObject(origin) || typeof origin.server !== 'string' || typeof origin.tool !== 'string' || !isObject(origin.args)) return 'planReceived.origin is not {server, tool, args}';
      const plan = e.plan;
      if (!isObject(plan) || typeof plan.status !== 'string' || !Array.isArray(plan.next_actions)) return 'planReceived.plan is not a parsed plan';
      if (!plan.next_actions.every((a) => isObject(a) && typeof a.tool === 'string' && isObject(a.args))) return 'planReceived.plan.next_actions holds a step without tool and args';
      return need('parentId', isString, 'a string', true) ?? need('parentStep', Number.isInteger, 'an integer', true) ?? need('replacesId', isString, 'a string', true);
    }
    case 'argsEdited': return step() ?? need('args', isObject, 'an object');
    case 'skipMarked': return step() ?? need('skip', isBoolean, 'true or false');
    case 'approved': return need('approvalHash', isString, 'a string') ?? need('note', isString, 'a string', true);
    case 'rejected': return need('reason', isString, 'a string', true);
    case 'confirmAnswered': return step() ?? need('granted', isBoolean, 'true or false');
    case 'stepStarted': return step() ?? need('server', isString, 'a string') ?? need('crossServer', isBoolean, 'true or false');
    case 'stepProgress': {
      const p = e.progress;
      if (!isObject(p) || typeof p.progress !== 'number' || (p.total !== undefined && typeof p.total !== 'number') || (p.message !== undefined && typeof p.message !== 'string')) return 'stepProgress.progress is not {progress, total?, message?}';
      return step();
    }
    case 'stepSucceeded': return step() ?? need('summary', isString, 'a string') ?? need('childPlanId', isString, 'a string', true);
    case 'stepFailed': return step() ?? need('error', isString, 'a string');
    case 'confirmRequested':
    case 'stepSkipped':
    case 'retryRequested':
      return step();
    case 'cancelled': return need('reason', isString, 'a string', true);
    case 'followUpAnswered': return need('answer', (v) => v === 'yes' || v === 'no', 'yes or no');
    default: return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function isString(v: unknown): boolean {
  return typeof v === 'string';
}
function isBoolean(v: unknown): boolean {
  return typeof v === 'boolean';
}
