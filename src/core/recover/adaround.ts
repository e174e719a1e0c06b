/**
 * AdaRound (Nagel et al. 2020, "Up or Down? Adaptive Rounding for Post-Training Quantization"; Quark fast
 * finetune OptimAlgorithm 'adaround'): each weight keeps its scale and zero point and learns only whether it
 * rounds down or up. A continuous V per weight gives the rectified sigmoid h(V) = clip(σ(V)(ζ − γ) + γ, 0, 1)
 * (ζ = 1.1, γ = −0.1) and the soft weight s·clip(⌊w/s⌋ + h(V), q_min − z, q_max − z); Adam minimises the
 * layer's reconstruction error (layerProblem.ts) plus λ·Σ(1 − |2h(V) − 1|^β), β annealed from BetaRange[0]
 * to BetaRange[1] after the warm start, which drives every h to 0 or 1. The result is ⌊w/s⌋ + [h ≥ ½]:
 * every code is the floor or the ceiling of w/s (then saturated), never further. Pure.
 */
import { Adam, layerObjective, type LayerProblem } from './layerProblem.ts';
import { throwIfCancelled } from './layerData.ts';
import { codesLoss, layerTuning, type CurvePoint, type LayerTuning, type TuneOptions } from './tuning.ts';
import { QUANT_TYPES } from '../quantize/numeric.ts';

const ZETA = 1.1;
const GAMMA = -0.1;
/** Early stop: checks of the hard rounding's loss without improvement before a layer stops. */
const PATIENCE = 3;
/** |V| from which h(V) is clipped: σ(V)(ζ − γ) + γ ∉ (0, 1) once |V| ≥ ln 11 ≈ 2.398. */
const SATURATED = 2.4;

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
  const learn = new Uint8Array(n);
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
      learn[at] = 1;
      // h(V) starts at the fractional part, so the soft weight starts at w itself (AdaRound's initialisation).
      const rest = Math.min(0.99, Math.max(0.01, x - f));
      V[at] = -Math.log((ZETA - GAMMA) / (rest - GAMMA) - 1);
    }
  }
  const lossBefore = codesLoss(p, l.codes);
  const objective = await layerObjective(p, options.product);
  const adam = new Adam(n, options.learningRate);
  const w = new Float64Array(n);
  const grad = new Float64Array(n);
  const dh = new Float64Array(n);
  const h = new Float64Array(n);
  const dhdv = new Float64Array(n); // dh/dV, 0 where h is clipped to 0 or 1
  const curve: CurvePoint[] = [];
  const warm = Math.floor(options.warmStart * options.iterations);
  // Early stop (options.earlyStop): every `check` iterations after the warm start, the loss of the hard rounding
  // (V ≥ 0) is scored; the best rounding seen is kept, and the layer stops once that loss has not improved for
  // PATIENCE checks in a row. The soft loss cannot serve: the rounding term drives it up while annealing.
  const check = Math.max(10, Math.floor(options.iterations / 20));
  let bestHard = lossBefore;
  let bestUp: Uint8Array | undefined;
  let sinceBest = 0;
  const hard = options.earlyStop ? new Float64Array(n) : undefined;
  const scratch = options.earlyStop ? new Float64Array(n) : undefined;
  /** The loss of the current hard rounding (⌊w/s⌋ + [V ≥ 0], saturated). */
  const hardRoundingLoss = () => {
    for (let at = 0; at < n; at++) {
      if (!learn[at]) { hard![at] = 0; continue; }
      const q = floor[at] + (V[at] >= 0 ? 1 : 0);
      hard![at] = scale[at] * (q < lo[at] ? lo[at] : q > hi[at] ? hi[at] : q);
    }
    return objective.evaluate(hard!, scratch!);
  };
  let done = 0;
  try {
    for (let it = 0; it < options.iterations; it++) {
      if (it % 16 === 0) throwIfCancelled(options.signal);
      for (let at = 0; at < n; at++) {
        if (!learn[at]) continue;
        const va = V[at];
        if (va <= -SATURATED || va >= SATURATED) {
          // h(V) is clipped to 0 or 1 here (σ(±2.4)·1.2 − 0.1 lies outside [0, 1]): no exp, and no gradient.
          const hv = va > 0 ? 1 : 0;
          h[at] = hv;
          dhdv[at] = 0;
          dh[at] = 0;
          const q = floor[at] + hv;
          w[at] = scale[at] * (q < lo[at] ? lo[at] : q > hi[at] ? hi[at] : q);
          continue;
        }
        const sig = 1 / (1 + Math.exp(-va));
        const raw = sig * (ZETA - GAMMA) + GAMMA;
        const hv = raw < 0 ? 0 : raw > 1 ? 1 : raw;
        h[at] = hv;
        dhdv[at] = hv > 0 && hv < 1 ? (ZETA - GAMMA) * sig * (1 - sig) : 0;
        const q = floor[at] + hv;
        const clipped = q < lo[at] || q > hi[at];
        w[at] = scale[at] * (clipped ? (q < lo[at] ? lo[at] : hi[at]) : q);
        dh[at] = raw <= 0 || raw >= 1 || clipped ? 0 : scale[at] * (ZETA - GAMMA) * sig * (1 - sig);
      }
      const loss = await objective.evaluate(w, grad);
      const annealing = it >= warm && options.regParam > 0;
      const progress = annealing ? (it - warm) / Math.max(1, options.iterations - warm) : 0;
      const beta = options.betaRange[0] + (options.betaRange[1] - options.betaRange[0]) * progress;
      for (let at = 0; at < n; at++) {
        if (!learn[at]) { grad[at] = 0; continue; }
        let g = grad[at] * dh[at];
        if (annealing && dhdv[at] !== 0) {
          // d/dV of λ(1 − |2h − 1|^β) = −λβ|2h − 1|^(β−1)·sign(2h − 1)·2·dh/dV.
          const u = 2 * h[at] - 1;
          if (u !== 0) g += -options.regParam * beta * Math.abs(u) ** (beta - 1) * Math.sign(u) * 2 * dhdv[at];
        }
        grad[at] = g;
      }
      adam.step(V, grad);
      done = it + 1;
      if (it % options.logPeriod === 0 || it === options.iterations - 1) curve.push({ iteration: it, loss });
      if (hard && scratch && it >= warm && (it - warm) % check === check - 1) {
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
