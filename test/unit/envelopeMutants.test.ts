// The envelope parser's decisions, written against the survivors of `npm run mutate -- envelope` (StrykerJS): what a
// malformed or hostile envelope produces (each problem names its field, in the words users read), what the lenient
// wire forms normalise to, the limits that stop hostile input, and the warnings `plangate validate` shows. Each case is
// one field wrong in an otherwise valid envelope, so the problem list is exactly that field's problem.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LIMITS,
  capProblems,
  checkJsonLimits,
  describeValue,
  formatPath,
  parseEnvelope,
  type ParseEnvelopeResult,
} from '../../src/core/plan/envelope';
import type { Problem } from '../../src/core/plan/plan';

type Env = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- cases poke at any field
const valid = (): Env => ({
  kind: 'orchestrated_plan',
  version: '1',
  status: 'ok',
  instruction: 'Do it.',
  next_actions: [{ tool: 't', args: {} }],
});
const lines = (r: ParseEnvelopeResult): string[] =>
  r.ok
    ? assert.fail(`accepted: ${JSON.stringify(r.plan).slice(0, 200)}`)
    : r.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
const plan = (r: ParseEnvelopeResult) => (r.ok ? r.plan : assert.fail(`rejected: ${JSON.stringify(r.problems)}`));
const warnings = (r: ParseEnvelopeResult): string[] =>
  r.ok ? (r.warnings ?? []).map((p) => `${p.path}: ${p.message}`) : assert.fail('rejected');
const withField = (change: (e: Env) => void): Env => {
  const e = valid();
  change(e);
  return e;
};

