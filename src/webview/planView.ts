/**
 * Renders a plan item (a plan and its nested plans, in place) from its view model, and re-renders only what a patch
 * changed: a plan's head (everything but its step rows) or single step rows, found by key. The wording comes with
 * the view model (core/present); this file only lays it out.
 */
import { diffLines } from 'diff';
import type {
  AskFieldView,
  IssueView,
  PendingPrompt,
  PlanHeadView,
  PlanItemView,
  PlanView,
  StepEffect,
  StepHint,
  StepChangeView,
  StepStateView,
  StepView,
  ToolSummaryView,
  TouchedGlobView,
} from '../shared/protocol';
import { stepKey } from '../shared/panelPatch';
import { askCallArgs } from '../shared/askCall';
import { argsBlock, policyMark } from './callCard';
import { clip, editableJson, h, icon, json, setText, visible } from './base/dom';
import { post, request, requestRender, saveUi, ui } from './base/messaging';

const STEP_ICON: Record<StepStateView, string> = {
  pending: 'circle-large-outline',
  awaiting_confirm: 'question',
  running: 'loading codicon-modifier-spin',
  ok: 'pass',
  failed: 'error',
  skipped: 'debug-step-over',
  not_run: 'circle-slash',
  unknown: 'warning',
};

/** The rendered plan item: its view model and its elements by plan id and by step key, for partial re-renders. */
interface Rendered {
  item: PlanItemView;
  articles: Map<string, HTMLElement>;
  stepSections: Map<string, HTMLElement>;
  rows: Map<string, HTMLElement>;
  /** For a plan whose rows are still being added (see {@link renderSteps}): the index of the first row not yet in the list. */
  rowsFrom: Map<string, number>;
  /** Rows a steps section draws at once: a plan shown for the first time draws its first screen, the rest after. */
  firstRows: number;
}

let current: Rendered | undefined;

/** Step rows drawn with a plan shown for the first time; a longer plan's other rows follow, {@link ROWS_PER_FRAME} a frame. */
const FIRST_ROWS = 60;
const ROWS_PER_FRAME = 120;

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

/** Renders a plan item whole. */
export function renderPlan(item: PlanItemView): HTMLElement {
  // Shown again (a snapshot of the item on screen): all rows at once, so the scroll position the user had stays.
  const again = current?.item.rootId === item.rootId;
  current = {
    item,
    articles: new Map(),
    stepSections: new Map(),
    rows: new Map(),
    rowsFrom: new Map(),
    firstRows: again ? Infinity : FIRST_ROWS,
  };
  const root = item.plans[item.rootId];
  return h('div', { class: 'plan' }, root ? renderPlanBody(root) : null);
}

/**
 * Re-renders what changed in the plan item on screen: plan heads (`heads`, by plan id) and step rows (`steps`, by
 * `stepKey`). Returns false when the item on screen is not one these keys can be found in (render it whole then).
 */
export function updatePlan(item: PlanItemView, heads: ReadonlySet<string>, steps: ReadonlySet<string>): boolean {
  if (!current || current.item.rootId !== item.rootId) return false;
  const before = current.item;
  current.item = item;
  const r = current;
  let stepKeys = steps;
  // Approved (or otherwise no longer editable): the rows lose their Skip buttons and edit controls in place — a
  // 1,000-step plan is not rendered again for that. A row with an argument editor open is rendered again whole.
  for (const planId of heads) {
    if (!before.plans[planId]?.editable || item.plans[planId]?.editable !== false) continue;
    const section = r.stepSections.get(planId);
    if (!section) continue;
    for (const el of Array.from(section.querySelectorAll<HTMLElement>('.pre-approval, details.args textarea'))) {
      const row = el.closest<HTMLElement>('li.step');
      if (!row || row.closest('article') !== r.articles.get(planId)) continue; // a nested plan's own controls
      if (el instanceof HTMLTextAreaElement) stepKeys = new Set([...stepKeys, stepKey(planId, Number(row.dataset.step) - 1)]);
      else el.remove();
    }
  }
  for (const key of stepKeys) {
    const [planId, index] = key.split('\u0000') as [string, string];
    const row = r.rows.get(key);
    const step = item.plans[planId]?.steps[Number(index)];
    if (!row || !step || !row.isConnected) {
      // A row still to be added is added from the latest view, this change included.
      if (!row && Number(index) >= (r.rowsFrom.get(planId) ?? Infinity)) continue;
      if (r.articles.get(planId)?.isConnected) return false;
      continue; // a row of a nested plan that is not on screen (its parent's row shows it when it is)
    }
    replaceKeepingFocus(row, renderStep(item.plans[planId]!, step));
  }
  for (const planId of heads) {
    const article = r.articles.get(planId);
    const plan = item.plans[planId];
    if (!plan) continue;
    if (!article || !article.isConnected) {
      if (planId === item.rootId) return false;
      continue;
    }
    const steps = r.stepSections.get(planId);
    if (steps && steps.parentElement === article) replaceHead(article, steps, plan);
    else replaceKeepingFocus(article, renderPlanBody(plan));
  }
  return true;
}

/**
 * Builds a plan's head again around its steps section, which stays where it is, and puts in only the head's parts
 * that differ from what is on screen: while a long plan runs only the action bar's "Running step k of n" changes, so
 * only that is replaced — no relayout of the other parts or of the 1,000 rows below, and the focus, the typed text
 * and the scroll stay where the user left them. Parts are compared as DOM (tag, attributes, text); what a button's
 * handler depends on is in its attributes (e.g. the approval it sends).
 */
function replaceHead(article: HTMLElement, steps: HTMLElement, plan: PlanView): void {
  const marker = h('span', null);
  const fresh = Array.from(renderPlanBody(plan, marker).children) as HTMLElement[];
  current?.articles.set(plan.id, article);
  current?.stepSections.set(plan.id, steps);
  const old = Array.from(article.children) as HTMLElement[];
  const at = old.indexOf(steps);
  const cut = fresh.indexOf(marker);
  morphChildren(article, old.slice(0, at), fresh.slice(0, cut), steps);
  morphChildren(article, old.slice(at + 1), fresh.slice(cut + 1), null);
}

