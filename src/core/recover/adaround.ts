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
import { incrementalObjective, type IncrementalObjective } from './incrementalObjective.ts';
import { cancelPoint } from './layerData.ts';
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
  // Per weight (flat, outChannels × k): ⌊w/s⌋, whether it rounds up, and the soft weight the objective reads.
  const floor = new Float64Array(n);
  const up = new Uint8Array(n).fill(1);
  const w = new Float64Array(n);
  const watched = new Uint8Array(n);
  // The weights still learning, packed in increasing order: position q holds weight r.learning[q] and its state. A
  // weight leaves for good once h(V) is clipped to 0 or 1: its gradient is 0 from then on, so Adam's momentum keeps
  // its sign and only carries V further out (the step is −lr·m̂/(√v̂ + ε) and m decays by β₁ each step), h(V) and the
  // weight never change again, and neither does the sign of V that decides the rounding. Dropping it changes
  // nothing, and packing keeps the loops over what is left dense. A weight whose floor lies at or past an end of the
  // grid is not learned at all: its soft and hard values are that end whatever h is.
  const r: Rounding = {
    learning: new Int32Array(n), floor: new Float64Array(n), scale: new Float64Array(n), lo: new Float64Array(n), hi: new Float64Array(n),
    V: new Float64Array(n), h: new Float64Array(n), dhdv: new Float64Array(n), dh: new Float64Array(n),
  };
  let active = 0;
  for (let m = 0; m < l.outChannels; m++) {
    const s = l.scaleOf(m);
    const z = l.zeroPointOf(m);
    for (let i = 0; i < l.inPerGroup; i++) {
      const at = m * k + i;
      const x = l.floatWeight[l.weightIndex(m, i)] / s;
      const f = Math.floor(x);
      floor[at] = f;
      if (f >= qmax - z || f + 1 <= qmin - z) {
        w[at] = s * (f >= qmax - z ? qmax - z : qmin - z);
        continue;
      }
      const q = active++;
      r.learning[q] = at;
      r.floor[q] = f;
      r.scale[q] = s;
      r.lo[q] = qmin - z;
      r.hi[q] = qmax - z;
      watched[at] = 1;
      // h(V) starts at the fractional part, so the soft weight starts at w itself (AdaRound's initialisation).
      const rest = Math.min(0.99, Math.max(0.01, x - f));
      r.V[q] = -Math.log((ZETA - GAMMA) / (rest - GAMMA) - 1);
    }
  }
  const lossBefore = await codesLoss(p, l.codes, undefined, options.dense);
  const objective = await incrementalObjective(p, watched, options.product);
  const { gv, cross } = objective;
  const adam = new Adam(n, options.learningRate);
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
      const x = r.floor[q] + (r.V[q] >= 0 ? 1 : 0);
      hard[r.learning[q]] = r.scale[q] * (x < r.lo[q] ? r.lo[q] : x > r.hi[q] ? r.hi[q] : x);
    }
    return objective.lossAt(hard, r.learning, active);
  };
  /** Every weight's rounding now: up[] for those that left, the sign of V for those still learning. */
  const rounding = (into: Uint8Array) => {
    into.set(up);
    for (let q = 0; q < active; q++) into[r.learning[q]] = r.V[q] >= 0 ? 1 : 0; // h(V) ≥ ½ exactly when V ≥ 0
    return into;
  };
  let done = 0;
  try {
    for (let it = 0; it < options.iterations; it++) {
      if (it % 16 === 0) await cancelPoint(options.signal);
      const leaving = softWeights(r, active, w);
      await objective.update(w, r.learning, active);
      const annealing = it >= warm && options.regParam > 0;
      const progress = annealing ? (it - warm) / Math.max(1, options.iterations - warm) : 0;
      const beta = options.betaRange[0] + (options.betaRange[1] - options.betaRange[0]) * progress;
      active = descend(r, active, gv, cross, annealing ? options.regParam : 0, beta, adam, leaving > 0 ? up : undefined, objective);
      done = it + 1;
      if (it % options.logPeriod === 0 || it === options.iterations - 1) curve.push({ iteration: it, loss: objective.loss() });
      if (options.earlyStop && it >= warm && (it - warm) % check === check - 1) {
        const hardLoss = await hardRoundingLoss();
        if (hardLoss < bestHard * (1 - 1e-4)) {
          bestHard = hardLoss;
          bestUp = rounding(bestUp ?? new Uint8Array(n));
          sinceBest = 0;
        } else if (++sinceBest >= PATIENCE) break;
      }
    }
    // Ran to the end: the last rounding wins unless a checked one was better.
    if (bestUp && done === options.iterations && (await hardRoundingLoss()) <= bestHard) bestUp = undefined;
  } finally {
    await objective.release();
  }

  const final = bestUp ?? rounding(new Uint8Array(n));
  const codes = Int32Array.from(l.codes);
  for (let m = 0; m < l.outChannels; m++) {
    const z = l.zeroPointOf(m);
    for (let i = 0; i < l.inPerGroup; i++) {
      const at = m * k + i;
      const q = floor[at] + final[at] + z;
      codes[l.weightIndex(m, i)] = q < qmin ? qmin : q > qmax ? qmax : q;
    }
  }
  return layerTuning(p, { lossBefore, curve, iterations: done, start }, codes, undefined, options.dense);
}

