/**
 * The ledger as a JSONL file: one `{seq, event}` per line, appended and fsync'd before `append` returns, so the
 * record of a step starting survives a crash of the process or the machine (progress lines are written but not
 * fsync'd: losing one costs nothing). A plan is stored once, in its `planReceived` line; later events name it by id.
 *
 * The file stays bounded: with a {@link LedgerRetention}, settled history past its age or size is dropped (see
 * `compactEntries`) when the ledger is opened and whenever it grows past its size limit. Compaction writes a new file
 * next to the ledger, fsyncs it and renames it over the old one, so a crash leaves either file whole. The file is
 * read in chunks, line by line: no string ever holds the whole file, so a ledger past V8's string limit still loads.
 */
import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { Disposable } from '../core/base/lifecycle';
import {
  compactEntries,
  parseLedgerEntry,
  Workflow,
  type Compaction,
  type LedgerEntry,
  type LedgerSink,
  type WorkflowOptions,
} from '../core/workflow/ledger';
import type { WorkflowState } from '../core/workflow/workflow';
import { CREATE_NEW, PRIVATE_FILE, PRIVATE_FOLDER } from './privateFile';

export interface LoadedLedger {
  entries: LedgerEntry[];
  /** One line per skipped line ("line 12: …"), for the log. */
  warnings: string[];
  /** The last line was cut short (the process died while writing it); it was skipped. */
  tornTail: boolean;
}

export interface LoadOptions {
  /** Bytes read at a time (default 1 MiB). */
  chunkBytes?: number;
  /** A longer line is skipped with a warning, never held whole (default {@link MAX_LINE_BYTES}). */
  maxLineBytes?: number;
}

/** 128 MiB: far above any plan Plangate accepts, far below what one string or one JSON.parse can hold. */
export const MAX_LINE_BYTES = 128 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** How much settled history a ledger keeps (the `plangate.ledger.*` settings). 0 or absent: no limit. */
export interface LedgerRetention {
  maxSizeMB?: number;
  maxAgeDays?: number;
}

/** What a compaction did, for the log. */
export interface CompactionReport {
  bytesBefore: number;
  bytesAfter: number;
  droppedEntries: number;
  droppedPlans: number;
  droppedSubmissions: number;
}

interface ReadLedger extends LoadedLedger {
  /** Stored size of each entry (its line and newline), parallel to `entries`. */
  entryBytes: number[];
  /** Size of the file. */
  bytes: number;
  /** The earliest `at` of any entry (Infinity for none). */
  oldestAt: number;
  /** A line is valid JSON but no entry this version knows (a newer Plangate may have written it). */
  unknownEntries: boolean;
}

/**
 * Reads a ledger file. A missing file is an empty ledger. Lines that are not valid entries are skipped with a
 * warning naming the line; a cut-short last line is reported as `tornTail`. Never throws for bad content (only
 * for an unreadable file, e.g. permissions). Reads `chunkBytes` at a time and decodes one line at a time.
 */
export function loadLedger(file: string, options: LoadOptions = {}): LoadedLedger {
  const { entries, warnings, tornTail } = readLedger(file, options);
  return { entries, warnings, tornTail };
}

