/**
 * The optimizers' fast inner loop against the plain one: the incremental objective (core/recovery/
 * incrementalObjective.ts) gives the loss and gradient of the exact float64 formula after sparse changes (in
 * TypeScript, and on onnxruntime-node's MatMul to float32 precision), and AdaRound and AdaQuant, which now step only
 * the weights still learning, give the same codes as a textbook loop that steps every weight with the exact gradient
 * on small layers (one dense, one grouped, int4 so that some weights sit past the grid's ends).
 */
import { describe, expect, it } from 'vitest';
import {
  Adam,
  buildLayerProblem,
  layerLoss,
  type GramProductFactory,
  type LayerProblem,
} from '../src/core/recovery/layerProblem.ts';
import {
  BLOCK_MAX,
  incrementalObjective,
  STALE_SHARE,
  updateCostPasses,
} from '../src/core/recovery/incrementalObjective.ts';
import { adaround } from '../src/core/recovery/adaround.ts';
import { adaquant } from '../src/core/recovery/adaquant.ts';
import { codesLoss, type TuneOptions } from '../src/core/recovery/tuning.ts';
import { QUANT_TYPES, roundHalfToEven } from '../src/core/quantize/numeric.ts';
import { nodeGramProduct } from '../src/cli/runtime/gramProduct.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { smallLayerRows } from './helpers/layerRows.ts';
import { testTuneOptions } from './helpers/tuneOptions.ts';

/** A layer of `outChannels` × `inPerGroup` weights in `groups` groups on int4 codes, and `rows` random input rows. */
function smallProblem(
  outChannels: number,
  inPerGroup: number,
  groups: number,
  rows: number,
  seed: number,
): LayerProblem {
  return buildLayerProblem(smallLayerRows(outChannels, inPerGroup, groups, rows, seed));
}

const OPTIONS: TuneOptions = testTuneOptions(300);

const GAMMA = -0.1;
const SPAN = 1.1 - GAMMA; // ζ − γ, as adaround.ts computes it

/** AdaRound as first written: every weight every step, the exact float64 gradient of layerLoss. */
function adaroundReference(p: LayerProblem, o: TuneOptions): Int32Array {
  const l = p.rows.layer;
  const k = l.inPerGroup + 1;
  const n = l.outChannels * k;
  const { min, max } = QUANT_TYPES[l.type];
  const floor = new Float64Array(n),
    scale = new Float64Array(n),
    V = new Float64Array(n);
  let all = new Int32Array(n);
  let count = 0;
  for (let m = 0; m < l.outChannels; m++) {
    for (let i = 0; i < l.inPerGroup; i++) {
      const at = m * k + i;
      const x = l.floatWeight[l.weightIndex(m, i)] / l.scaleOf(m);
      floor[at] = Math.floor(x);
      scale[at] = l.scaleOf(m);
      all[count++] = at;
      const rest = Math.min(0.99, Math.max(0.01, x - floor[at]));
      V[at] = -Math.log(SPAN / (rest - GAMMA) - 1);
    }
  }
  all = all.subarray(0, count);
  const adam = new Adam(n, o.learningRate);
  const w = new Float64Array(n),
    grad = new Float64Array(n);
  const warm = Math.floor(o.warmStart * o.iterations);
  for (let it = 0; it < o.iterations; it++) {
    const sig = Array.from(all, (at) => 1 / (1 + Math.exp(-V[at])));
    all.forEach((at, q) => {
      const h = Math.min(1, Math.max(0, sig[q] * SPAN + GAMMA));
      w[at] = scale[at] * Math.min(max, Math.max(min, floor[at] + h));
    });
    layerLoss(p, w, grad);
    const beta =
      it >= warm ? o.betaRange[0] + ((o.betaRange[1] - o.betaRange[0]) * (it - warm)) / (o.iterations - warm) : 0;
    all.forEach((at, q) => {
      const raw = sig[q] * SPAN + GAMMA;
      const r = floor[at] + raw;
      const inside = raw > 0 && raw < 1;
      const dhdv = inside ? SPAN * sig[q] * (1 - sig[q]) : 0;
      let g = inside && r >= min && r <= max ? grad[at] * (scale[at] * dhdv) : 0;
      const u = 2 * raw - 1;
      // |u|^(β−1) written as adaround.ts computes it (exp of a log), so that the two loops agree to the bit.
      if (it >= warm && inside && u !== 0)
        g -= o.regParam * beta * Math.exp((beta - 1) * Math.log(Math.abs(u))) * Math.sign(u) * 2 * dhdv;
      grad[at] = g;
    });
    adam.step(V, grad, all, count);
  }
  const codes = Int32Array.from(l.codes);
  for (let m = 0; m < l.outChannels; m++) {
    for (let i = 0; i < l.inPerGroup; i++)
      codes[l.weightIndex(m, i)] = Math.min(max, Math.max(min, floor[m * k + i] + (V[m * k + i] >= 0 ? 1 : 0)));
  }
  return codes;
}