describe('a malformed envelope is refused, and the one problem names the field', () => {
  const cases: [string, (e: Env) => void, string][] = [
    ['a step tool that is a number', (e) => (e.next_actions[0].tool = 3), 'next_actions[0].tool: expected a string, got 3'],
    ['an empty step tool', (e) => (e.next_actions[0].tool = ''), 'next_actions[0].tool: expected a tool name, got an empty string'],
    ['a step label that is a number', (e) => (e.next_actions[0].label = 3), 'next_actions[0].label: expected a string, got 3'],
    [
      'a step confirm that is a word',
      (e) => (e.next_actions[0].confirm = 'yes'),
      'next_actions[0].confirm: expected true or false, got "yes"',
    ],
    ['step args that are a list', (e) => (e.next_actions[0].args = []), 'next_actions[0].args: expected an object, got an array'],
    ['step args that are a string', (e) => (e.next_actions[0].args = 'x'), 'next_actions[0].args: expected an object, got "x"'],
    [
      'an ask_user step without args',
      (e) => (e.next_actions[0] = { tool: 'ask_user' }),
      'next_actions[0].args: Required: an ask_user step needs args {prompt, fields}',
    ],
    // Reported once, although both the envelope's schema and the ask_user check see it.
    [
      'an ask_user step whose args are a list',
      (e) => (e.next_actions[0] = { tool: 'ask_user', args: [] }),
      'next_actions[0].args: expected an object, got an array',
    ],
    [
      'an ask_user prompt that is a number',
      (e) => (e.next_actions[0] = { tool: 'ask_user', args: { prompt: 3 } }),
      'next_actions[0].args.prompt: expected a string, got 3',
    ],
    ['a recovery action without a tool', (e) => (e.recovery_actions = [{ args: {} }]), 'recovery_actions[0].tool: Required'],
    ['an error without a message', (e) => (e.errors = [{ code: 'X' }]), 'errors[0].message: Required'],
    ['an error code that is a number', (e) => (e.errors = [{ code: 3, message: 'm' }]), 'errors[0].code: expected a string, got 3'],
    [
      'an error field that is a number',
      (e) => (e.errors = [{ code: 'X', message: 'm', field: 3 }]),
      'errors[0].field: expected a string, got 3',
    ],
    [
      'an error hint that is a number',
      (e) => (e.errors = [{ code: 'X', message: 'm', hint: 3 }]),
      'errors[0].hint: expected a string, got 3',
    ],
    [
      'an error recoverable that is a word',
      (e) => (e.errors = [{ code: 'X', message: 'm', recoverable: 'yes' }]),
      'errors[0].recoverable: expected true or false, got "yes"',
    ],
    [
      'a warning message that is a number',
      (e) => (e.warnings = [{ code: 'X', message: 3 }]),
      'warnings[0].message: expected a string, got 3',
    ],
    ['an ask prompt that is a number', (e) => (e.ask = { prompt: 3 }), 'ask.prompt: expected a string, got 3'],
    ['an ask that is a string', (e) => (e.ask = 'x'), 'ask: expected an object, got "x"'],
    [
      'an ask field whose name is a number',
      (e) => (e.ask = { prompt: 'p', fields: [{ name: 3 }] }),
      'ask.fields[0].name: expected a string, got 3',
    ],
    [
      'an ask field with an empty name',
      (e) => (e.ask = { prompt: 'p', fields: [{ name: '' }] }),
      'ask.fields[0].name: expected a field name, got an empty string',
    ],
    [
      'an ask field required that is a word',
      (e) => (e.ask = { prompt: 'p', fields: [{ name: 'n', required: 'x' }] }),
      'ask.fields[0].required: expected true or false, got "x"',
    ],
    [
      'an ask field option that is a number',
      (e) => (e.ask = { prompt: 'p', fields: [{ name: 'n', options: [1] }] }),
      'ask.fields[0].options[0]: expected a string, got 1',
    ],
    [
      'an ask field of an unknown type',
      (e) => (e.ask = { prompt: 'p', fields: [{ name: 'n', type: 'colour' }] }),
      'ask.fields[0].type: expected one of string, number, select (or 0–2), got "colour"',
    ],
    [
      'an ask field type number past the enum',
      (e) => (e.ask = { prompt: 'p', fields: [{ name: 'n', type: 3 }] }),
      'ask.fields[0].type: expected one of string, number, select (or 0–2), got 3',
    ],
    [
      'a partial result step that is a number',
      (e) => (e.partial_results = [{ step: 3, outcome: 'ok' }]),
      'partial_results[0].step: expected a string, got 3',
    ],
    [
      'a partial result detail that is a number',
      (e) => (e.partial_results = [{ step: 's', outcome: 'ok', detail: 3 }]),
      'partial_results[0].detail: expected a string, got 3',
    ],
    [
      'a partial result of an unknown outcome',
      (e) => (e.partial_results = [{ step: 's', outcome: 'maybe' }]),
      'partial_results[0].outcome: expected one of ok, skipped, failed (or 0–2), got "maybe"',
    ],
    ['a writes_code that is a word', (e) => (e.safety = { writes_code: 'x' }), 'safety.writes_code: expected true or false, got "x"'],
    ['a touched file that is a number', (e) => (e.safety = { touches_files: [1] }), 'safety.touches_files[0]: expected a string, got 1'],
    ['a safety that is a string', (e) => (e.safety = 'x'), 'safety: expected an object, got "x"'],
    ['a missing entry that is a number', (e) => (e.missing = [1]), 'missing[0]: expected a string, got 1'],
    ['affected_paths that are a string', (e) => (e.affected_paths = 'x'), 'affected_paths: expected an array, got "x"'],
    [
      'a status number that is not whole',
      (e) => (e.status = 1.5),
      'status: expected one of ok, error, invalid, blocked, partial (or 0–4), got 1.5',
    ],
    ['a negative status number', (e) => (e.status = -1), 'status: expected one of ok, error, invalid, blocked, partial (or 0–4), got -1'],
    [
      'a status number one past the enum',
      (e) => (e.status = 5),
      'status: expected one of ok, error, invalid, blocked, partial (or 0–4), got 5',
    ],
    ['an instruction that is a number', (e) => (e.instruction = 3), 'instruction: expected a string, got 3'],
    ['a follow-up that is a number', (e) => (e.follow_up = 3), 'follow_up: expected a string, got 3'],
    ['a correlation id that is a number', (e) => (e.correlation_id = 3), 'correlation_id: expected a string, got 3'],
    ['another kind', (e) => (e.kind = 'plan'), 'kind: expected "orchestrated_plan", got "plan"'],
    ['no version', (e) => delete e.version, 'version: Required'],
    ['version true', (e) => (e.version = true), 'version: expected "1" (or 1, "1.0", "1.x"), got true'],
    ['version 0.5', (e) => (e.version = 0.5), 'version: major version 0 is not supported; Plangate reads version 1'],
    ['version 2', (e) => (e.version = 2), 'version: major version 2 is not supported; Plangate reads version 1'],
    ['version "2.0"', (e) => (e.version = '2.0'), 'version: major version 2 is not supported; Plangate reads version 1'],
    ['version "v2"', (e) => (e.version = 'v2'), 'version: major version 2 is not supported; Plangate reads version 1'],
    ['version " 3 "', (e) => (e.version = ' 3 '), 'version: major version 3 is not supported; Plangate reads version 1'],
    ['version "12"', (e) => (e.version = '12'), 'version: major version 12 is not supported; Plangate reads version 1'],
    ['version "2x"', (e) => (e.version = '2x'), 'version: expected "1" (or 1, "1.0", "1.x"), got "2x"'],
    ['version "x2"', (e) => (e.version = 'x2'), 'version: expected "1" (or 1, "1.0", "1.x"), got "x2"'],
    ['version "1.y"', (e) => (e.version = '1.y'), 'version: expected "1" (or 1, "1.0", "1.x"), got "1.y"'],
    [
      'a long version word, cut in the message',
      (e) => (e.version = 'x'.repeat(50)),
      `version: expected "1" (or 1, "1.0", "1.x"), got "${'x'.repeat(40)}…"`,
    ],
    ['a version in a list', (e) => (e.version = ['2']), 'version: expected "1" (or 1, "1.0", "1.x"), got an array'],
    ['version 1 in a list', (e) => (e.version = ['1']), 'version: expected "1" (or 1, "1.0", "1.x"), got an array'],
    ['10,001 missing entries', (e) => (e.missing = Array(10_001).fill('a')), 'missing: 10,001 entries; Plangate reads at most 10,000'],
    [
      '1,001 errors',
      (e) => (e.errors = Array(1001).fill({ code: 'X', message: 'm' })),
      'errors: 1,001 entries; Plangate reads at most 1,000',
    ],
    ['a function in args', (e) => (e.next_actions[0].args = { f: () => 1 }), 'next_actions[0].args.f: not JSON data (a function)'],
    ['a bigint in args', (e) => (e.next_actions[0].args = { n: 1n }), 'next_actions[0].args.n: not JSON data (a bigint)'],
    ['a symbol in args', (e) => (e.next_actions[0].args = { s: Symbol('s') }), 'next_actions[0].args.s: not JSON data (a symbol)'],
    [
      'a function in a list in args',
      (e) => (e.next_actions[0].args = { l: [1, () => 1] }),
      'next_actions[0].args.l[1]: not JSON data (a function)',
    ],
    ['a Map in args', (e) => (e.next_actions[0].args = { m: new Map() }), 'next_actions[0].args.m: not JSON data (an object of class Map)'],
    [
      'an object whose constructor cannot be read, in args',
      (e) =>
        (e.next_actions[0].args = {
          a: Object.create(
            Object.create(null, {
              constructor: {
                get() {
                  throw new Error('trap');
                },
              },
            }),
          ),
        }),
      'next_actions[0].args.a: not JSON data (an object of class unknown)',
    ],
    [
      'an object whose constructor names itself with a number, in args',
      (e) => (e.next_actions[0].args = { a: Object.create({ constructor: { name: 42 } }) }),
      'next_actions[0].args.a: not JSON data (an object of class unknown)',
    ],
    [
      'an instance of a nameless class in args',
      (e) => (e.next_actions[0].args = { a: new (class {})() }),
      'next_actions[0].args.a: not JSON data (an object of class unknown)',
    ],
  ];
  for (const [name, change, want] of cases) test(name, () => assert.deepEqual(lines(parseEnvelope(withField(change))), [want]));

  test('150 ask_user steps without args: the first 100 problems, and the last line says how many more there are', () => {
    const r = lines(parseEnvelope(withField((e) => (e.next_actions = Array.from({ length: 150 }, () => ({ tool: 'ask_user' }))))));
    assert.equal(r.length, LIMITS.maxProblems + 1);
    assert.equal(r[99], 'next_actions[99].args: Required: an ask_user step needs args {prompt, fields}');
    assert.equal(r[100], '…and 50 more problems (only the first 100 are listed)');
  });

  test('every problem at once, each under its own field, with an ask_user step that is fine left out', () => {
    const e = withField((x) => {
      x.next_actions = [{ tool: 'ask_user', args: { prompt: 'Which?', fields: [{ name: 'n' }] } }, { tool: 3 }];
      x.errors = [{ message: 4 }];
    });
    assert.deepEqual(lines(parseEnvelope(e)), [
      'next_actions[1].tool: expected a string, got 3',
      'errors[0].message: expected a string, got 4',
    ]);
  });
});

