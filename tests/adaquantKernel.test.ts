/**
 * AdaQuant's WebAssembly SIMD step (core/recovery/adaquantKernel.ts, adaquantKernel.wat) against the plain stepOnGrid
 * bit for bit: from the same state, over many steps with the objective's G v and c moving between them, every vector
 * (the weights, their quantization, Adam's moments) and the list of changed entries must have the same bits; one bit
 * off in one entry fails (checked on the comparison itself). Channels with an odd number of weights (the kernel's
 * lone last lane), with and without the bias, a zero point off 0, weights on exact ties, at ±0 and past the grid's
 * ends, a scale of 0 and an infinite one (no interval kept). And AdaQuant end to end with the kernel against the plain
 * pass. The committed bytes must be the build of the committed text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  adaquantKernelAvailable,
  gridStepper,
  type ChannelGrid,
  type GridStepper,
} from '../src/core/recovery/adaquantKernel.ts';
import { ADAQUANT_KERNEL_WASM } from '../src/core/recovery/adaquantKernelWasm.ts';
import { adaquant } from '../src/core/recovery/adaquant.ts';
import { Adam, buildLayerProblem } from '../src/core/recovery/layerProblem.ts';
import { KERNELS, kernelModuleSource, wasmFromWat } from '../scripts/kernelBytes.ts';
import { nodeGramProduct } from '../src/cli/runtime/gramProduct.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { smallLayerRows } from './helpers/layerRows.ts';
import { testTuneOptions } from './helpers/tuneOptions.ts';

const recoveryDir = path.resolve(import.meta.dirname, '../src/core/recovery');

/**
 * The first entry where a and b differ in their bits (NaN against NaN counts as equal: WebAssembly leaves a NaN's sign
 * and payload open), or -1.
 */
function firstBitDifference(a: Float64Array, b: Float64Array): number {
  const x = new BigUint64Array(a.buffer, a.byteOffset, a.length);
  const y = new BigUint64Array(b.buffer, b.byteOffset, b.length);
  if (a.length !== b.length) return 0;
  for (let i = 0; i < a.length; i++) if (x[i] !== y[i] && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) return i;
  return -1;
}

/** float64 values with full mantissas in [lo, hi). */
function seeded64(count: number, seed: number, lo: number, hi: number): Float64Array {
  const a = seededFloats(count, seed, lo, hi);
  const b = seededFloats(count, seed + 1000, 0.999, 1.001);
  return Float64Array.from(a, (x, i) => x * b[i]);
}

/** A grid of `channels` channels of `inPerGroup` weights, int4 around zero point `zp`, power-of-two scales, two degenerate. */
function grid(channels: number, inPerGroup: number, zp: number, updateBias: boolean): ChannelGrid {
  const scale = Float64Array.from({ length: channels }, (_, m) => 2 ** -(3 + (m % 4)));
  if (channels > 3) {
    scale[1] = 0;
    scale[2] = Infinity;
  }
  return {
    channels,
    inPerGroup,
    k: inPerGroup + 1,
    qmin: -8,
    qmax: 7,
    scale,
    zp: new Float64Array(channels).fill(zp),
    updateBias,
  };
}

/** Weights spread across and past the grid, with exact ties, ±0 and huge ones among them. */
function weights(g: ChannelGrid, seed: number): Float64Array {
  const n = g.channels * g.k;
  const w = seeded64(n, seed, -2.5, 2.5);
  for (let m = 0; m < g.channels; m++) {
    const s = Number.isFinite(g.scale[m]) && g.scale[m] > 0 ? g.scale[m] : 0.125;
    const base = m * g.k;
    const special = [0.5 * s, -1.5 * s, -0, 0, 2.5 * s, -8.5 * s, 7.5 * s, 1e6, -1e6, 3.5 * s];
    special.forEach((x, j) => {
      if (j < g.inPerGroup) w[base + ((j * 7) % g.inPerGroup)] = x;
    });
    for (let i = 0; i < g.inPerGroup; i++) if (i % 3 === 1) w[base + i] *= s * 4;
  }
  return w;
}

/** Both steppers' vectors, as the comparison reads them. */
function vectors(s: GridStepper) {
  return { w: s.w, wq: s.wq, value: s.objective.value, m: s.moments.m, v: s.moments.v };
}

/**
 * Runs `steps` steps of both steppers from the same state, the objective's vectors moved between steps as the loop
 * moves them (the changed entries copied to its value, G v and c nudged at some entries); returns the first difference
 * found, described, or undefined.
 */
