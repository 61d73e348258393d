/** Renders a plan (and its nested plans, in place) from a PlanView snapshot. */
import { diffLines } from 'diff';
import { outcomeSentence } from '../core/outcome';
import { summarizeHints, type StepEffect, type StepHint } from '../core/toolHints';
import type { PlanRecord, StepRecord } from '../core/workflow';
import type { AskFieldView, PendingPrompt, PlanView, TouchedGlobView } from '../shared/protocol';
import { clip, editableJson, h, icon, json, setText, visible } from './dom';
import { post, request, requestRender, saveUi, ui } from './messaging';

const PHASE_TEXT: Record<PlanRecord['phase'], string> = {
  awaiting_approval: 'Awaiting approval',
  executing: 'Running',
  follow_up: 'Follow-up',
  blocked: 'Blocked',
  finished: 'Finished',
};

const OUTCOME_TEXT: Record<NonNullable<PlanRecord['outcome']>, string> = {
  completed: 'Completed',
  rejected: 'Rejected',
  stopped: 'Stopped',
  cancelled: 'Cancelled',
  not_ok: 'Nothing to run',
  replaced: 'Replaced by a new plan',
};

const STEP_STATE: Record<StepRecord['state'], { text: string; icon: string }> = {
  pending: { text: 'pending', icon: 'circle-large-outline' },
  awaiting_confirm: { text: 'awaiting confirmation', icon: 'question' },
  running: { text: 'running', icon: 'loading codicon-modifier-spin' },
  ok: { text: 'ok', icon: 'pass' },
  failed: { text: 'failed', icon: 'error' },
  skipped: { text: 'skipped', icon: 'debug-step-over' },
  not_run: { text: 'not run', icon: 'circle-slash' },
  unknown: { text: 'outcome unknown', icon: 'warning' },
};

/** Shows the reply's error next to the control that asked, or clears it. */
async function act(errorSlot: HTMLElement, message: Parameters<typeof request>[0]): Promise<boolean> {
  setText(errorSlot, '');
  const reply = await request(message);
  if (!reply.ok) setText(errorSlot, reply.error ?? 'The action failed.');
  return reply.ok;
}

function errorSlot(id: string): HTMLElement {
  return h('div', { class: 'error-text', id, role: 'alert', aria: { live: 'assertive' } });
}

function section(title: string, ...children: Parameters<typeof h>[2][]): HTMLElement {
  return h('section', { class: 'card', aria: { label: title } }, h('h2', null, title), ...children);
}

function phaseBadge(record: PlanRecord): HTMLElement {
  const text = record.phase === 'finished' && record.outcome ? OUTCOME_TEXT[record.outcome] : PHASE_TEXT[record.phase];
  return h('span', { class: `badge phase-${record.phase} outcome-${record.outcome ?? 'none'}` }, text);
}

export function renderPlan(view: PlanView): HTMLElement {
  return h('div', { class: 'plan' }, renderPlanBody(view.record, view, 0));
}