/** AdaQuant as first written (bias kept): hard-quantized weights, the exact gradient with the straight-through estimator. */
function adaquantReference(p: LayerProblem, o: TuneOptions): Int32Array {
  const l = p.rows.layer;
  const k = l.inPerGroup + 1;
  const n = l.outChannels * k;
  const { min, max } = QUANT_TYPES[l.type];
  const w = new Float64Array(n);
  for (let m = 0; m < l.outChannels; m++)
    for (let i = 0; i < l.inPerGroup; i++) w[m * k + i] = l.floatWeight[l.weightIndex(m, i)];
  const all = Int32Array.from({ length: n }, (_, at) => at);
  const adam = new Adam(n, o.learningRate);
  const wq = new Float64Array(n),
    grad = new Float64Array(n);
  const code = (at: number) => roundHalfToEven(w[at] / l.scaleOf(Math.floor(at / k)));
  const forward = () => {
    for (let at = 0; at < n; at++)
      wq[at] = at % k === l.inPerGroup ? 0 : Math.min(max, Math.max(min, code(at))) * l.scaleOf(Math.floor(at / k));
  };
  let best = Infinity;
  const bestW = new Float64Array(n);
  for (let it = 0; it < o.iterations; it++) {
    forward();
    const loss = layerLoss(p, wq, grad);
    for (let at = 0; at < n; at++) if (at % k === l.inPerGroup || code(at) < min || code(at) > max) grad[at] = 0;
    if (loss < best) {
      best = loss;
      bestW.set(w);
    }
    adam.step(w, grad, all, n);
  }
  forward();
  if (!(layerLoss(p, wq) < best)) w.set(bestW); // the best iterate seen, as AdaQuant keeps
  return Int32Array.from({ length: l.outChannels * l.inPerGroup }, (_, j) => {
    const at = Math.floor(j / l.inPerGroup) * k + (j % l.inPerGroup);
    return Math.min(max, Math.max(min, code(at)));
  });
}

const differing = (a: Int32Array, b: Int32Array) => a.reduce((s, x, i) => s + (x !== b[i] ? 1 : 0), 0);

