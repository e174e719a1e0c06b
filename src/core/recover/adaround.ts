/**
 * AdaRound (Nagel et al. 2020, "Up or Down? Adaptive Rounding for Post-Training Quantization"; Quark fast
 * finetune OptimAlgorithm 'adaround'): each weight keeps its scale and zero point and learns only whether it
 * rounds down or up. A continuous V per weight gives the rectified sigmoid h(V) = clip(σ(V)(ζ − γ) + γ, 0, 1)
 * (ζ = 1.1, γ = −0.1) and the soft weight s·clip(⌊w/s⌋ + h(V), q_min − z, q_max − z); Adam minimises the
 * layer's reconstruction error (layerProblem.ts) plus λ·Σ(1 − |2h(V) − 1|^β), β annealed from BetaRange[0]
 * to BetaRange[1] after the warm start, which drives every h to 0 or 1. The result is ⌊w/s⌋ + [h ≥ ½]:
 * every code is the floor or the ceiling of w/s (then saturated), never further. A weight whose h(V) is clipped
 * leaves the loop for good (see below), and the loss follows only the weights that changed (incrementalObjective.ts),
 * so a step costs what is still learning, not the whole layer. Pure.
 */
import { Adam, type LayerProblem } from './layerProblem.ts';
import { incrementalObjective } from './incrementalObjective.ts';
import { throwIfCancelled } from './layerData.ts';
import { codesLoss, layerTuning, type CurvePoint, type LayerTuning, type TuneOptions } from './tuning.ts';
import { QUANT_TYPES } from '../quantize/numeric.ts';

const ZETA = 1.1;
const GAMMA = -0.1;
/** Early stop: checks of the hard rounding's loss without improvement before a layer stops. */
const PATIENCE = 3;

/** Learns the rounding of one layer. */
export async function adaround(p: LayerProblem, options: TuneOptions): Promise<LayerTuning> {
  const start = performance.now();
  const l = p.rows.layer;
  const k = l.inPerGroup + 1;
  const n = l.outChannels * k;
  const { min: qmin, max: qmax } = QUANT_TYPES[l.type];
  const floor = new Float64Array(n);
  const scale = new Float64Array(n);
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const V = new Float64Array(n);
  const w = new Float64Array(n);
  // The weights still learning, in increasing order. A weight leaves for good once h(V) is clipped to 0 or 1: its
  // gradient is 0 from then on, so Adam's momentum keeps its sign and only carries V further out (the step is
  // −lr·m̂/(√v̂ + ε) and m decays by β₁ each step), h(V) and the weight never change again, and neither does the sign
  // of V that decides the rounding. Skipping it changes nothing. A weight whose floor lies at or past an end of the
  // grid is not learned at all: its soft and hard values are that end whatever h is.
  const learning = new Int32Array(n);
  const watched = new Uint8Array(n);
  let active = 0;
  for (let m = 0; m < l.outChannels; m++) {
    const s = l.scaleOf(m);
    const z = l.zeroPointOf(m);
    for (let i = 0; i < l.inPerGroup; i++) {
      const at = m * k + i;
      const x = l.floatWeight[l.weightIndex(m, i)] / s;
      const f = Math.floor(x);
      floor[at] = f;
      scale[at] = s;
      lo[at] = qmin - z;
      hi[at] = qmax - z;
      if (f >= hi[at] || f + 1 <= lo[at]) {
        w[at] = s * (f >= hi[at] ? hi[at] : lo[at]);
        continue;
      }
      learning[active++] = at;
      watched[at] = 1;
      // h(V) starts at the fractional part, so the soft weight starts at w itself (AdaRound's initialisation).
      const rest = Math.min(0.99, Math.max(0.01, x - f));
      V[at] = -Math.log((ZETA - GAMMA) / (rest - GAMMA) - 1);
    }
  }
  const lossBefore = codesLoss(p, l.codes);
  const objective = await incrementalObjective(p, watched, options.product);
  const { gv, cross } = objective;
  const adam = new Adam(n, options.learningRate);
  const grad = new Float64Array(n);
  const dh = new Float64Array(n); // dw/dV, 0 where h or the weight is clipped
  const h = new Float64Array(n);
  const dhdv = new Float64Array(n); // dh/dV, 0 where h is clipped to 0 or 1
  const rounding: Rounding = { learning, floor, scale, lo, hi, V, w, h, dhdv, dh };
  const curve: CurvePoint[] = [];
  const warm = Math.floor(options.warmStart * options.iterations);
  // Early stop (options.earlyStop): every `check` iterations after the warm start, the loss of the hard rounding
  // (V ≥ 0) is scored; the best rounding seen is kept, and the layer stops once that loss has not improved for
  // PATIENCE checks in a row. The soft loss cannot serve: the rounding term drives it up while annealing.
  const check = Math.max(10, Math.floor(options.iterations / 20));
  let bestHard = lossBefore;
  let bestUp: Uint8Array | undefined;
  let sinceBest = 0;
  const hard = new Float64Array(n);
  /** The loss of the current hard rounding (⌊w/s⌋ + [V ≥ 0], saturated): it differs from w only where still learning. */
  const hardRoundingLoss = () => {
    for (let q = 0; q < active; q++) {
      const at = learning[q];
      const r = floor[at] + (V[at] >= 0 ? 1 : 0);
      hard[at] = scale[at] * (r < lo[at] ? lo[at] : r > hi[at] ? hi[at] : r);
    }
    return objective.lossAt(hard, learning, active);
  };
  let done = 0;
  try {
    for (let it = 0; it < options.iterations; it++) {
      if (it % 16 === 0) throwIfCancelled(options.signal);
      const leaving = softWeights(rounding, active);
      await objective.update(w, learning, active);
      const annealing = it >= warm && options.regParam > 0;
      const progress = annealing ? (it - warm) / Math.max(1, options.iterations - warm) : 0;
      const beta = options.betaRange[0] + (options.betaRange[1] - options.betaRange[0]) * progress;
      gradient(rounding, active, gv, cross, annealing ? options.regParam : 0, beta, grad);
      adam.step(V, grad, learning, active);
      if (leaving > 0) {
        let kept = 0;
        for (let q = 0; q < active; q++) {
          const at = learning[q];
          if (dhdv[at] === 0) objective.unwatch(at); // h(V) clipped this step: it leaves
          else learning[kept++] = at;
        }
        active = kept;
      }
      done = it + 1;
      if (it % options.logPeriod === 0 || it === options.iterations - 1) curve.push({ iteration: it, loss: objective.loss() });
      if (options.earlyStop && it >= warm && (it - warm) % check === check - 1) {
        const hardLoss = await hardRoundingLoss();
        if (hardLoss < bestHard * (1 - 1e-4)) {
          bestHard = hardLoss;
          bestUp ??= new Uint8Array(n);
          for (let at = 0; at < n; at++) bestUp[at] = V[at] >= 0 ? 1 : 0;
          sinceBest = 0;
        } else if (++sinceBest >= PATIENCE) break;
      }
    }
    // Ran to the end: the last rounding wins unless a checked one was better.
    if (bestUp && done === options.iterations && (await hardRoundingLoss()) <= bestHard) bestUp = undefined;
  } finally {
    await objective.release();
  }

  const codes = Int32Array.from(l.codes);
  for (let m = 0; m < l.outChannels; m++) {
    const z = l.zeroPointOf(m);
    for (let i = 0; i < l.inPerGroup; i++) {
      const at = m * k + i;
      const up = bestUp ? bestUp[at] : V[at] >= 0 ? 1 : 0; // h(V) ≥ ½ exactly when V ≥ 0
      const q = floor[at] + up + z;
      codes[l.weightIndex(m, i)] = q < qmin ? qmin : q > qmax ? qmax : q;
    }
  }
  return layerTuning(p, { lossBefore, curve, iterations: done, start }, codes);
}