function renderPlanBody(record: PlanRecord, view: PlanView, depth: number): HTMLElement {
  const plan = record.plan;
  const readOnly = view.readOnly;
  const root = h('article', { class: depth > 0 ? 'nested-plan' : 'top-plan', aria: { label: depth > 0 ? `Nested plan ${record.id}` : 'Plan' } });
  const heading = depth > 0 ? h('h3', null, 'Nested plan') : h('h1', { id: 'plan-title' }, 'Plan');
  root.append(
    h('header', { class: 'plan-header' },
      heading,
      phaseBadge(record),
      h('span', { class: 'badge status-' + plan.status }, `status: ${plan.status}`),
      h('span', { class: 'origin' }, icon('server'), ' ', visible(record.origin.server), ' · ', h('code', null, visible(record.origin.tool))),
    ),
  );
  if (depth === 0 && view.lineage.length) {
    root.append(h('p', { class: 'lineage' }, `Replaces ${view.lineage.length} earlier plan${view.lineage.length > 1 ? 's' : ''} (re-planned after your answers).`));
  }
  root.append(h('p', { class: 'instruction' }, visible(clip(plan.instruction || '(no instruction)', 20000))));
  if (record.reapproval && record.phase === 'awaiting_approval') {
    root.append(h('p', { class: 'reapproval', role: 'alert' }, icon('warning'),
      ` Step ${record.reapproval.step + 1} was not sent, and the plan waits for your approval again: `, visible(clip(record.reapproval.change, 2000))));
  }
  if (record.approvalNote) root.append(h('p', { class: 'approval-note' }, icon('note'), ' Approved with your note: ', h('q', null, visible(record.approvalNote))));

  if (depth === 0 && (plan.status === 'ok' || plan.safety)) root.append(renderSafety(record, view.touched, view.hints?.[record.id]));
  const predicted = depth === 0 && record.phase === 'awaiting_approval' ? renderPredicted(record, view) : null;
  if (predicted) root.append(predicted);
  if (plan.warnings?.length) root.append(renderIssues('Warnings', plan.warnings, 'warning'));
  if (plan.status !== 'ok') root.append(...renderNotOk(record, view));
  if (record.plan.next_actions.length) root.append(renderSteps(record, view, depth));
  if (depth === 0 && view.changes) root.append(renderChanges(record, view));
  root.append(renderActions(record, readOnly, view.approvalHashes?.[record.id]));
  if (plan.correlation_id) root.append(h('p', { class: 'muted' }, 'Correlation id: ', h('code', null, visible(plan.correlation_id))));
  return root;
}

function renderSafety(record: PlanRecord, touched: TouchedGlobView[] | undefined, hints: (StepHint | null)[] | undefined): HTMLElement {
  const safety = record.plan.safety ?? {};
  const writes = safety.writes_code;
  const globs = safety.touches_files ?? [];
  const rows: HTMLElement[] = [];
  rows.push(h('p', { class: writes ? 'writes-code' : '' }, icon(writes ? 'edit' : 'eye'), ' ',
    writes === undefined ? 'Writes code: not declared' : writes ? 'Writes code: yes' : 'Writes code: no'));
  const summary = hints ? summarizeHints(hints) : '';
  if (summary) {
    const destructive = hints!.some((x) => x?.effect === 'destructive');
    rows.push(h('p', { class: `tool-hints${destructive ? ' has-destructive' : ''}`, title: 'What the steps\' tools say about themselves (MCP tool annotations). These are the server\'s hints, not guarantees.' },
      icon(destructive ? 'warning' : 'info'), ' Step tools, by their own hints: ', summary, '.'));
  }
  if (globs.length === 0) rows.push(h('p', { class: 'muted' }, 'Touched files: none declared.'));
  else {
    const list = h('ul', { class: 'globs' });
    for (const glob of globs) {
      const resolved = touched?.find((t) => t.glob === glob);
      const key = `glob:${record.id}:${glob}`;
      const count = resolved ? `${resolved.count} file${resolved.count === 1 ? '' : 's'}` : 'counting…';
      const summary = h('summary', null, h('code', null, visible(glob)), ' — ', count,
        resolved?.outside ? h('span', { class: 'flag danger' }, icon('warning'), ' outside the workspace') : null,
        resolved?.note ? h('span', { class: 'muted' }, ` (${visible(resolved.note)})`) : null);
      const details = h('details', { open: ui.open[key], ontoggle: (e) => { ui.open[key] = (e.target as HTMLDetailsElement).open; saveUi(); } }, summary,
        resolved && resolved.files.length
          ? h('ul', { class: 'files' }, resolved.files.map((f) => h('li', null, h('code', null, visible(f)))),
            resolved.count > resolved.files.length ? h('li', { class: 'muted' }, `… and ${resolved.count - resolved.files.length} more`) : null)
          : h('p', { class: 'muted' }, resolved ? 'No file matches yet (the plan may create them).' : 'Resolving…'));
      list.append(h('li', null, details));
    }
    rows.push(h('div', null, h('p', null, 'Touched files:'), list));
  }
  return section('Safety', ...rows);
}

