import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  looksLikeCollectForm,
  parseCollectForm,
  type AppFormSchema,
  type CollectFormPayload,
  type FormField,
} from '../../src/core/plan/collectForm';
import { formSubmission, isFieldVisible, toFieldValue, validateFormValues } from '../../src/core/forms/values';
import { formatProblem } from '../../src/core/plan/envelope';

// Shaped like mcp-rune's new_model_app result for a nested model (create, with hiddenValues and parentContext).
const CREATE = {
  schema: {
    model: 'subdomain',
    title: 'Create Subdomains',
    fieldsets: [
      { key: 'basics', title: 'Basics', description: 'What it is', required: true, groups: ['identity'] },
      { key: 'extra', title: 'Extra', description: '', required: false, groups: ['details', 'tags'] },
    ],
    fields: [
      {
        name: 'name',
        label: 'Name',
        group: 'identity',
        required: true,
        type: 'text',
        kind: 'string',
        placeholder: 'e.g. Compilers',
        validation: { maxLength: 20 },
      },
      { name: 'email', label: 'Owner email', group: 'identity', required: false, type: 'email', kind: 'string', format: 'email' },
      { name: 'homepage', label: 'Homepage', group: 'details', required: false, type: 'url', kind: 'string' },
      {
        name: 'weight',
        label: 'Weight',
        group: 'details',
        required: false,
        type: 'number',
        kind: 'integer',
        validation: { min: 0, max: 10 },
      },
      { name: 'active', label: 'Active', group: 'details', required: false, type: 'checkbox', kind: 'boolean', default: true },
      {
        name: 'level',
        label: 'Level',
        group: 'details',
        required: true,
        type: 'select',
        kind: 'enum',
        default: 'basic',
        options: [
          { value: 'basic', label: 'Basic' },
          { value: 'expert', label: 'Expert', color: '#f00' },
        ],
      },
      {
        name: 'topic_id',
        label: 'Topic',
        group: 'details',
        required: false,
        type: 'select',
        association: { endpoint: 'topics', labelField: 'name', valueField: 'id' },
        options: [
          { value: 7, label: 'Logic' },
          { value: 9, label: 'Types' },
        ],
      },
      {
        name: 'tag_ids',
        label: 'Tags',
        group: 'tags',
        required: false,
        type: 'multiselect',
        association: { endpoint: 'tags', labelField: 'name' },
        options: [
          { value: '1', label: 'One' },
          { value: '2', label: 'Two' },
        ],
      },
      {
        name: 'formats',
        label: 'Formats',
        group: 'tags',
        required: false,
        type: 'checkbox_group',
        kind: 'array',
        options: [
          { value: 'pdf', label: 'PDF' },
          { value: 'ebook', label: 'Ebook' },
        ],
      },
      {
        name: 'reason',
        label: 'Reason',
        group: 'details',
        required: true,
        type: 'textarea',
        visibleWhen: { field: 'level', equals: 'expert' },
      },
      { name: 'starts', label: 'Starts', group: 'details', required: false, type: 'datetime-local', kind: 'datetime' },
    ],
    groupLayouts: { details: { type: 'row' } },
  },
  defaults: { name: '', level: 'basic', active: true },
  mode: 'create',
  submitMode: 'collect',
  hiddenValues: { domain_id: '12' },
  parentContext: { parentModel: 'domain', parentId: '12', label: 'Software Engineering' },
};

// Shaped like edit_model_app's result (update with recordId).
const UPDATE = {
  schema: {
    model: 'book',
    title: 'Edit Book',
    fieldsets: [{ key: 'default', title: 'Book Details', description: '', required: false, groups: ['default'] }],
    fields: [{ name: 'title', label: 'Title', group: 'default', required: true, type: 'text' }],
  },
  defaults: { id: 42, title: 'Dune' },
  mode: 'update',
  submitMode: 'direct',
  recordId: '42',
};

function parsed(value: unknown): { form: CollectFormPayload; warnings?: ReturnType<typeof formatProblem>[] } {
  const r = parseCollectForm(value);
  if (!r.ok) assert.fail(r.problems.map(formatProblem).join('\n'));
  return { form: r.form, warnings: r.warnings?.map(formatProblem) };
}

