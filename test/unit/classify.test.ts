import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyResult, fencedBlocks, type Classification } from '../../src/core/plan/classify';
import { formatProblem } from '../../src/core/plan/envelope';
import type { OrchestratedPlan } from '../../src/core/plan/plan';
import { startFixtureStdio } from './helpers/fixture';

const SUCCESS = {
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
};

const textResult = (...texts: string[]) => ({ content: texts.map((text) => ({ type: 'text', text })) });

function planOf(c: Classification): OrchestratedPlan {
  if (c.kind !== 'plan') assert.fail(`expected a plan, got ${JSON.stringify(c)}`);
  return c.plan;
}

const STATUSES = ['ok', 'error', 'invalid', 'blocked', 'partial'] as const;

test('every status is recognised as JSON text, indented C# FlowResult.Json text, fenced text and structuredContent', () => {
  STATUSES.forEach((status, n) => {
    for (const wire of [status, status.charAt(0).toUpperCase() + status.slice(1), n]) {
      const env = { ...SUCCESS, status: wire };
      const encodings: [unknown, string, number | undefined][] = [
        [textResult(JSON.stringify(env)), 'text', 0],
        [textResult(JSON.stringify(env, null, 2)), 'text', 0], // FlowResult.Json(plan, indented: true)
        [textResult(`  \n${JSON.stringify(env)}\n\n`), 'text', 0],
        [textResult(`Here is the plan:\n\n\`\`\`json\n${JSON.stringify(env, null, 2)}\n\`\`\`\n\nProceed?`), 'fenced', 0],
        [{ structuredContent: env, content: [{ type: 'text', text: JSON.stringify(env) }] }, 'structuredContent', undefined],
      ];
      for (const [result, source, blockIndex] of encodings) {
        const c = classifyResult(result);
        assert.equal(planOf(c).status, status, `${source} ${JSON.stringify(wire)}`);
        assert.equal(c.kind === 'plan' && c.source, source);
        assert.equal(c.kind === 'plan' ? c.blockIndex : 'x', blockIndex);
      }
    }
  });
});

test('structuredContent wins over text, and the first text block holding a plan wins over later ones', () => {
  const other = { ...SUCCESS, instruction: 'from text' };
  const c = classifyResult({ structuredContent: SUCCESS, content: [{ type: 'text', text: JSON.stringify(other) }] });
  assert.equal(planOf(c).instruction, SUCCESS.instruction);

  const invalidStructured = classifyResult({
    structuredContent: { ...SUCCESS, status: 'done' },
    content: [{ type: 'text', text: JSON.stringify(SUCCESS) }],
  });
  assert.equal(invalidStructured.kind, 'invalid_plan', 'a structuredContent that declares the kind decides, valid or not');
  assert.deepEqual(invalidStructured.kind === 'invalid_plan' && invalidStructured.problems.map(formatProblem), [
    'status: expected one of ok, error, invalid, blocked, partial (or 0–4), got "done"',
  ]);

  const notAPlan = classifyResult({
    structuredContent: { content: 'file text' },
    content: [{ type: 'text', text: JSON.stringify(SUCCESS) }],
  });
  assert.equal(planOf(notAPlan).status, 'ok', 'structuredContent without the kind is ignored');

  const blocks = classifyResult({
    content: [
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'text', text: 'Just prose.' },
      { type: 'text', text: '{"result": 1}' },
      { type: 'text', text: `Plan below\n\`\`\`json\n${JSON.stringify({ ...SUCCESS, instruction: 'third' })}\n\`\`\`` },
      { type: 'text', text: JSON.stringify({ ...SUCCESS, instruction: 'fourth' }) },
    ],
  });
  assert.equal(planOf(blocks).instruction, 'third');
  assert.equal(blocks.kind === 'plan' && blocks.blockIndex, 3);
  assert.equal(blocks.kind === 'plan' && blocks.source, 'fenced');
});

