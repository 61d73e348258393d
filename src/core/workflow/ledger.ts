/**
 * The ledger: the append-only list of accepted workflow events. Replaying it rebuilds the workflow state, so a window
 * reload or a crash loses nothing that was recorded; the `restored` event that follows a load marks what was running
 * as interrupted (never to be re-run without the user asking).
 *
 * {@link Workflow} is the store the runner, the UI and the CLI share: `dispatch` checks an event, appends it to the
 * sink synchronously, and only then updates the state and tells listeners — so a `stepStarted` entry is recorded
 * before the tool call it announces is made (the file ledger writes and syncs it with that call's own record, see
 * {@link durabilityOf}).
 */
import { sameJson } from '../plan/approval';
import { Emitter, type Disposable, type Event } from '../base/lifecycle';
import {
  canApply,
  EMPTY_WORKFLOW,
  getPlan,
  isCallRecord,
  reduce,
  reduceAccepted,
  WORKFLOW_EVENT_TYPES,
  WORKFLOW_EVENTS,
  type CallRecordEvent,
  type PlanRecord,
  type StateEvent,
  type WorkflowEvent,
  type WorkflowState,
} from './workflow';
import { getSubmission, isSubmissionEvent, submissionEventProblem } from '../forms/submissions';
import { TASK_STATUSES } from '../plan/plan';
import { RecentCalls, RuleUses } from './recentCalls';

/** One ledger line: the event and its sequence number (1, 2, … in the order accepted). */
export interface LedgerEntry {
  seq: number;
  event: WorkflowEvent;
}

/**
 * How soon an accepted entry must be durable (stored so that it survives the process and the machine failing):
 * - `now`: before `append` returns. A call's record (`callSent`: the call leaves right after it), and an event that
 *   settles a plan (it was executing and no longer is: its follow-up, its end, a block, a wait for a new approval;
 *   `restored`, which settles every plan that was running).
 * - `turn`: with the next `now` entry, and at the latest by the end of the current turn of the event loop. A step's
 *   start rides on its call's record; a call's end and a step's outcome ride on the next step's call record (one sync
 *   per call: group commit); whatever has no such partner is stored by the end of the turn.
 * - `lossy`: stored with the next entry or by the end of the turn, never synced for its own sake: a step's progress
 *   (losing one costs nothing).
 * So a step's start is on disk before its call leaves, and a settled plan is on disk whole; a crash mid-plan may lose
 * the outcome of the step before the last call sent, which then reads as interrupted (never run again unasked).
 */
export type Durability = 'now' | 'turn' | 'lossy';

/** How soon `event`, taking the workflow from `before` to `after`, must be durable (see {@link Durability}). Pure. */
export function durabilityOf(before: WorkflowState, event: WorkflowEvent, after: WorkflowState): Durability {
  // `restored` settles every plan that was running when Plangate stopped (they wait for the user now).
  // A task's id must survive a crash too: after a reload the step resumes watching it (never sends it again).
  if (
    event.type === 'callSent' ||
    event.type === 'resourceRead' ||
    event.type === 'callTask' ||
    event.type === 'stepTask' ||
    event.type === 'restored'
  )
    return 'now';
  if (event.type === 'stepProgress') return 'lossy';
  const planId = (event as { planId?: unknown }).planId;
  // Stryker disable next-line ConditionalExpression: equivalent — getPlan finds no plan for an id that is not a string, so the last line returns 'turn' too
  if (typeof planId !== 'string') return 'turn';
  const was = getPlan(before, planId)?.phase;
  // Stryker disable next-line OptionalChaining: equivalent — the reducer never removes a plan, so one executing before is in after
  return was === 'executing' && getPlan(after, planId)?.phase !== 'executing' ? 'now' : 'turn';
}

/**
 * Where accepted events go. `append` must make the entry durable as `durability` says (see {@link Durability}), or
 * throw: then the event is not applied.
 */
export interface LedgerSink {
  /**
   * Stores `entry`. `json`, when given, is the entry as JSON text (what `JSON.stringify(entry)` gives, up to key
   * order): the workflow serialises every event anyway, so a sink that stores text need not do it again. Without
   * `durability` the entry is stored as `now`.
   */
  append(entry: LedgerEntry, json?: string, durability?: Durability): void;
  /**
   * Called by the workflow after an accepted event was applied and every listener heard of it. A sink that has just
   * rewritten its store without some settled history (see {@link compactEntries}) returns the state of what it kept,
   * which becomes the workflow's state; otherwise undefined. Must not throw.
   */
  compact?(): WorkflowState | undefined;
}

