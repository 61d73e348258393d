import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { envelopeJsonSchemaText, parseEnvelope } from '../../src/core/plan/envelope';
import { SCHEMA_PATH } from '../../scripts/generateSchema';

const REGENERATE = 'run node --import tsx scripts/generateSchema.ts';

test('schema/orchestrated-plan.schema.json matches the zod envelope schema', () => {
  let onDisk: string;
  try {
    onDisk = readFileSync(SCHEMA_PATH, 'utf8');
  } catch {
    assert.fail(`schema/orchestrated-plan.schema.json is missing: ${REGENERATE}`);
  }
  assert.ok(
    onDisk === envelopeJsonSchemaText(),
    `schema/orchestrated-plan.schema.json is out of date with src/core/plan/envelope.ts: ${REGENERATE}`,
  );
});

test('the published schema accepts what Plangate reads and refuses what it refuses (checked by the SDK validator)', () => {
  const schema = JSON.parse(envelopeJsonSchemaText()) as Record<string, unknown>;
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.match(String(schema.description), /any letter case/);
  const validate = new AjvJsonSchemaValidator().getValidator(schema);
  const base = { kind: 'orchestrated_plan', version: '1', status: 'ok' };
  const samples: unknown[] = [
    base,
    { ...base, status: 'Blocked', version: 1 },
    { ...base, status: 4, version: '1.x', instruction: null, next_actions: null },
    { ...base, next_actions: [{ tool: 'a', args: { x: [1, { y: null }] }, label: 'A', confirm: true, extra: 1 }], unknown_top: { a: 1 } },
    {
      ...base,
      status: 'partial',
      partial_results: [
        { step: 's', outcome: 'Failed' },
        { step: 't', outcome: 1, detail: null },
      ],
    },
    {
      ...base,
      status: 'invalid',
      ask: { prompt: 'p', fields: [{ name: 'f', type: 'Select', options: ['a'] }, { name: 'g' }] },
      errors: [{ message: 'm' }],
      warnings: [{ code: 'W', message: 'w', recoverable: null }],
    },
    {
      ...base,
      safety: { writes_code: true, touches_files: ['src/**'] },
      affected_paths: ['a.ts'],
      missing: ['x'],
      correlation_id: 'c',
      follow_up: 'f',
      recovery_actions: [{ tool: 'r' }],
    },
    // refused
    { ...base, kind: 'plan' },
    { ...base, version: '2' },
    { ...base, version: 2 },
    { ...base, status: 'done' },
    { ...base, status: 5 },
    { ...base, status: 1.5 },
    { version: '1', status: 'ok' },
    { ...base, next_actions: [{ args: {} }] },
    { ...base, next_actions: [{ tool: '' }] },
    { ...base, next_actions: [{ tool: 't', args: [] }] },
    { ...base, errors: [{ code: 'X' }] },
    { ...base, ask: { fields: [] } },
    { ...base, ask: { prompt: 'p', fields: [{ name: 'f', type: 'date' }] } },
    { ...base, partial_results: [{ step: 's' }] },
    { ...base, safety: { writes_code: 'yes' } },
    { ...base, instruction: 3 },
    { ...base, next_actions: Array.from({ length: 5001 }, () => ({ tool: 't' })) },
  ];
  for (const sample of samples) {
    const plangate = parseEnvelope(sample).ok;
    const schemaSays = validate(sample).valid;
    assert.equal(
      schemaSays,
      plangate,
      `schema ${schemaSays ? 'accepts' : 'refuses'} but Plangate ${plangate ? 'accepts' : 'refuses'}: ${JSON.stringify(sample).slice(0, 200)}`,
    );
  }
});
