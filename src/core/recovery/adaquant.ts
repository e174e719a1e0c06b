/**
 * AdaQuant (Hubara et al. 2021, "Accurate Post Training Quantization With Small Calibration Sets"; Quark fast
 * finetune OptimAlgorithm 'adaquant'): the layer's float weights (and, with UpdateBias, its bias) are learned
 * so that, once quantized on the layer's grid, they minimise the reconstruction error (layerProblem.ts). The
 * rounding is seen through the straight-through estimator: d ŵ/d w = 1 inside the grid, 0 where it saturates.
 * Unlike Quark, the scales and zero points stay as calibrated (writing new weight scales would also move the
 * int32 bias grids and, with power-of-two scales, leave the grid). Pure.
 */
import { Adam, layerLossOn, type LayerProblem } from './layerProblem.ts';
import { incrementalObjective } from './incrementalObjective.ts';
import { cancelPoint } from './layerData.ts';
import {
  codesLoss,
  flattened,
  layerTuning,
  plateauWindow,
  tuningLayout,
  type CurvePoint,
  type LayerTuning,
  type TuneOptions,
} from './tuning.ts';
import { ROUND_TIES_EVEN_MAGIC, roundHalfToEven } from '../quantize/numeric.ts';

/** Learns one layer's weights (and bias). */
export async function adaquant(p: LayerProblem, options: TuneOptions): Promise<LayerTuning> {
  const start = performance.now();
  const { layer: l, k, n, qmin, qmax } = tuningLayout(p);
  const w = new Float64Array(n);
  // The weight grid per channel (the entries of a channel share its scale and zero point).
  const grid: ChannelGrid = {
    channels: l.outChannels,
    inPerGroup: l.inPerGroup,
    k,
    qmin,
    qmax,
    scale: new Float64Array(l.outChannels),
    zp: new Float64Array(l.outChannels),
    updateBias: options.updateBias,
  };
  // Every weight learns, and each channel's bias change with UpdateBias; the other entries stay 0.
  const watched = new Uint8Array(n);
  for (let m = 0; m < l.outChannels; m++) {
    grid.scale[m] = l.scaleOf(m);
    grid.zp[m] = l.zeroPointOf(m);
    for (let i = 0; i < k; i++) {
      const at = m * k + i;
      if (i < l.inPerGroup) w[at] = l.floatWeight[l.weightIndex(m, i)];
      else if (!options.updateBias) continue;
      watched[at] = 1;
    }
  }
  const quantize = (at: number) => {
    const m = (at / k) | 0;
    const q = roundHalfToEven(w[at] / grid.scale[m]) + grid.zp[m];
    return q < qmin ? qmin : q > qmax ? qmax : q;
  };
  const lossBefore = await codesLoss(p, l.codes, undefined, options.dense);
  // The hard-quantized weights change only where a code flips, so the objective follows them incrementally.
  const objective = await incrementalObjective(p, watched, options.product);
  const adam = new Adam(n, options.learningRate);
  const wq = new Float64Array(n);
  // Only the entries of wq that differ from the objective's vector are handed to its update (`changes` of them): the
  // others would pass as unchanged.
  const state: LoopState = {
    w,
    wq,
    saturated: new Uint8Array(n),
    current: objective.value,
    gv: objective.gv,
    cross: objective.cross,
    changed: new Int32Array(n),
    low: new Float64Array(n).fill(Infinity),
    high: new Float64Array(n).fill(-Infinity),
  };
  const curve: CurvePoint[] = [];
  let changes = stepOnGrid(grid, state);
  let best = Infinity;
  let bestParams: Float64Array | undefined;
  let sinceBest = 0;
  let done = 0;
  // The plateau stop (options.plateau): the best loss at the last window's end.
  const plateau = options.plateau ?? 0;
  const window = plateauWindow(options.iterations);
  let bestMark = Infinity;
  try {
    for (let it = 0; it < options.iterations; it++) {
      if (it % 16 === 0) await cancelPoint(options.signal);
      await objective.update(wq, state.changed, changes);
      const loss = objective.loss();
      if (loss < best) {
        best = loss;
        (bestParams ??= new Float64Array(n)).set(w);
        sinceBest = 0;
      } else if (options.earlyStop && ++sinceBest > Math.max(10, options.iterations / 10)) break;
      if (plateau > 0 && it > 0 && it % window === 0) {
        if (flattened(bestMark, best, plateau)) break;
        bestMark = best;
      }
      changes = stepOnGrid(grid, state, adam);
      done = it + 1;
      if (it % options.logPeriod === 0 || it === options.iterations - 1) curve.push({ iteration: it, loss });
    }
  } finally {
    await objective.release();
  }

  // The last step is not scored inside the loop (wq holds its weights): score it, then keep the best iterate seen.
  if (!((await layerLossOn(p, wq, options.dense)) < best) && bestParams) w.set(bestParams);
  const codes = Int32Array.from(l.codes);
  const biasChange = new Float64Array(l.outChannels);
  for (let m = 0; m < l.outChannels; m++) {
    for (let i = 0; i < l.inPerGroup; i++) codes[l.weightIndex(m, i)] = quantize(m * k + i);
    biasChange[m] = options.updateBias ? w[m * k + l.inPerGroup] : 0;
  }
  return layerTuning(
    p,
    { lossBefore, curve, iterations: done, start },
    codes,
    options.updateBias ? biasChange : undefined,
    options.dense,
  );
}

