import { describe, expect, it } from 'vitest';
import { ladderShortfall, type GridMeasurement, type PrecisionCeiling, type WeightCeiling } from './ladderShortfall.ts';
import { growPrecision } from '../search/precisionGrowth.ts';
import type { MixedPrecisionResult } from '../search/mixedPrecision.ts';
import type { PrecisionUnit } from '../search/precisionUnit.ts';
import { getPreset } from '../quantize/presets.ts';
import type { QuantConfig } from '../quantize/config.ts';
import { shortfallSections } from '../report/shortfallText.ts';

const acts: PrecisionUnit[] = Array.from({ length: 8 }, (_, i) => ({ kind: 'act16', names: [`a${i}`], cost: 2 }));
const weights: PrecisionUnit[] = Array.from({ length: 4 }, (_, i) => ({ kind: 'w16', names: [`w${i}`], cost: 1 }));
const target = { metric: 'sequence', value: 0.875 };
const wide = (c: QuantConfig) => Object.keys(c.extraOptions.TensorQuantOverrides).length;

/** What the search measured: single units with their gain (the evidence the report lists). */
function search(): MixedPrecisionResult {
  return {
    sensitivities: [
      { kind: 'act16', units: [acts[0]], cost: 2, gain: 0.4 },
      { kind: 'w16', units: [weights[1]], cost: 1, gain: 0.1 },
      { kind: 'act16', units: [acts[5]], cost: 2, gain: -0.2 },
    ],
    chosen: { act16: ['a0'], w16: [], float: [] },
    budget: {
      act16: { limit: 2, used: 2, of: 16 },
      w16: { limit: 1, used: 0, of: 4 },
      float: { limit: 0, used: 0, of: 0 },
    },
  } as unknown as MixedPrecisionResult;
}

/** A growth that misses at every size: its score rises with the units wide but stays under the target. */
function missingGrowth() {
  return growPrecision({
    config: getPreset('A8W8'),
    ranking: [...acts, ...weights],
    start: 1,
    limit: 6,
    score: async (c) => ({ score: 0.1 * wide(c), metrics: { cer: 0.2 - 0.02 * wide(c) } }),
    met: (v) => v >= target.value,
  });
}

const rung = (index: number, mixedPrecision: boolean, score: number, detail?: unknown) => ({
  rung: { index, label: `rung ${index}`, recipe: { mixedPrecision } },
  score,
  metrics: { cer: 0.03 },
  met: score >= target.value,
  detail,
});

