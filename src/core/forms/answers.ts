/**
 * What the collect tools answered: the staged entry in a collect_form_data / get_form_data result, and a
 * create_model / update_model result in a few words. Lenient and total: a server's answer is untrusted data, and
 * nothing here throws on it.
 */
import type { ToolResult } from '../base/toolResult';
import type { StagedEntry } from './types';

/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The staged entry in a collect_form_data or get_form_data result: `{entry}` (or `{ok, entry}`) → the entry;
 * `{entry: null, message}` → `missing` with the message; `{error}` or an isError result → `error`. Never throws.
 */
export function parseStagedEntry(
  result: ToolResult | undefined,
): { kind: 'entry'; entry: StagedEntry } | { kind: 'missing'; message: string } | { kind: 'error'; message: string } {
  const text = firstText(result);
  const value = parseJsonObject(text);
  if (result?.isError === true) return { kind: 'error', message: text.trim() || 'the tool failed without a message' };
  if (!value) return { kind: 'error', message: text.trim() ? `unexpected answer: ${clipText(text, 300)}` : 'an empty answer' };
  if (typeof value.error === 'string') return { kind: 'error', message: value.error };
  const entry = value.entry;
  if (isObject(entry) && isObject(entry.fields)) {
    const out: StagedEntry = {
      model: typeof entry.model === 'string' ? entry.model : '',
      fields: entry.fields,
      mode: typeof entry.mode === 'string' ? entry.mode : 'create',
    };
    if (typeof entry.createdAt === 'number' && Number.isFinite(entry.createdAt)) out.createdAt = entry.createdAt;
    return { kind: 'entry', entry: out };
  }
  return { kind: 'missing', message: typeof value.message === 'string' ? value.message : 'no staged entry' };
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

/** The first text block of a tool result (`""` when there is none). */
export function firstText(result: ToolResult | undefined): string {
  const content = result && Array.isArray(result.content) ? result.content : [];
  for (const block of content) {
    if (isObject(block) && block.type === 'text' && typeof block.text === 'string') return block.text;
  }
  return '';
}

/** `text` as a JSON object when it is one (up to 5 MB), else undefined. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}') || t.length > 5_000_000) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** `text` cut to `max` characters, with an ellipsis when cut. */
export function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
