/**
 * Reads the MCPFlow `orchestrated_plan` envelope: a zod schema of the wire format (lenient where real servers
 * differ, strict where it matters), hostile-input limits checked before zod sees anything, and a normaliser
 * that turns a valid envelope into the {@link OrchestratedPlan} the rest of Plangate uses.
 *
 * Wire leniency (see reference/protocols.md §1): enums come as lowercase strings (`FlowResult`), numbers
 * (`FlowBuilder.BuildJson`) or PascalCase names (a plan object returned through the C# SDK); `version` may be
 * the number 1 or a minor form such as "1.0"; `null` means absent (C# omits nulls); a missing `next_actions`,
 * `instruction` or `args` is empty. Unknown fields are kept as they are.
 */
import { z } from 'zod';
import {
  ASK_FIELD_TYPES,
  ASK_USER_TOOL,
  PARTIAL_OUTCOMES,
  PLAN_STATUSES,
  type ActionCall,
  type Ask,
  type AskField,
  type Issue,
  type OrchestratedPlan,
  type PartialResult,
  type Problem,
  type Safety,
} from './plan';

/**
 * Limits that stop hostile or broken input before it can hurt the extension host. Every limit produces a
 * problem naming the path; none throws.
 */
export const LIMITS = Object.freeze({
  /** Characters of text read as one envelope, or the estimated JSON size of an object envelope. */
  maxInputChars: 16 * 1024 * 1024,
  /** Characters in any one string (values and keys), anywhere in the envelope including `args`. */
  maxStringLength: 1024 * 1024,
  /** Nesting of objects and arrays, counted from the envelope (the envelope itself is level 1). */
  maxDepth: 64,
  /** JSON values (objects, arrays, strings, numbers, …) in one envelope. */
  maxNodes: 1_000_000,
  /** Entries in `next_actions`, and in `recovery_actions`. */
  maxSteps: 5000,
  /** Entries in `errors`, and in `warnings`. */
  maxIssues: 1000,
  /** Entries in the other lists of the envelope (`missing`, `partial_results`, `ask.fields`, globs, paths, options). */
  maxListItems: 10_000,
  /** Problems reported for one input; the rest are summarised in one last problem. */
  maxProblems: 100,
});

export type ParseEnvelopeResult = { ok: true; plan: OrchestratedPlan; warnings?: Problem[] } | { ok: false; problems: Problem[] };

// ───────────────────────────── paths and messages ─────────────────────────────

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_KEY_IN_PATH = 200;

/**
 * Formats a JSON path relative to the envelope: `next_actions[1].tool`, `args["odd key"]`; `""` is the envelope.
 * Keys that are not identifiers are written as JSON strings in brackets; very long keys are shortened with `…`.
 */
