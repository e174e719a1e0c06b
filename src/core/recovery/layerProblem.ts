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
 * Also the Adam optimizer (AdaQuant's; AdaRound runs the same arithmetic in float32, roundingKernel.ts); their
 * inner loop keeps the loss in incrementalObjective.ts. Pure arithmetic.
 */
import type { LayerRows } from './layerData.ts';
import { DENSE_RUNTIME_MIN_WORK, type DenseProduct } from './denseProduct.ts';
import type { GramFactor } from './gramModel.ts';

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

/**
 * How c and τ are summed: 'targets' forms every channel's target over the rows, 'moments' forms the input moments once
 * and each channel's c and τ from them (problemForm). Equal up to the order of summation.
 */
export type ProblemForm = 'targets' | 'moments';

/** Builds G, c and τ of every group from the gathered rows, in TypeScript. */
export function buildLayerProblem(
  data: LayerRows,
  target: ReconstructionTarget = 'float',
  form: ProblemForm = problemForm(data),
): LayerProblem {
  const { layer } = data;
  if (form === 'targets' && layer.groups > 1) return groupedProblemByRowChunks(data, target);
  const groups: GroupProblem[] = [];
  const build = form === 'moments' ? groupProblemByMoments : groupProblem;
  for (const [g, at] of groupRows(data, target)) groups.push(build(data, target, g, at));
  return { rows: data, outPerGroup: layer.outChannels / layer.groups, groups };
}

/** Where group g's input rows sit: row r's values, quantized and those the target is computed from, start at r·width + offset. */
interface GroupRows {
  readonly quant: Float32Array;
  readonly target: Float32Array;
  readonly width: number;
  readonly offset: number;
  /** A buffer of `length` values shared by the layer's groups, for one group's column copies (it overwrites all it reads). */
  readonly columns: (length: number) => Float64Array;
}

/** Values per row of the contiguous copies groupRows makes for grouped layers (a few cache lines a row). */
const GROUP_BLOCK_VALUES = 256;

/**
 * Every group with where its rows sit, in order. A grouped layer (depthwise: 480 groups of 25 inputs over 2048 rows on the
 * PP-OCRv4 recognizer) would otherwise read each group's few values from rows thousands of values apart, a cache and
 * TLB miss per row and group, which cost more than the arithmetic: runs of groups are first copied out together, row
 * after row, into rows GROUP_BLOCK_VALUES wide. The values are the same float32 numbers, so every sum is unchanged.
 */
function* groupRows(data: LayerRows, target: ReconstructionTarget): Generator<[number, GroupRows]> {
  const { layer, rows, width } = data;
  const kg = layer.inPerGroup;
  const { targetRows } = shapeOf(data, target);
  let scratch = new Float64Array(0);
  const columns = (length: number) =>
    (scratch.length >= length ? scratch : (scratch = new Float64Array(length))).subarray(0, length);
  if (layer.groups === 1) {
    yield [0, { quant: data.quantRows, target: targetRows, width, offset: 0, columns }];
    return;
  }
  const perBlock = Math.max(1, Math.floor(GROUP_BLOCK_VALUES / kg));
  // One pair of block buffers for the layer: a group is done with before the next is asked for.
  const quantBlock = new Float32Array(rows * perBlock * kg);
  const targetBlock = targetRows === data.quantRows ? quantBlock : new Float32Array(rows * perBlock * kg);
  for (let first = 0; first < layer.groups; first += perBlock) {
    const count = Math.min(perBlock, layer.groups - first);
    const blockWidth = count * kg;
    const copy = (from: Float32Array, out: Float32Array) => {
      for (let r = 0; r < rows; r++)
        out.set(from.subarray(r * width + first * kg, r * width + first * kg + blockWidth), r * blockWidth);
      return out;
    };
    const quant = copy(data.quantRows, quantBlock);
    const targetCopy = targetBlock === quantBlock ? quant : copy(targetRows, targetBlock);
    for (let j = 0; j < count; j++)
      yield [first + j, { quant, target: targetCopy, width: blockWidth, offset: j * kg, columns }];
  }
}

/** Rows per chunk of groupedProblemByRowChunks: one group's columns for a chunk (k + outPerGroup of them) stay in L1. */
const ROW_CHUNK = 64;

/**
 * Every group's problem (targets form) of a grouped layer, the rows taken a chunk at a time: per chunk and group, its
 * columns (x_q, the constant, each channel's target) are copied out of the rows once into a small buffer, and every
 * sum of G, c and τ carries on from where the last chunk left it. Each sum then adds the same products in the same
 * order as groupProblem's, so G, c and τ are equal to groupProblem's bit for bit; but groupProblem first copied each run
 * of groups out of every row (rows thousands of values apart) and then each group into float64 columns as long as the
 * rows, which cost as much as the sums on the recognizer's depthwise layers (480 groups of 25 over 2048 rows).
 */
function groupedProblemByRowChunks(data: LayerRows, target: ReconstructionTarget): LayerProblem {
  const { rows, width, kg, k, outPerGroup, inv, targetRows } = shapeOf(data, target);
  const { layer, quantRows: quant } = data;
  const cols = k + outPerGroup;
  const chunk = new Float64Array(cols * ROW_CHUNK);
  const weights = Array.from({ length: layer.groups }, (_, g) => groupWeights(data, g));
  const grams = weights.map(() => new Float64Array(k * k));
  const crosses = weights.map(() => new Float64Array(outPerGroup * k));
  // τ's sums as dot() makes them: four interleaved partial sums, rows past the last multiple of four into the first.
  const stripes = weights.map(() => new Float64Array(outPerGroup * 4));
  const striped = rows - (rows % 4);
  for (let first = 0; first < rows; first += ROW_CHUNK) {
    const n = Math.min(ROW_CHUNK, rows - first);
    for (let g = 0; g < layer.groups; g++) {
      const { wf, offset } = weights[g];
      // Column i of the chunk at chunk[i·ROW_CHUNK …]: x_q's kg columns, the ones, then each channel's target.
      for (let r = 0; r < n; r++) {
        const base = (first + r) * width + g * kg;
        for (let i = 0; i < kg; i++) chunk[i * ROW_CHUNK + r] = quant[base + i];
        chunk[kg * ROW_CHUNK + r] = 1;
        for (let j = 0; j < outPerGroup; j++) {
          let t = 0;
          for (let i = 0; i < kg; i++) t += targetRows[base + i] * wf[j * kg + i];
          chunk[(k + j) * ROW_CHUNK + r] = offset[j] + t;
        }
      }
      const gram = grams[g];
      // G's upper triangle (entry a ≤ b at a·k + b), two columns against two.
      for (let a = 0; a < k; a += 2) {
        const a1 = Math.min(a + 1, k - 1);
        for (let b = a; b < k; b += 2) {
          const b1 = Math.min(b + 1, k - 1);
          const at10 = a1 <= b ? a1 * k + b : b * k + a1;
          accumulate2x2(chunk, a, a1, b, b1, n, gram, a * k + b, a * k + b1, at10, a1 * k + b1);
        }
      }
      const cross = crosses[g];
      for (let j = 0; j < outPerGroup; j += 2) {
        const j1 = Math.min(j + 1, outPerGroup - 1);
        for (let b = 0; b < k; b += 2) {
          const b1 = Math.min(b + 1, k - 1);
          accumulate2x2(chunk, k + j, k + j1, b, b1, n, cross, j * k + b, j * k + b1, j1 * k + b, j1 * k + b1);
        }
      }
      const stripe = stripes[g];
      for (let j = 0; j < outPerGroup; j++) {
        const col = (k + j) * ROW_CHUNK;
        for (let r = 0; r < n; r++) {
          const at = first + r;
          const v = chunk[col + r];
          stripe[j * 4 + (at < striped ? at & 3 : 0)] += v * v;
        }
      }
    }
  }
  const groups: GroupProblem[] = grams.map((gram, g) => {
    for (let a = 0; a < k; a++) {
      for (let b = a; b < k; b++) {
        const v = gram[a * k + b] * inv;
        gram[b * k + a] = v;
        gram[a * k + b] = v;
      }
    }
    const cross = crosses[g];
    for (let i = 0; i < cross.length; i++) cross[i] *= inv;
    const stripe = stripes[g];
    const targetSq = new Float64Array(outPerGroup);
    for (let j = 0; j < outPerGroup; j++)
      targetSq[j] = (stripe[j * 4] + stripe[j * 4 + 1] + stripe[j * 4 + 2] + stripe[j * 4 + 3]) * inv;
    return { k, gram, cross, targetSq };
  });
  return { rows: data, outPerGroup, groups };
}

/**
 * Sums carried on over a chunk's rows (columns x0, x1 against y0, y1 of `chunk`, ROW_CHUNK apart, n rows): the four
 * sums start from `into` at i00, i01, i10, i11 and are written back there. Indices may repeat (a column paired with
 * itself, or x1 = x0 at an odd end): every sum sharing an index adds the same products, so all write the same value.
 */
function accumulate2x2(
  chunk: Float64Array,
  x0: number,
  x1: number,
  y0: number,
  y1: number,
  n: number,
  into: Float64Array,
  i00: number,
  i01: number,
  i10: number,
  i11: number,
): void {
  let s00 = into[i00],
    s01 = into[i01],
    s10 = into[i10],
    s11 = into[i11];
  const p0 = x0 * ROW_CHUNK,
    p1 = x1 * ROW_CHUNK,
    q0 = y0 * ROW_CHUNK,
    q1 = y1 * ROW_CHUNK;
  for (let r = 0; r < n; r++) {
    const p = chunk[p0 + r],
      q = chunk[p1 + r],
      u = chunk[q0 + r],
      v = chunk[q1 + r];
    s00 += p * u;
    s01 += p * v;
    s10 += q * u;
    s11 += q * v;
  }
  into[i00] = s00;
  into[i01] = s01;
  into[i10] = s10;
  into[i11] = s11;
}

/**
 * 'moments' where c and τ are cheaper from the input moments than from the targets: per row the targets cost outPerGroup·(kg
 * + k) multiply-adds, the moments H = mean x aᵀ and F = mean x xᵀ kg·(k + kg) per row and once more per channel
 * (c_m = w_mᵀH + offset_m·mean a, τ_m = w_mᵀFw_m + 2·offset_m·w_mᵀ mean x + offset_m²). Wide layers (the
 * recognizer's 6625-output head, 1×1 convolutions widening their input) gain up to outPerGroup / kg; the two forms
 * are equal up to the order of summation.
 */
export function problemForm(data: LayerRows): ProblemForm {
  const { layer, rows } = data;
  const outPerGroup = layer.outChannels / layer.groups;
  return (rows + outPerGroup) * layer.inPerGroup < rows * outPerGroup ? 'moments' : 'targets';
}

/**
 * Groups of a grouped layer narrower than this build in TypeScript whatever their rows: three runtime calls per group
 * cost more than the sums (the recognizer's depthwise layers, 480 groups of k = 26 over 2048 rows: 1.3 CPU s on the
 * runtime, 0.8 in TypeScript).
 */
export const DENSE_RUNTIME_MIN_GROUP_K = 48;

/**
 * The same problem with the large groups' sums on a runtime's float64 MatMul (denseProduct.ts): equal to
 * buildLayerProblem's up to the order of summation. Groups under DENSE_RUNTIME_MIN_WORK, and the narrow groups of
 * grouped layers (DENSE_RUNTIME_MIN_GROUP_K), stay in TypeScript.
 */
export async function buildLayerProblemOn(
  data: LayerRows,
  target: ReconstructionTarget,
  product: DenseProduct | undefined,
  form: ProblemForm = problemForm(data),
): Promise<LayerProblem> {
  const { layer, rows } = data;
  const k = layer.inPerGroup + 1;
  const small = rows * k * k < DENSE_RUNTIME_MIN_WORK || (layer.groups > 1 && k < DENSE_RUNTIME_MIN_GROUP_K);
  if (!product || small) return buildLayerProblem(data, target, form);
  const groups: GroupProblem[] = [];
  const build = form === 'moments' ? groupProblemByMomentsOn : groupProblemOn;
  for (const [g, where] of groupRows(data, target)) groups.push(await build(data, target, g, where, product));
  return { rows: data, outPerGroup: layer.outChannels / layer.groups, groups };
}

/** The rows the target is computed from, and the sizes every group shares (inv: 1 / rows, for the means). */
function shapeOf(data: LayerRows, target: ReconstructionTarget) {
  const { layer, rows, width } = data;
  const kg = layer.inPerGroup;
  return {
    targetRows: target === 'float' ? data.floatRows : data.quantRows,
    rows,
    width,
    kg,
    k: kg + 1,
    outPerGroup: layer.outChannels / layer.groups,
    inv: 1 / Math.max(1, rows),
  };
}

/** Group g's float weights (outPerGroup × kg, float64) and the constant each channel must make up (float bias − quantized bias). */
function groupWeights(data: LayerRows, g: number) {
  const { layer } = data;
  const kg = layer.inPerGroup;
  const outPerGroup = layer.outChannels / layer.groups;
  const wf = new Float64Array(outPerGroup * kg);
  const offset = new Float64Array(outPerGroup);
  for (let j = 0; j < outPerGroup; j++) {
    const m = g * outPerGroup + j;
    for (let i = 0; i < kg; i++) wf[j * kg + i] = layer.floatWeight[layer.weightIndex(m, i)];
    // The float layer's bias minus the quantized one: a constant the quantized layer must also make up.
    offset[j] = layer.floatBias[m] - layer.bias[m];
  }
  return { wf, offset };
}

/**
 * The group's rows as column-major columns in its scratch buffer (`length` entries): the kg columns of x_q, the
 * constant column of ones, and with `withTargets` the kg columns of x after them (column k + i).
 */
function inputColumns(at: GroupRows, rows: number, kg: number, length: number, withTargets: boolean): Float64Array {
  const { quant, target, width, offset } = at;
  const cols = at.columns(length);
  const k = kg + 1;
  for (let r = 0; r < rows; r++) {
    const base = r * width + offset;
    for (let i = 0; i < kg; i++) cols[i * rows + r] = quant[base + i];
    cols[kg * rows + r] = 1;
    if (withTargets) for (let i = 0; i < kg; i++) cols[(k + i) * rows + r] = target[base + i];
  }
  return cols;
}

/** Group g's problem in TypeScript. */
function groupProblem(data: LayerRows, target: ReconstructionTarget, g: number, at: GroupRows): GroupProblem {
  const { rows, kg, k, outPerGroup, inv } = shapeOf(data, target);
  const { target: targetRows, width, offset: start } = at;
  // Column-major copies (one column per input, then the constant and the targets), so every entry of G and c is
  // one contiguous dot product over the rows: far kinder to the cache than rank-1 updates of G row by row.
  const cols = inputColumns(at, rows, kg, (k + outPerGroup) * rows, false);
  const { wf, offset } = groupWeights(data, g);
  const four = new Float64Array(4);
  // Two rows against two channels at a time (each value loaded serves two products).
  for (let r = 0; r < rows; r += 2) {
    const r1 = Math.min(r + 1, rows - 1);
    const b0 = r * width + start;
    const b1 = r1 * width + start;
    for (let j = 0; j < outPerGroup; j += 2) {
      const j1 = Math.min(j + 1, outPerGroup - 1);
      dots2x2(targetRows, b0, b1, wf, j * kg, j1 * kg, kg, four);
      cols[(k + j) * rows + r] = offset[j] + four[0];
      cols[(k + j1) * rows + r] = offset[j1] + four[1];
      cols[(k + j) * rows + r1] = offset[j] + four[2];
      cols[(k + j1) * rows + r1] = offset[j1] + four[3];
    }
  }
  const gram = columnMeans(cols, rows, inv, [0, k], [0, k], 'symmetric', four);
  const cross = columnMeans(cols, rows, inv, [k, outPerGroup], [0, k], 'full', four);
  const targetSq = new Float64Array(outPerGroup);
  for (let j = 0; j < outPerGroup; j++) targetSq[j] = dot(cols, (k + j) * rows, (k + j) * rows, rows) * inv;
  return { k, gram, cross, targetSq };
}

/**
 * The na × nb means (over the rows) of the column-major columns a0 … a0+na−1 against b0 … b0+nb−1 (row a of the
 * result for column a0+a), two columns against two at a time: each value loaded serves two products. 'symmetric'
 * (the same columns on both sides): only the upper triangle's products are made, each mirrored below.
 */
function columnMeans(
  cols: Float64Array,
  rows: number,
  inv: number,
  [a0, na]: readonly [number, number],
  [b0, nb]: readonly [number, number],
  form: 'symmetric' | 'full',
  four: Float64Array,
): Float64Array {
  const out = new Float64Array(na * nb);
  const mirror = form === 'symmetric';
  // Entry (a, b), and with `mirror` (b, a) first, as one chained assignment would.
  const put = (a: number, b: number, v: number) => {
    if (mirror) out[b * nb + a] = v;
    out[a * nb + b] = v;
  };
  for (let a = 0; a < na; a += 2) {
    const a1 = Math.min(a + 1, na - 1);
    for (let b = mirror ? a : 0; b < nb; b += 2) {
      const b1 = Math.min(b + 1, nb - 1);
      dots2x2(cols, (a0 + a) * rows, (a0 + a1) * rows, cols, (b0 + b) * rows, (b0 + b1) * rows, rows, four);
      put(a, b, four[0] * inv);
      put(a, b1, four[1] * inv);
      put(a1, b, four[2] * inv);
      put(a1, b1, four[3] * inv);
    }
  }
  return out;
}

/**
 * Group g's matrices for the runtime's products: A = [x_q, 1] (rows × k) and Aᵀ; X, the rows the target is computed
 * from (rows × kg), and Xᵀ where the moments form asks for it.
 */
function groupMatrices(
  data: LayerRows,
  target: ReconstructionTarget,
  where: GroupRows,
  withXt: boolean,
): { a: Float64Array; at: Float64Array; x: Float64Array; xt: Float64Array } {
  const { rows, kg, k } = shapeOf(data, target);
  const { quant, target: targetRows, width, offset } = where;
  const a = new Float64Array(rows * k);
  const at = new Float64Array(k * rows);
  const x = new Float64Array(rows * kg);
  const xt = new Float64Array(withXt ? kg * rows : 0);
  for (let r = 0; r < rows; r++) {
    const base = r * width + offset;
    for (let i = 0; i < kg; i++) {
      const q = quant[base + i];
      const v = targetRows[base + i];
      a[r * k + i] = q;
      at[i * rows + r] = q;
      x[r * kg + i] = v;
      if (withXt) xt[i * rows + r] = v;
    }
    a[r * k + kg] = 1;
    at[kg * rows + r] = 1;
  }
  return { a, at, x, xt };
}

/** Group g's problem with its three products (targets, G, c) on the runtime's float64 MatMul. */
async function groupProblemOn(
  data: LayerRows,
  target: ReconstructionTarget,
  g: number,
  where: GroupRows,
  product: DenseProduct,
): Promise<GroupProblem> {
  const { rows, kg, k, outPerGroup, inv } = shapeOf(data, target);
  const { a, at, x } = groupMatrices(data, target, where, false);
  const { wf, offset } = groupWeights(data, g);
  const wt = new Float64Array(kg * outPerGroup);
  for (let j = 0; j < outPerGroup; j++) for (let i = 0; i < kg; i++) wt[i * outPerGroup + j] = wf[j * kg + i];
  // t = X·W_fᵀ + offset (rows × outPerGroup), kept transposed for c = tᵀA.
  const t = await product(x, wt, rows, kg, outPerGroup);
  const tt = new Float64Array(outPerGroup * rows);
  const targetSq = new Float64Array(outPerGroup);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < outPerGroup; j++) {
      const v = t[r * outPerGroup + j] + offset[j];
      tt[j * rows + r] = v;
      targetSq[j] += v * v;
    }
  }
  for (let j = 0; j < outPerGroup; j++) targetSq[j] *= inv;
  const gram = await product(at, a, k, rows, k);
  // G exactly symmetric (the objective reads columns as rows), scaled to a mean.
  symmetricMean(gram, k, inv);
  const cross = await product(tt, a, outPerGroup, rows, k);
  for (let i = 0; i < cross.length; i++) cross[i] *= inv;
  return { k, gram, cross, targetSq };
}

