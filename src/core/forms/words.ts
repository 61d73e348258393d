/**
 * Collect mode in words: a submission's title and state, ages, values as the review shows them, and a form tool's
 * errors as instructions. The one place that says these things (views, tab badges, Call Tool, the panel).
 */
import { visibleText } from '../../shared/visibleText';
import type { CollectError } from '../plan/classify';
import { isObject } from './answers';
import { submissionModel } from './reducer';
import type { SubmissionRecord } from './types';

/** A submission's title: the form's title (e.g. "Edit Contact") with the record id when editing. */
export function submissionTitle(record: SubmissionRecord): string {
  const title = record.form.schema.title || `${record.form.mode === 'update' ? 'Edit' : 'Create'} ${submissionModel(record)}`;
  return visibleText(record.form.recordId !== undefined ? `${title} ${record.form.recordId}` : title);
}

/** A submission's state in a few words (views, tab badges). */
export function describeSubmissionState(record: SubmissionRecord): string {
  switch (record.phase) {
    case 'open':
      return record.lastError ? 'submit failed' : record.form.submitMode === 'collect' ? 'not staged' : 'not submitted';
    case 'staged': {
      if (record.approval?.status === 'pending') return 'waiting for approval';
      if (record.approval?.status === 'approved') return 'approved';
      if (record.approval?.status === 'rejected') return 'rejected';
      return record.lastError ? 'submit failed' : 'staged';
    }
    default:
      return record.outcome ?? 'finished';
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
      const prefill = names.length
        ? ` with prefill ${JSON.stringify(Object.fromEntries(names.map((n) => [`${n}_id`, '<id>'])))}`
        : ' with the associations in prefill';
      return `${error.model} on ${server} needs ${names.length ? names.join(', ') : 'its associations'} chosen first: ${error.message} Call ${tool} again${prefill}.`;
    }
    case 'store_unavailable':
      return `${server} cannot stage forms (${error.message}): its collect-mode store is not configured. Ask the server's author to enable it, or use a server in direct mode.`;
    case 'invalid_form':
      return `${server}'s ${tool} sent a form Plangate cannot show: ${error.message}.\n${error.problems
        .slice(0, 10)
        .map((p) => `• ${p.path || '(form)'}: ${p.message}`)
        .join('\n')}`;
    case 'error':
      return `${tool} on ${server} failed: ${error.message}`;
    default:
      return `${tool} on ${server} failed.`;
  }
}
