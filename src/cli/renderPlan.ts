/**
 * A plan as terminal text: instruction, safety (writes code, touched-file globs), steps (tool, label, arguments,
 * confirm), follow-up; for a plan whose status is not ok also errors, missing inputs, the ask form, partial results
 * and recovery actions. Every server-supplied string is escaped (see safeText.ts). What an approval covers — the
 * instruction, every touched-file glob, each step's tool and arguments — is printed in full, never cut: arguments
 * longer than {@link ARGS_INLINE_MAX} characters of JSON are written whole to a file whose path is printed instead.
 * Labels, messages and the follow-up are cut, saying how much was left out.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActionCall, Issue, OrchestratedPlan } from '../core/plan/plan';
import { ASK_USER_TOOL } from '../core/plan/plan';
import { safeJson, safeText } from './safeText';

const MAX_LINE = 300;
/** Arguments up to this many characters of indented JSON are printed in the plan; longer ones go to a file. */
export const ARGS_INLINE_MAX = 65_536;

/** Writes arguments too long to print to a new private file and returns its path; throws when it cannot. */
export type ArgsWriter = (fileName: string, json: string) => string;

/** Where arguments too long to print go by default: a new private directory under the system's temp directory. */
export const writeArgsToTempFile: ArgsWriter = (fileName, json) => {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-args-'));
  const path = join(dir, fileName);
  writeFileSync(path, json, { mode: 0o600 });
  return path;
};

export interface RenderPlanOptions {
  /** Where arguments longer than {@link ARGS_INLINE_MAX} are written. Default {@link writeArgsToTempFile}. */
  writeArgs?: ArgsWriter;
}

const one = (text: unknown, max = MAX_LINE) => safeText(text, { max });

/** One line naming a step: `create_screen — Create the Payroll screen [confirm]`. */
export function stepTitle(call: ActionCall): string {
  const label = typeof call.label === 'string' && call.label.trim() !== '' && call.label !== call.tool ? ` — ${one(call.label, 200)}` : '';
  const confirm = call.confirm === true ? ' [confirm]' : '';
  const local = call.tool === ASK_USER_TOOL ? ' (answered here, not sent to the server)' : '';
  return `${safeText(call.tool)}${label}${confirm}${local}`;
}

/**
 * A step's arguments, whole: compact JSON on the `args:` line when short, else indented JSON below it, else (longer
 * than {@link ARGS_INLINE_MAX}) the path of a file holding them. Never cut.
 */
function argsLines(args: Record<string, unknown>, pad: string, name: string, writeArgs: ArgsWriter): string[] {
  let compact: string;
  let pretty: string;
  try {
    compact = safeJson(args);
    pretty = safeJson(args, 2);
  } catch {
    return [`${pad}args: (cannot be shown: not encodable as JSON)`];
  }
  if (compact.length <= MAX_LINE) return [`${pad}args: ${compact}`];
  if (pretty.length <= ARGS_INLINE_MAX) return [`${pad}args:`, ...pretty.split('\n').map((l) => `${pad}  ${l}`)];
  const size = `${pretty.length.toLocaleString('en-US')} characters of JSON`;
  try {
    const path = writeArgs(name, `${pretty}\n`);
    return [`${pad}args: ${size}, too long to print here; written in full to ${safeText(path)} — read them there before you answer.`];
  } catch (err) {
    // No file to point to: print them after all, whole.
    return [
      `${pad}args (${size}; could not be written to a file: ${safeText(err instanceof Error ? err.message : String(err), { max: 200 })}):`,
      ...pretty.split('\n').map((l) => `${pad}  ${l}`),
    ];
  }
}

function issueLine(issue: Issue): string {
  const code = issue.code ? `${one(issue.code, 80)}: ` : '';
  const field = typeof issue.field === 'string' && issue.field ? ` (field ${one(issue.field, 80)})` : '';
  const hint = typeof issue.hint === 'string' && issue.hint ? ` — hint: ${one(issue.hint)}` : '';
  const recoverable = issue.recoverable === false ? ' [not recoverable]' : '';
  return `${code}${one(issue.message)}${field}${hint}${recoverable}`;
}