/** The state of the weights still learning, packed: position q is weight learning[q] (flat index, outChannels × k). */
interface Rounding {
  readonly learning: Int32Array;
  readonly floor: Float64Array;
  readonly scale: Float64Array;
  /** The grid's ends less the zero point. */
  readonly lo: Float64Array;
  readonly hi: Float64Array;
  readonly V: Float64Array;
  /** This step's h(V), dh/dV (0 where h is clipped to 0 or 1: the weight then leaves), dw/dV (0 also where the weight is clipped). */
  readonly h: Float64Array;
  readonly dhdv: Float64Array;
  readonly dh: Float64Array;
}

/**
 * h(V) and its derivatives for the first `active` learning weights, and their soft weights s·clip(⌊w/s⌋ + h(V))
 * into w (flat); returns how many have h clipped (they leave after this step). Synchronous and module-level, so
 * the optimizing compiler sees a plain loop.
 */
function softWeights(r: Rounding, active: number, w: Float64Array): number {
  const { learning, floor, scale, lo, hi, V, h, dhdv, dh } = r;
  let leaving = 0;
  for (let q = 0; q < active; q++) {
    const sig = 1 / (1 + Math.exp(-V[q]));
    const raw = sig * (ZETA - GAMMA) + GAMMA;
    const hv = raw < 0 ? 0 : raw > 1 ? 1 : raw;
    h[q] = hv;
    const x = floor[q] + hv;
    const clipped = x < lo[q] || x > hi[q];
    w[learning[q]] = scale[q] * (clipped ? (x < lo[q] ? lo[q] : hi[q]) : x);
    if (raw <= 0 || raw >= 1) {
      dhdv[q] = 0;
      dh[q] = 0;
      leaving++;
    } else {
      dhdv[q] = (ZETA - GAMMA) * sig * (1 - sig);
      dh[q] = clipped ? 0 : scale[q] * dhdv[q];
    }
  }
  return leaving;
}

/**
 * One step of the first `active` learning weights, in one pass: dLoss/dV (the reconstruction gradient 2(Gv − c),
 * flat, through dw/dV, plus, with λ > 0 (annealing), the rounding term's d/dV of λ(1 − |2h − 1|^β) =
 * −λβ|2h − 1|^(β−1)·sign(2h − 1)·2·dh/dV), Adam's update of V, and, when `up` is given (some h(V) was clipped this
 * step), the packing: a clipped weight's rounding (the sign of V after this step, final) goes to `up`, the objective
 * stops watching it, and the others (with their Adam moments) close up in order. Returns the new count.
 */
function descend(r: Rounding, active: number, gv: Float64Array, cross: Float64Array, lambda: number, beta: number, adam: Adam, up: Uint8Array | undefined, objective: IncrementalObjective): number {
  const { learning, floor, scale, lo, hi, V, h, dhdv, dh } = r;
  adam.next();
  let kept = 0;
  for (let q = 0; q < active; q++) {
    const at = learning[q];
    let g = 2 * (gv[at] - cross[at]) * dh[q];
    if (lambda > 0 && dhdv[q] !== 0) {
      const u = 2 * h[q] - 1;
      // |u|^(β−1) as exp((β−1)·ln|u|): half the cost of Math.pow in V8, the same to a few ulps.
      if (u !== 0) g -= lambda * beta * Math.exp((beta - 1) * Math.log(u < 0 ? -u : u)) * (u < 0 ? -1 : 1) * 2 * dhdv[q];
    }
    const next = adam.update(q, V[q], g);
    if (up === undefined) {
      V[q] = next;
      continue;
    }
    if (dhdv[q] === 0) {
      up[at] = next >= 0 ? 1 : 0;
      objective.unwatch(at);
      continue;
    }
    if (kept !== q) {
      learning[kept] = at;
      floor[kept] = floor[q];
      scale[kept] = scale[q];
      lo[kept] = lo[q];
      hi[kept] = hi[q];
      adam.move(q, kept);
    }
    V[kept] = next;
    kept++;
  }
  return up === undefined ? active : kept;
}