describe('the incremental objective', () => {
  for (const product of [undefined, nodeGramProduct]) {
    it(`follows sparse changes with the exact loss and gradient at the watched entries (${product ? 'onnxruntime-node' : 'TypeScript'} full product)`, async () => {
      const p = smallProblem(6, 63, 1, 200, 11); // k = 64: wide enough for the runtime's product
      const k = 64,
        n = 6 * k;
      const watched = new Uint8Array(n).fill(1);
      const objective = await incrementalObjective(p, watched, product);
      const v = Float64Array.from(seededFloats(n, 12, -1, 1));
      const all = Int32Array.from({ length: n }, (_, i) => i);
      await objective.update(v, all, n);
      const tolerance = product ? 1e-5 : 1e-10;
      for (let round = 0; round < 20; round++) {
        // A few entries change, a few stop being watched (as AdaRound's saturated weights do).
        const changed = Int32Array.from(seededFloats(5, 100 + round), (x) => Math.floor(x * n)).filter(
          (at) => watched[at],
        );
        for (const at of changed) v[at] += seededFloats(1, 200 + round + at, -0.3, 0.3)[0];
        await objective.update(v, changed, changed.length);
        const leaving = Math.floor(seededFloats(1, 300 + round)[0] * n);
        watched[leaving] = 0;
        objective.unwatch(leaving);
      }
      const exact = new Float64Array(n);
      const loss = layerLoss(p, v, exact);
      expect(Math.abs(objective.loss() - loss)).toBeLessThan(tolerance * Math.abs(loss));
      const scale = Math.max(...exact.map(Math.abs));
      for (let at = 0; at < n; at++) {
        if (watched[at])
          expect(Math.abs(2 * (objective.gv[at] - objective.cross[at]) - exact[at]), `entry ${at}`).toBeLessThan(
            tolerance * scale,
          );
      }
      const probe = Float64Array.from(v);
      const some = Int32Array.from([3, 70, 200]);
      for (const at of some) probe[at] -= 0.25;
      expect(Math.abs((await objective.lossAt(probe, some, some.length)) - layerLoss(p, probe))).toBeLessThan(
        tolerance * Math.abs(loss),
      );
      expect(Math.abs(objective.loss() - loss)).toBeLessThan(tolerance * Math.abs(loss)); // lossAt did not move it
      await objective.release();
    });
  }
  it("every watched entry changing each step (AdaRound's case: allChange, channels on their own blocks of G): the exact loss and gradient", async () => {
    const p = smallProblem(6, 63, 1, 200, 13);
    const k = 64,
      n = 6 * k;
    // A fifth of each channel watched: under the quarter at which a channel gets its own block.
    const watched = Uint8Array.from(seededFloats(n, 14), (x) => (x < 0.2 ? 1 : 0));
    const objective = await incrementalObjective(p, watched, undefined);
    const v = Float64Array.from(seededFloats(n, 15, -1, 1));
    let list = Int32Array.from({ length: n }, (_, i) => i).filter((at) => watched[at]);
    await objective.update(v, list, list.length, true); // the first update is a full product
    for (let round = 0; round < 30; round++) {
      const steps = seededFloats(list.length, 400 + round, -0.2, 0.2);
      list.forEach((at, q) => (v[at] += steps[q]));
      await objective.update(v, list, list.length, true);
      // Some leave (the blocks get rebuilt as the channels shrink).
      const leaving = list.filter((_, q) => seededFloats(1, 500 + round * 97 + q)[0] < 0.08);
      for (const at of leaving) {
        watched[at] = 0;
        objective.unwatch(at);
      }
      list = list.filter((at) => watched[at]);
    }
    const exact = new Float64Array(n);
    const loss = layerLoss(p, v, exact);
    expect(Math.abs(objective.loss() - loss)).toBeLessThan(1e-10 * Math.abs(loss));
    const scale = Math.max(...exact.map(Math.abs));
    for (const at of list)
      expect(Math.abs(2 * (objective.gv[at] - objective.cross[at]) - exact[at]), `entry ${at}`).toBeLessThan(
        1e-10 * scale,
      );
    // lossAt on the blocks does not move them: the next update is still exact.
    const probe = Float64Array.from(v);
    const some = list.slice(0, 5);
    for (const at of some) probe[at] -= 0.25;
    expect(Math.abs((await objective.lossAt(probe, some, some.length)) - layerLoss(p, probe))).toBeLessThan(
      1e-10 * Math.abs(loss),
    );
    list.forEach((at) => (v[at] += 0.01));
    await objective.update(v, list, list.length, true);
    const after = new Float64Array(n);
    expect(Math.abs(objective.loss() - layerLoss(p, v, after))).toBeLessThan(1e-10 * Math.abs(loss));
    for (const at of list)
      expect(
        Math.abs(2 * (objective.gv[at] - objective.cross[at]) - after[at]),
        `entry ${at} after lossAt`,
      ).toBeLessThan(1e-10 * scale);
    await objective.release();
  });
});

