/**
 * The toggle of a collect-mode form between Plangate's own form and the server's form app (mcp-rune's forms are both):
 * says which one is shown and switches the panel item in place. The submission is the same either way, so nothing
 * staged is lost; the extension keeps a hidden app open while the native form is shown (src/ui/planPanel.ts).
 */
import { h, icon, visible } from '../base/dom';
import { intentButton } from '../base/intentButton';

/** The line above a form: which one is shown (`shown`), the page of the server's app, and the button to switch. */
export function formToggle(itemId: string, shown: 'native' | 'app', uri: string): HTMLElement {
  const to = shown === 'native' ? 'app' : 'native';
  const { button, error: err } = intentButton(
    { type: 'switchForm', itemId, to },
    'Could not switch.',
    icon(to === 'app' ? 'window' : 'note'),
    to === 'app' ? ' Show the server’s app' : ' Show Plangate’s form',
  );
  return h(
    'p',
    { class: 'form-toggle', role: 'note' },
    icon('arrow-swap'),
    shown === 'native'
      ? [' Shown: Plangate’s form. The server also offers its own app for it (', h('code', null, visible(uri)), '). ']
      : [
          ' Shown: the server’s app (',
          h('code', null, visible(uri)),
          '). Its Done stages the form for your review here; nothing is submitted until you Submit. ',
        ],
    button,
    ' ',
    err,
  );
}
