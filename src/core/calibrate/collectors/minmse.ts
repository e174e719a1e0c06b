/**
 * MinMSE with a float scale: among candidate ranges, keep the one whose quantize-dequantize round trip has
 * the smallest mean squared error. Quark uses it for weights (`WeightCalibrateMethod = MinMSE`); it works on
 * any tensor.
 *
 * Reference: Quark `quantization/quant_utils.py`, `compute_minmse` with `compute_scale_zp(..., use_pof2s=False)`:
 * - 'Percentile' (Quark's default when `MinMSEModeFloatScale` is unset): candidates are the two-sided
 *   percentiles [numpy.percentile(x, (100 − p) / 2), numpy.percentile(x, 100 − (100 − p) / 2)] for
 *   p ∈ {99.9, 99.99, 99.999, 99.9999}, error over all values.
 * - 'HistCenter': a histogram of min(2048, n) bins over [min, max]; for c from bins / 2 to bins − 1 the
 *   candidate is [centre[⌊(bins − c) / 2⌋], centre[⌊bins − (bins − c) / 2⌋]] (windows from the middle half
 *   to the whole histogram); error over the bin centres weighted by their counts.
 * - 'All': the 'HistCenter' candidates, error over all values.
 * A candidate whose scale equals an earlier one's is skipped; the first smallest error wins. The result is
 * the candidate range (before symmetrising, as Quark returns it) with the scale and zero point it gave.
 *
 * Added to Quark's candidates, in every mode: first the data's whole range (MinMax's), so that the result
 * never errs more than MinMax on the objective it minimises, then a sweep of that range shrunk by 1 % steps
 * down to 30 % (`SWEEP_FRACTIONS`), the clipping-against-rounding trade-off Quark's four percentiles sample
 * only near the top. The error is always the tensor's own round-trip error at the candidate's scale.
 *
 * Deviations: raw values are not kept, so "all values" means the canonical histogram's bin points and the
 * percentiles are read from it (each value moved by at most one fine bin; the histogram has at least
 * 4 × numBins capacity). The 'HistCenter' histogram is the single-batch one Quark builds, re-binned.
 * Codes are clamped to the bounds the scale was derived for; Quark's `quantize_nparray` always clamps to the
 * narrow symmetric range, which differs only for asymmetric signed types at the lowest code.
 */

import { histogramUpdateAndMerge } from './histogramState.ts';
import { QUANT_TYPES, type QuantType, isQuantType } from '../../quantize/numeric.ts';
import {
  type Histogram,
  capacityFor,
  createHistogram,
  foldIntoHistogram,
  mergeHistograms,
} from '../histogram/histogram.ts';
import { binCenters, binPoints, histogramQuantile, spanReference } from '../histogram/histogramViews.ts';
import {
  type IntegerBounds,
  type ScaleZeroPoint,
  floatScaleZeroPoint,
  qdqSquaredError,
  searchBounds,
} from './qdqError.ts';
import { type CalibrationRange, type Collector, assertSameOptions, validateNumBins, withDefaults } from './types.ts';

export type MinMseMode = 'Percentile' | 'HistCenter' | 'All';

export interface MinMseOptions {
  readonly mode: MinMseMode;
  /** Integer type the round trip is simulated in. */
  readonly quantType: QuantType;
  readonly symmetric: boolean;
  /** Upper bound on the 'HistCenter' / 'All' histogram's bins (Quark: min(2048, n)). */
  readonly numBins: number;
  /** Also try the data's whole range and the sweep below it (see module note); false: Quark's candidates only. */
  readonly sweep: boolean;
}

export interface MinMseState {
  readonly method: 'MinMSE';
  readonly options: MinMseOptions;
  readonly hist: Histogram;
}

/** A range chosen by an error search, with the quantization parameters the search settled on. */
export interface SearchedRange extends CalibrationRange, ScaleZeroPoint {}

/** Quark: `MinMSEModeFloatScale` unset → 'Percentile'; Int8 specs are symmetric; histogram of ≤ 2048 bins; plus the sweep. */
export const MIN_MSE_DEFAULTS: MinMseOptions = {
  mode: 'Percentile',
  quantType: 'int8',
  symmetric: true,
  numBins: 2048,
  sweep: true,
};

/** Quark `compute_minmse`'s percentile candidates. */
export const MIN_MSE_PERCENTILES: readonly number[] = [99.9, 99.99, 99.999, 99.9999];

interface Candidate {
  readonly min: number;
  readonly max: number;
}

/** Fractions of the data's range the sweep tries: 0.99, 0.98, …, 0.30. */
export const SWEEP_FRACTIONS: readonly number[] = Array.from({ length: 70 }, (_, k) => 0.99 - 0.01 * k);

/** The data's range, then the sweep (see module note); none when `sweep` is off. */
function rangeCandidates(h: Histogram, sweep: boolean): Candidate[] {
  if (!sweep) return [];
  return [{ min: h.min, max: h.max }, ...SWEEP_FRACTIONS.map((f) => ({ min: f * h.min, max: f * h.max }))];
}

