/**
 * Server-supplied text on a terminal: control characters (ANSI escapes, bells, NUL, carriage returns), C1 controls,
 * bidi marks and overrides, zero-width and other invisible format characters, and line separators are shown as visible
 * escapes (`\x1b`, `\u202e`, `\u{e0041}`) so a server cannot recolour the terminal, move the cursor, hide text or
 * reorder what the user reads. Which characters those are is decided in one place for the CLI and the panel
 * (src/shared/visibleText.ts). Long texts are cut with a count of what was left.
 */
import { escapeInvisibleInJson, textOf, visibleText } from '../shared/visibleText';

export interface SafeTextOptions {
  /** Keep `\n` as a line break (multi-line blocks); otherwise it is shown as `\n`. Default false. */
  keepNewlines?: boolean;
  /** Cut the text (before escaping) at this many characters, saying how many were left out. Default: no cut. */
  max?: number;
}

/** The terminal's escape of a code point: `\n`, `\r`, `\x1b`, `\u202e`, `\u{e0041}`. */
function escapeCodePoint(code: number): string {
  if (code === 0x0a) return '\\n';
  if (code === 0x0d) return '\\r';
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/** `text` with unsafe characters escaped visibly (see the module comment); never throws, whatever it is given. */
export function safeText(text: unknown, options: SafeTextOptions = {}): string {
  let s = textOf(text);
  if (options.max !== undefined) s = clip(s, options.max);
  return visibleText(s, { keepNewlines: options.keepNewlines === true, mark: escapeCodePoint });
}

/** `text` cut at `max` characters with "… (+N characters)" when longer. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (+${(text.length - max).toLocaleString('en-US')} characters)`;
}

/**
 * The first non-empty line of `text`, cut at `max` characters, marked when more follows: "… (+N lines)" (or "(+N lines
 * or more)" when `text` itself ends with "…", as a result summary cut short does). Not yet made safe.
 */
export function firstLine(text: string, max: number): string {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const first = clip((lines[0] ?? '').trim(), max);
  const more = lines.length - 1;
  if (more <= 0) return first;
  return `${first} … (+${more} line${more === 1 ? '' : 's'}${text.trimEnd().endsWith('…') ? ' or more' : ''})`;
}

/**
 * JSON text for stdout: `JSON.stringify(value)` (which escapes C0 controls) with DEL, C1, bidi, zero-width, other
 * invisible and line-separator characters escaped as `\uXXXX` as well. Those can only occur inside JSON strings, so
 * the result parses to the same value. Throws only what JSON.stringify throws (cycles, absurd depth).
 */
export function safeJson(value: unknown, indent?: number): string {
  return escapeInvisibleInJson(JSON.stringify(value, null, indent));
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
