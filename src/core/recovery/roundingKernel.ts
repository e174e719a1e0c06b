/**
 * AdaRound's per-weight arithmetic, the larger half of its CPU (bench/README.md, suite finetune-cost): each step
 * every weight still learning takes the rectified sigmoid h(V) with its derivatives and soft weight ("soft"), then
 * its gradient with the rounding term's |2h − 1|^(β−1) and an Adam step ("descend"). In float64 TypeScript each
 * weight-step cost about 70 ns, most of it Math.exp and Math.log calls; here the state is float32 (packed: position
 * q is the q-th weight still learning) and the two passes run in WebAssembly SIMD, four weights at a time, with
 * polynomial exp and log (roundingKernel.wat, built into roundingKernelWasm.ts by scripts/build-kernels.ts).
 *
 * The plain TypeScript loops below are the reference the kernel is pinned against (tests/roundingKernel.test.ts)
 * and serve where WebAssembly SIMD is missing. Both read and write the same Float32Array views. Float32 is enough:
 * the optimizer's full products already run in float32 (incrementalObjective.ts), and a rounding is decided by the
 * sign of V, far from float32's resolution. Pure: WebAssembly is a language built-in, not a runtime.
 */
import { ROUNDING_KERNEL_WASM } from './roundingKernelWasm.ts';

export const ZETA = 1.1;
export const GAMMA = -0.1;
/** Adam's constants (Kingma & Ba 2015, as layerProblem.ts's Adam). */
export const ADAM_BETA1 = 0.9;
export const ADAM_BETA2 = 0.999;
export const ADAM_EPS = 1e-8;

/** The state of the weights still learning (packed) and the pass's inputs and outputs, float32 unless stated. */
export interface RoundingState {
  /** Entries each array holds (n rounded up to 4, and more). */
  readonly capacity: number;
  readonly V: Float32Array;
  /** Adam's moments. */
  readonly m: Float32Array;
  readonly v: Float32Array;
  /** ⌊w/s⌋, the scale, and the grid's ends less the zero point. */
  readonly floor: Float32Array;
  readonly scale: Float32Array;
  readonly lo: Float32Array;
  readonly hi: Float32Array;
  /** soft's outputs: h(V), dh/dV (0 where h is clipped: the weight leaves), dw/dV (0 also where the weight is clipped), the soft weight. */
  readonly h: Float32Array;
  readonly dhdv: Float32Array;
  readonly dh: Float32Array;
  readonly w: Float32Array;
  /** descend's input: 2(Gv − c) at each weight. */
  readonly r: Float32Array;
  /** Each packed weight's flat index (outChannels × k). */
  readonly learning: Int32Array;
  /** h(V), derivatives and soft weights of the first n weights; returns how many have h clipped. */
  soft(n: number): number;
  /** One Adam step of the first n weights' V at step t (from 1), the rounding term weighted by λ (0: off) with exponent β. */
  descend(n: number, t: number, learningRate: number, lambda: number, beta: number): void;
}

const FLOATS = ['V', 'm', 'v', 'floor', 'scale', 'lo', 'hi', 'h', 'dhdv', 'dh', 'w', 'r'] as const;

/** State for n weights: on the WebAssembly kernel when this JavaScript has WebAssembly SIMD, else the plain loops (or as asked). */
export function roundingState(n: number, kernel: 'wasm' | 'plain' = wasmAvailable() ? 'wasm' : 'plain'): RoundingState {
  const capacity = Math.ceil(n / 4) * 4 + 4;
  if (kernel === 'plain') {
    const arrays = Object.fromEntries(FLOATS.map((name) => [name, new Float32Array(capacity)])) as Record<
      (typeof FLOATS)[number],
      Float32Array
    >;
    const state = { capacity, ...arrays, learning: new Int32Array(capacity) };
    return {
      ...state,
      soft: (count) => softPlain(state, count),
      descend: (count, t, lr, lambda, beta) => descendPlain(state, count, t, lr, lambda, beta),
    };
  }
  const bytes = capacity * 4;
  const k = kernelInstance();
  const pages = Math.ceil((bytes * (FLOATS.length + 1)) / 65536);
  if (pages > 1) k.memory.grow(pages - 1);
  const buffer = k.memory.buffer;
  const at: Record<string, number> = {};
  const views: Record<string, Float32Array> = {};
  FLOATS.forEach((name, i) => {
    at[name] = i * bytes;
    views[name] = new Float32Array(buffer, i * bytes, capacity);
  });
  const learning = new Int32Array(buffer, FLOATS.length * bytes, capacity);
  return {
    capacity,
    ...(views as Record<(typeof FLOATS)[number], Float32Array>),
    learning,
    soft: (count) => k.soft(at.V, at.floor, at.scale, at.lo, at.hi, at.h, at.dhdv, at.dh, at.w, count),
    descend: (count, t, lr, lambda, beta) => {
      const { a, c } = adamCorrections(t, lr);
      k.descend(
        at.V,
        at.m,
        at.v,
        at.h,
        at.dhdv,
        at.dh,
        at.r,
        count,
        lambda,
        beta,
        ADAM_BETA1,
        ADAM_BETA2,
        a,
        c,
        ADAM_EPS,
      );
    },
  };
}

