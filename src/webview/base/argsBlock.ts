/** Arguments shown whole as JSON text, in a block the keyboard reaches: the call card's and a plan step's. */
import { h, visible } from './dom';

/**
 * Arguments as JSON text, every character of them (what is approved is what can be read): their size, then the text in
 * a scrolling block the keyboard reaches. `text` is set as text (server data); `cls` names the block for styling.
 */
export function argsBlock(text: string, label: string, cls = ''): HTMLElement {
  const pre = h('pre', { class: `json args-full ${cls}`.trim(), tabindex: 0, aria: { label } });
  pre.textContent = visible(text);
  return h('div', { class: 'args-block' }, h('p', { class: 'args-size muted' }, sizeWords(text)), pre);
}

/** "1 character", "12,345 characters — all shown; scroll to read them". */
export function sizeWords(text: string): string {
  const n = text.length;
  return n === 1 ? '1 character' : `${n.toLocaleString('en-US')} characters${n > 2000 ? ' — all shown; scroll to read them' : ''}`;
}