function race(g: ChannelGrid, seed: number, steps: number, learningRate: number): string | undefined {
  const n = g.channels * g.k;
  const pair = [gridStepper(g, n, 'wasm'), gridStepper(g, n, 'plain')] as const;
  const w = weights(g, seed);
  const cross = seeded64(n, seed + 1, -0.5, 0.5);
  for (const s of pair) {
    s.w.set(w);
    s.objective.cross.set(cross);
    s.objective.gv.set(seeded64(n, seed + 2, -0.5, 0.5));
  }
  const adams = pair.map((s) => new Adam(n, learningRate, undefined, undefined, undefined, s.moments));
  for (let step = 0; step <= steps; step++) {
    const counts = pair.map((s, i) => (step === 0 ? s.step() : s.step(adams[i])));
    if (counts[0] !== counts[1]) return `step ${step}: ${counts[0]} changed entries against ${counts[1]}`;
    const listed = pair.map((s, i) => Array.from(s.changed.subarray(0, counts[i])));
    if (listed[0].join() !== listed[1].join()) return `step ${step}: another list of changed entries`;
    const [a, b] = pair.map(vectors);
    for (const name of ['w', 'wq', 'm', 'v'] as const) {
      const at = firstBitDifference(a[name], b[name]);
      if (at >= 0) return `step ${step}: ${name}[${at}] ${a[name][at]} against ${b[name][at]}`;
    }
    // The objective takes the changed entries; G v moves at a few of them (a new product), the same in both.
    const nudge = seeded64(n, seed + 10 + step, -0.05, 0.05);
    for (const s of pair) {
      for (let q = 0; q < counts[0]; q++) {
        const at = s.changed[q];
        s.objective.value[at] = s.wq[at];
        s.objective.gv[at] += nudge[at];
      }
      if (step % 5 === 4) for (let at = 0; at < n; at += 3) s.objective.gv[at] -= nudge[at];
    }
  }
  return undefined;
}

describe('the AdaQuant kernel', () => {
  it('is available here (Node has WebAssembly SIMD)', () => {
    expect(adaquantKernelAvailable()).toBe(true);
  });

  it('is the build of the committed adaquantKernel.wat', async () => {
    const bytes = await wasmFromWat(
      fs.readFileSync(path.join(recoveryDir, KERNELS.adaquant.wat), 'utf8'),
      KERNELS.adaquant.wat,
    );
    expect(Array.from(ADAQUANT_KERNEL_WASM)).toEqual(Array.from(bytes));
    expect(fs.readFileSync(path.join(recoveryDir, KERNELS.adaquant.module), 'utf8')).toBe(
      kernelModuleSource(bytes, KERNELS.adaquant),
    );
  });

  const cases: [string, ChannelGrid][] = [
    ['12 channels × 9 weights (odd: the lone last lane), the bias, zero point 0', grid(12, 9, 0, true)],
    ['12 × 9 without the bias', grid(12, 9, 0, false)],
    ['7 × 16 (even), zero point 3', grid(7, 16, 3, true)],
    ['5 × 1 (one weight a channel), zero point −2', grid(5, 1, -2, true)],
    ['40 × 33, zero point 1, without the bias', grid(40, 33, 1, false)],
  ];
  for (const [name, g] of cases) {
    for (const lr of [1e-3, 0.05]) {
      it(`${name}, learning rate ${lr}: the plain pass's bits at every step`, () => {
        expect(race(g, 17 + g.channels, 60, lr)).toBeUndefined();
      });
    }
  }

  it("sums the objective's loss as its own sum does, bit for bit (odd and even lengths)", () => {
    let otherOrderDiffers = 0;
    for (const n of [1, 2, 9, 1000, 4097]) {
      const s = gridStepper(grid(1, n - 1, 0, true), n, 'wasm');
      const { value, gv, cross } = s.objective;
      value.set(seeded64(n, n, -3, 3));
      gv.set(seeded64(n, n + 1, -2, 2));
      cross.set(seeded64(n, n + 2, -1, 1));
      value[0] = -0;
      const tau = 12.345678901234567;
      let total = tau;
      for (let at = 0; at < n; at++) total += value[at] * (gv[at] - 2 * cross[at]);
      expect(Object.is(s.objective.loss!(tau), total), `n = ${n}`).toBe(true);
      // Two partial sums (even and odd entries, as a plain SIMD sum would add) are not equal on some of these vectors.
      let even = tau;
      let odd = 0;
      for (let at = 0; at < n; at++) {
        if (at % 2) odd += value[at] * (gv[at] - 2 * cross[at]);
        else even += value[at] * (gv[at] - 2 * cross[at]);
      }
      if (!Object.is(even + odd, total)) otherOrderDiffers++;
    }
    expect(otherOrderDiffers, 'another order gives the same bits everywhere: the test could not fail').toBeGreaterThan(
      0,
    );
  });

  it('the comparison fails on one bit off in one entry', () => {
    const a = seeded64(9, 3, -1, 1);
    const b = a.slice();
    expect(firstBitDifference(a, b)).toBe(-1);
    new BigUint64Array(b.buffer)[5] ^= 1n;
    expect(firstBitDifference(a, b)).toBe(5);
    b[5] = a[5];
    b[2] = -0;
    a[2] = 0;
    expect(firstBitDifference(a, b)).toBe(2);
  });

  it('AdaQuant gives the same result bit for bit with the kernel and with the plain pass', async () => {
    const layers = [
      buildLayerProblem(smallLayerRows(12, 41, 1, 300, 21)),
      buildLayerProblem(smallLayerRows(8, 9, 4, 200, 31)),
    ];
    for (const p of layers) {
      for (const more of [{ learningRate: 1e-3 }, { learningRate: 2e-3, updateBias: false }]) {
        for (const product of [undefined, nodeGramProduct]) {
          const options = testTuneOptions(150, { ...more, product });
          const fast = await adaquant(p, { ...options, adaquantKernel: 'wasm' });
          const plain = await adaquant(p, { ...options, adaquantKernel: 'plain' });
          const { seconds: s1, ...a } = fast;
          const { seconds: s2, ...b } = plain;
          expect(s1 >= 0 && s2 >= 0).toBe(true);
          expect(a).toEqual(b);
          expect(new Set(plain.curve.map((c) => c.loss)).size).toBeGreaterThan(1);
        }
      }
    }
  });
});
