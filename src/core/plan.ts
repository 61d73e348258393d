/**
 * The normalised MCPFlow `orchestrated_plan` envelope, as the rest of Plangate sees it after parsing
 * (see envelope.ts). Enums are lowercase strings whatever the server sent (numbers, PascalCase);
 * `next_actions` is always an array; unknown fields are kept.
 */

export const PLAN_STATUSES = ['ok', 'error', 'invalid', 'blocked', 'partial'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export const ASK_FIELD_TYPES = ['string', 'number', 'select'] as const;
export type AskFieldType = (typeof ASK_FIELD_TYPES)[number];

export const PARTIAL_OUTCOMES = ['ok', 'skipped', 'failed'] as const;
export type PartialOutcome = (typeof PARTIAL_OUTCOMES)[number];

/** A tool call the plan proposes (a step in `next_actions`, or a recovery action). */
export interface ActionCall {
  tool: string;
  /** Always an object after parsing (`{}` when the server sent none). */
  args: Record<string, unknown>;
  label?: string;
  /** The step needs its own confirmation when it is reached. */
  confirm?: boolean;
  [extra: string]: unknown;
}

export interface Issue {
  code: string;
  message: string;
  field?: string;
  hint?: string;
  recoverable?: boolean;
  [extra: string]: unknown;
}

export interface PartialResult {
  step: string;
  outcome: PartialOutcome;
  detail?: string;
  [extra: string]: unknown;
}

export interface AskField {
  name: string;
  type: AskFieldType;
  required?: boolean;
  options?: string[];
  [extra: string]: unknown;
}

export interface Ask {
  prompt: string;
  fields?: AskField[];
  [extra: string]: unknown;
}

export interface Safety {
  writes_code?: boolean;
  /** Globs relative to the workspace, e.g. `src/modules/payroll/**`. */
  touches_files?: string[];
  [extra: string]: unknown;
}

export interface OrchestratedPlan {
  kind: 'orchestrated_plan';
  /** Always "1" after parsing (a number 1 is accepted and normalised). */
  version: string;
  status: PlanStatus;
  instruction: string;
  next_actions: ActionCall[];
  follow_up?: string;
  errors?: Issue[];
  warnings?: Issue[];
  missing?: string[];
  partial_results?: PartialResult[];
  ask?: Ask;
  recovery_actions?: ActionCall[];
  safety?: Safety;
  affected_paths?: string[];
  correlation_id?: string;
  [extra: string]: unknown;
}

/** One problem found in input, with the JSON path it concerns, e.g. `next_actions[1].tool`. */
export interface Problem {
  /** JSON path relative to the envelope; `""` means the envelope itself. */
  path: string;
  message: string;
}

/** The conventional local step: `tool: "ask_user"` with `args: {prompt, fields}`; never sent to a server. */
export const ASK_USER_TOOL = 'ask_user';
