/**
 * One line of the benchmark's result: what `npm run bench -- --json` prints as `figures[i]`, and what the table shows;
 * and the verdict over all of them that sets the run's exit code.
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
  /**
   * The figure's noise band, in its unit: how far above `target` a value may land from run-to-run noise alone (0 for a
   * size or a count, which do not vary). A value past `target + band` fails `npm run bench`. Null without a target.
   */
  band: number | null;
  /** value ≤ target; false when not measured. */
  meets: boolean;
  /** Human title for the table. */
  title: string;
  /** What was compared, substitutions made, medians behind a ratio. */
  note?: string;
}

/** A figure whose value is compared with an upper bound, allowing `band` of noise above it. */
export function figure(
  name: string,
  title: string,
  value: number,
  unit: string,
  target: number | null,
  band: number | null,
  note?: string,
): Figure {
  const meets = Number.isFinite(value) && (target === null || value <= target);
  return {
    name,
    title,
    value: round(value),
    unit,
    target,
    band: target === null ? null : band,
    meets,
    ...(note !== undefined && { note }),
  };
}

/** A figure that could not be measured in this run; it never meets its target, and never fails the run. */
export function notMeasured(name: string, title: string, unit: string, target: number | null, band: number | null, why: string): Figure {
  return { name, title, value: null, unit, target, band: target === null ? null : band, meets: false, note: why };
}

/** What a run of the benchmark concludes from its figures. */
export interface Verdict {
  /** The process's exit code: 1 when a figure is past its target by more than its band, or a group failed to run. */
  code: 0 | 1;
  /** Figures past `target + band`, in words ("… 1.82× > 1.1× + 0.1×"). */
  regressions: string[];
  /** Figures over their target but within their band (noise, not a failure). */
  withinBand: string[];
  /** Figures not measured (prerequisites missing), which do not fail the run. */
  notMeasured: string[];
}

/**
 * The verdict over `figures`: a measured figure whose value is past `target + band` (or not a finite number) is a
 * regression and fails the run; one above its target but within its band does not; a figure not measured does not
 * either (it is listed as such). `failedGroups` are groups that threw: their figures were never made, so they fail the run. Pure.
 */
export function verdict(figures: readonly Figure[], failedGroups: readonly string[] = []): Verdict {
  const regressions: string[] = [];
  const withinBand: string[] = [];
  const missing: string[] = [];
  for (const f of figures) {
    if (f.value === null) {
      missing.push(`${f.name}${f.note ? ` (${f.note})` : ''}`);
      continue;
    }
    if (f.target === null) continue;
    const band = f.band ?? 0;
    const words = `${f.name}: ${f.value}${f.unit} > ${f.target}${f.unit}`;
    if (!Number.isFinite(f.value) || f.value > f.target + band) regressions.push(`${words} + ${band}${f.unit} of noise`);
    else if (f.value > f.target) withinBand.push(`${words}, within its ${band}${f.unit} of noise`);
  }
  return {
    code: regressions.length > 0 || failedGroups.length > 0 ? 1 : 0,
    regressions,
    withinBand,
    notMeasured: missing,
  };
}

function round(v: number): number {
  if (!Number.isFinite(v)) return v;
  return Math.abs(v) >= 100 ? Math.round(v * 10) / 10 : Math.round(v * 1000) / 1000;
}

/** Milliseconds for notes: "43.1 ms". */
export function ms(v: number): string {
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ms`;
}
