import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { classifyResult } from '../../src/core/plan/classify';
import type { CollectFormPayload } from '../../src/core/plan/collectForm';
import { CancellationTokenSource } from '../../src/core/base/lifecycle';
import { MemoryLedgerSink, parseLedgerEntry, replay, Workflow } from '../../src/core/workflow/ledger';
import { describeSubmitResult, parseStagedEntry } from '../../src/core/forms/answers';
import { getSubmission, stagedConflict, submitBlocker } from '../../src/core/forms/reducer';
import {
  approvalPollDelay,
  approvalToolsOf,
  checkApprovalArgs,
  parseApprovalCheck,
  parseApprovalRequest,
  pollApproval,
  requestApprovalArgs,
  type ApprovalCheck,
} from '../../src/core/collect/remoteApproval';
import type { SubmissionEvent } from '../../src/core/forms/types';
import { readFormControls, sameFieldValue, stagedChanges, submissionCall, toControlValue } from '../../src/core/forms/values';
import { describeCollectError, describeSubmissionState, formatAge } from '../../src/core/forms/words';
import type { ToolResult } from '../../src/core/base/toolResult';
import {
  canApply,
  EMPTY_WORKFLOW,
  reduce,
  type PlanOrigin,
  type WorkflowEvent,
  type WorkflowState,
} from '../../src/core/workflow/workflow';
import { startFixtureStdio, type StdioFixture } from './helpers/fixture.js';
import { apply } from './helpers/applyEvents';

type Obj = Record<string, unknown>;

let clock = 1_000;
const at = () => ++clock;

function refused(state: WorkflowState, event: WorkflowEvent, pattern: RegExp): void {
  const why = canApply(state, event);
  assert.ok(why, `${event.type} should be refused`);
  assert.match(why, pattern);
  assert.equal(reduce(state, event), state, 'a refused event leaves the state as it was');
}

async function call(client: Client, name: string, args: Obj): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

function formOf(result: ToolResult): CollectFormPayload {
  const c = classifyResult(result, { tool: 'new_model_app' });
  assert.equal(c.kind, 'collect_form', JSON.stringify(c));
  return (c as Extract<typeof c, { kind: 'collect_form' }>).form;
}

