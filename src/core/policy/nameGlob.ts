/**
 * A rule's `server` and `tool` globs match names, not paths: `/` and `.` are ordinary characters, so `*` matches
 * `fs/delete_file`, `acme/fs`, `.hidden` and `..` alike (a path matcher would skip them, and a server could slip a tool
 * past `"tool": "*"` by naming it so). The syntax: `*` (any run of characters, `**` the same; `**` then `/` may also
 * match nothing), `?` (any one character), `[abc]`, `[a-z]`, `[!a]` / `[^a]`, `{a,b}` (nested too), `\` before a
 * character to take it literally, and a leading `!` to match every name the rest does not. Path-only and extended
 * syntax — `(`, `)`, `|` (extglobs such as `@(a|b)`), ranges `{1..3}`, POSIX classes `[[:alpha:]]` — is refused with a
 * reason rather than read differently. Matched on RE2, in time linear in the name whatever the glob. Pure.
 */
import { RE2JS } from 're2js';

/** A compiled name glob, or why it cannot be used (words to put after "it"). */
export type CompiledNameGlob = { ok: true; test: (name: string) => boolean } | { ok: false; reason: string };

const hex = (code: number) => `\\x{${code.toString(16).toUpperCase()}}`;

/** Compiles a server or tool glob. Never throws. */
export function compileNameGlob(glob: string): CompiledNameGlob {
  let negate = false;
  let body = glob;
  while (body.startsWith('!')) {
    negate = !negate;
    body = body.slice(1);
  }
  const parsed = translate(body);
  if ('reason' in parsed) return { ok: false, reason: parsed.reason };
  let test: (name: string) => boolean;
  if (parsed.literal !== undefined) {
    const literal = parsed.literal;
    test = (name) => name === literal;
  } else {
    try {
      const re = RE2JS.compile(parsed.source);
      test = (name) => re.testExact(name);
    } catch (err) {
      return { ok: false, reason: `is not a glob Plangate can read (${err instanceof Error ? err.message : String(err)})` };
    }
  }
  return { ok: true, test: negate ? (name) => !test(name) : test };
}

/** The RE2 source of a glob body (and the name itself when it has no wildcard), or why it is refused. */
function translate(glob: string): { source: string; literal?: string } | { reason: string } {
  let out = '';
  let literal = '';
  let wild = false;
  let depth = 0; // open `{`
  for (let i = 0; i < glob.length;) {
    const c = glob[i]!;
    if (c === '\\') {
      if (i + 1 >= glob.length) return { reason: 'ends with a lone \\ (write \\\\ for a backslash)' };
      const ch = String.fromCodePoint(glob.codePointAt(i + 1)!);
      out += hex(ch.codePointAt(0)!);
      literal += ch;
      i += 1 + ch.length;
      continue;
    }
    if (c === '(' || c === ')' || c === '|')
      return { reason: `has "${c}": extended globs such as @(a|b) are not supported for names; use {a,b}, or \\${c} for the character` };
    if (c === '*') {
      wild = true;
      const start = i;
      while (glob[i] === '*') i++;
      if (i - start > 1 && glob[i] === '/') {
        out += '(?s:(?:.*/)?)'; // `**` then `/` may match nothing, as for paths: `**/delete` matches `delete` too
        i++;
      } else out += '(?s:.*)';
      continue;
    }
    if (c === '?') {
      out += '(?s:.)';
      wild = true;
      i++;
      continue;
    }
    if (c === '[') {
      const cls = readClass(glob, i);
      if ('reason' in cls) return cls;
      out += cls.source;
      wild = true;
      i = cls.end;
      continue;
    }
    if (c === '{') {
      const close = matchingBrace(glob, i);
      if (close === undefined) return { reason: 'has a "{" without its "}" (write \\{ for the character)' };
      if (/^-?\d+\.\.-?\d+$|^[A-Za-z]\.\.[A-Za-z]$/.test(glob.slice(i + 1, close)))
        return { reason: `has a range ${glob.slice(i, close + 1)}, which names do not support; list the values: {a,b,c}` };
      out += '(?:';
      depth++;
      wild = true;
      i++;
      continue;
    }
    if (c === ',' && depth > 0) {
      out += '|';
      i++;
      continue;
    }
    if (c === '}' && depth > 0) {
      out += ')';
      depth--;
      i++;
      continue;
    }
    const ch = String.fromCodePoint(glob.codePointAt(i)!);
    out += hex(ch.codePointAt(0)!);
    literal += ch;
    i += ch.length;
  }
  return wild ? { source: out } : { source: out, literal };
}

/** The index of the `}` closing the `{` at `open` (escapes and nesting respected), or undefined. */
function matchingBrace(glob: string, open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '\\') i++;
    else if (glob[i] === '{') depth++;
    else if (glob[i] === '}' && --depth === 0) return i;
  }
  return undefined;
}

/** A `[...]` class at `start`: its RE2 source and the index after it. */
function readClass(glob: string, start: number): { source: string; end: number } | { reason: string } {
  let i = start + 1;
  let negate = false;
  if (glob[i] === '!' || glob[i] === '^') {
    negate = true;
    i++;
  }
  const items: string[] = [];
  let first = true;
  for (;;) {
    if (i >= glob.length) return { reason: 'has a "[" without its "]" (write \\[ for the character)' };
    const c = glob[i]!;
    if (c === ']' && !first) break;
    first = false;
    if (c === '[' && glob[i + 1] === ':')
      return { reason: 'has a POSIX class such as [[:alpha:]], which names do not support; write [a-zA-Z]' };
    if (c === '\\') {
      if (i + 1 >= glob.length) return { reason: 'has a "[" without its "]" (write \\[ for the character)' };
      i++;
    }
    const ch = String.fromCodePoint(glob.codePointAt(i)!);
    i += ch.length;
    let item = hex(ch.codePointAt(0)!);
    if (glob[i] === '-' && glob[i + 1] !== undefined && glob[i + 1] !== ']') {
      let j = i + 1;
      if (glob[j] === '\\') j++;
      if (j >= glob.length) return { reason: 'has a "[" without its "]" (write \\[ for the character)' };
      const to = String.fromCodePoint(glob.codePointAt(j)!);
      if (to.codePointAt(0)! < ch.codePointAt(0)!) return { reason: `has a backwards range ${ch}-${to} in [...]` };
      item += `-${hex(to.codePointAt(0)!)}`;
      i = j + to.length;
    }
    items.push(item);
  }
  return { source: `[${negate ? '^' : ''}${items.join('')}]`, end: i + 1 };
}