/** A sink that keeps entries in memory (tests, the CLI without `--ledger`). */
export class MemoryLedgerSink implements LedgerSink {
  readonly entries: LedgerEntry[] = [];
  append(entry: LedgerEntry): void {
    this.entries.push(entry);
  }
}

/**
 * The state the given entries produce, from an empty workflow (refused events change nothing, as when live): exactly
 * `entries.reduce(reduce, EMPTY_WORKFLOW)`, in time linear in the entries rather than in entries × plans. Each event
 * copies the map of plans, so a long history of finished plans made a plain fold quadratic (minutes for 100,000
 * events); here a family of plans (see {@link compactEntries}) that is all finished after its last event is set
 * aside — nothing later can name it, and only `restored` looks at every plan, which leaves finished ones alone — and
 * put back at the end. Histories holding events this version does not list in {@link PLAN_LOCAL_EVENTS} get the
 * plain fold.
 */
export function replay(entries: readonly LedgerEntry[]): WorkflowState {
  // Stryker disable next-line ConditionalExpression,BooleanLiteral,ArrowFunction,MethodExpression,OptionalChaining: equivalent — both paths give the same state (the set-aside only saves time; this reducer ignores types it does not list), and a read entry always has an event
  if (!entries.every((e) => PLAN_LOCAL_EVENTS.has(e.event?.type)))
    return entries.reduce((state, entry) => reduce(state, entry.event), EMPTY_WORKFLOW);
  const families = new Families();
  entries.forEach(({ event }, i) => families.add(event, i, 0));
  const endingAt = new Map<number, Family[]>();
  // Stryker disable next-line BlockStatement: equivalent — setting fewer plans aside only makes replay slower (the plain fold gives the same state)
  for (const f of families.list()) {
    const last = f.entries.at(-1);
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,MethodExpression,ArrowFunction,StringLiteral,ArrayDeclaration: equivalent — a family without plans is skipped below anyway, one without it only replays slower, and each entry ends at most one family
    if (last !== undefined && f.members.some((k) => k.startsWith('p:'))) endingAt.set(last, [...(endingAt.get(last) ?? []), f]);
  }
  let state = EMPTY_WORKFLOW;
  const setAside = new Map<string, PlanRecord>();
  entries.forEach(({ event }, i) => {
    state = reduce(state, event);
    for (const f of endingAt.get(i) ?? []) {
      const ids = f.members
        .filter((k) => k.startsWith('p:'))
        .map((k) => k.slice(2))
        .filter((id) => getPlan(state, id) !== undefined);
      if (ids.length === 0 || !ids.every((id) => getPlan(state, id)!.phase === 'finished')) continue;
      const plans = { ...state.plans };
      for (const id of ids) {
        setAside.set(id, plans[id]!);
        delete plans[id];
      }
      state = { ...state, plans };
    }
  });
  // Stryker disable next-line ConditionalExpression: equivalent — with nothing set aside, rebuilding the map from the order gives the same plans in the same order
  if (setAside.size === 0) return state;
  const plans: Record<string, PlanRecord> = {};
  for (const id of state.order) {
    const plan = getPlan(state, id) ?? setAside.get(id);
    if (plan) Object.defineProperty(plans, id, { value: plan, enumerable: true, writable: true, configurable: true });
  }
  return { ...state, plans };
}

/** The event types {@link replay} may set finished plans aside around (see {@link EventTraits.planLocal}). */
const PLAN_LOCAL_EVENTS: ReadonlySet<string> = new Set(WORKFLOW_EVENT_TYPES.filter((t) => WORKFLOW_EVENTS[t].planLocal));

export interface WorkflowChange {
  /** The state after `event`. */
  state: WorkflowState;
  /** The event (call records, which change no state, are not announced). */
  event: StateEvent;
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

  /** The single calls in the ledger, newest first and bounded (see recentCalls.ts): the Plans view's Calls. */
  readonly recentCalls = new RecentCalls();
  /** How often each allow rule let a call through (the Approvals view). */
  readonly ruleUses = new RuleUses();
  private readonly callEmitter = new Emitter<CallRecordEvent>();
  /** Fires after a call record that changed {@link recentCalls} was appended. */
  readonly onDidRecordCall: Event<CallRecordEvent> = this.callEmitter.event;

