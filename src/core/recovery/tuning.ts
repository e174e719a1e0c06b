/**
 * What AdaRound and AdaQuant share: their options, the result of tuning one layer (codes, bias, loss curve),
 * the hard-quantized reconstruction loss both report before and after, and the rule that a layer adopts the
 * tuned result only when that loss went down. Pure.
 */
import type { NodeId } from '../onnx/model.ts';
import type { CancelSignal, LayerRows } from './layerData.ts';
import { augmented, layerLossOn, type GramProductFactory, type LayerProblem } from './layerProblem.ts';
import type { DenseProduct } from './denseProduct.ts';
import type { LinearLayer } from './linearLayers.ts';
import { QUANT_TYPES } from '../quantize/numeric.ts';

export interface TuneOptions {
  readonly iterations: number;
  readonly learningRate: number;
  /** AdaRound's λ, β from start to end, and the warm-up fraction without the rounding term. */
  readonly regParam: number;
  readonly betaRange: readonly [number, number];
  readonly warmStart: number;
  /** A loss-curve point every logPeriod iterations (and the last). */
  readonly logPeriod: number;
  /**
   * Stop a layer once its loss has flattened: AdaQuant when its loss has not improved for a tenth of the
   * iterations, AdaRound when its hard rounding's loss (checked every twentieth of the iterations after the warm
   * start) has not improved for three checks; each keeps the best result seen.
   */
  readonly earlyStop: boolean;
  /**
   * The plateau stop (0 or absent: off): a layer's loss is looked at once every window of iterations
   * (plateauWindow) and the layer stops learning once it improved by less than this share over the last window.
   * AdaRound ends its warm start when the soft loss flattens (the annealing keeps its length, so the layer runs
   * that many fewer full-cost steps) and stops annealing when the hard rounding's best loss flattens; AdaQuant stops
   * when its best loss flattens. Each keeps the best result seen.
   */
  readonly plateau?: number;
  /** AdaQuant learns the bias too. */
  readonly updateBias: boolean;
  readonly signal?: CancelSignal;
  /** A runtime's matrix product for the optimizer's inner loop; TypeScript when absent. */
  readonly product?: GramProductFactory;
  /** A runtime's float64 MatMul for scoring codes before and after (denseProduct.ts); TypeScript when absent. */
  readonly dense?: DenseProduct;
  /**
   * AdaQuant's step (adaquantKernel.ts): the WebAssembly SIMD kernel or the plain TypeScript pass, which give the same
   * values bit for bit; the kernel where this JavaScript has WebAssembly SIMD when absent.
   */
  readonly adaquantKernel?: 'wasm' | 'plain';
}

/** The plateau stop's window: a twentieth of the iterations, at least 10. */
export function plateauWindow(iterations: number): number {
  return Math.max(10, Math.floor(iterations / 20));
}

/** Whether a loss went from `before` to `after` by less than `share` of `before` (a rise counts as flat). */
export function flattened(before: number, after: number, share: number): boolean {
  return !(before - after >= share * before);
}

/**
 * The layout both optimizers' vectors share: per output channel, its inPerGroup weights then its bias (k entries,
 * n = outChannels · k in all), and the code range of the layer's weight grid.
 */
export interface TuningLayout {
  readonly layer: LinearLayer;
  readonly k: number;
  readonly n: number;
  readonly qmin: number;
  readonly qmax: number;
}

export function tuningLayout(p: LayerProblem): TuningLayout {
  const layer = p.rows.layer;
  const k = layer.inPerGroup + 1;
  const { min: qmin, max: qmax } = QUANT_TYPES[layer.type];
  return { layer, k, n: layer.outChannels * k, qmin, qmax };
}

export interface CurvePoint {
  readonly iteration: number;
  /** Reconstruction loss (Σ over channels of the mean squared error), without the rounding term. */
  readonly loss: number;
}

