import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS, envelopeSchema, formatPath, formatProblem, parseEnvelope, type ParseEnvelopeResult } from '../../src/core/plan/envelope';
import type { OrchestratedPlan, Problem } from '../../src/core/plan/plan';

// The MCPFlow README examples (commit ac4d52b), verbatim.
const README_SUCCESS = `{
"kind": "orchestrated_plan",
"version": "1",
"status": "ok",
"instruction": "Scaffold Payroll screen and components.",
"next_actions": [
{
"tool": "create_screen",
"args": {
"screen": "Payroll",
"components": ["OvertimeStartDaySelector", "PayPeriodConfigurator", "PTCHoursOverride"]
}
}
],
"follow_up": "Wire the new components to the API now?",
"safety": {
"writes_code": true,
"touches_files": ["src/modules/payroll/**"]
}
}`;

const README_NOT_FOUND = `{
"kind": "orchestrated_plan",
"version": "1",
"status": "error",
"instruction": "Cannot proceed: componentId 'abc123' not found.",
"errors": [
{
"code": "NOT_FOUND",
"field": "componentId",
"message": "No match for 'abc123'",
"hint": "Select from detected components",
"recoverable": true
}
],
"missing": ["componentId"],
"ask": {
"prompt": "Choose a valid component or create a placeholder.",
"fields": [{ "name": "componentId", "type": "select", "required": true }]
},
"recovery_actions": [
{ "tool": "list_detected_components", "args": { "screen": "Payroll" } },
{
"tool": "create_placeholder_component",
"args": { "name": "NewComponent" },
"label": "Create placeholder (safe)",
"confirm": true
}
],
"follow_up": "After fixing the component, wire API connections?"
}`;

const README_INVALID = `{
"kind": "orchestrated_plan",
"version": "1",
"status": "invalid",
"instruction": "Input failed validation.",
"errors": [
{ "code": "REQUIRED", "field": "screen", "message": "Missing 'screen'" },
{ "code": "TYPE", "field": "components", "message": "Expected array of strings" }
],
"ask": {
"prompt": "Provide the missing/invalid fields.",
"fields": [
{ "name": "screen", "type": "string", "required": true },
{ "name": "components", "type": "string" }
]
},
"follow_up": "Proceed to scaffolding once valid?"
}`;

const README_BLOCKED = `{
"kind": "orchestrated_plan",
"version": "1",
"status": "blocked",
"instruction": "Blocked: target path is read-only.",
"errors": [{
"code": "PERMISSION",
"message": "Read-only file system",
"recoverable": false
}],
"recovery_actions": [{ "tool": "select_output_directory", "args": {} }],
"follow_up": "Retry scaffolding after selecting a writable path?"
}`;

const README_PARTIAL = `{
"kind": "orchestrated_plan",
"version": "1",
"status": "partial",
"instruction": "Scaffolded some components; a few failed.",
"partial_results": [
{ "step": "create_screen", "outcome": "ok", "detail": "Base page created" },
{ "step": "create_component:PTCHoursOverride", "outcome": "failed", "detail": "Template missing" }
],
"recovery_actions": [{
"tool": "create_placeholder_component",
"args": { "name": "PTCHoursOverride" }
}],
"follow_up": "Continue by wiring API for the completed components?"
}`;

function ok(r: ParseEnvelopeResult): OrchestratedPlan {
  if (!r.ok) assert.fail(`expected a valid envelope, got:\n${r.problems.map(formatProblem).join('\n')}`);
  return r.plan;
}

function problems(r: ParseEnvelopeResult): Problem[] {
  if (r.ok) assert.fail(`expected problems, got a plan: ${JSON.stringify(r.plan)}`);
  assert.ok(r.problems.length > 0);
  return r.problems;
}

const lines = (r: ParseEnvelopeResult) => problems(r).map(formatProblem);
const base = (extra: Record<string, unknown> = {}) => ({ kind: 'orchestrated_plan', version: '1', status: 'ok', ...extra });

