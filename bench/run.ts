/**
 * `npm run bench` (`node --import tsx bench/run.ts [--json] [GROUP…]`): Plangate's performance figures, each a ratio measured
 * side by side in this run (interleaved A/B runs after a warm-up, medians), or a size / count. Prints a table, or
 * with `--json` only `{"figures": [{name, value, unit, target, meets, title, note?}], "machine": {…}}` on stdout.
 * Progress goes to stderr. Exits 0 when every figure group ran (whether or not targets are met), 1 when one failed.
 * GROUP arguments keep only the groups whose name contains one of them (e.g. `npm run bench -- engine`).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { bundleFigures } from './bundle';
import { classifyVsParse } from './classifyVsParse';
import { engineVsSdk } from './engineVsSdk';
import { ledgerLoadFigures } from './ledgerLoad';
import { longPlanInVscodeFigures } from './longPlanInVscode';
import { notMeasured, type Figure } from './figure';
import { panelUpdateFigures } from './panelUpdates';
import { webviewRenderFigures } from './webviewRender';
import { policyFigures } from './policyEval';
import { sandboxFigures } from './sandbox';
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
  ['classify_vs_json_parse', classifyVsParse],
  ['workspace', workspaceFigures],
  ['bundle', bundleFigures],
  ['ledger_load', ledgerLoadFigures],
  ['panel_updates', panelUpdateFigures],
  ['webview_render', webviewRenderFigures],
  ['policy', policyFigures],
  ['sandbox', sandboxFigures],
  ['long_plan_in_vscode', longPlanInVscodeFigures],
];

async function main(): Promise<number> {
  log(describeMachine());
  if (machine.loadAverage > machine.cores)
    log(
      `warning: load average ${machine.loadAverage} on ${machine.cores} cores: other work shares the machine, so the figures are noisier and the run is slower`,
    );
  const figures: Figure[] = [];
  let failed = false;
  const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  for (const [name, measure] of groups.filter(([n]) => only.length === 0 || only.some((o) => n.includes(o)))) {
    try {
      figures.push(...(await measure(log)));
    } catch (err) {
      failed = true;
      const message = err instanceof Error ? err.message : String(err);
      log(`${name} failed: ${message}`);
      figures.push(notMeasured(`${name}_failed`, `${name}: could not be measured`, '', null, message));
    }
  }
  log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (json) process.stdout.write(`${JSON.stringify({ figures, machine }, null, 2)}\n`);
  else process.stdout.write(table(figures));
  return failed ? 1 : 0;
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

function table(figures: Figure[]): string {
  const rows = figures.map((f) => [
    f.title,
    formatValue(f),
    formatTarget(f),
    f.value === null ? 'NO (not measured)' : f.meets ? 'yes' : 'NO',
  ]);
  const head = ['figure', 'value', 'target', 'meets'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [
    `Plangate benchmark — ${describeMachine()}`,
    'Ratios are A / B of medians over interleaved runs (ABBA order, after warm-up) measured side by side in this run.',
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