  constructor(
    private readonly sink: LedgerSink,
    entries: readonly LedgerEntry[] = [],
    options: WorkflowOptions = {},
  ) {
    this.current = replay(entries);
    for (const { event } of entries) {
      if (!isCallRecord(event)) continue;
      this.recentCalls.add(event);
      this.ruleUses.add(event);
    }
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
    return stored === undefined
      ? 'The event is not plain JSON data (a cycle or a bigint), so it cannot be recorded.'
      : canApply(this.current, stored.event);
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
    if (stored === undefined || canApply(this.current, stored.event) !== undefined) return false;
    event = stored.event;
    const next = reduceAccepted(this.current, event);
    const entry: LedgerEntry = { seq: this.seq + 1, event };
    this.sink.append(entry, `{"seq":${entry.seq},"event":${stored.json}}`, durabilityOf(this.current, event, next));
    this.seq = entry.seq;
    this.current = next;
    if (isCallRecord(event)) {
      // On the record; no state changed. Only the list of single calls may have (and the count of a rule's uses).
      this.ruleUses.add(event);
      if (this.recentCalls.add(event)) this.callEmitter.fire(event);
      return true;
    }
    this.queue.push({ state: next, event, seq: entry.seq });
    const outermost = !this.delivering;
    this.deliver();
    // Compaction drops only settled history (verified to leave every other plan exactly as it is), so listeners
    // need no event for it: the next change they hear of simply lists fewer finished plans.
    if (outermost) {
      const compacted = this.sink.compact?.();
      if (compacted) this.current = compacted;
    }
    return true;
  }

  /**
   * Applies `event` to the state without recording it: only for settling a plan after the ledger failed to take an
   * event, so no plan stays "running" in the window (a reload then finds the step's outcome unknown, as the file says).
   * Returns false when the event does not apply.
   */
  applyUnrecorded(event: WorkflowEvent): boolean {
    if (canApply(this.current, event) !== undefined) return false;
    const next = reduceAccepted(this.current, event);
    this.current = next;
    if (isCallRecord(event)) return true;
    this.queue.push({ state: next, event, seq: this.seq });
    this.deliver();
    return true;
  }

  dispose(): void {
    this.changeEmitter.dispose();
    this.callEmitter.dispose();
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

/** The event as JSON data (what a file ledger stores) and its text; undefined when it cannot be serialised. */
function toStored(event: WorkflowEvent): { event: WorkflowEvent; json: string } | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(event);
  } catch {
    return undefined;
  }
  if (json === undefined) return undefined;
  // A step's events are a few flat fields: copied directly (what parsing the text gives, at a fraction of the cost).
  return { event: (plainCopy(event, 2) ?? JSON.parse(json)) as WorkflowEvent, json };
}

/**
 * `value` exactly as `JSON.parse(JSON.stringify(value))` gives it, when it is a plain object (prototype Object or null)
 * whose values are strings, finite numbers, booleans, null, undefined (left out, as JSON does) or such objects, nested
 * at most `depth` deep. Undefined for anything else (arrays, class instances, functions, -0, NaN, deeper nesting):
 * those take the JSON path. (Declining is always safe: mutants that only make it decline more change no result.)
 */
