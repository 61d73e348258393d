import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SCHEMA_NODES, validateArgs } from '../../src/core/engine/validateArgs';

/** A tool schema as MCP servers write it: required field, enum, boolean, nested object, no extra fields. */
const SCAFFOLD = {
  type: 'object',
  properties: {
    screen: { type: 'string', minLength: 1 },
    format: { type: 'string', enum: ['json', 'yaml'], default: 'json' },
    dryRun: { type: 'boolean' },
    options: {
      type: 'object',
      properties: { depth: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['depth'],
      additionalProperties: false,
    },
  },
  required: ['screen'],
  additionalProperties: false,
};

const fits = (args: Record<string, unknown>) => validateArgs('plan_scaffold', SCAFFOLD, args);

test('arguments that fit the schema pass', () => {
  assert.equal(fits({ screen: 'Payroll' }), undefined);
  assert.equal(fits({ screen: 'Payroll', format: 'yaml', dryRun: true, options: { depth: 2, tags: ['a'] } }), undefined);
});

test('a missing required field is refused with its name, at the top and inside a nested object', () => {
  assert.equal(fits({}), "The arguments do not fit plan_scaffold's input schema: screen is required.");
  assert.equal(fits({ screen: 'P', options: {} }), "The arguments do not fit plan_scaffold's input schema: options.depth is required.");
});

test('a value of the wrong type is refused with its field path', () => {
  assert.equal(fits({ screen: 3 }), "The arguments do not fit plan_scaffold's input schema: screen must be string.");
  assert.equal(fits({ screen: 'P', dryRun: 'yes' }), "The arguments do not fit plan_scaffold's input schema: dryRun must be boolean.");
  assert.equal(
    fits({ screen: 'P', options: { depth: 'deep' } }),
    "The arguments do not fit plan_scaffold's input schema: options.depth must be integer.",
  );
  assert.equal(
    fits({ screen: 'P', options: { depth: 1, tags: ['a', 7] } }),
    "The arguments do not fit plan_scaffold's input schema: options.tags[1] must be string.",
  );
});

test('a value outside an enum is refused with the allowed values', () => {
  assert.equal(
    fits({ screen: 'P', format: 'xml' }),
    'The arguments do not fit plan_scaffold\'s input schema: format must be one of "json", "yaml".',
  );
});

test('an extra field where additionalProperties is false is refused by its own name', () => {
  assert.equal(
    fits({ screen: 'P', colour: 'red' }),
    "The arguments do not fit plan_scaffold's input schema: colour is not a field of the arguments.",
  );
  assert.equal(
    fits({ screen: 'P', options: { depth: 1, width: 3 } }),
    "The arguments do not fit plan_scaffold's input schema: options.width is not a field of options.",
  );
});

test('every problem is named, up to five, the rest counted', () => {
  assert.equal(
    fits({ screen: '', format: 1, dryRun: 0, options: { depth: -1 }, a: 1, b: 2, c: 3 }),
    "The arguments do not fit plan_scaffold's input schema: a is not a field of the arguments; b is not a field of the arguments; " +
      'c is not a field of the arguments; screen must NOT have fewer than 1 characters; format must be string; and 3 more.',
  );
});

test('no schema, or one Ajv cannot compile, leaves the check to the server', () => {
  assert.equal(validateArgs('t', undefined, { a: 1 }), undefined);
  assert.equal(validateArgs('t', { $ref: '#/$defs/missing' }, { a: 1 }), undefined);
  assert.equal(validateArgs('t', { $ref: 'https://example.com/remote.json' }, { a: 1 }), undefined);
  assert.equal(validateArgs('t', { type: 'object', properties: { a: { type: 'no-such-type' } } }, { a: 1 }), undefined);
});

test('a schema whose $ref recurses into itself neither hangs nor throws', () => {
  // `$ref: '#'` at the root re-checks the same value forever: Ajv overflows the stack on any input.
  const selfLoop = { type: 'object', $ref: '#' };
  assert.equal(validateArgs('t', selfLoop, { a: 1 }), undefined);
  assert.equal(validateArgs('t', selfLoop, { a: 1 }), undefined, 'a second call (cached validator) behaves the same');

  // A recursive definition is legitimate and still checked, however deep the data goes.
  const tree = {
    $defs: { node: { type: 'object', properties: { child: { $ref: '#/$defs/node' }, name: { type: 'string' } } } },
    $ref: '#/$defs/node',
  };
  assert.equal(validateArgs('t', tree, { child: { child: { name: 'leaf' } } }), undefined);
  assert.equal(
    validateArgs('t', tree, { child: { child: { name: 5 } } }),
    "The arguments do not fit t's input schema: child.child.name must be string.",
  );
  let deep: Record<string, unknown> = { name: 'leaf' };
  for (let i = 0; i < 20_000; i++) deep = { child: deep };
  assert.doesNotThrow(() => validateArgs('t', tree, deep));
});

test('a huge schema is left to the server instead of freezing the window while it compiles', { timeout: 20_000 }, () => {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 20_000; i++) properties[`p${i}`] = { type: 'string', pattern: '^a+$' };
  // p1 breaks its pattern: a compiled check would refuse it, so `undefined` proves the schema was not compiled.
  assert.equal(validateArgs('t', { type: 'object', properties }, { p1: 'b' }), undefined);

  const small: Record<string, unknown> = {};
  for (let i = 0; i < MAX_SCHEMA_NODES / 4; i++) small[`p${i}`] = { type: 'string', pattern: '^a+$' };
  assert.equal(
    validateArgs('t', { type: 'object', properties: small }, { p1: 'b' }),
    'The arguments do not fit t\'s input schema: p1 must match pattern "^a+$".',
  );
});

test('a schema object that refers to itself (not through $ref) does not loop the size check', () => {
  const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
  (cyclic.properties as Record<string, unknown>).self = cyclic;
  assert.doesNotThrow(() => validateArgs('t', cyclic, { self: {} }));
});
