/**
 * The Call Tool form, generated from a tool's JSON Schema: strings, numbers, integers, booleans, enums,
 * arrays of enums and nested objects get native controls; anything a form can't express honestly gets a
 * JSON editor. Every control starts at the last arguments used, else at the schema's `default` (an enum shows its
 * default selected, not "(none)"). Values are checked before sending; the extension validates again against the
 * schema.
 */
import type { CallFormView } from '../shared/protocol/callForm';
import type { ElicitView } from '../shared/protocol/cards';
import { asyncHandler, editableJson, h, icon, invisibleNote, setText, visible } from './base/dom';
import { post, request, saveUi, ui } from './base/messaging';

type Schema = Record<string, unknown>;

interface FieldReader {
  /** Reads the value; returns an error text for a value the user must fix. `undefined` value = omit. */
  read(): { value?: unknown; error?: string };
}

const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function enumOf(schema: Schema): { values: unknown[]; labels: string[] } | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : undefined;
    return { values: schema.enum, labels: schema.enum.map((v, i) => String(names?.[i] ?? v)) };
  }
  const alts = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(alts) && alts.length && alts.every((a) => isObj(a) && 'const' in a)) {
    return { values: alts.map((a) => (a as Schema).const), labels: alts.map((a) => String((a as Schema).title ?? (a as Schema).const)) };
  }
  return undefined;
}

function typeOf(schema: Schema): string | undefined {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const nonNull = t.filter((x) => x !== 'null');
    return nonNull.length === 1 ? String(nonNull[0]) : undefined;
  }
  if (enumOf(schema)) return 'enum';
  return undefined;
}

/** Whether a native control can express the schema honestly. */
function isSimple(schema: Schema, depth: number): boolean {
  const t = typeOf(schema);
  if (enumOf(schema)) return enumOf(schema)!.values.every((v) => typeof v === 'string' || typeof v === 'number');
  if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean') return true;
  if (t === 'array')
    return isObj(schema.items) && !!enumOf(schema.items) && enumOf(schema.items)!.values.every((v) => typeof v === 'string');
  if (t === 'object')
    return depth < 3 && isObj(schema.properties) && Object.values(schema.properties).every((p) => isObj(p) && isSimple(p, depth + 1));
  return false;
}