test('the README success example reads as an ok plan with its step, follow-up and safety', () => {
  const plan = ok(parseEnvelope(JSON.parse(README_SUCCESS)));
  assert.deepEqual(plan, {
    kind: 'orchestrated_plan',
    version: '1',
    status: 'ok',
    instruction: 'Scaffold Payroll screen and components.',
    next_actions: [
      {
        tool: 'create_screen',
        args: { screen: 'Payroll', components: ['OvertimeStartDaySelector', 'PayPeriodConfigurator', 'PTCHoursOverride'] },
      },
    ],
    follow_up: 'Wire the new components to the API now?',
    safety: { writes_code: true, touches_files: ['src/modules/payroll/**'] },
  });
});

test('the README "ID not found" example: errors, missing, ask, recovery actions, and no steps', () => {
  const plan = ok(parseEnvelope(JSON.parse(README_NOT_FOUND)));
  assert.equal(plan.status, 'error');
  assert.deepEqual(plan.next_actions, [], 'a missing next_actions is []');
  assert.deepEqual(plan.errors, [
    {
      code: 'NOT_FOUND',
      field: 'componentId',
      message: "No match for 'abc123'",
      hint: 'Select from detected components',
      recoverable: true,
    },
  ]);
  assert.deepEqual(plan.missing, ['componentId']);
  assert.deepEqual(plan.ask, {
    prompt: 'Choose a valid component or create a placeholder.',
    fields: [{ name: 'componentId', type: 'select', required: true }],
  });
  assert.deepEqual(plan.recovery_actions, [
    { tool: 'list_detected_components', args: { screen: 'Payroll' } },
    { tool: 'create_placeholder_component', args: { name: 'NewComponent' }, label: 'Create placeholder (safe)', confirm: true },
  ]);
  assert.equal(plan.follow_up, 'After fixing the component, wire API connections?');
});

test('the README invalid, blocked and partial examples read with their statuses and details', () => {
  const invalid = ok(parseEnvelope(JSON.parse(README_INVALID)));
  assert.equal(invalid.status, 'invalid');
  assert.deepEqual(
    invalid.errors?.map((e) => [e.code, e.field]),
    [
      ['REQUIRED', 'screen'],
      ['TYPE', 'components'],
    ],
  );
  assert.deepEqual(invalid.ask?.fields, [
    { name: 'screen', type: 'string', required: true },
    { name: 'components', type: 'string' },
  ]);

  const blocked = ok(parseEnvelope(JSON.parse(README_BLOCKED)));
  assert.equal(blocked.status, 'blocked');
  assert.deepEqual(blocked.errors, [{ code: 'PERMISSION', message: 'Read-only file system', recoverable: false }]);
  assert.deepEqual(blocked.recovery_actions, [{ tool: 'select_output_directory', args: {} }]);

  const partial = ok(parseEnvelope(JSON.parse(README_PARTIAL)));
  assert.equal(partial.status, 'partial');
  assert.deepEqual(partial.partial_results, [
    { step: 'create_screen', outcome: 'ok', detail: 'Base page created' },
    { step: 'create_component:PTCHoursOverride', outcome: 'failed', detail: 'Template missing' },
  ]);
  assert.deepEqual(partial.recovery_actions, [{ tool: 'create_placeholder_component', args: { name: 'PTCHoursOverride' } }]);
});

test('every status reads the same as lowercase, PascalCase, upper case and C# number', () => {
  const statuses = ['ok', 'error', 'invalid', 'blocked', 'partial'] as const;
  statuses.forEach((status, n) => {
    for (const wire of [status, status.charAt(0).toUpperCase() + status.slice(1), status.toUpperCase(), n]) {
      assert.equal(ok(parseEnvelope(base({ status: wire }))).status, status, `status ${JSON.stringify(wire)}`);
    }
  });
});

