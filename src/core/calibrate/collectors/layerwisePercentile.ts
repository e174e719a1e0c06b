/**
 * Layer-wise percentile: compute the Percentile range for several candidate percentiles and keep, per
 * tensor, the one whose quantize-dequantize round trip errs least on the tensor's own values.
 *
 * Reference: Quark `calibration/calibrators.py`, `LayerWisePercentileCalibrater` (`collect_data`,
 * `cal_one_layer_metric`, `compute_data_online`) with `_CALIB_METHOD_DEFAULTS[LayerWisePercentile]`:
 * candidates 99.99, 99.999, 99.99999 through ORT's `compute_percentile` (2048 bins, symmetric), metric
 * 'mae' (mean |x − dq|) or 'mse'. For a candidate range [lo, hi] and the activation type's full range
 * [qmin, qmax]: scale = (hi − lo) / (qmax − qmin) + 1e-6, zp = round(lo / scale − qmin),
 * q = clamp(round(x / scale − zp), qmin, qmax), dq = (q + zp)·scale (Quark's sign convention for zp);
 * the first smallest error wins.
 *
 * Deviations: Quark makes a second pass over the calibration data to measure the error; this collector
 * keeps a signed canonical histogram next to the |x| one and measures the error over its bin points (each
 * value moved by at most one fine bin). Quark sums per-batch mean errors, which ranks candidates the same
 * way when batches are the same size; this uses the mean over all values. Quark computes qmax − qmin on
 * int8 numpy scalars, which appears to wrap (127 − (−128) → −1) and flip the scale's sign; this uses the
 * arithmetic difference (255), the evident intent.
 */

import { QUANT_TYPES, type QuantType, isQuantType, roundHalfToEven } from '../../quantize/numeric.ts';
import {
  type Histogram,
  capacityFor,
  createHistogram,
  foldIntoHistogram,
  mergeHistograms,
} from '../histogram/histogram.ts';
import { type WeightedPoints, binPoints } from '../histogram/histogramViews.ts';
import { clipToData, percentileReference, percentileThresholds } from './percentile.ts';
import {
  type CalibrationRange,
  type Collector,
  assertSameOptions,
  validateNumBins,
  validatePercentile,
  withDefaults,
} from './types.ts';

export type LayerwiseMetric = 'mae' | 'mse';

export interface LayerwisePercentileOptions {
  readonly percentileCandidates: readonly number[];
  readonly numBins: number;
  readonly symmetric: boolean;
  readonly metric: LayerwiseMetric;
  /** Activation type whose full range the error is measured in. */
  readonly quantType: QuantType;
}

export interface LayerwisePercentileState {
  readonly method: 'LayerwisePercentile';
  readonly options: LayerwisePercentileOptions;
  /** The histogram the percentiles are read from (|x| when symmetric). */
  readonly hist: Histogram;
  /** Signed values, for the error (absent when `hist` is already signed). */
  readonly values: Histogram | null;
}

export interface LayerwisePercentileResult extends CalibrationRange {
  /** The winning candidate. */
  readonly percentile: number;
}

/** Quark `_CALIB_METHOD_DEFAULTS[LayerWisePercentile]` and the calibrater's activation_type QInt8. */
export const LAYERWISE_PERCENTILE_DEFAULTS: LayerwisePercentileOptions = {
  percentileCandidates: [99.99, 99.999, 99.99999],
  numBins: 2048,
  symmetric: true,
  metric: 'mae',
  quantType: 'int8',
};

/** Quark `cal_one_layer_metric`, as a mean over weighted points. */
export function layerwiseError(
  { points, weights }: WeightedPoints,
  range: CalibrationRange,
  type: QuantType,
  metric: LayerwiseMetric,
): number {
  const { min: qmin, max: qmax } = QUANT_TYPES[type];
  const scale = (range.max - range.min) / (qmax - qmin) + 1e-6;
  const zp = roundHalfToEven(range.min / scale - qmin);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < points.length; i++) {
    const x = points[i];
    const r = roundHalfToEven(x / scale - zp);
    const q = r < qmin ? qmin : r > qmax ? qmax : r;
    const d = x - (q + zp) * scale;
    sum += weights[i] * (metric === 'mse' ? d * d : Math.abs(d));
    n += weights[i];
  }
  return sum / n;
}

export const LayerwisePercentileCollector: Collector<
  LayerwisePercentileOptions,
  LayerwisePercentileState,
  LayerwisePercentileResult
> = {
  method: 'LayerwisePercentile',
  defaults: LAYERWISE_PERCENTILE_DEFAULTS,
  create(options) {
    const o = withDefaults(LAYERWISE_PERCENTILE_DEFAULTS, options);
    validateNumBins(o.numBins);
    if (o.percentileCandidates.length === 0) throw new RangeError('LayerwisePercentile: no percentile candidates');
    o.percentileCandidates.forEach(validatePercentile);
    if (o.metric !== 'mae' && o.metric !== 'mse') {
      throw new RangeError(`LayerwisePercentile: unknown metric ${String(o.metric)}`);
    }
    if (!isQuantType(o.quantType)) {
      throw new RangeError(`LayerwisePercentile: unknown quantType ${String(o.quantType)}`);
    }
    const capacity = capacityFor(o.numBins);
    return {
      method: 'LayerwisePercentile',
      options: { ...o, percentileCandidates: [...o.percentileCandidates] },
      hist: createHistogram(capacity, o.symmetric),
      values: o.symmetric ? createHistogram(capacity, false) : null,
    };
  },
  update(state, values) {
    foldIntoHistogram(state.hist, values);
    if (state.values) foldIntoHistogram(state.values, values);
    return state;
  },
  merge(a, b) {
    assertSameOptions('LayerwisePercentile', a.options, b.options);
    return {
      method: 'LayerwisePercentile',
      options: a.options,
      hist: mergeHistograms(a.hist, b.hist),
      values: a.values && b.values ? mergeHistograms(a.values, b.values) : null,
    };
  },
  finalize(state) {
    const { hist, options } = state;
    if (hist.count === 0) return { min: 0, max: 0, percentile: options.percentileCandidates[0] };
    const ref = percentileReference(hist, options.numBins);
    const points = binPoints(state.values ?? hist);
    let best: LayerwisePercentileResult | undefined;
    let bestError = Infinity;
    for (const p of options.percentileCandidates) {
      const range = clipToData(percentileThresholds(ref, p, options.symmetric), hist);
      const error = layerwiseError(points, range, options.quantType, options.metric);
      if (best === undefined || error < bestError) {
        best = { ...range, percentile: p };
        bestError = error;
      }
    }
    return best as LayerwisePercentileResult;
  },
};
