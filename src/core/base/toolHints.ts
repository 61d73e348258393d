/**
 * What a step's tool says about itself through its MCP annotations (`readOnlyHint`, `destructiveHint`,
 * `idempotentHint`, `openWorldHint`). These are the server's hints, not guarantees: the panel shows them as such,
 * next to each step and summed up in the Safety card, so a reviewer sees at a glance which steps only read and
 * which may destroy data. Pure functions.
 */

import type { StepEffect, StepHint } from '../../shared/protocol/plan';
export type { StepEffect, StepHint } from '../../shared/protocol/plan';

const NO_HINT: StepHint = { effect: 'unknown', openWorld: false, idempotent: false };
const HINT_KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * Reads a tool's annotations as the MCP spec defines their defaults: not read-only unless `readOnlyHint` is true,
 * and then destructive unless `destructiveHint` is false. A tool with no boolean hint at all is `unknown` (the
 * defaults would call every unannotated tool destructive, which says nothing). Untrusted input: anything that is
 * not a boolean counts as absent.
 */
export function stepHint(annotations: unknown): StepHint {
  if (!annotations || typeof annotations !== 'object') return NO_HINT;
  const a = annotations as Record<string, unknown>;
  if (!HINT_KEYS.some((k) => typeof a[k] === 'boolean')) return NO_HINT;
  const effect: StepEffect = a.readOnlyHint === true ? 'read' : a.destructiveHint === false ? 'write' : 'destructive';
  return { effect, openWorld: a.openWorldHint === true, idempotent: effect !== 'read' && a.idempotentHint === true };
}

/**
 * The hints of a plan's steps summed up as one sentence, e.g. "By their tools' own account, 1 step may destroy data,
 * 2 write, 3 only read and 1 gives no hint; 1 reaches outside systems."; "" when there is nothing to say. `null`
 * marks a step that is no server tool (ask_user): it is left out.
 */
export function summarizeHints(all: readonly (StepHint | null)[]): string {
  const hints = all.filter((h): h is StepHint => h !== null);
  const count = (effect: StepEffect) => hints.filter((h) => h.effect === effect).length;
  const openWorld = hints.filter((h) => h.openWorld).length;
  const parts: [number, string, string][] = [
    [count('destructive'), 'may destroy data', 'may destroy data'],
    [count('write'), 'writes', 'write'],
    [count('read'), 'only reads', 'only read'],
    [count('unknown'), 'gives no hint', 'give no hint'],
  ];
  const said = parts.filter(([n]) => n > 0);
  if (!said.length) return '';
  // The first count names its unit ("1 step", "4 steps"); the others share it.
  const words = said.map(([n, one, many], i) => `${n}${i === 0 ? (n === 1 ? ' step' : ' steps') : ''} ${n === 1 ? one : many}`);
  const list = words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
  const world = openWorld ? `; ${openWorld} ${openWorld === 1 ? 'reaches' : 'reach'} outside systems` : '';
  return `By their tools' own account, ${list}${world}.`;
}
