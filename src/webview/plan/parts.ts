/**
 * Small parts every section of a plan uses: the error slot an action's reply fills, a titled section, and the
 * fields of the ask forms.
 */
import type { RequestParams, RequestType } from '../../shared/protocol/panel';
import type { AskFieldView } from '../../shared/protocol/plan';
import { h, setText, visible } from '../base/dom';
import { request, saveUi, ui } from '../base/messaging';

/** Sends request `message`; shows its refusal next to the control that asked, or clears it. True when it was done. */
export async function act<T extends RequestType>(errorSlot: HTMLElement, message: RequestParams<T>): Promise<boolean> {
  setText(errorSlot, '');
  const reply = await request(message);
  if (!reply.ok) setText(errorSlot, reply.error);
  return reply.ok;
}

export function errorSlot(id: string): HTMLElement {
  return h('div', { class: 'error-text', id, role: 'alert', aria: { live: 'assertive' } });
}

export function section(title: string, ...children: Parameters<typeof h>[2][]): HTMLElement {
  return h('section', { class: 'card', aria: { label: title } }, h('h2', null, title), ...children);
}

/** The error slot right after `anchor`, made (and put there) the first time it is needed. */
export function slotAfter(anchor: HTMLElement, id: string): HTMLElement {
  const next = anchor.nextElementSibling;
  if (next instanceof HTMLElement && next.id === id) return next;
  const slot = errorSlot(id);
  slot.classList.add('pre-approval');
  anchor.after(slot);
  return slot;
}

export function fieldInput(idBase: string, field: AskFieldView, draftKey: string): HTMLElement {
  const id = `${idBase}-${field.name}`;
  const value = ui.drafts[`${draftKey}:${field.name}`] ?? '';
  const save = (e: Event) => {
    ui.drafts[`${draftKey}:${field.name}`] = (e.target as HTMLInputElement).value;
    saveUi();
  };
  const label = h(
    'label',
    { for: id },
    visible(field.name),
    field.required ? h('span', { class: 'required', aria: { hidden: 'true' } }, ' *') : null,
  );
  let input: HTMLElement;
  if (field.type === 'select' && field.options?.length) {
    input = h(
      'select',
      { id, name: field.name, required: field.required, onchange: save },
      h('option', { value: '' }, '— choose —'),
      field.options.map((o) => h('option', { value: o, selected: o === value }, visible(o))),
    );
  } else {
    input = h('input', {
      id,
      name: field.name,
      type: field.type === 'number' ? 'number' : 'text',
      value,
      required: field.required,
      oninput: save,
      step: field.type === 'number' ? 'any' : undefined,
    });
  }
  return h('div', { class: 'field' }, label, input);
}

export function readForm(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = Object.create(null);
  for (const el of Array.from(form.elements)) {
    const input = el as HTMLInputElement;
    if (input.name && input.value !== '') values[input.name] = input.value;
  }
  return values;
}
