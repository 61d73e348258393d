/**
 * What the Plans view shows for one plan, as plain data (the view turns it into a TreeItem). A narrow sidebar cuts
 * a row from the right, so the row leads with what changes — the state and the steps run — and the label is kept
 * short; the tooltip carries the whole title and the details.
 */
import { visibleText } from '../../shared/visibleText';
import { planTitle } from './workflowWords';
import { stepPolicyMark } from './callCard';
import type { PlanRecord } from '../workflow/workflow';

/**
 * Characters of the plan's title on the row, counted as the server wrote them (an invisible character shown as a
 * mark such as ⟨U+202E⟩ counts once, so the cut never hides what follows it); the tooltip has the whole title.
 */
export const ROW_TITLE_MAX = 32;

/** Steps whose policy decision the tooltip lists (one line each); more are counted. */
export const ROW_POLICY_STEPS_MAX = 8;

export interface PlanRowView {
  label: string;
  /** Starts with the state and the steps run, e.g. "running 2/5 · demo · plan_scaffold". */
  description: string;
  /** Plain text, one fact a line, the state first. */
  tooltip: string;
  /** A codicon id. */
  icon: string;
  contextValue: 'plan.finished' | 'plan.active';
  accessibilityLabel: string;
}

const PHASE_WORDS: Record<PlanRecord['phase'], string> = {
  awaiting_approval: 'awaiting approval',
  executing: 'running',
  follow_up: 'follow-up',
  blocked: 'blocked',
  finished: 'finished',
};
const OUTCOME_WORDS: Record<NonNullable<PlanRecord['outcome']>, string> = {
  completed: 'completed',
  rejected: 'rejected',
  stopped: 'stopped',
  cancelled: 'cancelled',
  not_ok: 'not ok',
  replaced: 'replaced',
};
const PHASE_ICON: Record<PlanRecord['phase'], string> = {
  awaiting_approval: 'question',
  executing: 'sync~spin',
  follow_up: 'comment-discussion',
  blocked: 'warning',
  finished: 'history',
};
const OUTCOME_ICON: Record<NonNullable<PlanRecord['outcome']>, string> = {
  completed: 'pass',
  rejected: 'circle-slash',
  stopped: 'debug-stop',
  cancelled: 'close',
  not_ok: 'error',
  replaced: 'arrow-swap',
};

function rowTitle(record: PlanRecord): string {
  const instruction = typeof record.plan.instruction === 'string' ? record.plan.instruction : '';
  const first =
    instruction
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') || `${record.origin.tool} plan`;
  const chars = Array.from(first);
  return visibleText(chars.length > ROW_TITLE_MAX ? `${chars.slice(0, ROW_TITLE_MAX - 1).join('')}…` : first);
}

/** The plan's state in words: its outcome once finished, else its phase. */
export function planRowState(record: PlanRecord): string {
  return record.phase === 'finished' && record.outcome ? OUTCOME_WORDS[record.outcome] : PHASE_WORDS[record.phase];
}

/** The Plans view's row for `record`; `received` is its arrival time as the user reads times. */
export function planRowView(record: PlanRecord, received: string): PlanRowView {
  const state = planRowState(record);
  const total = record.steps.length;
  const done = record.steps.filter((s) => s.state === 'ok').length;
  // Progress means something once steps can have run: not for a plan still waiting, rejected or replaced unrun.
  const unrun =
    record.phase === 'awaiting_approval' ||
    (record.phase === 'finished' && (record.outcome === 'rejected' || record.outcome === 'replaced') && done === 0);
  const progress = total === 0 || unrun ? '' : ` ${done}/${total}`;
  const server = visibleText(record.origin.server);
  const tool = visibleText(record.origin.tool);
  const title = planTitle(record, 10_000);
  return {
    label: rowTitle(record),
    description: `${state}${progress} · ${server} · ${tool}`,
    tooltip: [
      `${state[0]!.toUpperCase()}${state.slice(1)}${total > 0 ? ` — ${done} of ${total} step${total === 1 ? '' : 's'} ok` : ' — no steps'}`,
      '',
      visibleText(record.plan.instruction || record.origin.tool, { keepNewlines: true }),
      '',
      `Server: ${server}`,
      `Tool: ${tool}`,
      `Received: ${received}`,
      ...policyLines(record),
    ].join('\n'),
    icon: record.phase === 'finished' && record.outcome ? OUTCOME_ICON[record.outcome] : PHASE_ICON[record.phase],
    contextValue: record.phase === 'finished' ? 'plan.finished' : 'plan.active',
    accessibilityLabel: `Plan ${title}, ${state}${total > 0 ? `, ${done} of ${total} steps ok` : ''}, ${server}, ${tool}`,
  };
}

/**
 * The policy's part in the plan, for the tooltip: who approved it when nobody pressed Approve, and each step a rule or
 * the tool's own declaration decided (Plangate's defaults are covered by the approval and not repeated).
 */
function policyLines(record: PlanRecord): string[] {
  const lines: string[] = [];
  if (record.approvedByPolicy?.length)
    lines.push(
      `Approved by your rules ${record.approvedByPolicy.map((id) => `'${visibleText(id)}'`).join(', ')} (plangate.autoApprovePlans): nobody pressed Approve`,
    );
  const marked = record.steps.flatMap((step) => {
    const mark = stepPolicyMark(step.policy);
    return mark ? [`Step ${step.index + 1} (${visibleText(step.call.tool)}): ${visibleText(mark.text)}`] : [];
  });
  lines.push(...marked.slice(0, ROW_POLICY_STEPS_MAX));
  if (marked.length > ROW_POLICY_STEPS_MAX) lines.push(`… and ${marked.length - ROW_POLICY_STEPS_MAX} more steps decided by the policy`);
  return lines.length ? ['', 'Policy:', ...lines] : [];
}
