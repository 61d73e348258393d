/**
 * The single-call card: one call the policy asks about, waiting for the user — who calls, the server, the tool, its
 * arguments and hints, and the deciding rule ("Asked because: …"); how many calls of the same caller to the same tool
 * wait behind it. **Allow once**, **Allow for this session**, **Allow in this workspace**, **Always allow** (each
 * longer one shows the rule it writes, and where), **Deny** with an optional note that reaches the caller, and **Deny
 * all N waiting** when more wait. Everything shown is server data or built from it: rendered as text.
 */
import type { CallCardView } from '../shared/protocol/cards';
import type { StepHint } from '../shared/protocol/plan';
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
  type Choice = 'once' | 'session' | 'workspace' | 'always' | 'deny';
  const answer = async (choice: Choice, all = false) => {
    setText(err, '');
    buttons.forEach((b) => (b.disabled = true));
    const reply = await request({
      type: 'callCardAnswer',
      itemId,
      answer: choice,
      ...(choice === 'deny' && note.value.trim() ? { note: note.value.trim() } : {}),
      ...(all ? { all: true } : {}),
    });
    // The card stays when more calls wait behind it (the next one shows): its buttons come back.
    buttons.forEach((b) => (b.disabled = false));
    if (!reply.ok) setText(err, reply.error ?? 'The answer could not be sent.');
  };
  const button = (label: string, cls: string, choice: Choice, codicon: string, all = false) => {
    const b = h('button', { type: 'button', class: cls, onclick: () => void answer(choice, all) }, icon(codicon), ` ${label}`);
    buttons.push(b);
    return b;
  };
  const rules = view.allowRules ?? {};
  const waiting = view.waiting ?? 1;
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
    waiting > 1
      ? h(
          'p',
          { class: 'card-waiting notice', role: 'status' },
          icon('layers'),
          ` ${waiting} calls of ${midSentence(visible(view.caller))} to ${visible(view.tool)} are waiting: this card shows the first. An allow longer than once lets go every waiting call it covers.`,
        )
      : null,
    h('p', { class: 'card-because notice' }, icon('shield'), ' ', visible(view.because)),
    view.notHonoured ? h('p', { class: 'card-loosens warning-text' }, icon('warning'), ' ', visible(view.notHonoured)) : null,
    h('h2', null, 'Arguments'),
    argsBlock(json(view.args), 'Arguments', 'card-args'),
    view.onlyOnce ? h('p', { class: 'card-once-only' }, icon('info'), ' ', visible(view.onlyOnce)) : null,
    note,
    h(
      'div',
      { class: 'buttons' },
      button('Allow once', 'primary', 'once', 'check'),
      rules.session ? button('Allow for this session', 'secondary', 'session', 'clock') : null,
      rules.workspace ? button('Allow in this workspace', 'secondary', 'workspace', 'folder') : null,
      rules.always ? button('Always allow', 'secondary', 'always', 'check-all') : null,
      button('Deny', 'secondary', 'deny', 'circle-slash'),
      waiting > 1 ? button(`Deny all ${waiting} waiting`, 'secondary', 'deny', 'close-all', true) : null,
    ),
    err,
    // Below the buttons: opening the rules does not push the buttons down, under a notification.
    rules.session || rules.workspace || rules.always
      ? h(
          'details',
          { class: 'card-always' },
          h('summary', null, 'The rule each allow writes: this server, this tool, this caller only'),
          ruleWhere('Allow for this session', 'kept in memory until the window closes', rules.session),
          ruleWhere('Allow in this workspace', "kept in this workspace's state", rules.workspace),
          ruleWhere('Always allow', 'added to your user settings (plangate.policy)', rules.always),
        )
      : null,
  );
}

function ruleWhere(label: string, where: string, text: string | undefined): HTMLElement | null {
  if (!text) return null;
  return h(
    'div',
    { class: 'card-rule' },
    h('p', null, h('strong', null, label), ` — ${where}:`),
    h('pre', { class: 'json' }, visible(text)),
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

/** The caller's words inside a sentence: a leading "The", "An" or "A" in lower case (as core/present/callCard.ts midSentence). */
function midSentence(words: string): string {
  return words.replace(/^(The|An|A) /, (article) => article.toLowerCase());
}
