/**
 * A collect-mode form (mcp-rune) rendered natively from its schema: fieldsets, groups, labels, descriptions,
 * required marks, defaults and every field type; then the staged review (the entry as the server holds it, for an
 * update each field against its current value), remote approval, and the outcome. The webview only collects what
 * the controls hold; the extension converts and checks the values (core/forms/submissions.ts readFormControls) and
 * answers with per-field problems. What the user types is kept as drafts (messaging.ts `ui.drafts`), so a failed
 * stage or submit, a re-render, or a hidden or reloaded webview loses nothing.
 */
import type { CollectFormSchemaView, ControlValue, FieldChange, FormField, FormFieldset } from '../shared/forms';
import type { CollectFormView } from '../shared/protocol/collect';
import { clip, h, icon, invisibleNote, json, setText, visible } from './base/dom';
import { post, request, requestRender, saveUi, ui } from './base/messaging';
import { formToggle } from './apps/formToggle';

type Action = 'stage' | 'submit' | 'discard' | 'requestApproval';

interface Control {
  field: FormField;
  wrapper: HTMLElement;
  read(): ControlValue;
}

const draftKey = (submissionId: string, name: string) => `collect:${submissionId}:${name}`;
const editKey = (submissionId: string) => `collect-edit:${submissionId}`;
const domId = (submissionId: string, name: string) => `cf-${submissionId}-${name}`.replace(/[^A-Za-z0-9_-]/g, '_');

/** Mirrors isFieldVisible (core/plan/collectForm.ts) on the controls' raw values; kept here so the webview bundle stays free of zod. */
function shown(field: FormField, values: Record<string, ControlValue>): boolean {
  const rule = field.visibleWhen;
  if (!rule || typeof rule.field !== 'string') return true;
  const current = Object.hasOwn(values, rule.field) ? values[rule.field] : undefined;
  const text = current === undefined ? '' : String(current);
  if (rule.notEquals !== undefined) return text !== String(rule.notEquals);
  if (rule.equals !== undefined) return text === String(rule.equals);
  return true;
}

/** A header cell with its scope (the DOM builder knows no `scope` attribute). */
function th(scope: 'col' | 'row', ...children: Parameters<typeof h>[2][]): HTMLTableCellElement {
  const cell = h('th', null, ...children);
  cell.scope = scope;
  return cell;
}

function valueText(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  if (Array.isArray(value)) return value.length ? value.map((v) => (typeof v === 'string' ? v : json(v))).join(', ') : '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : json(value);
}

/** The draft of a field, when the user changed it (JSON of its control value). */
function draftOf(submissionId: string, name: string): ControlValue | undefined {
  const raw = ui.drafts[draftKey(submissionId, name)];
  if (raw === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === 'string' || typeof v === 'boolean' || (Array.isArray(v) && v.every((x) => typeof x === 'string'))
      ? (v as ControlValue)
      : undefined;
  } catch {
    return undefined;
  }
}

function clearDrafts(submissionId: string): void {
  const prefix = `collect:${submissionId}:`;
  let changed = false;
  for (const key of Object.keys(ui.drafts))
    if (key.startsWith(prefix)) {
      delete ui.drafts[key];
      changed = true;
    }
  if (ui.open[editKey(submissionId)] !== undefined) {
    delete ui.open[editKey(submissionId)];
    changed = true;
  }
  if (changed) saveUi();
}

// ───────────────────────────── fields ─────────────────────────────