describe('collect mode against the fixture server (stdio)', () => {
  let fx: StdioFixture;
  let contactCreate: CollectFormPayload;
  let contactEdit: CollectFormPayload;

  before(async () => {
    fx = await startFixtureStdio({ args: ['--approval-polls', '2'] });
    contactCreate = formOf(await call(fx.client, 'new_model_app', { model: 'Contact', mode: 'form' }));
    contactEdit = formOf(await call(fx.client, 'edit_model_app', { model: 'Contact', record_id: 'c-1' }));
  });
  after(() => fx?.close());

  test("form payloads are recognised; the server's error shapes read as instructions", async () => {
    assert.equal(contactCreate.submitMode, 'collect');
    assert.equal(contactCreate.mode, 'create');
    assert.equal(contactEdit.mode, 'update');
    assert.equal(contactEdit.recordId, 'c-1');
    assert.equal(contactEdit.defaults.email, 'ada@example.com', "the edit form's defaults are the current record");

    const project = formOf(
      await call(fx.client, 'new_model_app', { model: 'Project', mode: 'form', prefill: { contact_id: 'c-1', name: 'Apollo' } }),
    );
    assert.deepEqual(project.hiddenValues, { contact_id: 'c-1' });
    assert.equal(project.parentContext?.label, 'Ada Lovelace');

    const cases: [string, Obj, RegExp][] = [
      ['new_model_app', { model: 'Nope', mode: 'form' }, /has no model "Nope"\. Call new_model_app again with one of: Contact, Project\./],
      [
        'new_model_app',
        { model: 'Project', mode: 'form' },
        /Project on fx needs contact chosen first: .*Call new_model_app again with prefill \{"contact_id":"<id>"\}\./,
      ],
      ['new_model_app', { model: 'Contact' }, /new_model_app on fx failed: Do not call this tool without mode: "form"/],
      ['edit_model_app', { model: 'Nope', record_id: 'x' }, /has no model "Nope"/],
    ];
    for (const [tool, args, pattern] of cases) {
      const c = classifyResult(await call(fx.client, tool, args), { tool });
      assert.equal(c.kind, 'collect_error', `${tool} ${JSON.stringify(args)}`);
      assert.match(describeCollectError((c as Extract<typeof c, { kind: 'collect_error' }>).error, 'fx', tool), pattern);
    }
  });

  test('every field type: controls read into the values the server expects, and back', () => {
    const field = (name: string) => contactCreate.schema.fields.find((f) => f.name === name)!;
    const controls = {
      name: '  Grace Hopper ',
      bio: 'Line one\nline two',
      age: '85',
      vip: true,
      email: 'grace@example.com',
      website: 'https://example.com/grace',
      favorite_color: '#112233',
      status: 'partner',
      tags: ['beta', 'vip'],
      channels: ['sms', 'email'],
      birthday: '1906-12-09',
      next_meeting: '2030-02-01T09:15',
      call_time: '08:45',
    };
    const { values, problems } = readFormControls(contactCreate, controls);
    assert.deepEqual(problems, []);
    assert.deepEqual(values, {
      name: 'Grace Hopper',
      bio: 'Line one\nline two',
      age: 85,
      vip: true,
      email: 'grace@example.com',
      website: 'https://example.com/grace',
      favorite_color: '#112233',
      status: 'partner',
      tags: ['beta', 'vip'],
      channels: ['sms', 'email'],
      birthday: '1906-12-09',
      next_meeting: '2030-02-01T09:15',
      call_time: '08:45',
    });
    // Empty controls are left out of a create; an unchecked checkbox is false.
    const sparse = readFormControls(contactCreate, {
      name: 'Ada',
      email: 'ada@example.com',
      status: 'lead',
      vip: false,
      age: '',
      tags: [],
      favorite_color: '',
    });
    assert.deepEqual(sparse.values, { name: 'Ada', vip: false, email: 'ada@example.com', status: 'lead' });

    // The values shown in the controls, type by type.
    assert.equal(toControlValue(field('vip'), true), true);
    assert.equal(toControlValue(field('vip'), undefined), false);
    assert.equal(toControlValue(field('age'), 36), '36');
    assert.deepEqual(toControlValue(field('tags'), ['vip']), ['vip']);
    assert.deepEqual(toControlValue(field('channels'), undefined), []);
    assert.equal(toControlValue(field('birthday'), '1815-12-10T00:00:00Z'), '1815-12-10');
    assert.equal(toControlValue(field('next_meeting'), '2030-01-15 10:00:00'), '2030-01-15T10:00:00');
    assert.equal(toControlValue(field('next_meeting'), '2030-01-15'), '2030-01-15T00:00');
    assert.equal(toControlValue(field('call_time'), '9:30'), '09:30');
    assert.equal(toControlValue(field('favorite_color'), '#ABC'), '#aabbcc');
    assert.equal(toControlValue(field('favorite_color'), 'red'), '', 'a color the picker cannot hold shows as unset, not black');
    assert.equal(toControlValue(field('status'), 'customer'), 'customer');
    assert.equal(toControlValue(field('name'), 'Ada'), 'Ada');
    assert.equal(toControlValue(field('bio'), 42), '42');

    // Checks before anything is sent: each problem names its field.
    const bad = readFormControls(contactCreate, {
      name: '',
      email: 'not-an-email',
      status: 'lead',
      age: '200',
      website: 'ftp://x',
      channels: ['fax'],
    });
    assert.deepEqual(bad.problems.map((p) => p.path).sort(), ['age', 'channels', 'email', 'name', 'website']);
    assert.match(bad.problems.find((p) => p.path === 'email')!.message, /Email must be an email address/);
    assert.match(bad.problems.find((p) => p.path === 'age')!.message, /Age must be at most 150/);
  });

  test('edit form: a cleared field is null, the diff shows each change against the current record, update sends only changes', () => {
    const current: Obj = {};
    for (const f of contactEdit.schema.fields) current[f.name] = toControlValue(f, contactEdit.defaults[f.name]);
    const { values, problems } = readFormControls(contactEdit, {
      ...current,
      bio: '',
      age: '37',
      tags: ['vip', 'beta'],
      channels: ['phone', 'email'],
      vip: false,
    });
    assert.deepEqual(problems, []);
    assert.equal(values.bio, null, 'clearing a field that had a value sends null');

    const rows = stagedChanges(contactEdit, values);
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    assert.deepEqual(
      rows.filter((r) => r.changed).map((r) => r.name),
      ['bio', 'age', 'vip', 'tags'],
    );
    assert.deepEqual([byName.age.before, byName.age.after], [36, 37]);
    assert.equal(byName.channels.changed, false, 'the same choices in another order are no change');
    assert.equal(byName.name.changed, false);
    assert.equal(byName.call_time.changed, false);

    const record = {
      id: 's',
      origin: { server: 'fx', tool: 'edit_model_app', args: {}, entrance: 'manual' as const },
      form: contactEdit,
      receivedAt: 1,
      phase: 'staged' as const,
      stagings: 1,
      submitAttempts: 0,
    };
    assert.deepEqual(submissionCall(record, values), {
      tool: 'update_model',
      args: { model: 'Contact', attributes: { bio: null, age: 37, vip: false, tags: ['vip', 'beta'] }, record_id: 'c-1' },
    });
    assert.equal(
      submissionCall(record, readFormControls(contactEdit, current).values),
      undefined,
      'an update that changes nothing has no call',
    );

    // A create lists the values it holds; keys that are not fields come last, marked.
    const created = stagedChanges(contactCreate, { name: 'Ada', vip: false, extra_key: 1 });
    assert.deepEqual(
      created.map((r) => [r.name, r.changed, r.extra ?? false]),
      [
        ['name', true, false],
        ['vip', true, false],
        ['extra_key', true, true],
      ],
    );
    assert.equal(sameFieldValue(undefined, '5', 5), true);
    assert.equal(sameFieldValue(undefined, '', null), true);
    assert.equal(sameFieldValue(undefined, 'a', null), false);
  });

  test('stage, read back and submit through the real tools: create with hidden values, update with record_id', async () => {
    const project = formOf(await call(fx.client, 'new_model_app', { model: 'Project', mode: 'form', prefill: { contact_id: 'c-1' } }));
    const { values } = readFormControls(project, { name: 'Apollo', description: 'To the moon', budget: '1200.5' });
    const staged = parseStagedEntry(await call(fx.client, 'collect_form_data', { model: 'Project', fields: values, mode: 'create' }));
    assert.equal(staged.kind, 'entry');
    const held = parseStagedEntry(await call(fx.client, 'get_form_data', { model: 'Project' }));
    assert.ok(held.kind === 'entry');
    assert.deepEqual(held.entry.fields, { name: 'Apollo', description: 'To the moon', budget: 1200.5 });
    const missing = parseStagedEntry(await call(fx.client, 'get_form_data', { model: 'Nothing' }));
    assert.deepEqual(missing, { kind: 'missing', message: 'No form data collected for Nothing' });

    const record = {
      id: 'p',
      origin: { server: 'fx', tool: 'new_model_app', args: {}, entrance: 'manual' as const },
      form: project,
      receivedAt: 1,
      phase: 'staged' as const,
      stagings: 1,
      submitAttempts: 0,
      entry: held.entry,
    };
    const submit = submissionCall(record, held.entry.fields)!;
    assert.deepEqual(submit, {
      tool: 'create_model',
      args: { model: 'Project', attributes: { contact_id: 'c-1', name: 'Apollo', description: 'To the moon', budget: 1200.5 } },
    });
    const created = describeSubmitResult(await call(fx.client, submit.tool, submit.args));
    assert.equal(created.ok, true);
    assert.match(created.recordId!, /^p-\d+$/);
    assert.match(created.text, /^created p-\d+$/);

    const refused422 = describeSubmitResult(
      await call(fx.client, 'create_model', { model: 'Contact', attributes: { name: 'X', email: 'nope', status: 'lead' } }),
    );
    assert.equal(refused422.ok, false);
    assert.match(refused422.text, /Validation failed \(422\) for Contact: "email" must be an email address/);

    const { values: edited } = readFormControls(contactEdit, {
      ...Object.fromEntries(contactEdit.schema.fields.map((f) => [f.name, toControlValue(f, contactEdit.defaults[f.name])])),
      name: 'Augusta Ada King',
    });
    const editRecord = { ...record, id: 'e', form: contactEdit };
    const update = submissionCall(editRecord, edited)!;
    assert.deepEqual(update.args, { model: 'Contact', attributes: { name: 'Augusta Ada King' }, record_id: 'c-1' });
    assert.equal(describeSubmitResult(await call(fx.client, update.tool, update.args)).ok, true);
    const row = JSON.parse(
      ((await call(fx.client, 'get_record', { model: 'Contact', record_id: 'c-1' })).content as { text: string }[])[0]!.text,
    ) as { record: Obj };
    assert.equal(row.record.name, 'Augusta Ada King');
    assert.equal(row.record.email, 'ada@example.com', 'fields not sent keep their values');
  });

  async function requestApproval(name: string): Promise<{ id: string; check: () => Promise<ApprovalCheck> }> {
    const tools = approvalToolsOf((await fx.client.listTools()).tools);
    assert.ok(tools, 'the fixture offers request_approval and check_approval');
    const { values } = readFormControls(contactCreate, { name, email: 'r@example.com', status: 'lead' });
    await call(fx.client, 'collect_form_data', { model: 'Contact', fields: values, mode: 'create' });
    const record = {
      id: 'a',
      origin: { server: 'fx', tool: 'new_model_app', args: {}, entrance: 'manual' as const },
      form: contactCreate,
      receivedAt: 1,
      phase: 'staged' as const,
      stagings: 1,
      submitAttempts: 0,
      fields: values,
    };
    const args = requestApprovalArgs(tools.request.inputSchema, record);
    assert.deepEqual(args, { model: 'Contact' }, 'only what the tool asks for');
    const requested = parseApprovalRequest(await call(fx.client, tools.request.name, args));
    assert.ok(requested.ok, JSON.stringify(requested));
    const checkArgs = checkApprovalArgs(tools.check.inputSchema, requested.id);
    assert.deepEqual(checkArgs, { approval_id: requested.id });
    return { id: requested.id, check: async () => parseApprovalCheck(await call(fx.client, tools.check.name, checkArgs)) };
  }

  test('approval: request_approval, then check_approval pending, pending, approved on the backoff schedule', async () => {
    const { check } = await requestApproval('Linus');
    const waits: number[] = [];
    const seen: string[] = [];
    const slept: number[] = [];
    const outcome = await pollApproval(check, {
      schedule: { initialMs: 1, maxMs: 4 },
      sleep: async (ms) => {
        slept.push(ms);
      },
      onWait: (ms) => waits.push(ms),
      onCheck: (c) => seen.push(c.status),
    });
    assert.deepEqual(outcome, { status: 'approved', checks: 3 });
    assert.deepEqual(seen, ['pending', 'pending', 'approved']);
    assert.deepEqual(waits, [1, 2, 4], 'each wait doubles, capped');
    assert.deepEqual(slept, waits);
  });

  test("approval: rejected with the reviewer's reason; cancelling stops the loop; a dead approval id fails after retries", async () => {
    const rejected = await requestApproval('REJECT ME');
    const outcome = await pollApproval(rejected.check, { schedule: { initialMs: 1, maxMs: 2 } });
    assert.deepEqual(outcome, { status: 'rejected', reason: 'The reviewer rejected it: name is "REJECT ME"', checks: 3 });

    const pending = await requestApproval('Grace');
    const cts = new CancellationTokenSource();
    const cancelled = pollApproval(pending.check, { schedule: { initialMs: 60_000 }, token: cts.token });
    setTimeout(() => cts.cancel(), 20);
    assert.deepEqual(await cancelled, { status: 'cancelled', checks: 0 }, 'the wait is cut short, no check is made');

    const failures: number[] = [];
    const dead = await pollApproval(async () => parseApprovalCheck(await call(fx.client, 'check_approval', { approval_id: 'apr-999' })), {
      schedule: { initialMs: 1, maxMs: 1 },
      maxFailures: 3,
      onWait: (_, attempt) => failures.push(attempt),
    });
    assert.equal(dead.status, 'error');
    assert.match((dead as { error: string }).error, /Unknown approval_id apr-999: call request_approval first/);
    assert.deepEqual(failures, [0, 1, 2]);
  });
});