describe("the ladder's shortfall: which tensors block the target, and why", () => {
  it('is absent when a rung met the target', () => {
    expect(ladderShortfall(target, [rung(1, false, 0.9)], [])).toBeUndefined();
  });

  it('says no mixed-precision rung was measured, with the reason it was skipped', () => {
    const s = ladderShortfall(
      target,
      [rung(1, false, 0.5)],
      [{ label: 'Mixed precision (A8W8)', reason: 'over the time budget' }],
    )!;
    expect(s.why[0]).toMatch(/No mixed-precision rung was measured \(Mixed precision \(A8W8\): over the time budget\)/);
    expect(s.growth).toEqual([]);
  });

  it('lists every held-in growth step, the tensors lifted in the largest set, the sensitive units, and that every activation at 16 bits meets it: A16W8', async () => {
    const growth = await missingGrowth();
    expect(growth.met).toBe(false);
    const ceiling: PrecisionCeiling = {
      act16: 16,
      w16: 2,
      heldIn: { score: 0.625, metrics: { cer: 0.037 } },
      heldOut: { score: 0.875, metrics: { cer: 0.0094 } },
    };
    const s = ladderShortfall(
      target,
      [rung(1, false, 0.5), rung(2, true, 0.6875, { mixedPrecision: search(), growth, ceiling })],
      [],
    )!;
    expect(s.rung).toBe(2);
    // Doubling from 1 to the limit of 6: 1, 2, 4, 6 units, each measured on the held-in samples.
    expect(s.growth.map((g) => [g.act16, g.w16])).toEqual([
      [2, 0],
      [4, 0],
      [8, 0],
      [12, 0],
    ]);
    expect(s.growthStopped).toBe('limit');
    expect(s.lifted).toEqual({ activations: ['a0', 'a1', 'a2', 'a3', 'a4', 'a5'], weights: [] });
    // Only units that gained, largest first.
    expect(s.sensitive).toEqual([
      { kind: 'act16', tensors: ['a0'], gain: 0.4 },
      { kind: 'w16', tensors: ['w1'], gain: 0.1 },
    ]);
    expect(s.ceiling).toMatchObject({ act16: 16, w16: 2, met: true });
    expect(s.why[0]).toMatch(/needs every activation at 16 bits: with all 16 activation Q\/DQ pairs and 2 weights/);
    expect(s.why[0]).toMatch(/\(A16W8\), not an 8-bit model/);
    expect(s.why[1]).toMatch(
      /grew the 16-bit set over 4 sizes .* up to 12 activation Q\/DQ pairs .* none met sequence ≥ 0\.875; its limit is 6 of the 12 units/,
    );
    // The chosen set read 0.6 held in and 0.6875 held out: the held-in samples are the harder ones.
    expect(s.why[2]).toMatch(
      /held-in samples read worse than the held-out ones \(held in 0\.6 \(CER 8\.00 %\), held out 0\.6875/,
    );
    const text = shortfallSections(s).flatMap((x) => [x.heading, ...x.lines]);
    expect(text).toContain('12 activation pairs, 0 weights at 16 bits: held in 0.6, CER 8.00 %');
    expect(text).toContain(
      'every activation at 16 bits (16 pairs, 2 weights): held in 0.625, CER 3.70 %, held out 0.875, CER 0.94 % (met)',
    );
    expect(text).toContain('6 activations: a0, a1, a2, a3, a4, a5');
  });

  it('says when even every activation at 16 bits misses, and when the budget stopped the growth', async () => {
    let calls = 0;
    const growth = await growPrecision({
      config: getPreset('A8W8'),
      ranking: [...acts, ...weights],
      start: 1,
      limit: 6,
      score: async () => ({ score: 0.25, metrics: {} }),
      met: (v) => v >= target.value,
      stop: () => ++calls > 1,
    });
    const s = ladderShortfall(
      target,
      [
        rung(3, true, 0.25, {
          mixedPrecision: search(),
          growth,
          ceiling: { act16: 16, w16: 0, heldIn: { score: 0.5, metrics: {} }, heldOut: { score: 0.5, metrics: {} } },
        }),
      ],
      [],
    )!;
    expect(s.growthStopped).toBe('time');
    expect(s.ceiling?.met).toBe(false);
    expect(s.why[0]).toMatch(/^Even every activation at 16 bits misses sequence ≥ 0\.875/);
    expect(s.why[1]).toMatch(/the time budget stopped it/);
    expect(s.why.some((w) => /held-in samples read worse/.test(w))).toBe(false);
  });

  it('says whether the 8-bit activations or the 8-bit weights carry the error, from every weight at 16 bits measured', async () => {
    const growth = await missingGrowth();
    const ceiling: PrecisionCeiling = {
      act16: 16,
      w16: 2,
      heldIn: { score: 0.625, metrics: { cer: 0.0439 } },
      heldOut: { score: 0.6875, metrics: { cer: 0.0248 } },
    };
    const shortfall = (weightCeiling: WeightCeiling) =>
      ladderShortfall(
        target,
        [rung(2, true, 0.625, { mixedPrecision: search(), growth, ceiling, weightCeiling })],
        [],
      )!;
    // The recognizer's pattern: all weights at 16 bits leave the 8-bit activations' error nearly whole.
    const activations = shortfall({
      w16: 4,
      heldIn: { score: 0.25, metrics: { cer: 0.1122 } },
      heldOut: { score: 0.5, metrics: { cer: 0.0792 } },
    });
    expect(activations.weightCeiling).toEqual({
      w16: 4,
      heldIn: { score: 0.25, cer: 0.1122 },
      heldOut: { score: 0.5, cer: 0.0792 },
      met: false,
    });
    expect(activations.why[1]).toBe(
      'The 8-bit activations carry more of the error than the 8-bit weights: with all 4 weights at 16 bits and every activation at 8 the held-out samples read 0.5 (CER 7.92 %) (held in 0.25 (CER 11.22 %)), against 0.6875 (CER 2.48 %) with every activation at 16 bits.',
    );
    expect(shortfallSections(activations).flatMap((x) => x.lines)).toContain(
      'every weight at 16 bits (4), activations at 8: held in 0.25, CER 11.22 %, held out 0.5, CER 7.92 %',
    );
    // Where the weights at 16 bits meet the target, the weights' rounding is named instead.
    const weights = shortfall({
      w16: 4,
      heldIn: { score: 0.75, metrics: {} },
      heldOut: { score: 0.9375, metrics: {} },
    });
    expect(weights.weightCeiling?.met).toBe(true);
    expect(weights.why[1]).toMatch(
      /meet sequence ≥ 0\.875 .*: the weights' rounding is what keeps the 8-bit model short/,
    );
    // Neither better than the other: the figure alone.
    const neither = shortfall({ w16: 4, heldIn: { score: 0.5, metrics: {} }, heldOut: { score: 0.75, metrics: {} } });
    expect(neither.why[1]).toMatch(
      /^With all 4 weights at 16 bits and every activation at 8 the held-out samples read 0\.75 .*short of/,
    );
  });
  it('says how many bits the activations and the weights need, from the coarser grids measured', async () => {
    const growth = await missingGrowth();
    const judged = (
      activationBits: number,
      weightBits: number,
      heldIn: number,
      heldOut: number,
      cer: number,
    ): GridMeasurement => ({
      activationBits,
      weightBits,
      heldIn: { score: heldIn, metrics: {} },
      heldOut: { score: heldOut, metrics: { cer } },
    });
    const shortfall = (grids: GridMeasurement[]) =>
      ladderShortfall(target, [rung(2, true, 0.625, { mixedPrecision: search(), growth, grids })], [])!;
    // The recognizer's figures (bench/README "How many bits"): activations at 12 bits meet it, at 10 not; weights at 10 not.
    const s = shortfall([
      judged(12, 16, 0.875, 1, 0),
      judged(10, 16, 0.6875, 0.75, 0.0545),
      judged(16, 10, 0.875, 0.8125, 0.0149),
    ]);
    expect(s.grids).toEqual([
      { activationBits: 12, weightBits: 16, heldIn: { score: 0.875 }, heldOut: { score: 1, cer: 0 }, met: true },
      {
        activationBits: 10,
        weightBits: 16,
        heldIn: { score: 0.6875 },
        heldOut: { score: 0.75, cer: 0.0545 },
        met: false,
      },
      {
        activationBits: 16,
        weightBits: 10,
        heldIn: { score: 0.875 },
        heldOut: { score: 0.8125, cer: 0.0149 },
        met: false,
      },
    ]);
    expect(s.why).toContain(
      'Measured on coarser grids (16-bit Q/DQ stepped as fewer bits, not clipped at their ends), against sequence ≥ 0.875: with every weight at 16 bits and every activation on a coarser grid the held-out samples read 10 bits 0.75 (CER 5.45 %), 12 bits 1 (CER 0.00 %) (met): so the activations need about 12 bits, 4 more than 8; with every activation at 16 bits and every weight on a coarser grid the held-out samples read 10 bits 0.8125 (CER 1.49 %): so the weights need more than 10 bits.',
    );
    expect(shortfallSections(s).flatMap((x) => x.lines)).toContain(
      'every activation on a 10-bit grid, every weight at 16 bits (16-bit Q/DQ stepped coarser): held in 0.6875, held out 0.75, CER 5.45 %',
    );
    // None measured (the budget ran out first): no sentence, no field.
    const none = shortfall([]);
    expect(none.grids).toBeUndefined();
    expect(none.why.some((w) => /coarser grids/.test(w))).toBe(false);
  });
});
