import { DisposableBase, throttled } from '../core/base/lifecycle';
import type { Gate } from '../core/engine/gate';
import { delayedProgress } from './delayedProgress';

/**
 * While a plan runs, a cancellable progress notification says which step runs ("Step 2 of 5: label");
 * cancelling it cancels the plan. It ends when the plan stops running (done, blocked, follow-up), and a run that
 * stops within a moment shows none (see delayedProgress).
 */
export class RunProgress extends DisposableBase {
  private readonly shown = new Map<string, (text: string | undefined) => void>();

  constructor(private readonly gate: Gate) {
    super();
    // A notification's text need not follow every step of a fast run: at most five updates a second.
    this._register(this._register(throttled(gate.workflow.onDidChange, 200))(() => this.update()));
  }

  private update(): void {
    const { plans, order } = this.gate.workflow.state;
    for (const id of order) {
      const plan = plans[id];
      if (!plan || plan.depth !== 0) continue;
      const running = plan.phase === 'executing';
      const report = this.shown.get(id);
      if (running && !report) this.start(id);
      else if (report) report(running ? this.message(id) : undefined);
    }
  }

  private message(planId: string): string {
    const plan = this.gate.workflow.state.plans[planId];
    const step = plan.steps.find((s) => s.state === 'running' || s.state === 'awaiting_confirm');
    if (!step) return `${plan.steps.filter((s) => s.state === 'ok' || s.state === 'skipped').length} of ${plan.steps.length} steps done`;
    return `Step ${step.index + 1} of ${plan.steps.length}: ${step.call.label || step.call.tool}${step.state === 'awaiting_confirm' ? ' (waiting for your confirmation)' : ''}`;
  }

  private start(planId: string): void {
    const progress = delayedProgress('Plangate: running plan', () => {
      void this.gate.cancel(planId);
    });
    let last = '';
    this.shown.set(planId, (text) => {
      if (text === undefined) {
        this.shown.delete(planId);
        progress.done();
      } else if (text !== last) {
        progress.report((last = text));
      }
    });
    progress.report((last = this.message(planId)));
  }

  override dispose(): void {
    for (const report of [...this.shown.values()]) report(undefined);
    super.dispose();
  }
}
