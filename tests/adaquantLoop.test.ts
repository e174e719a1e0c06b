/**
 * AdaQuant's inner loop (core/recovery/adaquant.ts stepOnGrid: the Adam step and the quantization fused in one pass,
 * rounding without branches, only the entries that changed handed to the objective) against the loop as it was
 * written before it (kept here verbatim as the reference: every entry quantized by roundHalfToEven, every learning
 * entry handed to the objective, the gradient stored, then Adam's step): the same codes, bias, losses, curve and
 * iterations bit for bit, on small layers built in code (int4, so weights sit past the grid's ends; weights on exact
 * ties and at −0; a zero point off 0), with the TypeScript and the onnxruntime-node products, with and without the
 * bias, with the early and the plateau stops. And the rounding itself against roundHalfToEven on chosen quotients.
 */
import { describe, expect, it } from 'vitest';
import { Adam, buildLayerProblem, layerLossOn, type LayerProblem } from '../src/core/recovery/layerProblem.ts';
import { incrementalObjective } from '../src/core/recovery/incrementalObjective.ts';
import { adaquant } from '../src/core/recovery/adaquant.ts';
import { stepOnGrid } from '../src/core/recovery/adaquantKernel.ts';
import {
  codesLoss,
  flattened,
  layerTuning,
  plateauWindow,
  tuningLayout,
  type CurvePoint,
  type LayerTuning,
  type TuneOptions,
} from '../src/core/recovery/tuning.ts';
import { roundHalfToEven } from '../src/core/quantize/numeric.ts';
import type { LayerRows } from '../src/core/recovery/layerData.ts';
import { nodeGramProduct } from '../src/cli/runtime/gramProduct.ts';
import { smallLayerRows } from './helpers/layerRows.ts';
import { testTuneOptions } from './helpers/tuneOptions.ts';

