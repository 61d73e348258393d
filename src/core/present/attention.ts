/**
 * Attention: what waits for the user (a card in the panel, a plan to approve, a step to confirm, a follow-up, a blocked
 * plan), since when, in words for the places the user looks while the window is not focused — the status bar, a view's
 * badge, a notification ("1 card waiting · 2 min"). Pure: the ui layer feeds it the workflow state, the panel's cards
 * and the clock (src/ui/attention.ts).
 */
import { visibleText } from '../../shared/visibleText';
import { stepLabel, type WorkflowState } from '../workflow/workflow';
import type { PlanRecord } from '../plan/plan';
import { planTitle } from './workflowWords';

/** Where a wait is answered: a plan in the panel, or an item of the panel (a card, a form). */
export type WaitTarget = { plan: string } | { item: string };

/** One thing waiting for the user. */
export interface Wait {
  /** The same while the same thing waits; a new wait of the same plan (another step, another attempt) has a new key. */
  key: string;
  kind: 'card' | 'plan';
  /** What waits, in one line of visible text. */
  what: string;
  /** When it began waiting, where the record says so (epoch ms); absent: when it was first seen. */
  since?: number;
  open: WaitTarget;
}

/** A wait as shown: when it began, and how long ago in words. */
export interface ShownWait extends Wait {
  since: number;
  /** "<1 min", "4 min", "1 h 5 min", "2 d". */
  waited: string;
}

export interface AttentionView {
  /** How many things wait. */
  count: number;
  /** "1 card waiting · 2 min", "2 cards and 1 plan waiting · 5 min": the counts and the longest wait. */
  text: string;
  /** Every wait on its own line with how long it waited, longest first, then what clicking does. */
  tooltip: string;
  /** The waits, longest first. */
  waits: ShownWait[];
}

/** The longest `what` kept (a tool's name, a plan's instruction: server-supplied). */
const MAX_WHAT = 80;

/** How long a wait lasted, in words that change at most once a minute: "<1 min", "4 min", "1 h 5 min", "3 d". */
export function waitWords(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return '<1 min';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/**
 * Server-supplied text made safe for a native notification, which turns `[label](target)` into a link (a command link,
 * even): invisible characters as marks (visibleText), square brackets as their full-width forms, one line, clipped.
 */
export function noticeSafe(text: string, max = MAX_WHAT): string {
  const one = visibleText(text.replace(/\s+/g, ' ').trim()).replace(/\[/g, '［').replace(/\]/g, '］');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The plans that wait for the user in `state`: approval, a step's confirmation, a follow-up, a block. */
export function planWaits(state: WorkflowState): Wait[] {
  const waits: Wait[] = [];
  for (const id of state.order) {
    const plan = state.plans[id];
    if (!plan) continue;
    const wait = planWait(plan);
    if (wait) waits.push(wait);
  }
  return waits;
}

function planWait(plan: PlanRecord): Wait | undefined {
  const title = `"${planTitle(plan, 60)}"`;
  const open = { plan: plan.id };
  const ended = (index: number) => plan.steps[index]?.endedAt;
  switch (plan.phase) {
    case 'awaiting_approval':
      return plan.reapproval
        ? {
            key: `plan:${plan.id}:reapproval:${plan.reapproval.step}`,
            kind: 'plan',
            what: `Plan ${title} waits for a new approval (step ${plan.reapproval.step + 1} changed)`,
            open,
          }
        : { key: `plan:${plan.id}:approval`, kind: 'plan', what: `Plan ${title} waits for your approval`, since: plan.receivedAt, open };
    case 'executing': {
      const step = plan.steps.find((s) => s.state === 'awaiting_confirm');
      if (!step) return undefined;
      const since = ended(step.index - 1) ?? plan.approvedAt;
      return {
        key: `plan:${plan.id}:confirm:${step.index}:${step.attempts}`,
        kind: 'plan',
        what: `Plan ${title}: step ${step.index + 1} (${stepLabel(step)}) waits for your confirmation`,
        ...(since !== undefined ? { since } : {}),
        open,
      };
    }
    case 'follow_up': {
      const last = Math.max(0, ...plan.steps.map((s) => s.endedAt ?? 0));
      return {
        key: `plan:${plan.id}:follow_up`,
        kind: 'plan',
        what: `Plan ${title} is done; its follow-up waits for your answer`,
        ...(last > 0 ? { since: last } : {}),
        open,
      };
    }
    case 'blocked': {
      const at = plan.blockedStep;
      const since = at === undefined ? undefined : ended(at);
      return {
        key: `plan:${plan.id}:blocked:${at ?? ''}:${at === undefined ? '' : (plan.steps[at]?.attempts ?? '')}`,
        kind: 'plan',
        what: `Plan ${title} is blocked${at === undefined ? '' : ` at step ${at + 1}`}`,
        ...(since !== undefined ? { since } : {}),
        open,
      };
    }
    default:
      return undefined;
  }
}

/** An item of the panel the user must answer: a single-call card, a result to review, a server's form or sampling request. */
export interface WaitingItem {
  id: string;
  kind: 'callCard' | 'resultCard' | 'elicit' | 'sampling';
  /** The item's title in the panel ("Allow read_file? (3 waiting)", "Review fetch", "fs asks"). */
  title: string;
}

/** The panel's items that wait for an answer, as waits. */
export function cardWaits(items: readonly WaitingItem[]): Wait[] {
  return items.map((item) => ({ key: `card:${item.id}`, kind: 'card', what: visibleText(item.title), open: { item: item.id } }));
}

/**
 * When each wait began: the record's time where it has one, else when it was first seen (kept from `seen`, else
 * `now`). Only the waits present are kept, so a wait that ends and comes back counts afresh.
 */
export function noteFirstSeen(seen: ReadonlyMap<string, number>, waits: readonly Wait[], now: number): Map<string, number> {
  const next = new Map<string, number>();
  for (const w of waits) next.set(w.key, w.since ?? seen.get(w.key) ?? now);
  return next;
}

/** The words for `waits` at `now` (times from `seen`, see {@link noteFirstSeen}); undefined when nothing waits. */
export function attentionView(waits: readonly Wait[], seen: ReadonlyMap<string, number>, now: number): AttentionView | undefined {
  if (waits.length === 0) return undefined;
  const shown: ShownWait[] = waits
    .map((w) => {
      const since = w.since ?? seen.get(w.key) ?? now;
      return { ...w, since, waited: waitWords(now - since) };
    })
    .sort((a, b) => a.since - b.since);
  const cards = shown.filter((w) => w.kind === 'card').length;
  const plans = shown.length - cards;
  const counts = [
    ...(cards ? [`${cards} card${cards === 1 ? '' : 's'}`] : []),
    ...(plans ? [`${plans} plan${plans === 1 ? '' : 's'}`] : []),
  ].join(' and ');
  const text = `${counts} waiting · ${shown[0]!.waited}`;
  const tooltip = [
    'Plangate — waiting for you:',
    ...shown.map((w) => `• ${clip(w.what, MAX_WHAT)} · ${w.waited}`),
    '',
    'Click to show the panel.',
  ].join('\n');
  return { count: shown.length, text, tooltip, waits: shown };
}

/** The notification for waits the user was not yet told of (at least one): what waits and for how long. */
export function noticeText(fresh: readonly ShownWait[]): string {
  const first = fresh[0]!;
  if (fresh.length === 1) return `Plangate: ${noticeSafe(first.what)} (waiting ${first.waited}).`;
  return `Plangate: ${fresh.length} things wait for you — ${noticeSafe(first.what)} (waiting ${first.waited}), and ${fresh.length - 1} more.`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
