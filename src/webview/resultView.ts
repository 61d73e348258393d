/** A tool's plain result as a readable card: text, images, resource links, embedded resources, structured content. */
import type { AppNetworkView } from '../shared/protocol/apps';
import type { ResultView } from '../shared/protocol/results';
import { asyncHandler, clip, h, icon, json, setText, visible } from './base/dom';
import { request } from './base/messaging';
import { formToggle } from './apps/formToggle';
import { intentButton } from './base/intentButton';
import { resourceLinkRow } from './base/resourceLinkRow';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const SAFE_IMAGE = /^image\/(png|jpeg|gif|webp|bmp)$/;

export function renderBlock(block: unknown, index: number, server: string): HTMLElement {
  if (!isObj(block)) return h('pre', { class: 'json' }, visible(clip(json(block))));
  switch (block.type) {
    case 'text':
      return h('pre', { class: 'text-block', aria: { label: `Text block ${index + 1}` } }, visible(clip(String(block.text ?? ''), 200000)));
    case 'image': {
      const mime = String(block.mimeType ?? '');
      const data = String(block.data ?? '');
      // Only base64 raster images become <img>: SVG could carry script-like content and other types are not images.
      if (SAFE_IMAGE.test(mime) && /^[A-Za-z0-9+/=\s]*$/.test(data)) {
        const img = h('img', { class: 'result-image', aria: { label: `Image ${index + 1} (${mime})` } });
        img.setAttribute('alt', `Image ${index + 1} (${mime})`);
        img.src = `data:${mime};base64,${data.replace(/\s/g, '')}`;
        return img;
      }
      return h('p', { class: 'muted' }, `Image of type ${visible(mime)} (${data.length} base64 characters) not shown.`);
    }
    case 'audio':
      return h('p', { class: 'muted' }, `Audio (${visible(String(block.mimeType ?? ''))}) not played.`);
    case 'resource_link':
      return resourceLinkRow(block, server);
    case 'resource': {
      const r = isObj(block.resource) ? block.resource : {};
      return h(
        'div',
        { class: 'resource' },
        h('p', null, icon('file'), ' ', h('code', null, visible(String(r.uri ?? '')))),
        typeof r.text === 'string'
          ? h('pre', { class: 'text-block' }, visible(clip(r.text, 200000)))
          : h('p', { class: 'muted' }, 'Binary content not shown.'),
      );
    }
    default:
      return h('pre', { class: 'json' }, visible(clip(json(block))));
  }
}

/** A result whose app showed it before the window reloaded: says so, and offers to start the app again. */
function reopenNote(itemId: string, uri: string): HTMLElement {
  const { button, error: err } = intentButton(
    { type: 'reopenApp', itemId },
    'The app could not be reopened.',
    icon('refresh'),
    ' Reopen app',
  );
  return h(
    'p',
    { class: 'app-note app-reopen', role: 'note' },
    icon('window'),
    ' The server’s app ',
    h('code', null, visible(uri)),
    ' showed this result before the window reloaded; it opens again once its server is running. ',
    button,
    ' ',
    err,
  );
}

const origins = (list: string[]) => list.flatMap((o, i) => [i ? ', ' : '', h('code', null, visible(o))]);

/**
 * The app's network notice: what its page asks to reach, with Allow / Keep blocked while it asks; what is allowed;
 * what Plangate refuses. Nothing is granted without the click.
 */
