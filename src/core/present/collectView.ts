/**
 * What the panel shows for a collect-mode submission: the engine's snapshot of it, without the ledger's bookkeeping.
 * Pure.
 */
import type { CollectFormSchemaView } from '../../shared/forms';
import type { CollectFormView } from '../../shared/protocol/collect';
import type { SubmissionSnapshot } from '../collect/engine';
import type { SubmissionRecord } from '../forms/types';

const STATE_TEXT: Record<string, string> = {
  open: 'Not staged',
  staged: 'Staged for review',
  submitted: 'Submitted',
  discarded: 'Discarded',
  replaced: 'Replaced',
};

/** The submission's record as the webview needs it: the form and where it stands, nothing of the ledger's bookkeeping. */
export function submissionView(record: SubmissionRecord): CollectFormSchemaView {
  const { form } = record;
  return {
    id: record.id,
    origin: { server: record.origin.server, tool: record.origin.tool },
    form: {
      schema: form.schema,
      mode: form.mode,
      submitMode: form.submitMode,
      ...(form.hiddenValues !== undefined ? { hiddenValues: form.hiddenValues } : {}),
      ...(form.parentContext !== undefined ? { parentContext: form.parentContext } : {}),
      ...(form.recordId !== undefined ? { recordId: form.recordId } : {}),
    },
    phase: record.phase,
    ...(record.outcome !== undefined ? { outcome: record.outcome } : {}),
    stateText: record.phase === 'finished' ? (STATE_TEXT[record.outcome ?? 'submitted'] ?? 'Finished') : STATE_TEXT[record.phase],
    entryShown: record.entry !== undefined,
    ...(record.approval
      ? {
          approval: {
            id: record.approval.id,
            status: record.approval.status,
            ...(record.approval.reason !== undefined ? { reason: record.approval.reason } : {}),
          },
        }
      : {}),
    ...(record.approvalRequired !== undefined ? { approvalRequired: record.approvalRequired } : {}),
    ...(record.lastError !== undefined ? { lastError: record.lastError } : {}),
    ...(record.submitted !== undefined ? { submitted: record.submitted } : {}),
    ...(record.result !== undefined ? { result: record.result } : {}),
  };
}

/**
 * The collect form's view model: the engine's snapshot of a submission (core/collect/engine.ts computes where it
 * stands: initial values, the staged review, the Submit call and what blocks it, the server's state), with the
 * record reduced to what the webview needs.
 */
export function toCollectFormView(snapshot: SubmissionSnapshot): CollectFormView {
  return { ...snapshot, record: submissionView(snapshot.record) };
}
