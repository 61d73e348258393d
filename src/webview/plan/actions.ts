/**
 * A plan's action bar: Approve and run / Reject with a note, Cancel while it runs, Retry / Skip / Stop when blocked,
 * the follow-up's Yes / No, and the outcome with Export once finished.
 */
import type { PlanHeadView } from '../../shared/protocol/plan';
import type { RequestParams } from '../../shared/protocol/panel';
import { h, icon, visible } from '../base/dom';
import { post, saveUi, ui } from '../base/messaging';
import { act, errorSlot } from './parts';

export function renderActions(plan: PlanHeadView): HTMLElement {
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
      const decide = async (message: RequestParams<'approve'> | RequestParams<'reject'>) => {
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
        h(
          'p',
          { class: 'follow-up' },
          icon(actions.lead ? 'info' : 'pass'),
          ` ${actions.lead ? visible(actions.lead) : 'All steps are done.'} `,
          h('strong', null, visible(actions.question)),
        ),
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
