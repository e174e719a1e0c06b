import { describe, expect, it } from 'vitest';
import { seededFloats } from '../../tests/helpers/fixtures.ts';
import { createWebRuntime } from '../runtime/ort.ts';
import { runtimeGramProduct } from './gramProduct.ts';

describe('runtimeGramProduct (onnxruntime-web WASM in Node)', () => {
  it('multiplies row vectors by the fixed matrix as the definition says, call after call', async () => {
    const k = 64;
    const rows = 3;
    const gram = seededFloats(k * k, 7, -1, 1);
    const product = await runtimeGramProduct(createWebRuntime('wasm', 1))(gram, k, rows);
    for (const seed of [1, 2]) {
      const v = seededFloats(rows * k, seed, -1, 1);
      const y = await product.multiply(v);
      expect(y).toHaveLength(rows * k);
      for (let r = 0; r < rows; r++) {
        for (let j = 0; j < k; j++) {
          let want = 0;
          for (let i = 0; i < k; i++) want += v[r * k + i] * gram[i * k + j];
          expect(y[r * k + j]).toBeCloseTo(want, 4);
        }
      }
    }
    await product.release();
  });
});
