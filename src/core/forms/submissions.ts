/**
 * The collect-mode names other zones import from here (the workflow reducer, the ledger reader, the protocol, the
 * webview, Call Tool). The code lives in `collect/`: the data in types.ts, the reducer in reducer.ts, form values
 * in values.ts, the tools' answers in answers.ts, remote approval in remoteApproval.ts, wording in words.ts and
 * the stage/submit/discard/approval flows in engine.ts. New code imports from there.
 */
export type {
  ApprovalRecord,
  ApprovalStatus,
  ControlValue,
  FieldChange,
  StagedEntry,
  SubmissionEvent,
  SubmissionEventType,
  SubmissionOutcome,
  SubmissionPhase,
  SubmissionRecord,
  Submissions,
  SubmitCall,
} from './types';
export { SUBMISSION_EVENT_TYPES } from './types';
export {
  canApplySubmission,
  getSubmission,
  isSubmissionEvent,
  reduceSubmissions,
  stagedConflict,
  stagedSubmissions,
  submissionEventProblem,
  submissionList,
  submissionModel,
  submitBlocker,
} from './reducer';
export { describeCollectError } from './words';
