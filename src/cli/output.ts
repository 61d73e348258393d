/**
 * Where the CLI writes. Human text goes to stdout, or to stderr under `--json` (stdout then holds only the report);
 * errors always go to stderr. Progress can leave a line open ("[2/4] write_file …") that the next message closes.
 */
import { safeJson } from './safeText';

export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export class Output {
  private openLine = false;

  constructor(
    readonly json: boolean,
    private readonly streams: OutputStreams = { stdout: process.stdout, stderr: process.stderr },
  ) {}

  /** The stream human text goes to. */
  get human(): NodeJS.WritableStream {
    return this.json ? this.streams.stderr : this.streams.stdout;
  }

  /** Writes lines of human text (already made safe by the caller). */
  info(...lines: string[]): void {
    this.closeLine();
    for (const line of lines) this.human.write(`${line}\n`);
  }

  /** Starts a line that {@link endLine} finishes (or the next message closes). */
  startLine(text: string): void {
    this.closeLine();
    this.human.write(text);
    this.openLine = true;
  }

  /** Finishes the open line with `text`; when another message came in between, writes `prefix` + `text` as a new line. */
  endLine(text: string, prefix: string): void {
    if (this.openLine) {
      this.human.write(`${text}\n`);
      this.openLine = false;
    } else {
      this.human.write(`${prefix}${text}\n`);
    }
  }

  /** Writes a question without a newline (the answer is typed after it). */
  prompt(text: string): void {
    this.closeLine();
    this.human.write(text);
  }

  /** Writes an error or warning line to stderr (already made safe by the caller). */
  error(line: string): void {
    this.closeLine();
    this.streams.stderr.write(`${line}\n`);
  }

  /** Writes the one JSON report to stdout. */
  report(value: unknown): void {
    this.closeLine();
    this.streams.stdout.write(`${safeJson(value)}\n`);
  }

  /** Resolves once everything written so far has been handed to the operating system. */
  async flush(): Promise<void> {
    this.closeLine();
    await Promise.all(
      [this.streams.stdout, this.streams.stderr].map(
        (s) =>
          new Promise<void>((done) => {
            try {
              if (!s.write('', () => done())) s.once('drain', () => done());
            } catch {
              done();
            }
          }),
      ),
    );
  }

  private closeLine(): void {
    if (!this.openLine) return;
    this.openLine = false;
    this.human.write('\n');
  }
}
