/**
 * AdaRound (Nagel et al. 2020, "Up or Down? Adaptive Rounding for Post-Training Quantization"; Quark fast
 * finetune OptimAlgorithm 'adaround'): each weight keeps its scale and zero point and learns only whether it
 * rounds down or up. A continuous V per weight gives the rectified sigmoid h(V) = clip(σ(V)(ζ − γ) + γ, 0, 1)
 * (ζ = 1.1, γ = −0.1) and the soft weight s·clip(⌊w/s⌋ + h(V), q_min − z, q_max − z); Adam minimises the
 * layer's reconstruction error (layerProblem.ts) plus λ·Σ(1 − |2h(V) − 1|^β), β annealed from BetaRange[0]
 * to BetaRange[1] after the warm start, which drives every h to 0 or 1. The result is ⌊w/s⌋ + [h ≥ ½]:
 * every code is the floor or the ceiling of w/s (then saturated), never further. A weight whose h(V) is clipped
 * leaves the loop for good (see below), and the loss follows only the weights that changed (incrementalObjective.ts),
 * so a step costs what is still learning, not the whole layer. The per-weight arithmetic (h(V), the gradient, Adam)
 * runs on float32 state in a WebAssembly SIMD kernel (roundingKernel.ts). Pure.
 */
import type { LayerProblem } from './layerProblem.ts';
import { incrementalObjective, type IncrementalObjective } from './incrementalObjective.ts';
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
import { GAMMA, roundingState, ZETA, type RoundingState } from './roundingKernel.ts';

/** Early stop: checks of the hard rounding's loss without improvement before a layer stops. */
const PATIENCE = 3;

/** Learns the rounding of one layer. */
export async function adaround(p: LayerProblem, options: TuneOptions): Promise<LayerTuning> {
  const start = performance.now();
  const { layer: l, k, n, qmin, qmax } = tuningLayout(p);
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
  const r = roundingState(n);
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
  const curve: CurvePoint[] = [];
  const warm = Math.floor(options.warmStart * options.iterations);
  // The plateau stop (options.plateau) may end the warm start at warmEnd < warm; the annealing keeps its length, so
  // the layer then ends at `end` = iterations − (warm − warmEnd). Without it, warmEnd = warm and end = iterations.
  const plateau = options.plateau ?? 0;
  const window = plateauWindow(options.iterations);
  let warmEnd = warm;
  let end = options.iterations;
  let softMark = Infinity;
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
    for (let it = 0; it < end; it++) {
      if (it % 16 === 0) await cancelPoint(options.signal);
      const leaving = r.soft(active);
      for (let q = 0; q < active; q++) w[r.learning[q]] = r.w[q];
      await objective.update(w, r.learning, active, true);
      const annealing = it >= warmEnd && options.regParam > 0;
      const progress = annealing ? (it - warmEnd) / Math.max(1, end - warmEnd) : 0;
      const beta = options.betaRange[0] + (options.betaRange[1] - options.betaRange[0]) * progress;
      gradients(r, active, gv, cross);
      r.descend(active, it + 1, options.learningRate, annealing ? options.regParam : 0, beta);
      if (leaving > 0) active = pack(r, active, up, objective);
      done = it + 1;
      if (it % options.logPeriod === 0 || it === end - 1) curve.push({ iteration: it, loss: objective.loss() });
      if (plateau > 0 && it < warmEnd && (it + 1) % window === 0) {
        // Warm start: the soft loss (no rounding term yet) over the last window.
        const soft = objective.loss();
        if (flattened(softMark, soft, plateau)) {
          warmEnd = it + 1;
          end = options.iterations - (warm - warmEnd);
        } else softMark = soft;
      } else if (plateau > 0 && it >= warmEnd && (it + 1 - warmEnd) % window === 0) {
        // Annealing: the best hard rounding's loss over the last window.
        const hardLoss = await hardRoundingLoss();
        const flat = flattened(bestHard, hardLoss, plateau);
        if (hardLoss < bestHard) {
          bestHard = hardLoss;
          bestUp = rounding(bestUp ?? new Uint8Array(n));
        }
        if (flat) break;
      }
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
    if (bestUp && done === end && (await hardRoundingLoss()) <= bestHard) bestUp = undefined;
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

/** r = 2(Gv − c) at each of the first `active` learning weights: the reconstruction gradient with respect to the weight. */
function gradients(r: RoundingState, active: number, gv: Float64Array, cross: Float64Array): void {
  const { learning, r: out } = r;
  for (let q = 0; q < active; q++) {
    const at = learning[q];
    out[q] = 2 * (gv[at] - cross[at]);
  }
}

/**
 * After a step in which some h(V) was clipped (dh/dV = 0): each such weight's rounding (the sign of V after this
 * step, final) goes to `up`, the objective stops watching it, and the others (with their Adam moments) close up in
 * order, each run of staying weights between two leaving ones moved down at once (copyWithin) instead of one by one:
 * a few weights leave per step, so the moves were most of the cost. Returns the new count.
 */
export function pack(r: RoundingState, active: number, up: Uint8Array, objective: IncrementalObjective): number {
  const { learning, V, dhdv } = r;
  const moved = [learning, r.floor, r.scale, r.lo, r.hi, V, r.m, r.v];
  let kept = 0;
  let run = 0;
  for (let q = 0; q <= active; q++) {
    if (q < active && dhdv[q] !== 0) continue;
    // Weights run … q − 1 stay: they move down to kept (never over q, which still holds the leaving weight).
    if (q > run && kept !== run) for (const a of moved) a.copyWithin(kept, run, q);
    kept += q - run;
    run = q + 1;
    if (q === active) break;
    const at = learning[q];
    up[at] = V[q] >= 0 ? 1 : 0;
    objective.unwatch(at);
  }
  return kept;
}
