/**
 * Folding model runs into per-tensor statistics, whatever runs the model: onnxruntime-web in a worker,
 * onnxruntime-node in the command line. A run gives named outputs; float32 ones are folded into one
 * collector state per tensor. States merge in any order, so runs can be split across workers.
 */
import type { QuantConfig } from '../../quantize/config.ts';
import { finalizeState, mergeStates, observedRange, updateState, type CollectorState } from '../collectors/registry.ts';
import type { TensorRange } from '../../quantize/plan.ts';
import { activationState } from '../collectors/methodFromConfig.ts';
import { foldExtremes, shareBatchExtremes, type BatchExtremes } from '../collectors/minmax.ts';
import { foldIntoHistogram, type Histogram } from '../histogram/histogram.ts';

/** One output of a run, as onnxruntime (web or node) reports it. */
export interface RunOutput {
  readonly type: string;
  readonly data: unknown;
}

export type TensorStates = Map<string, CollectorState>;

/** Folds one run's float32 outputs (and float32 feeds, for graph inputs) into `states`. */
export function foldRun(states: TensorStates, outputs: Readonly<Record<string, RunOutput>>, config: QuantConfig): void {
  for (const [name, value] of Object.entries(outputs)) {
    if (value.type !== 'float32') continue;
    updateState(stateOf(states, name, config), value.data as Float32Array);
  }
}

/** The state of tensor `name` in `states`, begun by `config`'s collector where the tensor has none yet. */
function stateOf(states: TensorStates, name: string, config: QuantConfig): CollectorState {
  let state = states.get(name);
  if (!state) states.set(name, (state = activationState(config)));
  return state;
}

/** One set of statistics a run is folded into, under the configuration that picks its collectors. */
export interface Fold {
  readonly states: TensorStates;
  readonly config: QuantConfig;
}

/** Collectors whose update is one fold of the values into their histogram and nothing else (histogramState.ts). */
export const HISTOGRAM_ONLY: ReadonlySet<string> = new Set([
  'Percentile',
  'Entropy',
  'MinMSE',
  'PowerOfTwoMinMSE',
  'Distribution',
]);

/** Whether two histograms hold the same counts in the same layout (what folding the same batch keeps the same). */
function sameHistogram(a: Histogram, b: Histogram): boolean {
  if (
    a.abs !== b.abs ||
    a.capacity !== b.capacity ||
    a.exponent !== b.exponent ||
    a.offset !== b.offset ||
    a.count !== b.count ||
    a.nonFinite !== b.nonFinite ||
    !Object.is(a.min, b.min) ||
    !Object.is(a.max, b.max) ||
    !Object.is(a.valueMin, b.valueMin) ||
    !Object.is(a.valueMax, b.valueMax)
  )
    return false;
  for (let i = 0; i < a.bins.length; i++) if (a.bins[i] !== b.bins[i]) return false;
  return true;
}

/** `to` made the same histogram as `from` (its own bins array, so later folds stay apart). */
function copyHistogram(from: Histogram, to: Histogram): void {
  if (to.bins.length === from.bins.length) to.bins.set(from.bins);
  else to.bins = from.bins.slice();
  to.exponent = from.exponent;
  to.offset = from.offset;
  to.count = from.count;
  to.min = from.min;
  to.max = from.max;
  to.valueMin = from.valueMin;
  to.valueMax = from.valueMax;
  to.nonFinite = from.nonFinite;
}

/**
 * Folds one run into several sets of statistics at once (several methods' statistics from the same runs: the held-in
 * method choice's Percentile, Entropy and MinMSE). The same states `foldRun` makes for each set, with each batch
 * counted once per histogram: a tensor's histograms of the same kind holding the same counts before the batch (as they
 * do when every run was folded into all of them) are grouped, the batch is folded into the first of each group and the
 * result copied to the others, the same bins as folding it again (a histogram's fold is a function of its bins and the
 * batch). Inside sharingBatchExtremes (collectors/minmax.ts) the MinMax states take the batch's extremes from the
 * histogram kernel's pass over it.
 */