/** A layer's weight grid as the loop reads it: each channel's scale and zero point, and the code range. */
interface ChannelGrid {
  readonly channels: number;
  readonly inPerGroup: number;
  readonly k: number;
  readonly qmin: number;
  readonly qmax: number;
  readonly scale: Float64Array;
  readonly zp: Float64Array;
  readonly updateBias: boolean;
}

/** The loop's vectors (n entries each, the layout of tuning.ts). */
interface LoopState {
  /** The learned weights (and bias changes). */
  readonly w: Float64Array;
  /** Their hard-quantized values (the bias change as it is, or 0). */
  readonly wq: Float64Array;
  /** 1 where the weight's code falls past the grid's ends (no gradient then). */
  readonly saturated: Uint8Array;
  /** The objective's vector, its G v and c. */
  readonly current: Float64Array;
  readonly gv: Float64Array;
  readonly cross: Float64Array;
  /** Out: the entries where wq is not bit for bit `current`, in increasing order. */
  readonly changed: Int32Array;
  /**
   * Per entry, weights strictly between low and high quantize as the entry's weight last did (see CODE_MARGIN); +∞ and
   * −∞ at first, so that the first step quantizes every entry.
   */
  readonly low: Float64Array;
  readonly high: Float64Array;
}

/**
 * How far inside a code's rounding interval, in codes, a weight must lie for stepOnGrid to keep its last quantization
 * without dividing: the interval's ends s·(r ± ½ ∓ margin) carry a relative error of 2⁻⁵³ and so does w / s, at most
 * 2⁻³⁶ of a code for |r| ≤ 2¹⁷ (16-bit grids), far inside 2⁻²⁰; a weight strictly inside then rounds to r exactly
 * (and one past the saturation end's margin saturates), so wq and the saturation are those of dividing again.
 */
const CODE_MARGIN = 2 ** -20;

/**
 * With `adam`, one Adam step on every learning entry with the straight-through gradient 2(Gv − c), none where the
 * weight saturated (the bias changes learn only with UpdateBias); then, entry by entry in the same pass, wq and
 * `saturated` of the weights as they now are; returns how many entries it listed in `changed` (see LoopState). Without
 * `adam` only the second part. wq takes the values of roundHalfToEven(w / scale) + zp clamped (the quantize closure)
 * without its branches: w / scale is first clamped to one code past each end (clamping to integers commutes with
 * rounding, so the saturation and the clamped code are those of the unclamped quotient), then rounded ties-to-even by
 * ROUND_TIES_EVEN_MAGIC; a quotient of −0 stays −0, as roundHalfToEven keeps it. A weight still strictly inside the
 * interval its last quantization left (LoopState.low/high, CODE_MARGIN) keeps that quantization without a division. One
 * pass instead of a step, then a quantization over every entry, then the objective's look at every entry for a change. Synchronous and module-level
 * with everything in locals: inside the async loop the optimizing compiler made such a step several times slower
 * (measured: 30 against 11 ms a step on a synthetic 384 × 385 layer).
 */
export function stepOnGrid(grid: ChannelGrid, state: LoopState, adam?: Adam): number {
  const { channels, inPerGroup, k, qmin, qmax, scale, zp, updateBias } = grid;
  const { w, wq, saturated, current, gv, cross, changed, low, high } = state;
  adam?.next();
  let count = 0;
  for (let m = 0; m < channels; m++) {
    const s = scale[m];
    const z = zp[m];
    const below = qmin - z - 1;
    const above = qmax - z + 1;
    const base = m * k;
    for (let at = base; at < base + inPerGroup; at++) {
      const weight = adam ? (w[at] = adam.update(at, w[at], saturated[at] ? 0 : 2 * (gv[at] - cross[at]))) : w[at];
      if (!(weight > low[at] && weight < high[at])) {
        const x = weight / s;
        const c = x < below ? below : x > above ? above : x;
        const r = c === 0 ? c : c + ROUND_TIES_EVEN_MAGIC - ROUND_TIES_EVEN_MAGIC;
        const q = r + z;
        saturated[at] = q < qmin || q > qmax ? 1 : 0;
        wq[at] = ((q < qmin ? qmin : q > qmax ? qmax : q) - z) * s;
        if (s > 0 && s < Infinity) {
          // (A degenerate grid keeps no interval: its weights are divided at every step.)
          low[at] = r <= below ? -Infinity : s * (r - 0.5 + CODE_MARGIN);
          high[at] = r >= above ? Infinity : s * (r + 0.5 - CODE_MARGIN);
        }
      }
      if (differs(wq[at], current[at])) changed[count++] = at;
    }
    const bias = base + inPerGroup;
    if (adam && updateBias) w[bias] = adam.update(bias, w[bias], 2 * (gv[bias] - cross[bias]));
    const next = updateBias ? w[bias] : 0;
    wq[bias] = next;
    if (differs(next, current[bias])) changed[count++] = bias;
  }
  return count;
}

/** a and b are not the same float64 (−0 and +0 differ; NaN differs from itself, as the objective's copy has it). */
function differs(a: number, b: number): boolean {
  return a !== b || (a === 0 && 1 / a !== 1 / b);
}