test('an envelope that declares the kind but breaks the rules is an invalid plan with envelope-relative paths', () => {
  const structured = classifyResult({ structuredContent: { kind: 'orchestrated_plan', version: '2', status: 'ok' }, content: [] });
  assert.deepEqual(structured, {
    kind: 'invalid_plan',
    source: 'structuredContent',
    problems: [{ path: 'version', message: 'major version 2 is not supported; Plangate reads version 1' }],
  });
  const text = classifyResult(
    textResult('noise', JSON.stringify({ kind: 'orchestrated_plan', version: '1', status: 'ok', next_actions: [{ args: {} }] })),
  );
  assert.deepEqual(text, {
    kind: 'invalid_plan',
    source: 'text',
    blockIndex: 1,
    problems: [{ path: 'next_actions[0].tool', message: 'Required' }],
  });
  const fenced = classifyResult(textResult('```json\n{"kind":"orchestrated_plan","version":"1"}\n```'));
  assert.deepEqual(fenced, { kind: 'invalid_plan', source: 'fenced', blockIndex: 0, problems: [{ path: 'status', message: 'Required' }] });
});

test('fences: bare ```, any-case json, longer fences around backticks, unclosed fences, and other languages skipped', () => {
  const env = JSON.stringify(SUCCESS, null, 2);
  for (const text of [
    `Prose first.\n\`\`\`\n${env}\n\`\`\``,
    `Prose.\n\`\`\`JSON\n${env}\n\`\`\`\nMore prose.`,
    `Result:\n  \`\`\`json\n${env}\n  \`\`\`\n`,
    `\`\`\`\`json\n${JSON.stringify({ ...SUCCESS, instruction: 'Use ```code``` here' })}\n\`\`\`\`\n`,
    `Cut off:\n\`\`\`json\n${env}\n`,
    `\`\`\`ts\nconst x = 1;\n\`\`\`\nand then\n\`\`\`json\n${env}\n\`\`\``,
    `\`\`\`json\n{ not json }\n\`\`\`\n\`\`\`json\n${env}\n\`\`\``,
    `Inline \`\`\`code\`\`\` first, then:\n\`\`\`json\r\n${env.replace(/\n/g, '\r\n')}\r\n\`\`\`\r\n`,
  ]) {
    assert.equal(planOf(classifyResult(textResult(text))).instruction.length > 0, true, text.slice(0, 60));
  }
  assert.equal(
    planOf(classifyResult(textResult(`\`\`\`\`json\n${JSON.stringify({ ...SUCCESS, instruction: 'Use ```code``` here' })}\n\`\`\`\``)))
      .instruction,
    'Use ```code``` here',
  );
  assert.equal(classifyResult(textResult(`\`\`\`ts\n${env}\n\`\`\``)).kind, 'plain', 'a ```ts block is not read');
  assert.deepEqual(
    [...fencedBlocks('a\n````md\nx\n```\ny\n````\nb\n```\nc\n```')].map((b) => [b.info, b.closed]),
    [
      ['md', true],
      ['', true],
    ],
  );
});

test('malformed, partial or non-plan JSON is plain and never throws', () => {
  for (const text of [
    '{"kind":"orchestrated_plan","version":"1","status":"ok","next_actions":[',
    '{ this is prose in braces }',
    '```json\n{"kind":"orchestrated_plan",\n```',
    '[{"kind":"orchestrated_plan","version":"1","status":"ok"}]',
    '"orchestrated_plan"',
    '',
    '{}',
    'null',
    JSON.stringify({ plan: SUCCESS }),
    JSON.stringify({ kind: 'Orchestrated_Plan', version: '1', status: 'ok' }),
    '{"__proto__":{"kind":"orchestrated_plan","version":"1","status":"ok"}}',
  ]) {
    assert.deepEqual(classifyResult(textResult(text)), { kind: 'plain' }, text);
  }
  for (const result of [
    null,
    undefined,
    42,
    'text',
    [],
    {},
    { content: 'x' },
    {
      content: [
        null,
        1,
        'x',
        { type: 'text' },
        { type: 'text', text: 5 },
        { type: 'resource', resource: { text: JSON.stringify(SUCCESS) } },
      ],
    },
    { structuredContent: 'x', content: [] },
  ]) {
    assert.deepEqual(classifyResult(result), { kind: 'plain' }, JSON.stringify(result));
  }
  const hostile = {
    get content(): unknown {
      throw new Error('boom');
    },
  };
  assert.deepEqual(classifyResult(hostile), { kind: 'plain' });
});

