// Property-based tests: valid envelopes in every wire form, mutated envelopes (dropped fields, wrong types,
// prototype keys, huge strings, deep nesting, wrong kinds) and random JSON go through parseEnvelope and
// classifyResult (as JSON text, fenced text and structuredContent). Nothing may throw, every refusal must say
// where and why, valid plans must read back to themselves, and Object.prototype must stay untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { runs } from './helpers/fastCheckSeed';
import { LIMITS, envelopeSchema, parseEnvelope } from '../../src/core/plan/envelope';
import { classifyResult } from '../../src/core/plan/classify';
import { ASK_FIELD_TYPES, PARTIAL_OUTCOMES, PLAN_STATUSES, type Problem } from '../../src/core/plan/plan';

type Obj = Record<string, unknown>;

const define = (o: Obj, k: string, v: unknown) =>
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
function build(known: Obj, extras: [string, unknown][]): Obj {
  const o: Obj = {};
  for (const k of Object.keys(known)) define(o, k, known[k]);
  for (const [k, v] of extras) define(o, k, v);
  return o;
}

// ───────────── generators of valid envelopes (every wire form) ─────────────

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const wireEnum = (values: readonly string[]) =>
  fc.oneof(
    fc.constantFrom(...values),
    fc.constantFrom(...values).map(pascal),
    fc.constantFrom(...values).map((s) => s.toUpperCase()),
    fc.nat({ max: values.length - 1 }),
  );
const nullish = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: a, weight: 5 }, { arbitrary: fc.constant(null), weight: 1 }, { arbitrary: fc.constant(undefined), weight: 1 });
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ maxLength: 6, unit: 'binary' }));
const specialKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty');
const extraKey = fc.oneof(
  specialKey,
  fc.string({ maxLength: 6 }).map((s) => `x_${s}`),
);
const extras = fc.array(fc.tuple(extraKey, fc.jsonValue({ maxDepth: 2 })), { maxLength: 2 });
const withExtras = (a: fc.Arbitrary<Obj>) => fc.tuple(a, extras).map(([o, e]) => build(o, e));
const argsArb = fc.oneof(
  fc.dictionary(fc.oneof(text, specialKey), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
  fc.constant(JSON.parse('{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}}}') as Obj),
);

const askField = withExtras(
  fc.record(
    {
      name: fc.string({ minLength: 1, maxLength: 8 }),
      type: nullish(wireEnum(ASK_FIELD_TYPES)),
      required: nullish(fc.boolean()),
      options: nullish(fc.array(text, { maxLength: 3 })),
    },
    { requiredKeys: ['name'] },
  ),
);
const ask = withExtras(fc.record({ prompt: text, fields: nullish(fc.array(askField, { maxLength: 3 })) }, { requiredKeys: ['prompt'] }));
const action = fc.oneof(
  {
    weight: 5,
    arbitrary: withExtras(
      fc.record(
        {
          tool: fc.string({ minLength: 1, maxLength: 10 }).filter((t) => t !== 'ask_user'),
          args: nullish(argsArb),
          label: nullish(text),
          confirm: nullish(fc.boolean()),
        },
        { requiredKeys: ['tool'] },
      ),
    ),
  },
  {
    weight: 1,
    arbitrary: withExtras(
      fc.record({ tool: fc.constant('ask_user'), args: ask, label: nullish(text) }, { requiredKeys: ['tool', 'args'] }),
    ),
  },
);
const issue = withExtras(
  fc.record(
    { code: nullish(text), message: text, field: nullish(text), hint: nullish(text), recoverable: nullish(fc.boolean()) },
    { requiredKeys: ['message'] },
  ),
);
const partial = withExtras(
  fc.record({ step: text, outcome: wireEnum(PARTIAL_OUTCOMES), detail: nullish(text) }, { requiredKeys: ['step', 'outcome'] }),
);
const safety = withExtras(
  fc.record({ writes_code: nullish(fc.boolean()), touches_files: nullish(fc.array(text, { maxLength: 3 })) }, { requiredKeys: [] }),
);

const validEnvelope: fc.Arbitrary<Obj> = withExtras(
  fc.record(
    {
      kind: fc.constant('orchestrated_plan'),
      version: fc.constantFrom('1', 1, '1.0', '1.x', '1.2.3', 1.5),
      status: wireEnum(PLAN_STATUSES),
      instruction: nullish(text),
      next_actions: nullish(fc.array(action, { maxLength: 4 })),
      follow_up: nullish(text),
      errors: nullish(fc.array(issue, { maxLength: 2 })),
      warnings: nullish(fc.array(issue, { maxLength: 2 })),
      missing: nullish(fc.array(text, { maxLength: 3 })),
      partial_results: nullish(fc.array(partial, { maxLength: 3 })),
      ask: nullish(ask),
      recovery_actions: nullish(fc.array(action, { maxLength: 3 })),
      safety: nullish(safety),
      affected_paths: nullish(fc.array(text, { maxLength: 3 })),
      correlation_id: nullish(text),
    },
    { requiredKeys: ['kind', 'version', 'status'] },
  ),
);

// ───────────── mutations ─────────────

type Op = 'drop' | 'retype' | 'nullify' | 'proto' | 'huge' | 'deep' | 'kind' | 'enum' | 'emptyTool';
interface Mutation {
  op: Op;
  pick: number;
  value: unknown;
  depth: number;
  key: string;
}
const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.oneof(
    { weight: 24, arbitrary: fc.constantFrom<Op>('drop', 'retype', 'nullify', 'proto', 'kind', 'enum', 'emptyTool') },
    { weight: 3, arbitrary: fc.constant('deep' as const) },
    { weight: 1, arbitrary: fc.constant('huge' as const) },
  ),
  pick: fc.nat(),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom('OK', 'oK', 'ok ', ' ok', 5, -1, 1.5, '0', true, [], {}, 'Orchestrated_Plan', '2', 2),
  ),
  depth: fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: 58, max: 70 }) },
    { weight: 3, arbitrary: fc.integer({ min: 71, max: 300 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 3000 }) },
  ),
  key: fc.constantFrom('__proto__', 'constructor', 'prototype'),
});

