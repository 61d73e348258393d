/**
 * mcp-rune collect-mode forms (reference/protocols.md §2): the JSON that `new_model_app` (mode "form") and
 * `edit_model_app` return in their first text block — `{schema, defaults, mode, submitMode, hiddenValues?,
 * parentContext?, recordId?}` — parsed into a typed {@link CollectFormPayload}. The values a form's controls hold,
 * their checks and the call that submits them are in collect/values.ts.
 *
 * Leniency: `mode` defaults to "create" and `submitMode` to "direct" (what mcp-rune's own iframe assumes);
 * labels, groups and fieldsets get sensible defaults; a field type Plangate does not know is shown as text
 * (with a warning). `null` means absent. Unknown fields are kept.
 */
import { z } from 'zod';
import {
  checkJsonLimits,
  copyUnknown,
  describeValue,
  errorMap,
  formatPath,
  isPlainObject,
  LIMITS,
  capProblems,
  zodProblems,
} from './envelope';
import type { Problem } from './plan';
import type {
  AppFormSchema,
  FormField,
  FormFieldAssociation,
  FormFieldOption,
  FormFieldset,
  FormFieldType,
  FormMode,
  ParentContext,
  SubmitMode,
  VisibleWhen,
} from '../../shared/forms';
export type {
  AppFormSchema,
  FormField,
  FormFieldAssociation,
  FormFieldOption,
  FormFieldset,
  FormFieldType,
  FormMode,
  ParentContext,
  SubmitMode,
  VisibleWhen,
} from '../../shared/forms';

/**
 * An untrusted value as text without running anything of it: `String()` calls an object's own `toString`/`valueOf`,
 * and a payload like `{"toString": 0}` makes that throw. Objects become their JSON.
 */
