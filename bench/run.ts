/**
 * `npm run bench` (scripts/bench.mjs bundles this file with esbuild as dist/ is bundled, then runs it: `[--json] [GROUP…]`): Plangate's performance figures, each a ratio measured
 * side by side in this run (interleaved A/B runs after a warm-up, medians), or a size / count. Prints a table, or
 * with `--json` only `{"figures": [{name, value, unit, target, band, meets, title, note?}], "machine": {…}, "verdict": {…}}`
 * on stdout. Progress and the verdict go to stderr. Exits 1 when a figure is past its target by more than its noise band
 * (`band`, see figure.ts) or a figure group failed to run, so a regression is seen; 0 otherwise. A figure above its
 * target but within its band, or not measured (its prerequisites are missing), does not fail the run.
 * GROUP arguments keep only the groups whose name contains one of them (e.g. `npm run bench -- engine`).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { bundleFigures } from './bundle';
import { classifyVsParse } from './classifyVsParse';
import { enginePhaseFigures } from './enginePhases';
import { engineVsSdk } from './engineVsSdk';
import { ledgerLoadFigures } from './ledgerLoad';
import { longPlanInVscodeFigures } from './longPlanInVscode';
import { notMeasured, verdict, type Figure } from './figure';
import { panelUpdateFigures } from './panelUpdates';
import { webviewRenderFigures } from './webviewRender';
import { policyFigures } from './policyEval';
import { sandboxFigures } from './sandbox';
import { taskStepFigures } from './taskStep';
import { workspaceFigures } from './workspaceFigures';

const json = process.argv.includes('--json');
const started = Date.now();
const log = (line: string) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

const machine = {
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? 'unknown',
  memoryGiB: Math.round(totalmem() / 1024 ** 3),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  /** The 1-minute load average when the bench started: above the core count, other work shares the machine. */
  loadAverage: Math.round(loadavg()[0]! * 10) / 10,
};

const groups: [string, (log: (line: string) => void) => Promise<Figure[]>][] = [
  ['engine_vs_sdk', engineVsSdk],
  ['engine_phases', enginePhaseFigures],
  ['classify_vs_json_parse', classifyVsParse],
  ['workspace', workspaceFigures],
  ['bundle', bundleFigures],
  ['ledger_load', ledgerLoadFigures],
  ['panel_updates', panelUpdateFigures],
  ['webview_render', webviewRenderFigures],
  ['policy', policyFigures],
  ['sandbox', sandboxFigures],
  ['task_step', taskStepFigures],
  ['long_plan_in_vscode', longPlanInVscodeFigures],
];

async function main(): Promise<number> {
  log(describeMachine());
  if (machine.loadAverage > machine.cores)
    log(
      `warning: load average ${machine.loadAverage} on ${machine.cores} cores: other work shares the machine, so the figures are noisier and the run is slower`,
    );
  const figures: Figure[] = [];
  const failedGroups: string[] = [];
  const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  for (const [name, measure] of groups.filter(([n]) => only.length === 0 || only.some((o) => n.includes(o)))) {
    try {
      figures.push(...(await measure(log)));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      failedGroups.push(name);
      log(`${name} failed: ${message}`);
      figures.push(notMeasured(`${name}_failed`, `${name}: could not be measured`, '', null, null, message));
    }
  }
  log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const result = verdict(figures, failedGroups);
  if (json) process.stdout.write(`${JSON.stringify({ figures, machine, verdict: { ...result, failedGroups } }, null, 2)}\n`);
  else process.stdout.write(table(figures));
  for (const name of failedGroups) log(`FAILED: the ${name} group could not run (see above)`);
  for (const line of result.regressions) log(`MISSED by more than its noise band: ${line}`);
  for (const line of result.withinBand) log(`over its target, within noise: ${line}`);
  for (const line of result.notMeasured) log(`not measured (does not fail the run): ${line}`);
  log(
    result.code === 0
      ? 'every measured figure is within its target plus its noise band'
      : `exit 1: ${result.regressions.length} figure(s) past their target plus noise band, ${failedGroups.length} group(s) failed`,
  );
  return result.code;
}

function describeMachine(): string {
  return `${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.platform}, load average ${machine.loadAverage} at start`;
}

function formatValue(f: Figure): string {
  if (f.value === null) return 'not measured';
  return f.unit === 'x'
    ? `${f.value.toFixed(2)}×`
    : f.unit === 'count'
      ? String(f.value)
      : `${f.value.toFixed(f.unit === 'MB' || f.unit === 's' ? 2 : 1)} ${f.unit}`;
}

function formatTarget(f: Figure): string {
  if (f.target === null) return '—';
  return f.unit === 'x' ? `≤ ${f.target}×` : f.unit === 'count' ? `${f.target}` : `≤ ${f.target} ${f.unit}`;
}

function formatBand(f: Figure): string {
  if (f.target === null || f.band === null) return '—';
  return f.unit === 'x' ? `+${f.band}×` : f.unit === 'count' ? `+${f.band}` : `+${f.band} ${f.unit}`;
}

function table(figures: Figure[]): string {
  const rows = figures.map((f) => [
    f.title,
    formatValue(f),
    formatTarget(f),
    formatBand(f),
    f.value === null
      ? 'not measured'
      : f.target === null
        ? '—'
        : f.meets
          ? 'yes'
          : f.target !== null && f.value <= f.target + (f.band ?? 0)
            ? 'no, within noise'
            : 'NO',
  ]);
  const head = ['figure', 'value', 'target', 'noise band', 'meets'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [
    `Plangate benchmark — ${describeMachine()}`,
    'Ratios are A / B of medians over interleaved runs (ABBA order, after warm-up) measured side by side in this run.',
    'A figure past its target plus its noise band fails the run (exit 1); one not measured does not.',
    '',
    line(head),
    widths.map((w) => '─'.repeat(w)).join('  '),
    ...rows.map(line),
    '',
    'Notes:',
    ...figures.filter((f) => f.note).map((f) => `- ${f.title}: ${f.note}`),
  ];
  return `${out.join('\n')}\n`;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