test('ask field types and partial outcomes read in every encoding', () => {
  (['string', 'number', 'select'] as const).forEach((type, n) => {
    for (const wire of [type, type.charAt(0).toUpperCase() + type.slice(1), n]) {
      const plan = ok(
        parseEnvelope(base({ status: 'invalid', ask: { prompt: 'p', fields: [{ name: 'f', type: wire, required: false }] } })),
      );
      assert.equal(plan.ask?.fields?.[0]?.type, type, `type ${JSON.stringify(wire)}`);
    }
  });
  (['ok', 'skipped', 'failed'] as const).forEach((outcome, n) => {
    for (const wire of [outcome, outcome.charAt(0).toUpperCase() + outcome.slice(1), n]) {
      const plan = ok(parseEnvelope(base({ status: 'partial', partial_results: [{ step: 's', outcome: wire }] })));
      assert.equal(plan.partial_results?.[0]?.outcome, outcome, `outcome ${JSON.stringify(wire)}`);
    }
  });
  assert.equal(
    ok(parseEnvelope(base({ ask: { prompt: 'p', fields: [{ name: 'f' }] } }))).ask?.fields?.[0]?.type,
    'string',
    'a missing ask type is "string"',
  );
});

test('a wrong enum names the field, the accepted values and what came', () => {
  assert.deepEqual(lines(parseEnvelope(base({ status: 'done' }))), [
    'status: expected one of ok, error, invalid, blocked, partial (or 0–4), got "done"',
  ]);
  assert.deepEqual(lines(parseEnvelope(base({ status: 5 }))), [
    'status: expected one of ok, error, invalid, blocked, partial (or 0–4), got 5',
  ]);
  assert.deepEqual(lines(parseEnvelope(base({ status: 1.5 }))), [
    'status: expected one of ok, error, invalid, blocked, partial (or 0–4), got 1.5',
  ]);
  assert.deepEqual(lines(parseEnvelope(base({ ask: { prompt: 'p', fields: [{ name: 'f', type: 'date' }] } }))), [
    'ask.fields[0].type: expected one of string, number, select (or 0–2), got "date"',
  ]);
  assert.deepEqual(lines(parseEnvelope(base({ partial_results: [{ step: 's', outcome: 3 }] }))), [
    'partial_results[0].outcome: expected one of ok, skipped, failed (or 0–2), got 3',
  ]);
  assert.deepEqual(lines(parseEnvelope({ kind: 'orchestrated_plan', version: '1' })), ['status: Required']);
});

test('version 1 comes as "1", 1, "1.0" or "1.x" and reads as "1"; another major version is refused', () => {
  for (const v of ['1', 1, '1.0', '1.x', '1.2.3', 1.0])
    assert.equal(ok(parseEnvelope(base({ version: v }))).version, '1', `version ${JSON.stringify(v)}`);
  for (const [v, major] of [
    ['2', 2],
    [2, 2],
    ['2.0', 2],
    ['0.9', 0],
    [3, 3],
  ] as const) {
    assert.deepEqual(lines(parseEnvelope(base({ version: v }))), [
      `version: major version ${major} is not supported; Plangate reads version 1`,
    ]);
  }
  assert.deepEqual(lines(parseEnvelope(base({ version: 'one' }))), ['version: expected "1" (or 1, "1.0", "1.x"), got "one"']);
  assert.deepEqual(lines(parseEnvelope({ kind: 'orchestrated_plan', status: 'ok' })), ['version: Required']);
});

test('missing instruction, next_actions and args read as "", [] and {}; nulls read as absent', () => {
  const plan = ok(parseEnvelope(base({ next_actions: [{ tool: 'a' }, { tool: 'b', args: null, label: null, confirm: null }] })));
  assert.equal(plan.instruction, '');
  assert.deepEqual(plan.next_actions, [
    { tool: 'a', args: {} },
    { tool: 'b', args: {} },
  ]);

  const nulls = ok(
    parseEnvelope(
      base({
        instruction: null,
        next_actions: null,
        follow_up: null,
        errors: null,
        warnings: null,
        missing: null,
        partial_results: null,
        ask: null,
        recovery_actions: null,
        safety: null,
        affected_paths: null,
        correlation_id: null,
      }),
    ),
  );
  assert.deepEqual(nulls, { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: '', next_actions: [] });
  assert.deepEqual(ok(parseEnvelope(base({ errors: [{ message: 'm', code: null, hint: null }] }))).errors, [{ code: '', message: 'm' }]);
});

