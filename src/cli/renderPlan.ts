/**
 * A plan as terminal text: instruction, safety (writes code, touched-file globs), steps (tool, label, arguments,
 * confirm), follow-up; for a plan whose status is not ok also errors, missing inputs, the ask form, partial results
 * and recovery actions. Every server-supplied string is escaped and cut (see safeText.ts).
 */
import type { ActionCall, Issue, OrchestratedPlan } from '../core/plan';
import { ASK_USER_TOOL } from '../core/plan';
import { jsonLine, safeText } from './safeText';

const MAX_LINE = 300;
const MAX_BLOCK = 4000;

const one = (text: unknown, max = MAX_LINE) => safeText(text, { max });

/** One line naming a step: `create_screen — Create the Payroll screen [confirm]`. */
export function stepTitle(call: ActionCall): string {
  const label = typeof call.label === 'string' && call.label.trim() !== '' && call.label !== call.tool ? ` — ${one(call.label, 200)}` : '';
  const confirm = call.confirm === true ? ' [confirm]' : '';
  const local = call.tool === ASK_USER_TOOL ? ' (answered here, not sent to the server)' : '';
  return `${one(call.tool, 200)}${label}${confirm}${local}`;
}

function issueLine(issue: Issue): string {
  const code = issue.code ? `${one(issue.code, 80)}: ` : '';
  const field = typeof issue.field === 'string' && issue.field ? ` (field ${one(issue.field, 80)})` : '';
  const hint = typeof issue.hint === 'string' && issue.hint ? ` — hint: ${one(issue.hint)}` : '';
  const recoverable = issue.recoverable === false ? ' [not recoverable]' : '';
  return `${code}${one(issue.message)}${field}${hint}${recoverable}`;
}

function actionLines(actions: readonly ActionCall[], pad: string): string[] {
  const lines: string[] = [];
  actions.forEach((call, i) => {
    lines.push(`${pad}${i + 1}. ${stepTitle(call)}`);
    if (call.tool === ASK_USER_TOOL) {
      const prompt = (call.args as { prompt?: unknown }).prompt;
      if (typeof prompt === 'string' && prompt) lines.push(`${pad}   asks: ${one(prompt)}`);
    } else if (Object.keys(call.args).length > 0) {
      lines.push(`${pad}   args: ${jsonLine(call.args)}`);
    }
  });
  return lines;
}

/** The plan as lines of text, each starting with `indent`. */
export function renderPlan(plan: OrchestratedPlan, indent = ''): string[] {
  const p = indent;
  const lines: string[] = [];
  const instruction = safeText(plan.instruction || '(no instruction)', { keepNewlines: true, max: MAX_BLOCK });
  lines.push(`${p}Plan (status ${one(plan.status)}): ${instruction.split('\n').join(`\n${p}  `)}`);
  const safety = plan.safety;
  if (safety) {
    if (typeof safety.writes_code === 'boolean') lines.push(`${p}Writes code: ${safety.writes_code ? 'yes' : 'no'}`);
    if (Array.isArray(safety.touches_files) && safety.touches_files.length) {
      const globs = safety.touches_files.slice(0, 50).map((g) => one(g, 200));
      const more = safety.touches_files.length > 50 ? `, … (+${safety.touches_files.length - 50} more)` : '';
      lines.push(`${p}Touches files: ${globs.join(', ')}${more}`);
    }
  }
  for (const w of plan.warnings ?? []) lines.push(`${p}Warning: ${issueLine(w)}`);
  if (plan.status !== 'ok') {
    for (const e of plan.errors ?? []) lines.push(`${p}Error: ${issueLine(e)}`);
    if (plan.missing?.length) lines.push(`${p}Missing: ${plan.missing.map((m) => one(m, 80)).join(', ')}`);
    if (plan.ask) {
      lines.push(`${p}The server asks: ${one(plan.ask.prompt)}`);
      for (const f of plan.ask.fields ?? []) {
        const options = f.options?.length ? ` (one of: ${f.options.map((o) => one(o, 80)).join(', ')})` : '';
        lines.push(`${p}  - ${one(f.name, 80)}: ${f.type}${f.required ? ', required' : ''}${options}`);
      }
    }
    if (plan.partial_results?.length) {
      lines.push(`${p}Partial results:`);
      for (const r of plan.partial_results) lines.push(`${p}  - ${one(r.step, 200)}: ${r.outcome}${r.detail ? ` — ${one(r.detail)}` : ''}`);
    }
  }
  const steps = plan.next_actions;
  if (steps.length) {
    lines.push(`${p}Steps (${steps.length}):`);
    lines.push(...actionLines(steps, `${p}  `));
  } else {
    lines.push(`${p}Steps: none`);
  }
  if (plan.status !== 'ok' && plan.recovery_actions?.length) {
    lines.push(`${p}Recovery actions (the CLI does not run them):`);
    lines.push(...actionLines(plan.recovery_actions, `${p}  `));
  }
  if (plan.follow_up) lines.push(`${p}Follow-up: ${one(plan.follow_up, 1000)}`);
  if (plan.correlation_id) lines.push(`${p}Correlation id: ${one(plan.correlation_id, 200)}`);
  return lines;
}

/** A one-line summary for `plangate validate`: status, steps and their tools, what it touches, the instruction. */
export function summarizePlan(plan: OrchestratedPlan): string {
  const n = plan.next_actions.length;
  const tools = [...new Set(plan.next_actions.map((a) => a.tool))];
  const shown = tools.slice(0, 5).map((t) => one(t, 80)).join(', ') + (tools.length > 5 ? ', …' : '');
  const parts = [`status ${plan.status}`, `${n} step${n === 1 ? '' : 's'}${n ? ` (${shown})` : ''}`];
  if (plan.errors?.length) parts.push(`${plan.errors.length} error${plan.errors.length === 1 ? '' : 's'}`);
  if (plan.recovery_actions?.length) parts.push(`${plan.recovery_actions.length} recovery action${plan.recovery_actions.length === 1 ? '' : 's'}`);
  if (plan.safety?.touches_files?.length) parts.push(`touches ${plan.safety.touches_files.slice(0, 3).map((g) => one(g, 80)).join(', ')}${plan.safety.touches_files.length > 3 ? ', …' : ''}`);
  if (plan.follow_up) parts.push('follow-up');
  const instruction = one((plan.instruction || '').split('\n')[0], 160);
  return `valid orchestrated_plan: ${parts.join(', ')}${instruction ? ` — ${instruction}` : ''}`;
}