export function formatPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const seg of segments) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent — a number that skipped this branch gets the same `[n]` from the last one
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENTIFIER.test(seg) && seg.length <= MAX_KEY_IN_PATH) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg.length > MAX_KEY_IN_PATH ? `${seg.slice(0, MAX_KEY_IN_PATH)}…` : seg)}]`;
  }
  return out;
}

/** One line for people: `next_actions[1].tool: Required`, or just the message when the path is the envelope. */
export function formatProblem(problem: Problem): string {
  return problem.path ? `${problem.path}: ${problem.message}` : problem.message;
}

/** A short description of a value for messages: `"done"`, `3`, `null`, `an object`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

const fmt = (n: number): string => n.toLocaleString('en-US');

/** Caps a problem list at {@link LIMITS.maxProblems}, summarising the rest in one last problem. */
export function capProblems(problems: Problem[], max: number = LIMITS.maxProblems): Problem[] {
  if (problems.length <= max) return problems;
  const kept = problems.slice(0, max);
  kept.push({ path: '', message: `…and ${fmt(problems.length - max)} more problems (only the first ${fmt(max)} are listed)` });
  return kept;
}

// ───────────────────────────── limits (iterative, before zod) ─────────────────────────────

export interface JsonLimits {
  maxDepth: number;
  maxStringLength: number;
  maxNodes: number;
  maxInputChars: number;
}

/** A JSON object: not null, not an array, with `Object.prototype` or no prototype. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks depth, string length, size and JSON-ness of `value` without recursion (10,000 levels deep is fine),
 * and returns problems with paths relative to `value`. `tooLarge` is set when the size or node limit stopped the
 * walk: the value must then not be read further.
 */
export function checkJsonLimits(value: unknown, limits: JsonLimits = LIMITS): { problems: Problem[]; tooLarge: boolean } {
  // Fast pass without paths: typical envelopes pass it and pay nothing for path bookkeeping.
  const verdict = fastWalk(value, limits);
  if (verdict === 'ok') return { problems: [], tooLarge: false };
  if (verdict !== 'bad') return { problems: [{ path: '', message: verdict }], tooLarge: true };
  return { problems: slowWalk(value, limits), tooLarge: false };
}

const tooManyValues = (limits: JsonLimits) =>
  `the envelope holds more than ${fmt(limits.maxNodes)} JSON values; Plangate reads at most that many`;
const tooMuchText = (limits: JsonLimits) =>
  `the envelope is larger than ${fmt(limits.maxInputChars)} characters; Plangate reads at most that much`;

/**
 * `ok`, `bad` (some limit is exceeded: run the slow pass for paths), or the message of a size limit that stops
 * the read. Only containers go on the stack; their primitive children are checked in place.
 */
function fastWalk(root: unknown, limits: JsonLimits): 'ok' | 'bad' | string {
  // Stryker disable next-line all: equivalent — for a primitive value the fast pass only decides whether the slow pass runs, which answers the same
  if (root === null || typeof root !== 'object') return leafSize(root, limits) < 0 ? 'bad' : 'ok';
  const stack: object[] = [root];
  const depths: number[] = [1];
  let nodes = 1;
  let size = 2;
  const { maxDepth, maxNodes, maxInputChars } = limits;
  while (stack.length > 0) {
    const v = stack.pop() as object;
    const depth = depths.pop() as number;
    if (Array.isArray(v)) {
      const n = v.length;
      nodes += n;
      size += n + 2;
      for (let i = 0; i < n; i++) {
        const c: unknown = v[i];
        if (c !== null && typeof c === 'object') {
          if (depth >= maxDepth) return 'bad';
          stack.push(c);
          depths.push(depth + 1);
        } else {
          const s = leafSize(c, limits);
          // Stryker disable next-line EqualityOperator: equivalent — leafSize is never 0
          if (s < 0) return 'bad';
          size += s;
        }
      }
    } else {
      if (!isPlainObject(v)) return 'bad';
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        if (key.length > limits.maxStringLength) return 'bad';
        nodes++;
        size += key.length + 4;
        const c: unknown = v[key];
        if (c !== null && typeof c === 'object') {
          if (depth >= maxDepth) return 'bad';
          stack.push(c);
          depths.push(depth + 1);
        } else {
          const s = leafSize(c, limits);
          // Stryker disable next-line EqualityOperator: equivalent — leafSize is never 0
          if (s < 0) return 'bad';
          size += s;
        }
      }
    }
    if (nodes > maxNodes) return tooManyValues(limits);
    if (size > maxInputChars) return tooMuchText(limits);
  }
  return 'ok';
}

/** The JSON size of a primitive, or -1 when it breaks a limit or is not JSON. */
function leafSize(v: unknown, limits: JsonLimits): number {
  switch (typeof v) {
    case 'string':
      return v.length > limits.maxStringLength ? -1 : v.length + 2;
    case 'number':
      return 8;
    case 'boolean':
    case 'undefined':
      return 5;
    case 'object':
      return 4; // null
    default:
      return -1;
  }
}

/**
 * The same walk, reporting every violation with its path. Paths are kept as parent links (one frame per
 * container), so a wide envelope costs no per-value path arrays.
 */
function slowWalk(root: unknown, limits: JsonLimits): Problem[] {
  const problems: Problem[] = [];
  const frameParent: number[] = [];
  const frameKey: (string | number)[] = [];
  // Stack entries: value, depth, parent frame (-1: none), key in the parent.
  const values: unknown[] = [root];
  const depths: number[] = [0];
  // Stryker disable next-line ArrayDeclaration: equivalent — the root's parent is read only as `f > 0`, false for -1 and undefined alike
  const parents: number[] = [-1];
  // Stryker disable next-line ArrayDeclaration: equivalent — popping an empty list gives the same undefined
  const keys: (string | number | undefined)[] = [undefined];
  const pathOf = (parent: number, key: string | number | undefined): string => {
    const segs: (string | number)[] = key === undefined ? [] : [key];
    // Frame 0 is the root container (no key); every other frame has its parent's key for it.
    for (let f = parent; f > 0; f = frameParent[f] as number) segs.push(frameKey[f] as string | number);
    return formatPath(segs.reverse());
  };
  while (values.length > 0) {
    const v = values.pop();
    const d = depths.pop() as number;
    const parent = parents.pop() as number;
    const key = keys.pop();
    if (typeof v === 'string') {
      if (v.length > limits.maxStringLength)
        problems.push({
          path: pathOf(parent, key),
          message: `a string of ${fmt(v.length)} characters is longer than the limit of ${fmt(limits.maxStringLength)}`,
        });
      continue;
    }
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint')
        problems.push({ path: pathOf(parent, key), message: `not JSON data (a ${typeof v})` });
      continue;
    }
    const depth = d + 1;
    if (depth > limits.maxDepth) {
      problems.push({
        path: pathOf(parent, key),
        message: `objects and arrays are nested more than ${limits.maxDepth} levels deep here; Plangate reads at most ${limits.maxDepth} levels`,
      });
      continue; // never descend further
    }
    const isArray = Array.isArray(v);
    if (!isArray && !isPlainObject(v)) {
      problems.push({ path: pathOf(parent, key), message: `not JSON data (an object of class ${className(v)})` });
      continue;
    }
    const frame = frameParent.length;
    frameParent.push(parent);
    // Stryker disable next-line StringLiteral: equivalent — only the root frame has no key, and pathOf never reads the root frame's key
    frameKey.push(key ?? '');
    if (isArray) {
      // Stryker disable next-line ArithmeticOperator: equivalent — the extra index reads undefined, which is skipped like any non-container
      for (let i = v.length - 1; i >= 0; i--) {
        values.push(v[i]);
        depths.push(depth);
        parents.push(frame);
        keys.push(i);
      }
    } else {
      const objKeys = Object.keys(v);
      for (let i = objKeys.length - 1; i >= 0; i--) {
        const k = objKeys[i] as string;
        if (k.length > limits.maxStringLength) {
          problems.push({
            path: pathOf(frame, k),
            message: `a key of ${fmt(k.length)} characters is longer than the limit of ${fmt(limits.maxStringLength)}`,
          });
          continue;
        }
        values.push((v as Record<string, unknown>)[k]);
        depths.push(depth);
        parents.push(frame);
        keys.push(k);
      }
    }
  }
  return problems;
}

function className(v: object): string {
  try {
    // Stryker disable next-line OptionalChaining: equivalent — a value without a prototype is a plain object and never reaches here
    const ctor = (Object.getPrototypeOf(v) as { constructor?: { name?: unknown } } | null)?.constructor;
    return typeof ctor?.name === 'string' && ctor.name ? ctor.name : 'unknown';
  } catch {
    return 'unknown';
  }
}

// ───────────────────────────── the zod schema (wire format) ─────────────────────────────

/**
 * Descriptions and $defs names for the published JSON Schema. A private registry, so that nothing else in the
 * process (zod's global registry is shared with the SDK and other modules) can collide with these ids.
 */
const docs = z.registry<{ id?: string; description?: string }>();
function doc<T extends z.ZodType>(schema: T, meta: { id?: string; description?: string }): T {
  docs.add(schema, meta);
  return schema;
}

/** Case-insensitive pattern for enum names, in a form JSON Schema can carry (`[oO][kK]`). */
function caseInsensitivePattern(values: readonly string[]): RegExp {
  const alt = values.map((v) =>
    // Stryker disable next-line Regex,StringLiteral: equivalent for Plangate's enum words (lowercase letters only: nothing to escape)
    [...v].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join(''),
  );
  return new RegExp(`^(?:${alt.join('|')})$`);
}

function enumMessage(values: readonly string[]): string {
  return `expected one of ${values.join(', ')} (or 0–${values.length - 1})`;
}

/** A C# enum on the wire: a name in any letter case, or its number. Normalised later to the lowercase name. */
function lenientEnum(values: readonly string[], description: string) {
  const expected = enumMessage(values);
  const error = (iss: { input?: unknown }): string =>
    iss.input === undefined ? 'Required' : `${expected}, got ${describeValue(iss.input)}`;
  const schema = z.union(
    [
      z.string().regex(caseInsensitivePattern(values), { error }),
      z
        .number({ error })
        .int({ error })
        .min(0, { error })
        .max(values.length - 1, { error }),
    ],
    { error },
  );
  return doc(schema, {
    description: `${description} One of ${values.map((v) => `"${v}"`).join(', ')}. Plangate also accepts any letter case ("${pascal(values[0] as string)}") and the C# enum numbers 0–${values.length - 1}, and normalises to the lowercase name.`,
  });
}

