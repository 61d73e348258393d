/**
 * Renders a plan item (a plan and its nested plans, in place) from its view model, and re-renders only what a patch
 * changed: a plan's head (everything but its step rows) or single step rows, found by key. The wording comes with
 * the view model (core/present); the sections are laid out in their own files beside this one.
 */
import type { PlanItemView, PlanView } from '../../shared/protocol/plan';
import { stepKey } from '../../shared/panelPatch';
import { clip, h, icon, morphChildren, replaceKeepingFocus, visible } from '../base/dom';
import { renderActions } from './actions';
import { renderChanges, renderPredicted } from './files';
import { renderIssues, renderNotOk } from './issues';
import { renderSafety } from './safety';
import { FIRST_ROWS, shown } from './state';
import { renderStep, renderSteps } from './steps';

/** Renders a plan item whole. */
export function renderPlan(item: PlanItemView): HTMLElement {
  // Shown again (a snapshot of the item on screen): all rows at once, so the scroll position the user had stays.
  const again = shown.current?.item.rootId === item.rootId;
  shown.current = {
    item,
    articles: new Map(),
    stepSections: new Map(),
    rows: new Map(),
    rowsFrom: new Map(),
    firstRows: again ? Infinity : FIRST_ROWS,
  };
  const root = item.plans[item.rootId];
  return h('div', { class: 'plan' }, root ? renderPlanBody(root) : null);
}

/**
 * Re-renders what changed in the plan item on screen: plan heads (`heads`, by plan id) and step rows (`steps`, by
 * `stepKey`). Returns false when the item on screen is not one these keys can be found in (render it whole then).
 */
export function updatePlan(item: PlanItemView, heads: ReadonlySet<string>, steps: ReadonlySet<string>): boolean {
  if (!shown.current || shown.current.item.rootId !== item.rootId) return false;
  const before = shown.current.item;
  shown.current.item = item;
  const r = shown.current;
  let stepKeys = steps;
  // Approved (or otherwise no longer editable): the rows lose their Skip buttons and edit controls in place — a
  // 1,000-step plan is not rendered again for that. A row with an argument editor open is rendered again whole.
  for (const planId of heads) {
    if (!before.plans[planId]?.editable || item.plans[planId]?.editable !== false) continue;
    const section = r.stepSections.get(planId);
    if (!section) continue;
    for (const el of Array.from(section.querySelectorAll<HTMLElement>('.pre-approval, details.args textarea'))) {
      const row = el.closest<HTMLElement>('li.step');
      if (!row || row.closest('article') !== r.articles.get(planId)) continue; // a nested plan's own controls
      if (el instanceof HTMLTextAreaElement) stepKeys = new Set([...stepKeys, stepKey(planId, Number(row.dataset.step) - 1)]);
      else el.remove();
    }
  }
  for (const key of stepKeys) {
    const [planId, index] = key.split('\u0000') as [string, string];
    const row = r.rows.get(key);
    const step = item.plans[planId]?.steps[Number(index)];
    if (!row || !step || !row.isConnected) {
      // A row still to be added is added from the latest view, this change included.
      if (!row && Number(index) >= (r.rowsFrom.get(planId) ?? Infinity)) continue;
      if (r.articles.get(planId)?.isConnected) return false;
      continue; // a row of a nested plan that is not on screen (its parent's row shows it when it is)
    }
    replaceKeepingFocus(row, renderStep(item.plans[planId]!, step, renderPlanBody));
  }
  for (const planId of heads) {
    const article = r.articles.get(planId);
    const plan = item.plans[planId];
    if (!plan) continue;
    if (!article || !article.isConnected) {
      if (planId === item.rootId) return false;
      continue;
    }
    const steps = r.stepSections.get(planId);
    if (steps && steps.parentElement === article) replaceHead(article, steps, plan);
    else replaceKeepingFocus(article, renderPlanBody(plan));
  }
  return true;
}

