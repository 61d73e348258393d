/**
 * Figure 1: a 200-step plan run through the engine (Workflow + runPlan + classifyResult, over a ServerRegistry
 * holding one stdio fixture server) against the same 200 `tools/call`s made with a bare SDK Client on a second,
 * identically started fixture process. Measured three ways: with an in-memory ledger (the engine's own overhead),
 * with the FileLedgerSink the extension uses against the raw SDK, and with that file ledger against the real limit
 * of a durable step: the raw SDK doing the same calls plus one fsync'd append of a comparable record before each
 * (a step must be on disk before its call is sent), to a file in the same temp dir on the same disk. The sides are
 * built by engineRig.ts; `engine_phases` splits the same runs into where a step's time goes.
 */
import { figure, ms, type Figure } from './figure';
import { openEngineRig, STEPS } from './engineRig';
import { interleave } from './stats';

export async function engineVsSdk(log: (line: string) => void): Promise<Figure[]> {
  const rig = await openEngineRig();
  try {
    log(`engine vs raw SDK: ${STEPS}-step plan, in-memory ledger…`);
    const memory = await interleave(rig.memoryEngine, rig.sdk, { warmup: 3, runs: 31, budgetMs: 10_000 });
    log(`engine vs raw SDK: ${STEPS}-step plan, file ledger…`);
    const file = await interleave(rig.fileEngine, rig.sdk, { warmup: 1, runs: 15, budgetMs: 15_000 });
    const fileStats = rig.fileStats();
    log(`engine vs the limit (raw SDK + one fsync'd append per call): ${STEPS}-step plan, file ledger…`);
    const durable = await interleave(rig.fileEngine, rig.limit, { warmup: 1, runs: 21, budgetMs: 20_000 });

    const perStep = (t: number) => ms(t / STEPS).replace(' ms', ' ms/step');
    return [
      figure(
        'engine_vs_sdk_200_steps',
        `${STEPS}-step plan over stdio: engine (memory ledger) / raw SDK client`,
        memory.ratio,
        'x',
        1.05,
        0.1, // interleaved medians of a ~50 ms run: about ±5 % run to run, more on a loaded machine
        `medians of ${memory.a.length} interleaved runs: engine ${ms(memory.medianA)} (${perStep(memory.medianA)}), raw SDK ${ms(memory.medianB)} (${perStep(memory.medianB)})`,
      ),
      figure(
        'engine_file_ledger_vs_sdk_200_steps',
        `${STEPS}-step plan over stdio: engine with the file ledger the extension uses / raw SDK client`,
        file.ratio,
        'x',
        1.05,
        0.1,
        `medians of ${file.a.length} interleaved runs: engine ${ms(file.medianA)} (${perStep(file.medianA)}; a run makes ${fileStats.writes} writes and ${fileStats.syncs} fsyncs), raw SDK ${ms(file.medianB)}`,
      ),
      figure(
        'engine_file_ledger_vs_limit_200_steps',
        `${STEPS}-step plan over stdio: engine with the file ledger / the limit (raw SDK + one fsync'd append per call)`,
        durable.ratio,
        'x',
        1.1,
        0.1, // both sides fsync once per call; what varies is the rest, on a machine and disk shared with others
        `medians of ${durable.a.length} interleaved runs: engine ${ms(durable.medianA)} (${perStep(durable.medianA)}; ${rig.fileStats().writes} writes, ${rig.fileStats().syncs} fsyncs), limit ${ms(durable.medianB)} (${perStep(durable.medianB)}; ${STEPS} writes, ${STEPS} fsyncs)`,
      ),
    ];
  } finally {
    await rig.dispose();
  }
}
