/**
 * The plan item on screen: its view model and its elements by plan id and by step key, kept for partial
 * re-renders (planView.ts) and for the rows still being added (steps.ts).
 */
import type { PlanHeadView, PlanItemView } from '../../shared/protocol/plan';

/** The rendered plan item: its view model and its elements by plan id and by step key, for partial re-renders. */
export interface Rendered {
  item: PlanItemView;
  articles: Map<string, HTMLElement>;
  stepSections: Map<string, HTMLElement>;
  rows: Map<string, HTMLElement>;
  /** For a plan whose rows are still being added (see {@link renderSteps}): the index of the first row not yet in the list. */
  rowsFrom: Map<string, number>;
  /** Rows a steps section draws at once: a plan shown for the first time draws its first screen, the rest after. */
  firstRows: number;
}

/** The plan item on screen (none before the first plan is shown). */
export const shown: { current: Rendered | undefined } = { current: undefined };

/** Step rows drawn with a plan shown for the first time; a longer plan's other rows follow, {@link ROWS_PER_FRAME} a frame. */
export const FIRST_ROWS = 60;
export const ROWS_PER_FRAME = 120;

/** The head of plan `plan.id` as last received: a row's handlers outlive the head they were built with. */
export function headNow(plan: PlanHeadView): PlanHeadView {
  return shown.current?.item.plans[plan.id] ?? plan;
}
