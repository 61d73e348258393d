/**
 * No storm of cards: the calls of one caller to one tool (same entrance, server and tool) wait behind a single card,
 * which says how many wait. The card shows the first waiting call whole; **Allow once** lets that one call go (the
 * next one then shows); an allow of a longer length writes its rule and then lets go every waiting call — of this
 * group or any other — that the policy, asked again, now allows (not assumed: a call whose arguments a rule asks
 * about, or a tool that declares `_meta.approval: "ask"`, keeps waiting). **Deny** refuses the call shown, or, when the
 * user says so, every call waiting behind the card. A caller that gives up leaves the queue; the card closes when none
 * waits. Pure: the card itself is the {@link CardSurface} port.
 */
import type { AllowLength } from '../policy/alwaysAllow';
import { whyOnlyOnce } from '../policy/alwaysAllow';
import type { PolicyVerdict } from '../policy/evaluate';
import type { CallAsk, CallAskAnswer } from './door';

/** Where the cards are shown (the panel). */
export interface CardSurface {
  /** Shows the card of group `key`, or updates it in place: the call it shows, and how many wait (that one included). */
  show(key: string, head: CallAsk, waiting: number): void;
  /** No call waits in group `key` any more: its card closes. */
  close(key: string): void;
}

/** The user's answer on a card: `all` with a deny refuses every call waiting behind it. */
export type CardAnswer =
  { answer: 'once' } | { answer: AllowLength } | { answer: 'deny'; note?: string; all?: boolean } | { answer: 'cancelled' };

export interface AskQueuePorts {
  surface: CardSurface;
  /** Writes the narrowest allow rule of `length` for the call `ask`; resolves with the rule's id; rejects with why not. */
  allow(length: AllowLength, ask: CallAsk): Promise<string>;
}

interface Waiting {
  ask: CallAsk;
  resolve: (answer: CallAskAnswer) => void;
  done: boolean;
}

/** The group a call waits in: one caller (entrance) to one tool of one server. */
export function askGroupKey(ask: Pick<CallAsk, 'entrance' | 'call'>): string {
  return JSON.stringify([ask.entrance, ask.call.entrance, ask.call.server, ask.call.tool]);
}

export class AskQueue {
  private readonly groups = new Map<string, Waiting[]>();

  constructor(private readonly ports: AskQueuePorts) {}

  /** How many calls wait now, over every card. */
  get waiting(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.length;
    return n;
  }

  /** The calls waiting in group `key`, the one shown first. */
  waitingIn(key: string): readonly CallAsk[] {
    return (this.groups.get(key) ?? []).map((w) => w.ask);
  }

  /** The door's `ask`: resolves with the user's answer (or one that settled it), or `cancelled` when the caller gives up. */
  readonly ask = (ask: CallAsk): Promise<CallAskAnswer> =>
    new Promise<CallAskAnswer>((resolve) => {
      if (ask.signal?.aborted) return resolve({ answer: 'cancelled' });
      const key = askGroupKey(ask);
      const entry: Waiting = { ask, resolve, done: false };
      let group = this.groups.get(key);
      if (!group) this.groups.set(key, (group = []));
      group.push(entry);
      ask.signal?.addEventListener(
        'abort',
        () => {
          this.settle(entry, { answer: 'cancelled' });
          this.refresh(key);
        },
        { once: true },
      );
      this.refresh(key);
    });

  /**
   * The user's answer on the card of group `key` (about the call it shows): resolves with an error to show on the card,
   * or undefined once done.
   */
  async answer(key: string, answer: CardAnswer): Promise<string | undefined> {
    const head = this.groups.get(key)?.[0];
    if (!head) return 'That call was already decided, or its caller stopped waiting.';
    switch (answer.answer) {
      case 'once':
        this.settle(head, { answer: 'once' });
        break;
      case 'deny':
        for (const w of answer.all ? [...(this.groups.get(key) ?? [])] : [head]) this.settle(w, { answer: 'deny', note: answer.note });
        break;
      case 'cancelled':
        // The card was closed: nobody answers the calls behind it.
        for (const w of [...(this.groups.get(key) ?? [])]) this.settle(w, { answer: 'cancelled' });
        break;
      default: {
        const length = answer.answer;
        const why = whyOnlyOnce(head.ask.verdict);
        if (why) return `${lengthWords(length)} is not offered for this call: ${why}.`;
        let rule: string;
        try {
          rule = await this.ports.allow(length, head.ask);
        } catch (err) {
          return err instanceof Error ? err.message : String(err);
        }
        // The user allowed the call they saw, whatever the caller did meanwhile (an aborted one is settled already).
        this.settle(head, { answer: length, rule });
        this.settleCovered(length);
        return undefined;
      }
    }
    this.refresh(key);
    return undefined;
  }

  /**
   * Lets go every waiting call the policy now allows (asked again, call by call): after an allow of any length, or when
   * the rules changed (a rule written by hand). `length`: the card's answer that changed them, for the ledger; absent,
   * the length is read from the rule that allows.
   */
  settleCovered(length?: AllowLength): void {
    for (const [key, group] of [...this.groups]) {
      for (const w of [...group]) {
        const now = w.ask.recheck?.();
        if (now?.decision === 'allow') this.settle(w, { answer: length ?? lengthOf(now), rule: now.rule.id });
      }
      this.refresh(key);
    }
  }

  private settle(entry: Waiting, answer: CallAskAnswer): void {
    if (entry.done) return;
    entry.done = true;
    const key = askGroupKey(entry.ask);
    const group = this.groups.get(key);
    if (group) {
      const at = group.indexOf(entry);
      if (at >= 0) group.splice(at, 1);
    }
    entry.resolve(answer);
  }

  /** Shows the group's card as it is now, or closes it when none waits. */
  private refresh(key: string): void {
    const group = this.groups.get(key);
    if (!group || group.length === 0) {
      if (this.groups.delete(key)) this.ports.surface.close(key);
      return;
    }
    this.ports.surface.show(key, group[0]!.ask, group.length);
  }
}

function lengthOf(verdict: PolicyVerdict): AllowLength {
  if (verdict.rule.source === 'session') return 'session';
  if (verdict.rule.source === 'workspaceApproval') return 'workspace';
  return 'always';
}

/** A length's button, in words. */
export function lengthWords(length: AllowLength): string {
  return { session: 'Allow for this session', workspace: 'Allow in this workspace', always: 'Always allow' }[length];
}
