// The fixture MCP server, exercised with the real SDK Client over stdio, streamable HTTP and legacy SSE.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { fixtureCommand, startFixtureHttp, startFixtureStdio, type HttpFixture, type StdioFixture } from './helpers/fixture.js';

type Obj = Record<string, unknown>;

const SERVER_FILESYSTEM = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

function textOf(result: unknown): string {
  const block = (result as CallToolResult).content[0];
  assert.ok(block && block.type === 'text', 'first content block is text');
  return block.text;
}

/** The plan a host would detect: structuredContent, else the (possibly fenced) JSON of the first text block. */
function planOf(result: unknown): Obj {
  const r = result as CallToolResult;
  if (r.structuredContent) return r.structuredContent as Obj;
  const text = textOf(r);
  const fenced = /```json\n([\s\S]*?)\n```/.exec(text);
  return JSON.parse(fenced ? fenced[1]! : text) as Obj;
}

function jsonOf(result: unknown): Obj {
  return JSON.parse(textOf(result)) as Obj;
}

async function call(client: Client, name: string, args: Obj = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('fixture server over stdio', () => {
  let fx: StdioFixture;
  before(async () => {
    fx = await startFixtureStdio();
  });
  after(() => fx.close());

  test('lists its tools with descriptions, input schemas, annotations and UI metadata', async () => {
    const { tools } = await fx.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      'plan_scaffold',
      'plan_status',
      'create_screen',
      'slow',
      'hang',
      'new_model_app',
      'collect_form_data',
      'check_approval',
    ]) {
      assert.ok(byName.has(name), `${name} is listed`);
    }
    for (const t of tools) assert.ok(t.description && t.description.length > 10, `${t.name} has a description`);
    assert.equal(byName.get('plan_scaffold')!.annotations?.readOnlyHint, true);
    assert.equal(byName.get('write_file_step')!.annotations?.destructiveHint, true);
    assert.deepEqual(byName.get('plan_status')!.inputSchema.required, ['status']);
    assert.deepEqual(byName.get('new_model_app')!._meta, {
      ui: { resourceUri: 'ui://fixture/new-model-app', visibility: ['model', 'app'] },
      'ui/resourceUri': 'ui://fixture/new-model-app',
    });
    assert.deepEqual((byName.get('collect_form_data')!._meta as Obj).ui, {
      resourceUri: 'ui://fixture/new-model-app',
      visibility: ['app'],
    });
    assert.deepEqual(byName.get('get_form_data')!._meta, { ui: { visibility: ['model'] } });
  });

  test('plan_scaffold speaks every encoding', async () => {
    const expectStatus = { json: 'ok', fenced: 'ok', structured: 'ok', pascal: 'Ok', numeric: 0, string: 'ok' } as const;
    for (const [encoding, status] of Object.entries(expectStatus)) {
      const result = await call(fx.client, 'plan_scaffold', { screen: 'Payroll', encoding });
      const p = planOf(result);
      assert.equal(p.kind, 'orchestrated_plan', encoding);
      assert.equal(p.version, '1', encoding);
      assert.equal(p.status, status, encoding);
      const steps = p.next_actions as Obj[];
      assert.deepEqual(
        steps.map((s) => s.tool),
        ['create_screen', 'create_component', 'create_component', 'create_component'],
      );
      assert.deepEqual(p.safety, { writes_code: true, touches_files: ['src/modules/payroll/**'] });
      assert.equal(p.follow_up, 'Wire the new components to the API now?');
    }
    const structured = await call(fx.client, 'plan_scaffold', { encoding: 'structured' });
    assert.deepEqual(JSON.parse(textOf(structured)), structured.structuredContent, 'structured also carries the JSON text');
    assert.match(textOf(await call(fx.client, 'plan_scaffold', { encoding: 'fenced' })), /^Here is the plan[\s\S]*```json\n/);
    assert.match(textOf(await call(fx.client, 'plan_scaffold', { encoding: 'string' })), /\n {2}"kind"/, 'string is indented');
    assert.doesNotMatch(textOf(await call(fx.client, 'plan_scaffold', {})), /\n/, 'json is compact');
  });

  test('plan_status returns the README examples with their recovery features', async () => {
    const error = planOf(await call(fx.client, 'plan_status', { status: 'error', encoding: 'numeric' }));
    assert.equal(error.status, 1);
    assert.deepEqual(error.missing, ['componentId']);
    const field = ((error.ask as Obj).fields as Obj[])[0]!;
    assert.equal(field.type, 2, 'select is 2 when numeric');
    assert.ok((field.options as string[]).includes('PayPeriodConfigurator'));
    const recovery = error.recovery_actions as Obj[];
    assert.deepEqual(recovery[1], {
      tool: 'create_placeholder_component',
      args: { name: 'NewComponent' },
      label: 'Create placeholder (safe)',
      confirm: true,
    });
    assert.deepEqual(error.next_actions, [], 'C# always emits next_actions');
    const partial = planOf(await call(fx.client, 'plan_status', { status: 'partial', encoding: 'pascal' }));
    assert.equal(partial.status, 'Partial');
    assert.deepEqual(
      (partial.partial_results as Obj[]).map((r) => r.outcome),
      ['Ok', 'Skipped', 'Failed'],
    );
    assert.ok(Array.isArray(partial.warnings));
    const blocked = planOf(await call(fx.client, 'plan_status', { status: 'blocked', encoding: 'fenced' }));
    assert.equal(blocked.status, 'blocked');
    assert.equal('next_actions' in blocked, false, 'fenced drops an empty next_actions like the README');
    for (const status of ['ok', 'invalid']) {
      assert.equal(planOf(await call(fx.client, 'plan_status', { status })).correlation_id, `corr-${status}-0001`);
    }
  });

  test('plan_component asks for a componentId, then re-plans with the answer', async () => {
    const asked = planOf(await call(fx.client, 'plan_component', { screen: 'Payroll', componentId: 'abc123' }));
    assert.equal(asked.status, 'error');
    assert.equal((asked.errors as Obj[])[0]!.code, 'NOT_FOUND');
    assert.equal((asked.errors as Obj[])[0]!.field, 'componentId');
    const options = ((asked.ask as Obj).fields as Obj[])[0]!.options as string[];
    const replanned = planOf(await call(fx.client, 'plan_component', { screen: 'Payroll', componentId: options[0] }));
    assert.equal(replanned.status, 'ok');
    assert.deepEqual((replanned.next_actions as Obj[])[0], {
      tool: 'create_component',
      args: { screen: 'Payroll', name: options[0] },
      label: `Create component ${options[0]}`,
    });
  });

  test('steps of plan_scaffold write real files under the root', async () => {
    const p = planOf(await call(fx.client, 'plan_scaffold', { screen: 'Billing', components: ['InvoiceList'] }));
    for (const s of p.next_actions as Obj[]) {
      const r = await call(fx.client, s.tool as string, s.args as Obj);
      assert.equal(r.isError, undefined, textOf(r));
    }
    assert.match(readFileSync(join(fx.root, 'src/modules/billing/index.ts'), 'utf8'), /InvoiceList/);
    assert.ok(existsSync(join(fx.root, 'src/modules/billing/InvoiceList.tsx')));
    assert.equal(textOf(await call(fx.client, 'write_file_step', { path: 'docs/a.md', content: 'hi' })), 'Wrote 2 bytes to docs/a.md');
    assert.equal(readFileSync(join(fx.root, 'docs/a.md'), 'utf8'), 'hi');
    for (const path of ['../escape.txt', '/etc/passwd', 'a/../../b']) {
      const refused = await call(fx.client, 'write_file_step', { path, content: 'x' });
      assert.equal(refused.isError, true, path);
      assert.match(textOf(refused), /refused/);
    }
  });

  test('edit_text predicts a diff with dryRun and applies it without', async () => {
    writeFileSync(join(fx.root, 'greeting.txt'), 'hello world\nline2\n');
    const p = planOf(await call(fx.client, 'plan_edit_dry_run', { path: 'greeting.txt' }));
    const s = (p.next_actions as Obj[])[0]!;
    assert.equal(s.tool, 'edit_text');
    const dry = await call(fx.client, 'edit_text', { ...(s.args as Obj), dryRun: true });
    assert.match(textOf(dry), /-hello world\n\+hello plan world/);
    assert.equal(readFileSync(join(fx.root, 'greeting.txt'), 'utf8'), 'hello world\nline2\n', 'dry run writes nothing');
    await call(fx.client, 'edit_text', s.args as Obj);
    assert.equal(readFileSync(join(fx.root, 'greeting.txt'), 'utf8'), 'hello plan world\nline2\n');
    const missing = await call(fx.client, 'edit_text', { path: 'greeting.txt', edits: [{ oldText: 'absent', newText: 'x' }] });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /Could not find exact match/);
  });

  test('the call log records every tools/call in order before it runs', async () => {
    const before = fx.callLog().length;
    await call(fx.client, 'echo', { message: 'one' });
    await call(fx.client, 'fail', { message: 'two' });
    await call(fx.client, 'no_such_tool', { x: 1 });
    const entries = fx.callLog().slice(before);
    assert.deepEqual(
      entries.map((e) => [e.tool, e.args]),
      [
        ['echo', { message: 'one' }],
        ['fail', { message: 'two' }],
        ['no_such_tool', { x: 1 }],
      ],
    );
    const all = fx.callLog();
    assert.deepEqual(
      all.map((e) => e.seq),
      all.map((_, i) => i + 1),
    );
    assert.ok(entries.every((e) => e.session === undefined && typeof e.at === 'number'));
  });

  test('slow reports progress and hang stops on cancel', async () => {
    const seen: { progress: number; total?: number }[] = [];
    const r = await fx.client.callTool({ name: 'slow', arguments: { ms: 150, steps: 3 } }, undefined, {
      onprogress: (p) => void seen.push({ progress: p.progress, total: p.total }),
    });
    assert.match(textOf(r), /Finished 3 steps/);
    assert.deepEqual(
      seen,
      [1, 2, 3].map((progress) => ({ progress, total: 3 })),
    );

    const abort = new AbortController();
    const hung = fx.client.callTool({ name: 'hang', arguments: {} }, undefined, { signal: abort.signal });
    setTimeout(() => abort.abort('user pressed Stop'), 100);
    await assert.rejects(hung, /user pressed Stop/);
    assert.equal(fx.callLog().at(-1)!.tool, 'hang');
    assert.equal(textOf(await call(fx.client, 'echo', { message: 'still alive' })), 'still alive');
  });

  test('collect mode: form schema, stage, read back, submit, validate', async () => {
    const form = jsonOf(await call(fx.client, 'new_model_app', { model: 'Contact', mode: 'form' }));
    assert.equal(form.mode, 'create');
    assert.equal(form.submitMode, 'collect');
    const schema = form.schema as Obj;
    const types = new Set((schema.fields as Obj[]).map((f) => f.type));
    for (const t of [
      'text',
      'textarea',
      'number',
      'checkbox',
      'date',
      'datetime-local',
      'time',
      'email',
      'url',
      'color',
      'select',
      'multiselect',
      'checkbox_group',
    ]) {
      assert.ok(types.has(t), `Contact has a ${t} field`);
    }
    assert.equal((schema.fieldsets as Obj[]).length, 2);
    assert.equal((form.defaults as Obj).status, 'lead');

    const fields = { name: 'Grace Hopper', email: 'grace@example.com', status: 'partner', channels: ['sms'] };
    const staged = jsonOf(await call(fx.client, 'collect_form_data', { model: 'Contact', fields }));
    assert.equal(staged.ok, true);
    assert.match(staged.message as string, /Form data collected for Contact \(4 fields\)/);
    const read = jsonOf(await call(fx.client, 'get_form_data', { model: 'Contact' }));
    assert.deepEqual((read.entry as Obj).fields, fields);
    assert.equal((read.entry as Obj).mode, 'create');
    assert.equal(jsonOf(await call(fx.client, 'get_form_data', {})).count, 1);
    assert.equal(jsonOf(await call(fx.client, 'get_form_data', { model: 'Project' })).entry, null);

    const created = jsonOf(await call(fx.client, 'create_model', { model: 'Contact', attributes: (read.entry as Obj).fields as Obj }));
    assert.equal(created.status, 'created');
    const got = jsonOf(await call(fx.client, 'get_record', { model: 'Contact', record_id: created.id as string }));
    assert.equal((got.record as Obj).name, 'Grace Hopper');

    const bad = await call(fx.client, 'create_model', { model: 'Contact', attributes: { ...fields, email: 'not-an-email' } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /422.*"email"/);
    const noId = await call(fx.client, 'update_model', { model: 'Contact', attributes: { name: 'x' } });
    assert.equal(noId.isError, true, 'update_model requires record_id');
    const updated = jsonOf(await call(fx.client, 'update_model', { model: 'Contact', record_id: 'c-1', attributes: { age: 37 } }));
    assert.equal((updated.record as Obj).age, 37);

    const edit = jsonOf(await call(fx.client, 'edit_model_app', { model: 'Contact', record_id: 'c-1' }));
    assert.equal(edit.mode, 'update');
    assert.equal(edit.recordId, 'c-1');
    assert.equal((edit.defaults as Obj).email, 'ada@example.com');

    const page = await fx.client.readResource({ uri: 'ui://fixture/new-model-app' });
    assert.equal(page.contents[0]!.mimeType, 'text/html;profile=mcp-app');
  });

  test('collect mode: associations, hidden values, parent context and the odd answers', async () => {
    const needed = jsonOf(await call(fx.client, 'new_model_app', { model: 'Project', mode: 'form' }));
    assert.equal(needed.status, 'associations_needed');
    const form = jsonOf(
      await call(fx.client, 'new_model_app', { model: 'Project', mode: 'form', prefill: { contact_id: 'c-1', name: 'Engine' } }),
    );
    assert.deepEqual(form.hiddenValues, { contact_id: 'c-1' });
    assert.deepEqual(form.parentContext, { parentModel: 'Contact', parentId: 'c-1', label: 'Ada Lovelace' });
    assert.equal((form.defaults as Obj).name, 'Engine');
    const unknown = await call(fx.client, 'new_model_app', { model: 'Invoice', mode: 'form' });
    assert.equal(unknown.isError, undefined, 'an unknown model is not an isError result');
    assert.match(jsonOf(unknown).error as string, /^Unknown model: Invoice\. Available: Contact, Project/);
    const noMode = await call(fx.client, 'new_model_app', { model: 'Contact' });
    assert.equal(noMode.isError, true);
    assert.match(textOf(noMode), /mode: "form"/);
  });

  test('approval: pending, then approved; "REJECT ME" is rejected', async () => {
    await call(fx.client, 'collect_form_data', { model: 'Contact', fields: { name: 'Linus', email: 'l@example.com' } });
    const { approval_id } = jsonOf(await call(fx.client, 'request_approval', { model: 'Contact' }));
    const poll = async () => jsonOf(await call(fx.client, 'check_approval', { approval_id }));
    assert.equal((await poll()).status, 'pending');
    assert.equal((await poll()).status, 'pending');
    assert.equal((await poll()).status, 'approved');
    await call(fx.client, 'collect_form_data', { model: 'Contact', fields: { name: 'REJECT ME' } });
    const second = jsonOf(await call(fx.client, 'request_approval', { model: 'Contact' }));
    await call(fx.client, 'check_approval', { approval_id: second.approval_id });
    await call(fx.client, 'check_approval', { approval_id: second.approval_id });
    const rejected = jsonOf(await call(fx.client, 'check_approval', { approval_id: second.approval_id }));
    assert.equal(rejected.status, 'rejected');
    assert.match(rejected.reason as string, /REJECT ME/);
  });

  test('hostile, broken and odd plans', async () => {
    const xss = planOf(await call(fx.client, 'plan_xss'));
    assert.equal(xss.instruction, '<img src=x onerror=alert(1)>');
    const args = (xss.next_actions as Obj[])[0]!.args as Obj;
    assert.ok(Object.hasOwn(args, '__proto__'), '__proto__ arrives as an own key');
    assert.equal(({} as Obj).polluted, undefined);

    assert.equal(planOf(await call(fx.client, 'plan_invalid', { variant: 'version' })).version, '2');
    const missing = planOf(await call(fx.client, 'plan_invalid', { variant: 'missing_tool' }));
    assert.equal('tool' in (missing.next_actions as Obj[])[1]!, false);

    const cross = planOf(await call(fx.client, 'plan_cross_server', { root: fx.root }));
    const paths = (cross.next_actions as Obj[]).map((s) => (s.args as Obj).path as string);
    assert.deepEqual(
      (cross.next_actions as Obj[]).map((s) => s.tool),
      ['edit_file', 'write_file', 'write_file'],
    );
    assert.ok(paths.every((p) => isAbsolute(p) && p.startsWith(fx.root)));
    assert.deepEqual((cross.safety as Obj).touches_files, ['notes.md', 'src/**']);

    const big = planOf(await call(fx.client, 'plan_big', { steps: 5000 }));
    assert.equal((big.next_actions as Obj[]).length, 5000);

    const level1 = planOf(await call(fx.client, 'nested_plan_step', { depth: 2 }));
    assert.deepEqual((level1.next_actions as Obj[])[0]!.args, { depth: 1 });
    assert.match(textOf(await call(fx.client, 'nested_plan_step', { depth: 0 })), /bottom/);

    await assert.rejects(fx.client.callTool({ name: 'plan_schema_mismatch', arguments: {} }), /Structured content does not match/);
    assert.equal(planOf(await call(fx.client, 'plan_schema_mismatch', { conform: true })).status, 0);
  });

  test('malformed, huge and deep results', async () => {
    const malformed = textOf(await call(fx.client, 'malformed_json'));
    assert.match(malformed, /^\{"kind":"orchestrated_plan"/);
    assert.throws(() => JSON.parse(malformed), SyntaxError);
    assert.equal(textOf(await call(fx.client, 'big_result', { mb: 1 })).length, 1024 * 1024);
    const deep = textOf(await call(fx.client, 'deep_nesting', { depth: 10_000 }));
    assert.equal(deep.length, 10_000 * 6 + 4);
  });

  test('plan_cross_server steps run on the real server-filesystem', async () => {
    const root = realpathSync(fx.root);
    writeFileSync(join(root, 'notes.md'), 'title\nstatus: draft\n');
    mkdirSync(join(root, 'src'), { recursive: true });
    mkdirSync(join(root, 'outside'), { recursive: true });
    const fs = new Client({ name: 'plangate-test', version: '0.0.0' });
    await fs.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER_FILESYSTEM, root], stderr: 'pipe' }));
    try {
      const p = planOf(await call(fx.client, 'plan_cross_server', { root }));
      for (const s of p.next_actions as Obj[]) {
        const r = await call(fs, s.tool as string, s.args as Obj);
        assert.equal(r.isError, undefined, textOf(r));
      }
    } finally {
      await fs.close();
    }
    assert.equal(readFileSync(join(root, 'notes.md'), 'utf8'), 'title\nstatus: reviewed\n');
    assert.ok(existsSync(join(root, 'src/new.txt')));
    assert.ok(existsSync(join(root, 'outside/undeclared.txt')));
  });

  test('add_tool registers a tool at runtime and announces it', async () => {
    const changed = new Promise<void>((done) => fx.client.setNotificationHandler(ToolListChangedNotificationSchema, () => done()));
    assert.equal(textOf(await call(fx.client, 'add_tool', { name: 'late_tool' })), 'Added tool late_tool');
    await changed;
    const { tools } = await fx.client.listTools();
    assert.ok(tools.some((t) => t.name === 'late_tool'));
    assert.equal(textOf(await call(fx.client, 'late_tool', { message: 'hi' })), 'late_tool: hi');
    assert.equal((await call(fx.client, 'add_tool', { name: 'late_tool' })).isError, true);
  });
});

describe('fixture server over streamable HTTP', () => {
  let fx: HttpFixture;
  before(async () => {
    fx = await startFixtureHttp();
  });
  after(() => fx.close());

  test('serves sessions, logs calls with their session id, keeps collect stores per session', async () => {
    assert.match(fx.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const a = await fx.connect();
    const b = await fx.connect();
    assert.equal(a.getServerVersion()?.name, 'plangate-fixture');
    assert.ok((await a.listTools()).tools.length > 40);
    assert.equal(planOf(await call(a, 'plan_scaffold', { encoding: 'pascal' })).status, 'Ok');
    await call(a, 'collect_form_data', { model: 'Contact', fields: { name: 'only in a' } });
    assert.equal(jsonOf(await call(b, 'get_form_data', { model: 'Contact' })).entry, null);
    assert.equal(((jsonOf(await call(a, 'get_form_data', { model: 'Contact' })).entry as Obj).fields as Obj).name, 'only in a');
    const sessions = new Set(fx.callLog().map((e) => e.session));
    assert.equal(sessions.size, 2);
    assert.ok([...sessions].every((s) => typeof s === 'string' && s.length > 0));
  });

  test('step tools write files, progress arrives, hang cancels', async () => {
    const c = await fx.connect();
    await call(c, 'create_component', { screen: 'Payroll', name: 'Widget' });
    assert.ok(existsSync(join(fx.root, 'src/modules/payroll/Widget.tsx')));
    const seen: number[] = [];
    await c.callTool({ name: 'slow', arguments: { ms: 90, steps: 3 } }, undefined, { onprogress: (p) => void seen.push(p.progress) });
    assert.deepEqual(seen, [1, 2, 3]);
    const abort = new AbortController();
    const hung = c.callTool({ name: 'hang', arguments: {} }, undefined, { signal: abort.signal });
    setTimeout(() => abort.abort('stop'), 100);
    await assert.rejects(hung, /stop/);
    assert.equal(textOf(await call(c, 'echo', { message: 'after hang' })), 'after hang');
  });

  test('elicit_name asks the client through elicitation/create', async () => {
    const c = await fx.connect({ capabilities: { elicitation: { form: {} } } });
    let asked: Obj | undefined;
    c.setRequestHandler(ElicitRequestSchema, (req) => {
      asked = (req.params as Obj).requestedSchema as Obj;
      return { action: 'accept', content: { name: 'Ada', age: 36 } };
    });
    const r = await call(c, 'elicit_name');
    assert.deepEqual((asked as Obj).required, ['name']);
    assert.equal(textOf(r), 'action: accept\ncontent: {"name":"Ada","age":36}');
    const noSupport = await call(await fx.connect(), 'elicit_name');
    assert.equal(noSupport.isError, true, 'a client without elicitation gets an isError result');
  });
});

describe('fixture server start-up modes', { concurrency: true }, () => {
  test('--legacy-sse serves the old transport and refuses streamable HTTP with 405', async () => {
    const fx = await startFixtureHttp({ legacySse: true });
    try {
      const streamable = new Client({ name: 't', version: '0' });
      await assert.rejects(streamable.connect(new StreamableHTTPClientTransport(new URL(fx.url))), (err: unknown) => {
        assert.ok(err instanceof StreamableHTTPError);
        assert.equal(err.code, 405);
        return true;
      });
      const sse = new Client({ name: 't', version: '0' });
      await sse.connect(new SSEClientTransport(new URL(fx.url)));
      assert.equal(textOf(await call(sse, 'echo', { message: 'over sse' })), 'over sse');
      assert.equal(fx.callLog()[0]!.tool, 'echo');
      await sse.close();
    } finally {
      await fx.close();
    }
  });

  test('--require-header answers 401 without the header; --submit-mode direct', async () => {
    const fx = await startFixtureHttp({ requireHeader: 'Authorization=Bearer sesame', args: ['--submit-mode', 'direct'] });
    try {
      await assert.rejects(fx.connect(), (err: unknown) => err instanceof StreamableHTTPError && err.code === 401);
      await assert.rejects(
        fx.connect({ headers: { Authorization: 'Bearer wrong' } }),
        (err: unknown) => err instanceof StreamableHTTPError && err.code === 401,
      );
      const c = await fx.connect({ headers: { Authorization: 'Bearer sesame' } });
      assert.equal(jsonOf(await call(c, 'new_model_app', { model: 'Contact', mode: 'form' })).submitMode, 'direct');
      const { tools } = await c.listTools();
      assert.equal(
        tools.some((t) => t.name === 'collect_form_data'),
        false,
        'direct mode has no collect tools',
      );
    } finally {
      await fx.close();
    }
  });

  test('--fail-start prints its message to stderr and exits 1', async () => {
    const cmd = fixtureCommand(['--fail-start', 'plain run']);
    const plain = new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(cmd.command, cmd.args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('close', (code) => done({ code, stderr }));
    });
    await Promise.all([
      assert.rejects(startFixtureStdio({ args: ['--fail-start', 'database is on fire'] }), /Connection closed[\s\S]*database is on fire/),
      assert.rejects(startFixtureHttp({ args: ['--fail-start', 'port is haunted'] }), /exited with code 1[\s\S]*port is haunted/),
    ]);
    assert.deepEqual(await plain, { code: 1, stderr: 'plain run\n' });
  });

  test('crash exits with code 3 after a line on stderr', async () => {
    const fx = await startFixtureHttp();
    try {
      const c = await fx.connect();
      await assert.rejects(c.callTool({ name: 'crash', arguments: {} }));
      assert.equal(await fx.exited, 3);
      assert.match(fx.stderr(), /crash tool was called/);
      assert.equal(fx.callLog().at(-1)!.tool, 'crash');
    } finally {
      await fx.close();
    }
  });

  test('crash over stdio closes the connection', async () => {
    const fx = await startFixtureStdio();
    try {
      const closed = new Promise<void>((done) => (fx.client.onclose = () => done()));
      await assert.rejects(fx.client.callTool({ name: 'crash', arguments: {} }), /Connection closed/);
      await closed;
      assert.match(fx.stderr(), /crash tool was called/);
    } finally {
      await fx.close();
    }
  });

  test('close_stdout answers, then the session goes silent while the process lives', async () => {
    const fx = await startFixtureStdio();
    try {
      assert.match(textOf(await call(fx.client, 'close_stdout')), /Closing stdout/);
      await assert.rejects(fx.client.callTool({ name: 'echo', arguments: { message: 'x' } }, undefined, { timeout: 300 }), /timed out/);
      assert.doesNotThrow(() => process.kill(fx.transport.pid!, 0), 'the server process is still alive');
    } finally {
      await fx.close();
    }
  });
});

describe('fixture server with --demo (what `npm run demo` and "Add the Demo Server" start)', () => {
  let fx: StdioFixture;
  before(async () => {
    fx = await startFixtureStdio({ args: ['--demo'] });
  });
  after(() => fx.close());

  test("lists a short list: the plans the demo workspace walks through, the tools they call, the form; none of the tests' own", async () => {
    const { tools } = await fx.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'collect_form_data',
      'create_component',
      'create_model',
      'create_placeholder_component',
      'create_screen',
      'echo',
      'fail',
      'get_form_data',
      'list_detected_components',
      'new_model_app',
      'plan_component',
      'plan_confirm',
      'plan_failing',
      'plan_scaffold',
      'succeed',
    ]);
    for (const t of tools)
      assert.doesNotMatch(t.description ?? '', /must never|on purpose|hostile|for (validation )?tests/i, `${t.name}: ${t.description}`);
  });

  test("the demo's tool forms show no test knob: no plan tool offers `encoding`, and a plan comes back as JSON text", async () => {
    const { tools } = await fx.client.listTools();
    for (const t of tools) assert.ok(!('encoding' in (t.inputSchema.properties ?? {})), `${t.name} offers "encoding"`);
    const r = await call(fx.client, 'plan_failing', { encoding: 'pascal' });
    assert.equal(r.structuredContent, undefined);
    assert.equal((JSON.parse(textOf(r)) as Obj).status, 'ok', 'the default encoding, whatever a client sends');
  });

  test("every tool the demo workspace's README names, and every step and recovery action of the demo's plans, is listed", async () => {
    const listed = new Set((await fx.client.listTools()).tools.map((t) => t.name));
    const demoScript = readFileSync(join(import.meta.dirname, '../../scripts/demo.sh'), 'utf8');
    const readme = /cat > "\$WS\/README\.md" <<'MD'\n([\s\S]*?)\nMD\n/.exec(demoScript)?.[1];
    assert.ok(readme, "scripts/demo.sh writes the demo workspace's README");
    const named = [...readme.matchAll(/`((?:plan|new|edit)_[a-z_]+)`/g)].map((m) => m[1]!);
    assert.ok(named.length >= 4, `the README names the tools to try: ${named.join(', ')}`);
    for (const name of named) assert.ok(listed.has(name), `the demo README names ${name}, which is not listed`);
    const calls: [string, Obj][] = [
      ['plan_scaffold', {}],
      ['plan_component', {}],
      ['plan_component', { componentId: 'PayPeriodConfigurator' }],
      ['plan_failing', {}],
      ['plan_confirm', {}],
    ];
    for (const [tool, args] of calls) {
      const plan = planOf(await call(fx.client, tool, args));
      for (const s of [...((plan.next_actions ?? []) as Obj[]), ...((plan.recovery_actions ?? []) as Obj[])]) {
        if (s.tool === 'ask_user') continue; // answered by the host
        assert.ok(listed.has(s.tool as string), `${tool} calls ${String(s.tool)}, which is not listed`);
      }
    }
  });

  test('a test-only tool is refused when called by name, also one the plan tools answer directly', async () => {
    for (const name of ['plan_crash', 'plan_invalid']) {
      const r = await call(fx.client, name);
      assert.equal(r.isError, true, `${name} is refused`);
      assert.match(textOf(r), /disabled|not found/i);
    }
  });

  test('the demo walk-through still works: plan_scaffold plans, its steps write files', async () => {
    const plan = planOf(await call(fx.client, 'plan_scaffold', { screen: 'Payroll', components: ['Box'] }));
    const steps = plan.next_actions as { tool: string; args: Obj }[];
    assert.deepEqual(
      steps.map((s) => s.tool),
      ['create_screen', 'create_component'],
    );
    for (const s of steps) assert.notEqual((await call(fx.client, s.tool, s.args)).isError, true);
    assert.ok(existsSync(join(fx.root, 'src/modules/payroll/Box.tsx')));
  });
});