function pascal(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const VERSION_PATTERN = /^1(?:\.(?:\d+|[xX*]))*$/;

function majorVersion(input: unknown): number | undefined {
  // Stryker disable next-line LogicalOperator,ConditionalExpression: equivalent — Number.isFinite is false for every non-number
  if (typeof input === 'number' && Number.isFinite(input)) return Math.trunc(input);
  if (typeof input === 'string') {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,MethodExpression: equivalent — the anchored pattern reads at most the first 13 characters; the cut only bounds the work
    const m = /^\s*[vV]?(\d{1,9})(?:\.|\s*$)/.exec(input.length > 64 ? input.slice(0, 64) : input);
    if (m) return Number(m[1]);
  }
  return undefined;
}

function versionError(iss: { input?: unknown }): string {
  if (iss.input === undefined) return 'Required';
  const major = majorVersion(iss.input);
  if (major !== undefined && major !== 1) return `major version ${major} is not supported; Plangate reads version 1`;
  return `expected "1" (or 1, "1.0", "1.x"), got ${describeValue(iss.input)}`;
}

const versionSchema = doc(
  z.union(
    [
      z.string().regex(VERSION_PATTERN, { error: versionError }),
      z.number({ error: versionError }).min(1, { error: versionError }).lt(2, { error: versionError }),
    ],
    { error: versionError },
  ),
  {
    description:
      'Envelope version. MCPFlow emits the string "1". Plangate also accepts the number 1 and minor forms ("1.0", "1.x") and normalises them to "1"; another major version is rejected.',
  },
);

const nullNote = (description: string): string => (description.includes('null') ? description : `${description} null means absent.`);
const optString = (description: string) => doc(z.string().nullish(), { description: nullNote(description) });
const optBool = (description: string) => doc(z.boolean().nullish(), { description: nullNote(description) });
const stringList = (description: string) =>
  doc(z.array(z.string()).max(LIMITS.maxListItems).nullish(), { description: nullNote(description) });
const requiredName = (what: string) =>
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent — min(1) runs on strings only, so its input is never undefined (a missing name is zod's invalid_type: errorMap says Required)
  z.string().min(1, { error: (iss) => (iss.input === undefined ? 'Required' : `expected a ${what}, got an empty string`) });

const actionCallSchema = doc(
  z.looseObject({
    tool: doc(requiredName('tool name'), {
      description: 'MCP tool name to invoke. `ask_user` is answered locally with `args` {prompt, fields}.',
    }),
    args: doc(z.record(z.string(), z.unknown()).nullish(), {
      description: 'Arguments for the tool (a JSON object). Missing or null means {}.',
    }),
    label: optString('Optional UI label for the step.'),
    confirm: optBool('If true, the step needs its own confirmation when it is reached.'),
  }),
  { id: 'ActionCall', description: 'A tool call the plan proposes. Unknown fields are kept.' },
);

const issueSchema = doc(
  z.looseObject({
    code: optString('Machine code, free text (NOT_FOUND, INVALID, PERMISSION, REQUIRED, TYPE, …). Missing or null means "".'),
    message: doc(z.string(), { description: 'What went wrong, for people.' }),
    field: optString('The input field the issue concerns.'),
    hint: optString('What to do about it.'),
    recoverable: optBool('Whether a recovery action or an answer can fix it.'),
  }),
  { id: 'Issue', description: 'A diagnostic. Unknown fields are kept.' },
);

const askFieldSchema = doc(
  z.looseObject({
    name: requiredName('field name'),
    type: lenientEnum(ASK_FIELD_TYPES, 'Input kind; missing or null means "string".').nullish(),
    required: optBool('Whether an answer is required.'),
    options: stringList('Choices for a select field.'),
  }),
  { id: 'AskField', description: 'One field of an `ask` form. Unknown fields are kept.' },
);

const askSchema = doc(
  z.looseObject({
    prompt: doc(z.string(), { description: 'The question to show.' }),
    fields: z.array(askFieldSchema).max(LIMITS.maxListItems).nullish(),
  }),
  { id: 'Ask', description: 'A mini form to collect inputs before re-planning or continuing. Unknown fields are kept.' },
);

const partialResultSchema = doc(
  z.looseObject({
    step: doc(z.string(), { description: 'The step this result is about.' }),
    outcome: lenientEnum(PARTIAL_OUTCOMES, 'What happened to the step.'),
    detail: optString('Details for people.'),
  }),
  { id: 'PartialResult', description: 'What already happened to one step. Unknown fields are kept.' },
);

const safetySchema = doc(
  z.looseObject({
    writes_code: optBool('Will the plan write or modify code?'),
    touches_files: stringList('Globs or paths, relative to the workspace, that the plan may change (e.g. "src/modules/payroll/**").'),
  }),
  { id: 'Safety', description: 'Risk preview shown before approval. Unknown fields are kept.' },
);

const stepsMessage = (what: string) => (iss: { input?: unknown }) =>
  Array.isArray(iss.input) ? `${fmt(iss.input.length)} ${what}; Plangate reads at most ${fmt(LIMITS.maxSteps)}` : undefined;

/**
 * The zod schema of the `orchestrated_plan` envelope as it appears on the wire. It validates only; use
 * {@link parseEnvelope} for limits, messages with paths, and the normalised {@link OrchestratedPlan}.
 */
export const envelopeSchema = z.looseObject({
  kind: doc(z.literal('orchestrated_plan'), { description: 'Payload type; always "orchestrated_plan".' }),
  version: versionSchema,
  status: lenientEnum(PLAN_STATUSES, 'Plan state.'),
  instruction: optString('Summary of what the plan intends to do, for the approval prompt. Missing or null means "".'),
  next_actions: doc(
    z
      .array(actionCallSchema)
      .max(LIMITS.maxSteps, { error: stepsMessage('steps') })
      .nullish(),
    { description: `Ordered steps to run on approval. Missing or null means []. At most ${fmt(LIMITS.maxSteps)}.` },
  ),
  follow_up: optString('Question to ask after all next_actions succeed.'),
  errors: doc(z.array(issueSchema).max(LIMITS.maxIssues).nullish(), {
    description: `Diagnostics when something went wrong. At most ${fmt(LIMITS.maxIssues)}.`,
  }),
  warnings: doc(z.array(issueSchema).max(LIMITS.maxIssues).nullish(), {
    description: `Non-fatal issues worth showing. At most ${fmt(LIMITS.maxIssues)}.`,
  }),
  missing: stringList('Names of required inputs that were not provided.'),
  partial_results: doc(z.array(partialResultSchema).max(LIMITS.maxListItems).nullish(), {
    description: 'What already happened, per step.',
  }),
  ask: askSchema.nullish(),
  recovery_actions: doc(
    z
      .array(actionCallSchema)
      .max(LIMITS.maxSteps, { error: stepsMessage('recovery actions') })
      .nullish(),
    { description: `Safe alternatives to fix or retry. At most ${fmt(LIMITS.maxSteps)}.` },
  ),
  safety: safetySchema.nullish(),
  affected_paths: stringList('Files actually touched or created.'),
  correlation_id: optString('Trace id tying tool logs, chat steps and telemetry together.'),
});

/** The arguments of an `ask_user` step ({prompt, fields}), validated like `ask`. */
const askUserArgsSchema = askSchema;

// ───────────────────────────── zod issues → problems ─────────────────────────────

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  record: 'an object',
};

/** The parts of a zod issue that {@link errorMap} words messages from. */
export interface RawIssue {
  code?: string;
  input?: unknown;
  expected?: string;
  values?: readonly unknown[];
  origin?: string;
  maximum?: number | bigint;
  minimum?: number | bigint;
}

/** Per-parse zod messages for the issues a schema does not word itself (`Required`, `expected a string, got 3`). */
export function errorMap(iss: RawIssue): string | undefined {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'Required';
      // Stryker disable next-line StringLiteral: equivalent — zod's invalid_type always names what it expected
      return `expected ${TYPE_NAMES[iss.expected ?? ''] ?? iss.expected}, got ${describeValue(iss.input)}`;
    case 'invalid_value': {
      // Stryker disable next-line ArrayDeclaration,StringLiteral: equivalent — the only invalid_value here is the one-value `kind` literal, and zod always gives its values
      const expected = (iss.values ?? []).map((v) => JSON.stringify(v)).join(' or ');
      return iss.input === undefined ? `expected ${expected}` : `expected ${expected}, got ${describeValue(iss.input)}`;
    }
    case 'too_big':
      // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent — every other size limit in the schema words its own message
      if (iss.origin === 'array' && Array.isArray(iss.input))
        return `${fmt(iss.input.length)} entries; Plangate reads at most ${fmt(Number(iss.maximum))}`;
      return undefined;
    default:
      return undefined;
  }
}

