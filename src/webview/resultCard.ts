/**
 * The result card: a call's result a policy rule asks the user to review before its caller reads it — who called, the
 * tool, the rule ("Reviewed because: …"), the content as the server sent it (text with invisible and bidi characters
 * marked, images as images, structured content as JSON), **Pass on** or **Withhold**. Everything shown is server data:
 * rendered as text.
 */
import type { ResultCardView } from '../shared/protocol/review';
import { clip, h, icon, json, setText, visible } from './base/dom';
import { request } from './base/messaging';
import { renderBlock } from './resultView';

/** More than this (as JSON) and the card may show the result in part: it says so. */
const SHOWN_IN_FULL = 200_000;

export function renderResultCard(itemId: string, view: ResultCardView): HTMLElement {
  const err = h('div', { class: 'error-text', role: 'alert' });
  const buttons: HTMLButtonElement[] = [];
  const answer = async (choice: 'pass' | 'withhold') => {
    setText(err, '');
    buttons.forEach((b) => (b.disabled = true));
    const reply = await request({ type: 'resultCardAnswer', itemId, answer: choice });
    if (!reply.ok) {
      buttons.forEach((b) => (b.disabled = false));
      setText(err, reply.error ?? 'The answer could not be sent.');
    }
  };
  const button = (label: string, cls: string, choice: 'pass' | 'withhold', codicon: string) => {
    const b = h('button', { type: 'button', class: cls, onclick: () => void answer(choice) }, icon(codicon), ` ${label}`);
    buttons.push(b);
    return b;
  };
  const content = Array.isArray(view.result.content) ? view.result.content : [];
  const large = (JSON.stringify(view.result) ?? '').length > SHOWN_IN_FULL;
  return h(
    'div',
    { class: 'call call-card result-card', aria: { label: `Result of ${view.tool} on ${view.server} awaiting your review` } },
    h(
      'header',
      { class: 'plan-header' },
      h('h1', null, 'Pass this result on?'),
      h('span', { class: 'origin' }, icon('server'), ' ', visible(view.server)),
    ),
    h(
      'p',
      { class: 'card-who' },
      `${visible(view.caller)} called `,
      h('code', { class: 'card-tool' }, visible(view.tool)),
      ` on server ${visible(view.server)}; it reads this result only if you pass it on.`,
    ),
    h('p', { class: 'card-because notice' }, icon('eye'), ' ', visible(view.because)),
    view.result.isError ? h('p', { class: 'warning-text' }, icon('warning'), ' The tool reports an error (isError).') : null,
    large
      ? h(
          'p',
          { class: 'warning-text' },
          icon('warning'),
          ' This result is large: the card shows it in part, and Pass on passes all of it.',
        )
      : null,
    h(
      'section',
      { class: 'card', aria: { label: 'Result content' } },
      h('h2', null, 'Content'),
      content.length ? content.map((b, i) => renderBlock(b, i, view.server)) : h('p', { class: 'muted' }, 'No content.'),
    ),
    view.result.structuredContent !== undefined
      ? h(
          'section',
          { class: 'card', aria: { label: 'Structured content' } },
          h('h2', null, 'Structured content'),
          h('pre', { class: 'json' }, visible(clip(json(view.result.structuredContent), SHOWN_IN_FULL))),
        )
      : null,
    h(
      'div',
      { class: 'buttons' },
      button('Pass on', 'primary', 'pass', 'check'),
      button('Withhold', 'secondary', 'withhold', 'circle-slash'),
    ),
    err,
  );
}
