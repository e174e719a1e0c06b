/**
 * Damaged files end in a model or a named error, never a crash, a hang or an unnamed error.
 * 1,200 deterministic mutations of real fixtures: bit flips, truncations and splices.
 */
import { describe, expect, it } from 'vitest';
import { encode, openModel, STUDIO_ERROR_NAMES } from '../src/core/onnx/index.ts';
import { readModel } from './helpers/fixtures.ts';

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Mutation = (bytes: Uint8Array, random: () => number, donor: Uint8Array) => Uint8Array;

const mutations: Record<string, Mutation> = {
  'bit flips': (bytes, random) => {
    const out = bytes.slice();
    const flips = 1 + Math.floor(random() * 8);
    for (let k = 0; k < flips; k++) out[Math.floor(random() * out.length)] ^= 1 << Math.floor(random() * 8);
    return out;
  },
  truncation: (bytes, random) => bytes.slice(0, Math.floor(random() * bytes.length)),
  splice: (bytes, random, donor) => {
    const at = Math.floor(random() * bytes.length);
    const from = Math.floor(random() * donor.length);
    const piece = donor.subarray(from, from + 1 + Math.floor(random() * 4096));
    const cut = Math.floor(random() * 4096);
    const out = new Uint8Array(at + piece.length + Math.max(0, bytes.length - at - cut));
    out.set(bytes.subarray(0, at));
    out.set(piece, at);
    out.set(bytes.subarray(at + cut), at + piece.length);
    return out;
  },
};

const sources: [string, number][] = [
  ['mnist.onnx', 600],
  ['super-resolution-10.onnx', 450],
  ['yunet-n-dynamic.onnx', 150],
];

describe('fuzzed fixtures', () => {
  for (const [name, cases] of sources) {
    it(`${cases} mutations of ${name} each end in a model or a named error`, () => {
      const bytes = readModel(name);
      const donor = readModel('ultraface-rfb-320.onnx');
      const random = rng(cases * 7919 + name.length);
      const outcomes: Record<string, number> = {};
      let slowest = 0;
      for (let i = 0; i < cases; i++) {
        const kind = Object.keys(mutations)[i % 3];
        const mutated = mutations[kind](bytes, random, donor);
        const start = performance.now();
        let outcome = 'model';
        try {
          const { model } = openModel(mutated);
          encode(model);
        } catch (e) {
          const errorName = e instanceof Error ? e.name : typeof e;
          if (!(STUDIO_ERROR_NAMES as readonly string[]).includes(errorName)) {
            throw new Error(
              `case ${i} (${kind}) ended in an unnamed error: ${errorName}: ${String((e as Error)?.message)}`,
              { cause: e },
            );
          }
          outcome = errorName;
        }
        slowest = Math.max(slowest, performance.now() - start);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }
      // Bound per case: far above a normal parse (milliseconds), far below a hang.
      expect(slowest).toBeLessThan(5_000);
      expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(cases);
      // Both ways out must actually occur, or the mutations are not exercising the parser.
      expect(outcomes.model ?? 0).toBeGreaterThan(0);
      expect(cases - (outcomes.model ?? 0)).toBeGreaterThan(0);
      console.log(name, JSON.stringify(outcomes), `slowest ${slowest.toFixed(1)} ms`);
    });
  }
});