/** What tuning one layer reports (kept by tunedLayerMemo.ts, listed by quantizeWithRecovery's TunedLayerSummary). */
export interface TuningSummary {
  /** Loss of the weights as quantized (nearest rounding) and of the tuned, hard-quantized result. */
  readonly lossBefore: number;
  readonly lossAfter: number;
  readonly curve: readonly CurvePoint[];
  readonly iterations: number;
  readonly seconds: number;
  /** The tuned result was not better, so the layer keeps its codes. */
  readonly kept: boolean;
}

export interface LayerTuning extends TuningSummary {
  readonly id: NodeId;
  /** New weight codes (absent when kept). */
  readonly codes?: Int32Array;
  /** New bias in real units (AdaQuant with UpdateBias). */
  readonly bias?: Float32Array;
}

/** Loss of integer codes (and a bias change per channel) on the layer's problem; `dense` runs the large products. */
export function codesLoss(
  p: LayerProblem,
  codes: Int32Array,
  biasChange?: Float64Array,
  dense?: DenseProduct,
): Promise<number> {
  const l = p.rows.layer;
  const v = augmented(p, (m, i) => (codes[l.weightIndex(m, i)] - l.zeroPointOf(m)) * l.scaleOf(m));
  if (biasChange) for (let m = 0; m < l.outChannels; m++) v[m * (l.inPerGroup + 1) + l.inPerGroup] = biasChange[m];
  return layerLossOn(p, v, dense);
}

/** How one layer's optimization went: its loss before, curve, iterations run, and its start (performance.now(), ms). */
export interface TuningRun {
  readonly lossBefore: number;
  readonly curve: readonly CurvePoint[];
  readonly iterations: number;
  readonly start: number;
}

/**
 * The layer's result for the tuned codes and, for AdaQuant with UpdateBias, the bias change per output channel
 * (real units): adopted only when the hard-quantized loss is lower than before; otherwise the layer is kept.
 */
export async function layerTuning(
  p: LayerProblem,
  run: TuningRun,
  codes: Int32Array,
  biasChange?: Float64Array,
  dense?: DenseProduct,
): Promise<LayerTuning> {
  const l = p.rows.layer;
  const lossAfter = await codesLoss(p, codes, biasChange, dense);
  const kept = !(lossAfter < run.lossBefore);
  return {
    id: l.id,
    lossBefore: run.lossBefore,
    lossAfter: kept ? run.lossBefore : lossAfter,
    curve: run.curve,
    iterations: run.iterations,
    seconds: (performance.now() - run.start) / 1000,
    kept,
    codes: kept ? undefined : codes,
    ...(biasChange ? { bias: kept ? undefined : Float32Array.from(l.bias, (b, m) => b + biasChange[m]) } : {}),
  };
}

/** Most input rows layerRoundingError reads (spread evenly over the gathered ones). */
const ROUNDING_ERROR_ROWS = 256;

/**
 * How much of a layer's output its own weight rounding costs, measured on its gathered quantized input rows: Σ‖(Ŵ −
 * W)x‖² / Σ‖W x‖² (Ŵ the nearest-rounded codes dequantized, bias left out), on at most ROUNDING_ERROR_ROWS rows. What
 * AdaRound and AdaQuant can win back on the layer itself is bounded by it; a layer where it is small has little to tune.
 */
export function layerRoundingError(data: LayerRows): number {
  const l = data.layer;
  const outPerGroup = l.outChannels / l.groups;
  const step = Math.max(1, Math.floor(data.rows / ROUNDING_ERROR_ROWS));
  let error = 0;
  let signal = 0;
  for (let r = 0; r < data.rows; r += step) {
    const row = r * data.width;
    for (let m = 0; m < l.outChannels; m++) {
      const at = row + Math.floor(m / outPerGroup) * l.inPerGroup;
      const scale = l.scaleOf(m);
      const zero = l.zeroPointOf(m);
      let exact = 0;
      let rounded = 0;
      for (let k = 0; k < l.inPerGroup; k++) {
        const x = data.quantRows[at + k];
        const i = l.weightIndex(m, k);
        exact += l.floatWeight[i] * x;
        rounded += (l.codes[i] - zero) * scale * x;
      }
      error += (rounded - exact) ** 2;
      signal += exact ** 2;
    }
  }
  return signal > 0 ? error / signal : 0;
}
