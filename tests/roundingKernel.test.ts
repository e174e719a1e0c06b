/**
 * AdaRound's WebAssembly SIMD kernel (core/recovery/roundingKernel.ts, roundingKernel.wat) against its plain
 * TypeScript loops: its polynomial exp and log within 3e-7 of Math's, and "soft" and "descend" giving the plain
 * loops' values to float32 precision from the same state (lanes past n ignored, the rounding term on and off). The
 * committed bytes must be the build of the committed text. AdaRound end to end with the kernel is pinned to the
 * textbook float64 loop in incrementalObjective.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { kernelMath, roundingState, wasmAvailable, type RoundingState } from '../src/core/recovery/roundingKernel.ts';
import { ROUNDING_KERNEL_WASM } from '../src/core/recovery/roundingKernelWasm.ts';
import { kernelModuleSource, wasmFromWat } from '../scripts/kernelBytes.ts';
import { seededFloats } from './helpers/fixtures.ts';

const recoveryDir = path.resolve(import.meta.dirname, '../src/core/recovery');

/** Two states with the same random contents: n weights, some at the grid's ends, some with h clipped. */
function twins(n: number, seed: number): [RoundingState, RoundingState] {
  const states = [roundingState(n, 'wasm'), roundingState(n, 'plain')] as const;
  const V = seededFloats(n, seed, -8, 8);
  const floor = seededFloats(n, seed + 1, -9, 8).map(Math.floor);
  const r = seededFloats(n, seed + 2, -3, 3);
  const m = seededFloats(n, seed + 3, -0.5, 0.5);
  const v = seededFloats(n, seed + 4, 0, 2);
  for (const s of states) {
    s.V.set(V);
    s.floor.set(floor);
    s.scale.fill(0.125);
    s.lo.fill(-8);
    s.hi.fill(7);
    s.r.set(r);
    s.m.set(m);
    s.v.set(v);
  }
  return [states[0], states[1]];
}

function expectClose(a: Float32Array, b: Float32Array, n: number, tolerance: number, what: string) {
  let worst = 0;
  for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  expect(worst, what).toBeLessThan(tolerance);
}

describe('the rounding kernel', () => {
  it('is available here (Node has WebAssembly SIMD)', () => {
    expect(wasmAvailable()).toBe(true);
  });

  it('is the build of the committed roundingKernel.wat', async () => {
    const bytes = await wasmFromWat(fs.readFileSync(path.join(recoveryDir, 'roundingKernel.wat'), 'utf8'));
    expect(Array.from(ROUNDING_KERNEL_WASM)).toEqual(Array.from(bytes));
    expect(fs.readFileSync(path.join(recoveryDir, 'roundingKernelWasm.ts'), 'utf8')).toBe(kernelModuleSource(bytes));
  });

  it('exp and log within 3e-7 relative of Math.exp and Math.log', () => {
    const x = seededFloats(4001, 5, -80, 80);
    const e = kernelMath('exp', x);
    for (let i = 0; i < x.length; i++)
      expect(Math.abs(e[i] - Math.exp(x[i])) / Math.exp(x[i]), `exp(${x[i]})`).toBeLessThan(3e-7);
    const y = Float32Array.from(seededFloats(4001, 6, -30, 0), (t) => Math.exp(t)); // (0, 1]: what the rounding term takes
    const l = kernelMath('log', y);
    for (let i = 0; i < y.length; i++)
      expect(Math.abs(l[i] - Math.log(y[i])), `log(${y[i]})`).toBeLessThan(
        3e-7 * Math.max(1, Math.abs(Math.log(y[i]))),
      );
  });

  for (const n of [1, 6, 4099]) {
    it(`soft and descend on ${n} weights: the plain loops' values to float32 precision`, () => {
      const [wasm, plain] = twins(n, 10 + n);
      const leaving = wasm.soft(n);
      expect(leaving).toBe(plain.soft(n));
      if (n > 100) expect(leaving).toBeGreaterThan(0);
      for (const name of ['h', 'dhdv', 'dh', 'w'] as const) expectClose(wasm[name], plain[name], n, 2e-6, name);
      // Where h is clipped both give exactly 0 (the weight leaves on that test).
      for (let q = 0; q < n; q++) expect(wasm.dhdv[q] === 0).toBe(plain.dhdv[q] === 0);
      for (const [t, lambda, beta] of [
        [1, 0, 20],
        [300, 0.01, 14.5],
        [999, 0.01, 2],
      ] as const) {
        wasm.descend(n, t, 0.1, lambda, beta);
        plain.descend(n, t, 0.1, lambda, beta);
        for (const name of ['V', 'm', 'v'] as const)
          expectClose(wasm[name], plain[name], n, 2e-5, `${name} at step ${t}`);
      }
    });
  }
});