test('deeply nested text (10,000 and 200,000 levels) classifies without overflowing the stack', () => {
  for (const depth of [10_000, 200_000]) {
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const plan = classifyResult(
      textResult(`{"kind":"orchestrated_plan","version":"1","status":"ok","next_actions":[{"tool":"t","args":{"rows":${deep}}}]}`),
    );
    assert.equal(plan.kind, 'invalid_plan');
    assert.match(plan.kind === 'invalid_plan' ? (plan.problems[0]?.message ?? '') : '', /nested more than 64 levels/);
    assert.deepEqual(classifyResult(textResult(`{"data":${deep}}`)), { kind: 'plain' });
    for (const text of [
      `{"schema":{"fields":${deep}},"mode":"create"}`,
      `{"schema":{"model":"m","fields":[{"name":"a","type":"text","default":${deep}}]},"mode":"create"}`,
    ]) {
      const form = classifyResult(textResult(text));
      assert.ok(form.kind === 'collect_error' && form.error.type === 'invalid_form', `depth ${depth}`);
      assert.match(form.error.type === 'invalid_form' ? (form.error.problems[0]?.message ?? '') : '', /nested more than 64 levels/);
    }
  }
});

test('prototype keys in a result never make a plan or pollute anything', () => {
  const c = classifyResult(
    JSON.parse('{"__proto__":{"structuredContent":{"kind":"orchestrated_plan","version":"1","status":"ok"}},"content":[]}'),
  );
  assert.deepEqual(c, { kind: 'plain' });
  const text =
    '{"kind":"orchestrated_plan","version":"1","status":"ok","constructor":{"prototype":{"x":1}},"next_actions":[{"tool":"t","args":{"__proto__":{"isAdmin":true}}}]}';
  const plan = planOf(classifyResult(textResult(text)));
  assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  assert.equal((plan.next_actions[0]?.args as { isAdmin?: unknown }).isAdmin, undefined);
  assert.ok(Object.hasOwn(plan.next_actions[0]?.args ?? {}, '__proto__'));
});

const CONTACT_FORM = {
  schema: {
    model: 'Project',
    title: 'Create Project',
    fieldsets: [{ key: 'default', title: 'Project Details', description: '', required: false, groups: ['default'] }],
    fields: [
      { name: 'name', label: 'Name', group: 'default', required: true, type: 'text', kind: 'string' },
      { name: 'budget', label: 'Budget', group: 'default', required: false, type: 'number', validation: { min: 0 } },
    ],
  },
  defaults: { name: '' },
  mode: 'create',
  submitMode: 'collect',
  hiddenValues: { contact_id: 'c-1' },
  parentContext: { parentModel: 'Contact', parentId: 'c-1', label: 'Ada Lovelace' },
};

