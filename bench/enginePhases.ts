/**
 * Where a step's time goes, in the runs of `engine_vs_sdk`: each side's marks on one clock — a request written to the
 * server's pipe (the SDK transport's `send`), a response read from it (`processReadBuffer`), the ledger's `writeSync`
 * and `fsyncSync` — and the median time between consecutive marks, per step. The sides: the engine with the file
 * ledger, the limit (raw SDK + one fsync'd append), the engine with the memory ledger, the raw SDK, the raw SDK sending
 * the request the engine sends (a progress token and a cancel signal), and the engine with the file ledger whose fsync
 * is replaced by a busy wait as long as the limit's median fsync (no disk: what the fsync itself does to the work
 * around it). No targets: these explain the ratios of `engine_vs_sdk`.
 *
 * The marks are taken by wrapping the SDK's stdio transport and `node:fs` for the time of this group (restored after).
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { openEngineRig, STEPS } from './engineRig';
import { figure, type Figure } from './figure';
import { median } from './stats';

type Mark = 'request' | 'response' | 'write' | 'fsync' | 'synced';
const ROUNDS = 8;

export async function enginePhaseFigures(log: (line: string) => void): Promise<Figure[]> {
  const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');
  const transport = StdioClientTransport.prototype as unknown as { send(m: unknown): Promise<void>; processReadBuffer(): void };
  const marks: [Mark, number][] = [];
  let spinMs: number | undefined; // set: fsyncSync busy-waits this long instead of syncing
  const saved = { send: transport.send, read: transport.processReadBuffer, write: fs.writeSync, fsync: fs.fsyncSync };
  transport.send = function (this: unknown, message: unknown) {
    marks.push(['request', performance.now()]);
    return saved.send.call(this, message);
  };
  transport.processReadBuffer = function (this: unknown) {
    marks.push(['response', performance.now()]);
    saved.read.call(this);
  };
  fs.writeSync = ((...args: Parameters<typeof fs.writeSync>) => {
    marks.push(['write', performance.now()]);
    return (saved.write as (...a: unknown[]) => number)(...args);
  }) as typeof fs.writeSync;
  fs.fsyncSync = (fd: number) => {
    marks.push(['fsync', performance.now()]);
    if (spinMs === undefined) saved.fsync(fd);
    else for (const end = performance.now() + spinMs; performance.now() < end;);
    marks.push(['synced', performance.now()]);
  };

  const rig = await openEngineRig();
  try {
    const sdkAsEngine = async () => {
      // The request the engine's connection sends: a progress token (the step shows progress) and a cancel signal.
      for (const step of rig.plan.next_actions) {
        const controller = new AbortController();
        const result = await rig.raw.callTool({ name: step.tool, arguments: step.args }, undefined, {
          onprogress: () => undefined,
          signal: controller.signal,
        });
        if (result.isError) throw new Error(`raw call of ${step.tool} failed`);
      }
    };
    const sides = {
      file: rig.fileEngine,
      limit: rig.limit,
      memory: rig.memoryEngine,
      sdk: rig.sdk,
      sdkAsEngine,
      fileSpin: rig.fileEngine,
    };
    const gaps = new Map<string, Map<string, number[]>>();
    log(`engine phases: ${ROUNDS} rounds of six ${STEPS}-step runs…`);
    let limitSync: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [side, run] of Object.entries(sides)) {
        spinMs = side === 'fileSpin' ? median(limitSync) / 1000 : undefined;
        marks.length = 0;
        await run();
        if (round === 0) continue; // warm-up
        const bySide = gaps.get(side) ?? new Map<string, number[]>();
        gaps.set(side, bySide);
        for (let i = 1; i < marks.length; i++) {
          const key = `${marks[i - 1]![0]}→${marks[i]![0]}`;
          const list = bySide.get(key) ?? [];
          list.push((marks[i]![1] - marks[i - 1]![1]) * 1000);
          bySide.set(key, list);
        }
        if (side === 'limit') limitSync = bySide.get('fsync→synced') ?? [];
      }
    }
    if (limitSync.length === 0) throw new Error('the limit made no fsync: the marks were not taken');

    const titles: Record<string, string> = {
      file: 'engine, file ledger',
      limit: 'limit',
      memory: 'engine, memory ledger',
      sdk: 'raw SDK',
      sdkAsEngine: "raw SDK, the engine's request",
      fileSpin: 'engine, file ledger, fsync → busy wait',
    };
    // response → write: the result taken in, the step's outcome and the next step's start and call checked and
    // recorded; synced → request: the connection and the SDK; request → response: the pipe and the server.
    const phases: Record<string, string> = {
      'response→write': 'response read → record written',
      'write→fsync': 'write',
      'fsync→synced': 'fsync',
      'synced→request': 'synced → request written',
      'response→request': 'response read → request written',
      'request→response': 'request written → response read',
    };
    const figures: Figure[] = [];
    const perStep: Record<string, number> = {};
    for (const [side, bySide] of gaps) {
      let total = 0;
      for (const [key, title] of Object.entries(phases)) {
        const list = bySide.get(key);
        // A phase that happens once a step (the two ends of a run and a run's first record are not steps).
        if (!list || list.length < (STEPS - 1) * ROUNDS) continue;
        const value = median(list);
        total += value;
        figures.push(figure(`engine_phase_${side}_${key.replace('→', '_to_')}`, `${titles[side]}: ${title}`, value, 'µs', null, null));
      }
      perStep[side] = total;
      figures.push(figure(`engine_phase_${side}_step`, `${titles[side]}: a step, the phases summed`, total, 'µs', null, null));
    }
    const allowance = perStep.limit! * 0.1;
    figures.push(
      figure(
        'engine_phase_file_over_limit',
        'engine with the file ledger: a step above the limit',
        perStep.file! - perStep.limit!,
        'µs',
        null,
        null,
        `1.1× the limit allows ${allowance.toFixed(0)} µs a step; the engine's work with the memory ledger, beside the raw SDK sending the same request: ${(perStep.memory! - perStep.sdkAsEngine!).toFixed(0)} µs`,
      ),
    );
    return figures;
  } finally {
    transport.send = saved.send;
    transport.processReadBuffer = saved.read;
    fs.writeSync = saved.write;
    fs.fsyncSync = saved.fsync;
    await rig.dispose();
  }
}
