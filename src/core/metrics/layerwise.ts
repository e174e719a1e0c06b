/**
 * Layer-wise comparison: how far each intermediate tensor of a quantized model is from the float
 * model's, run on the same inputs with the tensors exposed as outputs.
 *
 * Output metrics say whether a quantization is good; this says where it goes wrong. For each paired
 * tensor (./layerwiseTensors.ts) we keep running sums over every sample and element: Σx², Σy², Σxy
 * and Σ(x−y)², x the float value, y the quantized model's. Sums merge by addition, so samples,
 * batches and workers combine in any order. From them:
 *
 *   cosine = Σxy / √(Σx² · Σy²)          the cosine of all samples' values concatenated
 *   SQNR   = 10·log10(Σx² / Σ(x−y)²) dB  signal-to-quantization-noise ratio, pooled over samples
 *
 * Each tensor is compared twice where it can be: against the value its producer computed in the
 * quantized model ("value": the error of everything upstream, including this node's weights), and
 * against that value after its own QuantizeLinear → DequantizeLinear ("dequantized": what every
 * downstream layer actually reads, so also this tensor's own rounding and clipping). A row reports
 * the dequantized comparison where one exists and the value comparison otherwise (float tensors,
 * ops left unquantized); both stay in the row, `source` says which one is the headline. Must not run
 * models; values in, numbers out.
 */

import { assertSameLength, type FloatArray } from './input.ts';
import type { TensorPair } from './layerwiseTensors.ts';
import type { NodeId } from '../onnx/model.ts';

/** Running sums of one comparison (float x against quantized y); merge by adding. */
export interface ErrorSums {
  /** Samples folded in. */
  readonly samples: number;
  /** Elements folded in, over all samples. */
  readonly elements: number;
  /** Σx² (float signal energy). */
  readonly signal: number;
  /** Σy². */
  readonly testEnergy: number;
  /** Σxy. */
  readonly dot: number;
  /** Σ(x − y)² (noise energy). */
  readonly noise: number;
  /** Lowest per-sample cosine seen (a merge takes the min); NaN once any sample's cosine was NaN. */
  readonly worstSampleCosine: number;
}

export const EMPTY_SUMS: ErrorSums = {
  samples: 0,
  elements: 0,
  signal: 0,
  testEnergy: 0,
  dot: 0,
  noise: 0,
  worstSampleCosine: Infinity,
};

/** Both comparisons of one tensor. */
export interface TensorErrorState {
  readonly value: ErrorSums;
  /** Absent when the tensor has no DequantizeLinear counterpart. */
  readonly dequantized?: ErrorSums;
}

/** Running state of a layer-wise comparison, by float tensor name. Plain data: it crosses workers. */
export type LayerwiseState = ReadonlyMap<string, TensorErrorState>;

const minNaN = (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b));

/** Cosine of the sums' vectors (NaN when either is all zeros, as cosineSimilarity). */
function cosineOf(s: Pick<ErrorSums, 'signal' | 'testEnergy' | 'dot'>): number {
  return s.dot / Math.sqrt(s.signal * s.testEnergy);
}

/** One sample's sums of `reference` (float) against `test` (quantized), accumulated in float64. */
export function sampleSums(reference: FloatArray, test: FloatArray): ErrorSums {
  assertSameLength(reference, test);
  let signal = 0;
  let testEnergy = 0;
  let dot = 0;
  let noise = 0;
  for (let i = 0; i < reference.length; i++) {
    const x = reference[i];
    const y = test[i];
    signal += x * x;
    testEnergy += y * y;
    dot += x * y;
    const d = x - y;
    noise += d * d;
  }
  const sums = { signal, testEnergy, dot };
  return { samples: 1, elements: reference.length, signal, testEnergy, dot, noise, worstSampleCosine: cosineOf(sums) };
}

/** The sums of both (associative and commutative up to float rounding of the sums). */
export function mergeSums(a: ErrorSums, b: ErrorSums): ErrorSums {
  return {
    samples: a.samples + b.samples,
    elements: a.elements + b.elements,
    signal: a.signal + b.signal,
    testEnergy: a.testEnergy + b.testEnergy,
    dot: a.dot + b.dot,
    noise: a.noise + b.noise,
    worstSampleCosine: minNaN(a.worstSampleCosine, b.worstSampleCosine),
  };
}

/**
 * SQNR in dB of the sums: 10·log10(Σx² / Σ(x−y)²). Identical values give +Infinity; a zero float
 * signal with some noise gives −Infinity; nothing folded (or NaN data) gives NaN.
 */
export function sqnrOf(s: Pick<ErrorSums, 'signal' | 'noise' | 'elements'>): number {
  if (s.elements === 0) return NaN;
  if (s.noise === 0) return s.signal >= 0 ? Infinity : NaN;
  return 10 * Math.log10(s.signal / s.noise);
}

