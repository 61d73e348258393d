/**
 * Timing helpers for the benchmark: interleaved A/B sampling with warm-up, and medians. Every comparison in
 * bench/ goes through {@link interleave}, so both sides see the same machine state (ABAB…, never AAA…BBB).
 */
import { performance } from 'node:perf_hooks';

/** The median of `values` (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds `fn` takes (one call, awaited). */
export async function timeIt(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export interface PairedTimes {
  /** Milliseconds per run of A, in run order. */
  a: number[];
  /** Milliseconds per run of B, in run order. */
  b: number[];
  medianA: number;
  medianB: number;
  /** median(A) / median(B). */
  ratio: number;
}

export interface InterleaveOptions {
  /** Untimed A/B pairs first (JIT, caches, the servers' own warm-up). */
  warmup: number;
  /** Timed A/B pairs. */
  runs: number;
  /** Stop adding pairs once this many ms have passed (after at least 3 pairs). */
  budgetMs?: number;
}

/**
 * Runs A and B alternately — A B A B …, with the order of each pair flipped every other pair (ABBA) so neither
 * side always runs second — after `warmup` untimed pairs. Returns both series and the ratio of their medians.
 */
export async function interleave(a: () => unknown, b: () => unknown, options: InterleaveOptions): Promise<PairedTimes> {
  for (let i = 0; i < options.warmup; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  const start = performance.now();
  for (let i = 0; i < options.runs; i++) {
    if (i % 2 === 0) {
      ta.push(await timeIt(a));
      tb.push(await timeIt(b));
    } else {
      tb.push(await timeIt(b));
      ta.push(await timeIt(a));
    }
    if (options.budgetMs !== undefined && i >= 2 && performance.now() - start > options.budgetMs) break;
  }
  const medianA = median(ta);
  const medianB = median(tb);
  return { a: ta, b: tb, medianA, medianB, ratio: medianA / medianB };
}
