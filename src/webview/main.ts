/**
 * The Plangate panel: renders the extension's snapshot, then applies its patches and renders again only what they
 * changed (a plan's head, single step rows, the switcher). It keeps no state of its own beyond open sections and
 * drafts (messaging.ts `ui`), so a reload loses no decision and no input.
 */
import type { PanelItem, PanelState, ToWebview } from '../shared/protocol/panel';
import { applyPatch, mergeChanges, noChanges, type PanelChanges } from '../shared/panelPatch';
import { FOCUSABLE, h, icon, visible } from './base/dom';
import { onReply, onRerender, post } from './base/messaging';
import { renderPlan, updatePlan } from './plan/planView';
import { renderResult } from './resultView';
import { renderCallForm, renderElicitForm } from './callForm';
import { renderCollectForm } from './collectFormView';
import { onAppMessage, relayFromApp, syncApps } from './apps/appFrames';
import { renderCallCard } from './callCard';
import { renderSampling } from './sampling/samplingView';
import { renderResultCard } from './resultCard';

const root = document.getElementById('root')!;
let latest: PanelState | undefined;
/** The update `latest` is at (protocol/panel.ts `seq`). */
let seq = 0;
/** What changed since the last render; `undefined`: nothing to render. */
let pending: PanelChanges | undefined;
let scheduled = false;
/** A snapshot was asked for: patches until it comes are dropped. */
let resyncing = false;

function assertNever(value: never, what: string): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}

function renderItem(item: PanelItem): HTMLElement {
  switch (item.kind) {
    case 'plan':
      return renderPlan(item.view);
    case 'result':
      return renderResult(item.view, item.id);
    case 'callForm':
      return renderCallForm(item.id, item.view);
    case 'elicit':
      return renderElicitForm(item.id, item.view);
    case 'collectForm':
      return renderCollectForm(item.view, item.id);
    case 'callCard':
      return renderCallCard(item.id, item.view);
    case 'sampling':
      return renderSampling(item.id, item.view);
    case 'resultCard':
      return renderResultCard(item.id, item.view);
    default:
      return assertNever(item, 'panel item');
  }
}

function renderSwitcher(state: PanelState): HTMLElement | null {
  if (state.items.length < 2) return null;
  const nav = h('nav', { class: 'switcher', aria: { label: 'Open items' } });
  for (const item of state.items) {
    const selected = item.id === state.selected?.id;
    nav.append(
      h(
        'span',
        { class: `tab${selected ? ' selected' : ''}` },
        h(
          'button',
          {
            class: 'tab-button',
            aria: { current: selected ? 'page' : undefined },
            onclick: () => post({ type: 'select', itemId: item.id }),
          },
          icon(
            item.kind === 'plan'
              ? 'checklist'
              : item.kind === 'result'
                ? 'output'
                : item.kind === 'elicit'
                  ? 'question'
                  : item.kind === 'collectForm'
                    ? 'note'
                    : item.kind === 'callCard'
                      ? 'shield'
                      : item.kind === 'sampling'
                        ? 'sparkle'
                        : item.kind === 'resultCard'
                          ? 'eye'
                          : 'play',
          ),
          ' ',
          visible(item.title),
          item.badge ? h('span', { class: 'tab-badge' }, ` · ${visible(item.badge)}`) : null,
        ),
        h(
          'button',
          {
            class: 'tab-close',
            title: 'Close',
            aria: { label: `Close ${item.title}` },
            onclick: () => post({ type: 'close', itemId: item.id }),
          },
          icon('close'),
        ),
      ),
    );
  }
  return nav;
}

/** Renders the whole view, keeping focus and scroll where the user had them. */
function renderAll(state: PanelState): void {
  const focusable = () => Array.from(document.querySelectorAll<HTMLElement>(FOCUSABLE));
  const active = document.activeElement as HTMLElement | null;
  const focusedId = active?.id;
  const focusedIndex = active && active !== document.body ? focusable().indexOf(active) : -1;
  const selection =
    document.activeElement instanceof HTMLInputElement || document.activeElement instanceof HTMLTextAreaElement
      ? [document.activeElement.selectionStart, document.activeElement.selectionEnd]
      : undefined;
  const scroll = window.scrollY;
  const body = state.selected
    ? renderItem(state.selected)
    : h(
        'div',
        { class: 'empty' },
        h('h1', null, 'Plangate'),
        h('p', null, 'Nothing to review. When a tool answers with a plan, it appears here for your approval.'),
      );
  root.replaceChildren(...[renderSwitcher(state), h('main', { id: 'main' }, body)].filter((x): x is HTMLElement => x !== null));
  if (focusedId || focusedIndex >= 0) {
    // By id where the control has one, else by its position among the focusable controls.
    const el = (focusedId && document.getElementById(focusedId)) || focusable()[focusedIndex];
    if (el) {
      el.focus({ preventScroll: true });
      if (selection && (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement)) {
        try {
          el.setSelectionRange(selection[0], selection[1]);
        } catch {
          /* not a text input */
        }
      }
    }
  }
  window.scrollTo(0, scroll);
}

/** Renders what changed since the last frame: the switcher, the item shown whole, or parts of the plan shown. */
function render(): void {
  scheduled = false;
  const state = latest;
  const changes = pending;
  pending = undefined;
  if (!state || !changes) return;
  const main = document.getElementById('main');
  let whole = changes.selected || !main;
  if (!whole && (changes.heads.size || changes.steps.size)) {
    whole = state.selected?.kind !== 'plan' || !updatePlan(state.selected.view, changes.heads, changes.steps);
  }
  if (whole) renderAll(state);
  else if (changes.items) {
    const nav = renderSwitcher(state);
    const old = root.querySelector(':scope > nav.switcher');
    if (old && nav) old.replaceWith(nav);
    else if (old) old.remove();
    else if (nav) root.prepend(nav);
  }
  syncApps(state.selected);
  document.body.dataset.ready = 'true';
}

function scheduleRender(changes: PanelChanges): void {
  pending = pending ? mergeChanges(pending, changes) : changes;
  // Updates can arrive faster than frames (progress of long plans): render at most once a frame.
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(render);
  }
}
onRerender(() => scheduleRender({ ...noChanges(), selected: true }));

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  // A server app's frame posts here too: relayed to the extension, never taken for the extension's own messages.
  if (relayFromApp(event)) return;
  // Only VS Code's host frame speaks for the extension, and it posts with this document's own origin; anything else
  // (a frame a server app made inside its own, which is opaque: origin "null") is not the extension's.
  if (event.origin !== window.origin) return;
  const message = event.data;
  switch (message.type) {
    case 'state':
      resyncing = false;
      latest = message.state;
      seq = message.seq;
      post({ type: 'applied', seq });
      scheduleRender({ ...noChanges(), selected: true });
      break;
    case 'patch': {
      const applied = latest && message.seq === seq + 1 ? applyPatch(latest, message.patch) : undefined;
      if (!applied) {
        // Out of order, or for an item that is not the one held: only a snapshot can put this right (asked once).
        if (!resyncing) post({ type: 'resync' });
        resyncing = true;
        break;
      }
      latest = applied.state;
      seq = message.seq;
      post({ type: 'applied', seq });
      scheduleRender(applied.changes);
      break;
    }
    case 'reply':
      onReply(message);
      break;
    case 'appMount':
    case 'appPost':
    case 'appUnmount':
      onAppMessage(message);
      break;
    default:
      assertNever(message, 'message');
  }
});

post({ type: 'ready' });
