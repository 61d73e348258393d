/**
 * The ledger as a JSONL file: one `{seq, event}` per line, appended and fsync'd before `append` returns, so the
 * record of a step starting survives a crash of the process or the machine (progress lines are written but not
 * fsync'd: losing one costs nothing). No rotation: a ledger grows by one short line per event (plans carry their
 * envelope once, in `planReceived`); the caller picks one file per workspace.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Disposable } from '../core/lifecycle';
import { parseLedgerEntry, Workflow, type LedgerEntry, type LedgerSink, type WorkflowOptions } from '../core/ledger';

export interface LoadedLedger {
  entries: LedgerEntry[];
  /** One line per skipped line ("line 12: …"), for the log. */
  warnings: string[];
  /** The last line was cut short (the process died while writing it); it was skipped. */
  tornTail: boolean;
}

/**
 * Reads a ledger file. A missing file is an empty ledger. Lines that are not valid entries are skipped with a
 * warning naming the line; a cut-short last line is reported as `tornTail`. Never throws for bad content (only
 * for an unreadable file, e.g. permissions).
 */
export function loadLedger(file: string): LoadedLedger {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], warnings: [], tornTail: false };
    throw err;
  }
  const lines = text.split('\n');
  const complete = text.endsWith('\n') || text === '';
  const entries: LedgerEntry[] = [];
  const warnings: string[] = [];
  let tornTail = false;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const isTail = i === lines.length - 1 && !complete;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (isTail) {
        tornTail = true;
        warnings.push(`${file}: line ${i + 1} was cut short (Plangate stopped while writing it); it was skipped.`);
      } else {
        warnings.push(`${file}: line ${i + 1} is not JSON; it was skipped.`);
      }
      return;
    }
    const entry = parseLedgerEntry(value);
    if (typeof entry === 'string') warnings.push(`${file}: line ${i + 1} is not a ledger entry (${entry}); it was skipped.`);
    else entries.push(entry);
  });
  return { entries, warnings, tornTail };
}

/**
 * Appends entries to a JSONL file (created with its folder if missing). On open, a cut-short last line is cut off
 * (its write never completed, so the step it may announce never started); a complete last line missing only its
 * newline gets one.
 */
export class FileLedgerSink implements LedgerSink, Disposable {
  private fd: number | undefined;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.fd = openSync(file, 'a+');
    this.repairTail(this.fd);
  }

  append(entry: LedgerEntry): void {
    if (this.fd === undefined) throw new Error(`The ledger ${this.file} is closed; the event was not recorded.`);
    const line = `${JSON.stringify(entry)}\n`;
    const bytes = Buffer.from(line, 'utf8');
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
    // Every entry is written before append returns, so it survives the process dying. Only a step's start is
    // also forced to disk (fsync flushes everything before it too): that record is what keeps a step from
    // running twice after a power loss; the other entries, if lost with the OS, leave the plan in a safe state
    // (a finished step looks interrupted and waits for the user). Syncing every entry cost milliseconds each.
    if (entry.event.type === 'stepStarted') fsyncSync(this.fd);
  }

  dispose(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  private repairTail(fd: number): void {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return;
    // Find the start of the last line (reading backwards in chunks).
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    let lineStart = 0;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const nl = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (nl >= 0) { lineStart = start + nl + 1; break; }
      end = start;
    }
    const tail = Buffer.alloc(size - lineStart);
    readSync(fd, tail, 0, tail.length, lineStart);
    let parses = true;
    try { JSON.parse(tail.toString('utf8')); } catch { parses = false; }
    if (parses) writeSync(fd, '\n');
    else ftruncateSync(fd, lineStart);
    fsyncSync(fd);
  }
}

export interface OpenedLedger extends Disposable {
  workflow: Workflow;
  sink: FileLedgerSink;
  /** What loading skipped (see {@link loadLedger}). */
  warnings: string[];
  tornTail: boolean;
}

/**
 * Loads `file`, replays it into a {@link Workflow} (which then records `restored` if anything was interrupted) and
 * keeps appending to the same file. Disposing the result closes the file (the workflow then refuses nothing but
 * throws on dispatch: dispose it first).
 */
export function openFileLedger(file: string, options: WorkflowOptions = {}): OpenedLedger {
  const loaded = loadLedger(file);
  const sink = new FileLedgerSink(file);
  try {
    const workflow = new Workflow(sink, loaded.entries, options);
    return { workflow, sink, warnings: loaded.warnings, tornTail: loaded.tornTail, dispose: () => sink.dispose() };
  } catch (err) {
    sink.dispose();
    throw err;
  }
}
