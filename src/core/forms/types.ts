/**
 * The data of collect mode (mcp-rune Center-of-Control, reference/protocols.md §2): a submission as the ledger holds
 * it, the events that change it, and the two value shapes the panel exchanges with core (a control's value, a row of
 * the staged review). A leaf: it imports only types of the form and of plan.ts, so the workflow reducer, the
 * ledger, the protocol and the collect engine can all use it without importing each other.
 */
import type { CollectFormPayload } from '../plan/collectForm';
import type { PlanOrigin } from '../plan/plan';

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
  | {
      type: 'formSubmitted';
      at: number;
      submissionId: string;
      ok: boolean;
      tool: string;
      args: Record<string, unknown>;
      error?: string;
      result?: string;
      recordId?: string;
    }
  /** The user discarded the submission: nothing was (or will be) submitted. */
  | { type: 'formDiscarded'; at: number; submissionId: string; reason?: string }
  /** request_approval accepted the staged values and answered with an approval id. */
  | { type: 'approvalRequested'; at: number; submissionId: string; approvalId: string }
  /** check_approval answered (Plangate records the decision, not every pending answer). */
  | { type: 'approvalChecked'; at: number; submissionId: string; status: ApprovalStatus; reason?: string };

export type SubmissionEventType = SubmissionEvent['type'];

/** Every submission event type, checked by the compiler against {@link SubmissionEvent}: a new one must be listed. */
const SUBMISSION_EVENTS = {
  formReceived: true,
  formStaged: true,
  formSubmitted: true,
  formDiscarded: true,
  approvalRequested: true,
  approvalChecked: true,
} as const satisfies Record<SubmissionEventType, true>;

export const SUBMISSION_EVENT_TYPES = Object.keys(SUBMISSION_EVENTS) as readonly SubmissionEventType[];

export type Submissions = Readonly<Record<string, SubmissionRecord>>;

// The panel shows them: the wire types live in shared/forms.ts (the webview imports only shared).
export type { ControlValue, FieldChange } from '../../shared/forms';

/** The create/update call that submits a form. */
export interface SubmitCall {
  tool: 'create_model' | 'update_model';
  args: Record<string, unknown>;
}
