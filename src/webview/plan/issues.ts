/**
 * What the server said is wrong with a plan: errors and warnings, a plan that is not ok (missing fields, recovery
 * actions, partial results) and its ask form (answer and re-plan).
 */
import type { IssueView, PlanHeadView } from '../../shared/protocol/plan';
import { askCallArgs } from '../../shared/askCall';
import { argsBlock } from '../base/argsBlock';
import { h, icon, json, visible } from '../base/dom';
import { act, errorSlot, fieldInput, readForm, section } from './parts';

export function renderIssues(title: string, issues: IssueView[], kind: 'error' | 'warning'): HTMLElement {
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

export function renderNotOk(plan: PlanHeadView): HTMLElement[] {
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
