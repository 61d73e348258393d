/**
 * What the panel shows for a collect-mode submission: the form, the values its controls start with, the staged
 * review and whether Submit may be pressed now. Pure: the host (ui/collectForms.ts) passes what it knows besides the
 * ledger's record (actions in flight, errors, polling, drafts, the server's state).
 */
import type { CollectFormSchemaView, ControlValue } from '../../shared/forms';
import type { CollectFormView } from '../../shared/protocol';
import { initialValue, stagedChanges, stagedValues, submissionCall, submitBlocker, toControlValue, type SubmissionRecord } from '../submissions';

/** What the host knows about a submission besides its record. */
export interface CollectHostState {
  /** The server offers request_approval and check_approval. */
  approvalTools: boolean;
  busy?: CollectFormView['busy'];
  error?: string;
  problems?: { path: string; message: string }[];
  nextCheckAt?: number;
  draft?: Record<string, ControlValue>;
  /** The form's server: its state, or undefined when it is no longer configured. */
  serverState: string | undefined;
}

/** The submission's record as the webview needs it: the form and where it stands, nothing of the ledger's bookkeeping. */
export function submissionView(record: SubmissionRecord): CollectFormSchemaView {
  const { form } = record;
  return {
    id: record.id,
    origin: { server: record.origin.server, tool: record.origin.tool },
    form: {
      schema: form.schema, mode: form.mode, submitMode: form.submitMode,
      ...(form.hiddenValues !== undefined ? { hiddenValues: form.hiddenValues } : {}),
      ...(form.parentContext !== undefined ? { parentContext: form.parentContext } : {}),
      ...(form.recordId !== undefined ? { recordId: form.recordId } : {}),
    },
    phase: record.phase,
    ...(record.outcome !== undefined ? { outcome: record.outcome } : {}),
    entryShown: record.entry !== undefined,
    ...(record.approval ? { approval: { id: record.approval.id, status: record.approval.status, ...(record.approval.reason !== undefined ? { reason: record.approval.reason } : {}) } } : {}),
    ...(record.approvalRequired !== undefined ? { approvalRequired: record.approvalRequired } : {}),
    ...(record.lastError !== undefined ? { lastError: record.lastError } : {}),
    ...(record.submitted !== undefined ? { submitted: record.submitted } : {}),
    ...(record.result !== undefined ? { result: record.result } : {}),
  };
}

/** The collect form's view model. */
export function toCollectFormView(record: SubmissionRecord, host: CollectHostState): CollectFormView {
  const initial: Record<string, ControlValue> = {};
  for (const field of record.form.schema.fields) {
    // Field names are server data: `__proto__` must stay a plain key.
    Object.defineProperty(initial, field.name, { value: toControlValue(field, initialValue(record.form, field, record.fields)), enumerable: true, writable: true, configurable: true });
  }
  const staged = record.phase === 'staged' || (record.phase === 'finished' && record.fields !== undefined);
  const values = record.form.submitMode === 'collect' ? stagedValues(record) : undefined;
  const call = values && record.phase === 'staged' ? submissionCall(record, values) : undefined;
  const view: CollectFormView = {
    record: submissionView(record),
    initial,
    approvalTools: host.approvalTools,
    submitBlocker: record.phase === 'finished' ? undefined : submitBlocker(record) ?? (record.phase === 'staged' && !call ? 'Nothing changed: the staged values are the record\'s current values.' : undefined),
  };
  if (staged && values) view.changes = stagedChanges(record.form, values);
  if (call) view.submitCall = call;
  if (host.busy) view.busy = host.busy;
  if (host.error) view.error = host.error;
  if (host.problems?.length) view.problems = host.problems;
  if (host.nextCheckAt !== undefined) view.nextCheckAt = host.nextCheckAt;
  if (host.draft && record.phase !== 'finished') view.draft = host.draft;
  if (record.phase !== 'finished' && host.serverState !== 'running') {
    view.serverDown = host.serverState !== undefined
      ? `Server "${record.origin.server}" is ${host.serverState}: start it in the Servers view to stage or submit.`
      : `Server "${record.origin.server}" is no longer configured.`;
  }
  return view;
}