/** zod issues as problems with formatted paths, optionally under `prefix`. */
export function zodProblems(error: z.ZodError, prefix: readonly (string | number)[] = []): Problem[] {
  return error.issues.map((issue) => ({
    path: formatPath([...prefix, ...(issue.path as (string | number)[])]),
    message: issue.message,
  }));
}

// ───────────────────────────── normalisation (the fast path) ─────────────────────────────
//
// `tryNormalise` validates and normalises in one pass and returns undefined on anything the schema would reject.
// It is the hot path: zod runs only when it fails, to word the problems. It must accept exactly what
// `envelopeSchema` (plus the ask_user rule) accepts; test/unit/envelopeFuzz.test.ts checks that they agree.

const TOP_KEYS = new Set([
  'kind',
  'version',
  'status',
  'instruction',
  'next_actions',
  'follow_up',
  'errors',
  'warnings',
  'missing',
  'partial_results',
  'ask',
  'recovery_actions',
  'safety',
  'affected_paths',
  'correlation_id',
]);
const ACTION_KEYS = new Set(['tool', 'args', 'label', 'confirm']);
const ISSUE_KEYS = new Set(['code', 'message', 'field', 'hint', 'recoverable']);
const PARTIAL_KEYS = new Set(['step', 'outcome', 'detail']);
const ASK_KEYS = new Set(['prompt', 'fields']);
const ASK_FIELD_KEYS = new Set(['name', 'type', 'required', 'options']);
const SAFETY_KEYS = new Set(['writes_code', 'touches_files']);

