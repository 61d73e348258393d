/**
 * Questions on the terminal, one line per answer. Lines typed (or piped, with PLANGATE_ASSUME_TTY=1) before a
 * question is asked are kept for it. End of input, or {@link Prompter.cancel}, answers every question with undefined.
 */
import { createInterface, type Interface } from 'node:readline';
import type { Output } from './output';

export class Prompter {
  private rl?: Interface;
  private readonly lines: string[] = [];
  private readonly waiters: ((line: string | undefined) => void)[] = [];
  private ended = false;

  constructor(
    private readonly out: Output,
    private readonly input: NodeJS.ReadableStream = process.stdin,
  ) {}

  /** Writes `question` and resolves with the next line (without its line break), or undefined at end of input. */
  ask(question: string): Promise<string | undefined> {
    this.out.prompt(question);
    this.open();
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) {
      this.out.info('');
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * Asks a yes/no question: "y"/"yes" (any case) is yes; an empty answer is `defaultYes`; anything else is no.
   * End of input is no.
   */
  async confirm(question: string, defaultYes = false): Promise<boolean> {
    const answer = await this.ask(`${question} ${defaultYes ? '[Y/n]' : '[y/N]'} `);
    if (answer === undefined) return false;
    if (answer.trim() === '') return defaultYes;
    return /^\s*y(es)?\s*$/i.test(answer);
  }

  /** Answers every pending and later question with undefined (Ctrl-C). */
  cancel(): void {
    this.ended = true;
    this.lines.length = 0;
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  /** Stops reading input, so that the process can exit. */
  close(): void {
    this.cancel();
    this.rl?.close();
    this.rl = undefined;
    const stream = this.input as NodeJS.ReadableStream & { destroy?: () => void };
    if (stream === process.stdin) stream.destroy?.();
  }

  private open(): void {
    if (this.rl || this.ended) return;
    this.rl = createInterface({ input: this.input, terminal: false, crlfDelay: Infinity });
    this.rl.on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      for (const w of this.waiters.splice(0)) {
        this.out.info('');
        w(undefined);
      }
    });
  }
}
