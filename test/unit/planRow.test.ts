// The Plans view's rows: a narrow sidebar cuts a row from the right, so the state and progress lead the
// description, the label stays short, and the tooltip says everything.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { approvalHash } from '../../src/core/plan/approval';
import type { ActionCall } from '../../src/core/plan/plan';
import { planRowView, ROW_TITLE_MAX } from '../../src/core/present/planRow';
import { EMPTY_WORKFLOW, getPlan, type WorkflowState } from '../../src/core/workflow/workflow';
import { apply } from './helpers/applyEvents';

let clock = 0;
const at = () => ++clock;
const ORIGIN = { server: 'demo', tool: 'plan_scaffold', args: {}, entrance: 'manual' as const };
const steps = (...tools: string[]) => tools.map((tool): ActionCall => ({ tool, args: {} }));
const LONG = 'Scaffold the Payroll screen with its overtime, pay-period and hours-override components';

function received(instruction = LONG, actions = steps('create_screen', 'create_component', 'create_component')): WorkflowState {
  return apply(EMPTY_WORKFLOW, {
    type: 'planReceived',
    at: at(),
    planId: 'p',
    origin: ORIGIN,
    plan: { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction, next_actions: actions },
  });
}
const approved = (s: WorkflowState) => apply(s, { type: 'approved', at: at(), planId: 'p', approvalHash: approvalHash(getPlan(s, 'p')!) });
const ran = (s: WorkflowState, step: number) =>
  apply(
    s,
    { type: 'stepStarted', at: at(), planId: 'p', step, server: 'demo', crossServer: false },
    { type: 'stepSucceeded', at: at(), planId: 'p', step, summary: 'ok' },
  );
const row = (s: WorkflowState) => planRowView(getPlan(s, 'p')!, '1/12/2026, 10:00:00');

describe('the Plans view row', () => {
  it('leads its description with the state and progress, then server and tool', () => {
    let s = received();
    assert.equal(row(s).description, 'awaiting approval · demo · plan_scaffold', 'no progress before anything can run');
    s = approved(s);
    s = ran(s, 0);
    s = apply(s, { type: 'stepStarted', at: at(), planId: 'p', step: 1, server: 'demo', crossServer: false });
    assert.equal(row(s).description, 'running 1/3 · demo · plan_scaffold');
    s = apply(s, { type: 'stepFailed', at: at(), planId: 'p', step: 1, error: 'disk full' });
    assert.equal(row(s).description, 'blocked 1/3 · demo · plan_scaffold');
    s = apply(s, { type: 'stopped', at: at(), planId: 'p' });
    assert.equal(row(s).description, 'stopped 1/3 · demo · plan_scaffold');
    assert.equal(row(s).icon, 'debug-stop');
    assert.equal(row(s).contextValue, 'plan.finished');
  });

  it('a completed plan says so with all its steps; a rejected one without a count', () => {
    let s = ran(ran(ran(approved(received()), 0), 1), 2);
    assert.equal(row(s).description, 'completed 3/3 · demo · plan_scaffold');
    assert.equal(row(s).icon, 'pass');
    s = apply(received(), { type: 'rejected', at: at(), planId: 'p', reason: 'no' });
    assert.equal(row(s).description, 'rejected · demo · plan_scaffold');
    assert.equal(row(s).icon, 'circle-slash');
  });

  it('keeps the label short so the description shows; the tooltip has the whole title, the state first', () => {
    const r = row(approved(received()));
    assert.equal(
      r.label,
      `${Array.from(LONG)
        .slice(0, ROW_TITLE_MAX - 1)
        .join('')}…`,
    );
    assert.ok(r.label.length <= ROW_TITLE_MAX);
    assert.equal(r.tooltip, `Running — 0 of 3 steps ok\n\n${LONG}\n\nServer: demo\nTool: plan_scaffold\nReceived: 1/12/2026, 10:00:00`);
    assert.equal(r.accessibilityLabel, `Plan ${LONG}, running, 0 of 3 steps ok, demo, plan_scaffold`);
    assert.equal(row(received('Short title')).label, 'Short title');
  });

  it('cuts the title by the characters the server wrote, so a mark for an invisible character is never cut in half', () => {
    const r = row(received('Rename the report report\u202Efdp.exe\u202C. Delete nothing at all, really.'));
    assert.equal(r.label, 'Rename the report report⟨U+202E⟩fdp.ex…');
    assert.doesNotMatch(r.label + r.description + r.tooltip, /[\u202A-\u202E]/u);
  });

  it('a plan without an instruction is named after its tool; one without steps says so', () => {
    const r = row(received('', []));
    assert.equal(r.label, 'plan_scaffold plan');
    assert.equal(r.description, 'awaiting approval · demo · plan_scaffold');
    assert.match(r.tooltip, /^Awaiting approval — no steps\n/);
  });

  it("the tooltip says which rules decided: a step a rule denies, and a plan approved by the user's rules", () => {
    const policy = (decision: 'allow' | 'deny', ruleId: string, source: 'user' | 'workspace' | 'default', reason: string) => ({
      decision,
      ruleId,
      source,
      reason,
    });
    let s = apply(received(), {
      type: 'resolved',
      at: at(),
      planId: 'p',
      steps: [
        { server: 'demo', crossServer: false, policy: policy('allow', 'screens-ok', 'user', 'screens are fine') },
        { server: 'demo', crossServer: false, policy: policy('deny', 'no-components', 'workspace', 'made by hand') },
        { server: 'demo', crossServer: false, policy: policy('allow', 'plangate:default', 'default', 'no rule asks about or denies it') },
      ],
    });
    assert.match(
      row(s).tooltip,
      /\n\nPolicy:\nStep 1 \(create_screen\): Allowed by your rule 'screens-ok': screens are fine\nStep 2 \(create_component\): Denied by the workspace's rule 'no-components': made by hand$/,
      "Plangate's default on step 3 is not repeated",
    );
    s = apply(s, { type: 'approved', at: at(), planId: 'p', approvalHash: approvalHash(getPlan(s, 'p')!), byPolicy: ['screens-ok'] });
    assert.match(
      row(s).tooltip,
      /\nPolicy:\nApproved by your rules 'screens-ok' \(plangate\.autoApprovePlans\): nobody pressed Approve\nStep 1/,
    );
    assert.doesNotMatch(row(received()).tooltip, /Policy:/, 'a plan no rule decided says nothing of the policy');
  });
});
