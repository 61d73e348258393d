/**
 * The submission reducer: what each collect-mode event (see types.ts) does to the submissions, why an event does not
 * apply, and the selectors the views and the engine read. workflow.ts delegates its submission events here
 * ({@link canApplySubmission}, {@link reduceSubmissions}); this module never touches plans. Everything
 * server-supplied is untrusted data: nothing here throws on bad input.
 */
import type { ApprovalStatus, SubmissionEvent, SubmissionRecord, Submissions } from './types';
import { SUBMISSION_EVENT_TYPES } from './types';

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
  return stagedSubmissions(submissions).find(
    (s) => s.id !== record.id && s.origin.server === record.origin.server && submissionModel(s) === model,
  );
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
    if (!isObject(o) || !nonEmpty(o.server) || typeof o.tool !== 'string' || !isObject(o.args))
      return 'formReceived: the origin must be {server, tool, args}.';
    const form = event.form as unknown;
    if (!isObject(form) || !isObject(form.schema) || typeof form.schema.model !== 'string' || !Array.isArray(form.schema.fields))
      return 'formReceived: the form must hold a schema with a model and fields.';
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
      if (event.entry !== undefined && (!isObject(event.entry) || !isObject(event.entry.fields)))
        return `${name}: the staged entry must hold its fields.`;
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
    const record: SubmissionRecord = {
      id: event.submissionId,
      origin: event.origin,
      form: event.form,
      receivedAt: at,
      phase: 'open',
      stagings: 0,
      submitAttempts: 0,
    };
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
        ...record,
        phase: 'staged',
        fields: event.fields,
        entry: event.entry,
        stagedAt: at,
        stagings: record.stagings + 1,
        approval: undefined,
        approvalRequired: record.approvalRequired || record.approval !== undefined || undefined,
        lastError: undefined,
      };
      return put(next, staged);
    }
    case 'formSubmitted':
      return put(
        submissions,
        event.ok
          ? {
              ...record,
              phase: 'finished',
              outcome: 'submitted',
              submitAttempts: record.submitAttempts + 1,
              lastError: undefined,
              submitted: { tool: event.tool, args: event.args },
              result: event.result,
              recordId: event.recordId,
              finishedAt: at,
            }
          : { ...record, submitAttempts: record.submitAttempts + 1, lastError: event.error },
      );
    case 'formDiscarded':
      return put(submissions, { ...record, phase: 'finished', outcome: 'discarded', discardReason: event.reason, finishedAt: at });
    case 'approvalRequested':
      return put(submissions, {
        ...record,
        approval: { id: event.approvalId, status: 'pending', requestedAt: at },
        approvalRequired: true,
      });
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
      if (!isObject(e.origin) || typeof e.origin.server !== 'string' || typeof e.origin.tool !== 'string' || !isObject(e.origin.args))
        return 'formReceived.origin is not {server, tool, args}';
      return isObject(e.form) && isObject(e.form.schema) ? undefined : 'formReceived.form is not a form';
    case 'formStaged':
      return isObject(e.fields) ? undefined : 'formStaged.fields is not an object';
    case 'formSubmitted':
      return typeof e.ok === 'boolean' && typeof e.tool === 'string' && isObject(e.args)
        ? undefined
        : 'formSubmitted is not {ok, tool, args}';
    case 'approvalRequested':
      return typeof e.approvalId === 'string' ? undefined : 'approvalRequested.approvalId is not a string';
    case 'approvalChecked':
      return typeof e.status === 'string' ? undefined : 'approvalChecked.status is not a string';
    default:
      return undefined;
  }
}
