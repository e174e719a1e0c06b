/**
 * The registry: method name → collector, and state-driven dispatch so that workers and the merging side can
 * handle any state without knowing which method made it (every state carries its `method`).
 *
 * Also the one place that maps a configuration's calibration method and scale type onto a collector, after
 * Quark's `quantization/config/maps.py` (`_map_activation_calibration_method`): with power-of-two scales,
 * MinMax means `NonOverflow` and MinMSE means the power-of-two search; Quark maps MinMSE to the power-of-two
 * search for activations whatever the scale type (it warns that float scales cannot deploy), and to the
 * float-scale search for weights (`_map_weight_calibration_method`).
 */

import {
  type DistributionOptions,
  type DistributionResult,
  type DistributionState,
  DistributionCollector,
} from './distribution.ts';
import { type EntropyOptions, type EntropyState, EntropyCollector } from './entropy.ts';
import {
  type LayerwisePercentileOptions,
  type LayerwisePercentileResult,
  type LayerwisePercentileState,
  LayerwisePercentileCollector,
} from './layerwisePercentile.ts';
import { type MinMaxOptions, type MinMaxState, MinMaxCollector, NonOverflowCollector } from './minmax.ts';
import {
  type ConsumerMseState,
  ConsumerMseCollector,
  type MinMseOptions,
  type MinMseState,
  MinMseCollector,
  type SearchedRange,
} from './minmse.ts';
import { type PercentileOptions, type PercentileState, PercentileCollector } from './percentile.ts';
import { type PowerOfTwoMinMseOptions, type PowerOfTwoMinMseState, PowerOfTwoMinMseCollector } from './pof2MinMse.ts';
import { type CalibrationMethod, type CalibrationRange, type Collector, CollectorMismatchError } from './types.ts';

/** Options, state and result types of each method. */
export interface CollectorTypes {
  MinMax: { options: MinMaxOptions; state: MinMaxState; result: CalibrationRange };
  NonOverflow: { options: MinMaxOptions; state: MinMaxState; result: CalibrationRange };
  Percentile: { options: PercentileOptions; state: PercentileState; result: CalibrationRange };
  Entropy: { options: EntropyOptions; state: EntropyState; result: CalibrationRange };
  Distribution: { options: DistributionOptions; state: DistributionState; result: DistributionResult };
  MinMSE: { options: MinMseOptions; state: MinMseState; result: SearchedRange };
  PowerOfTwoMinMSE: { options: PowerOfTwoMinMseOptions; state: PowerOfTwoMinMseState; result: SearchedRange };
  LayerwisePercentile: {
    options: LayerwisePercentileOptions;
    state: LayerwisePercentileState;
    result: LayerwisePercentileResult;
  };
  ConsumerMSE: { options: MinMseOptions; state: ConsumerMseState; result: CalibrationRange };
}

export type CollectorFor<M extends CalibrationMethod> = Collector<
  CollectorTypes[M]['options'],
  CollectorTypes[M]['state'],
  CollectorTypes[M]['result']
>;

/** Any collector's state; `state.method` says which. */
export type CollectorState = CollectorTypes[CalibrationMethod]['state'];

export const COLLECTORS: { readonly [M in CalibrationMethod]: CollectorFor<M> } = {
  MinMax: MinMaxCollector,
  NonOverflow: NonOverflowCollector,
  Percentile: PercentileCollector,
  Entropy: EntropyCollector,
  Distribution: DistributionCollector,
  MinMSE: MinMseCollector,
  PowerOfTwoMinMSE: PowerOfTwoMinMseCollector,
  LayerwisePercentile: LayerwisePercentileCollector,
  ConsumerMSE: ConsumerMseCollector,
};

export const CALIBRATION_METHODS = Object.keys(COLLECTORS) as CalibrationMethod[];

export function isCalibrationMethod(value: unknown): value is CalibrationMethod {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(COLLECTORS, value);
}