/** Sets an own data property even when the key is `__proto__` (plain assignment would replace the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // Stryker disable next-line ConditionalExpression: equivalent — on the fresh objects this writes to, that property is what assignment makes
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Copies the own keys of `from` that are not in `known` onto `to`, `__proto__` included as plain data.
 * Returns how many it copied.
 */
export function copyUnknown(from: Record<string, unknown>, to: Record<string, unknown>, known: ReadonlySet<string>): number {
  let copied = 0;
  for (const key in from) {
    if (Object.hasOwn(from, key) && !known.has(key)) {
      setOwn(to, key, from[key]);
      copied++;
    }
  }
  return copied;
}

type Obj = Record<string, unknown>;
const FAIL = undefined;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown): v is null | undefined => v === null || v === undefined;
/** Optional string / boolean: absent, or of the right type. */
const optStr = (v: unknown): boolean => absent(v) || typeof v === 'string';
const optBoolean = (v: unknown): boolean => absent(v) || typeof v === 'boolean';

function optStrList(v: unknown): boolean {
  if (absent(v)) return true;
  if (!Array.isArray(v) || v.length > LIMITS.maxListItems) return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
  return true;
}

const STATUS_PATTERN = caseInsensitivePattern(PLAN_STATUSES);
const ASK_TYPE_PATTERN = caseInsensitivePattern(ASK_FIELD_TYPES);
const OUTCOME_PATTERN = caseInsensitivePattern(PARTIAL_OUTCOMES);

function enumValue<T extends string>(values: readonly T[], pattern: RegExp, raw: unknown): T | undefined {
  if (typeof raw === 'string') return pattern.test(raw) ? (raw.toLowerCase() as T) : FAIL;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent — any other index reads undefined, which is FAIL: the schema then words the problem
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < values.length) return values[raw];
  return FAIL;
}

function mapList<T>(v: unknown, max: number, f: (x: Obj) => T | undefined): T[] | undefined {
  if (!Array.isArray(v) || v.length > max) return FAIL;
  // Stryker disable next-line ArrayDeclaration: equivalent — the list grows as it is filled
  const out: T[] = new Array<T>(v.length);
  for (let i = 0; i < v.length; i++) {
    const item: unknown = v[i];
    const r = isObj(item) ? f(item) : FAIL;
    if (r === FAIL) return FAIL;
    out[i] = r;
  }
  return out;
}

function normaliseAction(raw: Obj): ActionCall | undefined {
  const { tool, args, label, confirm } = raw;
  if (typeof tool !== 'string' || tool.length === 0 || !optStr(label) || !optBoolean(confirm)) return FAIL;
  let outArgs: Obj;
  if (absent(args)) {
    if (tool === ASK_USER_TOOL) return FAIL;
    outArgs = {};
  } else if (isObj(args)) {
    if (tool === ASK_USER_TOOL) {
      const ask = normaliseAsk(args);
      if (ask === FAIL) return FAIL;
      outArgs = ask;
    } else outArgs = args;
  } else return FAIL;
  const out: ActionCall = { tool, args: outArgs };
  if (!absent(label)) out.label = label as string;
  if (!absent(confirm)) out.confirm = confirm as boolean;
  copyUnknown(raw, out, ACTION_KEYS);
  return out;
}

function normaliseIssue(raw: Obj): Issue | undefined {
  const { code, message, field, hint, recoverable } = raw;
  if (typeof message !== 'string' || !optStr(code) || !optStr(field) || !optStr(hint) || !optBoolean(recoverable)) return FAIL;
  const out: Issue = { code: absent(code) ? '' : (code as string), message };
  if (!absent(field)) out.field = field as string;
  if (!absent(hint)) out.hint = hint as string;
  if (!absent(recoverable)) out.recoverable = recoverable as boolean;
  copyUnknown(raw, out, ISSUE_KEYS);
  return out;
}

