/**
 * Server-supplied text made visible. Characters that show nothing, or change how the text around them is shown,
 * are replaced by a visible mark (`⟨U+202E⟩` by default) so that what the user reads is what the server sent:
 * bidi marks, embeddings, overrides and isolates (U+200E/F, U+061C, U+202A–202E, U+2066–2069), zero-width space
 * and joiners (U+200B–200D), the word joiner (U+2060), the byte-order mark (U+FEFF), every other format character
 * (Unicode Cf: soft hyphen, invisible operators, tag characters U+E0000–E007F, …), C0 and C1 controls and DEL,
 * line and paragraph separators, lone surrogates, and the blank fillers U+034F, U+115F, U+1160, U+3164, U+FFA0.
 *
 * A leaf module: it imports nothing, so the webview, the CLI and core can all use it.
 */

/** Everything {@link visibleText} marks, tab and newline included (options decide about those two). */
const INVISIBLE_SOURCE = '[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\u034f\\u115f\\u1160\\u3164\\uffa0]';
const INVISIBLE = new RegExp(INVISIBLE_SOURCE, 'gu');
const INVISIBLE_ONE = new RegExp(INVISIBLE_SOURCE, 'u');

export interface VisibleTextOptions {
  /** Keep `\n` as a line break (multi-line blocks). Default false: it is marked like any other control. */
  keepNewlines?: boolean;
  /** Keep tab as it is (it shows as space). Default true. */
  keepTabs?: boolean;
  /** How a marked code point is written. Default {@link markCodePoint} (`⟨U+202E⟩`). */
  mark?: (codePoint: number) => string;
}

/** The default mark of a code point: `⟨U+202E⟩`, `⟨U+E0041⟩`. */
export function markCodePoint(codePoint: number): string {
  return `⟨U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** Whether the code point is one {@link visibleText} marks (tab and newline count as marked here). */
export function isInvisibleCodePoint(codePoint: number): boolean {
  if (!Number.isInteger(codePoint) || codePoint < 0 || codePoint > 0x10ffff) return false;
  return INVISIBLE_ONE.test(String.fromCodePoint(codePoint));
}

/** Whether `text` holds any character {@link visibleText} would mark, apart from tab and newline. */
export function hasInvisible(text: string): boolean {
  return INVISIBLE_ONE.test(text.replace(/[\t\n]/g, ''));
}

/**
 * `text` with every invisible or layout-changing character replaced by its mark (see the module comment). Total:
 * never throws, whatever it is given; a non-string is turned into text first (`null`/`undefined` become `''`).
 * The result holds no character this function would mark (apart from kept tabs and newlines), so applying it twice
 * changes nothing more when the mark itself is visible.
 */
export function visibleText(text: unknown, options: VisibleTextOptions = {}): string {
  const s = textOf(text);
  if (!INVISIBLE_ONE.test(s)) return s;
  const keepNewlines = options.keepNewlines === true;
  const keepTabs = options.keepTabs !== false;
  const mark = options.mark ?? markCodePoint;
  return s.replace(INVISIBLE, (c) => {
    if ((c === '\n' && keepNewlines) || (c === '\t' && keepTabs)) return c;
    return mark(c.codePointAt(0)!);
  });
}

/**
 * JSON text (as `JSON.stringify` writes it) with every character {@link visibleText} marks written as a `\uXXXX`
 * escape instead. JSON.stringify already escapes C0 controls and lone surrogates; the rest can only occur inside
 * strings, where the escape stands for the same character, so the result parses to the same value. Newlines outside
 * strings (indentation) are kept.
 */
export function escapeInvisibleInJson(json: string): string {
  return visibleText(json, { keepNewlines: true, mark: jsonEscape });
}

function jsonEscape(codePoint: number): string {
  const unit = (u: number) => `\\u${u.toString(16).padStart(4, '0')}`;
  if (codePoint <= 0xffff) return unit(codePoint);
  const v = codePoint - 0x10000;
  return unit(0xd800 + (v >> 10)) + unit(0xdc00 + (v & 0x3ff));
}

/** Any value as text, never throwing: strings as they are, `null`/`undefined` as `''`, the rest through String(). */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  try {
    const s = String(value);
    return typeof s === 'string' ? s : '';
  } catch {
    // A value whose toString throws or that has none (Object.create(null)); a hostile proxy may throw here too.
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return '(unprintable)';
    }
  }
}
