/**
 * One line of the benchmark's result: what `npm run bench -- --json` prints as `figures[i]`, and what the table shows.
 */
export interface Figure {
  /** Stable machine name, e.g. `engine_vs_sdk_200_steps`. */
  name: string;
  /** The measurement; null when it was not measured (see `note`). */
  value: number | null;
  /** `x` for ratios, `MB`/`KB` for sizes, `count` for counts, `µs` for a time per call. */
  unit: string;
  /** The upper bound the value must not exceed (every target here is "≤"); null when there is none. */
  target: number | null;
  /** value ≤ target; false when not measured. */
  meets: boolean;
  /** Human title for the table. */
  title: string;
  /** What was compared, substitutions made, medians behind a ratio. */
  note?: string;
}

/** A figure whose value is compared with an upper bound. */
export function figure(name: string, title: string, value: number, unit: string, target: number | null, note?: string): Figure {
  const meets = Number.isFinite(value) && (target === null || value <= target);
  return { name, title, value: round(value), unit, target, meets, ...(note !== undefined && { note }) };
}

/** A figure that could not be measured in this run; it never meets its target. */
export function notMeasured(name: string, title: string, unit: string, target: number | null, why: string): Figure {
  return { name, title, value: null, unit, target, meets: false, note: why };
}

function round(v: number): number {
  if (!Number.isFinite(v)) return v;
  return Math.abs(v) >= 100 ? Math.round(v * 10) / 10 : Math.round(v * 1000) / 1000;
}

/** Milliseconds for notes: "43.1 ms". */
export function ms(v: number): string {
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ms`;
}