export function scalarText(value: unknown): string {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  try {
    return JSON.stringify(value) ?? Object.prototype.toString.call(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
export const FORM_FIELD_TYPES = [
  'text',
  'textarea',
  'number',
  'checkbox',
  'date',
  'datetime-local',
  'time',
  'email',
  'url',
  'color',
  'select',
  'multiselect',
  'checkbox_group',
] as const;
export interface CollectFormPayload {
  schema: AppFormSchema;
  /** Initial values by field name (`{}` when the server sent none). */
  defaults: Record<string, unknown>;
  mode: FormMode;
  /** `collect`: stage through `collect_form_data`; `direct`: the form writes with create_model/update_model. */
  submitMode: SubmitMode;
  /** Create only: prefilled values that are not rendered as fields but belong in the submission. */
  hiddenValues?: Record<string, unknown>;
  parentContext?: ParentContext;
  /** Update only: the record being edited. */
  recordId?: string;
  [extra: string]: unknown;
}

export type ParseCollectFormResult = { ok: true; form: CollectFormPayload; warnings?: Problem[] } | { ok: false; problems: Problem[] };

// ───────────────────────────── wire schema ─────────────────────────────

const optStr = z.string().nullish();
const optBool = z.boolean().nullish();
const record = z.record(z.string(), z.unknown());

const optionSchema = z.looseObject({
  value: z.union([z.string(), z.number()], {
    error: (iss) => (iss.input === undefined ? 'Required' : `expected a string or a number, got ${describeValue(iss.input)}`),
  }),
  label: optStr,
  color: optStr,
});

const associationSchema = z.looseObject({
  endpoint: z.string(),
  labelField: z.string(),
  valueField: optStr,
  nested: z.looseObject({ parentModel: z.string(), childEndpoint: z.string() }).nullish(),
});

const fieldSchema = z.looseObject({
  name: z.string().min(1, { error: (iss) => (iss.input === undefined ? 'Required' : 'expected a field name, got an empty string') }),
  label: optStr,
  group: optStr,
  required: optBool,
  type: optStr,
  kind: optStr,
  format: optStr,
  description: optStr,
  placeholder: optStr,
  default: z.unknown().optional(),
  options: z.array(optionSchema).max(LIMITS.maxListItems).nullish(),
  association: associationSchema.nullish(),
  validation: record.nullish(),
  visibleWhen: record.nullish(),
  enumValues: z.array(z.string()).max(LIMITS.maxListItems).nullish(),
});

const fieldsetSchema = z.looseObject({
  key: z.string(),
  title: optStr,
  description: optStr,
  required: optBool,
  groups: z.array(z.string()).max(LIMITS.maxListItems).nullish(),
});

const formSchemaSchema = z.looseObject({
  model: z.string(),
  title: optStr,
  fieldsets: z.array(fieldsetSchema).max(LIMITS.maxListItems).nullish(),
  fields: z.array(fieldSchema).max(LIMITS.maxListItems),
  groupLayouts: record.nullish(),
});

const idSchema = z.union([z.string(), z.number()], {
  error: (iss) => (iss.input === undefined ? 'Required' : `expected a string or a number, got ${describeValue(iss.input)}`),
});

/** The zod schema of a collect-mode form payload as mcp-rune sends it (validation only; see {@link parseCollectForm}). */
export const collectFormSchema = z.looseObject({
  schema: formSchemaSchema,
  defaults: record.nullish(),
  mode: z.enum(['create', 'update']).nullish(),
  submitMode: z.enum(['direct', 'collect']).nullish(),
  hiddenValues: record.nullish(),
  parentContext: z.looseObject({ parentModel: z.string(), parentId: idSchema, label: z.string() }).nullish(),
  recordId: idSchema.nullish(),
});

// ───────────────────────────── detection and parsing ─────────────────────────────

/**
 * Whether `value` claims to be a collect-mode form payload: an object whose `schema` is an object with a
 * `fields` array, and which carries `mode` or `submitMode` (mcp-rune always sends both). Such a value is a form
 * even when {@link parseCollectForm} then finds problems in it.
 */
export function looksLikeCollectForm(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const schema = value.schema;
  return isPlainObject(schema) && Array.isArray(schema.fields) && (Object.hasOwn(value, 'mode') || Object.hasOwn(value, 'submitMode'));
}

const FORM_TYPES: ReadonlySet<string> = new Set(FORM_FIELD_TYPES);
const absent = (v: unknown): v is null | undefined => v === null || v === undefined;

/**
 * Validates and normalises a collect-mode form payload. Never throws. Problems name JSON paths relative to the
 * payload (`schema.fields[2].name: Required`); warnings report what was tolerated (unknown field types shown as
 * text, fields in no fieldset, repeated field names).
 */
export function parseCollectForm(value: unknown): ParseCollectFormResult {
  try {
    if (!isPlainObject(value))
      return { ok: false, problems: [{ path: '', message: `expected a collect-mode form (a JSON object), got ${describeValue(value)}` }] };
    const limits = checkJsonLimits(value);
    if (limits.tooLarge) return { ok: false, problems: limits.problems };
    const parsed = collectFormSchema.safeParse(value, { error: errorMap });
    const problems = [...limits.problems, ...(parsed.success ? [] : zodProblems(parsed.error))];
    if (problems.length > 0) return { ok: false, problems: capProblems(problems) };
    const warnings: Problem[] = [];
    const form = normaliseForm(value, warnings);
    return warnings.length > 0 ? { ok: true, form, warnings: capProblems(warnings) } : { ok: true, form };
  } catch (err) {
    return { ok: false, problems: [{ path: '', message: `could not read the form: ${err instanceof Error ? err.message : String(err)}` }] };
  }
}

const PAYLOAD_KEYS = new Set(['schema', 'defaults', 'mode', 'submitMode', 'hiddenValues', 'parentContext', 'recordId']);
const SCHEMA_KEYS = new Set(['model', 'title', 'fieldsets', 'fields', 'groupLayouts']);
const FIELDSET_KEYS = new Set(['key', 'title', 'description', 'required', 'groups']);
const FIELD_KEYS = new Set([
  'name',
  'label',
  'group',
  'required',
  'type',
  'kind',
  'format',
  'description',
  'placeholder',
  'default',
  'options',
  'association',
  'validation',
  'visibleWhen',
  'enumValues',
]);
const OPTION_KEYS = new Set(['value', 'label', 'color']);
const PARENT_KEYS = new Set(['parentModel', 'parentId', 'label']);

type Obj = Record<string, unknown>;

function normaliseForm(raw: Obj, warnings: Problem[]): CollectFormPayload {
  const schema = normaliseSchema(raw.schema as Obj, warnings);
  const form: CollectFormPayload = {
    schema,
    defaults: absent(raw.defaults) ? {} : (raw.defaults as Obj),
    mode: absent(raw.mode) ? 'create' : (raw.mode as FormMode),
    submitMode: absent(raw.submitMode) ? 'direct' : (raw.submitMode as SubmitMode),
  };
  if (!absent(raw.hiddenValues)) form.hiddenValues = raw.hiddenValues as Obj;
  if (!absent(raw.parentContext)) {
    const pc = raw.parentContext as Obj;
    const parentContext: ParentContext = {
      parentModel: pc.parentModel as string,
      parentId: scalarText(pc.parentId),
      label: pc.label as string,
    };
    copyUnknown(pc, parentContext, PARENT_KEYS);
    form.parentContext = parentContext;
  }
  if (!absent(raw.recordId)) form.recordId = scalarText(raw.recordId);
  copyUnknown(raw, form, PAYLOAD_KEYS);
  return form;
}

function normaliseSchema(raw: Obj, warnings: Problem[]): AppFormSchema {
  const fields = (raw.fields as Obj[]).map((f, i) => normaliseField(f, i, warnings));
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    if (seen.has(f.name))
      warnings.push({
        path: formatPath(['schema', 'fields', i, 'name']),
        message: `field "${f.name}" appears more than once; the form keeps one value per name`,
      });
    seen.add(f.name);
  });
  const fieldsets = absent(raw.fieldsets) ? [] : (raw.fieldsets as Obj[]).map(normaliseFieldset);
  const title = absent(raw.title) ? (raw.model as string) : (raw.title as string);
  // Fields in a group that no fieldset shows would be invisible (mcp-rune renders by fieldset): show them last.
  const shown = new Set(fieldsets.flatMap((fs) => fs.groups));
  const orphanGroups = [...new Set(fields.map((f) => f.group))].filter((g) => !shown.has(g));
  if (orphanGroups.length > 0) {
    if (fieldsets.length > 0) {
      warnings.push({
        path: 'schema.fieldsets',
        message: `no fieldset shows the group${orphanGroups.length > 1 ? 's' : ''} ${orphanGroups.map((g) => `"${g}"`).join(', ')}; their fields are shown in an extra section`,
      });
    }
    fieldsets.push({
      key: fieldsets.length > 0 ? '_other' : 'default',
      title: fieldsets.length > 0 ? 'Other fields' : title,
      description: '',
      required: false,
      groups: orphanGroups,
    });
  }
  const schema: AppFormSchema = { model: raw.model as string, title, fieldsets, fields };
  if (!absent(raw.groupLayouts)) schema.groupLayouts = raw.groupLayouts as Obj;
  copyUnknown(raw, schema, SCHEMA_KEYS);
  return schema;
}

function normaliseFieldset(raw: Obj): FormFieldset {
  const key = raw.key as string;
  const fs: FormFieldset = {
    key,
    title: absent(raw.title) ? key : (raw.title as string),
    description: absent(raw.description) ? '' : (raw.description as string),
    required: raw.required === true,
    groups: absent(raw.groups) ? [key] : (raw.groups as string[]),
  };
  copyUnknown(raw, fs, FIELDSET_KEYS);
  return fs;
}

function normaliseField(raw: Obj, index: number, warnings: Problem[]): FormField {
  const name = raw.name as string;
  const rawType = absent(raw.type) ? undefined : (raw.type as string);
  let type: FormFieldType = 'text';
  if (rawType !== undefined && FORM_TYPES.has(rawType)) type = rawType as FormFieldType;
  else if (rawType !== undefined)
    warnings.push({
      path: formatPath(['schema', 'fields', index, 'type']),
      message: `unknown field type ${describeValue(rawType)}; "${name}" is shown as a text field`,
    });
  const field: FormField = {
    name,
    label: absent(raw.label) ? name : (raw.label as string),
    group: absent(raw.group) ? 'default' : (raw.group as string),
    required: raw.required === true,
    type,
  };
  if (rawType !== undefined && rawType !== type) field.rawType = rawType;
  for (const key of ['kind', 'format', 'description', 'placeholder'] as const) {
    if (!absent(raw[key])) field[key] = raw[key] as string;
  }
  if (raw.default !== undefined) field.default = raw.default;
  if (!absent(raw.options)) {
    field.options = (raw.options as Obj[]).map((o) => {
      const opt: FormFieldOption = {
        value: o.value as string | number,
        label: absent(o.label) ? scalarText(o.value) : (o.label as string),
      };
      if (!absent(o.color)) opt.color = o.color as string;
      copyUnknown(o, opt, OPTION_KEYS);
      return opt;
    });
  }
  if (!absent(raw.association)) field.association = raw.association as FormFieldAssociation;
  if (!absent(raw.validation)) field.validation = raw.validation as Obj;
  if (!absent(raw.visibleWhen)) field.visibleWhen = raw.visibleWhen as VisibleWhen;
  if (!absent(raw.enumValues)) field.enumValues = raw.enumValues as string[];
  copyUnknown(raw, field, FIELD_KEYS);
  return field;
}