function normaliseAskField(raw: Obj): AskField | undefined {
  const { name, type, required, options } = raw;
  if (typeof name !== 'string' || name.length === 0 || !optBoolean(required) || !optStrList(options)) return FAIL;
  const t = absent(type) ? 'string' : enumValue(ASK_FIELD_TYPES, ASK_TYPE_PATTERN, type);
  if (t === FAIL) return FAIL;
  const out: AskField = { name, type: t };
  if (!absent(required)) out.required = required as boolean;
  if (!absent(options)) out.options = options as string[];
  copyUnknown(raw, out, ASK_FIELD_KEYS);
  return out;
}

function normaliseAsk(raw: Obj): Ask | undefined {
  const { prompt, fields } = raw;
  if (typeof prompt !== 'string') return FAIL;
  const out: Ask = { prompt };
  if (!absent(fields)) {
    const list = mapList(fields, LIMITS.maxListItems, normaliseAskField);
    if (list === FAIL) return FAIL;
    out.fields = list;
  }
  copyUnknown(raw, out, ASK_KEYS);
  return out;
}

function normalisePartial(raw: Obj): PartialResult | undefined {
  const { step, outcome, detail } = raw;
  if (typeof step !== 'string' || !optStr(detail)) return FAIL;
  const o = enumValue(PARTIAL_OUTCOMES, OUTCOME_PATTERN, outcome);
  if (o === FAIL) return FAIL;
  const out: PartialResult = { step, outcome: o };
  if (!absent(detail)) out.detail = detail as string;
  copyUnknown(raw, out, PARTIAL_KEYS);
  return out;
}

function normaliseSafety(raw: Obj): Safety | undefined {
  const { writes_code, touches_files } = raw;
  if (!optBoolean(writes_code) || !optStrList(touches_files)) return FAIL;
  const out: Safety = {};
  if (!absent(writes_code)) out.writes_code = writes_code as boolean;
  if (!absent(touches_files)) out.touches_files = touches_files as string[];
  // Stryker disable next-line EqualityOperator: equivalent — lintNeeded only saves looking for warnings; looking and finding none gives the same result
  if (copyUnknown(raw, out, SAFETY_KEYS) > 0) lintNeeded = true;
  return out;
}

function validVersion(v: unknown): boolean {
  return typeof v === 'string' ? VERSION_PATTERN.test(v) : typeof v === 'number' && v >= 1 && v < 2;
}

/** Validates and normalises a limit-checked envelope in one pass; undefined when the schema would reject it. */
function tryNormalise(raw: Obj): OrchestratedPlan | undefined {
  const r = raw;
  if (r.kind !== 'orchestrated_plan' || !validVersion(r.version)) return FAIL;
  const status = enumValue(PLAN_STATUSES, STATUS_PATTERN, r.status);
  if (status === FAIL || !optStr(r.instruction) || !optStr(r.follow_up) || !optStr(r.correlation_id)) return FAIL;
  if (!optStrList(r.missing) || !optStrList(r.affected_paths)) return FAIL;
  const nextActions = absent(r.next_actions) ? [] : mapList(r.next_actions, LIMITS.maxSteps, normaliseAction);
  if (nextActions === FAIL) return FAIL;
  const plan: OrchestratedPlan = {
    kind: 'orchestrated_plan',
    version: '1',
    status,
    instruction: absent(r.instruction) ? '' : (r.instruction as string),
    next_actions: nextActions,
  };
  if (!absent(r.follow_up)) plan.follow_up = r.follow_up as string;
  if (!absent(r.errors)) {
    const v = mapList(r.errors, LIMITS.maxIssues, normaliseIssue);
    if (v === FAIL) return FAIL;
    plan.errors = v;
  }
  if (!absent(r.warnings)) {
    const v = mapList(r.warnings, LIMITS.maxIssues, normaliseIssue);
    if (v === FAIL) return FAIL;
    plan.warnings = v;
  }
  if (!absent(r.missing)) plan.missing = r.missing as string[];
  if (!absent(r.partial_results)) {
    const v = mapList(r.partial_results, LIMITS.maxListItems, normalisePartial);
    if (v === FAIL) return FAIL;
    plan.partial_results = v;
  }
  if (!absent(r.ask)) {
    const v = isObj(r.ask) ? normaliseAsk(r.ask) : FAIL;
    if (v === FAIL) return FAIL;
    plan.ask = v;
  }
  if (!absent(r.recovery_actions)) {
    const v = mapList(r.recovery_actions, LIMITS.maxSteps, normaliseAction);
    if (v === FAIL) return FAIL;
    plan.recovery_actions = v;
  }
  if (!absent(r.safety)) {
    const v = isObj(r.safety) ? normaliseSafety(r.safety) : FAIL;
    if (v === FAIL) return FAIL;
    plan.safety = v;
  }
  if (!absent(r.affected_paths)) plan.affected_paths = r.affected_paths as string[];
  if (!absent(r.correlation_id)) plan.correlation_id = r.correlation_id as string;
  // Stryker disable next-line EqualityOperator: equivalent — lintNeeded only saves looking for warnings; looking and finding none gives the same result
  if (copyUnknown(raw, plan, TOP_KEYS) > 0) lintNeeded = true;
  return plan;
}

