/**
 * Classifies any MCP tool result: an `orchestrated_plan` (valid or not), an mcp-rune collect-mode form, an
 * mcp-rune form-tool error, or a plain result. Everything in the result is untrusted; nothing here throws.
 *
 * Detection order:
 * 1. `structuredContent` whose `kind` is "orchestrated_plan" — it wins over text, valid or not.
 * 2. Otherwise the first text block that holds a plan: the whole text as JSON (whitespace tolerated), or else
 *    the first ```json (or bare ```) fenced block in it whose JSON declares the kind — prose before and after is
 *    fine, fences may be longer than three backticks. A block that declares the kind but fails validation is an
 *    `invalid_plan`; later blocks are not consulted.
 * 3. Otherwise the first text block whose whole text is a collect-mode form payload (see
 *    {@link looksLikeCollectForm}): `collect_form`, or `collect_error` (`invalid_form`) when it fails validation.
 * 4. Otherwise mcp-rune form-tool errors, `collect_error`. Their shapes are generic, so the rule is narrow:
 *    `{"status":"associations_needed", "model": …}` and `{"error":"Unknown model: …"}` are recognised anywhere
 *    (both wordings are mcp-rune's own); any other `{"error": "…"}` text, or an `isError` result, counts only when
 *    the caller says the tool is one of mcp-rune's form tools ({@link COLLECT_FORM_TOOLS}).
 * 5. Everything else is `plain`. Malformed JSON is plain, never an error.
 *
 * `isError` does not change how a plan or a form is recognised. Text is parsed at most once per block, and only
 * text that looks like a JSON object (first and last non-blank characters `{` `}`) or contains a fence is parsed.
 */
import { LIMITS, describeValue, isPlainObject, parseEnvelope } from './envelope';
import { looksLikeCollectForm, parseCollectForm, type CollectFormPayload } from './collectForm';
import type { OrchestratedPlan, Problem } from './plan';

/** Where a plan was found: `structuredContent`, a whole text block, or a fenced block inside a text block. */
export type PlanSource = 'structuredContent' | 'text' | 'fenced';

/** mcp-rune's tools whose errors are form errors. */
export const COLLECT_FORM_TOOLS: readonly string[] = ['new_model_app', 'edit_model_app', 'collect_form_data', 'get_form_data'];

/** An error from an mcp-rune form tool, in words a user can act on. */
export type CollectError =
  /** `{"error":"Unknown model: X. Available: a, b"}` (sent without isError). */
  | { type: 'unknown_model'; message: string; model?: string; available?: string[] }
  /** `{"status":"associations_needed", model, associations, message}`: resolve these before opening the form. */
  | { type: 'associations_needed'; message: string; model: string; associations: unknown[] }
  /** `{"error":"Form data store not available"}`: the server has no collect-mode store. */
  | { type: 'store_unavailable'; message: string }
  /** The payload claims to be a form but is malformed. */
  | { type: 'invalid_form'; message: string; problems: Problem[] }
  /** Any other error of a form tool (an `{"error": …}` text, or an `isError` result). */
  | { type: 'error'; message: string };

export type Classification =
  | { kind: 'plan'; plan: OrchestratedPlan; source: PlanSource; blockIndex?: number; warnings?: Problem[] }
  /** The result declares `kind: "orchestrated_plan"` but fails validation; problem paths are relative to the envelope. */
  | { kind: 'invalid_plan'; problems: Problem[]; source: PlanSource; blockIndex?: number }
  | { kind: 'collect_form'; form: CollectFormPayload; blockIndex: number; warnings?: Problem[] }
  | { kind: 'collect_error'; error: CollectError; blockIndex?: number }
  | { kind: 'plain' };

export interface ClassifyContext {
  /** The tool that produced the result; lets generic `{"error": …}` texts of mcp-rune form tools count as form errors. */
  tool?: string;
}

const PLAIN: Classification = Object.freeze({ kind: 'plain' });

/**
 * Classifies a CallToolResult (any value is accepted; a non-object or a result without usable content is
 * `plain`). Never throws. `blockIndex` is the index in `result.content`.
 */
export function classifyResult(result: unknown, context?: ClassifyContext): Classification {
  try {
    return classifyUnguarded(result, context);
  } catch {
    return PLAIN; // getters or proxies that throw: nothing recognisable
  }
}