export function getCollector<M extends CalibrationMethod>(method: M): CollectorFor<M> {
  if (!isCalibrationMethod(method)) throw new RangeError(`unknown calibration method ${String(method)}`);
  return COLLECTORS[method];
}

// The registry is keyed by the same string each state carries, so a state always reaches its own collector;
// TypeScript cannot follow that correlation through a union, hence the one cast below.
function collectorOf(state: CollectorState): Collector<unknown, CollectorState, CalibrationRange> {
  return getCollector(state.method) as unknown as Collector<unknown, CollectorState, CalibrationRange>;
}

/** A fresh state for `method`, options defaulted per the method's reference. */
export function createState<M extends CalibrationMethod>(
  method: M,
  options?: Partial<CollectorTypes[M]['options']>,
): CollectorTypes[M]['state'] {
  return getCollector(method).create(options);
}

/** Folds one batch of one tensor's values into `state` (in place; returns it). */
export function updateState<S extends CollectorState>(state: S, values: Float32Array): S {
  return collectorOf(state).update(state, values) as S;
}

/** Combines two partial states of the same method and options into a new state. */
export function mergeStates<S extends CollectorState>(a: S, b: S): S {
  if (a.method !== b.method) throw new CollectorMismatchError(`cannot merge ${a.method} with ${b.method}`);
  return collectorOf(a).merge(a, b) as S;
}

/** The calibrated range (and whatever else the method reports) of a state. */
export function finalizeState<S extends CollectorState>(state: S): CollectorTypes[S['method']]['result'] {
  return collectorOf(state).finalize(state) as CollectorTypes[S['method']]['result'];
}

/**
 * The extremes a state has seen, whatever range its method chose (a percentile or an error search clips them).
 * A tensor that mixed precision widens to 16 bits is quantized on these: 16 bits afford the whole range, and a
 * range clipped for 8 bits would saturate its outliers for nothing.
 */
export function observedRange(state: CollectorState): { min: number; max: number } {
  if ('hist' in state) return { min: state.hist.valueMin, max: state.hist.valueMax };
  return { min: state.min, max: state.max };
}

/** Quark `CalibMethod` names, as a configuration spells them. */
export type QuarkCalibMethod =
  | 'MinMax'
  | 'Percentile'
  | 'LayerwisePercentile'
  | 'Entropy'
  | 'Distribution'
  | 'MinMSE'
  | 'ConsumerMSE'
  | 'Sequential';
export type ScaleType = 'Float32' | 'PowerOf2';

/**
 * Which collector calibrates activations for a configured method and scale type (Quark `maps.py`, with one
 * departure): MinMSE with float scales is the float-scale search, which minimises the error at the scale the
 * model will carry. Quark maps it to the power-of-two search whatever the scale type; its power-of-two scale
 * then differs from the float scale written, and on the PP-OCRv4 detector that cost 0.07 of held-out cosine
 * against MinMax (issue 14).
 */
export function activationCollectorMethod(method: QuarkCalibMethod, scaleType: ScaleType): CalibrationMethod {
  if (method === 'MinMax') return scaleType === 'PowerOf2' ? 'NonOverflow' : 'MinMax';
  if (method === 'MinMSE') return scaleType === 'PowerOf2' ? 'PowerOfTwoMinMSE' : 'MinMSE';
  if (method === 'ConsumerMSE') return scaleType === 'PowerOf2' ? 'PowerOfTwoMinMSE' : 'ConsumerMSE';
  // Sequential gathers Entropy's statistics, pass by pass on the partly quantized model (sequential.ts).
  if (method === 'Sequential') return scaleType === 'PowerOf2' ? 'PowerOfTwoMinMSE' : 'Entropy';
  return method;
}

/** Which collector ranges a float-scale weight: MinMSE searches, everything else is MinMax (Quark `maps.py`). */
export function weightCollectorMethod(method: QuarkCalibMethod): 'MinMax' | 'MinMSE' {
  return method === 'MinMSE' ? 'MinMSE' : 'MinMax';
}