// Stryker disable next-line BlockStatement: equivalent — only declines more (the JSON path gives the same value, slower)
function plainCopy(value: object, depth: number): Record<string, unknown> | undefined {
  const proto: unknown = Object.getPrototypeOf(value);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent — only declines more (the JSON path gives the same value, slower)
  if (proto !== Object.prototype && proto !== null) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    let v = (value as Record<string, unknown>)[key];
    switch (typeof v) {
      // Stryker disable next-line StringLiteral: equivalent — only declines more (the JSON path gives the same value, slower)
      case 'string':
      // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent — only declines more (the JSON path gives the same value, slower)
      case 'boolean':
        break;
      // Stryker disable next-line StringLiteral: equivalent — only declines more (the JSON path gives the same value, slower)
      case 'number':
        // Stryker disable next-line ConditionalExpression: equivalent — only declines more (the JSON path gives the same value, slower)
        if (!Number.isFinite(v) || Object.is(v, -0)) return undefined;
        break;
      // Stryker disable next-line StringLiteral: equivalent — only declines more (the JSON path gives the same value, slower)
      case 'undefined':
        continue;
      // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent — only declines more (the JSON path gives the same value, slower)
      case 'object':
        if (v === null) break;
        // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent — arrays are declined by the prototype test, and deeper plain objects copy exactly as JSON does (the bound is for speed)
        if (depth === 0 || Array.isArray(v)) return undefined;
        // Stryker disable next-line ArithmeticOperator: equivalent — deeper plain objects copy exactly as JSON does (the bound is for speed)
        v = plainCopy(v, depth - 1);
        // Stryker disable next-line ConditionalExpression: equivalent — only declines more (the JSON path gives the same value, slower)
        if (v === undefined) return undefined;
        break;
      default:
        return undefined;
    }
    // `__proto__` is plain data in JSON: an own property, never the prototype.
    // Stryker disable next-line ConditionalExpression: equivalent — for any other key, defining the property gives what assigning it does
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Compaction: keeping a ledger bounded

/** What settled history a ledger keeps. Sizes are in bytes and ages in milliseconds; 0 or undefined: no limit. */
export interface RetentionPolicy {
  /** Past this size settled history is dropped, oldest first, until the ledger is at most {@link COMPACT_TO} of it. */
  maxBytes?: number;
  /** Settled history whose last event is older than this is dropped. */
  maxAgeMs?: number;
  /** History with an event this recent is never dropped (default {@link KEEP_RECENT_MS}). */
  keepRecentMs?: number;
  /** The clock ages are measured against. */
  now: number;
}

/** A ledger over its size limit is compacted to this fraction of it, so the next compaction is not one event away. */
export const COMPACT_TO = 0.8;
/** Ten minutes: a plan finished just now may still be answered (a re-plan replaces it, a revert is recorded on it). */
export const KEEP_RECENT_MS = 10 * 60_000;

export interface Compaction {
  /** The entries to keep, in their order (the same objects; their `seq` is unchanged). */
  kept: LedgerEntry[];
  /** The state {@link replay} gives for `kept`. */
  state: WorkflowState;
  /** Bytes of the kept entries (by the sizes given). */
  keptBytes: number;
  /** How many entries are not kept. */
  droppedEntries: number;
  /** Plans and collect-mode submissions whose whole history is dropped. */
  droppedPlans: string[];
  droppedSubmissions: string[];
}

/**
 * Which entries a bounded ledger keeps. History is grouped into families — a plan with its nested plans and the plans
 * it replaced or that replaced it; a collect-mode submission alone — and a family is dropped whole, only when every
 * member is finished (plans awaiting approval, running, blocked or waiting for their follow-up answer are never
 * dropped, nor anything linked to them) and its last event is older than {@link RetentionPolicy.keepRecentMs}: first
 * every family past `maxAgeMs`, then, while the rest is over `maxBytes`, the oldest ones. Progress events followed
 * by another progress event of the same step are dropped too (only the last one shows), as are events that no longer
 * change anything (a `restored` that only touched dropped plans).
 *
 * The result is checked: replaying `kept` must give every kept plan and submission, and every other part of the
 * state, exactly as replaying `entries` does. When it would not, or nothing would be dropped, returns undefined.
 * `bytes[i]` is the stored size of `entries[i]`. Pure.
 */
export function compactEntries(entries: readonly LedgerEntry[], bytes: readonly number[], policy: RetentionPolicy): Compaction | undefined {
  const full = replay(entries);
  const families = new Families();
  entries.forEach(({ event }, i) => families.add(event, i, bytes[i] ?? 0));

  const keepRecentMs = policy.keepRecentMs ?? KEEP_RECENT_MS;
  const settled = (key: string) => {
    const id = key.slice(2);
    if (key.startsWith('c:')) return families.endedCalls.has(key);
    if (key.startsWith('p:')) {
      const plan = getPlan(full, id);
      return !plan || plan.phase === 'finished';
    }
    const submission = getSubmission(full.submissions, id);
    return !submission || submission.phase === 'finished';
  };
  const droppable = families.list().filter((f) => f.members.every(settled) && policy.now - f.lastAt >= keepRecentMs);
  const drop = new Set<Family>();
  if (policy.maxAgeMs) for (const f of droppable) if (policy.now - f.lastAt > policy.maxAgeMs) drop.add(f);
  const total = bytes.reduce((sum, b) => sum + b, 0);
  let remaining = total - [...drop].reduce((sum, f) => sum + f.bytes, 0);
  if (policy.maxBytes && remaining > policy.maxBytes) {
    for (const f of droppable.filter((f) => !drop.has(f)).sort((a, b) => a.lastAt - b.lastAt)) {
      if (remaining <= policy.maxBytes * COMPACT_TO) break;
      drop.add(f);
      remaining -= f.bytes;
    }
  }
  const droppedKeys = new Set([...drop].flatMap((f) => f.members));
  const dropIndex = new Set<number>([...drop].flatMap((f) => f.entries));
  supersededProgress(entries).forEach((i) => dropIndex.add(i));

  const kept: LedgerEntry[] = [];
  let state = EMPTY_WORKFLOW;
  let keptBytes = 0;
  entries.forEach((entry, i) => {
    if (dropIndex.has(i)) return;
    const next = reduce(state, entry.event);
    // A `restored` that changes nothing any more (it touched only dropped plans) goes; call records change no state
    // by design and stay, like every other event of what is kept.
    if (next === state && entry.event.type === 'restored') return;
    state = next;
    kept.push(entry);
    keptBytes += bytes[i] ?? 0;
  });
  if (kept.length === entries.length) return undefined;
  if (!sameStateWithout(full, state, droppedKeys)) return undefined;
  return {
    kept,
    state,
    keptBytes,
    droppedEntries: entries.length - kept.length,
    droppedPlans: [...droppedKeys].filter((k) => k.startsWith('p:')).map((k) => k.slice(2)),
    droppedSubmissions: [...droppedKeys].filter((k) => k.startsWith('s:')).map((k) => k.slice(2)),
  };
}

interface Family {
  /** `p:<planId>` and `s:<submissionId>` keys. */
  members: string[];
  entries: number[];
  bytes: number;
  lastAt: number;
}

/**
 * Union-find over plan (`p:`), submission (`s:`) and call (`c:`) keys, linked by nesting, replacement, a recovery that
 * carries a plan's follow-up, and a call's plan. Also notes which calls have ended (a call record without its end is a call in flight: not settled).
 */
class Families {
  private readonly parent = new Map<string, string>();
  private readonly byEntry: { key: string; bytes: number; at: number }[] = [];
  readonly endedCalls = new Set<string>();

  add(event: WorkflowEvent, index: number, bytes: number): void {
    const e = event as unknown as Record<string, unknown>;
    const key =
      typeof e.callId === 'string'
        ? `c:${e.callId}`
        : typeof e.planId === 'string'
          ? `p:${e.planId}`
          : typeof e.submissionId === 'string'
            ? `s:${e.submissionId}`
            : undefined;
    // Events that belong to no plan, submission or call (e.g. `restored`) are never dropped for age or size.
    if (key === undefined) return;
    this.find(key);
    if (e.type === 'callEnded' || e.type === 'resourceRead') this.endedCalls.add(key); // a read's record is all of it
    if (key.startsWith('c:') && typeof e.planId === 'string') this.union(key, `p:${e.planId}`);
    for (const link of ['parentId', 'replacesId', 'childPlanId', 'followUpOf'])
      if (typeof e[link] === 'string') this.union(key, `p:${e[link] as string}`);
    this.byEntry[index] = { key, bytes, at: typeof e.at === 'number' && Number.isFinite(e.at) ? e.at : Number.POSITIVE_INFINITY };
  }

  list(): Family[] {
    const families = new Map<string, Family>();
    for (const key of this.parent.keys()) {
      const root = this.find(key);
      let f = families.get(root);
      if (!f) families.set(root, (f = { members: [], entries: [], bytes: 0, lastAt: Number.NEGATIVE_INFINITY }));
      f.members.push(key);
    }
    this.byEntry.forEach((item, index) => {
      // Stryker disable next-line ConditionalExpression: equivalent — forEach skips the holes, and every item set is an object
      if (!item) return;
      const f = families.get(this.find(item.key))!;
      f.entries.push(index);
      f.bytes += item.bytes;
      f.lastAt = Math.max(f.lastAt, item.at);
    });
    return [...families.values()];
  }

  private find(key: string): string {
    let root = this.parent.get(key);
    if (root === undefined) {
      this.parent.set(key, key);
      return key;
    }
    while (root !== this.parent.get(root)) root = this.parent.get(root!)!;
    // Stryker disable next-line ConditionalExpression: equivalent — path compression only makes later finds faster
    for (let k = key; k !== root;) {
      const up = this.parent.get(k)!;
      this.parent.set(k, root);
      k = up;
    }
    return root;
  }

  private union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    // Stryker disable next-line ConditionalExpression: equivalent — when both have one root, making it its own parent changes nothing
    if (ra !== rb) this.parent.set(rb, ra);
  }
}

