/**
 * Collect-mode submissions (mcp-rune Center-of-Control, reference/protocols.md §2): a form a server sent, what the
 * user staged with `collect_form_data`, the entry as the server holds it, an optional remote approval, and the
 * create/update Plangate then sent — as ledger events and the state they reduce to. Also the pure helpers around
 * them: reading form controls into values, the staged-vs-current field diff, the approval tools' arguments and
 * answers, and the approval polling schedule and loop.
 *
 * workflow.ts delegates its submission events here ({@link canApplySubmission}, {@link reduceSubmissions}); this
 * module never touches plans. Everything server-supplied is untrusted data: nothing here throws on bad input.
 */
import type { ControlValue, FieldChange } from '../shared/forms';
import { visibleText } from '../shared/visibleText';
export type { ControlValue, FieldChange } from '../shared/forms';
import { sameJson } from './json';
import type { CollectError } from './classify';
import { formSubmission, isFieldVisible, scalarText, toFieldValue, validateFormValues, type CollectFormPayload, type FormField } from './collectForm';
import type { CancellationToken } from './lifecycle';
import type { Problem } from './plan';
import type { ToolResult } from './toolResult';
import type { PlanOrigin } from './plan';

// ---------------------------------------------------------------------------------------------------------------
// Types

/** `open`: the form is being filled; `staged`: collect_form_data holds it for review; `finished`: see the outcome. */
export type SubmissionPhase = 'open' | 'staged' | 'finished';

/**
 * How a finished submission ended. `submitted`: create_model/update_model succeeded; `discarded`: the user
 * discarded it (nothing was submitted); `replaced`: another submission for the same model was staged on the same
 * server, which keeps one staged entry per model, so this one is no longer what the server holds.
 */
export type SubmissionOutcome = 'submitted' | 'discarded' | 'replaced';

/** What a remote reviewer said (check_approval). */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected';

/** A staged entry as `collect_form_data` / `get_form_data` return it (mcp-rune's AppFormDataEntry). */
export interface StagedEntry {
  model: string;
  fields: Record<string, unknown>;
  mode: string;
  createdAt?: number;
}

export interface ApprovalRecord {
  /** The id request_approval answered with; check_approval is polled with it. */
  id: string;
  status: ApprovalStatus;
  /** The reviewer's reason (rejections). */
  reason?: string;
  requestedAt: number;
  /** When check_approval gave the status (pending answers are not recorded: only the decision is). */
  checkedAt?: number;
}

export interface SubmissionRecord {
  id: string;
  /** The form tool call whose result was the form (new_model_app / edit_model_app). */
  origin: PlanOrigin;
  form: CollectFormPayload;
  receivedAt: number;
  phase: SubmissionPhase;
  outcome?: SubmissionOutcome;
  /** The values last staged (collect mode), as Plangate sent them to collect_form_data. */
  fields?: Record<string, unknown>;
  /** The staged entry as the server holds it (get_form_data), when it answered with one. */
  entry?: StagedEntry;
  stagedAt?: number;
  /** How many times it was staged (re-staging after an edit counts). */
  stagings: number;
  /** The remote approval of the staged values, when one was requested. */
  approval?: ApprovalRecord;
  /** Once an approval was requested, every later staging needs one too before it can be submitted. */
  approvalRequired?: boolean;
  /** How many times create_model/update_model was called. */
  submitAttempts: number;
  /** Why the last submit failed (cleared by a successful one or a new staging). */
  lastError?: string;
  /** The call that submitted it. */
  submitted?: { tool: string; args: Record<string, unknown> };
  /** A short text of the submit result (e.g. the created record's id). */
  result?: string;
  /** The record created or updated, when the server said. */
  recordId?: string;
  replacedById?: string;
  discardReason?: string;
  finishedAt?: number;
}