/** Makes `old` (children of `parent`, before `anchor`) look like `fresh`, replacing only the children that differ. */
function morphChildren(parent: HTMLElement, old: HTMLElement[], fresh: HTMLElement[], anchor: HTMLElement | null): void {
  if (old.length === fresh.length) {
    old.forEach((o, i) => {
      if (!o.isEqualNode(fresh[i]!)) replaceKeepingFocus(o, fresh[i]!);
    });
    return;
  }
  // A part came or went (a warning, the changes section): put the new parts in, keeping the focus where it can be.
  swapKeepingFocus(old, fresh, () => {
    for (const f of fresh) parent.insertBefore(f, anchor);
    for (const o of old) o.remove();
  });
}

/** Replaces `old` with `fresh`, keeping the focus (and the text selection) inside it where the user had it. */
function replaceKeepingFocus(old: HTMLElement, fresh: HTMLElement): void {
  swapKeepingFocus([old], [fresh], () => old.replaceWith(fresh));
}

/**
 * Runs `swap`, which puts `fresh` where `old` was; if the focus was inside `old`, it goes to the same control in
 * `fresh` (by id, else by position among the focusable controls), with its text selection.
 */
function swapKeepingFocus(old: HTMLElement[], fresh: HTMLElement[], swap: () => void): void {
  const active = document.activeElement as HTMLElement | null;
  if (!active || active === document.body || !old.some((o) => o.contains(active))) {
    swap();
    return;
  }
  const focusable = (els: HTMLElement[]) =>
    els.flatMap((el) => [...(el.matches(FOCUSABLE) ? [el] : []), ...Array.from(el.querySelectorAll<HTMLElement>(FOCUSABLE))]);
  const id = active.id;
  const index = focusable(old).indexOf(active);
  const selection =
    active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement ? [active.selectionStart, active.selectionEnd] : undefined;
  swap();
  const el = (id && document.getElementById(id)) || (index >= 0 ? focusable(fresh)[index] : undefined);
  if (!el) return;
  el.focus({ preventScroll: true });
  if (selection && (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
    try {
      el.setSelectionRange(selection[0], selection[1]);
    } catch {
      /* not a text input */
    }
  }
}

/** The controls that can hold the focus, for putting it back after a re-render. */
export const FOCUSABLE = 'button, input, select, textarea, summary, [tabindex]';

/** A plan's article; `steps`: the steps section already on screen, kept as it is (a head-only re-render). */
function renderPlanBody(plan: PlanView, steps?: HTMLElement): HTMLElement {
  const depth = plan.depth > 0 ? 1 : 0;
  const root = h('article', {
    class: depth > 0 ? 'nested-plan' : 'top-plan',
    aria: { label: depth > 0 ? `Nested plan ${plan.id}` : 'Plan' },
  });
  current?.articles.set(plan.id, root);
  const heading = depth > 0 ? h('h3', null, 'Nested plan') : h('h1', { id: 'plan-title' }, 'Plan');
  root.append(
    h(
      'header',
      { class: 'plan-header' },
      heading,
      h('span', { class: `badge phase-${plan.phase} outcome-${plan.outcome ?? 'none'}` }, plan.phaseLabel),
      h('span', { class: 'badge status-' + plan.serverStatus, title: 'The status the server sent with the plan' }, plan.serverStatusLabel),
      h('span', { class: 'origin' }, icon('server'), ' ', visible(plan.origin.server), ' · ', h('code', null, visible(plan.origin.tool))),
    ),
  );
  if (plan.lineage.length) {
    root.append(
      h(
        'p',
        { class: 'lineage' },
        `Replaces ${plan.lineage.length} earlier plan${plan.lineage.length > 1 ? 's' : ''} (re-planned after your answers).`,
      ),
    );
  }
  root.append(h('p', { class: 'instruction' }, visible(clip(plan.instruction || '(no instruction)', 20000))));
  if (plan.reapproval)
    root.append(h('p', { class: 'reapproval', role: 'alert' }, icon('warning'), ' ', visible(clip(plan.reapproval, 2000))));
  if (plan.approvalNote)
    root.append(h('p', { class: 'approval-note' }, icon('note'), ' Approved with your note: ', h('q', null, visible(plan.approvalNote))));

  // After the run, what it changed (and Revert) comes first: below the steps it sat under the fold, behind the
  // follow-up bar pinned at the bottom.
  if (plan.changes) root.append(renderChanges(plan));
  if (plan.safety) root.append(renderSafety(plan));
  const predicted = depth === 0 ? renderPredicted(plan) : null;
  if (predicted) root.append(predicted);
  if (plan.warnings.length) root.append(renderIssues('Warnings', plan.warnings, 'warning'));
  if (plan.notOk) root.append(...renderNotOk(plan));
  if (plan.stepCount) root.append(steps ?? renderSteps(plan));
  root.append(renderActions(plan));
  if (plan.correlationId) root.append(h('p', { class: 'muted' }, 'Correlation id: ', h('code', null, visible(plan.correlationId))));
  return root;
}

function renderSafety(plan: PlanHeadView): HTMLElement {
  const safety = plan.safety!;
  const writes = safety.writesCode;
  const rows: HTMLElement[] = [];
  rows.push(
    h(
      'p',
      { class: writes ? 'writes-code' : '' },
      icon(writes ? 'edit' : 'eye'),
      ' ',
      writes === undefined ? 'Writes code: not declared' : writes ? 'Writes code: yes' : 'Writes code: no',
    ),
  );
  if (safety.hintSummary) {
    const destructive = safety.destructive;
    rows.push(
      h(
        'p',
        {
          class: `tool-hints${destructive ? ' has-destructive' : ''}`,
          title: "What the steps' tools say about themselves (MCP tool annotations). These are the server's hints, not guarantees.",
        },
        icon(destructive ? 'warning' : 'info'),
        ' ',
        safety.hintSummary,
      ),
    );
  }
  const touched: TouchedGlobView[] | undefined = safety.touched;
  if (safety.globs.length === 0) rows.push(h('p', { class: 'muted' }, 'Touched files: none declared.'));
  else {
    const list = h('ul', { class: 'globs' });
    for (const glob of safety.globs) {
      const resolved = touched?.find((t) => t.glob === glob);
      const key = `glob:${plan.id}:${glob}`;
      const count = resolved ? globCount(resolved.count, plan.phase === 'awaiting_approval') : 'counting…';
      const summary = h(
        'summary',
        null,
        h('code', null, visible(glob)),
        ' — ',
        count,
        resolved?.outside ? h('span', { class: 'flag danger' }, icon('warning'), ' outside the workspace') : null,
        resolved?.note ? h('span', { class: 'muted' }, ` (${visible(resolved.note)})`) : null,
      );
      const details = h(
        'details',
        {
          open: ui.open[key],
          ontoggle: (e) => {
            ui.open[key] = (e.target as HTMLDetailsElement).open;
            saveUi();
          },
        },
        summary,
        resolved && resolved.files.length
          ? h(
              'ul',
              { class: 'files' },
              resolved.files.map((f) => h('li', null, h('code', null, visible(f)))),
              resolved.count > resolved.files.length
                ? h('li', { class: 'muted' }, `… and ${resolved.count - resolved.files.length} more`)
                : null,
            )
          : h('p', { class: 'muted' }, resolved ? 'No file matches yet (the plan may create them).' : 'Resolving…'),
      );
      list.append(h('li', null, details));
    }
    rows.push(h('div', null, h('p', null, 'Touched files:'), list));
  }
  return section('Safety', ...rows);
}

/**
 * How many files a glob matches. Before the run it is what matches now, not what the plan will touch: "0 files" there
 * read as "touches nothing" for a plan that creates its files.
 */
function globCount(count: number, beforeRun: boolean): string {
  if (count === 0) return beforeRun ? 'no file matches yet' : 'no file matches';
  const files = `${count} file${count === 1 ? '' : 's'}`;
  return beforeRun ? `${files} match${count === 1 ? 'es' : ''} now` : files;
}

function renderPredicted(plan: PlanView): HTMLElement | null {
  if (plan.predicting)
    return section(
      'Predicted changes',
      h('p', { class: 'muted' }, icon('loading codicon-modifier-spin'), ' Predicting what the steps will write…'),
    );
  const predicted = plan.predicted;
  if (!predicted || predicted.length === 0) return null; // no step says in advance what it writes: nothing to show
  const CHANGE = { create: 'create', modify: 'modify', delete: 'delete' } as const;
  return section(
    `Predicted changes (${predicted.length})`,
    h('p', { class: 'muted' }, "Nothing is written before you approve. Open a file to see the step's change as a diff."),
    h(
      'ul',
      { class: 'files predicted', aria: { label: 'Predicted file changes' } },
      predicted.map((p, index) =>
        h(
          'li',
          { class: p.error ? 'error' : '' },
          h('span', { class: 'flag' }, `step ${p.step + 1}`),
          ' ',
          h('code', null, visible(p.path)),
          ' ',
          p.error
            ? null
            : h(
                'span',
                { class: 'muted' },
                `${CHANGE[p.change]}${p.source === 'dryRun' ? ` (from a dry run on server ${visible(plan.steps[p.step]?.server ?? '?')})` : ''}`,
              ),
          !p.inside ? h('span', { class: 'flag danger' }, icon('warning'), ' outside the workspace') : null,
          p.press
            ? previewButton(plan.id, p.step, p.error ?? '')
            : p.error && p.error.startsWith('Not previewed:')
              ? h('div', { class: 'muted' }, icon('info'), ' ', visible(p.error))
              : p.error
                ? h('div', { class: 'step-error' }, icon('error'), ' ', visible(p.error))
                : h(
                    'button',
                    {
                      class: 'link',
                      aria: { label: `Open the predicted diff of ${p.path}` },
                      onclick: () => post({ type: 'openPredicted', planId: plan.id, index }),
                    },
                    'Open the predicted diff',
                  ),
        ),
      ),
    ),
  );
}

/**
 * A step whose dry run waits for the user (the policy asks about it, or it runs on another server): why, and **Preview**,
 * which sends it through the door (the single-call card asks where the policy asks).
 */
function previewButton(planId: string, step: number, why: string): HTMLElement {
  const err = errorSlot(`preview-error-${planId}-${step}`);
  return h(
    'div',
    { class: 'preview-wait' },
    h('div', { class: 'muted' }, icon('shield'), ' ', visible(why)),
    h(
      'div',
      { class: 'buttons small' },
      h(
        'button',
        {
          class: 'secondary',
          aria: { label: `Preview step ${step + 1}` },
          title: "Sends the step's dry run (its arguments with the dry-run flag set); nothing is written",
          onclick: async (e) => {
            const button = e.currentTarget as HTMLButtonElement;
            button.disabled = true;
            if (!(await act(err, { type: 'previewStep', planId, step }))) button.disabled = false;
          },
        },
        icon('eye'),
        ' Preview',
      ),
    ),
    err,
  );
}

function renderChanges(plan: PlanHeadView): HTMLElement {
  const changes = plan.changes ?? [];
  const err = errorSlot(`revert-error-${plan.id}`);
  if (changes.length === 0)
    return section(
      'Changes',
      h(
        'p',
        { class: 'muted' },
        plan.reverted ? 'Reverted: the files match how they were before the plan.' : 'The plan changed no file that Plangate watched.',
      ),
    );
  const undeclared = changes.filter((c) => c.undeclared).length;
  return section(
    `Changes (${changes.length})`,
    undeclared
      ? h(
          'p',
          { class: 'warning-text', role: 'status' },
          icon('warning'),
          ` ${undeclared} undeclared write${undeclared === 1 ? '' : 's'}: outside the globs the plan declared.`,
        )
      : null,
    h(
      'ul',
      { class: 'files changes', aria: { label: 'Changed files' } },
      changes.map((c) =>
        h(
          'li',
          null,
          icon(c.kind === 'created' ? 'diff-added' : c.kind === 'deleted' ? 'diff-removed' : 'diff-modified'),
          ' ',
          h('code', null, visible(c.path)),
          ' ',
          h('span', { class: 'muted' }, c.kind),
          c.undeclared ? h('span', { class: 'flag danger' }, icon('warning'), ' undeclared write') : null,
          c.unexpectedCode ? h('span', { class: 'flag danger' }, icon('code'), ' code changed, but the plan said it writes no code') : null,
          ' ',
          h(
            'button',
            {
              class: 'link',
              aria: { label: `Open diff of ${c.path}` },
              onclick: () => post({ type: 'openChange', planId: plan.id, path: c.path }),
            },
            'Open diff',
          ),
          ' ',
          c.revertable
            ? h(
                'button',
                {
                  class: 'link',
                  aria: { label: `Revert file ${c.path}` },
                  onclick: () => void act(err, { type: 'revert', planId: plan.id, path: c.path }),
                },
                'Revert file',
              )
            : h('span', { class: 'muted' }, ` (${visible(c.note ?? 'cannot be reverted')})`),
        ),
      ),
    ),
    h(
      'div',
      { class: 'buttons' },
      h('button', { class: 'secondary', onclick: () => void act(err, { type: 'revert', planId: plan.id }) }, icon('discard'), ' Revert'),
    ),
    err,
  );
}

function renderIssues(title: string, issues: IssueView[], kind: 'error' | 'warning'): HTMLElement {
  return section(
    title,
    h(
      'ul',
      { class: `issues ${kind}` },
      issues.map((i) =>
        h(
          'li',
          null,
          icon(kind === 'error' ? 'error' : 'warning'),
          ' ',
          i.code ? h('code', null, visible(i.code)) : null,
          ' ',
          i.field ? h('strong', null, visible(i.field), ': ') : null,
          visible(i.message),
          i.hint ? h('div', { class: 'hint' }, 'Hint: ', visible(i.hint)) : null,
          i.recoverable === false ? h('div', { class: 'muted' }, 'Not recoverable.') : null,
        ),
      ),
    ),
  );
}

function renderNotOk(plan: PlanHeadView): HTMLElement[] {
  const notOk = plan.notOk!;
  const out: HTMLElement[] = [];
  out.push(
    h(
      'p',
      { class: 'notice' },
      icon('info'),
      ' ',
      `The server answered with status "${plan.serverStatus}": this plan has nothing to approve.`,
      plan.serverStatus === 'partial' ? ' Part of the work is done; see below.' : '',
    ),
  );
  if (notOk.errors.length) out.push(renderIssues('Errors', notOk.errors, 'error'));
  if (notOk.missing.length)
    out.push(
      section(
        'Missing',
        h(
          'p',
          null,
          'The server needs: ',
          notOk.missing.map((m, i) => [i ? ', ' : '', h('code', null, visible(m))]),
        ),
      ),
    );
  if (notOk.partialResults.length) {
    out.push(
      section(
        'Partial results',
        h(
          'ul',
          { class: 'checklist' },
          notOk.partialResults.map((r) =>
            h(
              'li',
              { class: `outcome-${r.outcome}` },
              icon(r.outcome === 'ok' ? 'pass' : r.outcome === 'failed' ? 'error' : 'debug-step-over'),
              ' ',
              h('code', null, visible(r.step)),
              ` — ${r.outcome}`,
              r.detail ? `: ${visible(r.detail)}` : '',
            ),
          ),
        ),
      ),
    );
  }
  if (notOk.ask?.answerable) out.push(renderAskForm(plan.id, notOk.ask));
  else if (notOk.ask) out.push(section('Question', h('p', null, visible(notOk.ask.prompt))));
  if (notOk.recovery.length) {
    const err = errorSlot(`recovery-error-${plan.id}`);
    out.push(
      section(
        'Recovery actions',
        h(
          'div',
          { class: 'buttons' },
          notOk.recovery.map((a, index) =>
            h(
              'button',
              {
                class: 'secondary',
                disabled: notOk.recoveryDisabled,
                title: a.argsText,
                onclick: () => void act(err, { type: 'runRecovery', planId: plan.id, index }),
              },
              a.confirm ? icon('shield') : icon('wrench'),
              ' ',
              visible(a.label),
              a.confirm ? ' (asks first)' : '',
            ),
          ),
        ),
        err,
      ),
    );
  }
  return out;
}

function fieldInput(idBase: string, field: AskFieldView, draftKey: string): HTMLElement {
  const id = `${idBase}-${field.name}`;
  const value = ui.drafts[`${draftKey}:${field.name}`] ?? '';
  const save = (e: Event) => {
    ui.drafts[`${draftKey}:${field.name}`] = (e.target as HTMLInputElement).value;
    saveUi();
  };
  const label = h(
    'label',
    { for: id },
    visible(field.name),
    field.required ? h('span', { class: 'required', aria: { hidden: 'true' } }, ' *') : null,
  );
  let input: HTMLElement;
  if (field.type === 'select' && field.options?.length) {
    input = h(
      'select',
      { id, name: field.name, required: field.required, onchange: save },
      h('option', { value: '' }, '— choose —'),
      field.options.map((o) => h('option', { value: o, selected: o === value }, visible(o))),
    );
  } else {
    input = h('input', {
      id,
      name: field.name,
      type: field.type === 'number' ? 'number' : 'text',
      value,
      required: field.required,
      oninput: save,
      step: field.type === 'number' ? 'any' : undefined,
    });
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
function renderAskForm(planId: string, ask: NonNullable<NonNullable<PlanHeadView['notOk']>['ask']>): HTMLElement {
  const fields = ask.fields;
  const err = errorSlot(`ask-error-${planId}`);
  // The call the button makes, shown above it and updated as the user types: what is shown is what is sent (the
  // extension refuses an answer whose shown arguments are not the ones it would send).
  let shown: Record<string, unknown> = {};
  const callArgs = h('div', { class: 'ask-call-args' });
  const update = () => {
    shown = askCallArgs(ask.call.args, fields, readForm(form));
    callArgs.replaceChildren(argsBlock(json(shown), `Arguments Answer and re-plan sends to ${ask.call.tool}`));
  };
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'ask-form',
      oninput: update,
      onchange: update,
      onsubmit: (e) => {
        e.preventDefault();
        if (!form.reportValidity()) return;
        update();
        void act(err, { type: 'answerAsk', planId, values: readForm(form), shown });
      },
    },
    h('p', null, visible(ask.prompt)),
    fields.map((f) => fieldInput(`ask-${planId}`, f, `ask:${planId}`)),
    fields.length === 0 ? h('p', { class: 'muted' }, 'The server asks no specific field; submitting calls the planning tool again.') : null,
    h(
      'p',
      { class: 'ask-call' },
      icon('server'),
      ' Answer and re-plan calls ',
      h('code', { class: 'ask-call-target' }, `${visible(ask.call.server)} / ${visible(ask.call.tool)}`),
      ' with these arguments (your answers merged in):',
    ),
    callArgs,
    h('div', { class: 'buttons' }, h('button', { type: 'submit' }, icon('refresh'), ' Answer and re-plan')),
    err,
  );
  update();
  return section('Your answer', form);
}

/**
 * The steps section. A long plan is readable and its buttons usable as soon as its first screen of rows is drawn;
 * the other rows are added in the frames after it (a thousand rows at once would hold the first paint for the time
 * it takes to build them all). A row added later is built from the latest view, so a change that arrives in between
 * is not lost.
 */
function renderSteps(plan: PlanView): HTMLElement {
  const list = h('ol', { class: 'steps', aria: { label: 'Steps' } });
  const first = current?.firstRows ?? Infinity;
  for (const step of plan.steps.slice(0, first)) list.append(renderStep(plan, step));
  const el = section(`Steps (${plan.stepCount})`, list);
  current?.stepSections.set(plan.id, el);
  if (current && plan.steps.length > first) addRows(current, plan.id, list, first);
  else list.dataset.complete = 'true';
  return el;
}

/** Adds the rows of plan `planId` from index `from` in the next frame, and so on until all are in `list`. */
function addRows(rendered: Rendered, planId: string, list: HTMLElement, from: number): void {
  rendered.rowsFrom.set(planId, from);
  requestAnimationFrame(() => {
    const plan = rendered.item.plans[planId];
    // Rendered again since (a whole render builds its own list): this one is done.
    if (current !== rendered || !plan || !list.isConnected) return;
    const end = Math.min(plan.steps.length, from + ROWS_PER_FRAME);
    const rows = document.createDocumentFragment();
    for (let i = from; i < end; i++) rows.append(renderStep(plan, plan.steps[i]!));
    list.append(rows);
    if (end < plan.steps.length) addRows(rendered, planId, list, end);
    else {
      rendered.rowsFrom.delete(planId);
      list.dataset.complete = 'true';
    }
  });
}

function renderStep(plan: PlanHeadView, step: StepView): HTMLElement {
  const li = h('li', {
    class: `step state-${step.state}`,
    data: { step: String(step.index + 1) },
    aria: { label: `Step ${step.index + 1}: ${step.label}` },
  });
  current?.rows.set(stepKey(plan.id, step.index), li);
  li.append(
    h(
      'div',
      { class: 'step-head' },
      h('span', { class: `step-state codicon codicon-${STEP_ICON[step.state]}`, title: step.stateText, aria: { hidden: 'true' } }),
      h('span', { class: 'step-num' }, `${step.index + 1}.`),
      h('span', { class: 'step-label' }, visible(step.label)),
      step.hasLabel ? h('code', { class: 'step-tool' }, visible(step.tool)) : null,
      hintFlag(step.hint),
      step.hint?.openWorld
        ? h(
            'span',
            { class: 'flag', title: 'The tool says it reaches systems outside this machine (openWorldHint).' },
            icon('globe'),
            ' open world',
          )
        : null,
      step.confirm ? h('span', { class: 'flag' }, icon('shield'), ' asks to confirm') : null,
      step.asksUser ? h('span', { class: 'flag' }, icon('comment'), ' asks you') : null,
      !step.asksUser && step.server && !step.crossServer
        ? h(
            'span',
            {
              class: 'step-server',
              title: `Runs on server ${visible(step.server)} (the approval covers this server and the tool as it lists it)`,
            },
            icon('server'),
            ' ',
            visible(step.server),
          )
        : null,
      step.crossServer
        ? h(
            'span',
            { class: 'flag', title: `Runs on server ${step.server ?? ''}` },
            icon('arrow-swap'),
            ' other server',
            step.server ? `: ${visible(step.server)}` : '',
          )
        : null,
      step.unresolved
        ? h('span', { class: 'flag step-unresolved', title: visible(step.unresolved) }, icon('error'), ' no server offers it')
        : null,
      step.edited ? h('span', { class: 'flag edited' }, icon('edit'), ' edited') : null,
      step.skipRequested && plan.editable ? h('span', { class: 'flag pre-approval' }, 'will be skipped') : null,
      h('span', { class: 'step-state-text' }, step.stateText),
      plan.editable && step.state === 'pending' ? skipButton(plan.id, step) : null,
    ),
  );
  if (step.reviewChange) li.append(renderReviewChange(plan, step, step.reviewChange));
  if (step.definition) li.append(renderToolDefinition(plan, step, step.definition));
  if (step.progress) {
    const { progress, total, message } = step.progress;
    li.append(
      h(
        'div',
        { class: 'progress' },
        total ? h('progress', { value: String(progress), max: String(total), aria: { label: `Step ${step.index + 1} progress` } }) : null,
        h('span', null, total ? ` ${progress}/${total}` : ` ${progress}`, message ? ` — ${visible(message)}` : ''),
      ),
    );
  }
  if (step.error) li.append(h('div', { class: 'step-error', role: 'alert' }, icon('error'), ' ', visible(clip(step.error, 4000))));
  if (step.summary) li.append(renderSummary(step.summary));
  if (step.app) li.append(openAppButton(plan.id, step, step.app));
  // Policy (callCard.ts): a step the policy denies is marked before approval.
  const mark = step.state === 'pending' || step.state === 'failed' ? policyMark(step.policy) : null;
  if (mark) li.append(mark);

  li.append(renderArgs(plan, step));
  if (step.prompt) li.append(renderPrompt(step.prompt));
  const child = step.childPlanId && current?.item.plans[step.childPlanId];
  if (child) li.append(renderPlanBody(child));
  return li;
}

/**
 * The step's tool as its server lists it: its title and the first line of its description, expandable (a details
 * element: keyboard and screen reader work as usual) to the whole definition — description, input schema, and all of
 * it as JSON. Built when opened, from the plan's `tools` as last received.
 */
function renderToolDefinition(plan: PlanHeadView, step: StepView, tool: ToolSummaryView): HTMLElement {
  const key = `tool:${plan.id}:${step.index}`;
  const details = h(
    'details',
    {
      class: 'tool-def',
      open: ui.open[key] === true,
      ontoggle: () => {
        ui.open[key] = details.open;
        saveUi();
        if (details.open && !body.hasChildNodes()) fill();
      },
    },
    // The summary's name is its visible text with a hidden lead-in (an aria-label would hide the description it shows).
    h(
      'summary',
      null,
      h('span', { class: 'sr-only' }, `Tool of step ${step.index + 1}, as the server lists it: `),
      icon('tools'),
      ' ',
      tool.title ? h('span', { class: 'tool-title' }, visible(tool.title)) : h('code', null, visible(step.tool)),
      tool.summary
        ? h('span', { class: 'tool-summary' }, ` — ${visible(clip(tool.summary, 300))}`)
        : h('span', { class: 'tool-summary muted' }, ' — no description'),
    ),
  );
  const body = h('div', { class: 'tool-def-body' });
  const fill = () => {
    const whole = headNow(plan).tools?.[tool.hash];
    if (!whole) {
      body.append(h('p', { class: 'muted' }, 'The whole definition is not known in this window any more.'));
      return;
    }
    body.append(
      h('h4', null, 'Description'),
      h('pre', { class: 'text-block' }, whole.description ? visible(whole.description) : '(none)'),
      h('h4', null, 'Input schema'),
      h('pre', { class: 'json' }, whole.inputSchema ? visible(whole.inputSchema) : '(none)'),
      h(
        'details',
        { class: 'tool-def-json' },
        h('summary', null, 'Everything the server lists (JSON)'),
        h('pre', { class: 'json' }, visible(whole.json)),
      ),
    );
  };
  details.append(body);
  if (details.open) fill();
  return details;
}

/**
 * A step whose server or tool definition changed while the plan waited: what changed in words, the earlier view
 * against the new one (a line diff), and Accept change — until then Approve is refused.
 */
function renderReviewChange(plan: PlanHeadView, step: StepView, change: StepChangeView): HTMLElement {
  const err = errorSlot(`change-error-${plan.id}-${step.index}`);
  const planId = plan.id;
  return h(
    'div',
    { class: 'review-change', role: 'status' },
    h('p', null, icon('warning'), ' ', h('strong', null, visible(change.text))),
    change.diff.length
      ? h(
          'details',
          { class: 'review-diff' },
          h('summary', null, 'See what changed'),
          h(
            'pre',
            { class: 'diff', aria: { label: `What changed at step ${step.index + 1}: earlier lines marked -, new lines +` } },
            change.diff.map((l) =>
              h('span', { class: l.kind }, `${l.kind === 'added' ? '+ ' : l.kind === 'removed' ? '- ' : '  '}${visible(l.text)}\n`),
            ),
          ),
        )
      : h(
          'p',
          { class: 'muted' },
          'The earlier definition is not known in this window; expand the tool below to read the one that will run.',
        ),
    plan.editable
      ? h(
          'div',
          { class: 'buttons small' },
          h(
            'button',
            {
              class: 'secondary',
              aria: { label: `Accept the change to step ${step.index + 1}` },
              title: 'You read what changed; Approve and run then covers the step as it is now',
              onclick: () => {
                const actions = headNow(plan).actions;
                void act(err, {
                  type: 'acceptChange',
                  planId,
                  step: step.index,
                  shownHash: actions.kind === 'approve' ? (actions.shownHash ?? '') : '',
                });
              },
            },
            icon('check'),
            ' Accept change',
          ),
        )
      : null,
    err,
  );
}

const HINT_FLAGS: Record<Exclude<StepEffect, 'unknown'>, { text: string; icon: string; title: string; cls: string }> = {
  read: {
    text: 'read-only',
    icon: 'eye',
    cls: 'hint-read',
    title: 'The tool says it only reads (readOnlyHint); a hint from the server, not a guarantee.',
  },
  write: {
    text: 'writes',
    icon: 'save',
    cls: 'hint-write',
    title: 'The tool says it changes things, but nothing destructive (destructiveHint: false).',
  },
  destructive: {
    text: 'destructive',
    icon: 'warning',
    cls: 'hint-destructive',
    title: 'The tool says it may delete or overwrite data (destructiveHint).',
  },
};

/** A step's effect as its tool declares it; nothing for tools that give no hint. */
function hintFlag(hint: StepHint | undefined): HTMLElement | null {
  if (!hint || hint.effect === 'unknown') return null;
  const f = HINT_FLAGS[hint.effect];
  return h(
    'span',
    { class: `flag ${f.cls}`, title: f.title + (hint.idempotent ? ' Running it twice does no more than once (idempotentHint).' : '') },
    icon(f.icon),
    ` ${f.text}`,
  );
}

/** Per-step Skip before approval: a toggle whose accessible name says which step. */
function skipButton(planId: string, step: StepView): HTMLElement {
  // One element per row (a long plan has a thousand): the error slot is made only when there is an error to show.
  const button = h(
    'button',
    {
      class: 'secondary small skip pre-approval',
      id: `skip-${planId}-${step.index}`,
      aria: { pressed: String(step.skipRequested), label: `Skip step ${step.index + 1}` },
      title: step.skipRequested ? 'This step will be skipped; press to run it after all' : 'Do not run this step',
      onclick: () =>
        void act(slotAfter(button, `skip-error-${planId}-${step.index}`), {
          type: 'skip',
          planId,
          step: step.index,
          skip: !step.skipRequested,
        }),
    },
    step.skipRequested ? icon('debug-step-over') : null,
    'Skip',
  );
  return button;
}

/**
 * A step whose tool has a server app: a button that opens the app with the step's result as a panel item of its own.
 * Only steps with apps get it, and no frame exists until it is pressed.
 */
function openAppButton(planId: string, step: StepView, uri: string): HTMLElement {
  const button = h(
    'button',
    {
      class: 'secondary small open-app',
      title: `Shows the server's app (${uri}) with this step's result; its tool calls ask you first`,
      aria: { label: `Open the app of step ${step.index + 1}` },
      onclick: () => {
        const id = `app-error-${planId}-${step.index}`;
        const next = button.nextElementSibling;
        const slot = next instanceof HTMLElement && next.id === id ? next : errorSlot(id);
        if (slot !== next) button.after(slot);
        void act(slot, { type: 'openStepApp', planId, step: step.index });
      },
    },
    icon('window'),
    ' Open app',
  );
  return h('div', { class: 'step-app' }, button);
}

/** The error slot right after `anchor`, made (and put there) the first time it is needed. */
function slotAfter(anchor: HTMLElement, id: string): HTMLElement {
  const next = anchor.nextElementSibling;
  if (next instanceof HTMLElement && next.id === id) return next;
  const slot = errorSlot(id);
  slot.classList.add('pre-approval');
  anchor.after(slot);
  return slot;
}

/** A step's result: its first meaningful line, the whole (short) summary on demand. */
function renderSummary(summary: string): HTMLElement {
  const lines = summary
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^(`{3,}|~{3,})/.test(l) && !/^=+$/.test(l));
  const first = lines[0] ?? summary.trim();
  if (lines.length <= 1) return h('div', { class: 'step-summary' }, visible(clip(first, 300)));
  return h(
    'details',
    { class: 'step-summary' },
    h('summary', null, visible(clip(first, 160))),
    h('pre', { class: 'text-block' }, visible(clip(summary, 2000))),
  );
}

/** The head of plan `plan.id` as last received: a row's handlers outlive the head they were built with. */
function headNow(plan: PlanHeadView): PlanHeadView {
  return current?.item.plans[plan.id] ?? plan;
}

function renderArgs(plan: PlanHeadView, step: StepView): HTMLElement {
  const planId = plan.id;
  const editable = plan.editable;
  const key = `args:${planId}:${step.index}`;
  const draftKey = `edit:${planId}:${step.index}`;
  const editing = editable && ui.drafts[draftKey] !== undefined;
  if (!ui.open[key] && !editing) {
    // Closed: only the summary is built; the arguments (and their diff) are rendered when opened. Long plans
    // have thousands of steps, and most are never opened.
    const closed = h('details', { class: 'args' }, h('summary', null, `Arguments${Object.keys(step.args).length ? '' : ' (none)'}`));
    closed.addEventListener('toggle', () => {
      if (!closed.open) return;
      ui.open[key] = true;
      saveUi();
      const full = renderArgs(headNow(plan), step);
      closed.replaceWith(full);
      full.querySelector('summary')?.focus();
    });
    return closed;
  }
  const details = h(
    'details',
    {
      class: 'args',
      open: ui.open[key] || editing,
      ontoggle: (e) => {
        ui.open[key] = (e.target as HTMLDetailsElement).open;
        saveUi();
      },
    },
    h('summary', null, `Arguments${Object.keys(step.args).length ? '' : ' (none)'}`),
  );
  if (editing) {
    const err = errorSlot(`edit-error-${planId}-${step.index}`);
    const area = h('textarea', {
      id: `edit-${planId}-${step.index}`,
      rows: Math.min(20, Math.max(4, ui.drafts[draftKey].split('\n').length + 1)),
      aria: { label: `Arguments of step ${step.index + 1} as JSON` },
      value: ui.drafts[draftKey],
      oninput: (e) => {
        ui.drafts[draftKey] = (e.target as HTMLTextAreaElement).value;
        saveUi();
      },
    });
    details.append(
      area,
      h(
        'div',
        { class: 'buttons small' },
        h(
          'button',
          {
            onclick: async () => {
              if (await act(err, { type: 'editArgs', planId, step: step.index, argsJson: ui.drafts[draftKey] })) {
                delete ui.drafts[draftKey];
                saveUi();
                requestRender(); // the snapshot with the edit may already be on screen, still showing the editor
              }
            },
          },
          'Save arguments',
        ),
        h(
          'button',
          {
            class: 'secondary',
            onclick: () => {
              delete ui.drafts[draftKey];
              saveUi();
              details.replaceWith(renderArgs(headNow(plan), step));
            },
          },
          'Discard edit',
        ),
      ),
      err,
    );
  } else {
    details.append(argsBlock(json(step.args), `Arguments of step ${step.index + 1}`));
    if (step.edited) {
      const changes = diffLines(json(step.proposedArgs) + '\n', json(step.args) + '\n');
      details.append(
        h('p', { class: 'muted' }, 'Your change against what the server proposed:'),
        h(
          'pre',
          { class: 'diff', aria: { label: 'Argument changes' } },
          changes.map((c) =>
            h(
              'span',
              { class: c.added ? 'added' : c.removed ? 'removed' : 'same' },
              c.value
                .split('\n')
                .filter((l, i, a) => i < a.length - 1 || l)
                .map((l) => `${c.added ? '+ ' : c.removed ? '- ' : '  '}${visible(l)}\n`),
            ),
          ),
        ),
      );
    }
    if (editable) {
      const err = errorSlot(`reset-error-${planId}-${step.index}`);
      details.append(
        h(
          'div',
          { class: 'buttons small pre-approval' },
          h(
            'button',
            {
              class: 'secondary',
              aria: { label: `Edit arguments of step ${step.index + 1}` },
              onclick: () => {
                ui.drafts[draftKey] = editableJson(step.args);
                ui.open[key] = true;
                saveUi();
                details.replaceWith(renderArgs(headNow(plan), step));
                document.getElementById(`edit-${planId}-${step.index}`)?.focus();
              },
            },
            icon('edit'),
            ' Edit arguments',
          ),
          step.edited
            ? h(
                'button',
                { class: 'secondary', onclick: () => void act(err, { type: 'resetArgs', planId, step: step.index }) },
                'Restore proposed',
              )
            : null,
        ),
        err,
      );
    }
  }
  return details;
}

function renderPrompt(prompt: PendingPrompt): HTMLElement {
  const err = errorSlot(`prompt-error-${prompt.planId}-${prompt.step}`);
  if (prompt.kind === 'confirm') {
    return h(
      'div',
      { class: 'prompt', role: 'group', aria: { label: `Confirm step ${prompt.step + 1}` } },
      h('p', null, icon('shield'), ' This step asks for your confirmation before it runs.'),
      h(
        'div',
        { class: 'buttons' },
        h(
          'button',
          { onclick: () => void act(err, { type: 'confirmStep', planId: prompt.planId, step: prompt.step, granted: true }) },
          'Run step',
        ),
        h(
          'button',
          {
            class: 'secondary',
            onclick: () => void act(err, { type: 'confirmStep', planId: prompt.planId, step: prompt.step, granted: false }),
          },
          'Stop',
        ),
      ),
      err,
    );
  }
  const draftKey = `askUser:${prompt.planId}:${prompt.step}`;
  const form = h(
    'form',
    {
      class: 'ask-form',
      onsubmit: (e) => {
        e.preventDefault();
        if (!form.reportValidity()) return;
        void act(err, { type: 'answerAskUser', planId: prompt.planId, step: prompt.step, values: readForm(form) });
      },
    },
    h('p', null, icon('comment'), ' ', visible(prompt.prompt || 'The plan asks you:')),
    prompt.fields.map((f) => fieldInput(`askuser-${prompt.planId}-${prompt.step}`, f, draftKey)),
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'submit' }, 'Answer'),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () => void act(err, { type: 'answerAskUser', planId: prompt.planId, step: prompt.step }),
        },
        'Stop',
      ),
    ),
    err,
  );
  return h('div', { class: 'prompt' }, form);
}

function renderActions(plan: PlanHeadView): HTMLElement {
  const err = errorSlot(`actions-error-${plan.id}`);
  const bar = h('div', { class: 'actions', role: 'group', aria: { label: 'Plan actions' } });
  const actions = plan.actions;
  // Sticky only while a decision is pending: a finished plan's bar must not cover the content above it.
  const wrap = h('div', { class: `action-bar${actions.kind !== 'finished' ? ' sticky' : ''}` }, bar, err);
  const planId = plan.id;
  switch (actions.kind) {
    case 'approve': {
      // One note for either decision: instructions that go with an approval (the agent gets them), or the reason
      // for a rejection. Kept as a draft: an update that arrives while the user types (globs counted, another
      // plan's progress) may re-render the bar, and the text must survive that.
      const draftKey = `note:${planId}`;
      const note = h('input', {
        id: `decision-note-${planId}`,
        type: 'text',
        placeholder: 'Note (optional): instructions, or why you reject',
        aria: { label: 'Note with your decision (optional)' },
        title: 'Goes with Approve and run (kept with the plan; an agent that asked for it receives it) or with Reject (the reason).',
        value: ui.drafts[draftKey] ?? '',
        oninput: (e) => {
          ui.drafts[draftKey] = (e.target as HTMLInputElement).value;
          saveUi();
        },
      });
      const decide = async (message: Parameters<typeof request>[0]) => {
        if (await act(err, message)) {
          delete ui.drafts[draftKey];
          saveUi();
        }
      };
      bar.append(
        h(
          'button',
          {
            class: 'primary',
            id: `approve-${planId}`,
            data: { approval: actions.shownHash ?? '' },
            // Until each step's server is known the approval could not cover it: the button waits for the resolution.
            disabled: actions.resolving,
            title: actions.resolving ? 'Finding which server runs each step…' : 'Run exactly these steps, on the servers shown',
            onclick: () => void decide({ type: 'approve', planId, note: note.value.trim() || undefined, shownHash: actions.shownHash }),
          },
          icon('check'),
          ' Approve and run',
        ),
        h(
          'button',
          { class: 'secondary', onclick: () => void decide({ type: 'reject', planId, reason: note.value.trim() || undefined }) },
          icon('close'),
          ' Reject',
        ),
        note,
      );
      break;
    }
    case 'running':
      bar.append(
        h('span', { class: 'muted' }, actions.progress),
        h('button', { class: 'secondary', onclick: () => void act(err, { type: 'cancel', planId }) }, icon('debug-stop'), ' Cancel'),
      );
      break;
    case 'blocked':
      bar.append(
        h('p', { class: 'blocked-reason', role: 'status' }, icon('warning'), ' ', visible(actions.reason)),
        h(
          'button',
          { class: 'primary', onclick: () => void act(err, { type: 'retryStep', planId }) },
          icon('debug-restart'),
          ' Retry step',
        ),
        h(
          'button',
          { class: 'secondary', onclick: () => void act(err, { type: 'skipStep', planId }) },
          icon('debug-step-over'),
          ' Skip step',
        ),
        h('button', { class: 'secondary', onclick: () => void act(err, { type: 'stop', planId }) }, icon('debug-stop'), ' Stop'),
      );
      break;
    case 'followUp':
      bar.append(
        h('p', { class: 'follow-up' }, icon('pass'), ' All steps are done. ', h('strong', null, visible(actions.question))),
        h('button', { class: 'primary', onclick: () => void act(err, { type: 'followUp', planId, answer: 'yes' }) }, 'Yes'),
        h('button', { class: 'secondary', onclick: () => void act(err, { type: 'followUp', planId, answer: 'no' }) }, 'No'),
      );
      break;
    case 'finished':
      if (actions.outcome) bar.append(h('p', { class: 'outcome' }, visible(actions.outcome)));
      if (actions.exportable)
        bar.append(
          h('button', { class: 'secondary', onclick: () => post({ type: 'exportPlan', planId }) }, icon('export'), ' Export as JSON'),
        );
      break;
  }
  return wrap;
}