/** An n × n product of a matrix with its own transpose, scaled by `inv` to a mean and made exactly symmetric from its upper triangle (in place). */
function symmetricMean(m: Float64Array, n: number, inv: number): Float64Array {
  for (let i = 0; i < n; i++) {
    m[i * n + i] *= inv;
    for (let j = i + 1; j < n; j++) m[j * n + i] = m[i * n + j] *= inv;
  }
  return m;
}

/**
 * c and τ of a group from G, H = mean x aᵀ (kg × k) and F = mean x xᵀ (kg × kg), x the rows the target is computed
 * from: t_m = x·w_m + offset_m, so c_m = Hᵀw_m + offset_m·(mean a) and τ_m = w_mᵀFw_m + 2·offset_m·w_mᵀ(mean x) +
 * offset_m². Mean a is G's last row (a's last entry is 1), mean x H's last column. `wh` = W·H (outPerGroup × k)
 * and `wfF` = W·F (outPerGroup × kg) when a runtime computed them, else computed here.
 */
function crossFromMoments(
  gram: Float64Array,
  h: Float64Array,
  f: Float64Array,
  wf: Float64Array,
  offset: Float64Array,
  kg: number,
  outPerGroup: number,
  products?: { wh: Float64Array; wfF: Float64Array },
): { cross: Float64Array; targetSq: Float64Array } {
  const k = kg + 1;
  const cross = products?.wh ?? new Float64Array(outPerGroup * k);
  const targetSq = new Float64Array(outPerGroup);
  const wfF = products?.wfF ?? new Float64Array(kg);
  for (let j = 0; j < outPerGroup; j++) {
    const w = j * kg;
    if (!products) {
      for (let l = 0; l < kg; l++) {
        const wl = wf[w + l];
        if (wl === 0) continue;
        const hr = l * k;
        const fr = l * kg;
        for (let i = 0; i < k; i++) cross[j * k + i] += wl * h[hr + i];
        for (let i = 0; i < kg; i++) wfF[i] += wl * f[fr + i];
      }
    }
    const fRow = products ? j * kg : 0;
    let quad = 0;
    let lin = 0;
    for (let l = 0; l < kg; l++) {
      quad += wfF[fRow + l] * wf[w + l];
      lin += wf[w + l] * h[l * k + kg];
    }
    if (!products) wfF.fill(0);
    const o = offset[j];
    for (let i = 0; i < k; i++) cross[j * k + i] += o * gram[kg * k + i];
    targetSq[j] = quad + 2 * o * lin + o * o;
  }
  return { cross, targetSq };
}

