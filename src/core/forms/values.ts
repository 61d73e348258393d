/**
 * Form values, both ways: what a control produced into the value to stage or submit ({@link toFieldValue},
 * {@link readFormControls}, checked by {@link validateFormValues}), a value back into what its control shows
 * ({@link toControlValue}, {@link initialControls}), the staged values against the current record
 * ({@link stagedChanges}), and the create/update call that submits them ({@link submissionCall}). Pure and total:
 * field names and values are server data (`__proto__` is a plain key), and nothing here throws on them.
 */
import { sameJson } from '../base/json';
import { describeValue, formatPath } from '../plan/envelope';
import { scalarText, type AppFormSchema, type CollectFormPayload, type FormField } from '../plan/collectForm';
import type { Problem } from '../plan/plan';
import type { ControlValue, FieldChange, SubmissionRecord, SubmitCall } from './types';

/** Absent, null, `""` or `[]`: a value that says nothing (whitespace is text here; see {@link isBlank}). */
export function isEmptyValue(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** {@link isEmptyValue}, or text that is only whitespace: what a required field may not be. */
function isBlank(v: unknown): boolean {
  return isEmptyValue(v) || (typeof v === 'string' && v.trim() === '');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets an own, enumerable property: a key such as `__proto__` stays plain data. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

// ---------------------------------------------------------------------------------------------------------------
// From a control to a value

const TRUE_WORDS = new Set(['true', 'on', 'yes', 'y', '1', 'checked']);
const FALSE_WORDS = new Set(['false', 'off', 'no', 'n', '0', 'unchecked']);

/**
 * Converts what a form control (or a CLI `--answer k=v`) produced into the value to submit for `field`:
 * number fields give numbers, checkboxes booleans, multiselect and checkbox groups `string[]` (a string is
 * split on commas unless it is itself a choice), select values keep the type of the matching option
 * (association ids stay numbers), dates and times stay strings. An empty value gives `undefined`, meaning
 * "leave it out". A value that cannot be converted is returned as it came, so that
 * {@link validateFormValues} reports it.
 */
export function toFieldValue(field: FormField, raw: unknown): unknown {
  if (raw === undefined || raw === null) return undefined;
  switch (field.type) {
    case 'checkbox': {
      if (typeof raw === 'boolean') return raw;
      if (typeof raw === 'number') return raw !== 0;
      if (typeof raw !== 'string') return raw;
      const word = raw.trim().toLowerCase();
      if (word === '') return undefined;
      return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : raw;
    }
    case 'number': {
      if (typeof raw === 'number') return raw;
      if (typeof raw !== 'string') return raw;
      const text = raw.trim();
      if (text === '') return undefined;
      const n = Number(text);
      return Number.isFinite(n) ? n : raw;
    }
    case 'multiselect':
    case 'checkbox_group': {
      let items: unknown[];
      if (Array.isArray(raw)) items = raw;
      else if (typeof raw === 'string') items = field.options?.some((o) => scalarText(o.value) === raw) ? [raw] : raw.split(',');
      else items = [raw];
      const out = items
        .filter((v) => v !== null && v !== undefined)
        .map((v) => scalarText(v).trim())
        .filter((v) => v !== '');
      return out.length > 0 ? out : undefined;
    }
    case 'select': {
      if (typeof raw !== 'string') return raw;
      const text = raw.trim();
      if (text === '') return undefined;
      const match = field.options?.find((o) => scalarText(o.value) === text);
      return match ? match.value : text;
    }
    case 'textarea':
      if (typeof raw !== 'string') return typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : raw;
      return raw.trim() === '' ? undefined : raw;
    default: // text, email, url, color, date, datetime-local, time
      if (typeof raw !== 'string') return typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : raw;
      return raw.trim() === '' ? undefined : raw.trim();
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether `field` is shown given the current values (its `visibleWhen` rule, as mcp-rune's form evaluates it). */
export function isFieldVisible(field: FormField, values: Record<string, unknown>): boolean {
  const rule = field.visibleWhen;
  if (!rule || typeof rule.field !== 'string') return true;
  const current = Object.hasOwn(values, rule.field) ? values[rule.field] : undefined;
  const text = current === undefined || current === null ? '' : scalarText(current);
  if (rule.notEquals !== undefined) return text !== scalarText(rule.notEquals);
  if (rule.equals !== undefined) return text === scalarText(rule.equals);
  return true;
}

/**
 * Checks converted values (see {@link toFieldValue}) against the form: required fields (a required checkbox
 * must be checked), numbers and their `validation.min`/`max`, text `minLength`/`maxLength`, email and URL
 * formats, and choices of non-association selects and checkbox groups. Fields hidden by `visibleWhen` are
 * skipped. Each problem's path is the field name; its message names the field by its label. The server's own
 * validation stays authoritative (Plangate never runs server-supplied regular expressions).
 */
export function validateFormValues(schema: AppFormSchema, values: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const field of schema.fields) {
    if (!isFieldVisible(field, values)) continue;
    const path = formatPath([field.name]);
    const add = (message: string) => problems.push({ path, message });
    const value = Object.hasOwn(values, field.name) ? values[field.name] : undefined;
    const label = field.label || field.name;
    if (isBlank(value) || (field.type === 'checkbox' && field.required && value === false)) {
      if (field.required) add(field.type === 'checkbox' ? `${label} must be checked` : `${label} is required`);
      continue;
    }
    const v = field.validation ?? {};
    const num = (k: string): number | undefined => (typeof v[k] === 'number' ? (v[k] as number) : undefined);
    switch (field.type) {
      case 'number': {
        if (typeof value !== 'number' || !Number.isFinite(value)) {
          add(`${label} must be a number`);
          break;
        }
        const min = num('min');
        const max = num('max');
        if (min !== undefined && value < min) add(`${label} must be at least ${min}`);
        if (max !== undefined && value > max) add(`${label} must be at most ${max}`);
        break;
      }
      case 'checkbox':
        if (typeof value !== 'boolean') add(`${label} must be true or false`);
        break;
      case 'multiselect':
      case 'checkbox_group': {
        if (!Array.isArray(value)) {
          add(`${label} must be a list of choices`);
          break;
        }
        if (field.type === 'checkbox_group' && field.options && !field.association) {
          const allowed = new Set(field.options.map((o) => scalarText(o.value)));
          const bad = value.filter((x) => !allowed.has(scalarText(x)));
          if (bad.length > 0)
            add(
              `${label}: ${bad.map((x) => describeValue(x)).join(', ')} ${bad.length > 1 ? 'are not choices' : 'is not a choice'}; choose from ${choices(field)}`,
            );
        }
        break;
      }
      case 'select':
        if (
          field.options &&
          field.options.length > 0 &&
          !field.association &&
          !field.options.some((o) => scalarText(o.value) === scalarText(value))
        ) {
          add(`${label} must be one of ${choices(field)}`);
        }
        break;
      default: {
        if (typeof value !== 'string') {
          add(`${label} must be text`);
          break;
        }
        const minLength = num('minLength');
        const maxLength = num('maxLength');
        if (minLength !== undefined && value.length < minLength) add(`${label} must be at least ${minLength} characters`);
        if (maxLength !== undefined && value.length > maxLength) add(`${label} must be at most ${maxLength} characters`);
        if (field.type === 'email' && (value.length > 320 || !EMAIL.test(value)))
          add(`${label} must be an email address, like name@example.com`);
        if (field.type === 'url' && !isWebUrl(value)) add(`${label} must be a URL starting with http:// or https://`);
      }
    }
  }
  return problems;
}

function choices(field: FormField): string {
  const opts = field.options ?? [];
  const shown = opts
    .slice(0, 10)
    .map((o) => describeValue(o.value))
    .join(', ');
  return opts.length > 10 ? `${shown}, …` : shown;
}

function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The tool call that writes a filled form directly (direct mode, or after a collect-mode review):
 * `create_model {model, attributes}` with `hiddenValues` merged under the form's values, or
 * `update_model {model, attributes, record_id}` (mcp-rune's update tool wants `record_id`, not `id`).
 */
export function formSubmission(form: CollectFormPayload, values: Record<string, unknown>): SubmitCall {
  const attributes: Record<string, unknown> = {};
  for (const source of form.mode === 'create' && form.hiddenValues ? [form.hiddenValues, values] : [values]) {
    for (const key of Object.keys(source)) {
      if (source[key] !== undefined) setOwn(attributes, key, source[key]);
    }
  }
  if (form.mode === 'update') {
    const args: Record<string, unknown> = { model: form.schema.model, attributes };
    if (form.recordId !== undefined) args.record_id = form.recordId;
    return { tool: 'update_model', args };
  }
  return { tool: 'create_model', args: { model: form.schema.model, attributes } };
}

// ---------------------------------------------------------------------------------------------------------------
// From a value to a control

/** The value a field starts with: the staged value, else the form's default (the current record when editing), else the field's. */
export function initialValue(form: CollectFormPayload, field: FormField, staged?: Record<string, unknown>): unknown {
  if (staged && Object.hasOwn(staged, field.name)) return staged[field.name];
  if (Object.hasOwn(form.defaults, field.name)) return form.defaults[field.name];
  return field.default;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A value as its control shows it: checkboxes a boolean, multiselects and checkbox groups the chosen values as
 * strings, a date `YYYY-MM-DD`, a datetime-local `YYYY-MM-DDTHH:MM`, a time `HH:MM[:SS]`, a color `#rrggbb`
 * (or `""` when unset), anything else text. Values a control cannot show become `""`.
 */
export function toControlValue(field: FormField, value: unknown): ControlValue {
  if (value === undefined || value === null)
    return field.type === 'checkbox' ? false : field.type === 'multiselect' || field.type === 'checkbox_group' ? [] : '';
  switch (field.type) {
    case 'checkbox':
      return toFieldValue(field, value) === true;
    case 'multiselect':
    case 'checkbox_group': {
      const v = toFieldValue(field, value);
      return Array.isArray(v) ? v.map(scalarText) : [];
    }
    case 'date': {
      const text = scalarText(value).trim();
      const m = /^(\d{4}-\d{2}-\d{2})/.exec(text);
      return m ? m[1]! : '';
    }
    case 'datetime-local': {
      const text = scalarText(value).trim();
      const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)/.exec(text);
      if (m) return `${m[1]}T${m[2]}`;
      return /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00` : '';
    }
    case 'time': {
      const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?/.exec(scalarText(value).trim());
      return m ? `${pad(Number(m[1]))}:${m[2]}${m[3] ? `:${m[3]}` : ''}` : '';
    }
    case 'color': {
      const text = scalarText(value).trim().toLowerCase();
      if (/^#[0-9a-f]{6}$/.test(text)) return text;
      const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(text);
      return short ? `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}` : '';
    }
    case 'select':
      return scalarText(value);
    default:
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  }
}

/** Each field's starting value as its control shows it: the staged value, else the form's default, else the field's. */
export function initialControls(record: Pick<SubmissionRecord, 'form' | 'fields'>): Record<string, ControlValue> {
  const initial: Record<string, ControlValue> = {};
  for (const field of record.form.schema.fields)
    setOwn(initial, field.name, toControlValue(field, initialValue(record.form, field, record.fields)));
  return initial;
}

/**
 * Reads the form's controls into the values to stage or submit, and checks them ({@link validateFormValues}).
 * Fields hidden by `visibleWhen` are left out. A field the user left empty is left out, except when editing a
 * record whose current value is not empty: then it is `null` (cleared). Keys that are not fields are ignored;
 * `__proto__` and the like are plain data.
 */
export function readFormControls(
  form: CollectFormPayload,
  controls: Record<string, unknown>,
): { values: Record<string, unknown>; problems: Problem[] } {
  const raw = isObject(controls) ? controls : {};
  const converted: Record<string, unknown> = {};
  for (const field of form.schema.fields) {
    const value = toFieldValue(field, Object.hasOwn(raw, field.name) ? raw[field.name] : undefined);
    if (value !== undefined) setOwn(converted, field.name, value);
  }
  const values: Record<string, unknown> = {};
  for (const field of form.schema.fields) {
    if (!isFieldVisible(field, converted)) continue;
    if (Object.hasOwn(converted, field.name)) setOwn(values, field.name, converted[field.name]);
    else if (form.mode === 'update' && Object.hasOwn(form.defaults, field.name) && !isEmptyValue(form.defaults[field.name]))
      setOwn(values, field.name, null);
  }
  // A cleared field is absent for the checks: only a required one is reported.
  const checked: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) if (v !== null) setOwn(checked, k, v);
  return { values, problems: validateFormValues(form.schema, checked) };
}

// ---------------------------------------------------------------------------------------------------------------
// The staged values against the current record, and the call that submits them

/**
 * The staged values field by field, in the form's order, against the current values: for an update each field's
 * current value (the form's defaults are the current record) and whether it changed; for a create just the
 * values. Keys of `staged` that are not fields come last, marked `extra`. Lists of choices compare as sets,
 * numbers and numeric text as numbers, and empty values (absent, null, "", []) as equal.
 */
export function stagedChanges(form: CollectFormPayload, staged: Record<string, unknown>): FieldChange[] {
  const update = form.mode === 'update';
  const rows: FieldChange[] = [];
  const known = new Set<string>();
  for (const field of form.schema.fields) {
    known.add(field.name);
    const has = Object.hasOwn(staged, field.name);
    const after = has ? staged[field.name] : undefined;
    if (!update) {
      if (has) rows.push({ name: field.name, label: field.label || field.name, after, changed: !isEmptyValue(after) });
      continue;
    }
    const before = Object.hasOwn(form.defaults, field.name) ? form.defaults[field.name] : undefined;
    if (!has && isEmptyValue(before)) continue;
    rows.push({ name: field.name, label: field.label || field.name, before, after, changed: has && !sameFieldValue(field, before, after) });
  }
  for (const key of Object.keys(staged)) {
    if (known.has(key)) continue;
    const before = update && Object.hasOwn(form.defaults, key) ? form.defaults[key] : undefined;
    rows.push({
      name: key,
      label: key,
      before,
      after: staged[key],
      changed: update ? !sameFieldValue(undefined, before, staged[key]) : !isEmptyValue(staged[key]),
      extra: true,
    });
  }
  return rows;
}

/** Whether two values of a field are the same for the user (see {@link stagedChanges}). */
export function sameFieldValue(field: FormField | undefined, a: unknown, b: unknown): boolean {
  if (isEmptyValue(a) && isEmptyValue(b)) return true;
  if (isEmptyValue(a) || isEmptyValue(b)) return false;
  if (Array.isArray(a) && Array.isArray(b) && (!field || field.type === 'multiselect' || field.type === 'checkbox_group')) {
    return sameJson([...a.map(String)].sort(), [...b.map(String)].sort());
  }
  const numeric = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
  if ((typeof a === 'number' || typeof b === 'number') && Number.isFinite(numeric(a)) && numeric(a) === numeric(b)) return true;
  if (field?.type === 'datetime-local' || field?.type === 'date' || field?.type === 'time' || field?.type === 'color') {
    const ca = toControlValue(field, a);
    if (ca !== '' && ca === toControlValue(field, b)) return true;
  }
  return sameJson(a, b);
}

/**
 * The values a submission submits: the staged entry as the server holds it (what the user reviewed), else the
 * values Plangate staged. Direct mode has no staging: pass the form's values.
 */
export function stagedValues(record: SubmissionRecord): Record<string, unknown> {
  return record.entry?.fields ?? record.fields ?? {};
}

/**
 * The create/update call that submits `values` for `record`: `create_model {model, attributes: {...hiddenValues,
 * ...values}}`, or `update_model {model, record_id, attributes}` with only the fields that changed (cleared ones as
 * `null`). Undefined for an update that changes nothing.
 */
export function submissionCall(record: Pick<SubmissionRecord, 'form'>, values: Record<string, unknown>): SubmitCall | undefined {
  const form = record.form;
  if (form.mode !== 'update') return formSubmission(form, values);
  const changed: Record<string, unknown> = {};
  for (const row of stagedChanges(form, values)) if (row.changed) setOwn(changed, row.name, row.after === undefined ? null : row.after);
  if (Object.keys(changed).length === 0) return undefined;
  return formSubmission(form, changed);
}