test('unknown fields are kept at every level, and the normalised plan reads back to itself', () => {
  const plan = ok(
    parseEnvelope({
      ...base({ status: 'Ok' }),
      server_note: { any: ['thing'] },
      next_actions: [{ tool: 't', args: { a: 1 }, timeout_ms: 5000 }],
      errors: [{ code: 'X', message: 'm', docs: 'https://x' }],
      ask: { prompt: 'p', layout: 'row', fields: [{ name: 'f', type: 2, options: ['a'], placeholder: 'pick' }] },
      safety: { writes_code: false, touches_files: [], network: true },
      partial_results: [{ step: 's', outcome: 'Skipped', took_ms: 3 }],
    }),
  );
  assert.deepEqual(plan.server_note, { any: ['thing'] });
  assert.equal(plan.next_actions[0]?.timeout_ms, 5000);
  assert.equal(plan.errors?.[0]?.docs, 'https://x');
  assert.equal(plan.ask?.layout, 'row');
  assert.equal(plan.ask?.fields?.[0]?.placeholder, 'pick');
  assert.equal(plan.safety?.network, true);
  assert.equal(plan.partial_results?.[0]?.took_ms, 3);
  assert.deepEqual(ok(parseEnvelope(plan)), plan);
  assert.deepEqual(ok(parseEnvelope(JSON.parse(JSON.stringify(plan)))), plan, 'survives a JSON round trip');
});

test('every problem is reported at once, each with its path', () => {
  const r = parseEnvelope({
    kind: 'orchestrated_plan',
    version: '1',
    status: 'ok',
    instruction: 42,
    next_actions: [{ tool: 'ok' }, { args: {} }, { tool: '', args: [] }, 'step'],
    errors: [{ code: 'X' }],
    ask: { fields: [{ name: 'x', required: 'yes' }] },
    safety: { writes_code: 'true', touches_files: 'src/**' },
    affected_paths: [1],
  });
  assert.deepEqual(lines(r), [
    'instruction: expected a string, got 42',
    'next_actions[1].tool: Required',
    'next_actions[2].tool: expected a tool name, got an empty string',
    'next_actions[2].args: expected an object, got an array',
    'next_actions[3]: expected an object, got "step"',
    'errors[0].message: Required',
    'ask.prompt: Required',
    'ask.fields[0].required: expected true or false, got "yes"',
    'safety.writes_code: expected true or false, got "true"',
    'safety.touches_files: expected an array, got "src/**"',
    'affected_paths[0]: expected a string, got 1',
  ]);
});

test('a missing or different kind is reported at kind; a non-object is reported at the envelope', () => {
  assert.deepEqual(lines(parseEnvelope({ version: '1', status: 'ok' })), ['kind: expected "orchestrated_plan"']);
  assert.deepEqual(lines(parseEnvelope({ kind: 'plan', version: '1', status: 'ok' })), ['kind: expected "orchestrated_plan", got "plan"']);
  for (const v of [null, undefined, 'text', 42, [], true]) {
    const p = problems(parseEnvelope(v));
    assert.equal(p.length, 1);
    assert.equal(p[0]?.path, '');
    assert.match(p[0]?.message ?? '', /^expected an orchestrated_plan envelope \(a JSON object\), got /);
  }
});