function readLedger(file: string, options: LoadOptions = {}): ReadLedger {
  const out: ReadLedger = {
    entries: [],
    entryBytes: [],
    warnings: [],
    tornTail: false,
    bytes: 0,
    oldestAt: Number.POSITIVE_INFINITY,
    unknownEntries: false,
  };
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  try {
    forEachLine(fd, options, (line, n, terminated, size) => {
      if (line === undefined) {
        out.warnings.push(
          `${file}: line ${n} is longer than ${Math.round((options.maxLineBytes ?? MAX_LINE_BYTES) / 1024 / 1024)} MB; it was skipped.`,
        );
        return;
      }
      const text = line.toString('utf8');
      if (text.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        if (!terminated) {
          out.tornTail = true;
          out.warnings.push(`${file}: line ${n} was cut short (Plangate stopped while writing it); it was skipped.`);
        } else {
          out.warnings.push(`${file}: line ${n} is not JSON; it was skipped.`);
        }
        return;
      }
      const entry = parseLedgerEntry(value);
      if (typeof entry === 'string') {
        out.unknownEntries = true;
        out.warnings.push(`${file}: line ${n} is not a ledger entry (${entry}); it was skipped.`);
        return;
      }
      out.entries.push(entry);
      out.entryBytes.push(size);
      if (entry.event.at < out.oldestAt) out.oldestAt = entry.event.at;
    });
    out.bytes = fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
  return out;
}

/**
 * Calls `onLine` for every line of `fd` in order, with the line's bytes (without its newline; undefined when longer
 * than `maxLineBytes`), its 1-based number, whether a newline ended it, and its stored size. The buffer passed is
 * only valid during the call.
 */
function forEachLine(
  fd: number,
  options: LoadOptions,
  onLine: (line: Buffer | undefined, n: number, terminated: boolean, size: number) => void,
): void {
  const chunk = Buffer.alloc(Math.max(1, options.chunkBytes ?? CHUNK_BYTES));
  const maxLine = options.maxLineBytes ?? MAX_LINE_BYTES;
  let pieces: Buffer[] = [];
  let pending = 0; // bytes of the current line seen so far
  let tooLong = false;
  let n = 0;
  for (let pos = 0; ;) {
    const read = readSync(fd, chunk, 0, chunk.length, pos);
    if (read === 0) break;
    pos += read;
    const view = chunk.subarray(0, read);
    let start = 0;
    for (let nl = view.indexOf(0x0a, start); nl !== -1; nl = view.indexOf(0x0a, start)) {
      const part = view.subarray(start, nl);
      const size = pending + part.length + 1;
      if (tooLong || size - 1 > maxLine) onLine(undefined, ++n, true, size);
      else onLine(pieces.length ? Buffer.concat([...pieces, part]) : part, ++n, true, size);
      pieces = [];
      pending = 0;
      tooLong = false;
      start = nl + 1;
    }
    const rest = view.subarray(start);
    if (rest.length === 0) continue;
    pending += rest.length;
    if (tooLong || pending > maxLine) {
      tooLong = true;
      pieces = [];
    } else pieces.push(Buffer.from(rest));
  }
  if (pending > 0) onLine(tooLong ? undefined : Buffer.concat(pieces), ++n, false, pending);
}

/**
 * Appends entries to a JSONL file (created with its folder if missing). On open, a cut-short last line is cut off
 * (its write never completed, so the step it may announce never started); a complete last line missing only its
 * newline gets one. With a size limit in `retention`, the file is compacted when it grows past it.
 *
 * Records written together go to the file in one write: a step's start is held until the record of the call it
 * announces (or its answer, for a step answered in Plangate), and a call's end until the step's outcome; both are
 * written with that next record, the start fsync'd with it — so a step is on disk, with its call record, before the
 * call is sent. Nothing is held past the current turn of the event loop: what has no partner by then is written then.
 */
export class FileLedgerSink implements LedgerSink, Disposable {
  private fd: number | undefined;
  private size: number;
  /** Lines accepted but not yet written (a held step start or call end, see the class comment). */
  private held: string[] = [];
  /** A step's start was written (or is held) and not yet fsync'd. */
  private unsynced = false;
  private flushScheduled = false;
  /** Compact once the file is larger than this. */
  private compactAt: number;
  /** What the last compaction did (undefined before any). */
  lastCompaction: CompactionReport | undefined;
  /** Set when a compaction failed or was refused, for the log. */
  lastCompactionProblem: string | undefined;

  constructor(
    readonly file: string,
    private readonly retention: LedgerRetention = {},
    private readonly now: () => number = Date.now,
  ) {
    mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_FOLDER });
    this.fd = openPrivate(file);
    this.repairTail(this.fd);
    this.size = fstatSync(this.fd).size;
    this.compactAt = Math.max(maxBytesOf(retention) ?? Number.POSITIVE_INFINITY, this.size + (maxBytesOf(retention) ?? 0) / 4);
  }

  append(entry: LedgerEntry, json?: string): void {
    if (this.fd === undefined) throw new Error(`The ledger ${this.file} is closed; the event was not recorded.`);
    this.held.push(`${json ?? JSON.stringify(entry)}\n`);
    const type = entry.event.type;
    if (type === 'stepStarted') this.unsynced = true;
    if (type === 'stepStarted' || type === 'callEnded') {
      this.scheduleFlush();
      return;
    }
    // Every other entry is written (with what is held) before append returns, so it survives the process dying. A
    // step's start is also forced to disk (fsync flushes everything before it too): that record is what keeps a step
    // from running twice after a power loss; the other entries, if lost with the OS, leave the plan in a safe state (a
    // finished step looks interrupted and waits for the user). Syncing every entry cost milliseconds each.
    this.flush();
  }

  /** Writes what is held (one write), then fsyncs if a step's start is among what was not synced yet. */
  private flush(): void {
    if (this.fd === undefined || this.held.length === 0) return;
    const bytes = Buffer.from(this.held.join(''), 'utf8');
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written);
    } catch (err) {
      // Keep what did not reach the file for the next try; a partly written line is cut off when the file is reopened.
      this.held = written === 0 ? this.held : [bytes.subarray(written).toString('utf8')];
      throw err;
    }
    this.held = [];
    this.size += bytes.length;
    if (this.unsynced) {
      fsyncSync(this.fd);
      this.unsynced = false;
    }
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      try {
        this.flush();
      } catch {
        // Kept: the next append writes them first, and throws if the file still takes no writes.
      }
    });
  }

  /** See {@link LedgerSink.compact}: runs only once the file has grown past its size limit. */
  compact(): WorkflowState | undefined {
    const maxBytes = maxBytesOf(this.retention);
    if (this.fd === undefined || maxBytes === undefined || this.size <= this.compactAt) return undefined;
    try {
      this.flush(); // the compaction reads the file: everything accepted must be in it
    } catch {
      return undefined;
    }
    const before = this.size;
    let result: { compaction: Compaction | undefined; problem?: string };
    try {
      result = compactFile(this.file, this.retention, this.now(), () => {
        closeSync(this.fd!);
        this.fd = undefined;
      });
    } catch (err) {
      result = { compaction: undefined, problem: `the ledger could not be compacted (${(err as Error).message}); it is kept as it is.` };
    } finally {
      if (this.fd === undefined) this.fd = openPrivate(this.file);
      this.size = fstatSync(this.fd).size;
    }
    this.compactAt = Math.max(maxBytes, this.size + maxBytes / 4);
    this.lastCompactionProblem = result.problem;
    if (!result.compaction) return undefined;
    this.lastCompaction = report(before, this.size, result.compaction);
    return result.compaction.state;
  }

  dispose(): void {
    if (this.fd === undefined) return;
    try {
      this.flush();
    } catch {
      // closing anyway: what could not be written is lost with the file's own failure
    }
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
      if (nl >= 0) {
        lineStart = start + nl + 1;
        break;
      }
      end = start;
    }
    let parses = size - lineStart <= MAX_LINE_BYTES;
    if (parses) {
      const tail = Buffer.alloc(size - lineStart);
      readSync(fd, tail, 0, tail.length, lineStart);
      try {
        JSON.parse(tail.toString('utf8'));
      } catch {
        parses = false;
      }
    }
    if (parses) writeSync(fd, '\n');
    else ftruncateSync(fd, lineStart);
    fsyncSync(fd);
  }
}

