/**
 * A question one part of Plangate asks and another answers, made before either: the door asks the user about a call
 * and the panel's cards answer; a server asks for an elicitation and the panel's forms answer. The asker is built
 * with {@link Broker.ask}, the answerer {@link Broker.serve}s when it exists, and neither refers to the other — so
 * the composition root builds in dependency order with no late setter and no circle at run time (door → cards →
 * panel → gate → door). Until something serves, or after it stops, every question gets the `unserved` answer (a
 * refusal: nothing is allowed because nobody was there to ask).
 */
import type { Disposable } from './lifecycle';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any function type; the broker only forwards its arguments
export class Broker<F extends (...args: any[]) => Promise<unknown>> {
  private handler: F | undefined;

  constructor(private readonly unserved: F) {}

  /** Asks whoever serves now; without anyone, the unserved answer. */
  readonly ask = ((...args: Parameters<F>) => (this.handler ?? this.unserved)(...args)) as F;

  /** Answers every question from now until the returned disposable is disposed. One answerer at a time. */
  serve(handler: F): Disposable {
    if (this.handler) throw new Error('This question is answered elsewhere already.');
    this.handler = handler;
    return {
      dispose: () => {
        if (this.handler === handler) this.handler = undefined;
      },
    };
  }

  /** Whether something answers now. */
  get served(): boolean {
    return this.handler !== undefined;
  }
}