describe('approval polling schedule and answers', () => {
  test('1 s, 2 s, 4 s … capped at 30 s', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 50].map((n) => approvalPollDelay(n)),
      [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000],
    );
    assert.equal(approvalPollDelay(-3), 1000);
    assert.equal(approvalPollDelay(1.5), 1000);
    assert.deepEqual(
      [0, 1, 2].map((n) => approvalPollDelay(n, { initialMs: 500, factor: 3, maxMs: 4000 })),
      [500, 1500, 4000],
    );
  });

  test('check_approval answers as JSON or plain words; anything else is an error, not a decision', () => {
    const text = (t: string, isError = false): ToolResult => ({ content: [{ type: 'text', text: t }], isError });
    assert.deepEqual(parseApprovalCheck(text('pending')), { ok: true, status: 'pending' });
    assert.deepEqual(parseApprovalCheck(text('Approved')), { ok: true, status: 'approved' });
    assert.deepEqual(parseApprovalCheck(text('rejected: budget too high')), { ok: true, status: 'rejected', reason: 'budget too high' });
    assert.deepEqual(parseApprovalCheck(text('{"status":"denied","reason":"no"}')), { ok: true, status: 'rejected', reason: 'no' });
    assert.equal(parseApprovalCheck(text('maybe later')).ok, false);
    assert.equal(parseApprovalCheck(text('{"status":"approved"}', true)).ok, false, 'an isError result is never an approval');
    assert.equal(parseApprovalCheck({ content: [] }).ok, false);
    assert.deepEqual(parseApprovalRequest(text('Approval requested: abc123')), { ok: true, id: 'abc123' });
    assert.deepEqual(parseApprovalRequest(text('{"approval_id":"apr-7","status":"pending"}')), { ok: true, id: 'apr-7' });
    assert.equal(parseApprovalRequest(text('sure thing')).ok, false);
    assert.deepEqual(checkApprovalArgs({ type: 'object', properties: { id: { type: 'string' } } }, 'x'), { id: 'x' });
    assert.deepEqual(checkApprovalArgs({ type: 'object', properties: { ticket: { type: 'string' } }, required: ['ticket'] }, 'x'), {
      ticket: 'x',
    });
  });

  test('a Slack-style request_approval gets the attributes Submit would send', () => {
    const form: CollectFormPayload = {
      schema: {
        model: 'Project',
        title: 'Create Project',
        fieldsets: [],
        fields: [{ name: 'name', label: 'Name', group: 'default', required: true, type: 'text' }],
      },
      defaults: {},
      mode: 'create',
      submitMode: 'collect',
      hiddenValues: { contact_id: 'c-1' },
    };
    const record = {
      id: 'x',
      origin: { server: 's', tool: 'new_model_app', args: {}, entrance: 'manual' as const },
      form,
      receivedAt: 1,
      phase: 'staged' as const,
      stagings: 1,
      submitAttempts: 0,
      fields: { name: 'Apollo' },
    };
    const schema = { type: 'object', properties: { model: {}, parent_path: {}, attributes: {} } };
    assert.deepEqual(requestApprovalArgs(schema, record), { model: 'Project', attributes: { contact_id: 'c-1', name: 'Apollo' } });
  });

  test('field names such as __proto__ stay plain data from the controls to the submitted attributes', () => {
    const form: CollectFormPayload = {
      schema: {
        model: 'Odd',
        title: 'Create Odd',
        fieldsets: [],
        fields: [
          { name: '__proto__', label: 'Proto', group: 'default', required: true, type: 'text' },
          { name: 'constructor', label: 'Ctor', group: 'default', required: false, type: 'number' },
        ],
      },
      defaults: {},
      mode: 'create',
      submitMode: 'collect',
    };
    const controls = JSON.parse('{"__proto__": "x", "constructor": "3"}') as Obj;
    const { values, problems } = readFormControls(form, controls);
    assert.deepEqual(problems, []);
    assert.ok(Object.hasOwn(values, '__proto__'));
    assert.equal(Object.getPrototypeOf(values), Object.prototype);
    assert.equal(values.constructor, 3);
    const record = {
      id: 'o',
      origin: { server: 's', tool: 'new_model_app', args: {}, entrance: 'manual' as const },
      form,
      receivedAt: 1,
      phase: 'staged' as const,
      stagings: 1,
      submitAttempts: 0,
    };
    const attributes = submissionCall(record, values)!.args.attributes as Obj;
    assert.ok(Object.hasOwn(attributes, '__proto__'));
    assert.equal(JSON.stringify(attributes), '{"__proto__":"x","constructor":3}');
    assert.deepEqual(
      stagedChanges(form, values).map((r) => r.name),
      ['__proto__', 'constructor'],
    );
  });

  test('ages in words', () => {
    assert.equal(formatAge(0, 10_000), 'just now');
    assert.equal(formatAge(0, 5 * 60_000), '5 min ago');
    assert.equal(formatAge(0, 3 * 3_600_000), '3 h ago');
    assert.equal(formatAge(0, 3 * 86_400_000), '3 days ago');
  });
});

