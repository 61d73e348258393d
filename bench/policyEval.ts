/**
 * The policy's cost per call: evaluating a policy of 200 rules (user and workspace, every kind of condition: server
 * and tool globs, annotations, argument paths with globs, patterns and "outside the workspace", entrances) for one call,
 * as the door does before every tools/call, with paths read on a real folder through the Node port the CLI and the
 * extension pass. An absolute time per call (median of batches), with a target well below what one tools/call round
 * trip to a local server costs.
 *
 * Beside it, the hostile cases (issue 24): 200 rules whose patterns backtrack catastrophically on a JavaScript engine
 * (`^(a+)+$`, `(a|a)*b`, `(.*a){20}`, …), each against an argument a server chose to hurt it (10,000 characters, as
 * long as a pattern reads), and 200 name globs of many stars against a tool name as long as a glob reads (1,000
 * characters). Each case is a policy of 200 distinct rules (so nothing is answered from a cache); the figure is the
 * worst case of the set, the note gives each. On JavaScript's RegExp the first case alone did not finish in 20 s.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluate, MAX_NAME_LENGTH, type PolicyCall, type PolicyContext } from '../src/core/policy/evaluate';
import type { PolicyRule, PolicyRules, SourcedRule } from '../src/core/policy/rules';
import { narrowestRule } from '../src/core/policy/alwaysAllow';
import { approvalRules } from '../src/core/policy/approvals';
import { nodeRealPath } from '../src/node/realPath';
import { figure, ms, type Figure } from './figure';

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

/** Median and p90 of `calls` per batch, in µs per call, over `batches` batches after a warm-up. */
function measure(run: () => void, warmup: number, batch: number, batches: number): { median: number; p90: number } {
  for (let i = 0; i < warmup; i++) run();
  const samples: number[] = [];
  for (let r = 0; r < batches; r++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) run();
    samples.push(((performance.now() - t0) / batch) * 1000);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)]!, p90: samples[Math.floor(samples.length * 0.9)]! };
}

/**
 * Two runs measured side by side as {@link measure} does, their batches interleaved (and the order flipped each round)
 * so that a drift in the machine's speed while the bench runs falls on both alike.
 */
function measurePair(
  a: () => void,
  b: () => void,
  warmup: number,
  batch: number,
  batches: number,
): [{ median: number; p90: number }, { median: number; p90: number }] {
  for (let i = 0; i < warmup; i++) {
    a();
    b();
  }
  const samples: [number[], number[]] = [[], []];
  const time = (run: () => void, into: number[]) => {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) run();
    into.push(((performance.now() - t0) / batch) * 1000);
  };
  for (let r = 0; r < batches; r++) {
    const order: [() => void, number[]][] = [
      [a, samples[0]],
      [b, samples[1]],
    ];
    if (r % 2 === 1) order.reverse();
    for (const [run, into] of order) time(run, into);
  }
  const stats = (list: number[]) => {
    list.sort((x, y) => x - y);
    return { median: list[Math.floor(list.length / 2)]!, p90: list[Math.floor(list.length * 0.9)]! };
  };
  return [stats(samples[0]), stats(samples[1])];
}

const sourced = (list: PolicyRule[]): PolicyRules => ({
  user: list.map((r, index) => ({ ...r, source: 'user', index })),
  workspace: [],
});

/** The hostile cases: a pattern (or a tool glob) made 200 times distinct, and the argument chosen against it. */
const HOSTILE_LENGTH = 10_000;
const HOSTILE: { name: string; rule: (i: number) => Partial<PolicyRule>; call: Partial<PolicyCall> }[] = [
  {
    name: '^(a+)+$',
    rule: (i) => ({ args: [{ path: '$.command', pattern: `^(a+)+$|^q${i}$` }] }),
    call: { args: { command: `${'a'.repeat(HOSTILE_LENGTH - 1)}!` } },
  },
  {
    name: '(a|a)*b',
    rule: (i) => ({ args: [{ path: '$.command', pattern: `(a|a)*b|q${i}` }] }),
    call: { args: { command: 'a'.repeat(HOSTILE_LENGTH) } },
  },
  {
    name: '(.*a){20}',
    rule: (i) => ({ args: [{ path: '$.command', pattern: `(.*a){20}q${i}` }] }),
    call: { args: { command: 'a'.repeat(HOSTILE_LENGTH) } },
  },
  {
    name: '^(\\w+\\s?)*$',
    rule: (i) => ({ args: [{ path: '$.command', pattern: `^(\\w+\\s?)*$|^q${i}$` }] }),
    call: { args: { command: `${'word '.repeat(HOSTILE_LENGTH / 5 - 1)}word!` } },
  },
  {
    name: '(x+x+)+y',
    rule: (i) => ({ args: [{ path: '$.command', pattern: `(x+x+)+y|q${i}` }] }),
    call: { args: { command: 'x'.repeat(HOSTILE_LENGTH) } },
  },
  { name: 'tool glob *a*a*a*a*a*a*a*b', rule: (i) => ({ tool: `*a*a*a*a*a*a*a*b${i}` }), call: { tool: 'a'.repeat(MAX_NAME_LENGTH) } },
];

