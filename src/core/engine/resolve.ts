/**
 * Which server each step of a plan runs on. A step's tool resolves on the server that issued the plan first, then on
 * the other connected servers in configuration order (a cross-server step). `ask_user` steps are answered locally and
 * never go to a server. If any tool resolves nowhere, nothing runs.
 */
import type { ServerTools } from './invoker';
import { sameJson } from '../base/json';
import { ASK_USER_TOOL, type ActionCall } from '../plan/plan';
import type { StepResolutionRecord } from '../workflow/workflow';

/**
 * The name recorded as a local step's "server" (the `stepStarted` event needs one). Routing never looks at it:
 * a step is local because its tool is `ask_user` ({@link StepResolution.local}), whatever servers are named.
 */
export const LOCAL_SERVER = '(answered in Plangate)';

export interface StepResolution {
  /** The server the step runs on; {@link LOCAL_SERVER} for a local step. */
  server: string;
  /** The tool is not on the issuing server and runs on another one. */
  crossServer: boolean;
  /** An `ask_user` step: answered by the user in Plangate, never sent to a server. */
  local: boolean;
  /** The definition hash of the step's tool on `server` (undefined for local steps, or when the catalog has none). */
  toolHash?: string;
}

export interface MissingTool {
  /** Position of the step in the `steps` given. */
  index: number;
  tool: string;
  /** Why it resolves nowhere, in words (names the servers and what to do). */
  reason: string;
}

export type StepResolutions = { ok: true; resolutions: StepResolution[] } | { ok: false; missing: MissingTool[] };

export interface ResolveOptions {
  /** A tool found only on another server may run there (otherwise the step is missing). */
  allowCrossServer: boolean;
}

/**
 * Resolves every step of `steps` against the connected servers' tools (`catalog`, in configuration order). The result
 * is all-or-nothing: `ok: false` lists every step whose tool resolves nowhere, and then no step may run.
 */
export function resolveSteps(
  steps: readonly ActionCall[],
  issuingServer: string,
  catalog: readonly ServerTools[],
  options: ResolveOptions,
): StepResolutions {
  const resolutions: StepResolution[] = [];
  const missing: MissingTool[] = [];
  const issuer = catalog.find((s) => s.server === issuingServer);
  steps.forEach((step, index) => {
    const tool = typeof step?.tool === 'string' ? step.tool : '';
    if (tool === ASK_USER_TOOL) {
      resolutions.push({ server: LOCAL_SERVER, crossServer: false, local: true });
      return;
    }
    if (tool === '') {
      missing.push({ index, tool, reason: `Step ${index + 1} names no tool.` });
      return;
    }
    if (issuer?.tools.includes(tool)) {
      resolutions.push({ server: issuer.server, crossServer: false, local: false, ...hashOf(issuer, tool) });
      return;
    }
    const other = catalog.find((s) => s.server !== issuingServer && s.tools.includes(tool));
    if (other && options.allowCrossServer) {
      resolutions.push({ server: other.server, crossServer: true, local: false, ...hashOf(other, tool) });
      return;
    }
    const where = issuer ? `server '${issuingServer}' does not offer it` : `server '${issuingServer}' is not connected`;
    missing.push({
      index,
      tool,
      reason: other
        ? `tool '${tool}' is only offered by server '${other.server}' (${where}), and cross-server steps are off (setting plangate.allowCrossServerSteps); turn it on or connect a server that offers it.`
        : `tool '${tool}' is not offered by any connected server (${where}); connect a server that offers it, or skip the step.`,
    });
  });
  return missing.length ? { ok: false, missing } : { ok: true, resolutions };
}

/** `{ toolHash }` when the catalog knows the tool's definition hash, else nothing (no key). */
function hashOf(server: ServerTools, tool: string): { toolHash?: string } {
  const hash = server.hashes?.get(tool);
  return hash === undefined ? {} : { toolHash: hash };
}

/**
 * Where each step of `steps` runs now, one record per step (`resolved` and `stepDrifted` events carry these): unlike
 * {@link resolveSteps} it is not all-or-nothing — a step whose tool resolves nowhere gets `missing` with the reason.
 */
export function resolutionRecords(
  steps: readonly ActionCall[],
  issuingServer: string,
  catalog: readonly ServerTools[],
  options: ResolveOptions,
): StepResolutionRecord[] {
  return steps.map((step) => {
    const one = resolveSteps([step], issuingServer, catalog, options);
    if (!one.ok) return { missing: one.missing[0].reason };
    const r = one.resolutions[0];
    return r.toolHash === undefined
      ? { server: r.server, crossServer: r.crossServer }
      : { server: r.server, crossServer: r.crossServer, toolHash: r.toolHash };
  });
}

