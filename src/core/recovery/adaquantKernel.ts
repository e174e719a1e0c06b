/**
 * AdaQuant's step on the weight grid (adaquant.ts's inner loop, most of an AdaQuant rung's CPU: bench/README.md, suite
 * finetune-cost): Adam's step on every learning entry, then each weight's quantization on its channel's grid, and the
 * list of entries whose quantized value changed for the objective (incrementalObjective.ts). The plain TypeScript pass
 * (stepOnGrid) and the same pass in WebAssembly SIMD, two float64 entries at a time (adaquantKernel.wat, built into
 * adaquantKernelWasm.ts by scripts/build-kernels.ts). f64x2 operations round as JavaScript's float64 ones do and the
 * kernel makes the same operations in the same order, so it gives the same values bit for bit, and the same written
 * model. With the kernel, the loop's vectors, the objective's (its value, G v and c) and Adam's moments live in the
 * kernel's memory, so that nothing is copied in or out per step, and the kernel also sums the objective's loss after
 * a full product (the same additions in the same order). Pure: WebAssembly is a language built-in.
 */
import { ADAQUANT_KERNEL_WASM } from './adaquantKernelWasm.ts';
import type { Adam, AdamMoments } from './layerProblem.ts';
import type { ObjectiveVectors } from './incrementalObjective.ts';
import { ROUND_TIES_EVEN_MAGIC } from '../quantize/numeric.ts';

/** The loop's vectors and its step, on the kernel or the plain pass. */
export interface GridStepper {
  /** The learned weights (and bias changes), outChannels × k. */
  readonly w: Float64Array;
  /** Their hard-quantized values (the bias change as it is, or 0): the objective's next vector. */
  readonly wq: Float64Array;
  /** Out: the entries where wq is not bit for bit the objective's value, in increasing order (`step`'s count of them). */
  readonly changed: Int32Array;
  /** The objective's vectors (incrementalObjective's `vectors`): its value, G v and c. */
  readonly objective: ObjectiveVectors;
  /** Adam's moments (Adam's `moments`). */
  readonly moments: AdamMoments;
  /**
   * With `adam`, Adam's step on every learning entry (adam.next() is called here), then wq; without, wq of w as it is.
   * Returns how many entries it listed in `changed`.
   */
  step(adam?: Adam): number;
}

/**
 * The vectors of a layer of n entries on `grid`, with the WebAssembly kernel where this JavaScript has WebAssembly SIMD,
 * else the plain pass (or as asked). Every vector starts at 0.
 */
