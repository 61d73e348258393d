/**
 * The runner's questions, answered in the terminal or by the command line: `confirm` steps and nested plans are
 * granted by `--yes` or asked ("[y/N]"); `ask_user` fields come from `--answer name=value`, else from the terminal;
 * without either, a required field declines the step (the plan stops). A failed step stops the plan (the CLI does not
 * retry or skip).
 */
import { CancellationTokenSource, type CancellationToken } from '../core/base/lifecycle';
import type { Gate } from '../core/engine/gate';
import type { AskFieldType } from '../core/plan/plan';
import type { RunnerHost } from '../core/engine/runner';
import { getPlan, planApprovalHash, stepLabel, type PlanRecord, type StepRecord } from '../core/workflow/workflow';
import type { Output } from './output';
import type { Prompter } from './prompter';
import { renderPlan } from './renderPlan';
import { safeText } from './safeText';

export interface CliHostOptions {
  out: Output;
  /** The terminal, when there is one. */
  prompter?: Prompter;
  /** `--yes`: grant confirm steps and nested plans without asking. */
  yes: boolean;
  /** `--answer name=value` pairs. */
  answers: ReadonlyMap<string, string>;
}

interface Field {
  name: string;
  type: AskFieldType | string;
  required: boolean;
  options: string[];
}

const one = (text: unknown, max = 200) => safeText(text, { max });
const MAX_TRIES = 5;

function fieldsOf(args: Record<string, unknown>): Field[] {
  const raw = Array.isArray(args.fields) ? args.fields : [];
  const fields: Field[] = [];
  for (const f of raw) {
    if (typeof f !== 'object' || f === null || typeof (f as { name?: unknown }).name !== 'string') continue;
    const r = f as Record<string, unknown>;
    const type =
      typeof r.type === 'string'
        ? r.type.toLowerCase()
        : typeof r.type === 'number'
          ? (['string', 'number', 'select'][r.type] ?? 'string')
          : 'string';
    const options = Array.isArray(r.options) ? r.options.filter((o): o is string => typeof o === 'string') : [];
    fields.push({ name: r.name as string, type, required: r.required === true, options });
  }
  return fields;
}

/** A typed value for `field` from `text`, or why it does not fit. An option may be given by its number. */
function parseField(field: Field, text: string): { value: string | number } | { problem: string } {
  const t = text.trim();
  if (field.type === 'number') {
    const n = t === '' ? NaN : Number(t);
    return Number.isFinite(n) ? { value: n } : { problem: `'${one(field.name, 80)}' must be a number` };
  }
  if (field.options.length) {
    const n = Number(t);
    const value = Number.isInteger(n) && n >= 1 && n <= field.options.length ? field.options[n - 1]! : t;
    return field.options.includes(value)
      ? { value }
      : { problem: `'${one(field.name, 80)}' must be one of: ${field.options.map((o) => one(o, 80)).join(', ')}` };
  }
  return { value: text };
}

function describe(field: Field): string {
  const kind = field.options.length
    ? `one of: ${field.options.map((o, i) => `${i + 1}=${one(o, 80)}`).join(', ')}`
    : field.type === 'number'
      ? 'number'
      : 'text';
  return `${one(field.name, 80)} (${kind}${field.required ? ', required' : ', optional'}): `;
}

export class CliRunnerHost implements RunnerHost {
  constructor(private readonly options: CliHostOptions) {}

  async confirmStep(plan: PlanRecord, step: StepRecord, _token: CancellationToken): Promise<boolean> {
    const { out, prompter, yes } = this.options;
    const pad = '  '.repeat(plan.depth + 1);
    const what = `Step ${step.index + 1} (${one(stepLabel(step))}) needs confirmation`;
    if (yes) {
      out.info(`${pad}${what}: granted by --yes.`);
      return true;
    }
    if (!prompter) {
      out.error(`plangate: ${what}, but there is no terminal to ask on; it did not run. Pass --yes to grant it.`);
      return false;
    }
    return prompter.confirm(`${pad}${what}. Run it?`);
  }

