/**
 * What an approval covers. The hash is taken over exactly what will run — the position, tool and arguments
 * of every step not marked to skip — so any change after approval (an edit, a tampered ledger) is caught
 * before a step starts. Pure: no `node:crypto` (core runs in the extension host, the CLI and tests alike).
 */
import { canonicalJson, sha256Hex } from '../base/json';
import type { PlanRecord } from './plan';

// Where canonical JSON lived before core/base/json.ts; kept so importers of approval.ts need not change at once.
export { canonicalJson, sameJson, sha256Hex } from '../base/json';

/**
 * The approval hash of a plan: SHA-256 (hex) of the canonical JSON of what the approval covers — the issuing server
 * and tool, the instruction, the `touches_files` globs, and for every step not marked to skip its position, the server
 * it resolved on, its tool's definition hash as that server listed it, the tool name and the arguments. Skipping a
 * step after a failure does not change it (the mark is fixed at approval). The panel sends back the hash of what it
 * displayed, so an approval of a stale view is refused.
 */
export function approvalHash(plan: Pick<PlanRecord, 'steps'> & Partial<Pick<PlanRecord, 'origin' | 'plan'>>): string {
  const covered = {
    origin: plan.origin ? [plan.origin.server, plan.origin.tool] : null,
    instruction: plan.plan?.instruction ?? null,
    touches: plan.plan?.safety?.touches_files ?? null,
    steps: plan.steps
      .filter((step) => !step.skipRequested)
      .map((step) => [step.index, step.server ?? null, step.toolHash ?? null, step.call.tool, step.call.args]),
  };
  return sha256Hex(canonicalJson(covered));
}

/** What a tool definition is, for hashing: everything a server lists about it. */
export type ToolDefinitionLike = { name: string } & Record<string, unknown>;

/**
 * SHA-256 (hex) of a tool's definition as listed (`tools/list`): name, title, description, input and output schemas,
 * annotations, `_meta` — all of it, canonically. A change to any of them after approval makes a step wait for a new one.
 */
export function toolDefinitionHash(tool: ToolDefinitionLike): string {
  return sha256Hex(canonicalJson(tool));
}
