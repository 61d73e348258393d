// The Approvals view's groups in VS Code's tree: a group that gets its first approval while the view is open shows it
// (the real-VS-Code e2e found "Always (your settings) 1" folded over the rule Always allow had just written). VS Code
// keeps a tree item's folding by its id and draws an empty group as folded, so an empty group's id differs from the id
// it has with rows; a group with rows keeps its id whatever rows it has, and with it the user's folding.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { approvalGroups } from '../../src/core/present/approvalRows';
import { NO_APPROVALS, withApproval, type StandingApprovals } from '../../src/core/policy/approvals';
import type { PolicyRule } from '../../src/core/policy/rules';

const rule = (id: string, tool: string): PolicyRule => ({ id, decision: 'allow', reason: 'test', server: 'fixture', tool });
const approval = (id: string, tool: string) => ({ rule: rule(id, tool), made: 0, why: 'test' });
const ids = (approvals: StandingApprovals, user: PolicyRule[] = []) =>
  Object.fromEntries(approvalGroups(approvals, user, [], () => undefined).map((g) => [g.group, g.id]));

describe('Approvals view group ids', () => {
  it('an empty group and the same group with rows have different ids (the first row unfolds it)', () => {
    const empty = ids(NO_APPROVALS);
    const one = ids(withApproval(NO_APPROVALS, 'session', approval('session-allow-fixture-a', 'a')), [rule('allow-fixture-a', 'a')]);
    assert.notEqual(empty.session, one.session);
    assert.notEqual(empty.user, one.user);
    assert.equal(empty.workspace, one.workspace, 'a group that stays empty keeps its id');
  });

  it('a group with rows keeps its id as rows come and go (the user folding it is kept)', () => {
    const one = withApproval(NO_APPROVALS, 'workspace', approval('workspace-allow-fixture-a', 'a'));
    const two = withApproval(one, 'workspace', approval('workspace-allow-fixture-b', 'b'));
    assert.equal(ids(one).workspace, ids(two).workspace);
  });

  it('every group has an id of its own', () => {
    for (const state of [ids(NO_APPROVALS), ids(withApproval(NO_APPROVALS, 'session', approval('s', 'a')), [rule('u', 'a')])])
      assert.equal(new Set(Object.values(state)).size, 4);
  });
});
