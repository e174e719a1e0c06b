/**
 * MinMax: the range is the smallest and largest value seen, or, with `movingAverage`, the mean of each
 * batch's minimum and maximum. Also serves Quark's power-of-two `NonOverflow` method, which is this
 * collector with symmetric ranges (the power-of-two rounding of the scale belongs to qparams, not here).
 *
 * Reference: ORT `calibrate.py`, `MinMaxCalibrater.compute_data` and `merge_range`; Quark
 * `calibration/calibrators.py`, `_CALIB_METHOD_DEFAULTS` and `create_calibrator_power_of_two`.
 * ORT's "moving average" is the arithmetic mean (`np.nanmean`) of the per-run ReduceMin / ReduceMax outputs
 * over every run collected before `compute_data`; only when `max_intermediate_outputs` splits the runs into
 * chunks does it blend chunk results with the exponential `averaging_constant`, and that blend depends on
 * chunk order. With ORT's default (`max_intermediate_outputs=None`, one chunk) the result is the plain mean,
 * which is order-free: that is what this collector computes, so `averaging_constant` has no counterpart.
 * One `update` call is one run (one calibration sample through the model), as a ReduceMin output is.
 * Batch minima and maxima are summed exactly (bigint in units of 2^-149, the float32 quantum), so merged
 * states give bit-identical means in any order.
 */

import { scan } from '../histogram/scan.ts';
import { finiteExtremes, histogramKernel } from '../histogram/histogramKernel.ts';
import {
  type CalibrationMethod,
  type CalibrationRange,
  type Collector,
  CollectorMismatchError,
  assertSameOptions,
  withDefaults,
} from './types.ts';

export interface MinMaxOptions {
  /** Report [-a, a] with a = max(|min|, |max|) (ORT `symmetric`, applied after averaging). */
  readonly symmetric: boolean;
  /** Mean of per-batch minima / maxima instead of the global extremes (ORT `moving_average`). */
  readonly movingAverage: boolean;
}

export interface MinMaxState {
  readonly method: 'MinMax' | 'NonOverflow';
  readonly options: MinMaxOptions;
  /** Global extremes of finite values; +Infinity / -Infinity while empty. */
  min: number;
  max: number;
  /** Σ over batches of the batch minimum / maximum, in units of 2^-149 (exact). */
  sumBatchMin: bigint;
  sumBatchMax: bigint;
  /** Batches with at least one finite value. */
  batches: number;
  /** Finite values folded, and NaN / ±Infinity values skipped. */
  count: number;
  nonFinite: number;
}

/** ORT `create_calibrator`: symmetric=False, moving_average=False (averaging_constant=0.01 unused, see above). */
export const MIN_MAX_DEFAULTS: MinMaxOptions = { symmetric: false, movingAverage: false };
/** Quark `_CALIB_METHOD_DEFAULTS[PowerOfTwoMethod.NonOverflow]`: symmetric=True, moving_average=False. */
export const NON_OVERFLOW_DEFAULTS: MinMaxOptions = { symmetric: true, movingAverage: false };

/** 2^149: float32 values times this are integers. */
const QUANTUM_INV = Math.pow(2, 149);

function toFixed(x: number): bigint {
  return BigInt(x * QUANTUM_INV);
}

function fromFixedMean(sum: bigint, n: number): number {
  return Number(sum) / QUANTUM_INV / n;
}

function noNegativeZero(x: number): number {
  return x === 0 ? 0 : x;
}

type MinMaxMethod = 'MinMax' | 'NonOverflow';

/** A MinMax state's figures before any batch is folded in (foldExtremes). */
export function noExtremes(): Omit<MinMaxState, 'method' | 'options'> {
  return { min: Infinity, max: -Infinity, sumBatchMin: 0n, sumBatchMax: 0n, batches: 0, count: 0, nonFinite: 0 };
}

function create(method: MinMaxMethod, defaults: MinMaxOptions, options?: Partial<MinMaxOptions>): MinMaxState {
  return { method, options: withDefaults(defaults, options), ...noExtremes() };
}

/**
 * The batch's extremes: by the histogram's WebAssembly SIMD kernel where there is one (4× the TypeScript loop on
 * PP-OCRv4's 1024 × 1024 feature maps, where this scan was a third of calibration), by `scan` otherwise and where the
 * batch holds non-finite values (which scan counts and leaves out).
 */