export type SubmissionEvent =
  /** A form tool answered with a collect-mode form. */
  | { type: 'formReceived'; at: number; submissionId: string; origin: PlanOrigin; form: CollectFormPayload }
  /** collect_form_data accepted `fields`; `entry` is what get_form_data then answered (absent when it did not). */
  | { type: 'formStaged'; at: number; submissionId: string; fields: Record<string, unknown>; entry?: StagedEntry }
  /** create_model / update_model was called with `args`; `ok` false with the error when it failed. */
  | { type: 'formSubmitted'; at: number; submissionId: string; ok: boolean; tool: string; args: Record<string, unknown>; error?: string; result?: string; recordId?: string }
  /** The user discarded the submission: nothing was (or will be) submitted. */
  | { type: 'formDiscarded'; at: number; submissionId: string; reason?: string }
  /** request_approval accepted the staged values and answered with an approval id. */
  | { type: 'approvalRequested'; at: number; submissionId: string; approvalId: string }
  /** check_approval answered (Plangate records the decision, not every pending answer). */
  | { type: 'approvalChecked'; at: number; submissionId: string; status: ApprovalStatus; reason?: string };

export type SubmissionEventType = SubmissionEvent['type'];

export const SUBMISSION_EVENT_TYPES: readonly SubmissionEventType[] = ['formReceived', 'formStaged', 'formSubmitted', 'formDiscarded', 'approvalRequested', 'approvalChecked'];

export type Submissions = Readonly<Record<string, SubmissionRecord>>;

const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'rejected'];

/** Whether `event` is one of the submission events (workflow.ts routes these here). */
export function isSubmissionEvent(event: { type: string }): event is SubmissionEvent {
  return (SUBMISSION_EVENT_TYPES as readonly string[]).includes(event.type);
}

// ---------------------------------------------------------------------------------------------------------------
// Selectors

/** The submission with this id (own property only: an id such as `__proto__` is plain data). */
export function getSubmission(submissions: Submissions | undefined, id: string): SubmissionRecord | undefined {
  return submissions && typeof id === 'string' && Object.hasOwn(submissions, id) ? submissions[id] : undefined;
}

/** Every submission, oldest first (by when its form arrived). */
export function submissionList(submissions: Submissions | undefined): SubmissionRecord[] {
  return Object.values(submissions ?? {}).sort((a, b) => a.receivedAt - b.receivedAt);
}

/** Submissions staged for review (waiting for Submit or Discard), oldest first. */
export function stagedSubmissions(submissions: Submissions | undefined): SubmissionRecord[] {
  return submissionList(submissions).filter((s) => s.phase === 'staged');
}

/** The model a submission writes. */
export function submissionModel(record: Pick<SubmissionRecord, 'form'>): string {
  return record.form.schema.model;
}

/**
 * The other submission staged for the same model on the same server, if any: the server keeps one staged entry per
 * model, so staging `record` replaces it.
 */
export function stagedConflict(submissions: Submissions | undefined, record: SubmissionRecord): SubmissionRecord | undefined {
  const model = submissionModel(record);
  return stagedSubmissions(submissions).find((s) => s.id !== record.id && s.origin.server === record.origin.server && submissionModel(s) === model);
}

