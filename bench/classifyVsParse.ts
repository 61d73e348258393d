/**
 * Figure 2: classifying and validating a tool result (`classifyResult`: find the envelope, JSON.parse it, check
 * the hostile-input limits, validate with zod, normalise) against a bare `JSON.parse` of the same text. The
 * results are real fixture answers: the README scaffold plan (small) and the 200-step plan of figure 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyResult } from '../src/core/plan/classify';
import { resultText, type ToolResult } from '../src/core/base/toolResult';
import { figure, type Figure } from './figure';
import { rawFixtureClient } from './servers';
import { interleave } from './stats';

interface Sample {
  name: string;
  title: string;
  result: ToolResult;
  text: string;
}

export async function classifyVsParse(log: (line: string) => void): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'plangate-bench-classify-'));
  const samples: Sample[] = [];
  try {
    const client = await rawFixtureClient(dir);
    try {
      for (const [name, label, tool, args] of [
        ['small', 'README scaffold plan', 'plan_scaffold', { screen: 'Payroll', components: ['Hours', 'Rates'] }],
        ['200_steps', '200-step plan', 'plan_big', { steps: 200 }],
      ] as const) {
        const result = (await client.callTool({ name: tool, arguments: args })) as ToolResult;
        const text = resultText(result, Number.MAX_SAFE_INTEGER);
        if (classifyResult(result).kind !== 'plan') throw new Error(`${tool} did not classify as a plan`);
        samples.push({ name, title: `${label}, ${(text.length / 1024).toFixed(1)} KB`, result, text });
      }
    } finally {
      await client.close().catch(() => undefined);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const figures: Figure[] = [];
  for (const sample of samples) {
    log(`classify vs JSON.parse: ${sample.title}…`);
    // Batches of about 5 ms of JSON.parse each, so timer resolution does not matter.
    let k = 1;
    for (let t0 = performance.now(); performance.now() - t0 < 5; k *= 2) for (let i = 0; i < k; i++) JSON.parse(sample.text);
    let sink = 0;
    const classify = () => {
      for (let i = 0; i < k; i++) if (classifyResult(sample.result).kind === 'plan') sink++;
    };
    const parse = () => {
      for (let i = 0; i < k; i++) if ((JSON.parse(sample.text) as { kind?: unknown }).kind === 'orchestrated_plan') sink--;
    };
    const t = await interleave(classify, parse, { warmup: 10, runs: 61, budgetMs: 6_000 });
    if (sink !== 0) throw new Error('classify and JSON.parse disagreed about the sample');
    const per = (v: number) => `${((v / k) * 1000).toFixed(1)} µs`;
    figures.push(
      figure(
        `classify_vs_json_parse_${sample.name}`,
        `classify + validate / JSON.parse: ${sample.title}`,
        t.ratio,
        'x',
        2,
        `medians of ${t.a.length} interleaved batches of ${k}: classifyResult ${per(t.medianA)}, JSON.parse ${per(t.medianB)} per result`,
      ),
    );
  }
  return figures;
}