export async function policyFigures(log: (line: string) => void): Promise<Figure[]> {
  // With the card's standing approvals present too (issue 28): 20 for the session and 20 in the workspace, each the
  // narrowest rule with a server identity, none of them matching this call (so every one is tried).
  const approval = (length: 'session' | 'workspace', i: number) => ({
    rule: narrowestRule(
      { server: `srv-${i}`, tool: `tool_${i}`, entrance: 'agent', serverKey: `srv-${i} ${'0'.repeat(64)}` },
      [],
      new Date(0),
      length,
    ),
    made: 0,
    why: 'bench',
  });
  const plain = rules(200);
  const policy: PolicyRules = {
    ...plain,
    approvals: approvalRules({
      session: Array.from({ length: 20 }, (_, i) => approval('session', i)),
      workspace: Array.from({ length: 20 }, (_, i) => approval('workspace', i)),
    }),
  };
  const call: PolicyCall = {
    serverKey: `fs ${'1'.repeat(64)}`,
    server: 'fs',
    tool: 'write_file',
    args: { path: 'src/app/main.ts', files: [{ path: 'a.ts' }, { path: '../b.ts' }], command: 'ls -la' },
    entrance: 'agent',
    annotations: { destructiveHint: true },
  };
  const root = mkdtempSync(join(tmpdir(), 'plangate-bench-policy-'));
  try {
    mkdirSync(join(root, 'src', 'app'), { recursive: true });
    writeFileSync(join(root, 'src', 'app', 'main.ts'), '');
    writeFileSync(join(root, 'a.ts'), '');
    const context: PolicyContext = { workspaceRoot: root, realPath: nodeRealPath };
    log('policy: 200 rules per call, without and with 40 standing approvals, side by side…');
    // Warm-up: compiled globs are cached.
    const [ordinary, withApprovals] = measurePair(
      () => evaluate(plain, call, context),
      () => evaluate(policy, call, context),
      2000,
      500,
      41,
    );
    log('policy: 200 hostile rules per call, each case…');
    const cases = HOSTILE.map((h) => {
      const hostile = sourced(Array.from({ length: 200 }, (_, i) => ({ id: `h${i}`, decision: 'deny', reason: 'hostile', ...h.rule(i) })));
      const hostileCall: PolicyCall = { server: 'shell', tool: 'run', args: {}, entrance: 'agent', ...h.call };
      const verdict = evaluate(hostile, hostileCall, context);
      const time = measure(() => evaluate(hostile, hostileCall, context), 2, 1, 9);
      log(`  ${h.name}: ${ms(time.median / 1000)} per call (${verdict.decision})`);
      return { ...h, time, decision: verdict.decision };
    });
    const worst = cases.reduce((a, b) => (b.time.median > a.time.median ? b : a));
    return [
      figure(
        'policy_200_rules_per_call',
        'Policy: evaluating 200 rules for one call (µs)',
        ordinary.median,
        'µs',
        500,
        50, // 10 % of the target: a median of batches, timer and GC noise
        `median of 41 batches of 500 calls; p90 ${ordinary.p90.toFixed(1)} µs; every kind of condition, no standing approval; paths read on a real folder (links resolved); measured interleaved with the next figure`,
      ),
      figure(
        'policy_200_rules_40_approvals_per_call',
        'Policy: 200 rules and 40 standing approvals for one call (µs)',
        withApprovals.median,
        'µs',
        500,
        50,
        `the same 200 rules and call, with 20 session and 20 workspace approvals (the card's narrowest rules, with a server identity; none matches, so each is tried); median of 41 batches of 500 calls, interleaved with the figure before; p90 ${withApprovals.p90.toFixed(1)} µs; ${(withApprovals.median / ordinary.median).toFixed(2)}× the plain figure`,
      ),
      figure(
        'policy_200_hostile_rules_per_call',
        'Policy: 200 hostile rules for one call, worst case of the set (µs)',
        worst.time.median,
        'µs',
        1_000_000,
        100_000,
        `worst: ${worst.name}; median of 9 calls each; adversarial arguments of ${HOSTILE_LENGTH} characters (a pattern reads no further), a tool name of ${MAX_NAME_LENGTH}; ` +
          cases.map((c) => `${c.name} ${ms(c.time.median / 1000)}`).join(', ') +
          "; on JavaScript's backtracking RegExp ^(a+)+$ on 41 characters did not finish in 20 s",
      ),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