/** What differs between where a step was approved to run and where it resolves now, in words; undefined when nothing. */
export function resolutionChange(
  approved: { server?: string; toolHash?: string; unresolved?: string },
  now: StepResolutionRecord,
  tool: string,
): string | undefined {
  if ('missing' in now)
    return approved.server === undefined && approved.unresolved
      ? undefined
      : `tool '${tool}' is no longer offered where it was approved: ${now.missing}`;
  if (approved.server === undefined)
    return `the step's server was not resolved when the plan was approved; it now runs on server '${now.server}'`;
  if (approved.server !== now.server)
    return `tool '${tool}' now resolves on server '${now.server}', not on server '${approved.server}' as approved`;
  if ((approved.toolHash ?? null) !== (now.toolHash ?? null))
    return `server '${now.server}' changed the definition of tool '${tool}' (description, schema or annotations) since the approval`;
  return undefined;
}

/** Where a step resolved, as a reviewer saw it: the server and its tool's definition hash, or why it resolves nowhere. */
export interface ReviewedResolution {
  server?: string;
  toolHash?: string;
  unresolved?: string;
}

/** A tool's definition as its server listed it (`tools/list`): untrusted, any shape beside its name. */
export type ListedTool = { name: string } & Record<string, unknown>;

/** The parts of a definition a reviewer reads, in the order they are named. */
const DEFINITION_PARTS: readonly [key: string, words: string][] = [
  ['title', 'title'],
  ['description', 'description'],
  ['inputSchema', 'input schema'],
  ['outputSchema', 'output schema'],
  ['annotations', 'annotations'],
  ['_meta', '_meta'],
];

/**
 * What differs between where a step resolved when the reviewer saw it (`before`) and where it resolves now (`after`),
 * as the parts a reviewer reads: `server`, `availability` (offered, or no longer offered), and for the same tool on
 * the same server the parts of its definition that changed (`description`, `input schema`, …; `definition` when an
 * earlier definition is not known, e.g. listed before a window reload). Empty when nothing changed.
 */
export function reviewedChangeParts(
  before: ReviewedResolution,
  after: ReviewedResolution,
  definitionOf: (hash: string) => ListedTool | undefined,
): string[] {
  if ((before.server === undefined) !== (after.server === undefined)) return ['availability'];
  if (before.server === undefined) return [];
  const parts: string[] = [];
  if (before.server !== after.server) parts.push('server');
  if ((before.toolHash ?? null) === (after.toolHash ?? null)) return parts;
  const old = before.toolHash === undefined ? undefined : definitionOf(before.toolHash);
  const now = after.toolHash === undefined ? undefined : definitionOf(after.toolHash);
  if (!old || !now) return before.server === after.server ? [...parts, 'definition'] : parts;
  for (const [key, words] of DEFINITION_PARTS) if (!sameJson(old[key], now[key])) parts.push(words);
  const known = new Set(['name', ...DEFINITION_PARTS.map(([k]) => k)]);
  const rest = (d: ListedTool) => Object.fromEntries(Object.entries(d).filter(([k]) => !known.has(k)));
  if (!sameJson(rest(old), rest(now))) parts.push('other fields');
  return parts.length ? parts : before.server === after.server ? ['definition'] : parts;
}

/** "the description and input schema" — a list of parts in words. */
export function partsInWords(parts: readonly string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * A step's change during review in words, naming the tool and the servers: "server 'fx' changed the description and
 * input schema of tool 'echo'", "tool 'echo' now resolves on server 'b', not on server 'a'", ….
 */
export function reviewedChangeText(before: ReviewedResolution, after: ReviewedResolution, tool: string, parts: readonly string[]): string {
  if (after.server === undefined) return `tool '${tool}' is no longer offered by any server: ${after.unresolved ?? 'it resolves nowhere'}`;
  if (before.server === undefined) return `tool '${tool}' is now offered by server '${after.server}'`;
  const definition = parts.filter((p) => p !== 'server');
  if (before.server !== after.server)
    return `tool '${tool}' now resolves on server '${after.server}', not on server '${before.server}'${definition.length ? ` (and its ${partsInWords(definition)} changed)` : ''}`;
  return `server '${after.server}' changed the ${partsInWords(definition)} of tool '${tool}'`;
}

/** A step whose server or tool definition changed while its plan waited for approval (since the user saw it). */
export interface StepReviewChange {
  step: number;
  /** Where the step resolved when the user first saw the plan (or last accepted a change of this step). */
  before: ReviewedResolution;
  /** Where it resolves now (what an approval would cover). */
  after: ReviewedResolution;
  /** What differs: `server`, `availability`, `description`, `input schema`, `annotations`, … */
  parts: string[];
  /** The change in words, naming the tool and the servers. */
  text: string;
}

/**
 * What the gate knows about the review of a plan: the steps that changed while it waited (an approval is refused until
 * the user accepted each), and the tool definitions of its steps as their servers listed them, by definition hash. A new
 * object whenever either changes, so a view built from it can be kept while it is the same object.
 */
export interface PlanReview {
  changes: readonly StepReviewChange[];
  definitions: ReadonlyMap<string, ListedTool>;
}
