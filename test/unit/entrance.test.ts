// The one vocabulary of entrances (core/base/entrance.ts): the path a planning call takes by who made it, and the
// policy's name for a call by its path — the names the ledger and users' rules hold, so each row is pinned here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  callEntranceOf,
  policyEntranceOf,
  POLICY_ENTRANCES,
  stepPolicyEntrance,
  type CallEntrance,
  type PlanEntrance,
} from '../../src/core/base/entrance';

test("a planning call's path: the agent's and a re-plan's are their own, every other origin is a call", () => {
  const expected: Record<PlanEntrance, CallEntrance> = {
    agent: 'agent',
    replan: 'replan',
    manual: 'call',
    cli: 'call',
    recovery: 'call',
    follow_up: 'call',
    step: 'call',
  };
  for (const [origin, path] of Object.entries(expected)) assert.equal(callEntranceOf(origin as PlanEntrance), path, origin);
});

test("the policy's name for a call by its path: steps and previews are the plan's, buttons that show the call are Call Tool's", () => {
  const expected: Record<CallEntrance, string> = {
    step: 'plan',
    preview: 'plan',
    agent: 'agent',
    app: 'app',
    call: 'call',
    replan: 'call',
    collect: 'call',
  };
  for (const [path, name] of Object.entries(expected)) assert.equal(policyEntranceOf(path as CallEntrance), name, path);
  assert.equal(stepPolicyEntrance('recovery'), 'recovery');
  for (const origin of ['manual', 'agent', 'cli', 'follow_up', 'replan', 'step', undefined] as const)
    assert.equal(stepPolicyEntrance(origin), 'plan', String(origin));
});

test('the entrances a rule may name are the six of the README and the policy schema, in their order', () => {
  assert.deepEqual(POLICY_ENTRANCES, ['plan', 'agent', 'call', 'app', 'recovery', 'sampling']);
  const schema = JSON.parse(readFileSync(join(__dirname, '../../schema/plangate-policy.schema.json'), 'utf8')) as {
    definitions: { entrance: { enum: string[]; enumDescriptions: string[] } };
  };
  assert.deepEqual(schema.definitions.entrance.enum, POLICY_ENTRANCES);
  assert.equal(schema.definitions.entrance.enumDescriptions.length, POLICY_ENTRANCES.length);
});
