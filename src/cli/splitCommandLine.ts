/**
 * `--server "<command line>"`: split into words the way a POSIX shell would quote them, without running a shell (no
 * variables, globs, pipes or redirections — those characters are ordinary text).
 */

export type SplitResult = { ok: true; words: string[] } | { ok: false; message: string };

/**
 * Splits `line` into words: whitespace separates words; '…' is literal; "…" is literal except that a backslash
 * escapes `"`, `\`, `$`, `` ` `` and a newline; outside quotes a backslash escapes the next character (a backslash-
 * newline is removed). Adjacent quoted and unquoted parts form one word (`--x="a b"` is one word). An unterminated
 * quote or a trailing backslash is an error.
 */
export function splitCommandLine(line: string): SplitResult {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const n = line.length;
  while (i < n) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { ok: false, message: `unterminated single quote at character ${i + 1}` };
      word += line.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let closed = false;
      while (j < n) {
        const d = line[j]!;
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === '\\' && j + 1 < n && '"\\$`\n'.includes(line[j + 1]!)) {
          if (line[j + 1] !== '\n') word += line[j + 1];
          j += 2;
          continue;
        }
        word += d;
        j++;
      }
      if (!closed) return { ok: false, message: `unterminated double quote at character ${i + 1}` };
      i = j + 1;
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= n) return { ok: false, message: 'the command line ends with a lone backslash' };
      if (line[i + 1] !== '\n') word += line[i + 1];
      else if (word === '') inWord = false;
      i += 2;
      continue;
    }
    word += c;
    i++;
  }
  if (inWord) words.push(word);
  return { ok: true, words };
}

/** Quotes `words` so that {@link splitCommandLine} gives them back (single quotes where needed). */
export function quoteCommandLine(words: readonly string[]): string {
  return words.map((w) => (w !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