  async askUser(plan: PlanRecord, step: StepRecord, _token: CancellationToken): Promise<Record<string, unknown> | undefined> {
    const { out, prompter, answers } = this.options;
    const pad = '  '.repeat(plan.depth + 1);
    const args = step.call.args;
    const prompt = typeof args.prompt === 'string' ? args.prompt : '';
    const fields = fieldsOf(args);
    const result: Record<string, unknown> = {};
    const put = (key: string, value: unknown) =>
      Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
    let shown = false;
    const show = () => {
      if (shown) return;
      shown = true;
      out.info(`${pad}Step ${step.index + 1} asks: ${safeText(prompt || '(no prompt)', { max: 2000 })}`);
    };

    if (fields.length === 0) {
      if (!prompter) return result;
      show();
      const text = await prompter.ask(`${pad}  answer: `);
      if (text === undefined) return undefined;
      put('answer', text);
      return result;
    }

    for (const field of fields) {
      const given = answers.get(field.name);
      if (given !== undefined) {
        const parsed = parseField(field, given);
        if ('value' in parsed) {
          put(field.name, parsed.value);
          continue;
        }
        if (!prompter) {
          out.error(
            `plangate: step ${step.index + 1} (${one(stepLabel(step))}): --answer ${one(field.name, 80)}=…: ${parsed.problem}. The plan stopped.`,
          );
          return undefined;
        }
        show();
        out.info(`${pad}  --answer ${one(field.name, 80)}: ${parsed.problem}.`);
      } else if (!prompter) {
        if (!field.required) continue;
        out.error(
          `plangate: step ${step.index + 1} (${one(stepLabel(step))}) needs an answer for '${one(field.name, 80)}' and there is no terminal to ask on; the plan stopped. Pass --answer ${one(field.name, 80)}=VALUE.`,
        );
        return undefined;
      }
      show();
      let done = false;
      for (let attempt = 0; attempt < MAX_TRIES && !done; attempt++) {
        const text = await prompter!.ask(`${pad}  ${describe(field)}`);
        if (text === undefined) return undefined;
        if (text.trim() === '') {
          if (field.required) out.info(`${pad}  This field is required.`);
          else done = true;
          continue;
        }
        const parsed = parseField(field, text);
        if ('problem' in parsed) {
          out.info(`${pad}  ${parsed.problem}; try again.`);
          continue;
        }
        put(field.name, parsed.value);
        done = true;
      }
      if (!done) return undefined;
    }
    return result;
  }

  async approveNested(child: PlanRecord, _token: CancellationToken): Promise<boolean> {
    const { out, prompter, yes } = this.options;
    const pad = '  '.repeat(child.depth);
    out.info(
      `${pad}Step ${(child.parentStep ?? 0) + 1} returned a nested plan (level ${child.depth}):`,
      ...renderPlan(child.plan, `${pad}  `),
    );
    if (yes) {
      out.info(`${pad}  Approved by --yes.`);
      return true;
    }
    if (!prompter) {
      out.error('plangate: the nested plan needs approval, but there is no terminal to ask on; it did not run. Pass --yes to approve it.');
      return false;
    }
    return prompter.confirm(`${pad}  Run the nested plan?`);
  }

  async onFailure(): Promise<'stop'> {
    return 'stop';
  }
}

/**
 * The terminal host of a {@link Gate}: answers, one at a time, what the gate's runs wait on — confirm steps and
 * `ask_user` steps (`gate.pending`) and nested plans awaiting approval — with the questions of {@link CliRunnerHost},
 * through the gate's own answers, as the panel's buttons do. A nested plan is approved by {@link Gate.approve} with all
 * its checks (the hash of what was printed), so the terminal and the panel cannot disagree about what an approval
 * means. Dispose to stop answering.
 */
export class TerminalGateHost {
  private readonly answered = new Set<string>();
  private busy = false;
  private readonly sub: { dispose(): void };
  private readonly cancel = new CancellationTokenSource();

  constructor(
    private readonly gate: Gate,
    private readonly questions: CliRunnerHost,
    private readonly out: Output,
  ) {
    this.sub = gate.onDidChange(() => void this.next());
  }

  dispose(): void {
    this.sub.dispose();
    this.cancel.cancel();
    this.cancel.dispose();
  }

  private async next(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (let ask = this.nextQuestion(); ask; ask = this.nextQuestion()) await ask();
    } finally {
      this.busy = false;
    }
  }

  /** The next thing the runs wait on that the terminal has not asked yet, as the question that answers it. */
  private nextQuestion(): (() => Promise<void>) | undefined {
    const state = this.gate.workflow.state;
    const token = this.cancel.token;
    for (const prompt of this.gate.pending) {
      const key = `${prompt.kind}:${prompt.planId}:${prompt.step}`;
      const plan = getPlan(state, prompt.planId);
      const step = plan?.steps[prompt.step];
      if (this.answered.has(key) || !plan || !step) continue;
      this.answered.add(key);
      return prompt.kind === 'confirm'
        ? async () => void this.gate.answerConfirm(plan.id, step.index, await this.questions.confirmStep(plan, step, token))
        : async () => void this.gate.answerAskUser(plan.id, step.index, await this.questions.askUser(plan, step, token));
    }
    for (const childId of this.gate.nestedAwaiting) {
      const child = getPlan(state, childId);
      if (this.answered.has(`nested:${childId}`) || !child) continue;
      this.answered.add(`nested:${childId}`);
      return async () => {
        const shown = planApprovalHash(child);
        if (!(await this.questions.approveNested(child, token))) {
          this.gate.reject(childId);
          return;
        }
        const refused = await this.gate.approve(childId, undefined, shown);
        if (refused) {
          this.out.error(`plangate: the nested plan was not approved: ${safeText(refused, { max: 2000 })}`);
          this.gate.reject(childId, 'the approval was refused');
        }
      };
    }
    return undefined;
  }
}