describe('the limits stop hostile input, naming where', () => {
  const deep = (levels: number): unknown => {
    let v: unknown = 'leaf';
    for (let i = 0; i < levels; i++) v = { d: v };
    return v;
  };
  test('args nested to the depth limit are read; one level more is refused at its path', () => {
    // The envelope is level 1, next_actions 2, the step 3, args 4: args hold LIMITS.maxDepth - 4 more levels, 61 objects in all.
    assert.equal(parseEnvelope(withField((e) => (e.next_actions[0].args = deep(LIMITS.maxDepth - 3)))).ok, true);
    const over = lines(parseEnvelope(withField((e) => (e.next_actions[0].args = deep(LIMITS.maxDepth - 2)))));
    assert.equal(over.length, 1);
    assert.match(
      over[0]!,
      /^next_actions\[0\]\.args(\.d){61}: objects and arrays are nested more than 64 levels deep here; Plangate reads at most 64 levels$/,
    );
  });
  test('lists nested to the depth limit are read; one level more is refused at its path', () => {
    const lists = (levels: number): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    assert.equal(parseEnvelope(withField((e) => (e.next_actions[0].args = { l: lists(LIMITS.maxDepth - 4) }))).ok, true);
    const over = lines(parseEnvelope(withField((e) => (e.next_actions[0].args = { l: lists(LIMITS.maxDepth - 3) }))));
    assert.deepEqual(over, [
      `next_actions[0].args.l${'[0]'.repeat(LIMITS.maxDepth - 4)}: objects and arrays are nested more than 64 levels deep here; Plangate reads at most 64 levels`,
    ]);
  });
  test('when another limit is broken, a string, a key and a null of the allowed size are not reported with it', () => {
    const max = LIMITS.maxStringLength;
    assert.deepEqual(
      lines(parseEnvelope(withField((e) => (e.next_actions[0].args = { s: 'a'.repeat(max), ['k'.repeat(max)]: null, f: () => 1 })))),
      ['next_actions[0].args.f: not JSON data (a function)'],
    );
  });
  test('a string, and a key, of the limit length are read; one character more is refused', () => {
    const max = LIMITS.maxStringLength;
    assert.equal(parseEnvelope(withField((e) => (e.next_actions[0].args = { s: 'a'.repeat(max), ['k'.repeat(max)]: 1 }))).ok, true);
    assert.deepEqual(lines(parseEnvelope(withField((e) => (e.next_actions[0].args = { s: 'a'.repeat(max + 1) })))), [
      'next_actions[0].args.s: a string of 1,048,577 characters is longer than the limit of 1,048,576',
    ]);
    const key = 'k'.repeat(max + 1);
    assert.deepEqual(lines(parseEnvelope(withField((e) => (e.next_actions[0].args = { [key]: 1 })))), [
      `next_actions[0].args[${JSON.stringify(`${'k'.repeat(200)}…`)}]: a key of 1,048,577 characters is longer than the limit of 1,048,576`,
    ]);
    // Found on the slow path too (another problem sends the envelope there): the limit-length string is still fine.
    assert.deepEqual(lines(parseEnvelope(withField((e) => ((e.next_actions[0].args = { s: 'a'.repeat(max) }), (e.status = 'nope'))))), [
      'status: expected one of ok, error, invalid, blocked, partial (or 0–4), got "nope"',
    ]);
  });
  test('an envelope over the size limit is refused whole, before anything else is read', () => {
    const chunk = 'a'.repeat(LIMITS.maxStringLength);
    const args: Record<string, string> = {};
    for (let i = 0; i < LIMITS.maxInputChars / LIMITS.maxStringLength; i++) args[`k${i}`] = chunk;
    assert.deepEqual(lines(parseEnvelope(withField((e) => ((e.next_actions[0].args = args), (e.status = 'nope'))))), [
      'the envelope is larger than 16,777,216 characters; Plangate reads at most that much',
    ]);
  });
  test('an envelope of more than a million values is refused whole', () => {
    assert.deepEqual(lines(parseEnvelope(withField((e) => (e.next_actions[0].args = { l: new Array(LIMITS.maxNodes).fill(0) })))), [
      'the envelope holds more than 1,000,000 JSON values; Plangate reads at most that many',
    ]);
  });
  test('keys count towards the size limit: 17 keys of a million characters are refused whole', () => {
    const args: Record<string, number> = {};
    for (let i = 0; i <= LIMITS.maxInputChars / LIMITS.maxStringLength; i++) args[`${i}`.padEnd(LIMITS.maxStringLength, 'k')] = i;
    assert.deepEqual(lines(parseEnvelope(withField((e) => (e.next_actions[0].args = args)))), [
      'the envelope is larger than 16,777,216 characters; Plangate reads at most that much',
    ]);
  });
  test('exactly a million values are read; one more is refused', () => {
    // The envelope, its 5 fields, the step, its 2 fields and args' one field are 10 values: the list holds the rest.
    const at = (n: number) => parseEnvelope(withField((e) => (e.next_actions[0].args = { l: new Array(n).fill(0) })));
    assert.equal(at(LIMITS.maxNodes - 10).ok, true);
    assert.deepEqual(lines(at(LIMITS.maxNodes - 9)), [
      'the envelope holds more than 1,000,000 JSON values; Plangate reads at most that many',
    ]);
  });
  test('an envelope of objects without a prototype (as some parsers build them) is read like any other', () => {
    const bare = <T extends object>(o: T): T => Object.assign(Object.create(null) as T, o);
    const p = plan(parseEnvelope(bare({ ...valid(), next_actions: [bare({ tool: 't', args: bare({ a: 1 }) })] })));
    assert.deepEqual({ ...p.next_actions[0]!.args }, { a: 1 });
  });
  test('a polluted Object.prototype changes nothing that is read or refused', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.pollutedByTest = () => 'not JSON';
    try {
      const r = parseEnvelope(withField((e) => (e.safety = { writes_code: true })));
      const p = plan(r);
      assert.equal(Object.hasOwn(p, 'pollutedByTest'), false);
      assert.equal(Object.hasOwn(p.safety!, 'pollutedByTest'), false);
      assert.equal(r.ok && 'warnings' in r, false);
    } finally {
      delete proto.pollutedByTest;
    }
  });
  test('checkJsonLimits on a value that is not an envelope: problems with paths from the value, the root named ""', () => {
    const limits = { maxDepth: 3, maxStringLength: 5, maxNodes: 100, maxInputChars: 1000 };
    assert.deepEqual(checkJsonLimits({ a: [1, 'ok'], b: 'fine' }, limits), { problems: [], tooLarge: false });
    assert.deepEqual(checkJsonLimits('toolong', limits), {
      problems: [{ path: '', message: 'a string of 7 characters is longer than the limit of 5' }],
      tooLarge: false,
    });
    assert.deepEqual(checkJsonLimits('short', limits), { problems: [], tooLarge: false });
    assert.deepEqual(checkJsonLimits(new Map(), limits).problems, [{ path: '', message: 'not JSON data (an object of class Map)' }]);
    assert.deepEqual(checkJsonLimits({ a: [{ b: [1] }], c: [{}] }, limits).problems, [
      { path: 'a[0].b', message: 'objects and arrays are nested more than 3 levels deep here; Plangate reads at most 3 levels' },
    ]);
    assert.deepEqual(checkJsonLimits({ a: [{}], c: { d: 'x', e: 'toolong', 'o k': [() => 1] } }, limits).problems, [
      { path: 'c.e', message: 'a string of 7 characters is longer than the limit of 5' },
      { path: 'c["o k"][0]', message: 'not JSON data (a function)' },
    ]);
    assert.deepEqual(checkJsonLimits({ l: new Array(200).fill(1) }, limits), {
      problems: [{ path: '', message: 'the envelope holds more than 100 JSON values; Plangate reads at most that many' }],
      tooLarge: true,
    });
    assert.deepEqual(checkJsonLimits({ l: ['abcd', 'abcd', 'abcd'] }, { ...limits, maxInputChars: 20 }), {
      problems: [{ path: '', message: 'the envelope is larger than 20 characters; Plangate reads at most that much' }],
      tooLarge: true,
    });
  });
  test('undefined and null values (an envelope built in code, not parsed) are read as absent, not refused', () => {
    const p = plan(
      parseEnvelope(
        withField(
          (e) => ((e.next_actions[0].label = undefined), (e.next_actions[0].args = { n: null, u: undefined, x: 1.5, l: [null, 1] })),
        ),
      ),
    );
    assert.deepEqual(p.next_actions[0], { tool: 't', args: { n: null, u: undefined, x: 1.5, l: [null, 1] } });
  });
});