// ───────────────────────────── the reducer ─────────────────────────────

const CONTACT: CollectFormPayload = {
  schema: {
    model: 'Contact',
    title: 'Create Contact',
    fieldsets: [{ key: 'd', title: 'Details', description: '', required: true, groups: ['default'] }],
    fields: [
      { name: 'name', label: 'Name', group: 'default', required: true, type: 'text' },
      { name: 'email', label: 'Email', group: 'default', required: true, type: 'email' },
    ],
  },
  defaults: {},
  mode: 'create',
  submitMode: 'collect',
};
const DIRECT: CollectFormPayload = { ...CONTACT, submitMode: 'direct' };
const origin = (server = 'demo'): PlanOrigin => ({
  server,
  tool: 'new_model_app',
  args: { model: 'Contact', mode: 'form' },
  entrance: 'manual',
});
const received = (id: string, form = CONTACT, server = 'demo'): Extract<SubmissionEvent, { type: 'formReceived' }> => ({
  type: 'formReceived',
  at: at(),
  submissionId: id,
  origin: origin(server),
  form,
});
const staged = (id: string, fields: Obj = { name: 'Ada', email: 'ada@example.com' }): SubmissionEvent => ({
  type: 'formStaged',
  at: at(),
  submissionId: id,
  fields,
  entry: { model: 'Contact', fields, mode: 'create', createdAt: 5 },
});
const submitted = (id: string, ok = true): SubmissionEvent =>
  ok
    ? {
        type: 'formSubmitted',
        at: at(),
        submissionId: id,
        ok,
        tool: 'create_model',
        args: { model: 'Contact', attributes: {} },
        result: 'created c-2',
        recordId: 'c-2',
      }
    : {
        type: 'formSubmitted',
        at: at(),
        submissionId: id,
        ok,
        tool: 'create_model',
        args: { model: 'Contact', attributes: {} },
        error: '422: "email" must be an email address',
      };