function renderPredicted(record: PlanRecord, view: PlanView): HTMLElement | null {
  const predicted = view.predicted;
  if (!predicted) return section('Predicted changes', h('p', { class: 'muted' }, icon('loading codicon-modifier-spin'), ' Predicting what the steps will write…'));
  if (predicted.length === 0) return null; // no step says in advance what it writes: nothing to show
  const CHANGE = { create: 'create', modify: 'modify', delete: 'delete' } as const;
  return section(`Predicted changes (${predicted.length})`,
    h('p', { class: 'muted' }, 'Nothing is written before you approve. Open a file to see the step\'s change as a diff.'),
    h('ul', { class: 'files predicted', aria: { label: 'Predicted file changes' } }, predicted.map((p, index) =>
      h('li', { class: p.error ? 'error' : '' },
        h('span', { class: 'flag' }, `step ${p.step + 1}`), ' ',
        h('code', null, visible(p.path)), ' ',
        p.error ? null : h('span', { class: 'muted' }, `${CHANGE[p.change]}${p.source === 'dryRun' ? ` (from a dry run on server ${visible(record.steps[p.step]?.server ?? '?')})` : ''}`),
        !p.inside ? h('span', { class: 'flag danger' }, icon('warning'), ' outside the workspace') : null,
        p.error && p.error.startsWith('Not previewed:') ? h('div', { class: 'muted' }, icon('info'), ' ', visible(p.error))
          : p.error ? h('div', { class: 'step-error' }, icon('error'), ' ', visible(p.error))
          : h('button', { class: 'link', aria: { label: `Open the predicted diff of ${p.path}` }, onclick: () => post({ type: 'openPredicted', planId: record.id, index }) }, 'Open the predicted diff')))));
}

function renderChanges(record: PlanRecord, view: PlanView): HTMLElement {
  const changes = view.changes ?? [];
  const err = errorSlot(`revert-error-${record.id}`);
  if (changes.length === 0) return section('Changes', h('p', { class: 'muted' }, record.reverts?.length ? 'Reverted: the files match how they were before the plan.' : 'The plan changed no file that Plangate watched.'));
  const undeclared = changes.filter((c) => c.undeclared).length;
  return section(`Changes (${changes.length})`,
    undeclared ? h('p', { class: 'warning-text', role: 'status' }, icon('warning'), ` ${undeclared} undeclared write${undeclared === 1 ? '' : 's'}: outside the globs the plan declared.`) : null,
    h('ul', { class: 'files changes', aria: { label: 'Changed files' } }, changes.map((c) =>
      h('li', null,
        icon(c.kind === 'created' ? 'diff-added' : c.kind === 'deleted' ? 'diff-removed' : 'diff-modified'), ' ',
        h('code', null, visible(c.path)), ' ', h('span', { class: 'muted' }, c.kind),
        c.undeclared ? h('span', { class: 'flag danger' }, icon('warning'), ' undeclared write') : null,
        c.unexpectedCode ? h('span', { class: 'flag danger' }, icon('code'), ' code changed, but the plan said it writes no code') : null,
        ' ',
        h('button', { class: 'link', aria: { label: `Open diff of ${c.path}` }, onclick: () => post({ type: 'openChange', planId: record.id, path: c.path }) }, 'Open diff'),
        ' ',
        c.revertable
          ? h('button', { class: 'link', aria: { label: `Revert file ${c.path}` }, onclick: () => void act(err, { type: 'revert', planId: record.id, path: c.path }) }, 'Revert file')
          : h('span', { class: 'muted' }, ` (${visible(c.note ?? 'cannot be reverted')})`)))),
    h('div', { class: 'buttons' },
      h('button', { class: 'secondary', onclick: () => void act(err, { type: 'revert', planId: record.id }) }, icon('discard'), ' Revert')),
    err);
}

function renderIssues(title: string, issues: { code?: string; message?: string; field?: string; hint?: string; recoverable?: boolean }[], kind: 'error' | 'warning'): HTMLElement {
  return section(title, h('ul', { class: `issues ${kind}` }, issues.map((i) =>
    h('li', null, icon(kind === 'error' ? 'error' : 'warning'), ' ',
      i.code ? h('code', null, visible(String(i.code))) : null, ' ',
      i.field ? h('strong', null, visible(String(i.field)), ': ') : null,
      visible(String(i.message ?? '')),
      i.hint ? h('div', { class: 'hint' }, 'Hint: ', visible(String(i.hint))) : null,
      i.recoverable === false ? h('div', { class: 'muted' }, 'Not recoverable.') : null,
    ))));
}