/** Group g's problem in TypeScript with c and τ from the input moments (wide groups, problemForm). */
function groupProblemByMoments(data: LayerRows, target: ReconstructionTarget, g: number, at: GroupRows): GroupProblem {
  const { rows, kg, k, outPerGroup, inv } = shapeOf(data, target);
  // Column-major copies: the k columns of a = [x_q, 1], then the kg columns of x.
  const cols = inputColumns(at, rows, kg, (k + kg) * rows, true);
  const four = new Float64Array(4);
  const gram = columnMeans(cols, rows, inv, [0, k], [0, k], 'symmetric', four);
  // H = mean x aᵀ (kg × k) and F = mean x xᵀ (kg × kg, symmetric).
  const h = columnMeans(cols, rows, inv, [k, kg], [0, k], 'full', four);
  const f = columnMeans(cols, rows, inv, [k, kg], [k, kg], 'symmetric', four);
  const { wf, offset } = groupWeights(data, g);
  return { k, gram, ...crossFromMoments(gram, h, f, wf, offset, kg, outPerGroup) };
}

/** groupProblemByMoments with its products (G, H, F, W·H, W·F) on the runtime's float64 MatMul. */
async function groupProblemByMomentsOn(
  data: LayerRows,
  target: ReconstructionTarget,
  g: number,
  where: GroupRows,
  product: DenseProduct,
): Promise<GroupProblem> {
  const { rows, kg, k, outPerGroup, inv } = shapeOf(data, target);
  const { a, at, x, xt } = groupMatrices(data, target, where, true);
  const gram = symmetricMean(await product(at, a, k, rows, k), k, inv);
  const h = await product(xt, a, kg, rows, k);
  for (let i = 0; i < h.length; i++) h[i] *= inv;
  const f = symmetricMean(await product(xt, x, kg, rows, kg), kg, inv);
  const { wf, offset } = groupWeights(data, g);
  const wh = await product(wf, h, outPerGroup, kg, k);
  const wfF = await product(wf, f, outPerGroup, kg, kg);
  return { k, gram, ...crossFromMoments(gram, h, f, wf, offset, kg, outPerGroup, { wh, wfF }) };
}

