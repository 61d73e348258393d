import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateInput } from '../../src/core/plan/validateInput';

const SUCCESS = {
  kind: 'orchestrated_plan',
  version: '1',
  status: 'ok',
  instruction: 'Create a Demo page and one component.',
  next_actions: [{ tool: 'create_screen', args: { screen: 'Demo', components: ['HelloBox'] } }],
  follow_up: 'Add API wiring for HelloBox?',
  safety: { writes_code: true, touches_files: ['src/modules/demo/**'] },
};
const NORMALISED = { ...SUCCESS };

test('an envelope, as compact or indented JSON, is valid and comes back normalised', () => {
  for (const text of [JSON.stringify(SUCCESS), `\n${JSON.stringify(SUCCESS, null, 2)}\n`, `\uFEFF${JSON.stringify(SUCCESS)}`]) {
    assert.deepEqual(validateInput(text), { valid: true, kind: 'plan', plan: NORMALISED, source: 'input' });
  }
  const numeric = validateInput(JSON.stringify({ ...SUCCESS, status: 0, version: 1 }));
  assert.equal(numeric.valid, true);
  assert.equal(numeric.plan?.status, 'ok');
  assert.equal(numeric.plan?.version, '1');
  assert.deepEqual(numeric.warnings, [{ path: 'version', message: '1 read as version "1" (MCPFlow emits the string "1")' }]);
});

test('an invalid envelope lists every problem with envelope-relative paths', () => {
  const r = validateInput(
    JSON.stringify({ kind: 'orchestrated_plan', version: '2', status: 'Done', next_actions: [{ tool: 'a' }, { args: {} }] }),
  );
  assert.deepEqual(r, {
    valid: false,
    kind: 'plan',
    source: 'input',
    problems: [
      { path: 'version', message: 'major version 2 is not supported; Plangate reads version 1' },
      { path: 'status', message: 'expected one of ok, error, invalid, blocked, partial (or 0–4), got "Done"' },
      { path: 'next_actions[1].tool', message: 'Required' },
    ],
  });
});

test('a CallToolResult is classified like a live result; paths stay relative to the envelope', () => {
  const structured = validateInput(
    JSON.stringify({ content: [{ type: 'text', text: 'see structured' }], structuredContent: { ...SUCCESS, status: 7 } }),
  );
  assert.deepEqual(structured, {
    valid: false,
    kind: 'plan',
    source: 'structuredContent',
    problems: [{ path: 'status', message: 'expected one of ok, error, invalid, blocked, partial (or 0–4), got 7' }],
  });

  const text = validateInput(JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(SUCCESS) }] }));
  assert.deepEqual(text, { valid: true, kind: 'plan', plan: NORMALISED, source: 'text' });

  const rpc = validateInput(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      result: { content: [{ type: 'text', text: `Plan:\n\`\`\`json\n${JSON.stringify(SUCCESS)}\n\`\`\`` }] },
    }),
  );
  assert.deepEqual(rpc, { valid: true, kind: 'plan', plan: NORMALISED, source: 'fenced' });

  const none = validateInput(JSON.stringify({ content: [{ type: 'text', text: 'Successfully wrote to /tmp/a.txt' }] }));
  assert.deepEqual(none, {
    valid: false,
    kind: 'plain',
    problems: [{ path: '', message: 'no orchestrated_plan envelope found in structuredContent or in any text block' }],
  });
});