export function gridStepper(
  grid: ChannelGrid,
  n: number,
  kernel: 'wasm' | 'plain' = adaquantKernelAvailable() ? 'wasm' : 'plain',
): GridStepper {
  if (kernel === 'plain') {
    const state: LoopState = {
      w: new Float64Array(n),
      wq: new Float64Array(n),
      saturated: new Uint8Array(n),
      current: new Float64Array(n),
      gv: new Float64Array(n),
      cross: new Float64Array(n),
      changed: new Int32Array(n),
      low: new Float64Array(n).fill(Infinity),
      high: new Float64Array(n).fill(-Infinity),
    };
    return {
      w: state.w,
      wq: state.wq,
      changed: state.changed,
      objective: { value: state.current, gv: state.gv, cross: state.cross },
      moments: { m: new Float64Array(n), v: new Float64Array(n) },
      step: (adam) => stepOnGrid(grid, state, adam),
    };
  }
  // Every float64 vector gets n + 2 entries (a pair read at a channel's last weight stays inside), 16-byte aligned.
  const span = Math.ceil(((n + 2) * 8) / 16) * 16;
  const layout = ['w', 'wq', 'sat', 'current', 'gv', 'cross', 'low', 'high', 'm', 'v'] as const;
  const channelSpan = Math.ceil((grid.channels * 8) / 16) * 16;
  const at: Record<(typeof layout)[number] | 'scale' | 'zp' | 'changed', number> = {} as never;
  let offset = 0;
  for (const name of layout) {
    at[name] = offset;
    offset += span;
  }
  at.scale = offset;
  at.zp = offset + channelSpan;
  at.changed = offset + 2 * channelSpan;
  const bytes = at.changed + (n + 2) * 4;
  const k = new WebAssembly.Instance(adaquantModule()).exports as unknown as KernelExports;
  const pages = Math.ceil(bytes / 65536);
  try {
    if (pages > 1) k.memory.grow(pages - 1);
  } catch {
    // A layer past what one WebAssembly memory can hold (4 GiB, less in some browsers: about 50 M entries) takes the
    // plain pass, which gives the same values.
    return gridStepper(grid, n, 'plain');
  }
  const buffer = k.memory.buffer;
  const f64 = (name: keyof typeof at, length = n) => new Float64Array(buffer, at[name], length);
  f64('low').fill(Infinity);
  f64('high').fill(-Infinity);
  f64('scale', grid.channels).set(grid.scale);
  f64('zp', grid.channels).set(grid.zp);
  const { channels, inPerGroup, qmin, qmax, updateBias } = grid;
  return {
    w: f64('w'),
    wq: f64('wq'),
    changed: new Int32Array(buffer, at.changed, n),
    objective: {
      value: f64('current'),
      gv: f64('gv'),
      cross: f64('cross'),
      loss: (tau) => k.loss(at.current, at.gv, at.cross, n, tau),
    },
    moments: { m: f64('m'), v: f64('v') },
    step(adam) {
      adam?.next();
      const c = adam?.constants();
      return k.step(
        at.w,
        at.wq,
        at.sat,
        at.current,
        at.gv,
        at.cross,
        at.changed,
        at.low,
        at.high,
        at.m,
        at.v,
        at.scale,
        at.zp,
        channels,
        inPerGroup,
        grid.k,
        qmin,
        qmax,
        updateBias ? 1 : 0,
        c ? 1 : 0,
        c?.beta1 ?? 0,
        c ? 1 - c.beta1 : 0,
        c?.beta2 ?? 0,
        c ? 1 - c.beta2 : 0,
        c?.lr ?? 0,
        c?.c1 ?? 1,
        c?.c2 ?? 1,
        c?.eps ?? 0,
        ROUND_TIES_EVEN_MAGIC,
        CODE_MARGIN,
      );
    },
  };
}

interface KernelExports {
  readonly memory: WebAssembly.Memory;
  step(...args: number[]): number;
  loss(value: number, gv: number, cross: number, n: number, tau: number): number;
}

let compiled: WebAssembly.Module | undefined;
let available: boolean | undefined;

function adaquantModule(): WebAssembly.Module {
  return (compiled ??= new WebAssembly.Module(ADAQUANT_KERNEL_WASM));
}

/** Whether WebAssembly with SIMD is here (Node ≥ 16.4, every current browser). */
export function adaquantKernelAvailable(): boolean {
  return (available ??= typeof WebAssembly === 'object' && WebAssembly.validate(ADAQUANT_KERNEL_WASM));
}

/** A layer's weight grid as the loop reads it: each channel's scale and zero point, and the code range. */
export interface ChannelGrid {
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
export interface LoopState {
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
export const CODE_MARGIN = 2 ** -20;

/**
 * With `adam`, one Adam step on every learning entry with the straight-through gradient 2(Gv − c), none where the
 * weight saturated (the bias changes learn only with UpdateBias); then, entry by entry in the same pass, wq and
 * `saturated` of the weights as they now are; returns how many entries it listed in `changed` (see LoopState). Without
 * `adam` only the second part. wq takes the values of roundHalfToEven(w / scale) + zp clamped (the quantize closure)
 * without its branches: w / scale is first clamped to one code past each end (clamping to integers commutes with
 * rounding, so the saturation and the clamped code are those of the unclamped quotient), then rounded ties-to-even by
 * ROUND_TIES_EVEN_MAGIC; a quotient of −0 stays −0, as roundHalfToEven keeps it. A weight still strictly inside the
 * interval its last quantization left (LoopState.low/high, CODE_MARGIN) keeps that quantization without a division. One
 * pass instead of a step, then a quantization over every entry, then the objective's look at every entry for a change.
 * The reference the WebAssembly kernel is pinned against bit for bit (tests/adaquantLoop.test.ts), and the step where
 * WebAssembly SIMD is missing. Synchronous and module-level
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