test('collect-mode form payloads are collect_form; malformed ones are collect_error invalid_form', () => {
  const c = classifyResult(textResult(JSON.stringify(CONTACT_FORM)));
  assert.equal(c.kind, 'collect_form');
  if (c.kind !== 'collect_form') return;
  assert.equal(c.blockIndex, 0);
  assert.equal(c.form.submitMode, 'collect');
  assert.deepEqual(c.form.hiddenValues, { contact_id: 'c-1' });
  assert.deepEqual(c.form.parentContext, { parentModel: 'Contact', parentId: 'c-1', label: 'Ada Lovelace' });
  assert.equal(c.form.schema.fields[1]?.type, 'number');

  const update = classifyResult(
    textResult(
      JSON.stringify({
        ...CONTACT_FORM,
        mode: 'update',
        submitMode: 'direct',
        recordId: 'p-7',
        hiddenValues: undefined,
        parentContext: undefined,
      }),
    ),
  );
  assert.ok(
    update.kind === 'collect_form' &&
      update.form.mode === 'update' &&
      update.form.recordId === 'p-7' &&
      update.form.submitMode === 'direct',
  );

  const broken = classifyResult(textResult(JSON.stringify({ ...CONTACT_FORM, mode: 'delete' })));
  assert.equal(broken.kind, 'collect_error');
  assert.ok(broken.kind === 'collect_error' && broken.error.type === 'invalid_form');
  assert.deepEqual(broken.kind === 'collect_error' && broken.error.type === 'invalid_form' && broken.error.problems.map(formatProblem), [
    'mode: expected "create" or "update", got "delete"',
  ]);

  const plan = classifyResult(textResult(JSON.stringify(CONTACT_FORM), JSON.stringify(SUCCESS)));
  assert.equal(plan.kind, 'plan', 'a plan in any block wins over a form');
});

test('mcp-rune form-tool errors: distinctive shapes always, generic errors only from a form tool', () => {
  assert.deepEqual(classifyResult(textResult(JSON.stringify({ error: 'Unknown model: Widget. Available: Contact, Project' }))), {
    kind: 'collect_error',
    blockIndex: 0,
    error: {
      type: 'unknown_model',
      message: 'Unknown model: Widget. Available: Contact, Project',
      model: 'Widget',
      available: ['Contact', 'Project'],
    },
  });
  const assoc = {
    status: 'associations_needed',
    model: 'Project',
    associations: [{ association: 'contact', required: true }],
    message: 'Resolve required associations before opening the form.',
  };
  assert.deepEqual(classifyResult(textResult(JSON.stringify(assoc))), {
    kind: 'collect_error',
    blockIndex: 0,
    error: {
      type: 'associations_needed',
      model: 'Project',
      associations: [{ association: 'contact', required: true }],
      message: 'Resolve required associations before opening the form.',
    },
  });

  const storeMissing = textResult(JSON.stringify({ error: 'Form data store not available' }));
  assert.deepEqual(classifyResult(storeMissing), { kind: 'plain' }, 'a generic {"error"} from an unknown tool is plain');
  assert.deepEqual(classifyResult(storeMissing, { tool: 'collect_form_data' }), {
    kind: 'collect_error',
    blockIndex: 0,
    error: { type: 'store_unavailable', message: 'Form data store not available' },
  });
  assert.deepEqual(classifyResult(textResult('{"error":"Database down"}'), { tool: 'new_model_app' }), {
    kind: 'collect_error',
    blockIndex: 0,
    error: { type: 'error', message: 'Database down' },
  });

  const wrapped = { isError: true, content: [{ type: 'text', text: 'Error: new_model_app failed -- boom' }] };
  assert.deepEqual(classifyResult(wrapped, { tool: 'new_model_app' }), {
    kind: 'collect_error',
    blockIndex: 0,
    error: { type: 'error', message: 'Error: new_model_app failed -- boom' },
  });
  assert.deepEqual(classifyResult(wrapped, { tool: 'write_file' }), { kind: 'plain' });
  assert.deepEqual(
    classifyResult(textResult(JSON.stringify({ ok: true, entry: { model: 'Contact', fields: {} }, message: 'Form data collected' })), {
      tool: 'collect_form_data',
    }),
    { kind: 'plain' },
  );
});

