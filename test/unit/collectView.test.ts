// The collect form's view model (core/present/collectView.ts): what the panel shows of a submission, built from its
// record and what the host knows (server state, actions in flight), without the ledger's bookkeeping.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CollectFormPayload } from '../../src/core/collectForm';
import { toCollectFormView } from '../../src/core/present/collectView';
import { EMPTY_WORKFLOW, type WorkflowState } from '../../src/core/workflow';
import { getSubmission } from '../../src/core/submissions';
import { apply } from './helpers/applyEvents';

let clock = 0;
const at = () => ++clock;
const FORM: CollectFormPayload = {
  schema: {
    model: 'Contact', title: 'Create Contact', fieldsets: [{ key: 'd', title: 'Details', description: '', required: true, groups: ['default'] }],
    fields: [
      { name: 'name', label: 'Name', group: 'default', required: true, type: 'text' },
      { name: 'vip', label: 'VIP', group: 'default', required: false, type: 'checkbox' },
    ],
  },
  defaults: { name: 'Grace' }, mode: 'create', submitMode: 'collect',
};
const origin = { server: 'demo', tool: 'new_model_app', args: {}, entrance: 'manual' as const };
const running = { approvalTools: false, serverState: 'running' };

function received(): WorkflowState {
  return apply(EMPTY_WORKFLOW, { type: 'formReceived', at: at(), submissionId: 's1', origin, form: FORM });
}

describe('collect form view model', () => {
  it('starts each control at the form\'s default, with nothing staged and Submit waiting for a staging', () => {
    const record = getSubmission(received().submissions, 's1')!;
    const view = toCollectFormView(record, running);
    assert.deepEqual(view.initial, { name: 'Grace', vip: false });
    assert.equal(view.record.phase, 'open');
    assert.equal(view.record.entryShown, false);
    assert.deepEqual(view.record.origin, { server: 'demo', tool: 'new_model_app' });
    assert.equal(view.changes, undefined);
    assert.equal(view.serverDown, undefined);
    assert.ok(view.submitBlocker, 'Submit says why it waits');
    assert.equal('receivedAt' in view.record || 'stagings' in view.record, false, 'no ledger bookkeeping on the wire');
  });

  it('shows a staged entry field by field, and the call Submit makes', () => {
    const s = apply(received(), { type: 'formStaged', at: at(), submissionId: 's1', fields: { name: 'Ada', vip: true }, entry: { model: 'Contact', fields: { name: 'Ada', vip: true }, mode: 'create' } });
    const view = toCollectFormView(getSubmission(s.submissions, 's1')!, { ...running, busy: 'approval', nextCheckAt: 42 });
    assert.equal(view.record.phase, 'staged');
    assert.equal(view.record.entryShown, true);
    assert.deepEqual(view.initial, { name: 'Ada', vip: true });
    assert.deepEqual(view.changes?.map((c) => [c.name, c.after, c.changed]), [['name', 'Ada', true], ['vip', true, true]]);
    assert.equal(view.submitCall?.tool, 'create_model');
    assert.equal(view.busy, 'approval');
    assert.equal(view.nextCheckAt, 42);
  });

  it('says when the form\'s server is not running or no longer configured', () => {
    const record = getSubmission(received().submissions, 's1')!;
    assert.equal(toCollectFormView(record, { approvalTools: false, serverState: 'stopped' }).serverDown, 'Server "demo" is stopped: start it in the Servers view to stage or submit.');
    assert.equal(toCollectFormView(record, { approvalTools: false, serverState: undefined }).serverDown, 'Server "demo" is no longer configured.');
  });
});