/**
 * Builds a plan's head again around its steps section, which stays where it is, and puts in only the head's parts
 * that differ from what is on screen: while a long plan runs only the action bar's "Running step k of n" changes, so
 * only that is replaced — no relayout of the other parts or of the 1,000 rows below, and the focus, the typed text
 * and the scroll stay where the user left them. Parts are compared as DOM (tag, attributes, text); what a button's
 * handler depends on is in its attributes (e.g. the approval it sends).
 */
function replaceHead(article: HTMLElement, steps: HTMLElement, plan: PlanView): void {
  const marker = h('span', null);
  const fresh = Array.from(renderPlanBody(plan, marker).children) as HTMLElement[];
  shown.current?.articles.set(plan.id, article);
  shown.current?.stepSections.set(plan.id, steps);
  const old = Array.from(article.children) as HTMLElement[];
  const at = old.indexOf(steps);
  const cut = fresh.indexOf(marker);
  morphChildren(article, old.slice(0, at), fresh.slice(0, cut), steps);
  morphChildren(article, old.slice(at + 1), fresh.slice(cut + 1), null);
}

/** A plan's article; `steps`: the steps section already on screen, kept as it is (a head-only re-render). */
function renderPlanBody(plan: PlanView, steps?: HTMLElement): HTMLElement {
  const depth = plan.depth > 0 ? 1 : 0;
  const root = h('article', {
    class: depth > 0 ? 'nested-plan' : 'top-plan',
    aria: { label: depth > 0 ? `Nested plan ${plan.id}` : 'Plan' },
  });
  shown.current?.articles.set(plan.id, root);
  const heading = depth > 0 ? h('h3', null, 'Nested plan') : h('h1', { id: 'plan-title' }, 'Plan');
  root.append(
    h(
      'header',
      { class: 'plan-header' },
      heading,
      h('span', { class: `badge phase-${plan.phase} outcome-${plan.outcome ?? 'none'}` }, plan.phaseLabel),
      h('span', { class: 'badge status-' + plan.serverStatus, title: 'The status the server sent with the plan' }, plan.serverStatusLabel),
      h('span', { class: 'origin' }, icon('server'), ' ', visible(plan.origin.server), ' · ', h('code', null, visible(plan.origin.tool))),
    ),
  );
  if (plan.lineage.length) {
    root.append(
      h(
        'p',
        { class: 'lineage' },
        `Replaces ${plan.lineage.length} earlier plan${plan.lineage.length > 1 ? 's' : ''} (re-planned after your answers).`,
      ),
    );
  }
  root.append(h('p', { class: 'instruction' }, visible(clip(plan.instruction || '(no instruction)', 20000))));
  if (plan.reapproval)
    root.append(h('p', { class: 'reapproval', role: 'alert' }, icon('warning'), ' ', visible(clip(plan.reapproval, 2000))));
  if (plan.approvalNote)
    root.append(h('p', { class: 'approval-note' }, icon('note'), ' Approved with your note: ', h('q', null, visible(plan.approvalNote))));

  // After the run, what it changed (and Revert) comes first: below the steps it sat under the fold, behind the
  // follow-up bar pinned at the bottom.
  if (plan.changes) root.append(renderChanges(plan));
  if (plan.safety) root.append(renderSafety(plan));
  const predicted = depth === 0 ? renderPredicted(plan) : null;
  if (predicted) root.append(predicted);
  if (plan.warnings.length) root.append(renderIssues('Warnings', plan.warnings, 'warning'));
  if (plan.notOk) root.append(...renderNotOk(plan));
  if (plan.stepCount) root.append(steps ?? renderSteps(plan, renderPlanBody));
  root.append(renderActions(plan));
  if (plan.correlationId) root.append(h('p', { class: 'muted' }, 'Correlation id: ', h('code', null, visible(plan.correlationId))));
  return root;
}