test('a 5 MB text block classifies quickly, whatever it holds', () => {
  const prose = 'All work and no play makes Jack a dull boy. '.repeat(120_000); // ≈ 5.3 MB
  const cases: [string, string][] = [
    ['prose', prose],
    ['prose in braces', `{${prose}}`],
    ['backticks without fences', '```'.repeat(1_800_000)],
    ['inline spans on one line', 'a ```b``` '.repeat(500_000)],
    ['many small fences', '```\nx\n```\n'.repeat(400_000)],
    ['an unclosed fence', `\`\`\`json\n${prose}`],
    ['fence after prose', `${prose}\n\`\`\`json\n${JSON.stringify(SUCCESS)}\n\`\`\``],
    ['big JSON data', JSON.stringify({ rows: Array.from({ length: 60_000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'] })) })],
  ];
  for (const [name, text] of cases) {
    const t0 = performance.now();
    const c = classifyResult(textResult(text));
    const ms = performance.now() - t0;
    // A guard against catastrophic backtracking (which would take minutes), not a speed target.
    assert.ok(ms < 5000, `${name}: ${ms.toFixed(0)} ms`);
    assert.equal(c.kind, name === 'fence after prose' ? 'plan' : 'plain', name);
  }
});

// The cost of classification against JSON.parse is a benchmark figure (npm run bench), not a timed test.

test('results from a real MCP server (the fixture over stdio) classify in every encoding', async () => {
  const fx = await startFixtureStdio();
  try {
    for (const status of STATUSES) {
      for (const encoding of ['json', 'fenced', 'structured', 'pascal', 'numeric', 'string']) {
        const result = await fx.client.callTool({ name: 'plan_status', arguments: { status, encoding } });
        const c = classifyResult(result);
        assert.equal(planOf(c).status, status, `${status} / ${encoding}`);
        assert.equal(
          c.kind === 'plan' && c.source,
          encoding === 'structured' ? 'structuredContent' : encoding === 'fenced' ? 'fenced' : 'text',
        );
      }
    }
    const invalid = classifyResult(await fx.client.callTool({ name: 'plan_invalid', arguments: {} }));
    assert.equal(invalid.kind, 'invalid_plan');
    assert.ok(invalid.kind === 'invalid_plan' && invalid.problems.every((p) => p.message.length > 0));

    const form = classifyResult(
      await fx.client.callTool({ name: 'new_model_app', arguments: { model: 'Project', mode: 'form', prefill: { contact_id: 'c-1' } } }),
      { tool: 'new_model_app' },
    );
    assert.ok(form.kind === 'collect_form', JSON.stringify(form));
    assert.equal(form.form.mode, 'create');
    assert.equal(form.form.submitMode, 'collect');
    assert.equal(form.form.hiddenValues?.contact_id, 'c-1');
    assert.equal(form.form.parentContext?.parentId, 'c-1');

    const edit = classifyResult(await fx.client.callTool({ name: 'edit_model_app', arguments: { model: 'Contact', record_id: 'c-1' } }), {
      tool: 'edit_model_app',
    });
    assert.ok(edit.kind === 'collect_form' && edit.form.mode === 'update' && edit.form.recordId === 'c-1');
    assert.deepEqual(
      edit.form.schema.fields.map((f) => f.type),
      [
        'text',
        'textarea',
        'number',
        'checkbox',
        'email',
        'url',
        'color',
        'select',
        'multiselect',
        'checkbox_group',
        'date',
        'datetime-local',
        'time',
      ],
    );

    const unknown = classifyResult(await fx.client.callTool({ name: 'new_model_app', arguments: { model: 'Widget', mode: 'form' } }));
    assert.ok(unknown.kind === 'collect_error' && unknown.error.type === 'unknown_model' && unknown.error.model === 'Widget');
    const assoc = classifyResult(await fx.client.callTool({ name: 'new_model_app', arguments: { model: 'Project', mode: 'form' } }));
    assert.ok(assoc.kind === 'collect_error' && assoc.error.type === 'associations_needed' && assoc.error.model === 'Project');
    const noForm = classifyResult(await fx.client.callTool({ name: 'new_model_app', arguments: { model: 'Contact' } }), {
      tool: 'new_model_app',
    });
    assert.ok(noForm.kind === 'collect_error' && noForm.error.type === 'error' && /mode: "form"/.test(noForm.error.message));
  } finally {
    await fx.close();
  }
});