/** AdaRound's per-weight state (flat, outChannels × k), the weights still learning first in `learning`. */
interface Rounding {
  readonly learning: Int32Array;
  readonly floor: Float64Array;
  readonly scale: Float64Array;
  readonly lo: Float64Array;
  readonly hi: Float64Array;
  readonly V: Float64Array;
  /** The soft weight s·clip(⌊w/s⌋ + h(V)). */
  readonly w: Float64Array;
  readonly h: Float64Array;
  /** dh/dV, 0 where h is clipped to 0 or 1 (the weight then leaves). */
  readonly dhdv: Float64Array;
  /** dw/dV, 0 where h or the weight is clipped. */
  readonly dh: Float64Array;
}

/**
 * h(V), the soft weights and their derivatives for the first `active` learning weights; returns how many have h
 * clipped (they leave after this step). Synchronous and module-level, so the optimizing compiler sees a plain loop.
 */
function softWeights(r: Rounding, active: number): number {
  const { learning, floor, scale, lo, hi, V, w, h, dhdv, dh } = r;
  let leaving = 0;
  for (let q = 0; q < active; q++) {
    const at = learning[q];
    const sig = 1 / (1 + Math.exp(-V[at]));
    const raw = sig * (ZETA - GAMMA) + GAMMA;
    const hv = raw < 0 ? 0 : raw > 1 ? 1 : raw;
    h[at] = hv;
    const x = floor[at] + hv;
    const clipped = x < lo[at] || x > hi[at];
    w[at] = scale[at] * (clipped ? (x < lo[at] ? lo[at] : hi[at]) : x);
    if (raw <= 0 || raw >= 1) {
      dhdv[at] = 0;
      dh[at] = 0;
      leaving++;
    } else {
      dhdv[at] = (ZETA - GAMMA) * sig * (1 - sig);
      dh[at] = clipped ? 0 : scale[at] * dhdv[at];
    }
  }
  return leaving;
}

/**
 * dLoss/dV of the first `active` learning weights into `grad`: the reconstruction gradient 2(Gv − c) through dw/dV,
 * plus, with λ > 0 (annealing), the rounding term's d/dV of λ(1 − |2h − 1|^β) = −λβ|2h − 1|^(β−1)·sign(2h − 1)·2·dh/dV.
 */
function gradient(r: Rounding, active: number, gv: Float64Array, cross: Float64Array, lambda: number, beta: number, grad: Float64Array): void {
  const { learning, h, dhdv, dh } = r;
  for (let q = 0; q < active; q++) {
    const at = learning[q];
    let g = 2 * (gv[at] - cross[at]) * dh[at];
    if (lambda > 0 && dhdv[at] !== 0) {
      const u = 2 * h[at] - 1;
      if (u !== 0) g -= lambda * beta * Math.abs(u) ** (beta - 1) * Math.sign(u) * 2 * dhdv[at];
    }
    grad[at] = g;
  }
}
