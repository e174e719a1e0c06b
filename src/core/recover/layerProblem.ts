/**
 * One layer's reconstruction problem in closed form. With a = [x_q, 1] (a quantized input row of one group
 * plus a constant for the bias) and t_m = x_f·w_f,m (what the float layer computes from the float input, bias
 * left out on both sides), the mean squared error of output channel m for weights ŵ and bias change d is
 *
 *     L_m = [ŵ; d]ᵀ G [ŵ; d] − 2 c_mᵀ [ŵ; d] + τ_m,   G = mean aaᵀ,  c_m = mean t_m·a,  τ_m = mean t_m²
 *
 * (t_m also carries the float bias minus the quantized bias, which the bias change can make up)
 * so after one pass over the gathered rows every optimizer step costs M·k² instead of rows·M·k, and the gradient
 * is exact over all rows (the reconstruction loss of AdaRound, Nagel et al. 2020, eq. 25, and of AdaQuant,
 * Hubara et al. 2021). The layer loss is Σ_m L_m: squared error summed over channels, averaged over rows.
 * Also the Adam optimizer both algorithms use; their inner loop keeps the loss in incrementalObjective.ts. Pure arithmetic.
 */
import type { LayerRows } from './layerData.ts';

export interface GroupProblem {
  /** Rows of the augmented input: inPerGroup + 1. */
  readonly k: number;
  /** k×k, row-major. */
  readonly gram: Float64Array;
  /** outPerGroup × k. */
  readonly cross: Float64Array;
  /** outPerGroup. */
  readonly targetSq: Float64Array;
}

export interface LayerProblem {
  readonly rows: LayerRows;
  readonly outPerGroup: number;
  readonly groups: readonly GroupProblem[];
}

/**
 * What the quantized layer should reproduce: 'float' is the float layer on the float input (it then also makes
 * up what upstream layers lost, AdaRound's asymmetric reconstruction), 'local' is the float weights on the
 * quantized input (only the layer's own quantization error), for layers whose upstream layers are tuned in the
 * same pass and would otherwise be compensated twice.
 */
export type ReconstructionTarget = 'float' | 'local';

/** Builds G, c and τ of every group from the gathered rows. */
export function buildLayerProblem(data: LayerRows, target: ReconstructionTarget = 'float'): LayerProblem {
  const targetRows = target === 'float' ? data.floatRows : data.quantRows;
  const { layer, rows, width } = data;
  const kg = layer.inPerGroup;
  const k = kg + 1;
  const outPerGroup = layer.outChannels / layer.groups;
  const groups: GroupProblem[] = [];
  const inv = 1 / Math.max(1, rows);
  // Column-major copies (one column per input, then the constant and the targets), so every entry of G and c is
  // one contiguous dot product over the rows: far kinder to the cache than rank-1 updates of G row by row.
  const cols = new Float64Array((k + outPerGroup) * rows);
  for (let g = 0; g < layer.groups; g++) {
    for (let r = 0; r < rows; r++) {
      const base = r * width + g * kg;
      for (let i = 0; i < kg; i++) cols[i * rows + r] = data.quantRows[base + i];
      cols[kg * rows + r] = 1;
    }
    const wf = new Float64Array(outPerGroup * kg);
    const offset = new Float64Array(outPerGroup);
    for (let j = 0; j < outPerGroup; j++) {
      const m = g * outPerGroup + j;
      for (let i = 0; i < kg; i++) wf[j * kg + i] = layer.floatWeight[layer.weightIndex(m, i)];
      // The float layer's bias minus the quantized one: a constant the quantized layer must also make up.
      offset[j] = layer.floatBias[m] - layer.bias[m];
    }
    for (let r = 0; r < rows; r++) {
      const base = r * width + g * kg;
      for (let j = 0; j < outPerGroup; j++) {
        let s = offset[j];
        const wj = j * kg;
        for (let i = 0; i < kg; i++) s += targetRows[base + i] * wf[wj + i];
        cols[(k + j) * rows + r] = s;
      }
    }
    const gram = new Float64Array(k * k);
    const cross = new Float64Array(outPerGroup * k);
    const targetSq = new Float64Array(outPerGroup);
    for (let i = 0; i < k; i++) {
      for (let j = i; j < k; j++) {
        const v = dot(cols, i * rows, j * rows, rows) * inv;
        gram[i * k + j] = v;
        gram[j * k + i] = v;
      }
    }
    for (let j = 0; j < outPerGroup; j++) {
      const tCol = (k + j) * rows;
      for (let i = 0; i < k; i++) cross[j * k + i] = dot(cols, tCol, i * rows, rows) * inv;
      targetSq[j] = dot(cols, tCol, tCol, rows) * inv;
    }
    groups.push({ k, gram, cross, targetSq });
  }
  return { rows: data, outPerGroup, groups };
}

function dot(a: Float64Array, x: number, y: number, n: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let r = 0;
  for (; r + 3 < n; r += 4) {
    s0 += a[x + r] * a[y + r];
    s1 += a[x + r + 1] * a[y + r + 1];
    s2 += a[x + r + 2] * a[y + r + 2];
    s3 += a[x + r + 3] * a[y + r + 3];
  }
  for (; r < n; r++) s0 += a[x + r] * a[y + r];
  return s0 + s1 + s2 + s3;
}