function renderNotOk(record: PlanRecord, view: PlanView): HTMLElement[] {
  const plan = record.plan;
  const out: HTMLElement[] = [];
  out.push(h('p', { class: 'notice' }, icon('info'), ' ', `The server answered with status "${plan.status}": this plan has nothing to approve.`,
    plan.status === 'partial' ? ' Part of the work is done; see below.' : ''));
  if (plan.errors?.length) out.push(renderIssues('Errors', plan.errors, 'error'));
  if (plan.missing?.length) out.push(section('Missing', h('p', null, 'The server needs: ', plan.missing.map((m, i) => [i ? ', ' : '', h('code', null, visible(m))]))));
  if (plan.partial_results?.length) {
    out.push(section('Partial results', h('ul', { class: 'checklist' }, plan.partial_results.map((r) =>
      h('li', { class: `outcome-${r.outcome}` }, icon(r.outcome === 'ok' ? 'pass' : r.outcome === 'failed' ? 'error' : 'debug-step-over'), ' ',
        h('code', null, visible(r.step)), ` — ${r.outcome}`, r.detail ? `: ${visible(r.detail)}` : '')))));
  }
  if (plan.ask && !view.readOnly && record.phase === 'finished' && record.outcome === 'not_ok') out.push(renderAskForm(record));
  else if (plan.ask) out.push(section('Question', h('p', null, visible(plan.ask.prompt))));
  if (plan.recovery_actions?.length) {
    const err = errorSlot(`recovery-error-${record.id}`);
    out.push(section('Recovery actions', h('div', { class: 'buttons' }, plan.recovery_actions.map((a, index) =>
      h('button', {
        class: 'secondary', disabled: view.readOnly && record.outcome !== 'not_ok',
        title: `Calls ${a.tool} ${JSON.stringify(a.args)}`,
        onclick: () => void act(err, { type: 'runRecovery', planId: record.id, index }),
      }, a.confirm ? icon('shield') : icon('wrench'), ' ', visible(a.label || a.tool), a.confirm ? ' (asks first)' : ''))), err));
  }
  return out;
}

function fieldInput(idBase: string, field: AskFieldView, draftKey: string): HTMLElement {
  const id = `${idBase}-${field.name}`;
  const value = ui.drafts[`${draftKey}:${field.name}`] ?? '';
  const save = (e: Event) => { ui.drafts[`${draftKey}:${field.name}`] = (e.target as HTMLInputElement).value; saveUi(); };
  const label = h('label', { for: id }, visible(field.name), field.required ? h('span', { class: 'required', aria: { hidden: 'true' } }, ' *') : null);
  let input: HTMLElement;
  if (field.type === 'select' && field.options?.length) {
    input = h('select', { id, name: field.name, required: field.required, onchange: save },
      h('option', { value: '' }, '— choose —'),
      field.options.map((o) => h('option', { value: o, selected: o === value }, visible(o))));
  } else {
    input = h('input', { id, name: field.name, type: field.type === 'number' ? 'number' : 'text', value, required: field.required, oninput: save, step: field.type === 'number' ? 'any' : undefined });
  }
  return h('div', { class: 'field' }, label, input);
}

function readForm(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = Object.create(null);
  for (const el of Array.from(form.elements)) {
    const input = el as HTMLInputElement;
    if (input.name && input.value !== '') values[input.name] = input.value;
  }
  return values;
}

function renderAskForm(record: PlanRecord): HTMLElement {
  const ask = record.plan.ask!;
  const fields: AskFieldView[] = (ask.fields ?? []).map((f) => ({ name: f.name, type: f.type, required: Boolean(f.required), options: f.options }));
  const err = errorSlot(`ask-error-${record.id}`);
  const form = h('form', {
    class: 'ask-form',
    onsubmit: (e) => {
      e.preventDefault();
      if (!form.reportValidity()) return;
      void act(err, { type: 'answerAsk', planId: record.id, values: readForm(form) });
    },
  }, h('p', null, visible(ask.prompt)), fields.map((f) => fieldInput(`ask-${record.id}`, f, `ask:${record.id}`)),
  fields.length === 0 ? h('p', { class: 'muted' }, 'The server asks no specific field; submitting calls the planning tool again.') : null,
  h('div', { class: 'buttons' }, h('button', { type: 'submit' }, icon('refresh'), ' Answer and re-plan')), err);
  return section('Your answer', form);
}