/** Cosine of all folded samples' values concatenated, in [-1, 1]; NaN when either side is all zeros. */
export function pooledCosine(s: ErrorSums): number {
  return s.elements === 0 ? NaN : cosineOf(s);
}

/** The observed values of one run, by tensor name (float32 only; other tensors are left out). */
export type RunValues = Readonly<Record<string, FloatArray | undefined>>;

/**
 * A new state with one sample folded in: `floatValues` from the float model's run, `quantValues`
 * from the quantized model's on the same input, both exposing the pairs' tensors. Pairs whose
 * values are missing or empty in either run (not float32, in another chunk, a branch not run) are skipped.
 */
export function foldLayerwise(
  state: LayerwiseState,
  pairs: readonly TensorPair[],
  floatValues: RunValues,
  quantValues: RunValues,
): Map<string, TensorErrorState> {
  const next = new Map(state);
  for (const p of pairs) {
    const x = floatValues[p.tensor];
    const y = quantValues[p.value];
    // Empty values are a branch this sample did not run (an If's other branch returns an empty tensor).
    if (!x?.length || !y?.length) continue;
    const prev = next.get(p.tensor);
    const value = mergeSums(prev?.value ?? EMPTY_SUMS, sampleSums(x, y));
    const dq = p.dequantized ? quantValues[p.dequantized] : undefined;
    const dequantized = dq?.length ? mergeSums(prev?.dequantized ?? EMPTY_SUMS, sampleSums(x, dq)) : prev?.dequantized;
    next.set(p.tensor, dequantized ? { value, dequantized } : { value });
  }
  return next;
}

/** The state of both (in any order and grouping, up to float rounding of the sums). */
export function mergeLayerwise(a: LayerwiseState, b: LayerwiseState): Map<string, TensorErrorState> {
  const out = new Map(a);
  for (const [name, s] of b) {
    const t = out.get(name);
    if (!t) {
      out.set(name, s);
      continue;
    }
    const value = mergeSums(t.value, s.value);
    const dequantized =
      t.dequantized && s.dequantized ? mergeSums(t.dequantized, s.dequantized) : (t.dequantized ?? s.dequantized);
    out.set(name, dequantized ? { value, dequantized } : { value });
  }
  return out;
}

/** One tensor's line of the layer-wise table. */
export interface LayerRow {
  readonly tensor: string;
  /** Producer node's stable id in the float model; null for a graph input. */
  readonly node: NodeId | null;
  readonly opType: string;
  /** Which comparison `cosine` and `sqnr` come from: the dequantized tensor where it exists. */
  readonly source: 'dequantized' | 'value';
  /** Headline cosine (pooled over samples). */
  readonly cosine: number;
  /** Headline SQNR, dB (pooled over samples); higher is closer. */
  readonly sqnr: number;
  /** Lowest per-sample cosine of the headline comparison. */
  readonly worstSampleCosine: number;
  /** The producer's computed value in the quantized model against the float value. */
  readonly valueCosine: number;
  readonly valueSqnr: number;
  /** After this tensor's own Q/DQ; null when it has none. */
  readonly dequantizedCosine: number | null;
  readonly dequantizedSqnr: number | null;
  readonly samples: number;
  /** Elements per sample (the last sample's, for tensors of varying size: elements / samples). */
  readonly elementsPerSample: number;
}

/** The table, in the pairs' order (graph inputs, then topological order); tensors never folded are left out. */
export function layerwiseTable(state: LayerwiseState, pairs: readonly TensorPair[]): LayerRow[] {
  const rows: LayerRow[] = [];
  for (const p of pairs) {
    const s = state.get(p.tensor);
    if (!s) continue;
    const head = s.dequantized ?? s.value;
    rows.push({
      tensor: p.tensor,
      node: p.node,
      opType: p.opType,
      source: s.dequantized ? 'dequantized' : 'value',
      cosine: pooledCosine(head),
      sqnr: sqnrOf(head),
      worstSampleCosine: head.samples ? head.worstSampleCosine : NaN,
      valueCosine: pooledCosine(s.value),
      valueSqnr: sqnrOf(s.value),
      dequantizedCosine: s.dequantized ? pooledCosine(s.dequantized) : null,
      dequantizedSqnr: s.dequantized ? sqnrOf(s.dequantized) : null,
      samples: head.samples,
      elementsPerSample: head.samples ? head.elements / head.samples : 0,
    });
  }
  return rows;
}

/** Orders NaN after every number, so an undefined comparison never hides a real one. */
const ascendingNaNLast = (a: number, b: number) =>
  Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : Number.isNaN(b) ? -1 : a - b || 0;

/** The rows sorted by error, worst (lowest SQNR, then lowest cosine) first; the input is left untouched. */
export function sortByError(rows: readonly LayerRow[]): LayerRow[] {
  return [...rows].sort((a, b) => ascendingNaNLast(a.sqnr, b.sqnr) || ascendingNaNLast(a.cosine, b.cosine));
}
