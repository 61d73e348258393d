/**
 * A tiny DOM builder. Every string child becomes a Text node and every attribute is set with
 * setAttribute/properties, never innerHTML: server-supplied text is inert by construction. Every text it puts on
 * screen (text nodes, titles, placeholders, aria labels) passes {@link visible}, so bidi controls and zero-width
 * characters show as marks (`⟨U+202E⟩`) wherever server text lands. Only form values (`value`) are set as they are:
 * they are what the user submits.
 */
import { escapeInvisibleInJson, hasInvisible, visibleText } from '../../shared/visibleText';

export type Child = Node | string | number | false | null | undefined | Child[];

export interface Attrs {
  class?: string;
  id?: string;
  title?: string;
  role?: string;
  type?: string;
  value?: string;
  checked?: boolean;
  disabled?: boolean;
  hidden?: boolean;
  open?: boolean;
  placeholder?: string;
  tabindex?: number;
  for?: string;
  name?: string;
  rows?: number;
  min?: string;
  max?: string;
  step?: string;
  required?: boolean;
  multiple?: boolean;
  selected?: boolean;
  /** aria-* and data-* attributes, without the prefix handled for you: pass full names. */
  aria?: Record<string, string | undefined>;
  data?: Record<string, string | undefined>;
  onclick?: (e: MouseEvent) => void;
  oninput?: (e: Event) => void;
  onchange?: (e: Event) => void;
  onkeydown?: (e: KeyboardEvent) => void;
  ontoggle?: (e: Event) => void;
  onsubmit?: (e: SubmitEvent) => void;
}

/** aria-* attributes whose value is read to the user (the rest are ids, states and flags). */
const SHOWN_ARIA = new Set(['label', 'description', 'roledescription', 'valuetext', 'placeholder']);

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const key in attrs) {
      const value = attrs[key as keyof Attrs];
      if (value === undefined || value === null || value === false) continue;
      switch (key) {
        case 'class':
          el.className = String(value);
          break;
        case 'aria':
          for (const [k, v] of Object.entries(value as Record<string, string | undefined>))
            if (v !== undefined) el.setAttribute(`aria-${k}`, SHOWN_ARIA.has(k) ? visible(v) : v);
          break;
        case 'data':
          for (const [k, v] of Object.entries(value as Record<string, string | undefined>))
            if (v !== undefined) el.setAttribute(`data-${k}`, v);
          break;
        case 'value':
          (el as unknown as HTMLInputElement).value = String(value);
          break;
        case 'checked':
          (el as unknown as HTMLInputElement).checked = Boolean(value);
          break;
        case 'open':
          (el as unknown as HTMLDetailsElement).open = Boolean(value);
          break;
        case 'selected':
          (el as unknown as HTMLOptionElement).selected = Boolean(value);
          break;
        case 'title':
        case 'placeholder':
          el.setAttribute(key, visible(String(value)));
          break;
        default:
          if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value as EventListener);
          else el.setAttribute(key, value === true ? '' : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(visible(String(child))));
  }
}

/** A codicon, hidden from assistive technology (the text next to it carries the meaning). */
export function icon(name: string, extraClass = ''): HTMLElement {
  return h('span', { class: `codicon codicon-${name} ${extraClass}`.trim(), aria: { hidden: 'true' } });
}

/**
 * Text as the user should see it: controls, bidi controls, zero-width and other invisible characters shown as marks
 * (`⟨U+202E⟩`); tabs and newlines kept. Idempotent, so text that passed here may pass {@link h} again.
 */
export function visible(text: string): string {
  return visibleText(text, { keepNewlines: true });
}

/** Sets an element's text (server text included) the way {@link h} shows text. */
export function setText(el: Node, text: string): void {
  el.textContent = visible(text);
}

/**
 * Under a field prefilled with server text: the value with its invisible characters shown, when it has any (the
 * field itself must hold the value as it is, since that is what is submitted); null otherwise.
 */
export function invisibleNote(value: string): HTMLElement | null {
  if (!hasInvisible(value)) return null;
  return h(
    'div',
    { class: 'help warning-text', role: 'note' },
    icon('eye'),
    ' This value holds invisible characters: ',
    visible(clip(value, 2000)),
  );
}

/** Long text cut for display, with the full length said. */
export function clip(text: string, max = 4000): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length.toLocaleString()} characters)` : text;
}

/** JSON for an editor: as {@link json}, with invisible characters written as `\uXXXX` escapes (the same value). */
export function editableJson(value: unknown): string {
  return escapeInvisibleInJson(json(value));
}

export function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? 'undefined';
  } catch {
    return String(value);
  }
}

/** Makes `old` (children of `parent`, before `anchor`) look like `fresh`, replacing only the children that differ. */
export function morphChildren(parent: HTMLElement, old: HTMLElement[], fresh: HTMLElement[], anchor: HTMLElement | null): void {
  if (old.length === fresh.length) {
    old.forEach((o, i) => {
      if (!o.isEqualNode(fresh[i]!)) replaceKeepingFocus(o, fresh[i]!);
    });
    return;
  }
  // A part came or went (a warning, the changes section): put the new parts in, keeping the focus where it can be.
  swapKeepingFocus(old, fresh, () => {
    for (const f of fresh) parent.insertBefore(f, anchor);
    for (const o of old) o.remove();
  });
}

/** Replaces `old` with `fresh`, keeping the focus (and the text selection) inside it where the user had it. */
export function replaceKeepingFocus(old: HTMLElement, fresh: HTMLElement): void {
  swapKeepingFocus([old], [fresh], () => old.replaceWith(fresh));
}

/**
 * Runs `swap`, which puts `fresh` where `old` was; if the focus was inside `old`, it goes to the same control in
 * `fresh` (by id, else by position among the focusable controls), with its text selection.
 */
export function swapKeepingFocus(old: HTMLElement[], fresh: HTMLElement[], swap: () => void): void {
  const active = document.activeElement as HTMLElement | null;
  if (!active || active === document.body || !old.some((o) => o.contains(active))) {
    swap();
    return;
  }
  const focusable = (els: HTMLElement[]) =>
    els.flatMap((el) => [...(el.matches(FOCUSABLE) ? [el] : []), ...Array.from(el.querySelectorAll<HTMLElement>(FOCUSABLE))]);
  const id = active.id;
  const index = focusable(old).indexOf(active);
  const selection =
    active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement ? [active.selectionStart, active.selectionEnd] : undefined;
  swap();
  const el = (id && document.getElementById(id)) || (index >= 0 ? focusable(fresh)[index] : undefined);
  if (!el) return;
  el.focus({ preventScroll: true });
  if (selection && (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
    try {
      el.setSelectionRange(selection[0], selection[1]);
    } catch {
      /* not a text input */
    }
  }
}

/** The controls that can hold the focus, for putting it back after a re-render. */
export const FOCUSABLE = 'button, input, select, textarea, summary, [tabindex]';

/**
 * An event handler that does async work: the browser ignores what a handler returns, so a rejection would be lost
 * (and a button it disabled stay disabled without a word). It is logged to the webview's console instead.
 */
export function asyncHandler<E extends Event>(work: (event: E) => Promise<unknown>): (event: E) => void {
  return (event) => {
    work(event).catch((err: unknown) => console.error('Plangate panel: an action failed', err));
  };
}
