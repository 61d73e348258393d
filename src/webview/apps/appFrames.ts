/**
 * Server apps' iframes inside the panel. Each app runs in a sandboxed `srcdoc` iframe (`allow-scripts allow-forms`:
 * an opaque origin, so it cannot reach this webview's DOM, its `acquireVsCodeApi`, its storage, or navigate the
 * panel; no popups, no top navigation). The frames live in their own container beside the rendered items, so a
 * re-render never reloads an app; the one whose result card is shown is visible, the others are hidden.
 *
 * The webview only relays: what an app posts goes to the extension as `appMessage` (checked there, src/ui/appHost.ts),
 * and what the extension sends goes into the frame. The one thing read here is the app's size change, to set the
 * frame's height without a round trip.
 */
import type { AppToWebview } from '../../shared/protocol/apps';
import type { PanelItem } from '../../shared/protocol/panel';
import { post } from '../base/messaging';

interface Frame {
  iframe: HTMLIFrameElement;
  appId: string;
  html: string;
  /** The next `load` is the page we set (not a navigation of the app's own). */
  expectingLoad: boolean;
  /** How often the app navigated its frame away and was put back. */
  restarts: number;
}

/** How often an app that navigates its frame away is put back before its frame is removed. */
const MAX_RESTARTS = 3;

const frames = new Map<string, Frame>();
/** The tallest an app's frame grows, and its height before the app says its size. */
const MAX_HEIGHT = 4000;
const START_HEIGHT = 320;

let container: HTMLElement | undefined;
function box(): HTMLElement {
  if (!container) {
    container = document.createElement('div');
    container.id = 'apps';
    container.className = 'apps';
    document.getElementById('root')?.after(container);
  }
  return container;
}

/**
 * The app whose frame sent `event`, if any: its own frame, or a frame it made inside it (its window's parents lead to
 * the app's frame). Messages from app frames are never the extension's.
 */
export function appOf(event: MessageEvent): string | undefined {
  let source = event.source as Window | null;
  for (let depth = 0; source && source !== window && depth < 20; depth++) {
    for (const f of frames.values()) if (f.iframe.contentWindow === source) return f.appId;
    source = source.parent === source ? null : source.parent;
  }
  return undefined;
}

/** Handles an app message from the extension. */
export function onAppMessage(message: AppToWebview): void {
  switch (message.type) {
    case 'appMount':
      mount(message.appId, message.html, message.title);
      return;
    case 'appPost':
      frames.get(message.appId)?.iframe.contentWindow?.postMessage(message.message, '*');
      return;
    case 'appUnmount':
      unmount(message.appId);
      return;
  }
}

function mount(appId: string, html: string, title: string): void {
  unmount(appId);
  const iframe = document.createElement('iframe');
  iframe.className = 'app-frame';
  iframe.dataset.appId = appId;
  iframe.setAttribute('sandbox', 'allow-scripts allow-forms');
  iframe.setAttribute('referrerpolicy', 'no-referrer');
  iframe.setAttribute('title', title);
  iframe.style.height = `${START_HEIGHT}px`;
  iframe.hidden = true;
  const frame: Frame = { iframe, appId, html, expectingLoad: true, restarts: 0 };
  frames.set(appId, frame);
  // An app may navigate its own frame (the sandbox forbids the panel, popups and the top window, not itself): the
  // page it went to is not the app, so the app's page is put back (it starts afresh and the host sends it its
  // input and result again); one that keeps leaving loses its frame.
  iframe.addEventListener('load', () => {
    if (frame.expectingLoad) {
      frame.expectingLoad = false;
      return;
    }
    if (frames.get(appId) !== frame) return;
    if (++frame.restarts > MAX_RESTARTS) {
      unmount(appId);
      return;
    }
    frame.expectingLoad = true;
    iframe.srcdoc = frame.html;
  });
  // The theme first, so the extension has it before the app's ui/initialize arrives.
  sendTheme(appId);
  iframe.srcdoc = html;
  box().append(iframe);
  showSelected();
}

function unmount(appId: string): void {
  const f = frames.get(appId);
  if (!f) return;
  frames.delete(appId);
  f.iframe.remove();
}

let selectedApp: string | undefined;

/** The render hook: shows the frame of the selected result's app, hides the others. */
export function syncApps(selected: PanelItem | undefined): void {
  selectedApp = selected?.kind === 'result' ? selected.view.app?.appId : undefined;
  showSelected();
}

function showSelected(): void {
  for (const f of frames.values()) f.iframe.hidden = f.appId !== selectedApp;
}

/** The message listener's part for app frames: relays, and sizes the frame. True when the message was an app's. */
export function relayFromApp(event: MessageEvent): boolean {
  const appId = appOf(event);
  if (appId === undefined) return false;
  const data: unknown = event.data;
  // A frame measured while hidden (its item not shown yet) reports no height: that says nothing about its size.
  if (isSizeChange(data) && data.params.height > 0) {
    const h = Math.min(MAX_HEIGHT, Math.max(40, Math.ceil(data.params.height)));
    frames.get(appId)!.iframe.style.height = `${h}px`;
  }
  post({ type: 'appMessage', appId, message: data });
  return true;
}

function isSizeChange(data: unknown): data is { params: { height: number } } {
  const d = data as { method?: unknown; params?: { height?: unknown } } | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    d.method === 'ui/notifications/size-changed' &&
    typeof d.params?.height === 'number' &&
    Number.isFinite(d.params.height)
  );
}

/** The spec's style variables, each from the VS Code colour or font it corresponds to. */
const VARIABLES: Record<string, string> = {
  '--color-background-primary': '--vscode-editor-background',
  '--color-background-secondary': '--vscode-sideBar-background',
  '--color-background-tertiary': '--vscode-input-background',
  '--color-background-inverse': '--vscode-editor-foreground',
  '--color-background-danger': '--vscode-inputValidation-errorBackground',
  '--color-background-warning': '--vscode-inputValidation-warningBackground',
  '--color-background-info': '--vscode-inputValidation-infoBackground',
  '--color-text-primary': '--vscode-foreground',
  '--color-text-secondary': '--vscode-descriptionForeground',
  '--color-text-tertiary': '--vscode-disabledForeground',
  '--color-text-inverse': '--vscode-editor-background',
  '--color-text-danger': '--vscode-errorForeground',
  '--color-text-warning': '--vscode-editorWarning-foreground',
  '--color-text-info': '--vscode-textLink-foreground',
  '--color-text-success': '--vscode-testing-iconPassed',
  '--color-border-primary': '--vscode-widget-border',
  '--color-border-secondary': '--vscode-input-border',
  '--color-ring-primary': '--vscode-focusBorder',
  '--font-sans': '--vscode-font-family',
  '--font-mono': '--vscode-editor-font-family',
  '--font-text-md-size': '--vscode-font-size',
};

function currentTheme(): { theme: 'light' | 'dark'; variables: Record<string, string> } {
  const cls = document.body.classList;
  const theme = cls.contains('vscode-light') || cls.contains('vscode-high-contrast-light') ? 'light' : 'dark';
  const style = getComputedStyle(document.documentElement);
  const variables: Record<string, string> = {};
  for (const [name, from] of Object.entries(VARIABLES)) {
    const value = style.getPropertyValue(from).trim();
    if (value) variables[name] = value;
  }
  return { theme, variables };
}

function sendTheme(appId: string): void {
  post({ type: 'appTheme', appId, ...currentTheme() });
}

// VS Code swaps the body's theme class when the user changes theme: every app hears the new one.
new MutationObserver(() => {
  for (const appId of frames.keys()) sendTheme(appId);
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });
