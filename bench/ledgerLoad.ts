/**
 * Figure 5: opening a 100,000-event ledger as activation does (`openFileLedger` with the default retention: read line
 * by line, parse, replay, ready to append) against a plain `readFileSync` + `split('\n')` of the same file, which
 * builds the one string the old loader built and does nothing with it. The ledger is generated through the real
 * Workflow (so every entry is one it accepted): runs of three steps with progress, all recent and finished, and
 * a few plans awaiting approval at the end.
 *
 * `node --import tsx bench/ledgerLoad.ts --big [MB]` is the manual run with a ledger past V8's string limit (default
 * 600 MB): it prints how long opening takes without retention and with the default one, and what the plain read does.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { approvalHash } from '../src/core/plan/approval';
import { MemoryLedgerSink, Workflow, type LedgerEntry } from '../src/core/workflow/ledger';
import { getPlan, type WorkflowEvent } from '../src/core/workflow/workflow';
import { loadLedger, openFileLedger } from '../src/node/fileLedger';
import { figure, ms, type Figure } from './figure';
import { interleave } from './stats';

const EVENTS = 100_000;
const STEPS = 3;
/** The defaults of `plangate.ledger.maxSizeMB` and `plangate.ledger.maxAgeDays`. */
const RETENTION = { maxSizeMB: 50, maxAgeDays: 90 };
const ORIGIN = {
  server: 'bench',
  tool: 'plan_it',
  args: { goal: 'Add a payroll screen with hours and rates' },
  entrance: 'manual' as const,
};

/**
 * Entries of a ledger of `events` events, with clock values ending at `end`. Each plan is recorded by a Workflow of
 * its own (a live Workflow holding every plan would make generating as slow as the quadratic replay this measures).
 */
export function generateLedger(events: number, end: number, payloadBytes = 0): LedgerEntry[] {
  const perPlan = 2 + STEPS * 3;
  const plans = Math.max(1, Math.floor((events - 3) / perPlan));
  const out: LedgerEntry[] = [];
  let at = end - plans * 1000;
  const record = (planId: string, run: boolean) => {
    const sink = new MemoryLedgerSink();
    const workflow = new Workflow(sink);
    const ok = (event: WorkflowEvent) => {
      if (!workflow.dispatch(event)) throw new Error(`bench ledger: ${event.type} refused: ${workflow.canApply(event)}`);
    };
    ok({
      type: 'planReceived',
      at,
      planId,
      origin: ORIGIN,
      plan: {
        kind: 'orchestrated_plan',
        version: '1',
        status: 'ok',
        instruction: `Scaffold screen ${planId}`,
        next_actions: Array.from({ length: STEPS }, (_, i) => ({
          tool: 'write_file',
          label: `Write part ${i + 1}`,
          args: {
            path: `src/screens/${planId}/part${i}.ts`,
            content: i === 0 && payloadBytes ? 'x'.repeat(payloadBytes) : `export const part${i} = ${i};\n`,
          },
        })),
      },
    });
    if (run) {
      ok({ type: 'approved', at, planId, approvalHash: approvalHash(getPlan(workflow.state, planId)!) });
      for (let step = 0; step < STEPS; step++) {
        ok({ type: 'stepStarted', at, planId, step, server: 'bench', crossServer: false });
        ok({ type: 'stepProgress', at, planId, step, progress: { progress: 1, total: 2, message: 'writing' } });
        ok({ type: 'stepSucceeded', at, planId, step, summary: `Wrote src/screens/${planId}/part${step}.ts` });
      }
    }
    for (const e of sink.entries) out.push({ seq: out.length + 1, event: e.event });
  };
  for (let p = 0; p < plans; p++) {
    at += 1000;
    record(`plan-${p}`, true);
  }
  while (out.length < events) record(`pending-${out.length}`, false);
  return out;
}

function writeLedger(file: string, entries: readonly LedgerEntry[]): void {
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < entries.length; i += 10_000)
      writeSync(
        fd,
        entries
          .slice(i, i + 10_000)
          .map((e) => `${JSON.stringify(e)}\n`)
          .join(''),
      );
  } finally {
    closeSync(fd);
  }
}

export async function ledgerLoadFigures(log: (line: string) => void): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-bench-ledger-'));
  try {
    const file = join(dir, 'ledger.jsonl');
    const now = Date.now();
    log(`ledger: generating ${EVENTS.toLocaleString('en')} events…`);
    const entries = generateLedger(EVENTS, now);
    writeLedger(file, entries);
    const bytes = statSync(file).size;
    const mb = bytes / 1024 / 1024;
    let plans = 0;
    const open = () => {
      const opened = openFileLedger(file, { retention: RETENTION, now: () => now });
      plans += opened.workflow.state.order.length;
      opened.dispose();
    };
    let lines = 0;
    const plain = () => {
      lines += readFileSync(file, 'utf8').split('\n').length;
    };
    log(`ledger: opening a ${mb.toFixed(1)} MB ledger vs readFileSync + split…`);
    const t = await interleave(open, plain, { warmup: 1, runs: 9, budgetMs: 30_000 });
    if (plans === 0 || lines === 0) throw new Error('the ledger did not load');
    // Where the time goes: reading and parsing alone (no replay).
    const parseOnly = await interleave(() => loadLedger(file), plain, { warmup: 1, runs: 5, budgetMs: 10_000 });
    if (statSync(file).size !== bytes) throw new Error('opening the ledger changed it (a compaction or a restore ran)');
    const title = `${EVENTS.toLocaleString('en')}-event ledger (${mb.toFixed(1)} MB)`;
    return [
      figure(
        'ledger_open_100k_events_ms',
        `open a ${title} as activation does`,
        t.medianA,
        'ms',
        3000,
        `openFileLedger with the default retention: read in 1 MiB chunks line by line, JSON.parse, replay, open for appending; median of ${t.a.length} runs (reading and parsing alone: ${ms(parseOnly.medianA)})`,
      ),
      figure(
        'ledger_open_100k_events_vs_read_split',
        `open a ${title} / readFileSync + split`,
        t.ratio,
        'x',
        null,
        `medians: open ${ms(t.medianA)}, readFileSync + split ${ms(t.medianB)}; the plain read builds one string of the file (what fails past 512 MB) and parses nothing; read + parse alone is ${parseOnly.ratio.toFixed(1)}× it`,
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The manual run past V8's string limit (see the file's comment). */
async function big(megabytes: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-bench-ledger-big-'));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const file = join(dir, 'ledger.jsonl');
    const now = Date.now();
    // 100 KB plans, so that the file is large without tens of millions of events.
    const template = generateLedger(1_000, now - 200 * 24 * 3600_000, 100 * 1024);
    const chunk = template.map((e) => `${JSON.stringify(e)}\n`).join('');
    const fd = openSync(file, 'w');
    let copies = 0;
    let seq = 0;
    while (statSync(file).size < megabytes * 1024 * 1024) {
      // Each copy gets its own plan ids and sequence numbers.
      const text = template
        .map((e) => {
          const event = { ...e.event } as Record<string, unknown>;
          if (typeof event.planId === 'string') event.planId = `${event.planId}-c${copies}`;
          return `${JSON.stringify({ seq: ++seq, event })}\n`;
        })
        .join('');
      writeSync(fd, text);
      copies++;
    }
    closeSync(fd);
    const size = statSync(file).size;
    say(
      `ledger: ${(size / 1024 / 1024).toFixed(0)} MB, ${seq.toLocaleString('en')} events (${chunk.length} bytes per ${template.length} events)`,
    );
    let t0 = performance.now();
    try {
      readFileSync(file, 'utf8').split('\n');
      say(`readFileSync + split: ${ms(performance.now() - t0)}`);
    } catch (err) {
      say(`readFileSync + split: throws after ${ms(performance.now() - t0)}: ${(err as Error).message}`);
    }
    t0 = performance.now();
    const loaded = loadLedger(file);
    say(
      `loadLedger (line by line): ${ms(performance.now() - t0)}, ${loaded.entries.length.toLocaleString('en')} entries, ${loaded.warnings.length} warnings`,
    );
    t0 = performance.now();
    const opened = openFileLedger(file, { retention: RETENTION, now: () => now });
    say(
      `openFileLedger with the default retention (50 MB, 90 days): ${ms(performance.now() - t0)}, ${opened.workflow.state.order.length} plans kept, ${(statSync(file).size / 1024 / 1024).toFixed(1)} MB after, report ${JSON.stringify(opened.compaction)}`,
    );
    opened.dispose();
    t0 = performance.now();
    openFileLedger(file, { retention: RETENTION, now: () => now }).dispose();
    say(`reopening the compacted ledger: ${ms(performance.now() - t0)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--big')) {
  const mb = Number(process.argv[process.argv.indexOf('--big') + 1]) || 600;
  big(mb).catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
}
