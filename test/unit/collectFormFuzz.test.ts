// The reliability suite's fuzz for collect-mode forms: generated and mutated mcp-rune form payloads, whole tool
// results around them, never throw; every refusal names a JSON path; __proto__/constructor keys stay plain data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { runs } from './helpers/fastCheckSeed';
import { classifyResult } from '../../src/core/plan/classify';
import { FORM_FIELD_TYPES, parseCollectForm } from '../../src/core/plan/collectForm';
import { toFieldValue, validateFormValues } from '../../src/core/forms/values';

type Obj = Record<string, unknown>;
const PROTO_NAMES = Object.getOwnPropertyNames(Object.prototype).sort().join(',');
const PATH = /^(?:(?:[A-Za-z_$][\w$]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])(?:\.[A-Za-z_$][\w$]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])*)?$/;

const name = fc.stringMatching(/^[a-z][a-z_]{0,11}$/);
const option = fc.record({ value: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), label: fc.string({ maxLength: 12 }) });
const field = fc.record({
  name,
  label: fc.string({ maxLength: 20 }),
  group: fc.constantFrom('main', 'extra'),
  required: fc.boolean(),
  type: fc.constantFrom(...FORM_FIELD_TYPES, 'weird'),
  description: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
  options: fc.option(fc.array(option, { maxLength: 4 }), { nil: undefined }),
  default: fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined }),
});
const payload = fc.record({
  schema: fc.record({
    model: fc.constantFrom('Contact', 'Project', '__proto__', 'constructor'),
    title: fc.string({ maxLength: 20 }),
    fieldsets: fc.constant([{ key: 'a', title: 'A', description: '', required: false, groups: ['main', 'extra'] }]),
    fields: fc.array(field, { minLength: 1, maxLength: 8 }),
  }),
  defaults: fc.dictionary(name, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  mode: fc.constantFrom('create', 'update'),
  submitMode: fc.constantFrom('direct', 'collect'),
  hiddenValues: fc.option(fc.dictionary(name, fc.string({ maxLength: 8 }), { maxKeys: 3 }), { nil: undefined }),
  recordId: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
});

/** Mutations: drop, retype or poison a field somewhere in the payload. */
const mutation = fc.record({ at: fc.nat(), kind: fc.nat(5), value: fc.jsonValue({ maxDepth: 2 }) });

function mutate(p: Obj, muts: { at: number; kind: number; value: unknown }[]): unknown {
  const root = JSON.parse(JSON.stringify(p)) as Obj;
  for (const m of muts) {
    const objects: Obj[] = [];
    const walk = (v: unknown) => {
      if (v && typeof v === 'object') {
        if (!Array.isArray(v)) objects.push(v as Obj);
        for (const x of Object.values(v as Obj)) walk(x);
      }
    };
    walk(root);
    const target = objects[m.at % objects.length];
    const keys = Object.keys(target);
    const key = keys.length ? keys[m.at % keys.length] : 'x';
    const set = (k: string, v: unknown) =>
      Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true });
    switch (m.kind) {
      case 0:
        delete target[key];
        break;
      case 1:
        set(key, m.value);
        break;
      case 2:
        set('__proto__', { isAdmin: true });
        break;
      case 3:
        set('constructor', { prototype: { isAdmin: true } });
        break;
      case 4:
        set(key, 'x'.repeat(5000));
        break;
      default:
        set(key, null);
    }
  }
  return root;
}

function check(value: unknown): void {
  const parsed = parseCollectForm(value);
  if (parsed.ok) {
    const values: Obj = {};
    for (const f of parsed.form.schema.fields) {
      const v = toFieldValue(f, parsed.form.defaults[f.name] ?? f.default);
      if (v !== undefined) Object.defineProperty(values, f.name, { value: v, enumerable: true, writable: true, configurable: true });
    }
    for (const p of validateFormValues(parsed.form.schema, values)) assert.ok(typeof p.message === 'string' && p.message.length > 0);
  } else {
    assert.ok(parsed.problems.length > 0, 'a refusal names at least one problem');
    for (const p of parsed.problems) assert.ok(PATH.test(p.path) && p.message.length > 0, `problem ${JSON.stringify(p)}`);
  }
  // The same payload as a whole tool result: a JSON text block, prose around it, or with isError.
  const text = JSON.stringify(value);
  for (const result of [
    { content: [{ type: 'text', text }] },
    {
      content: [
        { type: 'text', text: `Here is the form:\n${text}` },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      ],
    },
    { content: [{ type: 'text', text }], isError: true },
    { structuredContent: value, content: [] },
  ]) {
    const c = classifyResult(result, { tool: 'new_model_app' });
    assert.ok(['plan', 'invalid_plan', 'collect_form', 'collect_error', 'plain'].includes(c.kind));
  }
  assert.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(','), PROTO_NAMES, 'Object.prototype was polluted');
  assert.equal(({} as Obj).isAdmin, undefined);
}

test('generated collect-form payloads read as forms, their values convert and validate without throwing', () => {
  let forms = 0;
  fc.assert(
    fc.property(payload, (p) => {
      const parsed = parseCollectForm(p);
      if (parsed.ok) forms++;
      const c = classifyResult({ content: [{ type: 'text', text: JSON.stringify(p) }] }, { tool: 'new_model_app' });
      if (parsed.ok) assert.equal(c.kind, 'collect_form', 'a payload that parses is classified as a form');
      check(p);
    }),
    { numRuns: runs(1500) },
  );
  assert.ok(forms > (runs(1500) * 2) / 3, `most generated payloads are valid forms (${forms} of ${runs(1500)})`);
});

test('mutated collect-form payloads in whole tool results never throw and every refusal names a path', () => {
  fc.assert(
    fc.property(payload, fc.array(mutation, { minLength: 1, maxLength: 4 }), (p, muts) => check(mutate(p as Obj, muts))),
    { numRuns: runs(2500) },
  );
});
