/**
 * Percentile: clip the range where the cumulative histogram reaches a percentile, to ignore rare outliers.
 *
 * Reference: ORT `calibrate.py`, `HistogramCollector.compute_percentile` (and Quark's copy in
 * `OverridedHistogramCollector.compute_percentile`). Symmetric (the default): a histogram of |x| over
 * [min |x|, max |x|] (`collect_absolute_value`); the threshold t is the left edge of the first bin whose
 * cumulative share reaches p / 100, and the range is [-t, t]. Asymmetric: a histogram of x over [-a, a],
 * a = max |x| (`collect_value`), cutting (100 − p) / 200 from each side. Either way each end is then
 * clipped to the data's own min and max, so all-positive data keep their true minimum.
 *
 * Deviation: ORT's `HistogramCalibrater.collect_data` histograms all runs of one call at once, and that
 * layout is what is re-binned here from the canonical histogram (`histogram/histogramViews.ts`); the widening that
 * later calls (and Quark's per-sample collector) apply depends on batch order and is not reproduced.
 * Re-binning moves a value by at most one fine bin (under half a reference bin), so the threshold can
 * move by at most one reference bin.
 */

import { histogramUpdateAndMerge } from './histogramState.ts';
import { type Histogram, capacityFor, createHistogram } from '../histogram/histogram.ts';
import { type ReferenceHistogram, centeredReference, spanReference } from '../histogram/histogramViews.ts';
import { type CalibrationRange, type Collector, validateNumBins, validatePercentile, withDefaults } from './types.ts';

export interface PercentileOptions {
  /** In [0, 100]. */
  readonly percentile: number;
  /** Bins of the reference histogram the percentile is read from. */
  readonly numBins: number;
  /** Histogram of |x| and a range symmetric about zero (before clipping to the data). */
  readonly symmetric: boolean;
}

export interface PercentileState {
  readonly method: 'Percentile';
  readonly options: PercentileOptions;
  readonly hist: Histogram;
}

/** ORT `create_calibrator` and Quark `_CALIB_METHOD_DEFAULTS[Percentile]`: 2048 bins, 99.999, symmetric. */
export const PERCENTILE_DEFAULTS: PercentileOptions = { percentile: 99.999, numBins: 2048, symmetric: true };

/** numpy.searchsorted(cdf, v) (side 'left'): the first index with cdf[i] ≥ v, or cdf.length. */
function searchSorted(cdf: Float64Array, v: number): number {
  let lo = 0;
  let hi = cdf.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** ORT's cumulative share: cumsum(hist / total), dividing before summing as numpy does. */
function cumulative(counts: Float64Array): Float64Array {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i];
  const cdf = new Float64Array(counts.length);
  let acc = 0;
  for (let i = 0; i < counts.length; i++) {
    acc += counts[i] / total;
    cdf[i] = acc;
  }
  return cdf;
}

/**
 * ORT's percentile thresholds on a reference histogram, before clipping to the data: [-e, e] for a
 * histogram of |x|, else [e_left, e_right]. Edges are the reference's float32 edges.
 */
export function percentileThresholds(
  ref: ReferenceHistogram,
  percentile: number,
  symmetric: boolean,
): [number, number] {
  const cdf = cumulative(ref.counts);
  if (symmetric) {
    const t = ref.edges[searchSorted(cdf, percentile / 100)];
    return [-t, t];
  }
  const cut = (100 - percentile) / 200;
  return [ref.edges[searchSorted(cdf, cut)], ref.edges[searchSorted(cdf, 1 - cut)]];
}

/** The reference histogram ORT would build from all the data: [min |x|, max |x|] for |x|, else [-a, a]. */
export function percentileReference(hist: Histogram, numBins: number): ReferenceHistogram {
  return hist.abs ? spanReference(hist, numBins) : centeredReference(hist, numBins);
}

/** ORT's last step: each end clipped to the data's own extremes. */
export function clipToData(range: [number, number], hist: Histogram): CalibrationRange {
  let [min, max] = range;
  if (min < hist.valueMin) min = hist.valueMin;
  if (max > hist.valueMax) max = hist.valueMax;
  return { min: min === 0 ? 0 : min, max: max === 0 ? 0 : max };
}

export const PercentileCollector: Collector<PercentileOptions, PercentileState, CalibrationRange> = {
  method: 'Percentile',
  defaults: PERCENTILE_DEFAULTS,
  create(options) {
    const o = withDefaults(PERCENTILE_DEFAULTS, options);
    validatePercentile(o.percentile);
    validateNumBins(o.numBins);
    return { method: 'Percentile', options: o, hist: createHistogram(capacityFor(o.numBins), o.symmetric) };
  },
  ...histogramUpdateAndMerge<'Percentile', PercentileOptions>('Percentile'),
  finalize(state) {
    const { hist, options } = state;
    if (hist.count === 0) return { min: 0, max: 0 };
    const ref = percentileReference(hist, options.numBins);
    return clipToData(percentileThresholds(ref, options.percentile, options.symmetric), hist);
  },
};
