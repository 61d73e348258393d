/**
 * A server's sampling request (it asks for a language model's answer): which server, during which call, the system
 * prompt and messages (text with invisible characters marked, images drawn from their checked data), the model
 * preferences and the token limit, why the user is asked. **Approve** (with a model chosen) or **Decline**; then the
 * model's answer in an editable box: **Send** (as shown or edited) or **Decline**. Everything shown is server data or
 * built from it: rendered as text, never as markup.
 */
import type { SamplingPartView, SamplingView } from '../../shared/protocol/sampling';
import { h, icon, invisibleNote, setText, visible } from '../base/dom';
import { request } from '../base/messaging';

const RASTER = /^image\/(png|jpeg|gif|webp)$/;

/** What the user typed in an answer box, by item: kept across re-renders of the panel. */
const drafts = new Map<string, string>();

function part(p: SamplingPartView): HTMLElement {
  switch (p.type) {
    case 'text':
      return h('div', { class: 'sampling-text' }, visible(p.text));
    case 'image': {
      // The engine checked the bytes; checked again here: only raster types from their base64 data become an <img>.
      if (!RASTER.test(p.mimeType) || !/^[A-Za-z0-9+/]*={0,2}$/.test(p.data))
        return h('p', { class: 'sampling-unshown warning-text' }, icon('warning'), ` An image of type ${visible(p.mimeType)}: not shown.`);
      const img = h('img', { class: 'sampling-img', aria: { label: `Image from the server (${p.mimeType})` } });
      img.setAttribute('alt', `Image from the server (${p.mimeType}, ${p.bytes} bytes)`);
      img.src = `data:${p.mimeType};base64,${p.data}`;
      return h(
        'figure',
        { class: 'sampling-image' },
        img,
        h('figcaption', null, `${p.mimeType}, ${p.bytes.toLocaleString('en-US')} bytes`),
      );
    }
    case 'unshown':
      return h('p', { class: 'sampling-unshown warning-text' }, icon('warning'), ' ', `${visible(p.what)}: ${visible(p.problem)}`);
  }
}

