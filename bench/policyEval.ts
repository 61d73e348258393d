/**
 * The policy's cost per call: evaluating a policy of 200 rules (user and workspace, every kind of condition: server
 * and tool globs, annotations, argument paths with globs, patterns and "outside the workspace", entrances) for one call,
 * as the door does before every tools/call. An absolute time per call (median of batches), with a target well below
 * what one tools/call round trip to a local server costs.
 */
import { evaluate, type PolicyCall } from '../src/core/policy/evaluate';
import type { PolicyRule, PolicyRules, SourcedRule } from '../src/core/policy/rules';
import { figure, type Figure } from './figure';

function rules(n: number): PolicyRules {
  const make = (i: number): PolicyRule => {
    const base = { id: `r${i}`, reason: `rule ${i}`, decision: (['allow', 'ask', 'deny'] as const)[i % 3]! };
    switch (i % 5) {
      case 0:
        return { ...base, server: `srv-${i}-*`, tool: `tool_${i}_*` };
      case 1:
        return { ...base, tool: `{write,delete}_${i}`, annotations: { destructive: true } };
      case 2:
        return { ...base, args: [{ path: '$.path', glob: `src/mod${i}/**` }] };
      case 3:
        return { ...base, args: [{ path: '$.files[*].path', outsideWorkspace: true }], entrance: ['agent'] };
      default:
        return { ...base, args: [{ path: '$.command', pattern: `^cmd${i}\\s` }], server: 'shell' };
    }
  };
  const all: SourcedRule[] = Array.from({ length: n }, (_, i) => ({ ...make(i), source: i < n / 2 ? 'user' : 'workspace', index: i }));
  return { user: all.filter((r) => r.source === 'user'), workspace: all.filter((r) => r.source === 'workspace') };
}

export async function policyFigures(log: (line: string) => void): Promise<Figure[]> {
  const policy = rules(200);
  const call: PolicyCall = {
    server: 'fs',
    tool: 'write_file',
    args: { path: 'src/app/main.ts', files: [{ path: 'a.ts' }, { path: '../b.ts' }], command: 'ls -la' },
    entrance: 'agent',
    annotations: { destructiveHint: true },
  };
  log('policy: 200 rules per call…');
  const context = { workspaceRoot: '/home/u/project' };
  for (let i = 0; i < 2000; i++) evaluate(policy, call, context); // warm-up (compiled globs are cached)
  const batch = 500;
  const samples: number[] = [];
  for (let r = 0; r < 41; r++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) evaluate(policy, call, context);
    samples.push(((performance.now() - t0) / batch) * 1000);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)]!;
  return [
    figure(
      'policy_200_rules_per_call',
      'Policy: evaluating 200 rules for one call (µs)',
      median,
      'µs',
      500,
      `median of 41 batches of ${batch} calls; p90 ${samples[Math.floor(samples.length * 0.9)]!.toFixed(1)} µs; every kind of condition`,
    ),
  ];
}
