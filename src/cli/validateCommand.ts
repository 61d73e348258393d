/**
 * `plangate validate [FILE|-] [--json]`: reads an envelope, a CallToolResult, or text with a ```json fenced envelope
 * and says whether it holds a valid orchestrated_plan. Exit 0 valid, 1 not (every problem with its JSON path, relative
 * to the envelope), 2 unreadable input.
 */
import { open, stat } from 'node:fs/promises';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { formatProblem, LIMITS } from '../core/plan/envelope';
import { jsonObjectBounds } from '../core/plan/classify';
import type { Problem } from '../core/plan/plan';
import { validateInput, type ValidateReport } from '../core/plan/validateInput';
import type { Output } from './output';
import { summarizePlan } from './renderPlan';
import { safeText } from './safeText';

/** Bytes read at most: UTF-8 text of the largest input validateInput reads is at most 4 bytes per character. */
const MAX_BYTES = LIMITS.maxInputChars * 4;

export interface ValidateOptions {
  /** A path, or "-" / undefined for stdin. */
  file?: string;
  json: boolean;
  /**
   * Read as the panel does: what MCPFlow would never emit but Plangate tolerates (a missing `next_actions`, an
   * issue without `code`, a camelCase field, version 1 as a number) is a warning. Off (strict) by default, so a
   * server author learns what clients that trust MCPFlow's model would trip over.
   */
  lenient?: boolean;
}

type ReadResult = { ok: true; text: string; truncatedAt?: number } | { ok: false; message: string };

async function readStream(stream: NodeJS.ReadableStream): Promise<ReadResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += buf.length;
      if (size > MAX_BYTES) return { ok: true, text: '', truncatedAt: size };
      chunks.push(buf);
    }
  } catch (err) {
    return { ok: false, message: `could not read stdin: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}

async function readFileLimited(file: string): Promise<ReadResult> {
  try {
    const info = await stat(file);
    if (info.isDirectory()) return { ok: false, message: `${file} is a directory; give a file` };
    if (info.isFile() && info.size > MAX_BYTES) return { ok: true, text: '', truncatedAt: info.size };
    const handle = await open(file, 'r');
    try {
      return await readStream(handle.createReadStream());
    } finally {
      await handle.close().catch(() => undefined);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : err instanceof Error
              ? err.message
              : String(err);
    return { ok: false, message: `cannot read ${file}: ${reason}` };
  }
}

/** The JSON report: exactly `valid`, `kind`, and `plan` or `problems`. */
function jsonReport(report: ValidateReport): Record<string, unknown> {
  const out: Record<string, unknown> = { valid: report.valid, kind: report.kind };
  if (report.plan) out.plan = report.plan;
  if (report.problems) out.problems = report.problems;
  return out;
}

function sourceWords(report: ValidateReport): string {
  switch (report.source) {
    case 'structuredContent':
      return ' (in structuredContent)';
    case 'text':
      return ' (in a text block)';
    case 'fenced':
      return ' (in a ```json fenced block)';
    default:
      return '';
  }
}

/** How many problems there are, counting those the engine summarised in its last "…and N more problems" entry. */
function problemCount(problems: readonly Problem[]): number {
  const last = problems.at(-1);
  const more = last && last.path === '' ? /^…and ([\d,]+) more problems/.exec(last.message) : null;
  return more ? problems.length - 1 + Number(more[1]!.replace(/,/g, '')) : problems.length;
}

/** Strict reading: a valid plan's warnings (what MCPFlow would not emit) are its problems. */
function strict(report: ValidateReport): ValidateReport {
  if (!report.valid || !report.warnings?.length) return report;
  const { plan: _plan, warnings, ...rest } = report;
  return { ...rest, valid: false, problems: warnings };
}

/**
 * JSON.parse words a syntax error by character offset ("at position 812") of the part of the input it parsed, or
 * not at all ("Unexpected token 'N', …"); people read files by line and column. Rewrites the message with the
 * line and column in the whole input (jsonc-parser finds the offset where JSON.parse gives none).
 */
function withLineAndColumn(report: ValidateReport, text: string): ValidateReport {
  const first = report.problems?.[0];
  const prefix = 'the input is not valid JSON: ';
  if (!first || first.path !== '' || !first.message.startsWith(prefix)) return report;
  const bounds = jsonObjectBounds(text) ?? { start: 0, end: text.length };
  const raw = first.message.slice(prefix.length);
  const position = / at position (\d+)/.exec(raw);
  let offset = position ? Number(position[1]) : undefined;
  if (offset === undefined) {
    const errors: ParseError[] = [];
    parseJsonc(text.slice(bounds.start, bounds.end), errors, { disallowComments: true, allowTrailingComma: false });
    offset = errors[0]?.offset ?? bounds.end - bounds.start;
  }
  const at = Math.min(bounds.start + offset, text.length);
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - (before.lastIndexOf('\n') + 1) + 1;
  const reason = raw
    .replace(/ (?:in JSON )?at position \d+/, '')
    .replace(/ \(line \d+ column \d+\)/, '')
    .replace(/, .*is not valid JSON$/s, '');
  return {
    ...report,
    problems: [
      { path: '', message: `the input is not valid JSON at line ${line}, column ${column}: ${reason}` },
      ...(report.problems ?? []).slice(1),
    ],
  };
}

/** Runs `plangate validate`; resolves with the exit code. */
export async function validateCommand(
  options: ValidateOptions,
  out: Output,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<number> {
  const fromStdin = options.file === undefined || options.file === '-';
  if (fromStdin && options.file === undefined && (stdin as { isTTY?: boolean }).isTTY) {
    out.error('plangate validate: give a FILE, or pipe the input (use "-" to type it, ending with Ctrl-D). See plangate validate --help.');
    return 2;
  }
  const read = fromStdin ? await readStream(stdin) : await readFileLimited(options.file!);
  if (!read.ok) {
    out.error(`plangate validate: ${safeText(read.message, { max: 1000 })}`);
    return 2;
  }
  const found =
    read.truncatedAt !== undefined
      ? ({
          valid: false,
          kind: 'plain',
          problems: [
            {
              path: '',
              message: `the input is ${read.truncatedAt.toLocaleString('en-US')} bytes; Plangate reads at most ${LIMITS.maxInputChars.toLocaleString('en-US')} characters`,
            },
          ],
        } satisfies ValidateReport)
      : withLineAndColumn(validateInput(read.text), read.text);
  const report = options.lenient ? found : strict(found);

  for (const w of report.warnings ?? []) out.error(`warning: ${safeText(formatProblem(w), { max: 1000 })}`);
  if (options.json) {
    out.report(jsonReport(report));
  } else if (report.valid && report.plan) {
    out.info(`${summarizePlan(report.plan)}${sourceWords(report)}`);
  } else {
    const problems = report.problems ?? [];
    const total = problemCount(problems);
    const what =
      report.kind === 'plan'
        ? `invalid orchestrated_plan${sourceWords(report)}: ${total.toLocaleString('en-US')} problem${total === 1 ? '' : 's'}`
        : report.kind === 'collect_form'
          ? 'not a plan: an mcp-rune collect-mode form'
          : 'not a plan';
    out.info(what);
    const whole = report.kind === 'plan' ? '(envelope)' : '(input)';
    for (const p of problems) out.info(`  ${safeText(p.path || whole, { max: 300 })}: ${safeText(p.message, { max: 1000 })}`);
    if (found.valid)
      out.info(
        `  (the Plangate panel reads it, with ${total === 1 ? 'this as a warning' : 'these as warnings'}; --lenient reads it the same way)`,
      );
  }
  return report.valid ? 0 : 1;
}