/** Indexes of `stepProgress` entries whose plan's next event is another progress of the same step. */
function supersededProgress(entries: readonly LedgerEntry[]): number[] {
  const next = new Map<string, { type: string; step: unknown }>();
  // Stryker disable next-line ArrayDeclaration: equivalent — a string is never an entry index, so it drops nothing
  const out: number[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!.event as unknown as Record<string, unknown>;
    // Stryker disable next-line ConditionalExpression: equivalent — events without a plan are filed under undefined, which no progress event looks up
    if (typeof e.planId !== 'string') continue;
    const after = next.get(e.planId);
    if (e.type === 'stepProgress' && after?.type === 'stepProgress' && after.step === e.step) out.push(i);
    next.set(e.planId, { type: String(e.type), step: e.step });
  }
  return out;
}

/** `compacted` is `full` without the dropped plans and submissions, and equal in everything else. */
function sameStateWithout(full: WorkflowState, compacted: WorkflowState, dropped: ReadonlySet<string>): boolean {
  const plans = full.order.filter((id) => !dropped.has(`p:${id}`));
  if (!sameJson(plans, compacted.order)) return false;
  if (Object.keys(compacted.plans).length !== plans.length) return false;
  if (!plans.every((id) => sameJson(getPlan(full, id), getPlan(compacted, id)))) return false;
  const submissions = Object.keys(full.submissions ?? {}).filter((id) => !dropped.has(`s:${id}`));
  if (Object.keys(compacted.submissions ?? {}).length !== submissions.length) return false;
  if (!submissions.every((id) => sameJson(getSubmission(full.submissions, id), getSubmission(compacted.submissions, id)))) return false;
  // Anything else the state holds (now or in a later version) must not change at all.
  const rest = (s: WorkflowState) =>
    Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'plans' && k !== 'order' && k !== 'submissions'));
  return sameJson(rest(full), rest(compacted));
}

