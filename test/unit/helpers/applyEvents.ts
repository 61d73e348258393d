// Applies workflow events in order for tests that build a state step by step; fails, saying why, on the first event
// the reducer refuses. (workflow.test.ts keeps its own copy that also deep-freezes every state and event.)
import assert from 'node:assert/strict';
import { canApply, reduce, type WorkflowEvent, type WorkflowState } from '../../../src/core/workflow/workflow';

export function apply(state: WorkflowState, ...events: WorkflowEvent[]): WorkflowState {
  let s = state;
  for (const e of events) {
    const why = canApply(s, e);
    assert.equal(why, undefined, `${e.type} was refused: ${why}`);
    s = reduce(s, e);
  }
  return s;
}