test('prose with a fenced envelope is read; a broken fence says where and why', () => {
  const good = validateInput(`The server said:\n\n\`\`\`json\n${JSON.stringify(SUCCESS, null, 2)}\n\`\`\`\n`);
  assert.deepEqual(good, { valid: true, kind: 'plan', plan: NORMALISED, source: 'fenced' });

  const broken = validateInput('Intro\n\n```json\n{"kind": "orchestrated_plan", "version": "1",}\n```\n');
  assert.equal(broken.valid, false);
  assert.equal(broken.kind, 'plain');
  assert.match(broken.problems?.[0]?.message ?? '', /^no orchestrated_plan envelope found: the fenced block at line 4 is not valid JSON: /);

  assert.match(
    validateInput('```json\n{"kind":"other"}\n```').problems?.[0]?.message ?? '',
    /the fenced block at line 2 has kind "other", not "orchestrated_plan"/,
  );
  assert.match(validateInput('```ts\nconst x = 1\n```').problems?.[0]?.message ?? '', /the text has no ```json fenced block/);
});

test('a collect-mode form is recognised but is not a valid plan', () => {
  const form = {
    schema: {
      model: 'Contact',
      title: 'Create Contact',
      fieldsets: [],
      fields: [{ name: 'name', label: 'Name', group: 'default', required: true, type: 'text' }],
    },
    defaults: {},
    mode: 'create',
    submitMode: 'collect',
  };
  const expected = {
    valid: false,
    kind: 'collect_form',
    problems: [{ path: '', message: 'this is an mcp-rune collect-mode form, not an orchestrated_plan envelope' }],
  };
  assert.deepEqual(validateInput(JSON.stringify(form)), expected);
  assert.deepEqual(validateInput(JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(form) }] })), expected);
  const broken = validateInput(JSON.stringify({ ...form, mode: 'destroy' }));
  assert.equal(broken.kind, 'collect_form');
  assert.deepEqual(broken.problems?.[1], { path: 'mode', message: 'expected "create" or "update", got "destroy"' });
});

test('empty input, garbage, malformed JSON and other JSON are plain and say what they are', () => {
  const message = (text: string) => {
    const r = validateInput(text);
    assert.equal(r.valid, false);
    assert.equal(r.kind, 'plain');
    assert.equal(r.problems?.length, 1);
    return `${r.problems?.[0]?.path}|${r.problems?.[0]?.message}`;
  };
  assert.equal(
    message(''),
    '|the input is empty; expected an orchestrated_plan envelope, a CallToolResult, or text with a ```json fenced envelope',
  );
  assert.equal(message('  \n\t'), message(''));
  assert.equal(
    message('hello world'),
    '|no orchestrated_plan envelope found: the input is neither a JSON object nor text with a ```json fenced block',
  );
  assert.match(message('{"kind": "orchestrated_plan", "version": }'), /^\|the input is not valid JSON: /);
  assert.equal(message('[1, 2]'), '|no orchestrated_plan envelope found: the input is a JSON array; expected an object');
  assert.equal(
    message('{"kind":"workflow","version":"1"}'),
    'kind|expected "orchestrated_plan", got "workflow"; this is not an orchestrated_plan envelope',
  );
  assert.equal(
    message('{"name":"x"}'),
    'kind|Required: this JSON object is neither an orchestrated_plan envelope (kind "orchestrated_plan") nor a CallToolResult (content)',
  );
  assert.equal(
    message('{"error":"Unknown model: X. Available: A"}'),
    'kind|Required: this JSON object is neither an orchestrated_plan envelope (kind "orchestrated_plan") nor a CallToolResult (content)',
  );
  assert.equal(
    message(JSON.stringify({ content: [{ type: 'text', text: '{"error":"Unknown model: X. Available: A"}' }] })),
    '|no orchestrated_plan envelope found; the result is an mcp-rune form error: Unknown model: X. Available: A',
  );
  assert.equal(message('{"__proto__":{"kind":"orchestrated_plan","version":"1","status":"ok"}}').startsWith('kind|Required'), true);
});

test('hostile input: deep nesting and huge strings are reported, not crashed on', () => {
  const deep = validateInput(
    `{"kind":"orchestrated_plan","version":"1","status":"ok","next_actions":[{"tool":"t","args":${'['.repeat(20_000)}${']'.repeat(20_000)}}]}`,
  );
  assert.equal(deep.valid, false);
  assert.match(deep.problems?.[0]?.path ?? '', /^next_actions\[0\]\.args(\[0\])+$/);
  const big = validateInput(JSON.stringify({ ...SUCCESS, instruction: 'x'.repeat(1_100_000) }));
  assert.deepEqual(big.problems, [
    { path: 'instruction', message: 'a string of 1,100,000 characters is longer than the limit of 1,048,576' },
  ]);
});