function renderSteps(record: PlanRecord, view: PlanView, depth: number): HTMLElement {
  const list = h('ol', { class: 'steps', aria: { label: 'Steps' } });
  for (const step of record.steps) list.append(renderStep(record, step, view, depth));
  return section(`Steps (${record.steps.length})`, list);
}

function renderStep(record: PlanRecord, step: StepRecord, view: PlanView, depth: number): HTMLElement {
  const state = STEP_STATE[step.state];
  const awaiting = record.phase === 'awaiting_approval' && !view.readOnly;
  const name = step.call.label || step.call.tool;
  const li = h('li', { class: `step state-${step.state}`, data: { step: String(step.index + 1) }, aria: { label: `Step ${step.index + 1}: ${name}` } });
  li.append(h('div', { class: 'step-head' },
    h('span', { class: 'step-state', title: state.text }, icon(state.icon)),
    h('span', { class: 'step-num' }, `${step.index + 1}.`),
    h('span', { class: 'step-label' }, visible(name)),
    step.call.label ? h('code', { class: 'step-tool' }, visible(step.call.tool)) : null,
    hintFlag(view.hints?.[record.id]?.[step.index]),
    view.hints?.[record.id]?.[step.index]?.openWorld ? h('span', { class: 'flag', title: 'The tool says it reaches systems outside this machine (openWorldHint).' }, icon('globe'), ' open world') : null,
    step.call.confirm ? h('span', { class: 'flag' }, icon('shield'), ' asks to confirm') : null,
    step.call.tool === 'ask_user' ? h('span', { class: 'flag' }, icon('comment'), ' asks you') : null,
    step.call.tool !== 'ask_user' && step.server && !step.crossServer
      ? h('span', { class: 'step-server', title: `Runs on server ${visible(step.server)} (the approval covers this server and the tool as it lists it)` }, icon('server'), ' ', visible(step.server)) : null,
    step.crossServer ? h('span', { class: 'flag', title: `Runs on server ${step.server ?? ''}` }, icon('arrow-swap'), ' other server', step.server ? `: ${visible(step.server)}` : '') : null,
    step.unresolved ? h('span', { class: 'flag step-unresolved', title: visible(step.unresolved) }, icon('error'), ' no server offers it') : null,
    step.edited ? h('span', { class: 'flag edited' }, icon('edit'), ' edited') : null,
    step.skipRequested && awaiting ? h('span', { class: 'flag' }, 'will be skipped') : null,
    h('span', { class: 'step-state-text' }, state.text),
    awaiting && step.state === 'pending' ? skipButton(record, step) : null,
  ));
  if (step.state === 'running' && step.progress) {
    const { progress, total, message } = step.progress;
    li.append(h('div', { class: 'progress' },
      total ? h('progress', { value: String(progress), max: String(total), aria: { label: `Step ${step.index + 1} progress` } }) : null,
      h('span', null, total ? ` ${progress}/${total}` : ` ${progress}`, message ? ` — ${visible(message)}` : '')));
  }
  if (step.error) li.append(h('div', { class: 'step-error', role: 'alert' }, icon('error'), ' ', visible(clip(step.error, 4000))));
  if (step.summary && step.state === 'ok') li.append(renderSummary(step.summary));

  li.append(renderArgs(record, step, awaiting));
  for (const prompt of view.pending) {
    if (prompt.planId === record.id && prompt.step === step.index) li.append(renderPrompt(prompt));
  }
  if (step.childPlanId && view.children[step.childPlanId]) {
    li.append(renderPlanBody(view.children[step.childPlanId], view, depth + 1));
  }
  return li;
}

const HINT_FLAGS: Record<Exclude<StepEffect, 'unknown'>, { text: string; icon: string; title: string; cls: string }> = {
  read: { text: 'read-only', icon: 'eye', cls: 'hint-read', title: 'The tool says it only reads (readOnlyHint); a hint from the server, not a guarantee.' },
  write: { text: 'writes', icon: 'save', cls: 'hint-write', title: 'The tool says it changes things, but nothing destructive (destructiveHint: false).' },
  destructive: { text: 'destructive', icon: 'warning', cls: 'hint-destructive', title: 'The tool says it may delete or overwrite data (destructiveHint).' },
};