/**
 * Loss of the layer for augmented vectors `v` (outChannels × k: weights then bias change) and, when `grad` is
 * given, dL/dv written there. Returns Σ_m L_m. Exact (float64); the optimizers' inner loop is incrementalObjective.ts.
 */
export function layerLoss(p: LayerProblem, v: Float64Array, grad?: Float64Array): number {
  let total = 0;
  const k = p.groups[0]?.k ?? 0;
  const gv = new Float64Array(p.outPerGroup * k);
  for (let gi = 0; gi < p.groups.length; gi++) {
    multiplyGram(p.groups[gi].gram, k, v, gi * p.outPerGroup * k, p.outPerGroup, gv);
    total += groupTerms(p, gi, v, gv, grad);
  }
  return total;
}

/** gv_j = G v_j for `count` vectors starting at v[first]; row i of G stays in cache while every vector uses it. */
export function multiplyGram(gram: Float64Array, k: number, v: Float64Array, first: number, count: number, gv: Float64Array | Float32Array): void {
  for (let i = 0; i < k; i++) {
    const row = i * k;
    for (let j = 0; j < count; j++) {
      const off = first + j * k;
      let s0 = 0, s1 = 0;
      let l = 0;
      for (; l + 1 < k; l += 2) { s0 += gram[row + l] * v[off + l]; s1 += gram[row + l + 1] * v[off + l + 1]; }
      if (l < k) s0 += gram[row + l] * v[off + l];
      gv[j * k + i] = s0 + s1;
    }
  }
}

/** Σ over a group's channels of vᵀGv − 2cᵀv + τ given gv = G v (G is symmetric, so v·G = G v); fills grad. */
function groupTerms(p: LayerProblem, gi: number, v: Float64Array, gv: Float64Array | Float32Array, grad?: Float64Array): number {
  const { cross, targetSq, k } = p.groups[gi];
  const first = gi * p.outPerGroup * k;
  let total = 0;
  for (let j = 0; j < p.outPerGroup; j++) {
    const off = first + j * k;
    let quad = 0;
    let lin = 0;
    for (let i = 0; i < k; i++) { quad += v[off + i] * gv[j * k + i]; lin += cross[j * k + i] * v[off + i]; }
    total += quad - 2 * lin + targetSq[j];
    if (grad) for (let i = 0; i < k; i++) grad[off + i] = 2 * (gv[j * k + i] - cross[j * k + i]);
  }
  return total;
}

/** y = v·G for `rows` row vectors of length k (row-major float32), G fixed when the product was made. */
export interface GramProduct {
  multiply(v: Float32Array): Promise<Float32Array>;
  release(): Promise<void>;
}

/**
 * Makes a GramProduct for a k×k matrix and `rows` vectors per call: a runtime's MatMul (onnxruntime's is many
 * times faster than a TypeScript loop, see bench/README.md), injected so that this module stays runtime-free.
 */
export type GramProductFactory = (gram: Float32Array, k: number, rows: number) => Promise<GramProduct>;

/** Groups narrower than this stay in TypeScript: a runtime call costs more than the product (depthwise: k = 10). */
export const RUNTIME_PRODUCT_MIN_K = 48;

/** The layer's weights as augmented vectors: w(m, i) for i < k − 1, then the bias change (0). */
export function augmented(p: LayerProblem, weight: (m: number, i: number) => number): Float64Array {
  const { layer } = p.rows;
  const k = layer.inPerGroup + 1;
  const v = new Float64Array(layer.outChannels * k);
  for (let m = 0; m < layer.outChannels; m++) for (let i = 0; i < k - 1; i++) v[m * k + i] = weight(m, i);
  return v;
}

/** Adam (Kingma & Ba 2015) over one flat parameter vector, the optimizer Quark's fast finetune uses. */
export class Adam {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private t = 0;
  constructor(size: number, private readonly lr: number, private readonly beta1 = 0.9, private readonly beta2 = 0.999, private readonly eps = 1e-8) {
    this.m = new Float64Array(size);
    this.v = new Float64Array(size);
  }
  /** params −= lr · m̂ / (√v̂ + ε) for the `count` entries listed in `at`; the others keep their values and moments. */
  step(params: Float64Array, grad: Float64Array, at: Int32Array, count: number): void {
    this.t++;
    const c1 = 1 - this.beta1 ** this.t;
    const c2 = 1 - this.beta2 ** this.t;
    for (let q = 0; q < count; q++) {
      const i = at[q];
      const g = grad[i];
      this.m[i] = this.beta1 * this.m[i] + (1 - this.beta1) * g;
      this.v[i] = this.beta2 * this.v[i] + (1 - this.beta2) * g * g;
      params[i] -= (this.lr * (this.m[i] / c1)) / (Math.sqrt(this.v[i] / c2) + this.eps);
    }
  }
  /** Entry `from`'s moments move to entry `to` (for a caller that packs its parameters). */
  move(from: number, to: number): void {
    this.m[to] = this.m[from];
    this.v[to] = this.v[from];
  }
}