// ---------------------------------------------------------------------------------------------------------------
// Reading stored entries

/**
 * Checks one stored ledger value: returns the entry, or a reason it is not one (for a warning). Only the shape is
 * checked here; whether the event applies is the reducer's business.
 */
export function parseLedgerEntry(value: unknown): LedgerEntry | string {
  if (!isObject(value)) return 'not a JSON object';
  // Stryker disable next-line ConditionalExpression: equivalent — Number.isInteger is false for anything but a number, so the typeof test only narrows the type
  if (typeof value.seq !== 'number' || !Number.isInteger(value.seq) || value.seq < 1) return 'seq is not a positive integer';
  const event = value.event;
  if (!isObject(event)) return 'event is not an object';
  const problem = eventProblem(event);
  return problem === undefined ? { seq: value.seq, event: event as unknown as WorkflowEvent } : `event: ${problem}`;
}

/** A call record's shape (see door.ts): the id, and for `callSent` the server, tool and decision. */
function callRecordProblem(type: string, e: Record<string, unknown>): string | undefined {
  if (typeof e.callId !== 'string') return `${type}.callId is not a string`;
  if (type === 'callEnded') return typeof e.outcome === 'string' ? undefined : 'callEnded.outcome is not a string';
  if (typeof e.server !== 'string' || typeof e.tool !== 'string') return 'callSent needs a server and a tool';
  return isObject(e.decision) && typeof e.decision.by === 'string' ? undefined : 'callSent.decision is not a decision';
}