/** Every (container, key) slot in the value, iteratively, capped. */
function slots(root: unknown): { parent: Obj | unknown[]; key: string | number }[] {
  const out: { parent: Obj | unknown[]; key: string | number }[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0 && out.length < 400) {
    const v = stack.pop();
    if (Array.isArray(v))
      v.forEach((x, i) => {
        out.push({ parent: v, key: i });
        stack.push(x);
      });
    else if (v !== null && typeof v === 'object')
      for (const k of Object.keys(v)) {
        out.push({ parent: v as Obj, key: k });
        stack.push((v as Obj)[k]);
      }
  }
  return out;
}

function containers(root: unknown): Obj[] {
  const out: Obj[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0 && out.length < 400) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === 'object') {
      out.push(v as Obj);
      stack.push(...Object.values(v));
    }
  }
  return out;
}

function nest(depth: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

function set(parent: Obj | unknown[], key: string | number, value: unknown) {
  if (Array.isArray(parent)) parent[key as number] = value;
  else define(parent, key as string, value);
}

function mutate(env: Obj, muts: Mutation[]): unknown {
  const root = structuredClone(env) as Obj;
  for (const m of muts) {
    const all = slots(root);
    const slot = all.length > 0 ? all[m.pick % all.length] : undefined;
    switch (m.op) {
      case 'drop':
        if (slot) {
          if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
          else delete slot.parent[slot.key as string];
        }
        break;
      case 'retype':
        if (slot) set(slot.parent, slot.key, m.value);
        break;
      case 'nullify':
        if (slot) set(slot.parent, slot.key, null);
        break;
      case 'proto': {
        const objs = containers(root);
        define(objs[m.pick % objs.length] as Obj, m.key, m.value);
        break;
      }
      case 'huge':
        if (slot) set(slot.parent, slot.key, 'h'.repeat(LIMITS.maxStringLength + 1 + (m.pick % 3)));
        break;
      case 'deep':
        if (slot) set(slot.parent, slot.key, nest(m.depth, m.value));
        break;
      case 'kind':
        if (m.pick % 3 === 0) delete root.kind;
        else define(root, 'kind', m.value);
        break;
      case 'enum': {
        const targets = [root, ...containers(root).filter((o) => 'outcome' in o || 'type' in o)];
        const t = targets[m.pick % targets.length] as Obj;
        define(t, t === root ? 'status' : 'outcome' in t ? 'outcome' : 'type', m.value);
        break;
      }
      case 'emptyTool': {
        const acts = containers(root).filter((o) => 'tool' in o);
        if (acts.length > 0) define(acts[m.pick % acts.length] as Obj, 'tool', m.pick % 2 ? '' : 'ask_user');
        break;
      }
    }
  }
  return root;
}

// ───────────── the properties ─────────────

const PATH = /^(?:(?:[A-Za-z_$][\w$]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])(?:\.[A-Za-z_$][\w$]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])*)?$/;
const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).sort().join(',');
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function checkProblems(problems: Problem[], what: string) {
  assert.ok(problems.length >= 1, `${what}: a refusal without problems`);
  for (const p of problems) {
    assert.equal(typeof p.path, 'string');
    assert.ok(PATH.test(p.path), `${what}: not a JSON path: ${JSON.stringify(p.path)}`);
    assert.ok(typeof p.message === 'string' && p.message.length > 0, `${what}: empty message at ${p.path}`);
    assert.ok(!p.message.includes('Plangate bug'), `${what}: the fast path and the schema disagree: ${p.message}`);
  }
}

let samples = 0;