function actionLines(actions: readonly ActionCall[], pad: string, kind: string, writeArgs: ArgsWriter): string[] {
  const lines: string[] = [];
  actions.forEach((call, i) => {
    lines.push(`${pad}${i + 1}. ${stepTitle(call)}`);
    if (call.tool === ASK_USER_TOOL) {
      const prompt = (call.args as { prompt?: unknown }).prompt;
      if (typeof prompt === 'string' && prompt) lines.push(`${pad}   asks: ${safeText(prompt)}`);
    } else if (Object.keys(call.args).length > 0) {
      lines.push(...argsLines(call.args, `${pad}   `, `${kind}-${i + 1}-args.json`, writeArgs));
    }
  });
  return lines;
}

/** The plan as lines of text, each starting with `indent`. */
export function renderPlan(plan: OrchestratedPlan, indent = '', options: RenderPlanOptions = {}): string[] {
  const p = indent;
  const writeArgs = options.writeArgs ?? writeArgsToTempFile;
  const lines: string[] = [];
  const instruction = safeText(plan.instruction || '(no instruction)', { keepNewlines: true });
  lines.push(`${p}Plan (status ${one(plan.status)}): ${instruction.split('\n').join(`\n${p}  `)}`);
  const safety = plan.safety;
  if (safety) {
    if (typeof safety.writes_code === 'boolean') lines.push(`${p}Writes code: ${safety.writes_code ? 'yes' : 'no'}`);
    if (Array.isArray(safety.touches_files) && safety.touches_files.length) {
      lines.push(`${p}Touches files: ${safety.touches_files.map((g) => safeText(g)).join(', ')}`);
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
    lines.push(...actionLines(steps, `${p}  `, 'step', writeArgs));
  } else {
    lines.push(`${p}Steps: none`);
  }
  if (plan.status !== 'ok' && plan.recovery_actions?.length) {
    lines.push(`${p}Recovery actions (the CLI does not run them):`);
    lines.push(...actionLines(plan.recovery_actions, `${p}  `, 'recovery-action', writeArgs));
  }
  if (plan.follow_up) lines.push(`${p}Follow-up: ${one(plan.follow_up, 1000)}`);
  if (plan.correlation_id) lines.push(`${p}Correlation id: ${one(plan.correlation_id, 200)}`);
  return lines;
}

/** A one-line summary for `plangate validate`: status, steps and their tools, what it touches, the instruction. */
export function summarizePlan(plan: OrchestratedPlan): string {
  const n = plan.next_actions.length;
  const tools = [...new Set(plan.next_actions.map((a) => a.tool))];
  const shown =
    tools
      .slice(0, 5)
      .map((t) => one(t, 80))
      .join(', ') + (tools.length > 5 ? ', …' : '');
  const parts = [`status ${plan.status}`, `${n} step${n === 1 ? '' : 's'}${n ? ` (${shown})` : ''}`];
  if (plan.errors?.length) parts.push(`${plan.errors.length} error${plan.errors.length === 1 ? '' : 's'}`);
  if (plan.recovery_actions?.length)
    parts.push(`${plan.recovery_actions.length} recovery action${plan.recovery_actions.length === 1 ? '' : 's'}`);
  if (plan.safety?.touches_files?.length)
    parts.push(
      `touches ${plan.safety.touches_files
        .slice(0, 3)
        .map((g) => one(g, 80))
        .join(', ')}${plan.safety.touches_files.length > 3 ? ', …' : ''}`,
    );
  if (plan.follow_up) parts.push('follow-up');
  const instruction = one((plan.instruction || '').split('\n')[0], 160);
  return `valid orchestrated_plan: ${parts.join(', ')}${instruction ? ` — ${instruction}` : ''}`;
}
