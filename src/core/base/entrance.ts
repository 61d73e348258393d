/**
 * Entrances: the one vocabulary for where a call comes from, in the three views Plangate keeps of it, and the two
 * mappings between them. Each view's names are stored or written by users, so they stay as they are (CONTRACT):
 * - a plan's **origin** (`PlanEntrance`, `planReceived.plan.origin.entrance` in the ledger): who made the planning call;
 * - a call's **path** (`CallEntrance`, `callSent.entrance` in the ledger): which button or channel sent it;
 * - the **policy's** name for it (`PolicyEntrance`, a rule's `entrance`): what a user's rule can match.
 * The mappings are tables keyed by every name of the view they read, so a new name does not compile without its row.
 */

/** Who made the planning call whose result became a plan. */
export type PlanEntrance = 'manual' | 'agent' | 'cli' | 'recovery' | 'follow_up' | 'replan' | 'step';

/** Which path a tool call left Plangate by. */
export type CallEntrance = 'step' | 'call' | 'agent' | 'replan' | 'preview' | 'collect' | 'app';

/**
 * The entrance a call comes by, as rules name it: a plan's step (and its dry-run preview), the chat agent's call
 * through a gated server, Call Tool (and the other buttons that show the call: an ask form's answer, a collect
 * form's Submit), a call an MCP App makes, a recovery action's step, and a server's `sampling/createMessage` request
 * (no tool call: the server asks Plangate to run a language model for it; a rule's `tool` then matches the tool call in
 * flight on that server, if there is one).
 */
export type PolicyEntrance = 'plan' | 'agent' | 'call' | 'app' | 'recovery' | 'sampling';

const POLICY_ENTRANCE_SET = {
  plan: true,
  agent: true,
  call: true,
  app: true,
  recovery: true,
  sampling: true,
} as const satisfies Record<PolicyEntrance, true>;
export const POLICY_ENTRANCES = Object.keys(POLICY_ENTRANCE_SET) as readonly PolicyEntrance[];

/** The path a planning call takes, by who made it: the agent's and a re-plan's have their own; every other is a call. */
const CALL_OF_PLAN: Readonly<Record<PlanEntrance, CallEntrance>> = {
  agent: 'agent',
  replan: 'replan',
  manual: 'call',
  cli: 'call',
  recovery: 'call',
  follow_up: 'call',
  step: 'call',
};

/** The policy's name for a call that no approved plan covers, by its path. */
const POLICY_OF_CALL: Readonly<Record<CallEntrance, PolicyEntrance>> = {
  step: 'plan',
  preview: 'plan',
  agent: 'agent',
  app: 'app',
  call: 'call',
  replan: 'call',
  collect: 'call',
};

/** The path of a planning call made from `origin` (`callSent.entrance`). */
export function callEntranceOf(origin: PlanEntrance): CallEntrance {
  return CALL_OF_PLAN[origin];
}

/** The policy's name for a call by `path`. */
export function policyEntranceOf(path: CallEntrance): PolicyEntrance {
  return POLICY_OF_CALL[path];
}

/** The policy's name for a step (or a preview of one) of a plan made from `origin`: a recovery action's, or a plan's. */
export function stepPolicyEntrance(origin: PlanEntrance | undefined): PolicyEntrance {
  return origin === 'recovery' ? 'recovery' : 'plan';
}
