/**
 * The single-call card: one call the policy asks about, waiting for the user — who calls, the server, the tool, its
 * arguments and hints, and the deciding rule ("Asked because: …"). **Allow once**, **Always allow** (shows the rule it
 * writes to the user's settings), **Deny** with an optional note that reaches the caller. Everything shown is server data or built from it: rendered as text.
 */
import type { CallCardView, StepHint } from '../shared/protocol';
import { h, icon, json, setText, visible } from './base/dom';
import { request } from './base/messaging';
import { argsBlock } from './base/argsBlock';

export function renderCallCard(itemId: string, view: CallCardView): HTMLElement {
  const err = h('div', { class: 'error-text', role: 'alert' });
  const note = h('textarea', {
    id: `card-note-${itemId}`,
    class: 'note',
    rows: 2,
    placeholder: 'Optional: why, for the caller (sent with Deny)',
    aria: { label: 'Note for the caller' },
  }) as HTMLTextAreaElement;
  const buttons: HTMLButtonElement[] = [];
  const answer = async (choice: 'once' | 'always' | 'deny') => {
    setText(err, '');
    buttons.forEach((b) => (b.disabled = true));
    const reply = await request({
      type: 'callCardAnswer',
      itemId,
      answer: choice,
      ...(choice === 'deny' && note.value.trim() ? { note: note.value.trim() } : {}),
    });
    if (!reply.ok) {
      buttons.forEach((b) => (b.disabled = false));
      setText(err, reply.error ?? 'The answer could not be sent.');
    }
  };
  const button = (label: string, cls: string, choice: 'once' | 'always' | 'deny', codicon: string) => {
    const b = h('button', { type: 'button', class: cls, onclick: () => void answer(choice) }, icon(codicon), ` ${label}`);
    buttons.push(b);
    return b;
  };
  return h(
    'div',
    { class: 'call call-card', aria: { label: `Call of ${view.tool} on ${view.server} awaiting your decision` } },
    h(
      'header',
      { class: 'plan-header' },
      h('h1', null, 'Allow this call?'),
      h('span', { class: 'origin' }, icon('server'), ' ', visible(view.server)),
    ),
    h(
      'p',
      { class: 'card-who' },
      `${visible(view.caller)} calls `,
      h('code', { class: 'card-tool' }, visible(view.tool)),
      ` on server ${visible(view.server)} `,
      hintFlags(view.hint),
    ),
    h('p', { class: 'card-because notice' }, icon('shield'), ' ', visible(view.because)),
    view.notHonoured ? h('p', { class: 'card-loosens warning-text' }, icon('warning'), ' ', visible(view.notHonoured)) : null,
    h('h2', null, 'Arguments'),
    argsBlock(json(view.args), 'Arguments', 'card-args'),
    view.canAlwaysAllow && view.alwaysRuleText
      ? h(
          'details',
          { class: 'card-always' },
          h('summary', null, 'Always allow adds this rule to your user settings (plangate.policy)'),
          h('pre', { class: 'json' }, visible(view.alwaysRuleText)),
        )
      : null,
    note,
    h(
      'div',
      { class: 'buttons' },
      button('Allow once', 'primary', 'once', 'check'),
      view.canAlwaysAllow ? button('Always allow', 'secondary', 'always', 'check-all') : null,
      button('Deny', 'secondary', 'deny', 'circle-slash'),
    ),
    err,
  );
}

function hintFlags(hint: StepHint | undefined): HTMLElement | null {
  if (!hint) return null;
  const words = { read: 'read-only', write: 'writes', destructive: 'destructive', unknown: '' }[hint.effect];
  return h(
    'span',
    { class: 'card-hints', title: "The tool's own hints (MCP annotations): the server's claims, not guarantees." },
    words ? h('span', { class: `flag hint-${hint.effect}` }, words) : null,
    hint.openWorld ? h('span', { class: 'flag' }, icon('globe'), ' open world') : null,
  );
}