describe('the lenient wire forms normalise to what Plangate uses', () => {
  test('enum numbers and names in any case: the lowercase name; the last number of each enum is its last name', () => {
    const p = plan(
      parseEnvelope(
        withField((e) => {
          e.status = 4;
          e.ask = { prompt: 'p', fields: [{ name: 'a', type: 2 }, { name: 'b', type: 'NUMBER' }, { name: 'c' }] };
          e.partial_results = [
            { step: 's', outcome: 2 },
            { step: 't', outcome: 'Skipped', detail: null },
          ];
        }),
      ),
    );
    assert.equal(p.status, 'partial');
    assert.deepEqual(
      p.ask?.fields?.map((f) => f.type),
      ['select', 'number', 'string'],
    );
    // null means absent: no `detail: null` reaches the panel.
    assert.deepEqual(p.partial_results, [
      { step: 's', outcome: 'failed' },
      { step: 't', outcome: 'skipped' },
    ]);
  });
  test('version 1, 1.5, "1.0" and "1.x" read as "1"; the fields a plan carries are kept, null ones dropped', () => {
    for (const version of [1, 1.5, '1.0', '1.x']) assert.equal(plan(parseEnvelope(withField((e) => (e.version = version)))).version, '1');
    const p = plan(
      parseEnvelope(
        withField((e) => {
          e.affected_paths = ['src/a.ts'];
          e.correlation_id = 'c-1';
          e.follow_up = null;
          e.errors = [{ message: 'm', code: null, field: 'f', hint: null, recoverable: false }];
          e.safety = { writes_code: null, touches_files: ['src/**'] };
        }),
      ),
    );
    assert.deepEqual(p.affected_paths, ['src/a.ts']);
    assert.equal(p.correlation_id, 'c-1');
    assert.equal('follow_up' in p, false);
    assert.deepEqual(p.errors, [{ code: '', message: 'm', field: 'f', recoverable: false }]);
    assert.deepEqual(p.safety, { touches_files: ['src/**'] });
  });
  test('an ask whose fields are null reads as an ask without fields', () => {
    assert.deepEqual(plan(parseEnvelope(withField((e) => (e.ask = { prompt: 'Which?', fields: null })))).ask, { prompt: 'Which?' });
  });
  test('exactly 10,000 entries in a list are read', () => {
    assert.equal(plan(parseEnvelope(withField((e) => (e.missing = Array(LIMITS.maxListItems).fill('a'))))).missing?.length, 10_000);
  });
  test('an unknown "__proto__" field is kept as plain data: it reaches JSON and replaces no prototype', () => {
    const raw = JSON.parse(
      '{"kind":"orchestrated_plan","version":"1","status":"ok","instruction":"i","next_actions":[{"tool":"t","args":{},"__proto__":{"polluted":true}}],"__proto__":{"polluted":true}}',
    );
    const p = plan(parseEnvelope(raw));
    assert.equal(Object.getPrototypeOf(p), Object.prototype);
    assert.equal(Object.getPrototypeOf(p.next_actions[0]), Object.prototype);
    assert.equal((p as unknown as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(JSON.parse(JSON.stringify(p)).__proto__, { polluted: true });
    // Plain data like every other field: listed, and editable (a step's fields are edited before approval).
    assert.deepEqual(Object.getOwnPropertyDescriptor(p, '__proto__'), {
      value: { polluted: true },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    assert.deepEqual(JSON.parse(JSON.stringify(p.next_actions[0])).__proto__, { polluted: true });
  });
});

describe('the warnings plangate validate shows for an accepted envelope', () => {
  const clean = () =>
    withField((e) => {
      e.errors = [{ code: 'X', message: 'm' }];
      e.warnings = [{ code: 'W', message: 'w' }];
      e.ask = { prompt: 'p', fields: [{ name: 'n', type: 'string' }] };
      e.safety = { writes_code: false };
    });
  test('a complete version "1" envelope: no warnings at all (not even an empty list)', () => {
    const r = parseEnvelope(clean());
    assert.equal(r.ok && 'warnings' in r, false);
  });
  const cases: [string, (e: Env) => void, string[]][] = [
    ['a camelCase field', (e) => (e.nextActions = []), ['nextActions: unknown field kept as is; MCPFlow spells it "next_actions"']],
    [
      'a camelCase safety field',
      (e) => (e.safety.touchesFiles = []),
      ['safety.touchesFiles: unknown field kept as is; MCPFlow spells it "touches_files"'],
    ],
    ['version as the number 1', (e) => (e.version = 1), ['version: 1 read as version "1" (MCPFlow emits the string "1")']],
    [
      'no instruction',
      (e) => delete e.instruction,
      ['instruction: missing, read as ""; MCPFlow always emits it ("" when there is nothing to say)'],
    ],
    [
      'no next_actions',
      (e) => delete e.next_actions,
      ['next_actions: missing, read as []; MCPFlow always emits it ([] when there are no steps)'],
    ],
    [
      'an error without a code',
      (e) => delete e.errors[0].code,
      ['errors[0].code: missing, read as ""; MCPFlow always emits it (e.g. NOT_FOUND, INVALID, PERMISSION)'],
    ],
    [
      'a warning without a code',
      (e) => (e.warnings[0].code = null),
      ['warnings[0].code: missing, read as ""; MCPFlow always emits it (e.g. NOT_FOUND, INVALID, PERMISSION)'],
    ],
    [
      'an ask field without a type',
      (e) => delete e.ask.fields[0].type,
      ['ask.fields[0].type: missing, read as "string"; MCPFlow always emits it'],
    ],
  ];
  for (const [name, change, want] of cases) {
    test(name, () => {
      const e = clean();
      change(e);
      assert.deepEqual(warnings(parseEnvelope(e)), want);
    });
  }
  test('an unknown field that is no alias: kept, and no warning (not even an empty list)', () => {
    const p = parseEnvelope(withField((e) => (e.x_vendor = { a: 1 })));
    assert.equal(p.ok && 'warnings' in p, false);
    assert.deepEqual((plan(p) as unknown as Env).x_vendor, { a: 1 });
  });
});

describe('paths, values and problem lists in messages', () => {
  test('formatPath: indexes in brackets, identifiers dotted, other keys quoted, keys over 200 characters cut', () => {
    assert.equal(formatPath([]), '');
    assert.equal(formatPath([0, 'a']), '[0].a');
    assert.equal(formatPath(['next_actions', 1, 'args', 'odd key', '$ok_1']), 'next_actions[1].args["odd key"].$ok_1');
    assert.equal(formatPath(['a', 'k'.repeat(200)]), `a.${'k'.repeat(200)}`);
    assert.equal(formatPath(['a', `o k${'k'.repeat(197)}`]), `a[${JSON.stringify(`o k${'k'.repeat(197)}`)}]`);
    assert.equal(formatPath(['a', 'k'.repeat(201)]), `a[${JSON.stringify(`${'k'.repeat(200)}…`)}]`);
  });
  test('describeValue: each kind of value in a word or two; strings over 40 characters cut', () => {
    assert.equal(describeValue(undefined), 'nothing');
    assert.equal(describeValue(null), 'null');
    assert.equal(describeValue('a'.repeat(40)), JSON.stringify('a'.repeat(40)));
    assert.equal(describeValue('a'.repeat(41)), JSON.stringify(`${'a'.repeat(40)}…`));
    assert.equal(describeValue(0), '0');
    assert.equal(describeValue(false), 'false');
    assert.equal(describeValue([]), 'an array');
    assert.equal(describeValue({}), 'an object');
    assert.equal(
      describeValue(() => 1),
      'a function',
    );
  });
  test('capProblems: a list at the cap is kept whole; over it, the rest is one last problem', () => {
    const list = (n: number): Problem[] => Array.from({ length: n }, (_, i) => ({ path: `p${i}`, message: 'm' }));
    assert.deepEqual(capProblems(list(3), 3), list(3));
    assert.deepEqual(capProblems(list(5), 3), [...list(3), { path: '', message: '…and 2 more problems (only the first 3 are listed)' }]);
  });
});
