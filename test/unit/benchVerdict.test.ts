// `npm run bench` fails (exit 1) when a figure misses its target by more than its noise band, and only then: a figure
// over its target but within its band, one without a target, and one not measured leave the run green; a figure group
// that could not run fails it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { figure, notMeasured, verdict } from '../../bench/figure';

const ratio = (value: number, target: number | null = 1.1, band: number | null = 0.1) =>
  figure('engine', 'engine / limit', value, 'x', target, band);

describe('the benchmark verdict', () => {
  it('passes at, under, and within the noise band above the target; fails past target + band', () => {
    assert.equal(verdict([ratio(1.0)]).code, 0);
    assert.equal(verdict([ratio(1.1)]).code, 0);
    const noisy = verdict([ratio(1.19)]);
    assert.equal(noisy.code, 0);
    assert.deepEqual(noisy.withinBand, ['engine: 1.19x > 1.1x, within its 0.1x of noise']);
    const missed = verdict([ratio(1.21), ratio(0.5)]);
    assert.equal(missed.code, 1);
    assert.deepEqual(missed.regressions, ['engine: 1.21x > 1.1x + 0.1x of noise']);
  });

  it('a size or count has no band: one byte or one process over fails', () => {
    assert.equal(verdict([figure('bundle', 'bundle', 1.5, 'MB', 1.5, 0)]).code, 0);
    assert.equal(verdict([figure('bundle', 'bundle', 1.501, 'MB', 1.5, 0)]).code, 1);
    assert.equal(verdict([figure('early', 'started early', 1, 'count', 0, 0)]).code, 1);
  });

  it('a figure not measured, or without a target, does not fail the run and says so', () => {
    const v = verdict([
      notMeasured('webview', 'webview render', 'x', 2, 0.2, 'needs Chromium'),
      figure('sandbox_start', 'sandbox start', 9, 'x', null, null),
      ratio(1.05),
    ]);
    assert.equal(v.code, 0);
    assert.deepEqual(v.notMeasured, ['webview (needs Chromium)']);
    assert.deepEqual(v.regressions, []);
  });

  it('a value that is not a number is a regression, never a pass', () => {
    assert.equal(verdict([ratio(Number.NaN)]).code, 1);
    assert.equal(verdict([ratio(Number.POSITIVE_INFINITY)]).code, 1);
  });

  it('a group that could not run fails the run even when every figure made is fine', () => {
    assert.equal(verdict([ratio(1)], ['long_plan_in_vscode']).code, 1);
  });

  it('each figure carries its band (none without a target), as --json prints it', () => {
    assert.equal(ratio(1).band, 0.1);
    assert.equal(figure('x', 'x', 1, 'x', null, 0.3).band, null);
    assert.equal(notMeasured('x', 'x', 'x', 2, 0.2, 'why').band, 0.2);
  });
});
