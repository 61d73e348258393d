/**
 * A plan's Safety section: writes code, what its steps' tools say of themselves, and the touched files' globs with
 * what they match.
 */
import type { TouchedGlobView } from '../../shared/protocol/files';
import type { PlanHeadView } from '../../shared/protocol/plan';
import { h, icon, visible } from '../base/dom';
import { saveUi, ui } from '../base/messaging';
import { section } from './parts';

export function renderSafety(plan: PlanHeadView): HTMLElement {
  const safety = plan.safety!;
  const writes = safety.writesCode;
  const rows: HTMLElement[] = [];
  rows.push(
    h(
      'p',
      { class: writes ? 'writes-code' : '' },
      icon(writes ? 'edit' : 'eye'),
      ' ',
      writes === undefined ? 'Writes code: not declared' : writes ? 'Writes code: yes' : 'Writes code: no',
    ),
  );
  if (safety.hintSummary) {
    const destructive = safety.destructive;
    rows.push(
      h(
        'p',
        {
          class: `tool-hints${destructive ? ' has-destructive' : ''}`,
          title: "What the steps' tools say about themselves (MCP tool annotations). These are the server's hints, not guarantees.",
        },
        icon(destructive ? 'warning' : 'info'),
        ' ',
        safety.hintSummary,
      ),
    );
  }
  const touched: TouchedGlobView[] | undefined = safety.touched;
  if (safety.globs.length === 0) rows.push(h('p', { class: 'muted' }, 'Touched files: none declared.'));
  else {
    const list = h('ul', { class: 'globs' });
    for (const glob of safety.globs) {
      const resolved = touched?.find((t) => t.glob === glob);
      const key = `glob:${plan.id}:${glob}`;
      // A glob outside the workspace is not searched: no count, only the flag and why.
      const count = !resolved ? 'counting…' : resolved.outside ? '' : globCount(resolved.count, plan.phase === 'awaiting_approval');
      const summary = h(
        'summary',
        null,
        h('code', null, visible(glob)),
        ' — ',
        count,
        resolved?.outside ? h('span', { class: 'flag danger' }, icon('warning'), ' outside the workspace') : null,
        resolved?.note ? h('span', { class: 'muted' }, ` (${visible(resolved.note)})`) : null,
      );
      const details = h(
        'details',
        {
          open: ui.open[key],
          ontoggle: (e) => {
            ui.open[key] = (e.target as HTMLDetailsElement).open;
            saveUi();
          },
        },
        summary,
        resolved && resolved.files.length
          ? h(
              'ul',
              { class: 'files' },
              resolved.files.map((f) => h('li', null, h('code', null, visible(f)))),
              resolved.count > resolved.files.length
                ? h('li', { class: 'muted' }, `… and ${resolved.count - resolved.files.length} more`)
                : null,
            )
          : h('p', { class: 'muted' }, resolved ? 'No file matches yet (the plan may create them).' : 'Resolving…'),
      );
      list.append(h('li', null, details));
    }
    rows.push(h('div', null, h('p', null, 'Touched files:'), list));
  }
  return section('Safety', ...rows);
}

/**
 * How many files a glob matches. Before the run it is what matches now, not what the plan will touch: "0 files" there
 * read as "touches nothing" for a plan that creates its files.
 */
function globCount(count: number, beforeRun: boolean): string {
  if (count === 0) return beforeRun ? 'no file matches yet' : 'no file matches';
  const files = `${count} file${count === 1 ? '' : 's'}`;
  return beforeRun ? `${files} match${count === 1 ? 'es' : ''} now` : files;
}