function renderField(
  path: string,
  name: string,
  schema: Schema,
  required: boolean,
  initial: unknown,
  depth: number,
): { el: HTMLElement; reader: FieldReader } {
  const id = `cf-${path}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const title = String(schema.title ?? name);
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  const labelText = [visible(title), required ? h('span', { class: 'required', aria: { hidden: 'true' } }, ' *') : null];
  const help = description ? h('div', { class: 'help', id: `${id}-help` }, visible(description)) : null;
  const describedBy = description ? `${id}-help` : undefined;
  const draftKey = `call:${path}`;
  const draft = ui.drafts[draftKey];
  const keep = (v: string) => {
    ui.drafts[draftKey] = v;
    saveUi();
  };
  const t = typeOf(schema);
  const en = enumOf(schema);

  if (!isSimple(schema, depth)) {
    const text =
      draft ?? (initial === undefined ? (schema.default !== undefined ? editableJson(schema.default) : '') : editableJson(initial));
    const area = h('textarea', {
      id,
      rows: 5,
      value: text,
      aria: { describedby: describedBy },
      oninput: (e) => keep((e.target as HTMLTextAreaElement).value),
    });
    return {
      el: h('div', { class: 'field' }, h('label', { for: id }, ...labelText, h('span', { class: 'muted' }, ' (JSON)')), area, help),
      reader: {
        read: () => {
          const s = area.value.trim();
          if (!s) return required ? { error: `${title}: required` } : {};
          try {
            return { value: JSON.parse(s) };
          } catch (e) {
            return { error: `${title}: not valid JSON (${(e as Error).message})` };
          }
        },
      },
    };
  }
  if (en) {
    const current = draft ?? (initial !== undefined ? String(initial) : schema.default !== undefined ? String(schema.default) : '');
    const select = h(
      'select',
      { id, aria: { describedby: describedBy }, onchange: (e) => keep((e.target as HTMLSelectElement).value) },
      h('option', { value: '' }, required ? '— choose —' : '(none)'),
      en.values.map((v, i) => h('option', { value: String(v), selected: String(v) === current }, visible(en.labels[i]))),
    );
    return {
      el: h('div', { class: 'field' }, h('label', { for: id }, ...labelText), select, help),
      reader: {
        read: () => {
          if (!select.value) return required ? { error: `${title}: required` } : {};
          const found = en.values.find((v) => String(v) === select.value);
          return { value: found };
        },
      },
    };
  }
  if (t === 'boolean') {
    const checked = draft !== undefined ? draft === 'true' : initial !== undefined ? initial === true : schema.default === true;
    const box = h('input', {
      id,
      type: 'checkbox',
      checked,
      aria: { describedby: describedBy },
      onchange: (e) => keep(String((e.target as HTMLInputElement).checked)),
    });
    return {
      el: h('div', { class: 'field checkbox' }, box, h('label', { for: id }, ...labelText), help),
      reader: { read: () => ({ value: box.checked }) },
    };
  }
  if (t === 'number' || t === 'integer') {
    const text = draft ?? (initial !== undefined ? String(initial) : schema.default !== undefined ? String(schema.default) : '');
    const input = h('input', {
      id,
      type: 'number',
      value: text,
      step: t === 'integer' ? '1' : 'any',
      aria: { describedby: describedBy },
      min: typeof schema.minimum === 'number' ? String(schema.minimum) : undefined,
      max: typeof schema.maximum === 'number' ? String(schema.maximum) : undefined,
      oninput: (e) => keep((e.target as HTMLInputElement).value),
    });
    return {
      el: h('div', { class: 'field' }, h('label', { for: id }, ...labelText), input, help),
      reader: {
        read: () => {
          const s = input.value.trim();
          if (!s) return required ? { error: `${title}: required` } : {};
          const n = Number(s);
          if (!Number.isFinite(n)) return { error: `${title}: not a number` };
          if (t === 'integer' && !Number.isInteger(n)) return { error: `${title}: must be a whole number` };
          if (typeof schema.minimum === 'number' && n < schema.minimum) return { error: `${title}: must be at least ${schema.minimum}` };
          if (typeof schema.maximum === 'number' && n > schema.maximum) return { error: `${title}: must be at most ${schema.maximum}` };
          return { value: n };
        },
      },
    };
  }
  if (t === 'string') {
    const text = draft ?? (typeof initial === 'string' ? initial : typeof schema.default === 'string' ? schema.default : '');
    const long = typeof schema.maxLength !== 'number' && /content|text|body|description|message|prompt/i.test(name);
    const input = long
      ? h('textarea', {
          id,
          rows: 4,
          value: text,
          aria: { describedby: describedBy },
          oninput: (e) => keep((e.target as HTMLTextAreaElement).value),
        })
      : h('input', {
          id,
          type: 'text',
          value: text,
          aria: { describedby: describedBy },
          oninput: (e) => keep((e.target as HTMLInputElement).value),
        });
    return {
      el: h('div', { class: 'field' }, h('label', { for: id }, ...labelText), input, invisibleNote(text), help),
      reader: {
        read: () => {
          const s = (input as HTMLInputElement).value;
          if (!s) return required ? { error: `${title}: required` } : {};
          if (typeof schema.minLength === 'number' && s.length < schema.minLength)
            return { error: `${title}: at least ${schema.minLength} characters` };
          return { value: s };
        },
      },
    };
  }
  if (t === 'array') {
    const items = enumOf(schema.items as Schema)!;
    const start = Array.isArray(initial) ? initial : Array.isArray(schema.default) ? schema.default : [];
    const chosen = new Set<string>(draft !== undefined ? (JSON.parse(draft) as string[]) : start.map(String));
    const boxes = items.values.map((v, i) => {
      const boxId = `${id}-${i}`;
      const box = h('input', {
        id: boxId,
        type: 'checkbox',
        checked: chosen.has(String(v)),
        onchange: () => keep(JSON.stringify(boxesRead())),
      });
      return { v, box, el: h('span', { class: 'choice' }, box, h('label', { for: boxId }, visible(items.labels[i]))) };
    });
    const boxesRead = () => boxes.filter((b) => b.box.checked).map((b) => b.v);
    return {
      el: h(
        'fieldset',
        { class: 'field' },
        h('legend', null, ...labelText),
        boxes.map((b) => b.el),
        help,
      ),
      reader: {
        read: () => {
          const value = boxesRead();
          if (required && value.length === 0) return { error: `${title}: choose at least one` };
          return value.length || required ? { value } : {};
        },
      },
    };
  }
  // object with simple properties
  const props = schema.properties as Record<string, Schema>;
  const req = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const init = isObj(initial) ? initial : isObj(schema.default) ? schema.default : {};
  const children = Object.entries(props).map(([k, s]) => ({ k, ...renderField(`${path}.${k}`, k, s, req.has(k), init[k], depth + 1) }));
  return {
    el: h(
      'fieldset',
      { class: 'field object' },
      h('legend', null, ...labelText),
      help,
      children.map((c) => c.el),
    ),
    reader: {
      read: () => {
        const out: Record<string, unknown> = {};
        for (const c of children) {
          const r = c.reader.read();
          if (r.error) return r;
          if (r.value !== undefined)
            Object.defineProperty(out, c.k, { value: r.value, enumerable: true, writable: true, configurable: true });
        }
        return Object.keys(out).length || required ? { value: out } : {};
      },
    },
  };
}

/** A form for an object schema's properties; `read()` returns the arguments or the problems to fix. */
export function schemaForm(
  schema: unknown,
  initial: Record<string, unknown> = {},
  pathPrefix = '',
): { fields: HTMLElement[]; read(): { args?: Record<string, unknown>; problems: string[] } } {
  const obj: Schema = isObj(schema) ? schema : { type: 'object', properties: {} };
  const props = isObj(obj.properties) ? (obj.properties as Record<string, Schema>) : {};
  const required = new Set(Array.isArray(obj.required) ? obj.required.map(String) : []);
  const fields = Object.entries(props).map(([name, s]) => ({
    name,
    ...renderField(`${pathPrefix}${name}`, name, isObj(s) ? s : {}, required.has(name), initial[name], 0),
  }));
  return {
    fields: fields.map((f) => f.el),
    read() {
      const args: Record<string, unknown> = {};
      const problems: string[] = [];
      for (const f of fields) {
        const r = f.reader.read();
        if (r.error) problems.push(r.error);
        else if (r.value !== undefined)
          Object.defineProperty(args, f.name, { value: r.value, enumerable: true, writable: true, configurable: true });
      }
      return problems.length ? { problems } : { args, problems };
    },
  };
}

export function renderCallForm(itemId: string, view: CallFormView): HTMLElement {
  const form = schemaForm(view.inputSchema, view.lastArgs ?? {}, `${view.server}/${view.tool}/`);
  const err = h('div', { class: 'error-text', role: 'alert' }, view.error ? visible(view.error) : '');
  const button = h(
    'button',
    { type: 'submit', class: 'primary', disabled: view.busy },
    icon(view.busy ? 'loading codicon-modifier-spin' : 'play'),
    view.busy ? ' Calling…' : ' Call',
  );
  const el = h(
    'form',
    {
      class: 'call-form',
      aria: { label: `Arguments for ${view.tool}` },
      onsubmit: asyncHandler(async (e: SubmitEvent) => {
        e.preventDefault();
        setText(err, '');
        const { args, problems } = form.read();
        if (!args) {
          setText(err, problems.join('\n'));
          return;
        }
        const reply = await request({ type: 'callTool', itemId, args });
        if (!reply.ok) setText(err, reply.error ?? 'The call failed.');
      }),
    },
    form.fields.length ? form.fields : h('p', { class: 'muted' }, 'This tool takes no arguments.'),
    h(
      'div',
      { class: 'buttons' },
      button,
      view.busy
        ? h(
            'button',
            { type: 'button', class: 'secondary', onclick: () => post({ type: 'cancelCall', itemId }) },
            icon('debug-stop'),
            ' Cancel',
          )
        : null,
    ),
    err,
  );
  return h(
    'div',
    { class: 'call' },
    h(
      'header',
      { class: 'plan-header' },
      h('h1', null, visible(view.title)),
      h('span', { class: 'origin' }, icon('server'), ' ', visible(view.server), ' · ', h('code', null, visible(view.tool))),
    ),
    view.description ? h('p', { class: 'instruction' }, visible(view.description)) : null,
    el,
  );
}

/** A server's elicitation request: the same kind of form, answered Accept (submit), Decline or Cancel. */
export function renderElicitForm(itemId: string, view: ElicitView): HTMLElement {
  const form = schemaForm(view.requestedSchema, {}, `elicit/${itemId}/`);
  const err = h('div', { class: 'error-text', role: 'alert' });
  const answer = async (action: 'accept' | 'decline' | 'cancel', content?: Record<string, unknown>) => {
    const reply = await request({ type: 'elicitAnswer', itemId, action, content });
    if (!reply.ok) setText(err, reply.error ?? 'The answer could not be sent.');
  };
  const el = h(
    'form',
    {
      class: 'call-form',
      aria: { label: `Request from ${view.server}` },
      onsubmit: (e) => {
        e.preventDefault();
        setText(err, '');
        const { args, problems } = form.read();
        if (!args) {
          setText(err, problems.join('\n'));
          return;
        }
        void answer('accept', args);
      },
    },
    form.fields,
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'submit', class: 'primary' }, icon('check'), ' Accept'),
      h('button', { type: 'button', class: 'secondary', onclick: () => void answer('decline') }, 'Decline'),
      h('button', { type: 'button', class: 'secondary', onclick: () => void answer('cancel') }, 'Cancel'),
    ),
    err,
  );
  return h(
    'div',
    { class: 'call' },
    h(
      'header',
      { class: 'plan-header' },
      h('h1', null, 'The server asks'),
      h('span', { class: 'origin' }, icon('server'), ' ', visible(view.server)),
    ),
    h('p', { class: 'instruction' }, visible(view.message)),
    el,
  );
}
