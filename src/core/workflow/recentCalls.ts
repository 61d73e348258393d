/**
 * The single calls the door recorded — the agent's, Call Tool's, an app's, a collect form's, a re-plan — each with the
 * policy's decision and how it ended, newest first and bounded. Plan steps and their previews are left out: their plan
 * shows them. Folded from the ledger's call records (`callSent`, `callEnded`), which change no workflow state; the
 * Plans view lists these, and an export writes them. Pure.
 */
import type { CallDecision, CallEntrance, CallOutcomeKind, CallPolicyRecord, CallRecordEvent } from './workflow';

/** How many single calls are kept (the oldest go first). */
export const MAX_RECENT_CALLS = 100;

/** One single call as the ledger recorded it. */
export interface RecentCall {
  callId: string;
  /** When it was recorded (ms since the epoch): after the card's answer, if it asked. */
  at: number;
  server: string;
  tool: string;
  entrance: CallEntrance;
  decision: CallDecision;
  args?: Record<string, unknown>;
  argsHash?: string;
  /** The policy's decision with its rule id, and what covered an ask. */
  policy?: CallPolicyRecord;
  /** Absent while the call is in flight. */
  outcome?: CallOutcomeKind;
  detail?: string;
  durationMs?: number;
}

/** Whether a `callSent` is a single call, not a plan's step or a step's preview. */
export function isSingleCall(event: Extract<CallRecordEvent, { type: 'callSent' }>): boolean {
  return event.decision?.by !== 'approval' && event.decision?.by !== 'preview';
}

export class RecentCalls {
  private readonly byId = new Map<string, RecentCall>();

  constructor(private readonly max = MAX_RECENT_CALLS) {}

  /** Takes a call record; returns whether the list changed (a step's records and unknown ids change nothing). */
  add(event: CallRecordEvent): boolean {
    if (event.type === 'resourceRead') return false; // a read of a linked resource is no call
    if (event.type === 'callSent') {
      if (!isSingleCall(event)) return false;
      this.byId.delete(event.callId);
      this.byId.set(event.callId, {
        callId: event.callId,
        at: event.at,
        server: event.server,
        tool: event.tool,
        entrance: event.entrance,
        decision: event.decision,
        ...(event.args !== undefined ? { args: event.args } : {}),
        ...(event.argsHash !== undefined ? { argsHash: event.argsHash } : {}),
        ...(event.policy ? { policy: event.policy } : {}),
      });
      // A Map keeps insertion order: the first key is the oldest.
      while (this.byId.size > this.max) this.byId.delete(this.byId.keys().next().value!);
      return true;
    }
    if (event.type === 'callTask') return false; // the task's id and status are on the record; the list shows the outcome
    const call = this.byId.get(event.callId);
    if (!call) return false;
    this.byId.set(event.callId, {
      ...call,
      outcome: event.outcome,
      durationMs: event.durationMs,
      ...(event.detail !== undefined ? { detail: event.detail } : {}),
    });
    return true;
  }

  /** Newest first. */
  list(): RecentCall[] {
    return [...this.byId.values()].reverse();
  }

  get(callId: string): RecentCall | undefined {
    return this.byId.get(callId);
  }
}

/** How often a rule let a call through, and when last (the Approvals view's "used"). */
export interface RuleUse {
  count: number;
  /** ms since the epoch. */
  last: number;
}

/**
 * How often each allow rule let a call through, from the ledger's `callSent` records (every call, steps included): the
 * rule that allowed it outright, or the standing approval or Always-allow rule a card's answer made or settled it by.
 * Unbounded in time, bounded in rules (the oldest-used go first past `max`).
 */
export class RuleUses {
  private readonly byRule = new Map<string, RuleUse>();

  constructor(private readonly max = 2000) {}

  add(event: CallRecordEvent): void {
    if (event.type !== 'callSent' || !event.policy) return;
    const p = event.policy;
    const id = p.decision === 'allow' ? p.ruleId : (p.approvalRule ?? p.alwaysRule);
    if (typeof id !== 'string') return;
    const use = this.byRule.get(id);
    this.byRule.delete(id);
    this.byRule.set(id, { count: (use?.count ?? 0) + 1, last: event.at });
    while (this.byRule.size > this.max) this.byRule.delete(this.byRule.keys().next().value!);
  }

  get(ruleId: string): RuleUse | undefined {
    return this.byRule.get(ruleId);
  }
}