function extremesOf(values: Float32Array): { min: number; max: number; nonFinite: number } {
  const e = histogramKernel()?.extremes(values);
  return e && finiteExtremes(e) ? { min: e.min, max: e.max, nonFinite: 0 } : scan(values);
}

/** The extremes of the arrays scanned inside sharingBatchExtremes, by array (null outside it). */
let shared: WeakMap<Float32Array, BatchExtremes> | null = null;

/**
 * Runs `fold` with each array's extremes scanned once however often it is asked for: one run's outputs are folded by
 * every configuration of a plan (a MinMax state each) and recorded for the Concat merges (derivedStates.ts
 * RunExtremes), which would each scan the same values again. Only within `fold`: an array's contents are the run's.
 */
export function sharingBatchExtremes<T>(fold: () => T): T {
  const outer = shared;
  shared = new WeakMap();
  try {
    return fold();
  } finally {
    shared = outer;
  }
}

/**
 * Inside sharingBatchExtremes, takes note of `values`' extremes as another fold of the same array found them with the
 * histogram kernel over every value, all finite (histogram.ts SeenExtremes): what extremesOf would scan again.
 */
export function shareBatchExtremes(values: Float32Array, e: { readonly min: number; readonly max: number }): void {
  if (shared === null || shared.has(values)) return;
  shared.set(values, { min: e.min, max: e.max, count: values.length, nonFinite: 0 });
}

/** One batch's extremes as `update` folds them. */
export function batchExtremes(values: Float32Array): BatchExtremes {
  const known = shared?.get(values);
  if (known) return known;
  const ext = extremesOf(values);
  const batch = { min: ext.min, max: ext.max, count: values.length, nonFinite: ext.nonFinite };
  shared?.set(values, batch);
  return batch;
}

function update(state: MinMaxState, values: Float32Array): MinMaxState {
  return foldExtremes(state, batchExtremes(values));
}

/** One batch as its extremes: `count` values, of which `nonFinite` were NaN or ±Infinity, `min` and `max` the finite ones' extremes. */
export interface BatchExtremes {
  readonly min: number;
  readonly max: number;
  readonly count: number;
  readonly nonFinite: number;
}

/**
 * Folds a batch known by its extremes alone into `state` (in place; returns it): what `update` does once it has
 * scanned the values. Calibration uses it where the model computes the extremes itself (run/reduceInGraph.ts).
 */
export function foldExtremes(state: MinMaxState, batch: BatchExtremes): MinMaxState {
  const bad = batch.nonFinite;
  const n = batch.count;
  state.nonFinite += bad;
  if (bad === n) return state;
  const lo = noNegativeZero(batch.min);
  const hi = noNegativeZero(batch.max);
  state.count += n - bad;
  state.batches += 1;
  state.sumBatchMin += toFixed(lo);
  state.sumBatchMax += toFixed(hi);
  if (lo < state.min) state.min = lo;
  if (hi > state.max) state.max = hi;
  return state;
}

function merge(a: MinMaxState, b: MinMaxState): MinMaxState {
  if (a.method !== b.method) throw new CollectorMismatchError(`cannot merge ${a.method} with ${b.method}`);
  assertSameOptions(a.method, a.options, b.options);
  return {
    method: a.method,
    options: a.options,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    sumBatchMin: a.sumBatchMin + b.sumBatchMin,
    sumBatchMax: a.sumBatchMax + b.sumBatchMax,
    batches: a.batches + b.batches,
    count: a.count + b.count,
    nonFinite: a.nonFinite + b.nonFinite,
  };
}

function finalize(state: MinMaxState): CalibrationRange {
  if (state.batches === 0) return { min: 0, max: 0 };
  let min = state.min;
  let max = state.max;
  if (state.options.movingAverage) {
    min = fromFixedMean(state.sumBatchMin, state.batches);
    max = fromFixedMean(state.sumBatchMax, state.batches);
  }
  if (state.options.symmetric) {
    const a = Math.max(Math.abs(min), Math.abs(max));
    return { min: noNegativeZero(-a), max: a };
  }
  return { min, max };
}

function collector(
  method: MinMaxMethod,
  defaults: MinMaxOptions,
): Collector<MinMaxOptions, MinMaxState, CalibrationRange> {
  return {
    method: method satisfies CalibrationMethod,
    defaults,
    create: (options) => create(method, defaults, options),
    update,
    merge,
    finalize,
  };
}

export const MinMaxCollector = collector('MinMax', MIN_MAX_DEFAULTS);
export const NonOverflowCollector = collector('NonOverflow', NON_OVERFLOW_DEFAULTS);
