/**
 * A rule's `pattern`, run on RE2 (re2js, a pure-JS port): matching takes time linear in the text whatever the pattern,
 * so a pattern such as `^(a+)+$` cannot freeze the extension host on an argument a server chose. Patterns are written as
 * JavaScript regular expressions (with the `u` flag) and keep that meaning where RE2 can run it: `\uXXXX`, `\u{…}`,
 * `\cX`, `.` (no line terminator), `\s` and `\S` (JavaScript's whitespace) are rewritten to RE2's syntax. What RE2 cannot
 * run in linear time — backreferences (`\1`, `\k<name>`) and lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) — is refused, and
 * so is anything RE2 does not parse (`\p{Script=…}`: write `\p{Greek}`). RE2's own additions (inline flags such as
 * `(?i)`) are accepted. Pure.
 */
import { RE2JS } from 're2js';

/** A compiled pattern, or why it cannot be used (words to put after "it"). */
export type CompiledPattern = { ok: true; test: (text: string) => boolean } | { ok: false; reason: string };

/** JavaScript's `\s`: ECMAScript WhiteSpace and LineTerminator, as RE2 class items. */
const JS_SPACE = '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/** JavaScript's `.` without the `s` flag: anything but a line terminator. */
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/** Compiles `source` (a JavaScript regular expression, `u` flag) for RE2. Never throws. */
export function compilePattern(source: string): CompiledPattern {
  const translated = toRe2(source);
  if ('reason' in translated) return { ok: false, reason: translated.reason };
  try {
    const re = RE2JS.compile(translated.source);
    return { ok: true, test: (text) => re.test(text) };
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : String(err);
    return {
      ok: false,
      reason: `is not a valid regular expression for RE2, the linear-time engine Plangate runs patterns on (${message})`,
    };
  }
}

const hex = (code: number) => `\\x{${code.toString(16).toUpperCase()}}`;

/** The RE2 source for a JavaScript pattern, or why it has no linear-time equivalent. */
function toRe2(p: string): { source: string } | { reason: string } {
  let out = '';
  let inClass = false;
  for (let i = 0; i < p.length;) {
    const c = p[i]!;
    if (c === '\\') {
      const n = p[i + 1];
      if (n === undefined) return { source: `${out}\\` }; // RE2 reports the trailing backslash
      if (n === 'u') {
        const braced = /^\\u\{([0-9A-Fa-f]{1,6})\}/.exec(p.slice(i));
        const four = /^\\u([0-9A-Fa-f]{4})(?:\\u([0-9A-Fa-f]{4}))?/.exec(p.slice(i));
        if (braced) {
          out += hex(parseInt(braced[1]!, 16));
          i += braced[0].length;
        } else if (four) {
          const hi = parseInt(four[1]!, 16);
          const lo = four[2] === undefined ? undefined : parseInt(four[2], 16);
          if (lo !== undefined && hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff) {
            out += hex((hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000); // a surrogate pair is one code point
            i += four[0].length;
          } else {
            out += hex(hi);
            i += 6;
          }
        } else return { reason: `has an incomplete \\u escape (write \\uXXXX or \\u{X})` };
        continue;
      }
      if (n === 'c' && /[A-Za-z]/.test(p[i + 2] ?? '')) {
        out += hex(p.charCodeAt(i + 2) % 32);
        i += 3;
        continue;
      }
      if (!inClass && /[1-9]/.test(n))
        return {
          reason: `has a backreference (\\${n}), which no linear-time engine can run (Plangate runs patterns on RE2): rewrite it without one`,
        };
      if (n === 'k' && p[i + 2] === '<')
        return {
          reason:
            'has a backreference (\\k<name>), which no linear-time engine can run (Plangate runs patterns on RE2): rewrite it without one',
        };
      if (n === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (n === 'S' && !inClass) out += `[^${JS_SPACE}]`;
      else out += c + n; // `\S` inside a class keeps RE2's meaning (ASCII whitespace)
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      i++;
      continue;
    }
    if (c === '[') {
      // JavaScript's `[]` matches nothing and `[^]` anything; RE2 would read `]` as a member.
      if (p.startsWith('[]', i)) {
        out += '[^\\x{0}-\\x{10FFFF}]';
        i += 2;
      } else if (p.startsWith('[^]', i)) {
        out += '[\\x{0}-\\x{10FFFF}]';
        i += 3;
      } else {
        inClass = true;
        out += c;
        i++;
      }
      continue;
    }
    if (c === '(' && p[i + 1] === '?') {
      const look = /^\(\?(=|!|<=|<!)/.exec(p.slice(i));
      if (look)
        return {
          reason: `has a ${look[1]!.startsWith('<') ? 'lookbehind' : 'lookahead'} ((?${look[1]}…)), which no linear-time engine can run (Plangate runs patterns on RE2): rewrite it without one`,
        };
    }
    if (c === '.') {
      out += JS_DOT;
      i++;
      continue;
    }
    const code = p.codePointAt(i)!;
    const ch = String.fromCodePoint(code);
    out += ch;
    i += ch.length;
  }
  return { source: out };
}