function renderControl(
  record: CollectFormSchemaView,
  field: FormField,
  initial: ControlValue,
  problem: string | undefined,
  onChange: () => void,
): Control {
  const id = domId(record.id, field.name);
  const start = draftOf(record.id, field.name) ?? initial;
  const keep = (v: ControlValue) => {
    ui.drafts[draftKey(record.id, field.name)] = JSON.stringify(v);
    saveUi();
    post({ type: 'collectDraft', submissionId: record.id, field: field.name, value: v });
    onChange();
  };
  const helpId = field.description ? `${id}-help` : undefined;
  const errId = problem ? `${id}-error` : undefined;
  const describedBy = [helpId, errId].filter(Boolean).join(' ') || undefined;
  const aria = { describedby: describedBy, invalid: problem ? 'true' : undefined, required: field.required ? 'true' : undefined };
  const required = field.required ? h('span', { class: 'required', aria: { hidden: 'true' } }, ' *') : null;
  const label = (forId: string | undefined) => h('label', forId ? { for: forId } : null, visible(field.label), required);
  const help = field.description ? h('div', { class: 'help', id: helpId }, visible(field.description)) : null;
  const error = problem ? h('div', { class: 'field-error', id: errId }, icon('error'), ' ', visible(problem)) : null;
  const text = typeof start === 'string' ? start : '';
  const placeholder = field.placeholder ? visible(field.placeholder) : undefined;
  const v = field.validation ?? {};
  const num = (k: string) => (typeof v[k] === 'number' ? String(v[k]) : undefined);

  switch (field.type) {
    case 'checkbox': {
      const box = h('input', {
        id,
        type: 'checkbox',
        checked: start === true,
        aria,
        onchange: (e) => keep((e.target as HTMLInputElement).checked),
      });
      return { field, read: () => box.checked, wrapper: h('div', { class: 'field checkbox' }, box, label(id), help, error) };
    }
    case 'textarea': {
      const area = h('textarea', {
        id,
        rows: 3,
        value: text,
        placeholder,
        aria,
        oninput: (e) => keep((e.target as HTMLTextAreaElement).value),
      });
      return { field, read: () => area.value, wrapper: h('div', { class: 'field' }, label(id), area, invisibleNote(text), help, error) };
    }
    case 'select': {
      const options = field.options ?? (field.enumValues ?? []).map((value) => ({ value, label: value }));
      const hasValue = options.some((o) => String(o.value) === text);
      const select = h(
        'select',
        { id, aria, onchange: (e) => keep((e.target as HTMLSelectElement).value) },
        h('option', { value: '' }, field.required ? '— choose —' : '(none)'),
        text !== '' && !hasValue ? h('option', { value: text, selected: true }, `${visible(text)} (current value)`) : null,
        options.map((o) => h('option', { value: String(o.value), selected: String(o.value) === text }, visible(o.label))),
      );
      return { field, read: () => select.value, wrapper: h('div', { class: 'field' }, label(id), select, help, error) };
    }
    case 'multiselect': {
      const chosen = new Set(Array.isArray(start) ? start : []);
      const options = field.options ?? [];
      const select = h(
        'select',
        { id, multiple: true, aria, onchange: () => keep(Array.from(select.selectedOptions, (o) => o.value)) },
        options.map((o) => h('option', { value: String(o.value), selected: chosen.has(String(o.value)) }, visible(o.label))),
      );
      select.size = Math.min(Math.max(options.length, 2), 6);
      return {
        field,
        read: () => Array.from(select.selectedOptions, (o) => o.value),
        wrapper: h(
          'div',
          { class: 'field' },
          label(id),
          select,
          h('div', { class: 'help' }, 'Ctrl/Cmd+click chooses several.'),
          help,
          error,
        ),
      };
    }
    case 'checkbox_group': {
      const chosen = new Set(Array.isArray(start) ? start : []);
      const boxes = (field.options ?? []).map((o, i) => {
        const boxId = `${id}-${i}`;
        const box = h('input', { id: boxId, type: 'checkbox', checked: chosen.has(String(o.value)), onchange: () => keep(readBoxes()) });
        box.value = String(o.value);
        return { box, el: h('span', { class: 'choice' }, box, h('label', { for: boxId }, visible(o.label))) };
      });
      const readBoxes = () => boxes.filter((b) => b.box.checked).map((b) => b.box.value);
      const set = h(
        'fieldset',
        { class: 'field choices', id, aria },
        h('legend', null, visible(field.label), required),
        h(
          'div',
          { class: 'choice-list' },
          boxes.map((b) => b.el),
        ),
        help,
        error,
      );
      return { field, read: readBoxes, wrapper: set };
    }
    case 'color': {
      const picker = h('input', {
        id: `${id}-picker`,
        type: 'color',
        value: text || '#000000',
        aria: { label: `${field.label}: pick a color` },
      });
      const hex = h('input', {
        id,
        type: 'text',
        value: text,
        placeholder: placeholder ?? '#rrggbb (empty: no color)',
        aria,
        oninput: (e) => {
          const value = (e.target as HTMLInputElement).value.trim();
          if (/^#[0-9a-fA-F]{6}$/.test(value)) picker.value = value.toLowerCase();
          keep(value);
        },
      });
      hex.classList.add('hex');
      picker.addEventListener('input', () => {
        hex.value = picker.value;
        keep(picker.value);
      });
      return {
        field,
        read: () => hex.value,
        wrapper: h('div', { class: 'field' }, label(id), h('div', { class: 'color-field' }, picker, hex), help, error),
      };
    }
    default: {
      // text, email, url, number, date, datetime-local, time
      const type = field.type === 'text' ? 'text' : field.type;
      const input = h('input', {
        id,
        type,
        value: text,
        placeholder,
        aria,
        min: field.type === 'number' ? num('min') : undefined,
        max: field.type === 'number' ? num('max') : undefined,
        step: field.type === 'number' ? (field.kind === 'integer' ? '1' : 'any') : undefined,
        oninput: (e) => keep((e.target as HTMLInputElement).value),
      });
      return { field, read: () => input.value, wrapper: h('div', { class: 'field' }, label(id), input, invisibleNote(text), help, error) };
    }
  }
}

function renderForm(
  view: CollectFormView,
  onAction: (action: Action, controls?: Record<string, ControlValue>) => void,
): { el: HTMLElement; read(): Record<string, ControlValue> } {
  const { record } = view;
  const schema = record.form.schema;
  const problems = new Map((view.problems ?? []).map((p) => [p.path, p.message]));
  const controls: Control[] = [];
  const read = () => Object.fromEntries(controls.map((c) => [c.field.name, c.read()]));
  const refresh = () => {
    const values = read();
    for (const c of controls) c.wrapper.hidden = !shown(c.field, values);
  };
  const fieldsIn = (group: string) => schema.fields.filter((f) => f.group === group);
  const layouts = schema.groupLayouts ?? {};
  const sections = schema.fieldsets.map((fs: FormFieldset) => {
    const groups = fs.groups
      .map((group) => {
        const fields = fieldsIn(group).map((field) => {
          const start =
            view.draft && Object.hasOwn(view.draft, field.name)
              ? view.draft[field.name]!
              : Object.hasOwn(view.initial, field.name)
                ? view.initial[field.name]!
                : '';
          const control = renderControl(record, field, start, problems.get(field.name), refresh);
          controls.push(control);
          return control.wrapper;
        });
        if (!fields.length) return null;
        const layout = layouts[group];
        const row = typeof layout === 'object' && layout !== null && (layout as { type?: unknown }).type === 'row';
        return h('div', { class: `form-group${row ? ' row' : ''}`, data: { group } }, fields);
      })
      .filter((g): g is HTMLDivElement => g !== null);
    if (!groups.length) return null;
    return h(
      'fieldset',
      { class: 'form-section' },
      h('legend', null, visible(fs.title), fs.required ? h('span', { class: 'muted' }, ' (required)') : null),
      fs.description ? h('p', { class: 'help' }, visible(fs.description)) : null,
      groups,
    );
  });
  const form = h(
    'form',
    {
      class: 'collect-form',
      aria: { label: visible(schema.title) },
      onsubmit: (e) => {
        e.preventDefault();
        onAction(record.form.submitMode === 'collect' ? 'stage' : 'submit', read());
      },
    },
    sections,
  );
  form.noValidate = true; // the extension checks the values (and names the field); the browser's bubbles would be a second voice
  refresh();
  return { el: form, read };
}

// ───────────────────────────── review ─────────────────────────────

function renderReview(view: CollectFormView): HTMLElement {
  const { record } = view;
  const update = record.form.mode === 'update';
  const rows: FieldChange[] = view.changes ?? [];
  const changed = rows.filter((r) => r.changed).length;
  const caption = update
    ? `${changed} of ${rows.length} field${rows.length === 1 ? '' : 's'} change${changed === 1 ? 's' : ''}`
    : `${rows.length} field${rows.length === 1 ? '' : 's'}`;
  const table = h(
    'table',
    { class: 'review', aria: { label: 'Staged entry' } },
    h('thead', null, h('tr', null, th('col', 'Field'), update ? th('col', 'Current') : null, th('col', update ? 'Staged' : 'Value'))),
    h(
      'tbody',
      null,
      rows.map((r) =>
        h(
          'tr',
          { class: update && !r.changed ? 'unchanged' : r.changed && update ? 'changed' : '' },
          th('row', visible(r.label), r.extra ? h('span', { class: 'muted' }, ' (not a form field)') : null),
          update ? h('td', null, visible(clip(valueText(r.before), 500))) : null,
          h(
            'td',
            null,
            visible(clip(valueText(r.after), 500)),
            update && r.changed ? [' ', h('span', { class: 'flag edited' }, 'changed')] : null,
          ),
        ),
      ),
    ),
  );
  const where = record.entryShown
    ? `As ${record.origin.server} holds it (get_form_data)`
    : `As Plangate staged it (${record.origin.server} did not show its entry)`;
  return h(
    'section',
    { class: 'card review-card', aria: { label: 'Staged for review' } },
    h('h2', null, icon('inbox'), ' Staged for review'),
    h('p', { class: 'muted' }, `${where}: ${caption}.`),
    rows.length ? table : h('p', { class: 'muted' }, 'The staged entry holds no fields.'),
  );
}

function renderHidden(record: CollectFormSchemaView): HTMLElement | null {
  const hidden = record.form.hiddenValues;
  const parent = record.form.parentContext;
  const entries = hidden ? Object.entries(hidden) : [];
  if (!entries.length && !parent) return null;
  return h(
    'div',
    { class: 'notice hidden-values' },
    parent
      ? h(
          'p',
          null,
          icon('link'),
          ' Belongs to: ',
          h('strong', null, visible(parent.label)),
          parent.label.includes(parent.parentId) ? null : ` (${visible(parent.parentModel)} ${visible(parent.parentId)})`,
        )
      : null,
    entries.length
      ? h(
          'p',
          null,
          'Also submitted, not shown as fields: ',
          entries.map(([k, v], i) => [i ? ', ' : '', h('code', null, visible(k)), ' = ', visible(clip(valueText(v), 200))]),
        )
      : null,
  );
}

function renderApproval(view: CollectFormView, act: (a: Action) => void, busy: boolean): HTMLElement | null {
  const { record } = view;
  const approval = record.approval;
  if (!approval && !view.approvalTools) return null;
  const requestButton = (label: string) =>
    h(
      'button',
      { type: 'button', class: 'secondary', disabled: busy || !!view.serverDown, onclick: () => act('requestApproval') },
      icon(view.busy === 'approval' ? 'loading codicon-modifier-spin' : 'person'),
      view.busy === 'approval' ? ' Requesting approval…' : ` ${label}`,
    );
  let body: (HTMLElement | string | null)[];
  if (!approval) {
    body = [
      h(
        'p',
        null,
        record.approvalRequired
          ? 'This form was sent for approval before; the new staging needs an approval too.'
          : `${record.origin.server} can ask a reviewer to approve the staged entry before it is submitted.`,
      ),
      h('div', { class: 'buttons' }, requestButton('Request approval')),
    ];
  } else if (approval.status === 'pending') {
    const next = view.nextCheckAt !== undefined ? new Date(view.nextCheckAt).toLocaleTimeString() : undefined;
    body = [
      h(
        'p',
        { role: 'status' },
        icon('loading codicon-modifier-spin'),
        ' Waiting for the reviewer ',
        h(
          'span',
          { class: 'muted' },
          `(approval ${visible(approval.id)}${next !== undefined ? `; next check at ${next}` : view.error ? '' : '; not checking now'})`,
        ),
      ),
      view.error ? h('div', { class: 'buttons' }, requestButton('Request approval again')) : null,
    ];
  } else if (approval.status === 'approved') {
    body = [h('p', null, icon('pass'), ' Approved by the reviewer', approval.reason ? `: ${visible(approval.reason)}` : '.')];
  } else {
    body = [
      h('p', { class: 'step-error' }, icon('error'), ' Rejected by the reviewer', approval.reason ? `: ${visible(approval.reason)}` : '.'),
      h('p', { class: 'muted' }, 'Edit the form and stage it again, then request approval again.'),
    ];
  }
  return h('section', { class: 'card', aria: { label: 'Approval' } }, h('h2', null, 'Approval'), ...body);
}

function renderOutcome(record: CollectFormSchemaView): HTMLElement {
  const attrs = record.submitted?.args.attributes;
  switch (record.outcome) {
    case 'submitted':
      return h(
        'section',
        { class: 'card', aria: { label: 'Outcome' } },
        h('h2', null, icon('pass'), ' Submitted'),
        h(
          'p',
          null,
          'Plangate called ',
          h('code', null, visible(record.submitted?.tool ?? '')),
          ` on ${visible(record.origin.server)}: `,
          visible(record.result ?? 'ok'),
          '.',
        ),
        attrs && typeof attrs === 'object'
          ? h(
              'table',
              { class: 'review', aria: { label: 'Submitted attributes' } },
              h(
                'tbody',
                null,
                Object.entries(attrs as Record<string, unknown>).map(([k, v]) =>
                  h(
                    'tr',
                    null,
                    th('row', visible(record.form.schema.fields.find((f) => f.name === k)?.label ?? k)),
                    h('td', null, visible(clip(valueText(v), 500))),
                  ),
                ),
              ),
            )
          : null,
      );
    case 'discarded':
      return h(
        'section',
        { class: 'card', aria: { label: 'Outcome' } },
        h('h2', null, icon('trash'), ' Discarded'),
        h('p', null, 'Nothing was submitted.'),
      );
    case 'replaced':
      return h(
        'section',
        { class: 'card', aria: { label: 'Outcome' } },
        h('h2', null, icon('arrow-swap'), ' Replaced'),
        h(
          'p',
          null,
          `Another ${visible(record.form.schema.model)} form was staged on ${visible(record.origin.server)} after this one; the server keeps one staged entry per model, so this one was not submitted.`,
        ),
      );
    default:
      return h('p', null, 'Finished.');
  }
}

// ───────────────────────────── the item ─────────────────────────────

/** The panel item of a collect-mode form. */
export function renderCollectForm(view: CollectFormView, itemId = ''): HTMLElement {
  const { record } = view;
  const form = record.form;
  const finished = record.phase === 'finished';
  if (finished) clearDrafts(record.id);
  const stateText = record.stateText;
  const what =
    form.mode === 'update'
      ? ['updates ', visible(form.schema.model), form.recordId !== undefined ? [' ', h('code', null, visible(form.recordId))] : null]
      : ['creates a ', visible(form.schema.model)];
  const header = h(
    'header',
    { class: 'plan-header' },
    h('h1', null, visible(form.schema.title)),
    h('span', { class: `badge form-${finished ? record.outcome : record.phase}` }, stateText),
    h(
      'span',
      { class: 'origin' },
      icon('server'),
      ' ',
      visible(record.origin.server),
      ' · ',
      h('code', null, visible(record.origin.tool)),
      ' · ',
      what,
      ` · ${form.submitMode === 'collect' ? 'review before submit' : 'submits directly'}`,
    ),
  );
  // A submitted form shows what was sent; a discarded or replaced one what had been staged.
  if (finished)
    return h(
      'div',
      { class: 'collect' },
      header,
      renderHidden(record),
      renderOutcome(record),
      record.outcome !== 'submitted' && view.changes?.length ? renderReview(view) : null,
    );

  const err = h(
    'div',
    { class: 'error-text', role: 'alert', aria: { live: 'assertive' } },
    view.error ? visible(view.error) : record.lastError ? visible(record.lastError) : '',
  );
  const busy = view.busy !== undefined;
  const act = async (action: Action, controls?: Record<string, ControlValue>) => {
    setText(err, '');
    const reply = await request({ type: 'collectForm', submissionId: record.id, action, controls });
    if (!reply.ok) {
      setText(err, reply.error ?? 'The action failed.');
      return;
    }
    if (action === 'stage') {
      ui.open[editKey(record.id)] = false;
      saveUi();
      requestRender();
    }
  };
  const staged = record.phase === 'staged';
  const editing = !staged || ui.open[editKey(record.id)] === true;
  const down = view.serverDown ? h('p', { class: 'notice' }, icon('warning'), ' ', visible(view.serverDown)) : null;
  const toggle = view.serverApp && itemId ? formToggle(itemId, 'native', view.serverApp) : null;
  const discard = h(
    'button',
    { type: 'button', class: 'secondary', disabled: busy, onclick: () => void act('discard') },
    icon('trash'),
    ' Discard',
  );

  if (editing) {
    const formEl = renderForm(view, (a, c) => void act(a, c));
    const primary =
      form.submitMode === 'collect'
        ? h(
            'button',
            { type: 'button', class: 'primary', disabled: busy || !!view.serverDown, onclick: () => void act('stage', formEl.read()) },
            icon(view.busy === 'stage' ? 'loading codicon-modifier-spin' : 'inbox'),
            view.busy === 'stage' ? ' Staging…' : ' Stage for review',
          )
        : h(
            'button',
            { type: 'button', class: 'primary', disabled: busy || !!view.serverDown, onclick: () => void act('submit', formEl.read()) },
            icon(view.busy === 'submit' ? 'loading codicon-modifier-spin' : 'check'),
            view.busy === 'submit' ? ' Submitting…' : ' Submit',
          );
    const back = staged
      ? h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            disabled: busy,
            onclick: () => {
              ui.open[editKey(record.id)] = false;
              saveUi();
              requestRender();
            },
          },
          icon('arrow-left'),
          ' Back to review',
        )
      : null;
    return h(
      'div',
      { class: 'collect' },
      header,
      toggle,
      renderHidden(record),
      down,
      staged
        ? h('p', { class: 'notice' }, icon('info'), ' Editing a staged form: Stage for review again to replace the staged entry.')
        : null,
      formEl.el,
      h('div', { class: 'action-bar' }, h('div', { class: 'buttons' }, primary, back, discard), err),
    );
  }

  const blockerId = `blocker-${record.id}`;
  const submit = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      disabled: busy || !!view.submitBlocker || !!view.serverDown,
      aria: { describedby: view.submitBlocker ? blockerId : undefined },
      onclick: () => void act('submit'),
    },
    icon(view.busy === 'submit' ? 'loading codicon-modifier-spin' : 'check'),
    view.busy === 'submit' ? ' Submitting…' : ' Submit',
  );
  const edit = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      disabled: busy,
      onclick: () => {
        ui.open[editKey(record.id)] = true;
        saveUi();
        requestRender();
      },
    },
    icon('edit'),
    ' Edit form',
  );
  const sends = view.submitCall
    ? h(
        'details',
        { class: 'args' },
        h('summary', null, `What Submit sends (${view.submitCall.tool})`),
        h('pre', { class: 'json' }, visible(clip(json(view.submitCall.args)))),
      )
    : null;
  return h(
    'div',
    { class: 'collect' },
    header,
    toggle,
    renderHidden(record),
    down,
    renderReview(view),
    renderApproval(view, (a) => void act(a), busy),
    sends,
    h(
      'div',
      { class: 'action-bar' },
      h(
        'div',
        { class: 'buttons' },
        submit,
        edit,
        discard,
        view.submitBlocker ? h('span', { class: 'muted', id: blockerId }, visible(view.submitBlocker)) : null,
      ),
      err,
    ),
  );
}