/** Whether Submit is allowed now, and if not, why (in words for the panel). */
export function submitBlocker(record: SubmissionRecord): string | undefined {
  if (record.phase === 'finished') return `This submission is ${record.outcome ?? 'finished'}.`;
  if (record.form.submitMode === 'collect' && record.phase !== 'staged') return 'Stage the form for review first.';
  if (record.approval && record.approval.status !== 'approved') {
    return record.approval.status === 'rejected'
      ? `The reviewer rejected it${record.approval.reason ? `: ${record.approval.reason}` : ''}. Change the form and stage it again, then request approval again.`
      : 'Waiting for the reviewer to approve it.';
  }
  if (record.approvalRequired && !record.approval) return 'It needs an approval: request approval again (it was sent for approval before).';
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Refusals and the reducer

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * Why `event` does not apply to `submissions`, in words; undefined when it applies. {@link reduceSubmissions}
 * leaves the map unchanged exactly when this returns a reason. Never throws.
 */
export function canApplySubmission(submissions: Submissions, event: SubmissionEvent): string | undefined {
  if (!nonEmpty(event.submissionId)) return 'A submission needs an id.';
  if (event.type === 'formReceived') {
    if (getSubmission(submissions, event.submissionId)) return `Submission '${event.submissionId}' exists already.`;
    const o = event.origin as unknown;
    if (!isObject(o) || !nonEmpty(o.server) || typeof o.tool !== 'string' || !isObject(o.args)) return 'formReceived: the origin must be {server, tool, args}.';
    const form = event.form as unknown;
    if (!isObject(form) || !isObject(form.schema) || typeof form.schema.model !== 'string' || !Array.isArray(form.schema.fields)) return 'formReceived: the form must hold a schema with a model and fields.';
    if (form.mode !== 'create' && form.mode !== 'update') return 'formReceived: the form mode must be create or update.';
    if (form.submitMode !== 'collect' && form.submitMode !== 'direct') return 'formReceived: the submit mode must be collect or direct.';
    return undefined;
  }
  const record = getSubmission(submissions, event.submissionId);
  if (!record) return `There is no submission '${event.submissionId}'.`;
  const name = `The ${record.form.schema.title || submissionModel(record)} submission`;
  if (record.phase === 'finished') return `${name} is ${record.outcome ?? 'finished'}; ${event.type} no longer applies.`;
  switch (event.type) {
    case 'formStaged':
      if (record.form.submitMode !== 'collect') return `${name} is in direct mode: it is submitted, not staged.`;
      if (!isObject(event.fields)) return `${name}: the staged fields must be an object.`;
      if (event.entry !== undefined && (!isObject(event.entry) || !isObject(event.entry.fields))) return `${name}: the staged entry must hold its fields.`;
      return undefined;
    case 'formSubmitted':
      if (typeof event.ok !== 'boolean') return `${name}: a submit is ok or not.`;
      if (!nonEmpty(event.tool) || !isObject(event.args)) return `${name}: a submit names its tool and arguments.`;
      if (!event.ok && typeof event.error !== 'string') return `${name}: a failed submit says why.`;
      return submitBlocker(record);
    case 'formDiscarded':
      return undefined;
    case 'approvalRequested':
      if (record.phase !== 'staged') return `${name} is not staged; only a staged submission can be sent for approval.`;
      return nonEmpty(event.approvalId) ? undefined : `${name}: the approval needs an id.`;
    case 'approvalChecked':
      if (!APPROVAL_STATUSES.includes(event.status)) return `${name}: an approval is pending, approved or rejected.`;
      if (!record.approval) return `${name} was not sent for approval.`;
      return record.approval.status === 'pending' ? undefined : `${name}'s approval is ${record.approval.status} already.`;
    default:
      return `Unknown submission event '${String((event as { type?: unknown }).type)}'.`;
  }
}

/**
 * The submissions after `event`. Pure: returns `submissions` itself when the event does not apply (see
 * {@link canApplySubmission}), otherwise a new map (inputs are never mutated). Staging replaces any other staged
 * submission for the same model on the same server (outcome `replaced`).
 */
export function reduceSubmissions(submissions: Submissions, event: SubmissionEvent): Submissions {
  if (canApplySubmission(submissions, event) !== undefined) return submissions;
  const at = event.at;
  if (event.type === 'formReceived') {
    const record: SubmissionRecord = { id: event.submissionId, origin: event.origin, form: event.form, receivedAt: at, phase: 'open', stagings: 0, submitAttempts: 0 };
    return put(submissions, record);
  }
  const record = getSubmission(submissions, event.submissionId)!;
  switch (event.type) {
    case 'formStaged': {
      let next = submissions;
      for (const other of stagedSubmissions(submissions)) {
        if (other.id !== record.id && other.origin.server === record.origin.server && submissionModel(other) === submissionModel(record)) {
          next = put(next, { ...other, phase: 'finished', outcome: 'replaced', replacedById: record.id, finishedAt: at });
        }
      }
      const staged: SubmissionRecord = {
        ...record, phase: 'staged', fields: event.fields, entry: event.entry, stagedAt: at, stagings: record.stagings + 1,
        approval: undefined, approvalRequired: record.approvalRequired || record.approval !== undefined || undefined, lastError: undefined,
      };
      return put(next, staged);
    }
    case 'formSubmitted':
      return put(submissions, event.ok
        ? { ...record, phase: 'finished', outcome: 'submitted', submitAttempts: record.submitAttempts + 1, lastError: undefined, submitted: { tool: event.tool, args: event.args }, result: event.result, recordId: event.recordId, finishedAt: at }
        : { ...record, submitAttempts: record.submitAttempts + 1, lastError: event.error });
    case 'formDiscarded':
      return put(submissions, { ...record, phase: 'finished', outcome: 'discarded', discardReason: event.reason, finishedAt: at });
    case 'approvalRequested':
      return put(submissions, { ...record, approval: { id: event.approvalId, status: 'pending', requestedAt: at }, approvalRequired: true });
    case 'approvalChecked':
      return put(submissions, { ...record, approval: { ...record.approval!, status: event.status, reason: event.reason, checkedAt: at } });
    default:
      return submissions;
  }
}

function put(submissions: Submissions, record: SubmissionRecord): Submissions {
  return { ...submissions, [record.id]: record };
}

/** The shape problem of a stored submission event (for the ledger reader), or undefined. Only the shape is checked. */
export function submissionEventProblem(e: Record<string, unknown>): string | undefined {
  const type = String(e.type);
  if (typeof e.submissionId !== 'string') return `${type}.submissionId is not a string`;
  switch (type) {
    case 'formReceived':
      if (!isObject(e.origin) || typeof e.origin.server !== 'string' || typeof e.origin.tool !== 'string' || !isObject(e.origin.args)) return 'formReceived.origin is not {server, tool, args}';
      return isObject(e.form) && isObject(e.form.schema) ? undefined : 'formReceived.form is not a form';
    case 'formStaged': return isObject(e.fields) ? undefined : 'formStaged.fields is not an object';
    case 'formSubmitted': return typeof e.ok === 'boolean' && typeof e.tool === 'string' && isObject(e.args) ? undefined : 'formSubmitted is not {ok, tool, args}';
    case 'approvalRequested': return typeof e.approvalId === 'string' ? undefined : 'approvalRequested.approvalId is not a string';
    case 'approvalChecked': return typeof e.status === 'string' ? undefined : 'approvalChecked.status is not a string';
    default: return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the form


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
  if (value === undefined || value === null) return field.type === 'checkbox' ? false : field.type === 'multiselect' || field.type === 'checkbox_group' ? [] : '';
  switch (field.type) {
    case 'checkbox': return toFieldValue(field, value) === true;
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

const isEmptyValue = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/**
 * Reads the form's controls into the values to stage or submit, and checks them ({@link validateFormValues}).
 * Fields hidden by `visibleWhen` are left out. A field the user left empty is left out, except when editing a
 * record whose current value is not empty: then it is `null` (cleared). Keys that are not fields are ignored;
 * `__proto__` and the like are plain data.
 */
export function readFormControls(form: CollectFormPayload, controls: Record<string, unknown>): { values: Record<string, unknown>; problems: Problem[] } {
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
    else if (form.mode === 'update' && Object.hasOwn(form.defaults, field.name) && !isEmptyValue(form.defaults[field.name])) setOwn(values, field.name, null);
  }
  // A cleared field is absent for the checks: only a required one is reported.
  const checked: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) if (v !== null) setOwn(checked, k, v);
  return { values, problems: validateFormValues(form.schema, checked) };
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

// ---------------------------------------------------------------------------------------------------------------
// The staged entry and the diff

/**
 * The staged entry in a collect_form_data or get_form_data result: `{entry}` (or `{ok, entry}`) → the entry;
 * `{entry: null, message}` → `missing` with the message; `{error}` or an isError result → `error`. Never throws.
 */
export function parseStagedEntry(result: ToolResult | undefined): { kind: 'entry'; entry: StagedEntry } | { kind: 'missing'; message: string } | { kind: 'error'; message: string } {
  const text = firstText(result);
  const value = parseJsonObject(text);
  if (result?.isError === true) return { kind: 'error', message: text.trim() || 'the tool failed without a message' };
  if (!value) return { kind: 'error', message: text.trim() ? `unexpected answer: ${clipText(text, 300)}` : 'an empty answer' };
  if (typeof value.error === 'string') return { kind: 'error', message: value.error };
  const entry = value.entry;
  if (isObject(entry) && isObject(entry.fields)) {
    const out: StagedEntry = { model: typeof entry.model === 'string' ? entry.model : '', fields: entry.fields, mode: typeof entry.mode === 'string' ? entry.mode : 'create' };
    if (typeof entry.createdAt === 'number' && Number.isFinite(entry.createdAt)) out.createdAt = entry.createdAt;
    return { kind: 'entry', entry: out };
  }
  return { kind: 'missing', message: typeof value.message === 'string' ? value.message : 'no staged entry' };
}


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
    rows.push({ name: key, label: key, before, after: staged[key], changed: update ? !sameFieldValue(undefined, before, staged[key]) : !isEmptyValue(staged[key]), extra: true });
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
export function submissionCall(record: SubmissionRecord, values: Record<string, unknown>): { tool: 'create_model' | 'update_model'; args: Record<string, unknown> } | undefined {
  const form = record.form;
  if (form.mode !== 'update') return formSubmission(form, values);
  const changed: Record<string, unknown> = {};
  for (const row of stagedChanges(form, values)) if (row.changed) setOwn(changed, row.name, row.after === undefined ? null : row.after);
  if (Object.keys(changed).length === 0) return undefined;
  return formSubmission(form, changed);
}

/** A short text of a create/update result for the ledger and the views, and the record id when it names one. */
export function describeSubmitResult(result: ToolResult | undefined): { ok: boolean; text: string; recordId?: string } {
  const text = firstText(result);
  if (result?.isError === true) return { ok: false, text: text.trim() || 'the tool failed without a message' };
  const value = parseJsonObject(text);
  if (value && typeof value.error === 'string') return { ok: false, text: value.error };
  const id = value ? (value.id ?? (isObject(value.record) ? value.record.id : undefined)) : undefined;
  const recordId = typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
  const status = value && typeof value.status === 'string' ? value.status : undefined;
  const summary = recordId ? `${status ?? 'saved'} ${recordId}` : clipText(text.trim() || 'ok', 200);
  return recordId ? { ok: true, text: summary, recordId } : { ok: true, text: summary };
}

// ---------------------------------------------------------------------------------------------------------------
// Remote approval (request_approval / check_approval)

/** The approval tools a server offers, when it offers both. */
export function approvalToolsOf(tools: readonly { name: string; inputSchema?: unknown }[]): { request: { name: string; inputSchema?: unknown }; check: { name: string; inputSchema?: unknown } } | undefined {
  const request = tools.find((t) => t.name === 'request_approval');
  const check = tools.find((t) => t.name === 'check_approval');
  return request && check ? { request, check } : undefined;
}

function schemaProperties(inputSchema: unknown): { names: string[]; required: string[] } {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return { names: [], required: [] };
  const required = Array.isArray(inputSchema.required) ? inputSchema.required.filter((r): r is string => typeof r === 'string') : [];
  return { names: Object.keys(inputSchema.properties), required };
}

/**
 * request_approval's arguments, fitted to its input schema: `model`, and where the tool asks for them `attributes`
 * (what Submit would send), `fields` (the staged values), `record_id` and `mode`. Without a schema: `{model}`.
 */
export function requestApprovalArgs(inputSchema: unknown, record: SubmissionRecord): Record<string, unknown> {
  const { names } = schemaProperties(inputSchema);
  const values = stagedValues(record);
  const args: Record<string, unknown> = { model: submissionModel(record) };
  const call = submissionCall(record, values);
  if (names.includes('attributes')) args.attributes = call ? call.args.attributes : {};
  if (names.includes('fields')) args.fields = values;
  if (names.includes('record_id') && record.form.recordId !== undefined) args.record_id = record.form.recordId;
  if (names.includes('mode')) args.mode = record.form.mode;
  return args;
}

/** check_approval's arguments: the approval id under the name its schema uses (`approval_id`, `approvalId`, `id`, or its one required property). */
export function checkApprovalArgs(inputSchema: unknown, approvalId: string): Record<string, unknown> {
  const { names, required } = schemaProperties(inputSchema);
  const key = ['approval_id', 'approvalId', 'id'].find((k) => names.includes(k)) ?? (required.length === 1 ? required[0] : undefined) ?? 'approval_id';
  return { [key]: approvalId };
}

/**
 * The approval id in a request_approval result: JSON `approval_id` / `approvalId` / `id`, or text like
 * "Approval requested: abc123". Never throws.
 */
export function parseApprovalRequest(result: ToolResult | undefined): { ok: true; id: string } | { ok: false; error: string } {
  const text = firstText(result);
  if (result?.isError === true) return { ok: false, error: text.trim() || 'request_approval failed without a message' };
  const value = parseJsonObject(text);
  if (value) {
    if (typeof value.error === 'string') return { ok: false, error: value.error };
    const id = value.approval_id ?? value.approvalId ?? value.id;
    if ((typeof id === 'string' && id.trim() !== '') || typeof id === 'number') return { ok: true, id: String(id).trim() };
  }
  const m = /approval(?:\s+requested)?(?:\s+id)?\s*[:#]\s*([A-Za-z0-9._:@/-]+)/i.exec(text) ?? /\bid\s*[:#]?\s+([A-Za-z0-9._:@/-]+)/i.exec(text);
  if (m) return { ok: true, id: m[1]!.replace(/[.,;]+$/, '') };
  return { ok: false, error: `request_approval did not say which approval to poll (it answered ${text.trim() ? `"${clipText(text.trim(), 200)}"` : 'nothing'})` };
}

const STATUS_WORDS: Record<string, ApprovalStatus> = {
  pending: 'pending', waiting: 'pending', requested: 'pending', open: 'pending', in_review: 'pending',
  approved: 'approved', approve: 'approved', accepted: 'approved', granted: 'approved',
  rejected: 'rejected', reject: 'rejected', denied: 'rejected', declined: 'rejected',
};

/** What one check_approval answered. */
export type ApprovalCheck = { ok: true; status: ApprovalStatus; reason?: string } | { ok: false; error: string };

/**
 * The status in a check_approval result: JSON `{status, reason?}` or a plain word ("pending", "approved",
 * "rejected"; a few synonyms too). An isError result or an unknown status is `ok: false`. Never throws.
 */
export function parseApprovalCheck(result: ToolResult | undefined): ApprovalCheck {
  const text = firstText(result);
  if (result?.isError === true) return { ok: false, error: text.trim() || 'check_approval failed without a message' };
  const value = parseJsonObject(text);
  let word: string | undefined;
  let reason: string | undefined;
  if (value) {
    if (typeof value.error === 'string') return { ok: false, error: value.error };
    if (typeof value.status === 'string') word = value.status;
    const r = value.reason ?? value.comment ?? value.message;
    if (typeof r === 'string' && r.trim() !== '') reason = clipText(r.trim(), 500);
  } else {
    word = /^\s*([A-Za-z_]+)/.exec(text)?.[1];
    const rest = text.trim().slice(word?.length ?? 0).replace(/^[\s:,.-]+/, '');
    if (rest) reason = clipText(rest, 500);
  }
  const status = word !== undefined && Object.hasOwn(STATUS_WORDS, word.toLowerCase()) ? STATUS_WORDS[word.toLowerCase()] : undefined;
  if (!status) return { ok: false, error: `check_approval answered ${text.trim() ? `"${clipText(text.trim(), 200)}"` : 'nothing'}, which is not pending, approved or rejected` };
  return reason !== undefined && status !== 'pending' ? { ok: true, status, reason } : { ok: true, status };
}

export interface PollSchedule {
  /** Delay before the first check (default 1000 ms). */
  initialMs?: number;
  /** Longest delay between checks (default 30 000 ms). */
  maxMs?: number;
  /** Growth per check (default 2). */
  factor?: number;
}

/** The delay before check number `attempt` (0-based): 1 s, 2 s, 4 s, … capped at 30 s by default. */
export function approvalPollDelay(attempt: number, schedule: PollSchedule = {}): number {
  const initial = schedule.initialMs ?? 1000;
  const max = schedule.maxMs ?? 30_000;
  const factor = schedule.factor ?? 2;
  const n = Number.isInteger(attempt) && attempt > 0 ? attempt : 0;
  return Math.min(max, initial * factor ** Math.min(n, 64));
}

export type PollOutcome =
  | { status: 'approved' | 'rejected'; reason?: string; checks: number }
  | { status: 'cancelled'; checks: number }
  /** check_approval kept failing (or answered something that is not a status). */
  | { status: 'error'; error: string; checks: number };

export interface PollOptions {
  schedule?: PollSchedule;
  /** Stops the loop (the outcome is then `cancelled`). */
  token?: CancellationToken;
  /** Waits `ms` (default: a timer that the token cuts short). */
  sleep?: (ms: number, token?: CancellationToken) => Promise<void>;
  /** Called before each wait with when the next check is due. */
  onWait?: (delayMs: number, attempt: number) => void;
  /** Called after each check that answered a status. */
  onCheck?: (check: Extract<ApprovalCheck, { ok: true }>, attempt: number) => void;
  /** Consecutive failed checks (call errors, unknown answers) before giving up (default 3). */
  maxFailures?: number;
}

/**
 * Polls `check` on the backoff schedule until it answers approved or rejected, the token is cancelled, or it fails
 * `maxFailures` times in a row. A check that throws counts as a failure (its message is the error).
 */
export async function pollApproval(check: () => Promise<ApprovalCheck>, options: PollOptions = {}): Promise<PollOutcome> {
  const sleep = options.sleep ?? defaultSleep;
  const maxFailures = options.maxFailures ?? 3;
  let checks = 0;
  let failures = 0;
  for (let attempt = 0; ; attempt++) {
    if (options.token?.isCancellationRequested) return { status: 'cancelled', checks };
    const delay = approvalPollDelay(attempt, options.schedule);
    options.onWait?.(delay, attempt);
    await sleep(delay, options.token);
    if (options.token?.isCancellationRequested) return { status: 'cancelled', checks };
    let answer: ApprovalCheck;
    try {
      answer = await check();
    } catch (err) {
      answer = { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    if (options.token?.isCancellationRequested) return { status: 'cancelled', checks };
    if (!answer.ok) {
      failures++;
      if (failures >= maxFailures) return { status: 'error', error: answer.error, checks };
      continue;
    }
    failures = 0;
    checks++;
    options.onCheck?.(answer, attempt);
    if (answer.status !== 'pending') return answer.reason !== undefined ? { status: answer.status, reason: answer.reason, checks } : { status: answer.status, checks };
  }
}

function defaultSleep(ms: number, token?: CancellationToken): Promise<void> {
  return new Promise((resolve) => {
    const sub = token?.onCancellationRequested(() => { clearTimeout(timer); resolve(); });
    const timer = setTimeout(() => { sub?.dispose(); resolve(); }, ms);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// In words

/** A submission's title: the form's title (e.g. "Edit Contact") with the record id when editing. */
export function submissionTitle(record: SubmissionRecord): string {
  const title = record.form.schema.title || `${record.form.mode === 'update' ? 'Edit' : 'Create'} ${submissionModel(record)}`;
  return visibleText(record.form.recordId !== undefined ? `${title} ${record.form.recordId}` : title);
}

/** A submission's state in a few words (views, tab badges). */
export function describeSubmissionState(record: SubmissionRecord): string {
  switch (record.phase) {
    case 'open': return record.lastError ? 'submit failed' : record.form.submitMode === 'collect' ? 'not staged' : 'not submitted';
    case 'staged': {
      if (record.approval?.status === 'pending') return 'waiting for approval';
      if (record.approval?.status === 'approved') return 'approved';
      if (record.approval?.status === 'rejected') return 'rejected';
      return record.lastError ? 'submit failed' : 'staged';
    }
    default: return record.outcome ?? 'finished';
  }
}

/** How long ago `then` was, in words ("just now", "5 min ago", "3 h ago", "2 days ago"). */
export function formatAge(then: number, now: number): string {
  const s = Math.max(0, Math.floor((now - then) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const hrs = Math.round(m / 60);
  if (hrs < 36) return `${hrs} h ago`;
  const days = Math.round(hrs / 24);
  return `${days} day${days === 1 ? '' : 's'} ago`;
}

/** A value as the review shows it: text as is, lists joined, empty as "—". */
export function displayValue(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  if (Array.isArray(value)) return value.length ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A form tool's error in words a user can act on: what happened, on which server, and what to do next.
 */
export function describeCollectError(error: CollectError, server: string, tool: string): string {
  switch (error.type) {
    case 'unknown_model':
      return error.available?.length
        ? `${server} has no model "${error.model ?? '?'}". Call ${tool} again with one of: ${error.available.join(', ')}.`
        : `${error.message} (server ${server}). Call ${tool} again with a model the server knows.`;
    case 'associations_needed': {
      const names = error.associations.flatMap((a) => (isObject(a) && typeof a.association === 'string' ? [a.association] : []));
      const prefill = names.length ? ` with prefill ${JSON.stringify(Object.fromEntries(names.map((n) => [`${n}_id`, '<id>'])))}` : ' with the associations in prefill';
      return `${error.model} on ${server} needs ${names.length ? names.join(', ') : 'its associations'} chosen first: ${error.message} Call ${tool} again${prefill}.`;
    }
    case 'store_unavailable':
      return `${server} cannot stage forms (${error.message}): its collect-mode store is not configured. Ask the server's author to enable it, or use a server in direct mode.`;
    case 'invalid_form':
      return `${server}'s ${tool} sent a form Plangate cannot show: ${error.message}.\n${error.problems.slice(0, 10).map((p) => `• ${p.path || '(form)'}: ${p.message}`).join('\n')}`;
    case 'error':
      return `${tool} on ${server} failed: ${error.message}`;
    default:
      return `${tool} on ${server} failed.`;
  }
}

function firstText(result: ToolResult | undefined): string {
  const content = result && Array.isArray(result.content) ? result.content : [];
  for (const block of content) {
    if (isObject(block) && block.type === 'text' && typeof block.text === 'string') return block.text;
  }
  return '';
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}') || t.length > 5_000_000) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