/**
 * Set by tryNormalise when the envelope has unknown fields (top level or safety), so that the lint warnings are
 * looked for only then. tryNormalise is synchronous and not reentrant, so one flag is enough.
 */
let lintNeeded = false;

// ───────────────────────────── warnings ─────────────────────────────

const CAMEL_ALIASES: Record<string, string> = {
  nextActions: 'next_actions',
  followUp: 'follow_up',
  partialResults: 'partial_results',
  recoveryActions: 'recovery_actions',
  affectedPaths: 'affected_paths',
  correlationId: 'correlation_id',
};
const SAFETY_ALIASES: Record<string, string> = { writesCode: 'writes_code', touchesFiles: 'touches_files' };
const CAMEL_ENTRIES = Object.entries(CAMEL_ALIASES);
const SAFETY_ENTRIES = Object.entries(SAFETY_ALIASES);

function lintWarnings(raw: Record<string, unknown>): Problem[] {
  const warnings: Problem[] = [];
  for (const [alias, name] of CAMEL_ENTRIES) {
    if (Object.hasOwn(raw, alias)) warnings.push({ path: alias, message: `unknown field kept as is; MCPFlow spells it "${name}"` });
  }
  if (isPlainObject(raw.safety)) {
    for (const [alias, name] of SAFETY_ENTRIES) {
      if (Object.hasOwn(raw.safety, alias))
        warnings.push({ path: `safety.${alias}`, message: `unknown field kept as is; MCPFlow spells it "${name}"` });
    }
  }
  if (raw.version !== '1')
    warnings.push({ path: 'version', message: `${describeValue(raw.version)} read as version "1" (MCPFlow emits the string "1")` });
  warnings.push(...unemittedFields(raw));
  return warnings;
}

const ALWAYS_EMITTED = 'MCPFlow always emits it';

/**
 * Fields MCPFlow's C# model always serialises (non-nullable properties) that `raw` lacks or sets to null. Plangate
 * reads them with their defaults; `plangate validate` reports them as problems, since a client that trusts the
 * model's shape (an agent iterating `next_actions`, a `code` switch) breaks on them.
 */
function unemittedFields(raw: Record<string, unknown>): Problem[] {
  const found: Problem[] = [];
  if (absent(raw.instruction))
    found.push({ path: 'instruction', message: `missing, read as ""; ${ALWAYS_EMITTED} ("" when there is nothing to say)` });
  if (absent(raw.next_actions))
    found.push({ path: 'next_actions', message: `missing, read as []; ${ALWAYS_EMITTED} ([] when there are no steps)` });
  for (const key of ['errors', 'warnings'] as const) {
    const list = raw[key];
    if (!Array.isArray(list)) continue;
    list.forEach((issue: unknown, i) => {
      if (isObj(issue) && absent(issue.code))
        found.push({
          path: formatPath([key, i, 'code']),
          message: `missing, read as ""; ${ALWAYS_EMITTED} (e.g. NOT_FOUND, INVALID, PERMISSION)`,
        });
    });
  }
  const fields = isObj(raw.ask) ? raw.ask.fields : undefined;
  if (Array.isArray(fields)) {
    fields.forEach((field: unknown, i) => {
      if (isObj(field) && absent(field.type))
        found.push({ path: formatPath(['ask', 'fields', i, 'type']), message: `missing, read as "string"; ${ALWAYS_EMITTED}` });
    });
  }
  return found;
}

/** Whether {@link unemittedFields} has anything to say, without building messages (the hot path). */
function lacksEmittedFields(raw: Record<string, unknown>): boolean {
  // Stryker disable next-line ConditionalExpression: equivalent where it says true more often — a true only costs a look for warnings that finds none
  if (absent(raw.instruction) || absent(raw.next_actions)) return true;
  for (const key of ['errors', 'warnings'] as const) {
    const list = raw[key];
    // Stryker disable next-line ConditionalExpression,MethodExpression,LogicalOperator: equivalent where it says true more often — a true only costs a look for warnings that finds none
    if (Array.isArray(list) && list.some((issue: unknown) => isObj(issue) && absent(issue.code))) return true;
  }
  const fields = isObj(raw.ask) ? raw.ask.fields : undefined;
  // Stryker disable next-line ConditionalExpression,MethodExpression,LogicalOperator: equivalent where it says true more often — a true only costs a look for warnings that finds none
  return Array.isArray(fields) && fields.some((field: unknown) => isObj(field) && absent(field.type));
}

// ───────────────────────────── public API ─────────────────────────────

/**
 * Validates and normalises an `orchestrated_plan` envelope. Never throws. On failure, reports every problem at
 * once (capped at {@link LIMITS.maxProblems}), each with a JSON path relative to the envelope, e.g.
 * `next_actions[1].tool: Required`. A missing or different `kind` is reported as `kind: expected "orchestrated_plan"`.
 * The normalised plan shares `args` objects and unknown-field values with `value`: treat them as read-only.
 */
export function parseEnvelope(value: unknown): ParseEnvelopeResult {
  try {
    return parseEnvelopeUnguarded(value);
  } catch (err) {
    return {
      ok: false,
      problems: [{ path: '', message: `could not read the envelope: ${err instanceof Error ? err.message : String(err)}` }],
    };
  }
}

