/**
 * A plan's files: the changes predicted before approval (with Preview for a dry run that waits for the user) and
 * the changes a run made, with their diffs and Revert.
 */
import type { PlanHeadView, PlanView } from '../../shared/protocol/plan';
import { asyncHandler, h, icon, visible } from '../base/dom';
import { post } from '../base/messaging';
import { act, errorSlot, section } from './parts';

export function renderPredicted(plan: PlanView): HTMLElement | null {
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
          onclick: asyncHandler(async (e: MouseEvent) => {
            const button = e.currentTarget as HTMLButtonElement;
            button.disabled = true;
            if (!(await act(err, { type: 'previewStep', planId, step }))) button.disabled = false;
          }),
        },
        icon('eye'),
        ' Preview',
      ),
    ),
    err,
  );
}

export function renderChanges(plan: PlanHeadView): HTMLElement {
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
    // Revert only when something can be: a change outside the plan's checkpoint has no copy from before.
    changes.some((c) => c.revertable)
      ? h(
          'div',
          { class: 'buttons' },
          h(
            'button',
            { class: 'secondary', onclick: () => void act(err, { type: 'revert', planId: plan.id }) },
            icon('discard'),
            ' Revert',
          ),
        )
      : h('p', { class: 'muted' }, 'None of these can be reverted: Plangate has no copy of them from before the plan.'),
    err,
  );
}