const sub = (s: WorkflowState, id = 's1') => getSubmission(s.submissions, id)!;

describe('submission events in the workflow reducer', () => {
  test('received → staged → submitted, recorded with what was staged and what was sent', () => {
    assert.deepEqual(EMPTY_WORKFLOW.submissions, {});
    let s = apply(EMPTY_WORKFLOW, received('s1'));
    assert.equal(sub(s).phase, 'open');
    assert.equal(describeSubmissionState(sub(s)), 'not staged');
    assert.equal(submitBlocker(sub(s)), 'Stage the form for review first.');
    refused(s, submitted('s1'), /Stage the form for review first/);
    s = apply(s, staged('s1'));
    assert.equal(sub(s).phase, 'staged');
    assert.deepEqual(sub(s).entry?.fields, { name: 'Ada', email: 'ada@example.com' });
    assert.equal(sub(s).stagings, 1);
    s = apply(s, submitted('s1', false));
    assert.equal(sub(s).phase, 'staged', 'a failed submit keeps the submission staged');
    assert.match(sub(s).lastError!, /422/);
    assert.equal(describeSubmissionState(sub(s)), 'submit failed');
    s = apply(s, submitted('s1'));
    assert.equal(sub(s).phase, 'finished');
    assert.equal(sub(s).outcome, 'submitted');
    assert.equal(sub(s).recordId, 'c-2');
    assert.equal(sub(s).submitAttempts, 2);
    assert.equal(sub(s).lastError, undefined);
    refused(s, { type: 'formDiscarded', at: at(), submissionId: 's1' }, /is submitted; formDiscarded no longer applies/);
    refused(s, staged('s1'), /no longer applies/);
  });

  test('direct mode submits from the form; it is never staged; discard finishes it', () => {
    let s = apply(EMPTY_WORKFLOW, received('d1', DIRECT), received('d2', DIRECT));
    refused(s, staged('d1'), /direct mode/);
    s = apply(s, submitted('d1'));
    assert.equal(sub(s, 'd1').outcome, 'submitted');
    s = apply(s, { type: 'formDiscarded', at: at(), submissionId: 'd2', reason: 'not needed' });
    assert.equal(sub(s, 'd2').outcome, 'discarded');
    assert.equal(sub(s, 'd2').discardReason, 'not needed');
  });

  test('one staged entry per model and server: staging a second one replaces the first', () => {
    let s = apply(EMPTY_WORKFLOW, received('a'), received('b'), received('other', CONTACT, 'elsewhere'), staged('a'), staged('other'));
    assert.equal(stagedConflict(s.submissions, sub(s, 'b'))?.id, 'a', 'the panel can warn before staging b');
    assert.equal(stagedConflict(s.submissions, sub(s, 'other')), undefined, 'another server has its own store');
    s = apply(s, staged('b'));
    assert.equal(sub(s, 'a').phase, 'finished');
    assert.equal(sub(s, 'a').outcome, 'replaced');
    assert.equal(sub(s, 'a').replacedById, 'b');
    assert.equal(sub(s, 'other').phase, 'staged');
    s = apply(s, staged('b', { name: 'Ada 2', email: 'a@b.co' }));
    assert.equal(sub(s, 'b').stagings, 2, 're-staging the same submission replaces only its own values');
    assert.deepEqual(sub(s, 'b').fields, { name: 'Ada 2', email: 'a@b.co' });
  });

  test('remote approval: Submit waits for approved; rejected says why; a new staging needs a new approval', () => {
    let s = apply(EMPTY_WORKFLOW, received('s1'));
    refused(s, { type: 'approvalRequested', at: at(), submissionId: 's1', approvalId: 'apr-1' }, /not staged/);
    s = apply(s, staged('s1'), { type: 'approvalRequested', at: at(), submissionId: 's1', approvalId: 'apr-1' });
    assert.equal(sub(s).approval?.status, 'pending');
    assert.equal(describeSubmissionState(sub(s)), 'waiting for approval');
    refused(s, submitted('s1'), /Waiting for the reviewer/);
    s = apply(s, { type: 'approvalChecked', at: at(), submissionId: 's1', status: 'rejected', reason: 'too expensive' });
    assert.equal(sub(s).approval?.reason, 'too expensive');
    refused(s, submitted('s1'), /rejected it: too expensive/);
    refused(s, { type: 'approvalChecked', at: at(), submissionId: 's1', status: 'approved' }, /rejected already/);

    s = apply(s, staged('s1', { name: 'Cheaper', email: 'c@example.com' }));
    assert.equal(sub(s).approval, undefined);
    assert.equal(sub(s).approvalRequired, true);
    refused(s, submitted('s1'), /needs an approval/);
    s = apply(
      s,
      { type: 'approvalRequested', at: at(), submissionId: 's1', approvalId: 'apr-2' },
      { type: 'approvalChecked', at: at(), submissionId: 's1', status: 'approved' },
    );
    assert.equal(describeSubmissionState(sub(s)), 'approved');
    s = apply(s, submitted('s1'));
    assert.equal(sub(s).outcome, 'submitted');
  });

  test('bad events are refused with a reason; __proto__ ids are plain data', () => {
    refused(EMPTY_WORKFLOW, staged('nope'), /There is no submission 'nope'/);
    refused(EMPTY_WORKFLOW, { ...received('x'), origin: { server: '', tool: 't', args: {}, entrance: 'manual' } }, /origin/);
    refused(EMPTY_WORKFLOW, { ...received('x'), form: { ...CONTACT, mode: 'upsert' as never } }, /mode must be create or update/);
    refused(EMPTY_WORKFLOW, { ...received('') }, /needs an id/);
    const s = apply(EMPTY_WORKFLOW, received('__proto__'));
    assert.equal(sub(s, '__proto__').phase, 'open');
    assert.equal(getSubmission(s.submissions, 'constructor'), undefined);
    refused(s, received('__proto__'), /exists already/);
    refused(s, { type: 'approvalChecked', at: at(), submissionId: '__proto__', status: 'maybe' as never }, /pending, approved or rejected/);
  });

  test('the ledger records submission events, reads them back, and a replay gives the live state (plans untouched)', () => {
    const sink = new MemoryLedgerSink();
    const workflow = new Workflow(sink);
    assert.ok(workflow.dispatch(received('s1')));
    assert.ok(
      workflow.dispatch({
        type: 'planReceived',
        at: at(),
        planId: 'p1',
        origin: origin(),
        plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'x', next_actions: [{ tool: 'a', args: {} }] } as never,
      }),
    );
    assert.ok(workflow.dispatch(staged('s1')));
    assert.ok(workflow.dispatch({ type: 'approvalRequested', at: at(), submissionId: 's1', approvalId: 'apr-1' }));
    assert.ok(workflow.dispatch({ type: 'approvalChecked', at: at(), submissionId: 's1', status: 'approved' }));
    assert.ok(workflow.dispatch(submitted('s1')));
    assert.equal(workflow.dispatch(submitted('s1')), false, 'refused events are not appended');
    assert.equal(sink.entries.length, 6);
    assert.equal(workflow.state.plans.p1?.phase, 'awaiting_approval');
    assert.equal(sub(workflow.state).outcome, 'submitted');

    const stored = JSON.parse(JSON.stringify(sink.entries)) as unknown[];
    const entries = stored.map((e) => parseLedgerEntry(e));
    for (const e of entries) assert.equal(typeof e, 'object', String(e));
    assert.deepEqual(replay(entries as never), workflow.state);
    assert.match(
      String(parseLedgerEntry({ seq: 1, event: { type: 'formStaged', at: 1, submissionId: 's', fields: 'x' } })),
      /formStaged.fields is not an object/,
    );
    assert.match(String(parseLedgerEntry({ seq: 1, event: { type: 'formReceived', at: 1 } })), /submissionId is not a string/);

    // After a reload: submissions survive, the restored event changes nothing about them.
    const reopened = new Workflow(new MemoryLedgerSink(), entries as never);
    assert.deepEqual(reopened.state.submissions, workflow.state.submissions);
  });
});