function parseEnvelopeUnguarded(value: unknown): ParseEnvelopeResult {
  if (!isPlainObject(value)) {
    return {
      ok: false,
      problems: [{ path: '', message: `expected an orchestrated_plan envelope (a JSON object), got ${describeValue(value)}` }],
    };
  }
  const verdict = fastWalk(value, LIMITS);
  if (verdict === 'ok') {
    // Stryker disable next-line BooleanLiteral: equivalent — lintNeeded only saves looking for warnings (see tryNormalise)
    lintNeeded = false;
    const plan = tryNormalise(value);
    if (plan !== FAIL) return withWarnings(plan, value);
  } else if (verdict !== 'bad') {
    return { ok: false, problems: [{ path: '', message: verdict }] };
  }
  // Slow path: zod words every problem, with its path.
  // Stryker disable next-line ConditionalExpression: equivalent — the slow walk finds nothing in a value the fast walk passed
  const problems = verdict === 'bad' ? slowWalk(value, LIMITS) : [];
  const parsed = envelopeSchema.safeParse(value, { error: errorMap });
  if (!parsed.success) problems.push(...zodProblems(parsed.error));
  problems.push(...askUserProblems(value, 'next_actions'), ...askUserProblems(value, 'recovery_actions'));
  if (problems.length > 0) return { ok: false, problems: capProblems(dedupe(problems)) };
  // The schema accepts what the fast path refused: a disagreement between the two (a Plangate bug).
  // Stryker disable all: unreachable while the fast path and the schema agree (envelopeFuzz.test.ts checks that they do)
  return {
    ok: false,
    problems: [{ path: '', message: 'the envelope passed the schema but could not be normalised (a Plangate bug; please report it)' }],
  };
}

// Stryker restore all: (a restore comment must lead a statement; inside the function above it led nothing)
function withWarnings(plan: OrchestratedPlan, raw: Obj): ParseEnvelopeResult {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent where it skips this early return more often — a true only costs a look for warnings that finds none
  if (!lintNeeded && raw.version === '1' && !lacksEmittedFields(raw)) return { ok: true, plan };
  const warnings = lintWarnings(raw);
  return warnings.length > 0 ? { ok: true, plan, warnings } : { ok: true, plan };
}

/** `ask_user` steps are answered locally, so their args must be an `ask` form: {prompt, fields}. */
function askUserProblems(raw: Record<string, unknown>, key: 'next_actions' | 'recovery_actions'): Problem[] {
  const list = raw[key];
  if (!Array.isArray(list)) return [];
  const problems: Problem[] = [];
  // Every step up to the step limit (a longer list is refused for its length), not only until maxProblems: the cap's
  // last line counts the problems it leaves out.
  for (let i = 0; i < Math.min(list.length, LIMITS.maxSteps); i++) {
    const step: unknown = list[i];
    if (!isPlainObject(step) || step.tool !== ASK_USER_TOOL) continue;
    if (absent(step.args)) {
      problems.push({ path: formatPath([key, i, 'args']), message: 'Required: an ask_user step needs args {prompt, fields}' });
      continue;
    }
    // Stryker disable next-line ConditionalExpression: equivalent — the ask check would report the same problem at the same path, and dedupe drops it
    if (!isPlainObject(step.args)) continue; // the schema already reported it
    const r = askUserArgsSchema.safeParse(step.args, { error: errorMap });
    if (!r.success) problems.push(...zodProblems(r.error, [key, i, 'args']));
  }
  return problems;
}

function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  // Stryker disable next-line MethodExpression: equivalent today — see the guard below
  return problems.filter((p) => {
    const k = `${p.path}\u0000${p.message}`;
    // Stryker disable next-line ConditionalExpression,BooleanLiteral: equivalent today — no two checks report one problem twice (askUserProblems skips what the schema reports); kept as a guard
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The JSON Schema (draft 2020-12) of the envelope's wire format, generated from {@link envelopeSchema}:
 * it accepts the lenient forms Plangate reads (any-case or numeric enums, number versions, nulls).
 */
export function envelopeJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(envelopeSchema, { io: 'input', target: 'draft-2020-12', metadata: docs }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return {
    $schema,
    title: 'MCPFlow orchestrated_plan envelope (as read by Plangate)',
    description:
      'The wire format of the MCPFlow `orchestrated_plan` envelope (NuGet MCPFlow 1.x), as Plangate reads it. ' +
      'It describes what Plangate accepts, which is wider than what MCPFlow emits: enum fields take the lowercase name ' +
      '(FlowResult), the name in any letter case (a plan object returned through the C# MCP SDK) or the C# enum number ' +
      '(FlowBuilder.BuildJson); `version` takes "1", the number 1 or a minor form ("1.0", "1.x"); null means absent; ' +
      'unknown fields are allowed and kept. Plangate normalises enums to lowercase names, `version` to "1", and a ' +
      'missing `instruction`, `next_actions` or `args` to "", [] and {}. Steps whose tool is `ask_user` must carry ' +
      '`args` shaped like `ask`. Limits not expressible here: strings (and keys) up to ' +
      `${fmt(LIMITS.maxStringLength)} characters, nesting up to ${LIMITS.maxDepth} levels, ` +
      `${fmt(LIMITS.maxNodes)} values and ${fmt(LIMITS.maxInputChars)} characters in all. ` +
      'Generated from src/core/plan/envelope.ts by scripts/generateSchema.ts; do not edit by hand.',
    ...rest,
  };
}

/** {@link envelopeJsonSchema} as the text of schema/orchestrated-plan.schema.json (2-space indent, final newline). */
export function envelopeJsonSchemaText(): string {
  return `${JSON.stringify(envelopeJsonSchema(), null, 2)}\n`;
}