function classifyUnguarded(result: unknown, context: ClassifyContext | undefined): Classification {
  if (result === null || typeof result !== 'object') return PLAIN;
  const r = result as Record<string, unknown>;
  const structured = r.structuredContent;
  if (isPlainObject(structured) && structured.kind === 'orchestrated_plan') return fromEnvelope(structured, 'structuredContent');

  const content = Array.isArray(r.content) ? r.content : [];
  let jsonBlocks: { value: Record<string, unknown>; index: number }[] | undefined;
  for (let i = 0; i < content.length; i++) {
    const text = textOf(content[i]);
    if (text === undefined) continue;
    const found = scanText(text);
    if (found.kind === 'plan') return fromEnvelope(found.value, found.fenced ? 'fenced' : 'text', i);
    if (found.kind === 'oversized')
      return { kind: 'invalid_plan', source: 'text', blockIndex: i, problems: [oversizedProblem(text.length)] };
    if (found.kind === 'json') (jsonBlocks ??= []).push({ value: found.value, index: i });
  }
  if (jsonBlocks === undefined) return formToolFailure(r, content, context);

  for (const { value, index } of jsonBlocks) {
    if (!looksLikeCollectForm(value)) continue;
    const parsed = parseCollectForm(value);
    if (parsed.ok)
      return parsed.warnings
        ? { kind: 'collect_form', form: parsed.form, blockIndex: index, warnings: parsed.warnings }
        : { kind: 'collect_form', form: parsed.form, blockIndex: index };
    return {
      kind: 'collect_error',
      blockIndex: index,
      error: {
        type: 'invalid_form',
        message: `the server's form is malformed (${parsed.problems.length} problem${parsed.problems.length === 1 ? '' : 's'}), so it cannot be shown`,
        problems: parsed.problems,
      },
    };
  }

  const formTool = context?.tool !== undefined && COLLECT_FORM_TOOLS.includes(context.tool);
  for (const { value, index } of jsonBlocks) {
    const error = collectError(value, formTool);
    if (error) return { kind: 'collect_error', error, blockIndex: index };
  }
  return formToolFailure(r, content, context);
}

/** An `isError` result of an mcp-rune form tool (e.g. new_model_app without mode "form"). */
function formToolFailure(r: Record<string, unknown>, content: unknown[], context: ClassifyContext | undefined): Classification {
  if (r.isError !== true || context?.tool === undefined || !COLLECT_FORM_TOOLS.includes(context.tool)) return PLAIN;
  const first = content.findIndex((b) => textOf(b) !== undefined);
  const text = first >= 0 ? (textOf(content[first]) as string) : '';
  const message = text.trim() === '' ? `${context.tool} failed without a message` : text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  return first >= 0
    ? { kind: 'collect_error', error: { type: 'error', message }, blockIndex: first }
    : { kind: 'collect_error', error: { type: 'error', message } };
}

function textOf(block: unknown): string | undefined {
  if (block === null || typeof block !== 'object') return undefined;
  const b = block as { type?: unknown; text?: unknown };
  return b.type === 'text' && typeof b.text === 'string' ? b.text : undefined;
}

function fromEnvelope(value: Record<string, unknown>, source: PlanSource, blockIndex?: number): Classification {
  const parsed = parseEnvelope(value);
  const c: Classification = parsed.ok
    ? { kind: 'plan', plan: parsed.plan, source }
    : { kind: 'invalid_plan', problems: parsed.problems, source };
  if (blockIndex !== undefined) c.blockIndex = blockIndex;
  if (parsed.ok && parsed.warnings && c.kind === 'plan') c.warnings = parsed.warnings;
  return c;
}

function oversizedProblem(length: number): Problem {
  return {
    path: '',
    message: `the envelope text is ${length.toLocaleString('en-US')} characters; Plangate reads at most ${LIMITS.maxInputChars.toLocaleString('en-US')}`,
  };
}

// ───────────────────────────── text scanning ─────────────────────────────

type TextScan =
  | { kind: 'plan'; value: Record<string, unknown>; fenced: boolean }
  | { kind: 'json'; value: Record<string, unknown> }
  | { kind: 'oversized' }
  | { kind: 'none' };

const NONE: TextScan = { kind: 'none' };

function isBlank(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9 || code === 0xfeff;
}

/**
 * If `text` (whitespace and a BOM aside) starts with `{` and ends with `}`, the bounds of that JSON object text;
 * otherwise undefined. Cheap: looks only at the ends.
 */
export function jsonObjectBounds(text: string, from = 0, to = text.length): { start: number; end: number } | undefined {
  let start = from;
  while (start < to && isBlank(text.charCodeAt(start))) start++;
  let end = to;
  while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
  if (end - start < 2 || text.charCodeAt(start) !== 123 /* { */ || text.charCodeAt(end - 1) !== 125 /* } */) return undefined;
  return { start, end };
}

/** JSON.parse of `text[start, end)` when it is a JSON object; undefined for anything else (never throws). */
function parseObject(text: string, start: number, end: number): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(start === 0 && end === text.length ? text : text.slice(start, end));
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function scanText(text: string): TextScan {
  const bounds = jsonObjectBounds(text);
  if (bounds) {
    if (bounds.end - bounds.start > LIMITS.maxInputChars) {
      // Too big to read: still say so when it declares itself a plan, so the server author learns why.
      return text.includes('"orchestrated_plan"') ? { kind: 'oversized' } : NONE;
    }
    const value = parseObject(text, bounds.start, bounds.end);
    if (value !== undefined) return value.kind === 'orchestrated_plan' ? { kind: 'plan', value, fenced: false } : { kind: 'json', value };
    // Not JSON after all (prose in braces): fall through to fences.
  }
  if (text.indexOf('```') < 0) return NONE;
  for (const block of fencedBlocks(text)) {
    if (!block.json) continue;
    const b = jsonObjectBounds(text, block.bodyStart, block.bodyEnd);
    if (!b || b.end - b.start > LIMITS.maxInputChars) continue;
    const value = parseObject(text, b.start, b.end);
    if (value !== undefined && value.kind === 'orchestrated_plan') return { kind: 'plan', value, fenced: true };
  }
  return NONE;
}