test('__proto__, constructor and prototype keys stay plain data and never pollute anything', () => {
  const text =
    '{"kind":"orchestrated_plan","version":"1","status":"ok","__proto__":{"polluted":true,"follow_up":"injected","errors":[{"code":"X","message":"fake"}]},' +
    '"constructor":{"prototype":{"polluted":true}},"prototype":1,' +
    '"next_actions":[{"tool":"t","args":{"__proto__":{"polluted":true},"constructor":"c"},"__proto__":{"confirm":true}}],' +
    '"safety":{"__proto__":{"writes_code":true}}}';
  const plan = ok(parseEnvelope(JSON.parse(text)));
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype is untouched');
  assert.equal(Object.getPrototypeOf(plan), Object.prototype);
  assert.equal(plan.follow_up, undefined, 'no field is inherited from a __proto__ key');
  assert.equal(plan.errors, undefined);
  assert.ok(Object.hasOwn(plan, '__proto__'), 'the __proto__ key is kept as an own field');
  assert.deepEqual(Object.getOwnPropertyDescriptor(plan, '__proto__')?.value, {
    polluted: true,
    follow_up: 'injected',
    errors: [{ code: 'X', message: 'fake' }],
  });
  assert.deepEqual(plan.constructor, { prototype: { polluted: true } });
  const step = plan.next_actions[0];
  assert.ok(step);
  assert.equal(Object.getPrototypeOf(step), Object.prototype);
  assert.equal(step.confirm, undefined);
  assert.ok(Object.hasOwn(step.args, '__proto__'));
  assert.equal(Object.getPrototypeOf(step.args), Object.prototype);
  assert.equal(plan.safety?.writes_code, undefined);
  assert.deepEqual(ok(parseEnvelope(plan)), plan, 'reads back to itself');
  assert.deepEqual(JSON.parse(JSON.stringify(plan)), plan, 'serialises back to the same data');
  assert.match(JSON.stringify(plan), /"__proto__":\{"polluted":true,"follow_up":"injected"/);

  // A plan hidden behind __proto__ is not a plan.
  assert.deepEqual(lines(parseEnvelope(JSON.parse('{"__proto__":{"kind":"orchestrated_plan","version":"1","status":"ok"}}'))), [
    'kind: expected "orchestrated_plan"',
    'version: Required',
    'status: Required',
  ]);
});

test('ask_user steps must carry an ask form as args, and their field types are normalised', () => {
  const plan = ok(
    parseEnvelope(
      base({
        next_actions: [
          {
            tool: 'ask_user',
            args: { prompt: 'Which?', fields: [{ name: 'env', type: 'Select', options: ['dev', 'prod'], required: true }] },
          },
        ],
      }),
    ),
  );
  assert.deepEqual(plan.next_actions[0]?.args, {
    prompt: 'Which?',
    fields: [{ name: 'env', type: 'select', options: ['dev', 'prod'], required: true }],
  });
  assert.deepEqual(lines(parseEnvelope(base({ next_actions: [{ tool: 'ask_user' }] }))), [
    'next_actions[0].args: Required: an ask_user step needs args {prompt, fields}',
  ]);
  assert.deepEqual(
    lines(parseEnvelope(base({ recovery_actions: [{ tool: 'x' }, { tool: 'ask_user', args: { fields: [{ type: 9 }] } }] }))),
    [
      'recovery_actions[1].args.prompt: Required',
      'recovery_actions[1].args.fields[0].name: Required',
      'recovery_actions[1].args.fields[0].type: expected one of string, number, select (or 0–2), got 9',
    ],
  );
});

test('limits: steps, issues and list lengths', () => {
  const steps = (n: number) => Array.from({ length: n }, (_, i) => ({ tool: `t${i}` }));
  assert.equal(ok(parseEnvelope(base({ next_actions: steps(LIMITS.maxSteps) }))).next_actions.length, 5000);
  assert.deepEqual(lines(parseEnvelope(base({ next_actions: steps(LIMITS.maxSteps + 1) }))), [
    'next_actions: 5,001 steps; Plangate reads at most 5,000',
  ]);
  assert.deepEqual(lines(parseEnvelope(base({ recovery_actions: steps(LIMITS.maxSteps + 1) }))), [
    'recovery_actions: 5,001 recovery actions; Plangate reads at most 5,000',
  ]);
  const issues = Array.from({ length: LIMITS.maxIssues + 1 }, () => ({ code: 'W', message: 'm' }));
  assert.deepEqual(lines(parseEnvelope(base({ warnings: issues }))), ['warnings: 1,001 entries; Plangate reads at most 1,000']);
  assert.deepEqual(lines(parseEnvelope(base({ missing: Array.from({ length: LIMITS.maxListItems + 1 }, () => 'x') }))), [
    'missing: 10,001 entries; Plangate reads at most 10,000',
  ]);
});

test('limits: a string over 1 MB anywhere is refused with its path', () => {
  const big = 'x'.repeat(LIMITS.maxStringLength + 1);
  assert.equal(ok(parseEnvelope(base({ instruction: 'x'.repeat(LIMITS.maxStringLength) }))).instruction.length, LIMITS.maxStringLength);
  assert.deepEqual(lines(parseEnvelope(base({ next_actions: [{ tool: 't', args: { files: [{ content: big }] } }] }))), [
    'next_actions[0].args.files[0].content: a string of 1,048,577 characters is longer than the limit of 1,048,576',
  ]);
  const key = 'k'.repeat(LIMITS.maxStringLength + 1);
  const p = problems(parseEnvelope(base({ extra: { [key]: 1 } })));
  assert.equal(p.length, 1);
  assert.match(p[0]?.message ?? '', /^a key of 1,048,577 characters is longer than the limit/);
  assert.ok((p[0]?.path.length ?? 0) < 300, 'a huge key is shortened in the path');
});

test('limits: nesting deeper than 64 levels is refused without recursion, even 10,000 and 100,000 levels deep', () => {
  const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  // The envelope is level 1, next_actions 2, the step 3, args 4: args may hold 60 more levels.
  assert.ok(
    parseEnvelope(JSON.parse(`{"kind":"orchestrated_plan","version":"1","status":"ok","next_actions":[{"tool":"t","args":${nested(61)}}]}`))
      .ok,
  );
  const over = lines(
    parseEnvelope(
      JSON.parse(`{"kind":"orchestrated_plan","version":"1","status":"ok","next_actions":[{"tool":"t","args":${nested(62)}}]}`),
    ),
  );
  assert.deepEqual(over, [
    `next_actions[0].args${'.a'.repeat(61)}: objects and arrays are nested more than 64 levels deep here; Plangate reads at most 64 levels`,
  ]);
  for (const depth of [10_000, 100_000]) {
    const deep = JSON.parse(
      `{"kind":"orchestrated_plan","version":"1","status":"ok","next_actions":[{"tool":"t","args":${nested(depth)}}],"x":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    );
    const p = problems(parseEnvelope(deep));
    assert.equal(p.length, 2, `depth ${depth}`);
    assert.match(p[0]?.path ?? '', /^next_actions\[0\]\.args(\.a)+$/);
    assert.equal(p[1]?.path, `x${'[0]'.repeat(63)}`);
  }
});

test('limits: too many values or too much text stops the read with one problem', () => {
  const many = { ...base(), extra: new Array(LIMITS.maxNodes).fill(0) };
  assert.deepEqual(lines(parseEnvelope(many)), [`the envelope holds more than 1,000,000 JSON values; Plangate reads at most that many`]);
  const chunk = 'y'.repeat(LIMITS.maxStringLength);
  const wide = { ...base(), extra: new Array(17).fill(chunk) };
  assert.deepEqual(lines(parseEnvelope(wide)), ['the envelope is larger than 16,777,216 characters; Plangate reads at most that much']);
});

test('problems are capped, with a last line counting the rest', () => {
  const r = parseEnvelope(base({ next_actions: Array.from({ length: 300 }, () => ({})) }));
  const p = problems(r);
  assert.equal(p.length, LIMITS.maxProblems + 1);
  assert.equal(p[0]?.path, 'next_actions[0].tool');
  assert.deepEqual(p.at(-1), { path: '', message: '…and 200 more problems (only the first 100 are listed)' });
});

test('non-JSON values (functions, class instances, bigint) are refused, not read', () => {
  class Thing {
    x = 1;
  }
  assert.deepEqual(lines(parseEnvelope(base({ next_actions: [{ tool: 't', args: { f: () => 1, t: new Thing(), n: 1n } }] }))), [
    'next_actions[0].args.f: not JSON data (a function)',
    'next_actions[0].args.t: not JSON data (an object of class Thing)',
    'next_actions[0].args.n: not JSON data (a bigint)',
  ]);
  const throwing = base();
  Object.defineProperty(throwing, 'instruction', {
    enumerable: true,
    get() {
      throw new Error('boom');
    },
  });
  assert.deepEqual(lines(parseEnvelope(throwing)), ['could not read the envelope: boom']);
});

test('warnings point at camelCase field names and non-canonical versions', () => {
  const r = parseEnvelope(base({ version: 1, nextActions: [{ tool: 't' }], safety: { writesCode: true } }));
  assert.ok(r.ok);
  assert.deepEqual(r.warnings, [
    { path: 'nextActions', message: 'unknown field kept as is; MCPFlow spells it "next_actions"' },
    { path: 'safety.writesCode', message: 'unknown field kept as is; MCPFlow spells it "writes_code"' },
    { path: 'version', message: '1 read as version "1" (MCPFlow emits the string "1")' },
    { path: 'instruction', message: 'missing, read as ""; MCPFlow always emits it ("" when there is nothing to say)' },
    { path: 'next_actions', message: 'missing, read as []; MCPFlow always emits it ([] when there are no steps)' },
  ]);
  const clean = parseEnvelope(JSON.parse(README_SUCCESS));
  assert.ok(clean.ok && clean.warnings === undefined);
});

test('fields MCPFlow always emits but the envelope lacks are read with their defaults and named in warnings', () => {
  const r = parseEnvelope({
    kind: 'orchestrated_plan',
    version: '1',
    status: 'error',
    instruction: null,
    errors: [{ code: 'NOT_FOUND', message: 'a' }, { message: 'no code' }],
    warnings: [{ code: null, message: 'null code' }],
    ask: { prompt: 'p', fields: [{ name: 'x', type: 'select' }, { name: 'y' }] },
  });
  assert.ok(r.ok);
  assert.equal(r.plan.instruction, '');
  assert.deepEqual(r.plan.next_actions, []);
  assert.equal(r.plan.errors?.[1]?.code, '');
  assert.equal(r.plan.ask?.fields?.[1]?.type, 'string');
  assert.deepEqual(r.warnings, [
    { path: 'instruction', message: 'missing, read as ""; MCPFlow always emits it ("" when there is nothing to say)' },
    { path: 'next_actions', message: 'missing, read as []; MCPFlow always emits it ([] when there are no steps)' },
    { path: 'errors[1].code', message: 'missing, read as ""; MCPFlow always emits it (e.g. NOT_FOUND, INVALID, PERMISSION)' },
    { path: 'warnings[0].code', message: 'missing, read as ""; MCPFlow always emits it (e.g. NOT_FOUND, INVALID, PERMISSION)' },
    { path: 'ask.fields[1].type', message: 'missing, read as "string"; MCPFlow always emits it' },
  ]);
});

test('paths quote keys that are not identifiers', () => {
  assert.equal(formatPath(['next_actions', 1, 'tool']), 'next_actions[1].tool');
  assert.equal(formatPath(['args', 'odd key', 0, 'a.b']), 'args["odd key"][0]["a.b"]');
  assert.equal(formatPath([]), '');
  assert.equal(formatPath([0]), '[0]');
  assert.equal(formatProblem({ path: '', message: 'm' }), 'm');
  assert.deepEqual(
    lines(
      parseEnvelope(
        base({ next_actions: [{ tool: 'ask_user', args: { prompt: 'p', fields: [{ name: 'n', 'odd key': 1, options: [2] }] } }] }),
      ),
    ),
    ['next_actions[0].args.fields[0].options[0]: expected a string, got 2'],
  );
});

test('the zod schema accepts exactly the wire forms parseEnvelope accepts', () => {
  for (const text of [README_SUCCESS, README_NOT_FOUND, README_INVALID, README_BLOCKED, README_PARTIAL]) {
    assert.ok(envelopeSchema.safeParse(JSON.parse(text)).success);
  }
  assert.ok(envelopeSchema.safeParse(base({ status: 'PARTIAL', version: 1 })).success);
  assert.ok(!envelopeSchema.safeParse(base({ status: 'finished' })).success);
});
