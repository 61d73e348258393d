/**
 * Remote approval of a staged submission (request_approval / check_approval): which tools a server offers for it,
 * their arguments fitted to their input schemas, their answers read leniently, and the polling schedule and loop.
 * The loop waits with the caller's sleep (the engine's clock; a fake one in tests), a plain timer by default.
 */
import type { CancellationToken } from '../base/lifecycle';
import type { ToolResult } from '../base/toolResult';
import { clipText, firstText, isObject, parseJsonObject } from '../forms/answers';
import { submissionModel } from '../forms/reducer';
import type { ApprovalStatus, SubmissionRecord } from '../forms/types';
import { stagedValues, submissionCall } from '../forms/values';

/** The approval tools a server offers, when it offers both. */
export function approvalToolsOf(
  tools: readonly { name: string; inputSchema?: unknown }[],
): { request: { name: string; inputSchema?: unknown }; check: { name: string; inputSchema?: unknown } } | undefined {
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
  const key =
    ['approval_id', 'approvalId', 'id'].find((k) => names.includes(k)) ??
    (required.length === 1 ? required[0] : undefined) ??
    'approval_id';
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
  const m =
    /approval(?:\s+requested)?(?:\s+id)?\s*[:#]\s*([A-Za-z0-9._:@/-]+)/i.exec(text) ?? /\bid\s*[:#]?\s+([A-Za-z0-9._:@/-]+)/i.exec(text);
  if (m) return { ok: true, id: m[1]!.replace(/[.,;]+$/, '') };
  return {
    ok: false,
    error: `request_approval did not say which approval to poll (it answered ${text.trim() ? `"${clipText(text.trim(), 200)}"` : 'nothing'})`,
  };
}

const STATUS_WORDS: Record<string, ApprovalStatus> = {
  pending: 'pending',
  waiting: 'pending',
  requested: 'pending',
  open: 'pending',
  in_review: 'pending',
  approved: 'approved',
  approve: 'approved',
  accepted: 'approved',
  granted: 'approved',
  rejected: 'rejected',
  reject: 'rejected',
  denied: 'rejected',
  declined: 'rejected',
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
    const rest = text
      .trim()
      .slice(word?.length ?? 0)
      .replace(/^[\s:,.-]+/, '');
    if (rest) reason = clipText(rest, 500);
  }
  const status = word !== undefined && Object.hasOwn(STATUS_WORDS, word.toLowerCase()) ? STATUS_WORDS[word.toLowerCase()] : undefined;
  if (!status)
    return {
      ok: false,
      error: `check_approval answered ${text.trim() ? `"${clipText(text.trim(), 200)}"` : 'nothing'}, which is not pending, approved or rejected`,
    };
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
  const sleep = options.sleep ?? sleepUnlessCancelled;
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
    if (answer.status !== 'pending')
      return answer.reason !== undefined ? { status: answer.status, reason: answer.reason, checks } : { status: answer.status, checks };
  }
}

/** Resolves after `ms`, or at once when `token` is cancelled (the timer is then cleared). */
export function sleepUnlessCancelled(ms: number, token?: CancellationToken): Promise<void> {
  return new Promise((resolve) => {
    const sub = token?.onCancellationRequested(() => {
      clearTimeout(timer);
      resolve();
    });
    const timer = setTimeout(() => {
      sub?.dispose();
      resolve();
    }, ms);
  });
}