function check(v: unknown) {
  samples++;
  const r = parseEnvelope(v);
  if (r.ok) {
    const again = parseEnvelope(r.plan);
    assert.ok(again.ok, 'a normalised plan must read again');
    assert.deepStrictEqual(again.plan, r.plan, 'a normalised plan reads back to itself');
    assert.ok(envelopeSchema.safeParse(v).success, 'the fast path accepted what the schema refuses');
    assert.equal(r.plan.kind, 'orchestrated_plan');
    assert.equal(r.plan.version, '1');
    assert.ok((PLAN_STATUSES as readonly string[]).includes(r.plan.status));
    assert.equal(Object.getPrototypeOf(r.plan), Object.prototype);
    for (const step of r.plan.next_actions) assert.ok(isObj(step.args) && step.tool.length > 0);
  } else {
    checkProblems(r.problems, 'parseEnvelope');
  }

  // As structuredContent: the declared kind decides.
  const declares = isObj(v) && v.kind === 'orchestrated_plan';
  const sc = classifyResult({ structuredContent: v, content: [] });
  if (declares) {
    assert.equal(sc.kind, r.ok ? 'plan' : 'invalid_plan');
    if (sc.kind === 'plan' && r.ok) assert.deepStrictEqual(sc.plan, r.plan);
    if (sc.kind === 'invalid_plan' && !r.ok) assert.deepStrictEqual(sc.problems, r.problems);
  } else {
    assert.equal(sc.kind, 'plain');
  }

  // As JSON text and as a fenced block in prose (when it can be written as JSON at all).
  let json: string | undefined;
  try {
    json = JSON.stringify(v);
  } catch {
    json = undefined;
  }
  if (json === undefined) return;
  const reparsed: unknown = JSON.parse(json);
  const rr = parseEnvelope(reparsed);
  const textDeclares = isObj(reparsed) && reparsed.kind === 'orchestrated_plan';
  for (const [wrapped, source] of [
    [json, 'text'],
    [`Here is the plan.\n\n\`\`\`json\n${json}\n\`\`\`\n\nProceed?`, 'fenced'],
  ] as const) {
    const c = classifyResult({ content: [{ type: 'text', text: wrapped }] });
    if (textDeclares) {
      assert.equal(c.kind, rr.ok ? 'plan' : 'invalid_plan', source);
      assert.equal((c as { source?: string }).source, source);
      if (c.kind === 'plan' && rr.ok) assert.deepStrictEqual(c.plan, rr.plan);
      if (c.kind === 'invalid_plan') checkProblems(c.problems, source);
    } else {
      assert.ok(source === 'text' ? c.kind !== 'plan' && c.kind !== 'invalid_plan' : c.kind === 'plain', `${source}: ${c.kind}`);
    }
  }
}

function unpolluted() {
  assert.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(','), PROTO_NAMES, 'Object.prototype gained or lost properties');
  assert.equal(({} as Obj).isAdmin, undefined);
  assert.equal(Object.getPrototypeOf({}), Object.prototype);
}

test('valid envelopes in every wire form read, normalise and read back to themselves', () => {
  fc.assert(
    fc.property(validEnvelope, (env) => {
      const r = parseEnvelope(env);
      if (!r.ok) assert.fail(`a valid envelope was refused: ${JSON.stringify(r.problems)}`);
      check(env);
      unpolluted();
    }),
    { numRuns: runs(3000) },
  );
});

test('mutated envelopes never throw, and every refusal says where and why', () => {
  fc.assert(
    fc.property(validEnvelope, fc.array(mutation, { minLength: 1, maxLength: 3 }), (env, muts) => {
      check(mutate(env, muts));
      unpolluted();
    }),
    { numRuns: runs(6000) },
  );
});

test('random JSON and random values never throw and are never mistaken for plans', () => {
  const withKind = fc
    .dictionary(fc.oneof(fc.string({ maxLength: 12 }), specialKey), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })
    .map((o) => build(o, [['kind', 'orchestrated_plan']]));
  fc.assert(
    fc.property(fc.oneof(fc.jsonValue(), fc.anything(), withKind), (v) => {
      check(v);
      unpolluted();
    }),
    { numRuns: runs(2000) },
  );
  // Prototype keys parsed straight from JSON text.
  for (const text of [
    '{"__proto__":{"kind":"orchestrated_plan","version":"1","status":"ok"}}',
    '{"kind":"orchestrated_plan","version":"1","status":"ok","__proto__":{"next_actions":[{"tool":"rm"}]}}',
    '{"kind":"orchestrated_plan","version":"1","status":"ok","next_actions":[{"tool":"t","__proto__":{"args":{"x":1}}}]}',
    '{"constructor":{"prototype":{"isAdmin":true}},"kind":"orchestrated_plan","version":"1","status":"ok"}',
  ]) {
    check(JSON.parse(text));
    unpolluted();
  }
  assert.ok(samples >= runs(3000) + runs(6000) + runs(2000), `only ${samples} samples ran`);
});
