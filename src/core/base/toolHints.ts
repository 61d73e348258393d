/**
 * What a step's tool says about itself through its MCP annotations (`readOnlyHint`, `destructiveHint`,
 * `idempotentHint`, `openWorldHint`). These are the server's hints, not guarantees: the panel shows them as such,
 * next to each step and summed up in the Safety card, so a reviewer sees at a glance which steps only read and
 * which may destroy data. Pure functions.
 */

import type { StepEffect, StepHint } from '../../shared/protocol';
export type { StepEffect, StepHint } from '../../shared/protocol';

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
 * The hints of a plan's steps summed up, e.g. "1 destructive · 2 writing · 3 read-only · 1 without hints"; ""
 * when there is nothing to say. `null` marks a step that is no server tool (ask_user): it is left out.
 */
export function summarizeHints(all: readonly (StepHint | null)[]): string {
  const hints = all.filter((h): h is StepHint => h !== null);
  const count = (effect: StepEffect) => hints.filter((h) => h.effect === effect).length;
  const openWorld = hints.filter((h) => h.openWorld).length;
  const parts: string[] = [];
  const destructive = count('destructive');
  const write = count('write');
  const read = count('read');
  const unknown = count('unknown');
  if (destructive) parts.push(`${destructive} destructive`);
  if (write) parts.push(`${write} writing`);
  if (read) parts.push(`${read} read-only`);
  if (openWorld) parts.push(`${openWorld} open-world`);
  if (unknown) parts.push(`${unknown} without hints`);
  return parts.join(' · ');
}