/** AdaQuant's loop as written before stepOnGrid (adaquant.ts at 5bca9af), less its cancel point. */
async function adaquantAsBefore(p: LayerProblem, options: TuneOptions): Promise<LayerTuning> {
  const start = performance.now();
  const { layer: l, k, n, qmin, qmax } = tuningLayout(p);
  const w = new Float64Array(n);
  const scale = new Float64Array(n);
  const zp = new Float64Array(n);
  const learning = new Int32Array(n);
  const watched = new Uint8Array(n);
  let count = 0;
  for (let m = 0; m < l.outChannels; m++) {
    for (let i = 0; i < k; i++) {
      const at = m * k + i;
      if (i < l.inPerGroup) {
        w[at] = l.floatWeight[l.weightIndex(m, i)];
        scale[at] = l.scaleOf(m);
        zp[at] = l.zeroPointOf(m);
      } else if (!options.updateBias) continue;
      learning[count++] = at;
      watched[at] = 1;
    }
  }
  const quantize = (at: number) => {
    const q = roundHalfToEven(w[at] / scale[at]) + zp[at];
    return q < qmin ? qmin : q > qmax ? qmax : q;
  };
  const lossBefore = await codesLoss(p, l.codes, undefined, options.dense);
  const objective = await incrementalObjective(p, watched, options.product);
  const { gv, cross } = objective;
  const adam = new Adam(n, options.learningRate);
  const wq = new Float64Array(n);
  const grad = new Float64Array(n);
  const saturated = new Uint8Array(n);
  const curve: CurvePoint[] = [];
  const forward = () => {
    for (let m = 0; m < l.outChannels; m++) {
      for (let i = 0; i < l.inPerGroup; i++) {
        const at = m * k + i;
        const q = roundHalfToEven(w[at] / scale[at]) + zp[at];
        saturated[at] = q < qmin || q > qmax ? 1 : 0;
        wq[at] = ((q < qmin ? qmin : q > qmax ? qmax : q) - zp[at]) * scale[at];
      }
      wq[m * k + l.inPerGroup] = options.updateBias ? w[m * k + l.inPerGroup] : 0;
    }
  };
  let best = Infinity;
  let bestParams: Float64Array | undefined;
  let sinceBest = 0;
  let done = 0;
  const plateau = options.plateau ?? 0;
  const window = plateauWindow(options.iterations);
  let bestMark = Infinity;
  try {
    for (let it = 0; it < options.iterations; it++) {
      forward();
      await objective.update(wq, learning, count);
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
      for (let q = 0; q < count; q++) {
        const at = learning[q];
        grad[at] = saturated[at] ? 0 : 2 * (gv[at] - cross[at]);
      }
      adam.step(w, grad, learning, count);
      done = it + 1;
      if (it % options.logPeriod === 0 || it === options.iterations - 1) curve.push({ iteration: it, loss });
    }
  } finally {
    await objective.release();
  }
  forward();
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

/**
 * smallLayerRows' layer with weights set on exact ties of its grid (its scales are powers of two), at ±0, and on a
 * zero point of `zeroPoint` (its codes recomputed, clamped to int4).
 */
function tiedLayerRows(outChannels: number, inPerGroup: number, groups: number, seed: number, zeroPoint: number) {
  const rows = smallLayerRows(outChannels, inPerGroup, groups, 240, seed);
  const l = rows.layer;
  const floatWeight = Float32Array.from(l.floatWeight);
  for (let m = 0; m < outChannels; m++) {
    const s = l.scaleOf(m);
    floatWeight[m * inPerGroup] = 0.5 * s;
    floatWeight[m * inPerGroup + 1] = -1.5 * s;
    floatWeight[m * inPerGroup + 2] = -0;
    floatWeight[m * inPerGroup + 3] = (m % 2 ? 2.5 : -2.5) * s;
  }
  const codes = Int32Array.from(floatWeight, (x, at) =>
    Math.max(-8, Math.min(7, roundHalfToEven(x / l.scaleOf(Math.floor(at / inPerGroup))) + zeroPoint)),
  );
  const layer = { ...l, floatWeight, codes, zeroPointOf: () => zeroPoint };
  return { ...rows, layer } as LayerRows;
}

const LAYERS: [string, () => LayerProblem][] = [
  ['dense 12 × 40', () => buildLayerProblem(smallLayerRows(12, 40, 1, 300, 21))],
  ['grouped 8 × 9 in 4 groups', () => buildLayerProblem(smallLayerRows(8, 9, 4, 200, 31))],
  ['dense 10 × 24, ties, −0 and zero point 3', () => buildLayerProblem(tiedLayerRows(10, 24, 1, 41, 3))],
];

const RUNS: [string, Partial<TuneOptions>][] = [
  ['with the bias', { learningRate: 1e-3 }],
  ['without the bias', { learningRate: 1e-3, updateBias: false }],
  ['a larger step (more codes flip, more full products)', { learningRate: 2e-3 }],
  ['the early stop', { learningRate: 2e-3, earlyStop: true }],
  ['the plateau stop', { learningRate: 1e-3, plateau: 1e-3 }],
];

/** A result without its seconds, for an exact comparison. */
function comparable(t: LayerTuning) {
  const { seconds, ...rest } = t;
  return seconds >= 0 ? rest : undefined;
}

describe('AdaQuant against the loop as written before', () => {
  for (const [layerName, build] of LAYERS) {
    for (const [runName, more] of RUNS) {
      for (const product of [undefined, nodeGramProduct]) {
        it(`${layerName}, ${runName}, ${product ? 'onnxruntime-node' : 'TypeScript'} product: the same result bit for bit`, async () => {
          const p = build();
          const options = testTuneOptions(120, { ...more, product });
          const fast = await adaquant(p, options);
          const reference = await adaquantAsBefore(p, options);
          expect(comparable(fast)).toEqual(comparable(reference));
          // The loop moved (its losses differ), and where the reference's result is adopted its codes were compared.
          expect(new Set(reference.curve.map((c) => c.loss)).size).toBeGreaterThan(1);
          if (runName === 'with the bias') expect(reference.kept, 'the reference tuned nothing').toBe(false);
        });
      }
    }
  }
});

describe("stepOnGrid's rounding", () => {
  const scale = 0.25;
  const zeroPoint = 3;
  const [qmin, qmax] = [-8, 7];
  /** One channel of the given weights on the grid above (its bias entry last), quantized from no earlier state. */
  function oneChannel(weights: Float64Array) {
    const n = weights.length + 1;
    const w = new Float64Array(n);
    w.set(weights);
    const state = {
      w,
      wq: new Float64Array(n),
      saturated: new Uint8Array(n),
      current: new Float64Array(n),
      gv: new Float64Array(n),
      cross: new Float64Array(n),
      changed: new Int32Array(n),
      low: new Float64Array(n).fill(Infinity),
      high: new Float64Array(n).fill(-Infinity),
    };
    const grid = {
      channels: 1,
      inPerGroup: weights.length,
      k: n,
      qmin,
      qmax,
      scale: Float64Array.of(scale),
      zp: Float64Array.of(zeroPoint),
      updateBias: false,
    };
    return { w, state, grid };
  }
  /** wq and the saturation are roundHalfToEven's at every weight of w (bit for bit). */
  function expectQuantizedAsRoundHalfToEven(w: Float64Array, state: { wq: Float64Array; saturated: Uint8Array }) {
    for (let at = 0; at < w.length - 1; at++) {
      const q = roundHalfToEven(w[at] / scale) + zeroPoint;
      expect(state.saturated[at], `weight ${w[at]}`).toBe(q < qmin || q > qmax ? 1 : 0);
      const value = (Math.min(qmax, Math.max(qmin, q)) - zeroPoint) * scale;
      expect(Object.is(state.wq[at], value), `weight ${w[at]}: ${state.wq[at]} against ${value}`).toBe(true);
    }
  }
  const quotients = [0, -0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999, -10.5, -11.5, -12.5, 3.5, 4.5, 5.5, 1e6, -1e6];

  it('gives roundHalfToEven(w / scale) + zero point, clamped, and the saturation, on ties, ±0 and past the ends', () => {
    const weights = Float64Array.from(quotients, (x) => x * scale);
    weights[1] = -0;
    const { w, state, grid } = oneChannel(weights);
    const count = stepOnGrid(grid, state);
    expectQuantizedAsRoundHalfToEven(w, state);
    // Listed: every entry whose value is not bit for bit the current vector's (+0 there).
    const listed = Array.from(state.changed.subarray(0, count));
    expect(listed).toEqual([...state.wq.keys()].filter((at) => !Object.is(state.wq[at], 0)));
  });

  it('keeps a quantization only while the weight stays inside its interval: weights moved by a hair onto and across every tie', () => {
    // Each weight sits a hair off a tie or a saturation end, and every step moves them all by a hair: across, onto, back.
    const ties = [-12.5, -11.5, -10.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5];
    const hairs = [-1e-9, -(2 ** -30), -(2 ** -52), 0, 2 ** -52, 2 ** -30, 1e-9, 1e-3, -1e-3];
    const weights = new Float64Array(ties.length * hairs.length);
    const { w, state, grid } = oneChannel(weights);
    let moves = 0;
    for (const shift of hairs) {
      ties.forEach((t, j) => hairs.forEach((hair, h) => (w[j * hairs.length + h] = (t + hair + shift) * scale)));
      stepOnGrid(grid, state);
      expectQuantizedAsRoundHalfToEven(w, state);
      state.current.set(state.wq);
      moves++;
    }
    expect(moves).toBe(hairs.length);
  });
});
