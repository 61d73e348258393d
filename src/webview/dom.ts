/**
 * A tiny DOM builder. Every string child becomes a Text node and every attribute is set with
 * setAttribute/properties, never innerHTML: server-supplied text is inert by construction.
 */

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

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      switch (key) {
        case 'class': el.className = String(value); break;
        case 'aria': for (const [k, v] of Object.entries(value as Record<string, string | undefined>)) if (v !== undefined) el.setAttribute(`aria-${k}`, v); break;
        case 'data': for (const [k, v] of Object.entries(value as Record<string, string | undefined>)) if (v !== undefined) el.setAttribute(`data-${k}`, v); break;
        case 'value': (el as unknown as HTMLInputElement).value = String(value); break;
        case 'checked': (el as unknown as HTMLInputElement).checked = Boolean(value); break;
        case 'open': (el as unknown as HTMLDetailsElement).open = Boolean(value); break;
        case 'selected': (el as unknown as HTMLOptionElement).selected = Boolean(value); break;
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
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** A codicon, hidden from assistive technology (the text next to it carries the meaning). */
export function icon(name: string, extraClass = ''): HTMLElement {
  return h('span', { class: `codicon codicon-${name} ${extraClass}`.trim(), aria: { hidden: 'true' } });
}

/** Control characters (C0 except tab/newline, DEL, C1) shown visibly instead of being interpreted. */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Long text cut for display, with the full length said. */
export function clip(text: string, max = 4000): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length.toLocaleString()} characters)` : text;
}

export function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? 'undefined';
  } catch {
    return String(value);
  }
}