export interface OpenedLedger extends Disposable {
  workflow: Workflow;
  sink: FileLedgerSink;
  /** What loading skipped (see {@link loadLedger}), and why a compaction was not done, if it was not. */
  warnings: string[];
  tornTail: boolean;
  /** What compaction on open did, when it dropped anything. */
  compaction?: CompactionReport;
}

export interface OpenOptions extends WorkflowOptions {
  /** How much settled history to keep; without it nothing is ever dropped. */
  retention?: LedgerRetention;
}

/**
 * Loads `file`, compacts it when `retention` says so, replays it into a {@link Workflow} (which then records
 * `restored` if anything was interrupted) and keeps appending to the same file. Disposing the result closes the file
 * (the workflow then refuses nothing but throws on dispatch: dispose it first).
 */
export function openFileLedger(file: string, options: OpenOptions = {}): OpenedLedger {
  const retention = options.retention ?? {};
  const now = options.now ?? Date.now;
  rmSync(tempFileOf(file), { force: true }); // a compaction that died before its rename: the ledger itself is whole
  let loaded = readLedger(file);
  let compacted: CompactionReport | undefined;
  const warnings = [...loaded.warnings];
  if (dueForCompaction(loaded, retention, now())) {
    try {
      const result = compactLoaded(file, loaded, retention, now());
      if (result.problem) warnings.push(result.problem);
      if (result.compaction) {
        const before = loaded.bytes;
        loaded = { ...loaded, entries: result.compaction.kept, tornTail: loaded.tornTail };
        compacted = report(before, result.bytesAfter, result.compaction);
      }
    } catch (err) {
      warnings.push(`${file}: the ledger could not be compacted (${(err as Error).message}); it is kept as it is.`);
    }
  }
  const sink = new FileLedgerSink(file, retention, now);
  try {
    const workflow = new Workflow(sink, loaded.entries, options);
    return {
      workflow,
      sink,
      warnings,
      tornTail: loaded.tornTail,
      ...(compacted && { compaction: compacted }),
      dispose: () => sink.dispose(),
    };
  } catch (err) {
    sink.dispose();
    throw err;
  }
}

