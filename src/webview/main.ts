/**
 * The Plangate panel: renders the extension's snapshots and posts the user's intents. It keeps no state of
 * its own beyond open sections and drafts (messaging.ts `ui`), so a reload loses no decision and no input.
 */
import type { PanelItem, PanelState, ToWebview } from '../shared/protocol';
import { assertNever } from '../core/lifecycle';
import { h, icon, visible } from './dom';
import { onReply, onRerender, post } from './messaging';
import { renderPlan } from './planView';
import { renderResult } from './resultView';
import { renderCallForm, renderElicitForm } from './callForm';
import { renderCollectForm } from './collectFormView';

const root = document.getElementById('root')!;
let latest: PanelState | undefined;
let scheduled = false;

function renderItem(item: PanelItem): HTMLElement {
  switch (item.kind) {
    case 'plan': return renderPlan(item.view);
    case 'result': return renderResult(item.view);
    case 'callForm': return renderCallForm(item.id, item.view);
    case 'elicit': return renderElicitForm(item.id, item.view);
    case 'collectForm': return renderCollectForm(item.view);
    default: return assertNever(item, 'panel item');
  }
}

function renderSwitcher(state: PanelState): HTMLElement | null {
  if (state.items.length < 2) return null;
  const nav = h('nav', { class: 'switcher', aria: { label: 'Open items' } });
  for (const item of state.items) {
    const selected = item.id === state.selected?.id;
    nav.append(h('span', { class: `tab${selected ? ' selected' : ''}` },
      h('button', { class: 'tab-button', aria: { current: selected ? 'page' : undefined }, onclick: () => post({ type: 'select', itemId: item.id }) },
        icon(item.kind === 'plan' ? 'checklist' : item.kind === 'result' ? 'output' : item.kind === 'elicit' ? 'question' : item.kind === 'collectForm' ? 'note' : 'play'), ' ', visible(item.title),
        item.badge ? h('span', { class: 'tab-badge' }, ` · ${visible(item.badge)}`) : null),
      h('button', { class: 'tab-close', title: 'Close', aria: { label: `Close ${item.title}` }, onclick: () => post({ type: 'close', itemId: item.id }) }, icon('close'))));
  }
  return nav;
}

/** Re-renders the whole view, keeping focus and scroll where the user had them. */
function render(): void {
  scheduled = false;
  const state = latest;
  if (!state) return;
  const focusable = () => Array.from(document.querySelectorAll<HTMLElement>('button, input, select, textarea, summary, [tabindex]'));
  const active = document.activeElement as HTMLElement | null;
  const focusedId = active?.id;
  const focusedIndex = active && active !== document.body ? focusable().indexOf(active) : -1;
  const selection = document.activeElement instanceof HTMLInputElement || document.activeElement instanceof HTMLTextAreaElement
    ? [document.activeElement.selectionStart, document.activeElement.selectionEnd] : undefined;
  const scroll = window.scrollY;
  const body = state.selected
    ? renderItem(state.selected)
    : h('div', { class: 'empty' }, h('h1', null, 'Plangate'), h('p', null, 'Nothing to review. When a tool answers with a plan, it appears here for your approval.'));
  root.replaceChildren(...[renderSwitcher(state), h('main', { id: 'main' }, body)].filter((x): x is HTMLElement => x !== null));
  if (focusedId || focusedIndex >= 0) {
    // By id where the control has one, else by its position among the focusable controls.
    const el = (focusedId && document.getElementById(focusedId)) || focusable()[focusedIndex];
    if (el) {
      el.focus({ preventScroll: true });
      if (selection && (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
        try { el.setSelectionRange(selection[0], selection[1]); } catch { /* not a text input */ }
      }
    }
  }
  window.scrollTo(0, scroll);
  document.body.dataset.ready = 'true';
}

function scheduleRender(): void {
  if (!scheduled) { scheduled = true; requestAnimationFrame(render); }
}
onRerender(scheduleRender);

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'state':
      latest = message.state;
      // Snapshots can arrive faster than frames (progress of long plans): render at most once a frame.
      scheduleRender();
      break;
    case 'reply':
      onReply(message);
      break;
    default:
      assertNever(message, 'message');
  }
});

post({ type: 'ready' });
