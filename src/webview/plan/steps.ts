/**
 * A plan's steps: the list (a long plan's rows added a screenful a frame), each row with its state, hints, tool
 * definition, review marks, result, arguments and prompt.
 */
import type {
  PlanHeadView,
  PolicyMarkView,
  PlanView,
  StepEffect,
  StepHint,
  StepChangeView,
  StepStateView,
  StepTaskView,
  StepView,
  ToolSummaryView,
} from '../../shared/protocol/plan';
import { stepKey } from '../../shared/panelPatch';
import { clip, h, icon, visible } from '../base/dom';
import { saveUi, ui } from '../base/messaging';
import { resourceLinkRow } from '../base/resourceLinkRow';
import { renderArgs } from './args';
import { act, errorSlot, section, slotAfter } from './parts';
import { renderPrompt } from './prompt';
import { headNow, ROWS_PER_FRAME, shown, type Rendered } from './state';

/** How a nested plan is drawn inside the row of the step whose result it is (planView.ts's plan body). */
export type NestedPlan = (plan: PlanView) => HTMLElement;

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

/**
 * The steps section. A long plan is readable and its buttons usable as soon as its first screen of rows is drawn;
 * the other rows are added in the frames after it (a thousand rows at once would hold the first paint for the time
 * it takes to build them all). A row added later is built from the latest view, so a change that arrives in between
 * is not lost.
 */
export function renderSteps(plan: PlanView, nested: NestedPlan): HTMLElement {
  const list = h('ol', { class: 'steps', aria: { label: 'Steps' } });
  const first = shown.current?.firstRows ?? Infinity;
  for (const step of plan.steps.slice(0, first)) list.append(renderStep(plan, step, nested));
  const el = section(`Steps (${plan.stepCount})`, list);
  shown.current?.stepSections.set(plan.id, el);
  if (shown.current && plan.steps.length > first) addRows(shown.current, plan.id, list, first, nested);
  else list.dataset.complete = 'true';
  return el;
}

/** Adds the rows of plan `planId` from index `from` in the next frame, and so on until all are in `list`. */
function addRows(rendered: Rendered, planId: string, list: HTMLElement, from: number, nested: NestedPlan): void {
  rendered.rowsFrom.set(planId, from);
  requestAnimationFrame(() => {
    const plan = rendered.item.plans[planId];
    // Rendered again since (a whole render builds its own list): this one is done.
    if (shown.current !== rendered || !plan || !list.isConnected) return;
    const end = Math.min(plan.steps.length, from + ROWS_PER_FRAME);
    const rows = document.createDocumentFragment();
    for (let i = from; i < end; i++) rows.append(renderStep(plan, plan.steps[i]!, nested));
    list.append(rows);
    if (end < plan.steps.length) addRows(rendered, planId, list, end, nested);
    else {
      rendered.rowsFrom.delete(planId);
      list.dataset.complete = 'true';
    }
  });
}

export function renderStep(plan: PlanHeadView, step: StepView, nested: NestedPlan): HTMLElement {
  const li = h('li', {
    class: `step state-${step.state}`,
    data: { step: String(step.index + 1) },
    aria: { label: `Step ${step.index + 1}: ${step.label}` },
  });
  shown.current?.rows.set(stepKey(plan.id, step.index), li);
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
  if (step.task) li.append(renderTask(step.index, step.task));
  if (step.error) li.append(h('div', { class: 'step-error', role: 'alert' }, icon('error'), ' ', visible(clip(step.error, 4000))));
  if (step.summary) li.append(renderSummary(step.summary));
  if (step.links?.length)
    li.append(
      h(
        'div',
        { class: 'step-links', aria: { label: 'Resources the result links' } },
        step.links.map((l) => resourceLinkRow(l, l.server)),
      ),
    );
  if (step.app) li.append(openAppButton(plan.id, step, step.app));
  // Policy (callCard.ts): a step the policy denies is marked before approval.
  const mark = step.state === 'pending' || step.state === 'failed' ? policyMark(step.policy) : null;
  if (mark) li.append(mark);

  li.append(renderArgs(plan, step));
  if (step.prompt) li.append(renderPrompt(step.prompt));
  const child = step.childPlanId && shown.current?.item.plans[step.childPlanId];
  if (child) li.append(nested(child));
  return li;
}

/** The MCP task a step runs as: the server's status and message as they come (a live region), its id, what Cancel does. */
function renderTask(index: number, task: StepTaskView): HTMLElement {
  return h(
    'div',
    { class: 'step-task', role: 'status', aria: { label: `Step ${index + 1} task`, live: 'polite' } },
    icon('tasklist'),
    ' ',
    h('span', { class: 'step-task-status' }, `Task ${task.statusText}`),
    task.message ? h('span', { class: 'step-task-message' }, ` — ${visible(clip(task.message, 500))}`) : null,
    h('div', { class: 'step-task-note', title: `Task id: ${visible(clip(task.id, 200))}` }, task.note),
  );
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

/** The policy's mark on a plan step: a deny (the step cannot run) stands out; an ask or a rule's allow is quiet. */
export function policyMark(mark: PolicyMarkView | undefined): HTMLElement | null {
  if (!mark) return null;
  const denied = mark.decision === 'deny';
  return h(
    'p',
    { class: `step-policy policy-${mark.decision}${denied ? ' error-text' : ''}`, title: `Policy rule ${visible(mark.ruleId)}` },
    icon(denied ? 'circle-slash' : mark.decision === 'ask' ? 'shield' : 'pass'),
    ' ',
    denied ? 'Cannot run: ' : '',
    visible(mark.text),
  );
}