export function foldRunInto(folds: readonly Fold[], outputs: Readonly<Record<string, RunOutput>>): void {
  if (folds.length === 1) return foldRun(folds[0].states, outputs, folds[0].config);
  for (const [name, value] of Object.entries(outputs)) {
    if (value.type !== 'float32') continue;
    const values = value.data as Float32Array;
    const groups: Histogram[][] = [];
    const others: CollectorState[] = [];
    for (const { states, config } of folds) {
      const state = stateOf(states, name, config);
      if (!HISTOGRAM_ONLY.has(state.method) || !('hist' in state)) {
        others.push(state);
        continue;
      }
      const group = groups.find((g) => sameHistogram(g[0], state.hist));
      if (group) group.push(state.hist);
      else groups.push([state.hist]);
    }
    // The histograms first: the extremes their kernel takes of the batch serve the MinMax folds after them (inside
    // sharingBatchExtremes), which would otherwise scan the same values once more. Each state is its own, so the
    // order changes no state.
    for (const [first, ...twins] of groups) {
      foldIntoHistogram(first, values, undefined, (e) => shareBatchExtremes(values, e));
      for (const twin of twins) copyHistogram(first, twin);
    }
    for (const state of others) updateState(state, values);
  }
}

/**
 * Folds one run known by each tensor's extremes (the model computed them, reduceInGraph.ts) into `states`: the same
 * states `foldRun` makes of the tensors' values, for MinMax-type collectors only.
 */
export function foldExtremesRun(
  states: TensorStates,
  extremes: ReadonlyMap<string, BatchExtremes>,
  config: QuantConfig,
): void {
  for (const [name, batch] of extremes) {
    let state = states.get(name);
    if (!state) states.set(name, (state = activationState(config)));
    if (state.method !== 'MinMax' && state.method !== 'NonOverflow')
      throw new RangeError(`${state.method} statistics need the tensor's values, not its extremes`);
    foldExtremes(state, batch);
  }
}

/** Merges partial statistics (from several workers or chunks); the inputs are left untouched. */
export function mergeTensorStates(a: TensorStates, b: TensorStates): TensorStates {
  const out: TensorStates = new Map(a);
  for (const [name, s] of b) out.set(name, out.has(name) ? mergeStates(out.get(name)!, s) : s);
  return out;
}

/**
 * The buffers of the typed arrays the states hold (a histogram's bins, at the top level or one object down), each
 * once and only where the array fills its whole buffer: what a worker can transfer instead of copying when it hands
 * states over (UltraFace's Entropy states are 171 × 8,192 float64 bins, 11 MB a share). The states are unusable
 * where they were once transferred.
 */
export function stateBuffers(states: TensorStates): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const take = (v: unknown) => {
    if (
      ArrayBuffer.isView(v) &&
      v.buffer instanceof ArrayBuffer &&
      v.byteOffset === 0 &&
      v.byteLength === v.buffer.byteLength
    )
      out.add(v.buffer);
  };
  for (const state of states.values()) {
    for (const v of Object.values(state)) {
      take(v);
      if (v !== null && typeof v === 'object' && !ArrayBuffer.isView(v)) for (const w of Object.values(v)) take(w);
    }
  }
  return [...out];
}

/**
 * What a tensor has after a round of a sequential calibration (runner.ts SequentialRound): `base`'s entry, or the
 * round's where it gathered one (states, or their ranges: a range depends on its own tensor's state only). `base`
 * is left alone.
 */
export function afterRound<V>(base: ReadonlyMap<string, V>, round: ReadonlyMap<string, V>): Map<string, V> {
  const out = new Map(base);
  for (const [t, v] of round) out.set(t, v);
  return out;
}

/**
 * The calibrated range of every tensor, as the quantizer takes them; with the observed extremes where the
 * method chose a narrower range (for tensors mixed precision widens to 16 bits).
 */
export function rangesOf(states: TensorStates): Map<string, TensorRange> {
  const out = new Map<string, TensorRange>();
  for (const [name, s] of states) {
    const r = finalizeState(s);
    if (!Number.isFinite(r.min) || !Number.isFinite(r.max)) continue;
    const seen = observedRange(s);
    const clipped = Number.isFinite(seen.min) && Number.isFinite(seen.max) && (seen.min < r.min || seen.max > r.max);
    out.set(
      name,
      clipped
        ? { min: r.min, max: r.max, observed: { min: Math.min(seen.min, r.min), max: Math.max(seen.max, r.max) } }
        : { min: r.min, max: r.max },
    );
  }
  return out;
}