test('a create form reads with its schema, defaults, hidden values and parent context', () => {
  const { form, warnings } = parsed(CREATE);
  assert.equal(warnings, undefined);
  assert.equal(form.mode, 'create');
  assert.equal(form.submitMode, 'collect');
  assert.deepEqual(form.hiddenValues, { domain_id: '12' });
  assert.deepEqual(form.parentContext, { parentModel: 'domain', parentId: '12', label: 'Software Engineering' });
  assert.deepEqual(form.defaults, { name: '', level: 'basic', active: true });
  assert.equal(form.schema.title, 'Create Subdomains');
  assert.deepEqual(
    form.schema.fieldsets.map((f) => f.groups),
    [['identity'], ['details', 'tags']],
  );
  assert.deepEqual(form.schema.groupLayouts, { details: { type: 'row' } });
  const topic = form.schema.fields.find((f) => f.name === 'topic_id');
  assert.deepEqual(topic?.options, [
    { value: 7, label: 'Logic' },
    { value: 9, label: 'Types' },
  ]);
  assert.deepEqual(topic?.association, { endpoint: 'topics', labelField: 'name', valueField: 'id' });
  assert.deepEqual(form.schema.fields.find((f) => f.name === 'reason')?.visibleWhen, { field: 'level', equals: 'expert' });
  assert.equal(form.recordId, undefined);
});

test('an update form reads with its record id (numbers become strings)', () => {
  assert.equal(parsed(UPDATE).form.recordId, '42');
  assert.equal(parsed({ ...UPDATE, recordId: 42 }).form.recordId, '42');
  assert.equal(parsed(UPDATE).form.submitMode, 'direct');
});

test('lenient defaults: mode, submitMode, labels, groups, fieldsets, defaults', () => {
  const { form } = parsed({
    schema: {
      model: 'note',
      fields: [
        { name: 'body', type: 'textarea' },
        { name: 'n', type: 'number', required: null },
      ],
    },
    submitMode: 'collect',
  });
  assert.equal(form.mode, 'create');
  assert.deepEqual(form.defaults, {});
  assert.equal(form.schema.title, 'note');
  assert.deepEqual(form.schema.fields[0], { name: 'body', label: 'body', group: 'default', required: false, type: 'textarea' });
  assert.deepEqual(
    form.schema.fieldsets,
    [{ key: 'default', title: 'note', description: '', required: false, groups: ['default'] }],
    'a form without fieldsets gets one showing every group',
  );
});

test('unknown field types are kept as text with a warning; orphan groups and repeated names are flagged', () => {
  const { form, warnings } = parsed({
    ...UPDATE,
    schema: {
      ...UPDATE.schema,
      fields: [
        ...UPDATE.schema.fields,
        { name: 'cover', label: 'Cover', group: 'media', required: false, type: 'file' },
        { name: 'title', label: 'Title again', group: 'default', required: false, type: 'text' },
      ],
    },
  });
  const cover = form.schema.fields.find((f) => f.name === 'cover');
  assert.equal(cover?.type, 'text');
  assert.equal(cover?.rawType, 'file');
  assert.deepEqual(warnings, [
    'schema.fields[1].type: unknown field type "file"; "cover" is shown as a text field',
    'schema.fields[2].name: field "title" appears more than once; the form keeps one value per name',
    'schema.fieldsets: no fieldset shows the group "media"; their fields are shown in an extra section',
  ]);
  assert.deepEqual(form.schema.fieldsets.at(-1), {
    key: '_other',
    title: 'Other fields',
    description: '',
    required: false,
    groups: ['media'],
  });
});

test('malformed forms report every problem with its path', () => {
  const r = parseCollectForm({
    schema: { fields: [{ label: 'x' }, { name: 'a', options: [{ label: 'no value' }] }] },
    mode: 'edit',
    submitMode: 'later',
    recordId: {},
  });
  assert.ok(!r.ok);
  assert.deepEqual(r.problems.map(formatProblem), [
    'schema.model: Required',
    'schema.fields[0].name: Required',
    'schema.fields[1].options[0].value: Required',
    'mode: expected "create" or "update", got "edit"',
    'submitMode: expected "direct" or "collect", got "later"',
    'recordId: expected a string or a number, got an object',
  ]);
  assert.ok(!parseCollectForm('form').ok);
  assert.ok(!parseCollectForm(null).ok);
});