/** Adam's step size with the first moment's bias correction, and the second moment's correction, at step t. */
function adamCorrections(t: number, learningRate: number) {
  return { a: learningRate / (1 - ADAM_BETA1 ** t), c: 1 / (1 - ADAM_BETA2 ** t) };
}

interface KernelExports {
  readonly memory: WebAssembly.Memory;
  soft(
    V: number,
    floor: number,
    scale: number,
    lo: number,
    hi: number,
    h: number,
    dhdv: number,
    dh: number,
    w: number,
    n: number,
  ): number;
  descend(
    V: number,
    m: number,
    v: number,
    h: number,
    dhdv: number,
    dh: number,
    r: number,
    n: number,
    lambda: number,
    beta: number,
    b1: number,
    b2: number,
    a: number,
    c: number,
    eps: number,
  ): void;
  exp(at: number, n: number): void;
  log(at: number, n: number): void;
}

let compiled: WebAssembly.Module | undefined;
let available: boolean | undefined;

function wasmModule(): WebAssembly.Module {
  return (compiled ??= new WebAssembly.Module(ROUNDING_KERNEL_WASM));
}

/** A fresh instance, with its own memory. */
function kernelInstance(): KernelExports {
  return new WebAssembly.Instance(wasmModule()).exports as unknown as KernelExports;
}

/** Whether WebAssembly with SIMD is here (Node ≥ 16.4, every current browser). */
export function wasmAvailable(): boolean {
  return (available ??= typeof WebAssembly === 'object' && WebAssembly.validate(ROUNDING_KERNEL_WASM));
}

/** The kernel's own exp and log over `values` (float32), for the tests that pin their accuracy. */
export function kernelMath(name: 'exp' | 'log', values: Float32Array): Float32Array {
  const k = kernelInstance();
  const count = Math.ceil(values.length / 4) * 4;
  const pages = Math.ceil((count * 4) / 65536);
  if (pages > 1) k.memory.grow(pages - 1);
  const view = new Float32Array(k.memory.buffer, 0, count);
  view.set(values);
  k[name](0, count);
  return view.slice(0, values.length);
}

type Arrays = Omit<RoundingState, 'soft' | 'descend' | 'capacity'>;

/** The reference for the kernel's "soft", in float64 over the float32 state. */
function softPlain(s: Arrays, n: number): number {
  const { V, floor, scale, lo, hi, h, dhdv, dh, w } = s;
  let leaving = 0;
  for (let q = 0; q < n; q++) {
    const sig = 1 / (1 + Math.exp(-V[q]));
    const raw = sig * (ZETA - GAMMA) + GAMMA;
    const hv = raw < 0 ? 0 : raw > 1 ? 1 : raw;
    h[q] = hv;
    const x = floor[q] + hv;
    const clipped = x < lo[q] || x > hi[q];
    w[q] = scale[q] * (clipped ? (x < lo[q] ? lo[q] : hi[q]) : x);
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

/** The reference for the kernel's "descend". */
function descendPlain(s: Arrays, n: number, t: number, learningRate: number, lambda: number, beta: number): void {
  const { V, m, v, h, dhdv, dh, r } = s;
  const { a, c } = adamCorrections(t, learningRate);
  for (let q = 0; q < n; q++) {
    let g = r[q] * dh[q];
    const u = 2 * h[q] - 1;
    if (lambda > 0 && dhdv[q] !== 0 && u !== 0)
      g -= lambda * beta * 2 * dhdv[q] * Math.abs(u) ** (beta - 1) * Math.sign(u);
    m[q] = ADAM_BETA1 * m[q] + (1 - ADAM_BETA1) * g;
    v[q] = ADAM_BETA2 * v[q] + (1 - ADAM_BETA2) * g * g;
    V[q] -= (a * m[q]) / (Math.sqrt(v[q] * c) + ADAM_EPS);
  }
}