export function renderSampling(itemId: string, view: SamplingView): HTMLElement {
  const err = h('div', { class: 'error-text', role: 'alert' });
  const buttons: HTMLButtonElement[] = [];
  const send = async (message: { action: 'approve' | 'decline' | 'send'; modelId?: string; text?: string }) => {
    setText(err, '');
    buttons.forEach((b) => (b.disabled = true));
    const reply = await request({ type: 'samplingAnswer', itemId, ...message });
    if (!reply.ok) {
      buttons.forEach((b) => (b.disabled = false));
      setText(err, reply.error ?? 'The answer could not be sent.');
    } else if (message.action !== 'approve') drafts.delete(itemId);
  };
  const button = (label: string, cls: string, codicon: string, onclick: () => void, disabled = false) => {
    const b = h('button', { type: 'button', class: cls, onclick, disabled }, icon(codicon), ` ${label}`);
    buttons.push(b);
    return b;
  };

  const prefs = [
    view.modelHints.length ? `hints: ${view.modelHints.map(visible).join(', ')}` : '',
    view.priorities ? `priorities: ${view.priorities}` : '',
    view.temperature !== undefined ? `temperature ${view.temperature}` : '',
    view.stopSequences.length ? `stop at: ${view.stopSequences.map((s) => JSON.stringify(visible(s))).join(', ')}` : '',
  ].filter(Boolean);

  const request_ = h(
    'section',
    { class: 'sampling-request', aria: { label: 'The request' } },
    view.systemPrompt !== undefined
      ? h(
          'div',
          { class: 'sampling-message system' },
          h('h3', null, 'System prompt'),
          h('div', { class: 'sampling-text' }, visible(view.systemPrompt)),
        )
      : null,
    ...view.messages.map((m, i) =>
      h(
        'div',
        { class: `sampling-message ${m.role}` },
        h('h3', null, `${i + 1}. ${m.role === 'user' ? 'User' : 'Assistant'}`),
        ...m.parts.map(part),
        ...m.parts.map((p) => (p.type === 'text' ? invisibleNote(p.text) : null)),
      ),
    ),
    h(
      'p',
      { class: 'sampling-limits' },
      `Token limit: ${view.maxTokens.toLocaleString('en-US')}`,
      view.maxTokensAsked ? ` (the server asked for ${visible(view.maxTokensAsked)})` : '',
      prefs.length ? ` · Model preferences: ${prefs.join(' · ')}` : '',
    ),
    ...view.notes.map((n) => h('p', { class: 'sampling-note notice' }, icon('info'), ' ', n)),
  );

  let actions: HTMLElement;
  if (view.stage === 'request') {
    const select = h(
      'select',
      { id: `sampling-model-${itemId}`, aria: { label: 'Language model' }, disabled: view.models.length === 0 || view.busy === true },
      ...view.models.map((m) => h('option', { value: m.id }, visible(m.name))),
    ) as HTMLSelectElement;
    actions = h(
      'div',
      { class: 'sampling-actions' },
      view.models.length > 0 ? h('label', { for: select.id }, 'Model ', select) : null,
      h(
        'div',
        { class: 'buttons' },
        view.models.length > 0
          ? button('Approve', 'primary', 'check', () => void send({ action: 'approve', modelId: select.value }), view.busy === true)
          : null,
        button('Decline', 'secondary', 'circle-slash', () => void send({ action: 'decline' })),
      ),
      view.busy
        ? h('p', { class: 'sampling-busy', role: 'status' }, icon('loading', 'codicon-modifier-spin'), ' The model is answering…')
        : null,
    );
  } else if (view.answer) {
    const box = h('textarea', {
      id: `sampling-answer-${itemId}`,
      class: 'sampling-answer',
      rows: 8,
      aria: { label: 'The answer to send' },
      oninput: () => drafts.set(itemId, box.value),
    }) as HTMLTextAreaElement;
    box.value = drafts.get(itemId) ?? view.answer.text;
    actions = h(
      'section',
      { class: 'sampling-actions', aria: { label: 'The answer' } },
      h('h2', null, `The answer of ${visible(view.answer.model)}`),
      h('p', { class: 'notice' }, 'This goes back to the server: send it as it is, edit it first, or decline.'),
      box,
      invisibleNote(view.answer.text),
      h(
        'div',
        { class: 'buttons' },
        button('Send', 'primary', 'send', () => void send({ action: 'send', text: box.value })),
        button('Decline', 'secondary', 'circle-slash', () => void send({ action: 'decline' })),
      ),
    );
  } else {
    actions = h(
      'section',
      { class: 'sampling-actions', aria: { label: 'The answer' } },
      h('p', { class: 'warning-text' }, icon('warning'), ' ', `No answer: ${visible(view.problem ?? 'the model gave none')}`),
      h(
        'div',
        { class: 'buttons' },
        button('Decline', 'secondary', 'circle-slash', () => void send({ action: 'decline' })),
      ),
    );
  }

  return h(
    'div',
    { class: 'call sampling', aria: { label: `Sampling request of ${view.server} awaiting your decision` } },
    h(
      'header',
      { class: 'plan-header' },
      h('h1', null, view.stage === 'request' ? 'A server asks for a model’s answer' : 'Review the model’s answer'),
      h('span', { class: 'origin' }, icon('server'), ' ', visible(view.server)),
    ),
    h(
      'p',
      { class: 'card-who' },
      `Server ${visible(view.server)} `,
      view.calls.length ? ['asks during its tool call ', ...view.calls.map((c) => h('code', null, visible(c))), ': '] : 'asks: ',
      'run a language model on the messages below and send it the answer.',
    ),
    h('p', { class: 'card-because notice' }, icon('shield'), ' ', visible(view.because)),
    view.stage === 'answer' ? h('details', { class: 'sampling-request-details' }, h('summary', null, 'The request'), request_) : request_,
    actions,
    err,
  );
}
