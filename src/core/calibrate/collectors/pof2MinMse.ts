/**
 * Power-of-two MinMSE, Quark's activation calibration for XINT8 (`PowerOfTwoMethod.MinMSE`): among five
 * power-of-two scales around the MinMax one, keep the one with the smallest squared round-trip error.
 *
 * Reference: Quark `calibration/collectors.py`, `PowOfTwoCollector` in its default 'All' mode with a
 * histogram (`num_bins` 2048 over [min, max], `collect_histogram_value`) and
 * `compute_minmse_from_histogram`: the MinMax range gives, through `compute_scale_zp` with a power-of-two
 * method, a scale 2^−pos and zero point zp; candidates are 2^−(pos + i − 1) for i = 0…4 (one coarser, the
 * same, three finer); the error is Σ count·(centre − (clamp(round(centre / s) + zp) − zp)·s)² over the bin
 * centres; the first smallest wins. The range returned is [(qmin − zp)·s, (qmax − zp)·s], e.g. [−127 s,
 * 127 s] for int8. Quark supports symmetric activations only here, and so does this collector.
 *
 * Deviation: Quark's histogram keeps the bin width of the first batch and extends it batch by batch
 * (order-dependent); this re-bins the canonical histogram to the layout a single batch gives
 * (`histogram/histogramViews.ts`), moving each value by at most one fine bin (under half a reference bin).
 */

import { histogramUpdateAndMerge } from './histogramState.ts';
import { QUANT_TYPES, type QuantType, isQuantType } from '../../quantize/numeric.ts';
import { type Histogram, capacityFor, createHistogram } from '../histogram/histogram.ts';
import { binCenters, spanReference } from '../histogram/histogramViews.ts';
import type { SearchedRange } from './minmse.ts';
import {
  positionToScale,
  powerOfTwoScaleZeroPoint,
  qdqSquaredError,
  scaleToPosition,
  searchBounds,
} from './qdqError.ts';
import { type Collector, validateNumBins, withDefaults } from './types.ts';

export interface PowerOfTwoMinMseOptions {
  /** Activation type the round trip is simulated in. */
  readonly quantType: QuantType;
  /** Bins of the histogram the error is summed over. */
  readonly numBins: number;
}

export interface PowerOfTwoMinMseState {
  readonly method: 'PowerOfTwoMinMSE';
  readonly options: PowerOfTwoMinMseOptions;
  readonly hist: Histogram;
}

/** Quark `_CALIB_METHOD_DEFAULTS[PowerOfTwoMethod.MinMSE]`: num_bins 2048, symmetric; XINT8 activations are int8. */
export const POWER_OF_TWO_MIN_MSE_DEFAULTS: PowerOfTwoMinMseOptions = { quantType: 'int8', numBins: 2048 };

/** Quark `compute_minmse_from_histogram(pos_range=5)`: offsets −1 … +3 from the MinMax position. */
export const POWER_OF_TWO_POSITION_OFFSETS: readonly number[] = [-1, 0, 1, 2, 3];

/** Quark `compute_minmse_from_histogram` on the single-batch histogram of the data (see module note). */
export function powerOfTwoMinMseSearch(h: Histogram, options: PowerOfTwoMinMseOptions): SearchedRange {
  const bounds = searchBounds(options.quantType, true);
  const start = powerOfTwoScaleZeroPoint(h.min, h.max, bounds, true);
  const ref = spanReference(h, options.numBins);
  const centers = binCenters(ref.edges);
  const zeroPoint = start.zeroPoint;
  let scale = start.scale;
  let bestError = Infinity;
  const pos = scaleToPosition(start.scale);
  for (const offset of POWER_OF_TWO_POSITION_OFFSETS) {
    const s = positionToScale(pos + offset);
    const error = qdqSquaredError(centers, ref.counts, { scale: s, zeroPoint }, bounds);
    if (error < bestError) {
      bestError = error;
      scale = s;
    }
  }
  const min = (bounds.qmin - zeroPoint) * scale;
  const max = (bounds.qmax - zeroPoint) * scale;
  return { min: min === 0 ? 0 : min, max, scale, zeroPoint };
}

export const PowerOfTwoMinMseCollector: Collector<PowerOfTwoMinMseOptions, PowerOfTwoMinMseState, SearchedRange> = {
  method: 'PowerOfTwoMinMSE',
  defaults: POWER_OF_TWO_MIN_MSE_DEFAULTS,
  create(options) {
    const o = withDefaults(POWER_OF_TWO_MIN_MSE_DEFAULTS, options);
    validateNumBins(o.numBins);
    if (!isQuantType(o.quantType) || QUANT_TYPES[o.quantType].bits > 16) {
      throw new RangeError(`PowerOfTwoMinMSE: unsupported quantType ${String(o.quantType)}`);
    }
    return { method: 'PowerOfTwoMinMSE', options: o, hist: createHistogram(capacityFor(o.numBins)) };
  },
  ...histogramUpdateAndMerge<'PowerOfTwoMinMSE', PowerOfTwoMinMseOptions>('PowerOfTwoMinMSE'),
  finalize(state) {
    if (state.hist.count === 0) return { min: 0, max: 0, scale: 1, zeroPoint: 0 };
    return powerOfTwoMinMseSearch(state.hist, state.options);
  },
};
