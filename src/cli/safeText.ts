/**
 * Server-supplied text on a terminal: control characters (ANSI escapes, bells, NUL, carriage returns), C1 controls,
 * bidi overrides and line separators are shown as visible escapes (`\x1b`, `\u202e`) so a server cannot recolour the
 * terminal, move the cursor, hide text or reorder what the user reads. Long texts are cut with a count of what was left.
 */

/** Characters never written raw: C0 (except tab and newline), DEL, C1, bidi marks/overrides/isolates, LS/PS, BOM. */
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;
/** The same set minus what JSON.stringify already escapes (C0): characters that survive into JSON text raw. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

export interface SafeTextOptions {
  /** Keep `\n` as a line break (multi-line blocks); otherwise it is shown as `\n`. Default false. */
  keepNewlines?: boolean;
  /** Cut the text (before escaping) at this many characters, saying how many were left out. Default: no cut. */
  max?: number;
}

function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with unsafe characters escaped visibly (see the module comment); never throws, whatever it is given. */
export function safeText(text: unknown, options: SafeTextOptions = {}): string {
  let s = typeof text === 'string' ? text : text === undefined || text === null ? '' : toText(text);
  if (options.max !== undefined) s = clip(s, options.max);
  return s.replace(UNSAFE, (c) => (c === '\n' && options.keepNewlines ? c : escapeChar(c)));
}

function toText(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value); // an object whose toString throws or returns a non-string
  }
}

/** `text` cut at `max` characters with "… (+N characters)" when longer. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (+${(text.length - max).toLocaleString('en-US')} characters)`;
}

/**
 * JSON text for stdout: `JSON.stringify(value)` (which escapes C0 controls) with DEL, C1, bidi and line-separator
 * characters escaped as `\uXXXX` as well. Those can only occur inside JSON strings, so the result parses to the same
 * value. Throws only what JSON.stringify throws (cycles, absurd depth).
 */
export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Compact JSON of `value` for one line of human output, cut at `max`; "(unprintable)" when it cannot be encoded. */
export function jsonLine(value: unknown, max = 300): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'undefined';
  } catch {
    return '(unprintable)';
  }
  return safeText(text, { max });
}