function maxBytesOf(retention: LedgerRetention): number | undefined {
  return retention.maxSizeMB && retention.maxSizeMB > 0 ? retention.maxSizeMB * 1024 * 1024 : undefined;
}

function maxAgeOf(retention: LedgerRetention): number | undefined {
  return retention.maxAgeDays && retention.maxAgeDays > 0 ? retention.maxAgeDays * 24 * 60 * 60 * 1000 : undefined;
}

/** Over its size limit, or holding an event older than its age limit. */
function dueForCompaction(loaded: ReadLedger, retention: LedgerRetention, now: number): boolean {
  const maxBytes = maxBytesOf(retention);
  const maxAge = maxAgeOf(retention);
  return (maxBytes !== undefined && loaded.bytes > maxBytes) || (maxAge !== undefined && now - loaded.oldestAt > maxAge);
}

/**
 * Opens the ledger for appending, creating it readable by the user only; a ledger an earlier version created open to
 * others is made private too (through the open file, so a link swapped in meanwhile is not what changes).
 */
function openPrivate(file: string): number {
  const fd = openSync(file, 'a+', PRIVATE_FILE);
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, PRIVATE_FILE);
  } catch {
    // not the file's owner, or a file system without modes: the ledger is still written
  }
  return fd;
}

function tempFileOf(file: string): string {
  return `${file}.compacting`;
}

/** Reads `file` and compacts it (see {@link compactLoaded}); `beforeRename` runs just before the new file replaces it. */
function compactFile(
  file: string,
  retention: LedgerRetention,
  now: number,
  beforeRename: () => void,
): { compaction: Compaction | undefined; problem?: string } {
  return compactLoaded(file, readLedger(file), retention, now, beforeRename);
}

/**
 * Rewrites `file` with what {@link compactEntries} keeps of `loaded`: written to a new file, fsync'd, renamed over the
 * ledger, then the folder fsync'd. Does nothing when nothing would be dropped, or when the file holds lines this
 * version cannot read but a newer one might (compacting would lose them).
 */
function compactLoaded(
  file: string,
  loaded: ReadLedger,
  retention: LedgerRetention,
  now: number,
  beforeRename?: () => void,
): { compaction: Compaction | undefined; bytesAfter: number; problem?: string } {
  if (loaded.unknownEntries) {
    return {
      compaction: undefined,
      bytesAfter: loaded.bytes,
      problem: `${file}: the ledger holds entries this version of Plangate does not know, so it is not compacted (they would be lost); update Plangate, or move the file away to start a new ledger.`,
    };
  }
  const compaction = compactEntries(loaded.entries, loaded.entryBytes, {
    maxBytes: maxBytesOf(retention),
    maxAgeMs: maxAgeOf(retention),
    now,
  });
  if (!compaction) return { compaction: undefined, bytesAfter: loaded.bytes };
  const temp = tempFileOf(file);
  let bytesAfter = 0;
  try {
    // A new file, never through a link planted at its name, readable by the user only (like the ledger it replaces).
    rmSync(temp, { force: true });
    const fd = openSync(temp, CREATE_NEW, PRIVATE_FILE);
    try {
      let batch: string[] = [];
      let batchLength = 0;
      const flush = () => {
        const bytes = Buffer.from(batch.join(''), 'utf8');
        for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
        bytesAfter += bytes.length;
        batch = [];
        batchLength = 0;
      };
      for (const entry of compaction.kept) {
        const line = `${JSON.stringify(entry)}\n`;
        batch.push(line);
        batchLength += line.length;
        if (batchLength >= CHUNK_BYTES) flush();
      }
      flush();
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    beforeRename?.();
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  syncFolder(dirname(file));
  return { compaction, bytesAfter };
}

/** Makes a rename durable (POSIX); folders cannot be opened for fsync on Windows, where rename is durable enough. */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function report(bytesBefore: number, bytesAfter: number, c: Compaction): CompactionReport {
  return {
    bytesBefore,
    bytesAfter,
    droppedEntries: c.droppedEntries,
    droppedPlans: c.droppedPlans.length,
    droppedSubmissions: c.droppedSubmissions.length,
  };
}
