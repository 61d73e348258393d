// The collect form's view model (core/present/collectView.ts): the engine's snapshot of a submission (what it starts
// with, the staged review, the Submit call, the server's state) with the record reduced to what the webview needs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CollectFormPayload } from '../../src/core/plan/collectForm';
import { CollectEngine, type CollectServer } from '../../src/core/collect/engine';
import { MemoryLedgerSink, Workflow } from '../../src/core/workflow/ledger';
import { toCollectFormView } from '../../src/core/present/collectView';

let clock = 0;
const at = () => ++clock;
const FORM: CollectFormPayload = {
  schema: {
    model: 'Contact',
    title: 'Create Contact',
    fieldsets: [{ key: 'd', title: 'Details', description: '', required: true, groups: ['default'] }],
    fields: [
      { name: 'name', label: 'Name', group: 'default', required: true, type: 'text' },
      { name: 'vip', label: 'VIP', group: 'default', required: false, type: 'checkbox' },
    ],
  },
  defaults: { name: 'Grace' },
  mode: 'create',
  submitMode: 'collect',
};
const origin = { server: 'demo', tool: 'new_model_app', args: {}, entrance: 'manual' as const };

/** A workflow holding one received form, and an engine that may read it but must never call a server. */
/** `server`: the form's server as the host knows it; null when it is no longer configured. */
function setup(server: CollectServer | null = { state: 'running', tools: [] }) {
  const workflow = new Workflow(new MemoryLedgerSink());
  assert.ok(workflow.dispatch({ type: 'formReceived', at: at(), submissionId: 's1', origin, form: FORM }));
  const host = { server: () => server ?? undefined, confirmSubmit: async () => false, confirmReplace: async () => false };
  const door = {
    call: async () => {
      throw new Error('the view model must not call a server');
    },
  };
  const engine = new CollectEngine(workflow, door, host, { newId: () => 'x', timeoutMs: () => 1000 });
  return { workflow, engine, view: () => toCollectFormView(engine.snapshot('s1')!) };
}

describe('collect form view model', () => {
  it("starts each control at the form's default, with nothing staged and Submit waiting for a staging", () => {
    const view = setup().view();
    assert.deepEqual(view.initial, { name: 'Grace', vip: false });
    assert.equal(view.record.phase, 'open');
    assert.equal(view.record.stateText, 'Not staged', 'the state in words comes with the view');
    assert.equal(view.record.entryShown, false);
    assert.deepEqual(view.record.origin, { server: 'demo', tool: 'new_model_app' });
    assert.equal(view.changes, undefined);
    assert.equal(view.serverDown, undefined);
    assert.ok(view.submitBlocker, 'Submit says why it waits');
    assert.equal(
      'receivedAt' in view.record || 'stagings' in view.record || 'fields' in view.record,
      false,
      'no ledger bookkeeping on the wire',
    );
  });

  it('shows a staged entry field by field, and the call Submit makes', () => {
    const { workflow, view } = setup();
    assert.ok(
      workflow.dispatch({
        type: 'formStaged',
        at: at(),
        submissionId: 's1',
        fields: { name: 'Ada', vip: true },
        entry: { model: 'Contact', fields: { name: 'Ada', vip: true }, mode: 'create' },
      }),
    );
    const shown = view();
    assert.equal(shown.record.phase, 'staged');
    assert.equal(shown.record.stateText, 'Staged for review');
    assert.equal(shown.record.entryShown, true);
    assert.deepEqual(shown.initial, { name: 'Ada', vip: true });
    assert.deepEqual(
      shown.changes?.map((c) => [c.name, c.after, c.changed]),
      [
        ['name', 'Ada', true],
        ['vip', true, true],
      ],
    );
    assert.equal(shown.submitCall?.tool, 'create_model');
    assert.equal(shown.submitBlocker, undefined);
  });

  it("says when the form's server is not running or no longer configured", () => {
    assert.equal(
      setup({ state: 'stopped', tools: [] }).view().serverDown,
      'Server "demo" is stopped: start it in the Servers view to stage or submit.',
    );
    assert.equal(setup(null).view().serverDown, 'Server "demo" is no longer configured.');
  });
});
