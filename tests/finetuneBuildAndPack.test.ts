/**
 * Two of fine-tuning's hot paths kept to the same arithmetic bit for bit (so the written models stay byte-identical):
 * a grouped layer's problem built a chunk of rows at a time (layerProblem.ts) against a plain reference that sums every
 * entry of G and c over the rows in order and τ in dot()'s four interleaved sums, and AdaRound's packing of the weights
 * still learning (adaround.ts pack, runs moved at once) against moving them one by one.
 */
import { describe, expect, it } from 'vitest';
import { buildLayerProblem, type ReconstructionTarget } from '../src/core/recovery/layerProblem.ts';
import { pack } from '../src/core/recovery/adaround.ts';
import { roundingState } from '../src/core/recovery/roundingKernel.ts';
import type { IncrementalObjective } from '../src/core/recovery/incrementalObjective.ts';
import type { LayerRows } from '../src/core/recovery/layerData.ts';
import { smallLayerRows } from './helpers/layerRows.ts';
import { seededFloats } from './helpers/fixtures.ts';

/** Group g's G, c and τ by the definitions, each sum in row order (τ as dot() sums: four stripes, the tail in the first). */
function reference(data: LayerRows, target: ReconstructionTarget, g: number) {
  const { layer, rows, width } = data;
  const kg = layer.inPerGroup;
  const k = kg + 1;
  const outPerGroup = layer.outChannels / layer.groups;
  const from = target === 'float' ? data.floatRows : data.quantRows;
  const inv = 1 / rows;
  const a = (r: number, i: number) => (i === kg ? 1 : data.quantRows[r * width + g * kg + i]);
  const t = (r: number, j: number) => {
    const m = g * outPerGroup + j;
    let s = 0;
    for (let i = 0; i < kg; i++) s += from[r * width + g * kg + i] * layer.floatWeight[layer.weightIndex(m, i)];
    return layer.floatBias[m] - layer.bias[m] + s;
  };
  const gram = new Float64Array(k * k);
  for (let i = 0; i < k; i++)
    for (let l = 0; l < k; l++) {
      let s = 0;
      for (let r = 0; r < rows; r++) s += a(r, i) * a(r, l);
      gram[i * k + l] = s * inv;
    }
  const cross = new Float64Array(outPerGroup * k);
  const targetSq = new Float64Array(outPerGroup);
  for (let j = 0; j < outPerGroup; j++) {
    for (let l = 0; l < k; l++) {
      let s = 0;
      for (let r = 0; r < rows; r++) s += t(r, j) * a(r, l);
      cross[j * k + l] = s * inv;
    }
    const s = [0, 0, 0, 0];
    const striped = rows - (rows % 4);
    for (let r = 0; r < rows; r++) s[r < striped ? r % 4 : 0] += t(r, j) ** 2;
    targetSq[j] = (s[0] + s[1] + s[2] + s[3]) * inv;
  }
  return { gram, cross, targetSq };
}

const bits = (x: Float64Array) => Array.from(new BigUint64Array(x.buffer, x.byteOffset, x.length));

describe('fine-tuning hot paths, bit for bit', () => {
  // Rows not a multiple of four nor of the row chunk; even and odd k; one and three channels per group.
  for (const [name, make] of [
    ['depthwise, k = 26, 203 rows', () => smallLayerRows(12, 25, 12, 203, 31)],
    ['depthwise, k = 10, 130 rows', () => smallLayerRows(8, 9, 8, 130, 33)],
    ['grouped, 3 channels a group, k = 6, 67 rows', () => smallLayerRows(12, 5, 4, 67, 35)],
    ['depthwise, k = 7 (odd: a block of columns past the last), 150 rows', () => smallLayerRows(6, 6, 6, 150, 37)],
    ['grouped, 5 channels a group, k = 4, 70 rows', () => smallLayerRows(10, 3, 2, 70, 39)],
  ] as const) {
    it(`${name}: a grouped layer's G, c and τ equal the in-order sums`, () => {
      const data = make();
      for (const target of ['float', 'local'] as const) {
        const p = buildLayerProblem(data, target, 'targets');
        expect(p.groups.length).toBe(data.layer.groups);
        p.groups.forEach((group, g) => {
          const want = reference(data, target, g);
          expect(bits(group.gram)).toEqual(bits(want.gram));
          expect(bits(group.cross)).toEqual(bits(want.cross));
          expect(bits(group.targetSq)).toEqual(bits(want.targetSq));
        });
      }
    });
  }

  for (const kernel of ['wasm', 'plain'] as const) {
    it(`AdaRound's pack (${kernel} state) keeps the staying weights in order with their state, and unwatches the leaving ones in order`, () => {
      const n = 1000;
      const r = roundingState(n, kernel);
      const values = seededFloats(8 * n, 41, -1, 1);
      const arrays = [r.floor, r.scale, r.lo, r.hi, r.V, r.m, r.v];
      for (let q = 0; q < n; q++) {
        r.learning[q] = 3 * q + 1;
        arrays.forEach((a, i) => (a[q] = values[i * n + q]));
        // Leaving: runs of every length, the first and the last included.
        r.dhdv[q] = q === 0 || q === n - 1 || values[7 * n + q] > 0.6 || (q > 500 && q < 520) ? 0 : 0.5;
      }
      const stay = [...Array(n).keys()].filter((q) => r.dhdv[q] !== 0);
      const leave = [...Array(n).keys()].filter((q) => r.dhdv[q] === 0);
      const before = [r.learning, ...arrays].map((a) => Array.from(a.subarray(0, n)));
      const unwatched: number[] = [];
      const objective = { unwatch: (at: number) => unwatched.push(at) } as unknown as IncrementalObjective;
      const up = new Uint8Array(3 * n + 1).fill(7);
      const kept = pack(r, n, up, objective);
      expect(kept).toBe(stay.length);
      [r.learning, ...arrays].forEach((a, i) =>
        expect(Array.from(a.subarray(0, kept))).toEqual(stay.map((q) => before[i][q])),
      );
      expect(unwatched).toEqual(leave.map((q) => 3 * q + 1));
      for (const q of leave) expect(up[3 * q + 1]).toBe(before[5][q] >= 0 ? 1 : 0);
      for (const q of stay) expect(up[3 * q + 1]).toBe(7);
    });
  }
});