/** out = [a_x0·b_y0, a_x0·b_y1, a_x1·b_y0, a_x1·b_y1] over n values from each start. */
function dots2x2(
  a: Float32Array | Float64Array,
  x0: number,
  x1: number,
  b: Float64Array,
  y0: number,
  y1: number,
  n: number,
  out: Float64Array,
): void {
  let s00 = 0,
    s01 = 0,
    s10 = 0,
    s11 = 0;
  for (let r = 0; r < n; r++) {
    const p = a[x0 + r],
      q = a[x1 + r],
      u = b[y0 + r],
      v = b[y1 + r];
    s00 += p * u;
    s01 += p * v;
    s10 += q * u;
    s11 += q * v;
  }
  out[0] = s00;
  out[1] = s01;
  out[2] = s10;
  out[3] = s11;
}

function dot(a: Float64Array, x: number, y: number, n: number): number {
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0;
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

/** layerLoss without the gradient, the large groups' products V·G on a runtime's float64 MatMul when one is given. */
export async function layerLossOn(
  p: LayerProblem,
  v: Float64Array,
  product: DenseProduct | undefined,
): Promise<number> {
  const k = p.groups[0]?.k ?? 0;
  if (!product || p.outPerGroup * k * k < DENSE_RUNTIME_MIN_WORK) return layerLoss(p, v);
  let total = 0;
  for (let gi = 0; gi < p.groups.length; gi++) {
    const first = gi * p.outPerGroup * k;
    // G is symmetric, so row j of V·G is G v_j.
    const gv = await product(v.slice(first, first + p.outPerGroup * k), p.groups[gi].gram, p.outPerGroup, k, k);
    total += groupTerms(p, gi, v, gv);
  }
  return total;
}

/**
 * gv_j = G v_j for `count` vectors starting at v[first]; rows i and i + 1 of G stay in cache while every vector uses
 * them. Each entry is summed as it always was (its even terms and its odd terms in increasing order, then the two
 * added), so the values are the same bit for bit; two rows at a time read each vector entry once for both and give the
 * processor four independent sums instead of two (the depthwise layers' products, k = 26, ran on the adds' latency).
 */
export function multiplyGram(
  gram: Float64Array,
  k: number,
  v: Float64Array,
  first: number,
  count: number,
  gv: Float64Array | Float32Array,
): void {
  let i = 0;
  for (; i + 1 < k; i += 2) {
    const row = i * k;
    const next = row + k;
    for (let j = 0; j < count; j++) {
      const off = first + j * k;
      let s0 = 0,
        s1 = 0,
        t0 = 0,
        t1 = 0;
      let l = 0;
      for (; l + 1 < k; l += 2) {
        const x0 = v[off + l];
        const x1 = v[off + l + 1];
        s0 += gram[row + l] * x0;
        s1 += gram[row + l + 1] * x1;
        t0 += gram[next + l] * x0;
        t1 += gram[next + l + 1] * x1;
      }
      if (l < k) {
        s0 += gram[row + l] * v[off + l];
        t0 += gram[next + l] * v[off + l];
      }
      gv[j * k + i] = s0 + s1;
      gv[j * k + i + 1] = t0 + t1;
    }
  }
  if (i < k) multiplyGramRow(gram, k, v, first, count, gv, i);
}

/** Row i of multiplyGram alone (the last row when k is odd), each entry summed the same way. */
function multiplyGramRow(
  gram: Float64Array,
  k: number,
  v: Float64Array,
  first: number,
  count: number,
  gv: Float64Array | Float32Array,
  i: number,
): void {
  const row = i * k;
  for (let j = 0; j < count; j++) {
    const off = first + j * k;
    let s0 = 0,
      s1 = 0;
    let l = 0;
    for (; l + 1 < k; l += 2) {
      s0 += gram[row + l] * v[off + l];
      s1 += gram[row + l + 1] * v[off + l + 1];
    }
    if (l < k) s0 += gram[row + l] * v[off + l];
    gv[j * k + i] = s0 + s1;
  }
}

/** Σ over a group's channels of vᵀGv − 2cᵀv + τ given gv = G v (G is symmetric, so v·G = G v); fills grad. */
function groupTerms(
  p: LayerProblem,
  gi: number,
  v: Float64Array,
  gv: Float64Array | Float32Array,
  grad?: Float64Array,
): number {
  const { cross, targetSq, k } = p.groups[gi];
  const first = gi * p.outPerGroup * k;
  let total = 0;
  for (let j = 0; j < p.outPerGroup; j++) {
    const off = first + j * k;
    let quad = 0;
    let lin = 0;
    for (let i = 0; i < k; i++) {
      quad += v[off + i] * gv[j * k + i];
      lin += cross[j * k + i] * v[off + i];
    }
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
export type GramProductFactory = (gram: Float32Array | GramFactor, k: number, rows: number) => Promise<GramProduct>;

/**
 * Group g's G for a GramProduct: G itself in float32, or where the layer has fewer than half as many input rows as
 * k, its factor A = [x_q, 1] (rows × k): the same G = AᵀA / rows, multiplied in 2·rows·k instead of k² per vector.
 */
export function gramForm(p: LayerProblem, g: number): Float32Array | GramFactor {
  const group = p.groups[g];
  const { rows, width, quantRows, layer } = p.rows;
  const k = group.k;
  if (!usesFactor(p)) return Float32Array.from(group.gram);
  const kg = layer.inPerGroup;
  const a = new Float32Array(rows * k);
  for (let r = 0; r < rows; r++) {
    a.set(quantRows.subarray(r * width + g * kg, r * width + (g + 1) * kg), r * k);
    a[r * k + kg] = 1;
  }
  return { a, n: rows };
}

/** Whether p's GramProducts multiply by the factor of G (gramForm): fewer than half as many rows as k. */
export function usesFactor(p: LayerProblem): boolean {
  const k = p.groups[0]?.k ?? 0;
  return p.rows.rows > 0 && 2 * p.rows.rows < k;
}

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

/** Adam's first and second moments, one entry per parameter. */
export interface AdamMoments {
  readonly m: Float64Array;
  readonly v: Float64Array;
}

/** Adam (Kingma & Ba 2015) over one flat parameter vector, the optimizer Quark's fast finetune uses. */
export class Adam {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private t = 0;
  /** This step's bias corrections 1 − β₁ᵗ and 1 − β₂ᵗ (set by `next`). */
  private c1 = 1;
  private c2 = 1;
  /** `moments`: where the moments live (zeros of `size` entries, e.g. a kernel's memory); else its own arrays. */
  constructor(
    size: number,
    private readonly lr: number,
    private readonly beta1 = 0.9,
    private readonly beta2 = 0.999,
    private readonly eps = 1e-8,
    moments?: AdamMoments,
  ) {
    this.m = moments?.m ?? new Float64Array(size);
    this.v = moments?.v ?? new Float64Array(size);
  }
  /** The constants of this step (after `next`), for a kernel that makes `update`'s arithmetic itself. */
  constants() {
    const { lr, beta1, beta2, eps, c1, c2 } = this;
    return { lr, beta1, beta2, eps, c1, c2 };
  }
  /** params −= lr · m̂ / (√v̂ + ε) for the `count` entries listed in `at`; the others keep their values and moments. */
  step(params: Float64Array, grad: Float64Array, at: Int32Array, count: number): void {
    this.next();
    for (let q = 0; q < count; q++) {
      const i = at[q];
      params[i] = this.update(i, params[i], grad[i]);
    }
  }
  /** Starts a step: the entries' updates that follow (`update`) belong to it. */
  next(): void {
    this.t++;
    this.c1 = 1 - this.beta1 ** this.t;
    this.c2 = 1 - this.beta2 ** this.t;
  }
  /** Entry i's moments take gradient g; returns its parameter `param` after this step (for a caller fusing its own loop). */
  update(i: number, param: number, g: number): number {
    const m = (this.m[i] = this.beta1 * this.m[i] + (1 - this.beta1) * g);
    const v = (this.v[i] = this.beta2 * this.v[i] + (1 - this.beta2) * g * g);
    return param - (this.lr * (m / this.c1)) / (Math.sqrt(v / this.c2) + this.eps);
  }
  /** Entry `from`'s moments move to entry `to` (for a caller that packs its parameters). */
  move(from: number, to: number): void {
    this.m[to] = this.m[from];
    this.v[to] = this.v[from];
  }
}
