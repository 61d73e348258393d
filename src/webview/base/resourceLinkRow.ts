/** A `resource_link` of a result as a row with **Open** (a Call Tool result, an app's result, a plan step's result). */
import { clip, h, icon, visible } from './dom';
import { intentButton } from './intentButton';

/**
 * A `resource_link` block: its name, type and URI, and **Open** when the result's server is known — the extension reads
 * it from that server (`resources/read`) into a read-only tab; the URI is never opened as a file or by the system.
 */
export function resourceLinkRow(block: { uri?: unknown; name?: unknown; mimeType?: unknown }, server: string): HTMLElement {
  const uri = typeof block.uri === 'string' ? block.uri : '';
  const name = typeof block.name === 'string' && block.name ? block.name : uri;
  const { button, error } = intentButton(
    { type: 'openResource', server, uri, name },
    'The resource could not be opened.',
    icon('go-to-file'),
    ' Open',
  );
  button.setAttribute('aria-label', `Open resource ${visible(clip(name, 200))}`);
  button.title = `Read ${visible(clip(uri, 500))} from server ${visible(server)} into a read-only tab`;
  return h(
    'p',
    { class: 'resource-link' },
    icon('link'),
    ' ',
    h('strong', null, visible(clip(name, 200))),
    typeof block.mimeType === 'string' ? h('span', { class: 'muted' }, ` (${visible(clip(block.mimeType, 100))})`) : null,
    ' ',
    h('code', null, visible(clip(uri, 500))),
    ' ',
    server && uri ? button : null,
    ' ',
    error,
  );
}
