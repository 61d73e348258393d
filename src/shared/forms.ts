/**
 * The collect-mode form (mcp-rune) as it travels to the webview: the form schema's shapes, what a control holds,
 * the staged review's rows, and the submission's view model. A leaf like protocol/: core's parser
 * (core/plan/collectForm.ts) and reducer (core/forms/submissions.ts) use these types; the webview renders them.
 */

/** The field types Plangate renders (core/plan/collectForm.ts FORM_FIELD_TYPES lists them for the parser). */
export type FormFieldType =
  | 'text'
  | 'textarea'
  | 'number'
  | 'checkbox'
  | 'date'
  | 'datetime-local'
  | 'time'
  | 'email'
  | 'url'
  | 'color'
  | 'select'
  | 'multiselect'
  | 'checkbox_group';

export type FormMode = 'create' | 'update';
export type SubmitMode = 'direct' | 'collect';

/** One choice of a select, multiselect or checkbox group. Association options may carry numeric ids. */
export interface FormFieldOption {
  value: string | number;
  label: string;
  color?: string;
  [extra: string]: unknown;
}

/** Where a select's options come from (the server resolves them; Plangate only shows them). */
export interface FormFieldAssociation {
  endpoint: string;
  labelField: string;
  valueField?: string;
  nested?: { parentModel: string; childEndpoint: string; [extra: string]: unknown };
  [extra: string]: unknown;
}

/** `{field, equals}` or `{field, notEquals}`: the field shows only when the other field's value matches. */
export interface VisibleWhen {
  field?: string;
  equals?: unknown;
  notEquals?: unknown;
  [extra: string]: unknown;
}

export interface FormField {
  name: string;
  label: string;
  group: string;
  required: boolean;
  type: FormFieldType;
  /** The server's `type` when Plangate did not know it; the field is then shown as `text`. */
  rawType?: string;
  /** Model attribute kind (`string`, `integer`, `date`, …), distinct from the widget `type`. */
  kind?: string;
  format?: string;
  description?: string;
  placeholder?: string;
  default?: unknown;
  options?: FormFieldOption[];
  association?: FormFieldAssociation;
  /** Constraints such as `min`, `max`, `minLength`, `maxLength`. */
  validation?: Record<string, unknown>;
  visibleWhen?: VisibleWhen;
  enumValues?: string[];
  [extra: string]: unknown;
}

export interface FormFieldset {
  key: string;
  title: string;
  description: string;
  required: boolean;
  /** Field groups shown in this fieldset, in order (fields name their group in `group`). */
  groups: string[];
  [extra: string]: unknown;
}

/** mcp-rune's AppFormSchema. */
export interface AppFormSchema {
  model: string;
  title: string;
  fieldsets: FormFieldset[];
  fields: FormField[];
  /** Layout per group, e.g. `{type: "row"}`. */
  groupLayouts?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** Set on create forms for nested models: the parent record the new one belongs to. */
export interface ParentContext {
  parentModel: string;
  parentId: string;
  label: string;
  [extra: string]: unknown;
}

/** What a form control holds: text for inputs and selects, a boolean for a checkbox, the chosen values of a group. */
export type ControlValue = string | boolean | string[];

/** One row of the staged review. */
export interface FieldChange {
  name: string;
  label: string;
  /** The current value (update forms: the record as the form showed it); undefined for a create. */
  before?: unknown;
  /** The staged value; `null` when the field is cleared, undefined when it is not in the entry. */
  after?: unknown;
  /** Update: the value differs from the current one. Create: the field has a value. */
  changed: boolean;
  /** Not one of the form's fields (the server's entry holds it anyway). */
  extra?: boolean;
}

/** A submission as the collect form shows it (core/present/collectView.ts builds it from the ledger's record). */
export interface CollectFormSchemaView {
  id: string;
  /** The form tool call whose result was the form. */
  origin: { server: string; tool: string };
  form: {
    schema: AppFormSchema;
    mode: FormMode;
    submitMode: SubmitMode;
    /** Create only: prefilled values that are not fields but belong in the submission. */
    hiddenValues?: Record<string, unknown>;
    parentContext?: ParentContext;
    /** Update only: the record being edited. */
    recordId?: string;
  };
  phase: 'open' | 'staged' | 'finished';
  outcome?: 'submitted' | 'discarded' | 'replaced';
  /** Where it stands, in the panel's words ("Staged for review", "Submitted", …). */
  stateText: string;
  /** The server answered get_form_data with the staged entry (else the review shows what Plangate staged). */
  entryShown: boolean;
  /** The remote approval of the staged values, when one was requested. */
  approval?: { id: string; status: 'pending' | 'approved' | 'rejected'; reason?: string };
  approvalRequired?: boolean;
  /** Why the last submit failed. */
  lastError?: string;
  /** The call that submitted it. */
  submitted?: { tool: string; args: Record<string, unknown> };
  /** A short text of the submit result. */
  result?: string;
}