/** A fenced code block in Markdown text. `json` is true for a ```json (any case) or bare ``` fence. */
export interface FencedBlock {
  /** The info string after the opening fence, trimmed (`json`, `ts`, `""`). */
  info: string;
  json: boolean;
  /** The body is `text.slice(bodyStart, bodyEnd)`. */
  bodyStart: number;
  bodyEnd: number;
  /** Whether a closing fence was found (an unclosed fence runs to the end of the text). */
  closed: boolean;
}

/**
 * The fenced code blocks of `text`, in order. An opening fence is a run of three or more backticks at the start
 * of a line (indentation aside) followed by an info string without backticks; leniently, a ```json or bare ```
 * fence may also open mid-line ("Plan: ```json"). It closes at a line holding only a run of at least as many
 * backticks, so a longer fence can contain shorter ones; an unclosed fence runs to the end of the text.
 * Linear in the text length; no regular expressions over the text.
 */
export function* fencedBlocks(text: string): Generator<FencedBlock> {
  const len = text.length;
  let pos = 0;
  let lineEnd = -1; // cached end of the line that holds `pos` (keeps long single-line texts linear)
  while (pos < len) {
    const open = text.indexOf('```', pos);
    if (open < 0) return;
    let runEnd = open + 3;
    while (runEnd < len && text.charCodeAt(runEnd) === 96) runEnd++;
    if (lineEnd < runEnd) {
      lineEnd = text.indexOf('\n', runEnd);
      if (lineEnd < 0) lineEnd = len;
    }
    const eol = lineEnd;
    const backtick = text.indexOf('`', runEnd);
    if (backtick >= 0 && backtick < eol) {
      // a backtick in the info string: an inline code span, not a fence
      pos = backtick;
      continue;
    }
    const info = text.slice(runEnd, Math.min(eol, runEnd + 200)).trim();
    const word = info.split(/\s/, 1)[0]?.toLowerCase() ?? '';
    const json = word === '' || word === 'json';
    if (!json && !atLineStart(text, open)) {
      // mid-line, only "…: ```json" counts as an opening fence
      pos = runEnd;
      continue;
    }
    const fence = text.slice(open, runEnd);
    const bodyStart = Math.min(eol + 1, len);
    let search = bodyStart;
    let closeLineStart = -1;
    let closeLineEnd = len;
    while (search < len) {
      const c = text.indexOf(fence, search);
      if (c < 0) break;
      let ls = c;
      while (ls > bodyStart && (text.charCodeAt(ls - 1) === 32 || text.charCodeAt(ls - 1) === 9)) ls--;
      let ce = c + fence.length;
      while (ce < len && text.charCodeAt(ce) === 96) ce++;
      if (ls === bodyStart || text.charCodeAt(ls - 1) === 10) {
        let le = text.indexOf('\n', ce);
        if (le < 0) le = len;
        if (isBlankRange(text, ce, le)) {
          closeLineStart = ls;
          closeLineEnd = le;
          break;
        }
      }
      search = ce;
    }
    const closed = closeLineStart >= 0;
    yield { info, json, bodyStart, bodyEnd: closed ? closeLineStart : len, closed };
    if (!closed) return;
    pos = closeLineEnd + 1;
  }
}

function atLineStart(text: string, index: number): boolean {
  let i = index;
  while (i > 0 && (text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9)) i--;
  return i === 0 || text.charCodeAt(i - 1) === 10;
}

function isBlankRange(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isBlank(text.charCodeAt(i))) return false;
  return true;
}

// ───────────────────────────── mcp-rune form-tool errors ─────────────────────────────

function collectError(value: Record<string, unknown>, formTool: boolean): CollectError | undefined {
  if (value.status === 'associations_needed' && typeof value.model === 'string') {
    const message =
      typeof value.message === 'string' && value.message
        ? value.message
        : `resolve the associations of ${value.model} before opening the form`;
    return {
      type: 'associations_needed',
      model: value.model,
      associations: Array.isArray(value.associations) ? value.associations : [],
      message,
    };
  }
  const error = value.error;
  if (typeof error === 'string' && error.startsWith('Unknown model:')) {
    const m = error.length <= 10_000 ? /^Unknown model:\s*(.*?)\.\s*Available:\s*(.*)$/s.exec(error) : null;
    if (!m) return { type: 'unknown_model', message: error };
    const available = (m[2] as string)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    return { type: 'unknown_model', message: error, model: m[1] as string, available };
  }
  if (!formTool) return undefined;
  if (typeof error === 'string') {
    return /store not available/i.test(error.slice(0, 200))
      ? { type: 'store_unavailable', message: error }
      : { type: 'error', message: error };
  }
  if (error !== undefined && error !== null && typeof value.message === 'string') return { type: 'error', message: value.message };
  if (error !== undefined && error !== null) return { type: 'error', message: `the form tool failed: ${describeValue(error)}` };
  return undefined;
}
