import { describe, expect, it } from 'vitest';
import { seededFloats } from '../../tests/helpers/fixtures.ts';
import { maxRelative, smallLayerRows } from '../../tests/helpers/layerRows.ts';
import { createWebRuntime } from '../runtime/ort.ts';
import {
  buildLayerProblem,
  buildLayerProblemOn,
  layerLoss,
  layerLossOn,
} from '../../src/core/recovery/layerProblem.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';
import { checkedDenseProduct } from './denseProduct.ts';

/** C = A·B in a plain float64 loop: what the runtime's product must equal. */
function product(a: Float64Array, b: Float64Array, m: number, k: number, n: number): Float64Array {
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let l = 0; l < k; l++) s += a[i * k + l] * b[l * n + j];
      c[i * n + j] = s;
    }
  return c;
}

describe('checkedDenseProduct (onnxruntime-web WASM in Node)', () => {
  it('multiplies in float64 as the TypeScript loop does, within 1e-12 relative, shape after shape on one session', async () => {
    let sessions = 0;
    const web = createWebRuntime('wasm', 1);
    const counted: Runtime = { createSession: (bytes, purpose) => (sessions++, web.createSession(bytes, purpose)) };
    const dense = (await checkedDenseProduct(counted, () => expect.unreachable('no fallback on onnxruntime-web')))!;
    for (const [m, k, n, seed] of [
      [3, 5, 4, 1],
      [33, 200, 17, 2],
      [65, 400, 65, 3],
      [1, 7, 1, 4],
    ]) {
      const a = Float64Array.from(seededFloats(m * k, seed, -1, 1), (x) => x * 1e3 + 1e-9);
      const b = Float64Array.from(seededFloats(k * n, seed + 10, -1, 1));
      const got = await dense.product(a, b, m, k, n);
      expect(got).toBeInstanceOf(Float64Array);
      expect(got).toHaveLength(m * n);
      expect(maxRelative(got, product(a, b, m, k, n))).toBeLessThan(1e-12);
    }
    expect(sessions).toBe(1);
    await dense.release();
  });

  it('builds a layer problem and scores weights as the TypeScript loops do (G, c, τ and the loss within 1e-12)', async () => {
    const dense = (await checkedDenseProduct(createWebRuntime('wasm', 1)))!;
    const data = smallLayerRows(24, 80, 1, 600, 3);
    const ts = buildLayerProblem(data, 'float');
    let calls = 0;
    const rt = await buildLayerProblemOn(data, 'float', (...args) => (calls++, dense.product(...args)));
    expect(calls).toBe(3); // targets, G and c on the runtime
    const [a, b] = [rt.groups[0], ts.groups[0]];
    expect(maxRelative(a.gram, b.gram)).toBeLessThan(1e-12);
    expect(maxRelative(a.cross, b.cross)).toBeLessThan(1e-12);
    expect(maxRelative(a.targetSq, b.targetSq)).toBeLessThan(1e-12);
    const v = Float64Array.from(seededFloats(24 * 81, 11, -1, 1));
    const exact = layerLoss(ts, v);
    expect(Math.abs((await layerLossOn(rt, v, dense.product)) - exact)).toBeLessThan(1e-12 * Math.abs(exact));
    await dense.release();
  });

  it('falls back to TypeScript, saying why, when the runtime cannot open the model or computes in float32', async () => {
    const said: string[] = [];
    const broken: Runtime = {
      createSession: () =>
        Promise.reject(new Error("Could not find an implementation for MatMul(13) node with name ''")),
    };
    expect(await checkedDenseProduct(broken, (m) => said.push(m))).toBeUndefined();
    expect(said[0]).toMatch(
      /layer problems in TypeScript.*float64 MatMul.*Could not find an implementation for MatMul/,
    );

    // A runtime whose products come back rounded to float32: loads and runs, but not in double.
    const web = createWebRuntime('wasm', 1);
    const rounding: Runtime = {
      async createSession(bytes, purpose) {
        const { runner, backend } = await web.createSession(bytes, purpose);
        const run: typeof runner.run = async (feeds, fetches) => {
          const out = await runner.run(feeds, fetches);
          return Object.fromEntries(
            Object.entries(out).map(([name, t]) => [
              name,
              { ...t, data: Float64Array.from(t.data as Float64Array, Math.fround) },
            ]),
          );
        };
        return { runner: { ...runner, run }, backend };
      },
    };
    expect(await checkedDenseProduct(rounding, (m) => said.push(m))).toBeUndefined();
    expect(said[1]).toMatch(/float64 MatMul \(it computed \[3, 2, 7, 4\] for \[3\.0000000000009095, 2, 7, 4\]\)/);
  });
});
