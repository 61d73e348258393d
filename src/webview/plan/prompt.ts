/**
 * What the runner waits for at a step, in place: a confirmation, or an ask_user step's fields.
 */
import type { PendingPrompt } from '../../shared/protocol/plan';
import { h, icon, visible } from '../base/dom';
import { act, errorSlot, fieldInput, readForm } from './parts';

export function renderPrompt(prompt: PendingPrompt): HTMLElement {
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