describe('lists compacted lazily (STALE_SHARE)', () => {
  for (const product of [undefined, nodeGramProduct]) {
    it(`give the loss, G v and lossAt of compacting at every step, bit for bit (${product ? 'onnxruntime-node' : 'TypeScript'} full product)`, async () => {
      // AdaRound's pattern: every watched entry changes each step (the full product early, the update and the
      // channels' blocks of G later), a few leave each step; then sparse changes and a lossAt.
      const p = smallProblem(8, 127, 1, 300, 17);
      const k = 128,
        n = 8 * k;
      const run = async (staleShare: number, blockMax = BLOCK_MAX) => {
        const watched = new Uint8Array(n).fill(1);
        const objective = await incrementalObjective(p, watched, product, staleShare, blockMax);
        const v = Float64Array.from(seededFloats(n, 18, -1, 1));
        let list = Int32Array.from({ length: n }, (_, i) => i);
        const seen: number[] = [];
        for (let round = 0; round < 60; round++) {
          const steps = seededFloats(list.length, 600 + round, -0.2, 0.2);
          list.forEach((at, q) => (v[at] += steps[q]));
          await objective.update(v, list, list.length, true);
          seen.push(objective.loss());
          for (const at of list) seen.push(objective.gv[at]);
          const leaving = list.filter((_, q) => seededFloats(1, 700 + round * 131 + q)[0] < 0.06);
          for (const at of leaving) {
            watched[at] = 0;
            objective.unwatch(at);
          }
          list = list.filter((at) => watched[at]);
        }
        const some = list.filter((_, q) => q % 7 === 0);
        for (let round = 0; round < 5; round++) {
          for (const at of some) v[at] -= 0.05;
          await objective.update(v, some, some.length);
          seen.push(objective.loss());
          for (const at of list) seen.push(objective.gv[at]);
          const probe = Float64Array.from(v);
          for (const at of some) probe[at] += 0.3;
          seen.push(await objective.lossAt(probe, some, some.length));
        }
        await objective.release();
        return { seen, left: list.length };
      };
      const eager = await run(0);
      expect(eager.left).toBeGreaterThan(0);
      expect(eager.left).toBeLessThan(n / 4); // the channels went onto their own blocks
      // Lazily, and with the blocks capped smaller (BLOCK_MAX) or none at all: the same values.
      for (const [staleShare, blockMax] of [
        [STALE_SHARE, BLOCK_MAX],
        [STALE_SHARE, 9],
        [0, 0],
      ]) {
        const other = await run(staleShare, blockMax);
        expect(other.seen.length).toBe(eager.seen.length);
        const differs = other.seen.findIndex((x, i) => !Object.is(x, eager.seen[i]));
        expect(differs, `value ${differs} differs (${staleShare}, ${blockMax})`).toBe(-1);
      }
    });
  }
});

describe('the choice between the update in place and the full product', () => {
  it('stops counting once the cost passes the limit, with the answer of summing every listed entry', () => {
    const k = 9;
    const channels = 6;
    const n = channels * k;
    const live = Int32Array.from({ length: channels }, (_, m) => (m * 5) % k);
    for (let seed = 1; seed <= 40; seed++) {
      const v = Float64Array.from(seededFloats(n, seed, -1, 1));
      const next = Float64Array.from(v);
      const r = seededFloats(n, seed + 1000);
      // Some entries move, some stay, some go from +0 to −0 (no change to the update: 0 − 0 = 0), NaN moves.
      for (let at = 0; at < n; at++) {
        if (r[at] < 0.4) next[at] += 0.25;
        else if (r[at] < 0.5) [v[at], next[at]] = [0, -0];
        else if (r[at] < 0.55) next[at] = NaN;
      }
      const changed = Int32Array.from({ length: n }, (_, i) => i).filter((_, i) => r[i] < 0.8);
      let total = 0;
      for (const at of changed) if (next[at] !== v[at]) total += live[(at / k) | 0] + 20;
      for (const limit of [0, 1, total - 1, total - 0.5, total, total + 0.5, 2 * total, Infinity]) {
        expect(updateCostPasses(next, changed, changed.length, v, live, k, limit)).toBe(total > limit);
      }
    }
  });
});