function eventProblem(e: Record<string, unknown>): string | undefined {
  const type = e.type;
  // Stryker disable next-line ConditionalExpression: equivalent — a type that is not a string is not in the list either, with the same message
  if (typeof type !== 'string' || !(WORKFLOW_EVENT_TYPES as readonly string[]).includes(type))
    return `unknown type ${JSON.stringify(type)}`;
  // Stryker disable next-line ConditionalExpression: equivalent — Number.isFinite is false for anything but a number
  if (typeof e.at !== 'number' || !Number.isFinite(e.at)) return `${type}.at is not a number`;
  if (type === 'restored') return undefined;
  if (isSubmissionEvent({ type })) return submissionEventProblem(e);
  if (type === 'callSent' || type === 'callEnded') return callRecordProblem(type, e);
  if (type === 'resourceRead')
    return typeof e.callId === 'string' && typeof e.server === 'string' && typeof e.uri === 'string'
      ? undefined
      : 'resourceRead needs an id, a server and a URI';
  if (type === 'callTask' || type === 'stepTask') {
    if (typeof e.callId !== 'string' || typeof e.server !== 'string' || typeof e.taskId !== 'string')
      return `${type} needs a call id, a server and a task id`;
    if (!(TASK_STATUSES as readonly unknown[]).includes(e.status)) return `${type}.status is not a task status`;
    if (e.message !== undefined && typeof e.message !== 'string') return `${type}.message is not a string`;
    if (type === 'callTask') return undefined;
  }
  if (type === 'samplingDecided')
    return typeof e.samplingId === 'string' && typeof e.server === 'string' && typeof e.outcome === 'string' && isObject(e.request)
      ? undefined
      : 'samplingDecided needs samplingId, server, outcome and request';
  if (typeof e.planId !== 'string') return `${type}.planId is not a string`;
  const need = (field: string, ok: (v: unknown) => boolean, what: string, optional = false): string | undefined =>
    (optional && e[field] === undefined) || ok(e[field]) ? undefined : `${type}.${field} is not ${what}`;
  const step = () => need('step', (v) => Number.isInteger(v) && (v as number) >= 0, 'a step index');
  switch (type) {
    case 'planReceived': {
      const origin = e.origin;
      if (!isObject(origin) || typeof origin.server !== 'string' || typeof origin.tool !== 'string' || !isObject(origin.args))
        return 'planReceived.origin is not {server, tool, args}';
      const plan = e.plan;
      if (!isObject(plan) || typeof plan.status !== 'string' || !Array.isArray(plan.next_actions))
        return 'planReceived.plan is not a parsed plan';
      if (!plan.next_actions.every((a) => isObject(a) && typeof a.tool === 'string' && isObject(a.args)))
        return 'planReceived.plan.next_actions holds a step without tool and args';
      return (
        need('parentId', isString, 'a string', true) ??
        need('parentStep', Number.isInteger, 'an integer', true) ??
        need('replacesId', isString, 'a string', true) ??
        need('followUpOf', isString, 'a string', true)
      );
    }
    case 'argsEdited':
      return step() ?? need('args', isObject, 'an object');
    case 'skipMarked':
      return step() ?? need('skip', isBoolean, 'true or false');
    case 'approved':
      return need('approvalHash', isString, 'a string') ?? need('note', isString, 'a string', true);
    case 'rejected':
      return need('reason', isString, 'a string', true);
    case 'confirmAnswered':
      return step() ?? need('granted', isBoolean, 'true or false');
    case 'stepStarted':
      return step() ?? need('server', isString, 'a string') ?? need('crossServer', isBoolean, 'true or false');
    case 'stepProgress': {
      const p = e.progress;
      if (
        !isObject(p) ||
        typeof p.progress !== 'number' ||
        (p.total !== undefined && typeof p.total !== 'number') ||
        (p.message !== undefined && typeof p.message !== 'string')
      )
        return 'stepProgress.progress is not {progress, total?, message?}';
      return step();
    }
    case 'stepSucceeded':
      return step() ?? need('summary', isString, 'a string') ?? need('childPlanId', isString, 'a string', true);
    case 'stepFailed':
      return step() ?? need('error', isString, 'a string');
    case 'confirmRequested':
    case 'stepTask':
    case 'taskResumed':
    case 'stepSkipped':
    case 'retryRequested':
      return step();
    case 'cancelled':
      return need('reason', isString, 'a string', true);
    case 'followUpAnswered':
      return need('answer', (v) => v === 'yes' || v === 'no', 'yes or no');
    // Stryker disable next-line ConditionalExpression: equivalent — without this case the switch ends and the function returns undefined all the same
    default:
      return undefined;
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
