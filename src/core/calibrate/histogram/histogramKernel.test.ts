/**
 * The histogram's WebAssembly kernel (histogramKernel.ts) against the TypeScript loops it stands in for: the same
 * histogram, bin for bin and extreme for extreme, signed and |x|, for batches that fit the layout, batches that widen
 * it, runs of zeros (a ReLU's), tails that are not a multiple of four or of a block, and NaN / ±Infinity; and the
 * committed bytes must be the build of the committed text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KERNEL_MIN_VALUES, createHistogram, foldIntoHistogram, pow2, type Histogram } from './histogram.ts';
import { BLOCK, float32Exact, histogramKernel } from './histogramKernel.ts';
import { HISTOGRAM_KERNEL_WASM } from './histogramKernelWasm.ts';
import { gaussian, rng, unevenBatches } from '../testData.ts';
import { KERNELS, kernelModuleSource, wasmFromWat } from '../../../../scripts/kernelBytes.ts';

const kernel = histogramKernel();

/** Folds the batches twice, with the kernel and with the TypeScript loops, and expects the same histogram. */
function expectSame(batches: Float32Array[], capacity: number, abs: boolean): Histogram {
  let withKernel = createHistogram(capacity, abs);
  let plain = createHistogram(capacity, abs);
  for (const b of batches) {
    withKernel = foldIntoHistogram(withKernel, b, kernel);
    plain = foldIntoHistogram(plain, b, null);
  }
  const { bins: kb, ...kRest } = withKernel;
  const { bins: pb, ...pRest } = plain;
  expect(kRest).toEqual(pRest);
  expect(Array.from(kb)).toEqual(Array.from(pb));
  return withKernel;
}

/** A ReLU's output: about half exact zeros, in runs. */
function relu(n: number, seed: number, scale: number): Float32Array {
  const g = gaussian(n, seed, -0.2 * scale, scale);
  for (let i = 0; i < n; i++) if (g[i] < 0) g[i] = 0;
  return g;
}

describe('histogram kernel', () => {
  it('is available on this Node (WebAssembly SIMD)', () => {
    expect(kernel).not.toBeNull();
  });

  it('gives the TypeScript histogram on batches that widen the layout, signed and |x|', () => {
    const batches = unevenBatches(9, BLOCK + 4099, 5); // a block and a tail not a multiple of 4
    for (const abs of [false, true]) {
      const h = expectSame(batches, 8192, abs);
      expect(h.count).toBe(batches.length * (BLOCK + 4099));
    }
  });

  it('gives the TypeScript histogram on ReLU outputs that grow batch by batch, and on batches that fit', () => {
    const batches = [1, 1, 2, 1.5, 4, 3].map((s, k) => relu(3 * BLOCK + 7, 40 + k, s));
    for (const abs of [false, true]) expectSame(batches, 1024, abs);
  });

  it('counts NaN and ±Infinity apart and keeps them out of the extremes, as the TypeScript does', () => {
    const r = rng(11);
    const batches = [0, 1, 2, 3].map((k) => {
      const b = gaussian(KERNEL_MIN_VALUES + 13, 70 + k, 0, 1 + k);
      for (let i = 0; i < 5; i++) b[Math.floor(r() * b.length)] = [NaN, Infinity, -Infinity][i % 3];
      return b;
    });
    for (const abs of [false, true]) {
      const h = expectSame(batches, 2048, abs);
      expect(h.nonFinite).toBe(20);
    }
    // A first batch with non-finite values, and a batch of nothing else.
    expectSame([batches[1], gaussian(KERNEL_MIN_VALUES, 3)], 2048, false);
    expectSame([gaussian(KERNEL_MIN_VALUES, 4), new Float32Array(KERNEL_MIN_VALUES).fill(NaN)], 2048, true);
  });

  it('keeps the sign of zero out of the state (all-zero batches, −0 first)', () => {
    const zeros = new Float32Array(KERNEL_MIN_VALUES);
    zeros[0] = -0;
    for (const abs of [false, true]) {
      const h = expectSame([zeros, zeros.map((x) => -x)], 1024, abs);
      expect(Object.is(h.min, 0) && Object.is(h.valueMin, 0) && Object.is(h.valueMax, 0)).toBe(true);
    }
  });

  it('counts in float32 only where that is exact, and in float64 far from zero and with bins wider than 1', () => {
    const near = expectSame([gaussian(BLOCK, 1), gaussian(BLOCK, 2, 0, 2)], 2048, false);
    expect(float32Exact(pow2(-near.exponent), near.offset, near.capacity)).toBe(true);
    // 1e5 ± 0.01: bins of 2^-17, bin numbers about 1.3e10, past float32's integers.
    const far = expectSame(
      [1, 2, 3].map((k) => gaussian(BLOCK + 3, 20 + k, 1e5, 0.01 * k)),
      1024,
      false,
    );
    expect(float32Exact(pow2(-far.exponent), far.offset, far.capacity)).toBe(false);
    // ±1e5: bins wider than 1 (a product x · 2^-e could round below a float32 subnormal).
    const wide = expectSame(
      [1, 2, 3].map((k) => gaussian(BLOCK + 1, 30 + k, 0, 1e5 * k)),
      1024,
      true,
    );
    expect(float32Exact(pow2(-wide.exponent), wide.offset, wide.capacity)).toBe(false);
  });

  it('is the build of the committed text', async () => {
    const kernelText = fs.readFileSync(path.join(import.meta.dirname, 'histogramKernel.wat'), 'utf8');
    const bytes = await wasmFromWat(kernelText, KERNELS.histogram.wat);
    expect(Array.from(HISTOGRAM_KERNEL_WASM)).toEqual(Array.from(bytes));
    expect(fs.readFileSync(path.join(import.meta.dirname, 'histogramKernelWasm.ts'), 'utf8')).toBe(
      kernelModuleSource(bytes, KERNELS.histogram),
    );
  });
});