function networkNotice(itemId: string, view: AppNetworkView): HTMLElement {
  const err = h('span', { class: 'error-text', role: 'alert', aria: { live: 'assertive' } });
  const answer = (allow: boolean) =>
    asyncHandler(async (e: Event) => {
      const buttons = (e.currentTarget as HTMLElement).parentElement?.querySelectorAll('button') ?? [];
      setText(err, '');
      buttons.forEach((b) => (b.disabled = true));
      const reply = await request({ type: 'appNetwork', itemId, allow });
      buttons.forEach((b) => (b.disabled = false));
      if (!reply.ok) setText(err, reply.error ?? 'The answer did not reach Plangate.');
    });
  const asking = view.asking.length > 0 && !view.kept;
  return h(
    'div',
    {
      class: 'app-note app-network',
      role: 'group',
      aria: { label: 'Network access of the server’s app' },
      title:
        'Allow lets this server’s apps reach these origins in this workspace; the panel reloads, and open apps start again. ' +
        'Plangate: Reset Server App Network Access forgets every grant.',
    },
    asking
      ? h(
          'p',
          null,
          icon('globe'),
          ' ',
          h('strong', null, visible(view.server)),
          '’s app asks to reach: ',
          ...origins(view.asking),
          ' ',
          h('button', { type: 'button', class: 'small', onclick: answer(true) }, 'Allow'),
          ' ',
          h('button', { type: 'button', class: 'secondary small', onclick: answer(false) }, 'Keep blocked'),
          ' ',
          err,
        )
      : null,
    view.kept && view.asking.length ? h('p', null, icon('circle-slash'), ' Kept blocked: ', ...origins(view.asking)) : null,
    view.allowed.length ? h('p', null, icon('pass'), ' Allowed: ', ...origins(view.allowed)) : null,
    view.refused.length
      ? h(
          'p',
          null,
          icon('warning'),
          ' Not offered: ',
          ...view.refused.flatMap((r, i) => [i ? '; ' : '', h('code', null, visible(r.value)), ` (${visible(r.why)})`]),
        )
      : null,
  );
}

export function renderResult(view: ResultView, itemId = ''): HTMLElement {
  const result = view.result;
  const failed = Boolean(view.error || result?.isError);
  return h(
    'div',
    { class: 'result' },
    h(
      'header',
      { class: 'plan-header' },
      h('h1', null, 'Result'),
      h(
        'span',
        { class: `badge ${failed ? 'outcome-failed' : 'outcome-completed'}` },
        view.error ? 'call failed' : result?.isError ? 'tool error' : 'ok',
      ),
      h('span', { class: 'origin' }, icon('server'), ' ', visible(view.server), ' · ', h('code', null, visible(view.tool))),
      view.durationMs !== undefined ? h('span', { class: 'muted' }, `${view.durationMs} ms`) : null,
    ),
    view.error ? h('p', { class: 'step-error', role: 'alert' }, icon('error'), ' ', visible(view.error)) : null,
    view.app && view.formOf && itemId
      ? formToggle(itemId, 'app', view.app.uri)
      : view.app
        ? h(
            'p',
            { class: 'app-caption' },
            icon('window'),
            ' The server’s app ',
            h('code', null, visible(view.app.uri)),
            ' shows this result below. Its tool calls go through Plangate: each asks you first (a collect form’s Done only stages it for your review).',
          )
        : null,
    view.network && view.app && itemId ? networkNotice(itemId, view.network) : null,
    view.appNote ? h('p', { class: 'app-note', role: 'note' }, icon('info'), ' ', visible(view.appNote)) : null,
    view.reopen && itemId ? reopenNote(itemId, view.reopen) : null,
    view.problems?.length
      ? h(
          'section',
          { class: 'card' },
          h('h2', null, 'Not a valid plan'),
          h('p', null, 'The result declares an orchestrated_plan but does not hold a valid one:'),
          h(
            'ul',
            { class: 'issues error' },
            view.problems.map((p) => h('li', null, h('code', null, visible(p.path || '(envelope)')), ': ', visible(p.message))),
          ),
        )
      : null,
    Object.keys(view.args).length
      ? h('details', { class: 'args' }, h('summary', null, 'Arguments'), h('pre', { class: 'json' }, visible(clip(json(view.args)))))
      : null,
    result && view.app
      ? h(
          'details',
          { class: 'args' },
          h('summary', null, 'Content as text'),
          Array.isArray(result.content) && result.content.length
            ? result.content.slice(0, 200).map((b, i) => renderBlock(b, i, view.server))
            : h('p', { class: 'muted' }, 'No content.'),
        )
      : result
        ? h(
            'section',
            { class: 'card', aria: { label: 'Content' } },
            h('h2', null, 'Content'),
            Array.isArray(result.content) && result.content.length
              ? result.content.slice(0, 200).map((b, i) => renderBlock(b, i, view.server))
              : h('p', { class: 'muted' }, 'No content.'),
          )
        : null,
    result && result.structuredContent !== undefined
      ? h(
          'section',
          { class: 'card' },
          h('h2', null, 'Structured content'),
          h('pre', { class: 'json' }, visible(clip(json(result.structuredContent), 200000))),
        )
      : null,
  );
}
