/**
 * Distribution: the mean and standard deviation of a tensor's values, read from its histogram, for float 8
 * quantization (Quark: "only FP8 data type is supported under this calibration method").
 *
 * Reference: ORT `calibrate.py`, `HistogramCollector.compute_distribution` and `_avg_std` on the
 * `collect_value` histogram (`num_bins` ≥ 512 bins over [-a, a], a = max |x|). Scenario 'same' takes the
 * moments of the bin centres v; 'p3' (float 8 assumed to behave like X³ of a Gaussian X) those of
 * sign(v)·|v|^(1/3). The range reported is the histogram's [-a, a], as ORT's `lowest` / `highest`.
 *
 * Deviation: ORT's histogram is the single-batch one, re-binned from the canonical histogram (each value
 * moved by at most one fine bin, under half a reference bin).
 */

import { histogramUpdateAndMerge } from './histogramState.ts';
import { type Histogram, capacityFor, createHistogram } from '../histogram/histogram.ts';
import { binCenters, centeredReference } from '../histogram/histogramViews.ts';
import { type CalibrationRange, type Collector, validateNumBins, withDefaults } from './types.ts';

export type DistributionScenario = 'same' | 'p3';

export interface DistributionOptions {
  readonly numBins: number;
  readonly scenario: DistributionScenario;
}

export interface DistributionState {
  readonly method: 'Distribution';
  readonly options: DistributionOptions;
  readonly hist: Histogram;
}

export interface DistributionResult extends CalibrationRange {
  /** Mean and standard deviation of the (transformed) values, float32. */
  readonly avg: number;
  readonly std: number;
}

/** ORT `create_calibrator`: num_bins 2048 (at least 512), scenario 'same'. */
export const DISTRIBUTION_DEFAULTS: DistributionOptions = { numBins: 2048, scenario: 'same' };

/** ORT `_avg_std` with power 1 ('same') or 1/3 ('p3'), on counts and float32 bin centres. */
export function histogramMoments(
  counts: Float64Array,
  centers: Float64Array,
  scenario: DistributionScenario,
): { avg: number; std: number } {
  let n = 0;
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < counts.length; i++) {
    const v = scenario === 'same' ? centers[i] : Math.sign(centers[i] || 1) * Math.cbrt(Math.abs(centers[i]));
    n += counts[i];
    s1 += counts[i] * v;
    s2 += counts[i] * v * v;
  }
  const avg = s1 / n;
  const variance = s2 / n - avg * avg;
  return { avg: Math.fround(avg), std: Math.fround(Math.sqrt(Math.max(variance, 0))) };
}

export const DistributionCollector: Collector<DistributionOptions, DistributionState, DistributionResult> = {
  method: 'Distribution',
  defaults: DISTRIBUTION_DEFAULTS,
  create(options) {
    const o = withDefaults(DISTRIBUTION_DEFAULTS, options);
    validateNumBins(o.numBins, 512);
    if (o.scenario !== 'same' && o.scenario !== 'p3') {
      throw new RangeError(`Distribution: unknown scenario ${String(o.scenario)}`);
    }
    return { method: 'Distribution', options: o, hist: createHistogram(capacityFor(o.numBins)) };
  },
  ...histogramUpdateAndMerge<'Distribution', DistributionOptions>('Distribution'),
  finalize(state) {
    const { hist, options } = state;
    if (hist.count === 0) return { min: 0, max: 0, avg: 0, std: 0 };
    const ref = centeredReference(hist, options.numBins);
    const { avg, std } = histogramMoments(ref.counts, binCenters(ref.edges), options.scenario);
    return { min: ref.edges[0], max: ref.edges[options.numBins], avg, std };
  },
};
