/**
 * AdaQuant (Hubara et al. 2021, "Accurate Post Training Quantization With Small Calibration Sets"; Quark fast
 * finetune OptimAlgorithm 'adaquant'): the layer's float weights (and, with UpdateBias, its bias) are learned
 * so that, once quantized on the layer's grid, they minimise the reconstruction error (layerProblem.ts). The
 * rounding is seen through the straight-through estimator: d ŵ/d w = 1 inside the grid, 0 where it saturates.
 * Unlike Quark, the scales and zero points stay as calibrated (writing new weight scales would also move the
 * int32 bias grids and, with power-of-two scales, leave the grid). Pure.
 */
import { Adam, layerLossOn, type LayerProblem } from './layerProblem.ts';
import { BLOCK_MAX, STALE_SHARE, incrementalObjective } from './incrementalObjective.ts';
import { gridStepper, type ChannelGrid } from './adaquantKernel.ts';
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
import { roundHalfToEven } from '../quantize/numeric.ts';

/** Learns one layer's weights (and bias). */
export async function adaquant(p: LayerProblem, options: TuneOptions): Promise<LayerTuning> {
  const start = performance.now();
  const { layer: l, k, n, qmin, qmax } = tuningLayout(p);
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
  for (let m = 0; m < l.outChannels; m++) {
    grid.scale[m] = l.scaleOf(m);
    grid.zp[m] = l.zeroPointOf(m);
  }
  // The loop's vectors, the objective's and Adam's moments (in the WebAssembly kernel's memory where it serves).
  const stepper = gridStepper(grid, n, options.adaquantKernel);
  const { w, wq } = stepper;
  // Every weight learns, and each channel's bias change with UpdateBias; the other entries stay 0.
  const watched = new Uint8Array(n);
  for (let m = 0; m < l.outChannels; m++) {
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
  // The hard-quantized weights change only where a code flips, so the objective follows them incrementally; only the
  // entries of wq that differ from its vector are handed to its update (`changes` of them).
  const objective = await incrementalObjective(p, watched, options.product, STALE_SHARE, BLOCK_MAX, stepper.objective);
  const adam = new Adam(n, options.learningRate, undefined, undefined, undefined, stepper.moments);
  const curve: CurvePoint[] = [];
  let changes = stepper.step();
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
      await objective.update(wq, stepper.changed, changes);
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
      changes = stepper.step(adam);
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