describe("the runtime product's input kept in step with the vector", () => {
  it('is at every product the float32 copy of the whole vector it multiplies (full products, updates, lossAt)', async () => {
    const p = smallProblem(8, 127, 1, 300, 19);
    const k = 128,
      n = 8 * k;
    const inputs: Float32Array[] = [];
    const recording: GramProductFactory = async (gram, width, rows) => {
      const inner = await nodeGramProduct(gram, width, rows);
      return {
        multiply: (v) => {
          inputs.push(Float32Array.from(v));
          return inner.multiply(v);
        },
        release: () => inner.release(),
      };
    };
    const watched = new Uint8Array(n).fill(1);
    const objective = await incrementalObjective(p, watched, recording);
    const v = Float64Array.from(seededFloats(n, 20, -1, 1));
    let list = Int32Array.from({ length: n }, (_, i) => i);
    let checked = 0;
    let inPlaceUpdates = 0;
    const expectInput = (vector: Float64Array) => {
      expect(inputs.length).toBeGreaterThan(checked);
      checked = inputs.length;
      expect(Array.from(inputs[inputs.length - 1])).toEqual(Array.from(Float32Array.from(vector)));
    };
    for (let round = 0; round < 40; round++) {
      const steps = seededFloats(list.length, 800 + round, -0.2, 0.2);
      list.forEach((at, q) => (v[at] += steps[q]));
      const before = inputs.length;
      await objective.update(v, list, list.length, true);
      if (inputs.length > before) expectInput(v);
      if (round % 3 === 1) {
        // A few sparse changes (the update in place), then the next round's full product.
        const some = list.filter((_, q) => q % 11 === 0);
        for (const at of some) v[at] -= 0.1;
        const inPlace = inputs.length;
        await objective.update(v, some, some.length);
        if (inputs.length > inPlace) expectInput(v);
        else inPlaceUpdates++;
      }
      if (round % 9 === 4) {
        // A probe of every entry (a full product on a copy).
        const probe = Float64Array.from(v);
        for (const at of list) probe[at] += 0.05;
        await objective.lossAt(probe, list, list.length);
        expectInput(probe);
      }
      const leaving = list.filter((_, q) => seededFloats(1, 900 + round * 131 + q)[0] < 0.05);
      for (const at of leaving) {
        watched[at] = 0;
        objective.unwatch(at);
      }
      list = list.filter((at) => watched[at]);
    }
    expect(checked).toBeGreaterThan(10);
    expect(inPlaceUpdates).toBeGreaterThan(0);
    await objective.release();
  });
});

describe('AdaRound and AdaQuant against the textbook loop', () => {
  const cases: [string, LayerProblem][] = [
    ['dense 12 × 40', smallProblem(12, 40, 1, 300, 21)],
    ['grouped 8 × 9 in 4 groups', smallProblem(8, 9, 4, 200, 31)],
  ];
  for (const [name, p] of cases) {
    it(`AdaRound, ${name}: the same rounding as stepping every weight`, async () => {
      const fast = await adaround(p, OPTIONS);
      const reference = adaroundReference(p, OPTIONS);
      expect(fast.codes, 'AdaRound changed some rounding').toBeDefined();
      expect(differing(fast.codes!, reference)).toBe(0);
    });
    it(`AdaQuant, ${name}: the same codes as the dense loop`, async () => {
      const options = { ...OPTIONS, iterations: 150, learningRate: 1e-3, updateBias: false };
      const fast = await adaquant(p, options);
      const reference = adaquantReference(p, options);
      expect(fast.codes, 'AdaQuant lowered the loss').toBeDefined();
      expect(differing(fast.codes!, reference)).toBe(0);
      expect(differing(reference, p.rows.layer.codes)).toBeGreaterThan(0); // codes did flip
    });
  }

  it('AdaRound with the runtime product (float32): within 1 % of the codes of the float64 loop, and its loss no worse than 0.1 % above', async () => {
    const p = smallProblem(16, 70, 1, 400, 41);
    const fast = await adaround(p, { ...OPTIONS, product: nodeGramProduct });
    const reference = adaroundReference(p, OPTIONS);
    expect(differing(fast.codes!, reference)).toBeLessThanOrEqual(Math.ceil(0.01 * reference.length));
    expect(fast.lossAfter).toBeLessThanOrEqual((await codesLoss(p, reference)) * 1.001);
  });
});