function percentileCandidates(h: Histogram): Candidate[] {
  return MIN_MSE_PERCENTILES.map((p) => ({
    min: histogramQuantile(h, (100 - p) / 200),
    max: histogramQuantile(h, 1 - (100 - p) / 200),
  }));
}

function histCenterCandidates(centers: Float64Array): Candidate[] {
  const bins = centers.length;
  const out: Candidate[] = [];
  for (let c = Math.floor(0.5 * bins); c < bins; c++) {
    out.push({ min: centers[Math.floor((bins - c) / 2)], max: centers[Math.floor(bins - (bins - c) / 2)] });
  }
  return out;
}

/** Quark's search loop: skip repeated scales, keep the first smallest error. */
function search(
  candidates: Candidate[],
  pts: Float64Array,
  wts: Float64Array,
  bounds: IntegerBounds,
  symmetric: boolean,
): SearchedRange {
  const seen = new Set<number>();
  let best: SearchedRange | undefined;
  let bestError = Infinity;
  for (const c of candidates) {
    const sz = floatScaleZeroPoint(c.min, c.max, bounds, symmetric);
    if (seen.has(sz.scale)) continue;
    seen.add(sz.scale);
    const error = qdqSquaredError(pts, wts, sz, bounds, bestError);
    if (best === undefined || error < bestError) {
      best = { min: c.min, max: c.max, ...sz };
      bestError = error;
    }
  }
  return best as SearchedRange;
}

/** Quark `compute_minmse` on a histogram of the data (see module note). */
export function minMseSearch(h: Histogram, options: MinMseOptions): SearchedRange {
  const bounds = searchBounds(options.quantType, options.symmetric);
  if (options.mode === 'Percentile') {
    const { points, weights } = binPoints(h);
    return search(
      [...rangeCandidates(h, options.sweep), ...percentileCandidates(h)],
      points,
      weights,
      bounds,
      options.symmetric,
    );
  }
  const ref = spanReference(h, Math.min(options.numBins, h.count));
  const centers = binCenters(ref.edges);
  const candidates = [...rangeCandidates(h, options.sweep), ...histCenterCandidates(centers)];
  if (options.mode === 'HistCenter') return search(candidates, centers, ref.counts, bounds, options.symmetric);
  const { points, weights } = binPoints(h);
  return search(candidates, points, weights, bounds, options.symmetric);
}

export const MinMseCollector: Collector<MinMseOptions, MinMseState, SearchedRange> = {
  method: 'MinMSE',
  defaults: MIN_MSE_DEFAULTS,
  create(options) {
    const o = withDefaults(MIN_MSE_DEFAULTS, options);
    validateNumBins(o.numBins);
    if (!isQuantType(o.quantType) || QUANT_TYPES[o.quantType].bits > 16) {
      throw new RangeError(`MinMSE: unsupported quantType ${String(o.quantType)}`);
    }
    if (!['Percentile', 'HistCenter', 'All'].includes(o.mode)) {
      throw new RangeError(`MinMSE: unknown mode ${String(o.mode)}`);
    }
    return { method: 'MinMSE', options: o, hist: createHistogram(capacityFor(o.numBins)) };
  },
  ...histogramUpdateAndMerge<'MinMSE', MinMseOptions>('MinMSE'),
  finalize(state) {
    if (state.hist.count === 0) return { min: 0, max: 0, scale: 1, zeroPoint: 0 };
    return minMseSearch(state.hist, state.options);
  },
};

/**
 * The state of ConsumerMSE (consumerSearch.ts): MinMSE's histogram, plus the range the search chose once the
 * calibration runner has run it. Without a choice (a state merged from parts, before the search) it reports
 * MinMSE's range; merging drops the choice, since it was made on other data. So a ConsumerMSE run is never
 * split: the page runs it on one worker, and the command line refuses its shards (statisticsFile.ts
 * ConsumerSearchSplitError).
 */
export interface ConsumerMseState {
  readonly method: 'ConsumerMSE';
  readonly options: MinMseOptions;
  readonly hist: Histogram;
  chosen: CalibrationRange | null;
}

export const ConsumerMseCollector: Collector<MinMseOptions, ConsumerMseState, CalibrationRange> = {
  method: 'ConsumerMSE',
  defaults: MIN_MSE_DEFAULTS,
  create(options) {
    const s = MinMseCollector.create(options);
    return { method: 'ConsumerMSE', options: s.options, hist: s.hist, chosen: null };
  },
  update(state, values) {
    foldIntoHistogram(state.hist, values);
    return state;
  },
  merge(a, b) {
    assertSameOptions('ConsumerMSE', a.options, b.options);
    return { method: 'ConsumerMSE', options: a.options, hist: mergeHistograms(a.hist, b.hist), chosen: null };
  },
  finalize(state) {
    if (state.chosen) return state.chosen;
    if (state.hist.count === 0) return { min: 0, max: 0 };
    const r = minMseSearch(state.hist, state.options);
    return { min: r.min, max: r.max };
  },
};