/** A step's effect as its tool declares it; nothing for tools that give no hint. */
function hintFlag(hint: StepHint | null | undefined): HTMLElement | null {
  if (!hint || hint.effect === 'unknown') return null;
  const f = HINT_FLAGS[hint.effect];
  return h('span', { class: `flag ${f.cls}`, title: f.title + (hint.idempotent ? ' Running it twice does no more than once (idempotentHint).' : '') }, icon(f.icon), ` ${f.text}`);
}

/** Per-step Skip before approval: a toggle whose accessible name says which step. */
function skipButton(record: PlanRecord, step: StepRecord): HTMLElement {
  const err = errorSlot(`skip-error-${record.id}-${step.index}`);
  return h('span', { class: 'skip' },
    h('button', {
      class: 'secondary small', id: `skip-${record.id}-${step.index}`,
      aria: { pressed: String(step.skipRequested), label: `Skip step ${step.index + 1}` },
      title: step.skipRequested ? 'This step will be skipped; press to run it after all' : 'Do not run this step',
      onclick: () => void act(err, { type: 'skip', planId: record.id, step: step.index, skip: !step.skipRequested }),
    }, step.skipRequested ? icon('debug-step-over') : null, 'Skip'), err);
}

/** A step's result: its first meaningful line, the whole (short) summary on demand. */
function renderSummary(summary: string): HTMLElement {
  const lines = summary.split('\n').map((l) => l.trim()).filter((l) => l && !/^(`{3,}|~{3,})/.test(l) && !/^=+$/.test(l));
  const first = lines[0] ?? summary.trim();
  if (lines.length <= 1) return h('div', { class: 'step-summary' }, visible(clip(first, 300)));
  return h('details', { class: 'step-summary' }, h('summary', null, visible(clip(first, 160))), h('pre', { class: 'text-block' }, visible(clip(summary, 2000))));
}

function renderArgs(record: PlanRecord, step: StepRecord, editable: boolean): HTMLElement {
  const key = `args:${record.id}:${step.index}`;
  const draftKey = `edit:${record.id}:${step.index}`;
  const editing = editable && ui.drafts[draftKey] !== undefined;
  if (!ui.open[key] && !editing) {
    // Closed: only the summary is built; the arguments (and their diff) are rendered when opened. Long plans
    // have thousands of steps, and most are never opened.
    const closed = h('details', { class: 'args' }, h('summary', null, `Arguments${Object.keys(step.call.args).length ? '' : ' (none)'}`));
    closed.addEventListener('toggle', () => {
      if (!closed.open) return;
      ui.open[key] = true;
      saveUi();
      const full = renderArgs(record, step, editable);
      closed.replaceWith(full);
      full.querySelector('summary')?.focus();
    });
    return closed;
  }
  const details = h('details', { class: 'args', open: ui.open[key] || editing, ontoggle: (e) => { ui.open[key] = (e.target as HTMLDetailsElement).open; saveUi(); } },
    h('summary', null, `Arguments${Object.keys(step.call.args).length ? '' : ' (none)'}`));
  if (editing) {
    const err = errorSlot(`edit-error-${record.id}-${step.index}`);
    const area = h('textarea', {
      id: `edit-${record.id}-${step.index}`, rows: Math.min(20, Math.max(4, ui.drafts[draftKey].split('\n').length + 1)),
      aria: { label: `Arguments of step ${step.index + 1} as JSON` }, value: ui.drafts[draftKey],
      oninput: (e) => { ui.drafts[draftKey] = (e.target as HTMLTextAreaElement).value; saveUi(); },
    });
    details.append(area, h('div', { class: 'buttons small' },
      h('button', {
        onclick: async () => {
          if (await act(err, { type: 'editArgs', planId: record.id, step: step.index, argsJson: ui.drafts[draftKey] })) {
            delete ui.drafts[draftKey];
            saveUi();
            requestRender(); // the snapshot with the edit may already be on screen, still showing the editor
          }
        },
      }, 'Save arguments'),
      h('button', { class: 'secondary', onclick: () => { delete ui.drafts[draftKey]; saveUi(); details.replaceWith(renderArgs(record, step, editable)); } }, 'Discard edit'),
    ), err);
  } else {
    details.append(h('pre', { class: 'json' }, visible(clip(json(step.call.args), 50000))));
    if (step.edited) {
      const changes = diffLines(json(step.proposed.args) + '\n', json(step.call.args) + '\n');
      details.append(h('p', { class: 'muted' }, 'Your change against what the server proposed:'),
        h('pre', { class: 'diff', aria: { label: 'Argument changes' } }, changes.map((c) =>
          h('span', { class: c.added ? 'added' : c.removed ? 'removed' : 'same' }, c.value.split('\n').filter((l, i, a) => i < a.length - 1 || l).map((l) => `${c.added ? '+ ' : c.removed ? '- ' : '  '}${visible(l)}\n`)))));
    }
    if (editable) {
      const err = errorSlot(`reset-error-${record.id}-${step.index}`);
      details.append(h('div', { class: 'buttons small' },
        h('button', { class: 'secondary', aria: { label: `Edit arguments of step ${step.index + 1}` }, onclick: () => { ui.drafts[draftKey] = editableJson(step.call.args); ui.open[key] = true; saveUi(); details.replaceWith(renderArgs(record, step, editable)); document.getElementById(`edit-${record.id}-${step.index}`)?.focus(); } }, icon('edit'), ' Edit arguments'),
        step.edited ? h('button', { class: 'secondary', onclick: () => void act(err, { type: 'resetArgs', planId: record.id, step: step.index }) }, 'Restore proposed') : null,
      ), err);
    }
  }
  return details;
}

function renderPrompt(prompt: PendingPrompt): HTMLElement {
  const err = errorSlot(`prompt-error-${prompt.planId}-${prompt.step}`);
  if (prompt.kind === 'confirm') {
    return h('div', { class: 'prompt', role: 'group', aria: { label: `Confirm step ${prompt.step + 1}` } },
      h('p', null, icon('shield'), ' This step asks for your confirmation before it runs.'),
      h('div', { class: 'buttons' },
        h('button', { onclick: () => void act(err, { type: 'confirmStep', planId: prompt.planId, step: prompt.step, granted: true }) }, 'Run step'),
        h('button', { class: 'secondary', onclick: () => void act(err, { type: 'confirmStep', planId: prompt.planId, step: prompt.step, granted: false }) }, 'Stop')),
      err);
  }
  const draftKey = `askUser:${prompt.planId}:${prompt.step}`;
  const form = h('form', {
    class: 'ask-form',
    onsubmit: (e) => {
      e.preventDefault();
      if (!form.reportValidity()) return;
      void act(err, { type: 'answerAskUser', planId: prompt.planId, step: prompt.step, values: readForm(form) });
    },
  }, h('p', null, icon('comment'), ' ', visible(prompt.prompt || 'The plan asks you:')),
  prompt.fields.map((f) => fieldInput(`askuser-${prompt.planId}-${prompt.step}`, f, draftKey)),
  h('div', { class: 'buttons' },
    h('button', { type: 'submit' }, 'Answer'),
    h('button', { type: 'button', class: 'secondary', onclick: () => void act(err, { type: 'answerAskUser', planId: prompt.planId, step: prompt.step }) }, 'Stop')), err);
  return h('div', { class: 'prompt' }, form);
}

function renderActions(record: PlanRecord, readOnly: boolean, shownHash: string | undefined): HTMLElement {
  const err = errorSlot(`actions-error-${record.id}`);
  const bar = h('div', { class: 'actions', role: 'group', aria: { label: 'Plan actions' } });
  // Sticky only while a decision is pending: a finished plan's bar must not cover the content above it.
  const pendingDecision = !readOnly && record.phase !== 'finished';
  const wrap = h('div', { class: `action-bar${pendingDecision ? ' sticky' : ''}` }, bar, err);
  if (readOnly) {
    if (record.outcome) bar.append(h('p', { class: 'outcome' }, visible(outcomeSentence(record))));
    if (record.depth === 0) bar.append(h('button', { class: 'secondary', onclick: () => post({ type: 'exportPlan', planId: record.id }) }, icon('export'), ' Export as JSON'));
    return wrap;
  }
  switch (record.phase) {
    case 'awaiting_approval': {
      // One note for either decision: instructions that go with an approval (the agent gets them), or the reason
      // for a rejection. Kept as a draft: a snapshot that arrives while the user types (globs counted, another
      // plan's progress) re-renders the bar, and the text must survive that.
      const draftKey = `note:${record.id}`;
      const note = h('input', {
        id: `decision-note-${record.id}`, type: 'text', placeholder: 'Note (optional): instructions, or why you reject',
        aria: { label: 'Note with your decision (optional)' },
        title: 'Goes with Approve and run (kept with the plan; an agent that asked for it receives it) or with Reject (the reason).',
        value: ui.drafts[draftKey] ?? '', oninput: (e) => { ui.drafts[draftKey] = (e.target as HTMLInputElement).value; saveUi(); },
      });
      const decide = async (message: Parameters<typeof request>[0]) => {
        if (await act(err, message)) { delete ui.drafts[draftKey]; saveUi(); }
      };
      bar.append(
        h('button', {
          class: 'primary', id: `approve-${record.id}`,
          // Until each step's server is known the approval could not cover it: the button waits for the resolution.
          disabled: record.resolvedAt === undefined,
          title: record.resolvedAt === undefined ? 'Finding which server runs each step…' : 'Run exactly these steps, on the servers shown',
          onclick: () => void decide({ type: 'approve', planId: record.id, note: note.value.trim() || undefined, shownHash }) }, icon('check'), ' Approve and run'),
        h('button', { class: 'secondary', onclick: () => void decide({ type: 'reject', planId: record.id, reason: note.value.trim() || undefined }) }, icon('close'), ' Reject'),
        note,
      );
      break;
    }
    case 'executing':
      bar.append(h('span', { class: 'muted' }, progressText(record)),
        h('button', { class: 'secondary', onclick: () => void act(err, { type: 'cancel', planId: record.id }) }, icon('debug-stop'), ' Cancel'));
      break;
    case 'blocked': {
      const step = record.blockedStep !== undefined ? record.steps[record.blockedStep] : undefined;
      bar.append(
        h('p', { class: 'blocked-reason', role: 'status' }, icon('warning'), ' ',
          visible(record.blockedReason ?? (step ? `Step ${step.index + 1} (${step.call.label || step.call.tool}) failed.` : 'The plan stopped at a failed step.'))),
        h('button', { class: 'primary', onclick: () => void act(err, { type: 'retryStep', planId: record.id }) }, icon('debug-restart'), ' Retry step'),
        h('button', { class: 'secondary', onclick: () => void act(err, { type: 'skipStep', planId: record.id }) }, icon('debug-step-over'), ' Skip step'),
        h('button', { class: 'secondary', onclick: () => void act(err, { type: 'stop', planId: record.id }) }, icon('debug-stop'), ' Stop'));
      break;
    }
    case 'follow_up':
      bar.append(
        h('p', { class: 'follow-up' }, icon('pass'), ' All steps are done. ', h('strong', null, visible(record.plan.follow_up ?? ''))),
        h('button', { class: 'primary', onclick: () => void act(err, { type: 'followUp', planId: record.id, answer: 'yes' }) }, 'Yes'),
        h('button', { class: 'secondary', onclick: () => void act(err, { type: 'followUp', planId: record.id, answer: 'no' }) }, 'No'));
      break;
    case 'finished':
      bar.append(h('p', { class: 'outcome' }, visible(outcomeSentence(record))));
      if (record.depth === 0) bar.append(h('button', { class: 'secondary', onclick: () => post({ type: 'exportPlan', planId: record.id }) }, icon('export'), ' Export as JSON'));
      break;
  }
  return wrap;
}

function progressText(record: PlanRecord): string {
  const done = record.steps.filter((s) => s.state === 'ok' || s.state === 'skipped').length;
  const running = record.steps.find((s) => s.state === 'running');
  return running ? `Running step ${running.index + 1} of ${record.steps.length}` : `${done} of ${record.steps.length} done`;
}

