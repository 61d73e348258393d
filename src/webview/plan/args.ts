/**
 * A step's arguments: shown whole, the edit from what the server proposed as a diff, and the editor (Edit
 * arguments, Save, Restore proposed) while the plan waits for approval.
 */
import { diffLines } from 'diff';
import type { PlanHeadView, StepView } from '../../shared/protocol/plan';
import { argsBlock } from '../base/argsBlock';
import { asyncHandler, editableJson, h, icon, json, visible } from '../base/dom';
import { requestRender, saveUi, ui } from '../base/messaging';
import { act, errorSlot } from './parts';
import { headNow } from './state';

export function renderArgs(plan: PlanHeadView, step: StepView): HTMLElement {
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
            onclick: asyncHandler(async () => {
              if (await act(err, { type: 'editArgs', planId, step: step.index, argsJson: ui.drafts[draftKey] })) {
                delete ui.drafts[draftKey];
                saveUi();
                requestRender(); // the snapshot with the edit may already be on screen, still showing the editor
              }
            }),
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