test('a form is recognised by schema.fields plus mode or submitMode', () => {
  assert.ok(looksLikeCollectForm(CREATE));
  assert.ok(looksLikeCollectForm({ schema: { fields: [] }, submitMode: 'direct' }));
  assert.ok(!looksLikeCollectForm({ schema: { fields: [] } }), 'a bare schema is not a form payload');
  assert.ok(!looksLikeCollectForm({ schema: { type: 'object' }, mode: 'create' }));
  assert.ok(!looksLikeCollectForm(JSON.parse('{"__proto__":{"schema":{"fields":[]},"mode":"create"}}')));
});

test('prototype keys in a form are data, never prototypes', () => {
  const { form } = parsed(
    JSON.parse(
      '{"schema":{"model":"m","fields":[{"name":"__proto__","type":"text","__proto__":{"required":true}}],"__proto__":{"title":"x"}},"mode":"create","defaults":{"__proto__":{"polluted":1}}}',
    ),
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(form.schema.title, 'm');
  assert.equal(form.schema.fields[0]?.required, false);
  assert.equal(Object.getPrototypeOf(form.schema.fields[0]), Object.prototype);
  assert.ok(Object.hasOwn(form.defaults, '__proto__'));
  const sub = formSubmission(form, JSON.parse('{"__proto__":{"x":1},"a":2}'));
  assert.ok(Object.hasOwn(sub.args.attributes as object, '__proto__'));
  assert.equal(Object.getPrototypeOf(sub.args.attributes), Object.prototype);
});

test('values whose toString or valueOf is not a function are data: converting and validating them never throws', () => {
  // Found by the fuzzer: String() on {"toString": 0} throws "Cannot convert object to primitive value".
  const { form } = parsed(
    JSON.parse(
      '{"schema":{"model":"Contact","fields":[{"name":"a","type":"select","options":[{"value":0,"label":"zero"}],"default":{"toString":0}},{"name":"b","type":"checkbox_group","options":[{"value":"x"}]},{"name":"c","type":"date"}]},"mode":"create"}',
    ),
  );
  const hostile = JSON.parse('{"toString":0,"valueOf":null}');
  const problems = validateFormValues(form.schema, { a: form.schema.fields[0]!.default, b: [hostile], c: hostile });
  assert.deepEqual(
    problems.map((p) => p.path),
    ['a', 'b', 'c'],
  );
  assert.match(problems[0]!.message, /must be one of/);
  assert.doesNotThrow(() => toFieldValue(form.schema.fields[1]!, [hostile]));
});

const field = (over: Partial<FormField>): FormField => ({ name: 'f', label: 'F', group: 'g', required: false, type: 'text', ...over });

test('toFieldValue converts control values per field type; empty values are left out', () => {
  const num = field({ type: 'number' });
  assert.equal(toFieldValue(num, '42'), 42);
  assert.equal(toFieldValue(num, ' -1.5 '), -1.5);
  assert.equal(toFieldValue(num, 7), 7);
  assert.equal(toFieldValue(num, ''), undefined);
  assert.equal(toFieldValue(num, 'abc'), 'abc', 'unconvertible stays for validation to report');

  const box = field({ type: 'checkbox' });
  for (const [raw, want] of [
    [true, true],
    [false, false],
    ['on', true],
    ['yes', true],
    ['TRUE', true],
    ['1', true],
    ['off', false],
    ['no', false],
    ['0', false],
    [1, true],
    [0, false],
    ['', undefined],
  ] as const) {
    assert.equal(toFieldValue(box, raw), want, `checkbox ${JSON.stringify(raw)}`);
  }

  const multi = field({
    type: 'multiselect',
    options: [
      { value: '1', label: 'One' },
      { value: 'a,b', label: 'Comma' },
    ],
  });
  assert.deepEqual(toFieldValue(multi, ['1', 2]), ['1', '2']);
  assert.deepEqual(toFieldValue(multi, '1, 3'), ['1', '3']);
  assert.deepEqual(toFieldValue(multi, 'a,b'), ['a,b'], 'a choice with a comma is not split');
  assert.equal(toFieldValue(multi, []), undefined);
  assert.equal(toFieldValue(multi, ''), undefined);
  assert.deepEqual(toFieldValue(field({ type: 'checkbox_group' }), 'pdf'), ['pdf']);

  const sel = field({
    type: 'select',
    options: [
      { value: 7, label: 'Logic' },
      { value: 'x', label: 'X' },
    ],
  });
  assert.equal(toFieldValue(sel, '7'), 7, 'association ids keep their number type');
  assert.equal(toFieldValue(sel, 'x'), 'x');
  assert.equal(toFieldValue(sel, ''), undefined);

  for (const type of ['date', 'datetime-local', 'time', 'color', 'email', 'url', 'text'] as const) {
    assert.equal(toFieldValue(field({ type }), ' 2030-01-15T10:00 '), '2030-01-15T10:00', type);
    assert.equal(toFieldValue(field({ type }), '   '), undefined, type);
  }
  assert.equal(toFieldValue(field({ type: 'textarea' }), '  two\nlines  '), '  two\nlines  ', 'textarea text is kept as typed');
  assert.equal(toFieldValue(field({ type: 'text' }), 5), '5');
  assert.equal(toFieldValue(field({ type: 'text' }), null), undefined);
});

test('validateFormValues checks required, numbers, lengths, email, URL and choices, skipping hidden fields', () => {
  const { form } = parsed(CREATE);
  const schema: AppFormSchema = form.schema;
  assert.deepEqual(validateFormValues(schema, { name: 'Compilers', level: 'basic' }), []);
  assert.deepEqual(validateFormValues(schema, {}).map(formatProblem), ['name: Name is required', 'level: Level is required']);
  assert.deepEqual(
    validateFormValues(schema, {
      name: 'x'.repeat(21),
      level: 'expert',
      email: 'not-an-email',
      homepage: 'javascript:alert(1)',
      weight: 11,
      formats: ['pdf', 'zip'],
      active: 'maybe',
    }).map(formatProblem),
    [
      'name: Name must be at most 20 characters',
      'email: Owner email must be an email address, like name@example.com',
      'homepage: Homepage must be a URL starting with http:// or https://',
      'weight: Weight must be at most 10',
      'active: Active must be true or false',
      'formats: Formats: "zip" is not a choice; choose from "pdf", "ebook"',
      'reason: Reason is required',
    ],
  );
  assert.deepEqual(validateFormValues(schema, { name: 'n', level: 'master', weight: 'ten' }).map(formatProblem), [
    'weight: Weight must be a number',
    'level: Level must be one of "basic", "expert"',
  ]);
  assert.deepEqual(
    validateFormValues(schema, { name: 'n', level: 'basic', topic_id: 12345, homepage: 'https://example.com/x', email: 'a@b.co' }),
    [],
    'association selects accept ids beyond the loaded options',
  );
  const required = field({ type: 'checkbox', required: true, label: 'Terms' });
  assert.deepEqual(validateFormValues({ ...schema, fields: [required] }, { f: false }).map(formatProblem), ['f: Terms must be checked']);
});

test('visibleWhen follows equals and notEquals on the current values', () => {
  const f = field({ visibleWhen: { field: 'kind', equals: 'other' } });
  assert.equal(isFieldVisible(f, { kind: 'other' }), true);
  assert.equal(isFieldVisible(f, { kind: 'book' }), false);
  assert.equal(isFieldVisible(f, {}), false);
  const g = field({ visibleWhen: { field: 'kind', notEquals: 'book' } });
  assert.equal(isFieldVisible(g, { kind: 'book' }), false);
  assert.equal(isFieldVisible(g, {}), true);
  assert.equal(isFieldVisible(field({}), {}), true);
});

test('formSubmission builds create_model with hidden values and update_model with record_id', () => {
  const create = formSubmission(parsed(CREATE).form, { name: 'Compilers', domain_id: undefined });
  assert.deepEqual(create, { tool: 'create_model', args: { model: 'subdomain', attributes: { domain_id: '12', name: 'Compilers' } } });
  const update = formSubmission(parsed(UPDATE).form, { title: 'Dune Messiah' });
  assert.deepEqual(update, { tool: 'update_model', args: { model: 'book', attributes: { title: 'Dune Messiah' }, record_id: '42' } });
});
