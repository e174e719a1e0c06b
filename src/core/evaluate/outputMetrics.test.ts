import { describe, expect, it } from 'vitest';
import { isSequenceLike, meanOutputCosine, outputMetrics } from './outputMetrics.ts';
import { ladderMetrics, ladderScore } from '../recovery/ladderMeasure.ts';
import { renderSummary, summarizeSamples } from '../metrics/metricSummary.ts';
import { LadderTargetError } from '../recovery/ladder.ts';

/** [1, steps, 3] probabilities with the given winner per step (0.8 on it, 0.1 elsewhere). */
function probabilities(winners: number[]): Float32Array {
  const out = new Float32Array(winners.length * 3).fill(0.1);
  winners.forEach((c, t) => (out[t * 3 + c] = 0.8));
  return out;
}

describe("sequence metrics in a sample's output metrics", () => {
  it('are computed on [batch, steps, classes] probabilities', () => {
    // float "1 2" (1 1 _ 2), quantized "1" (1 1 _ _): one deletion of two characters
    const m = outputMetrics(probabilities([1, 1, 0, 2]), probabilities([1, 1, 0, 0]), [1, 4, 3]);
    expect(m.stepTop1).toBe(0.75);
    expect(m.sequence).toBe(0);
    expect(m.cer).toBe(0.5);
  });

  it('are left out of outputs that are not sequences of probabilities, unless forced', () => {
    const logits = new Float32Array([3, -1, 0, 0, 2, 1]);
    expect(isSequenceLike([1, 2, 3], logits)).toBe(false);
    expect(isSequenceLike([1, 2, 3], probabilities([1, 2]))).toBe(true);
    expect(isSequenceLike([2, 3], probabilities([1, 2]))).toBe(false);
    expect(outputMetrics(logits, logits, [1, 2, 3]).sequence).toBeUndefined();
    expect(outputMetrics(logits, logits, [1, 2, 3], { sequence: 'always' }).sequence).toBe(1);
    expect(
      outputMetrics(probabilities([1, 2]), probabilities([1, 2]), [1, 2, 3], { sequence: 'never' }).cer,
    ).toBeUndefined();
  });

  it('make a ladder score (mean over samples of the share decoded alike) with CER beside it', () => {
    const records = [
      { output: 'y', metrics: outputMetrics(probabilities([1, 0, 2]), probabilities([1, 0, 2]), [1, 3, 3]) },
      { output: 'y', metrics: outputMetrics(probabilities([1, 0, 2]), probabilities([1, 0, 1]), [1, 3, 3]) },
    ];
    const outputs = summarizeSamples(records);
    expect(ladderScore(outputs, 'sequence')).toBe(0.5);
    expect(ladderMetrics(outputs).cer).toBe(0.25);
    expect(() => ladderScore(summarizeSamples([{ output: 'y', metrics: { cosine: 1 } }]), 'sequence')).toThrow(
      LadderTargetError,
    );
  });
});

describe('metrics that make sense for the output', () => {
  it('top-5 agreement only where there are more than 5 classes; top-1 from 2', () => {
    const two = outputMetrics(Float32Array.of(0.2, 0.8), Float32Array.of(0.7, 0.3), [1, 2]);
    expect(two.top1).toBe(0);
    expect(two.top5).toBeUndefined();
    const five = outputMetrics(Float32Array.of(1, 2, 3, 4, 5), Float32Array.of(1, 2, 3, 4, 5), [1, 5]);
    expect(five.top5).toBeUndefined();
    const six = outputMetrics(Float32Array.of(1, 2, 3, 4, 5, 6), Float32Array.of(6, 5, 4, 3, 2, 1), [1, 6]);
    expect(six.top1).toBe(0);
    expect(six.top5).toBe(0);
  });

  it("the mean PSNR over samples is the set MSE's, not decibels averaged: an exact sample does not hide a ruined one", () => {
    const reference = Float32Array.of(1, 0, 1, 0);
    const exact = outputMetrics(reference, reference, [4]);
    const ruined = outputMetrics(reference, Float32Array.of(0, 1, 0, 1), [4]);
    expect(exact.psnr).toBeCloseTo(100, 6);
    expect(ruined.psnr).toBeCloseTo(0, 6);
    const [summary] = summarizeSamples([
      { output: 'y', metrics: exact },
      { output: 'y', metrics: ruined },
    ]);
    // mean MSE (0 + 1) / 2 = 0.5 against peak 1: 10·log10(2) ≈ 3.01 dB (averaged dB would say 50).
    expect(summary.metrics.psnr!.mean).toBeCloseTo(10 * Math.log10(2), 6);
    expect(summary.metrics.psnr!.min).toBeCloseTo(0, 6);
    expect(summary.metrics.psnr!.max).toBeCloseTo(100, 6);
  });
});

describe('single-probability outputs (a VAD speech probability, a wake-word score)', () => {
  it('get decision agreement at the threshold and absolute error, not a cosine over one number', () => {
    const same = outputMetrics(Float32Array.of(0.7), Float32Array.of(0.55), [1, 1]);
    expect(same).toEqual({ absError: expect.closeTo(0.15, 6), decision: 1 });
    const flipped = outputMetrics(Float32Array.of(0.52), Float32Array.of(0.47), [1, 1]);
    expect(flipped.decision).toBe(0);
    expect(flipped.cosine).toBeUndefined();
    // Another threshold moves the decision; a value outside [0, 1] is no probability: absolute error only.
    expect(outputMetrics(Float32Array.of(0.52), Float32Array.of(0.47), [1, 1], { threshold: 0.4 }).decision).toBe(1);
    expect(outputMetrics(Float32Array.of(3.5), Float32Array.of(3.25), [1]).decision).toBeUndefined();
    const summary = summarizeSamples([same, flipped].map((metrics) => ({ output: 'p', metrics })))[0];
    expect(summary.metrics.decision!.mean).toBe(0.5);
    expect(summary.metrics.absError!.max).toBeCloseTo(0.15, 6);
    expect(Object.keys(summary.metrics).sort()).toEqual(['absError', 'decision']);
    // Two numbers a sample are a tensor again.
    expect(outputMetrics(Float32Array.of(0.7, 0.2), Float32Array.of(0.6, 0.2), [1, 2]).cosine).toBeDefined();
  });
});

describe('an all-zero quantized output (a detector whose probability map quantizes to exactly 0)', () => {
  it('gets cosine 0 rather than 0 / 0, is counted, and the report names it instead of printing nan', () => {
    // A 1×1×11×11 probability map: float has text in one corner, quantized is all zeros on the first sample.
    const dims = [1, 1, 11, 11];
    const reference = new Float32Array(121);
    reference[0] = 0.9;
    reference[1] = 0.6;
    const zeros = new Float32Array(121);
    const zeroed = outputMetrics(reference, zeros, dims);
    expect(zeroed.cosine).toBe(0);
    expect(zeroed.zeroOutput).toBe(1);
    // l2 = sqrt(0.81 + 0.36) = sqrt(1.17); MSE = 1.17 / 121; PSNR = 20·log10(0.9) − 10·log10(1.17 / 121)
    expect(zeroed.l2).toBeCloseTo(Math.sqrt(1.17), 6);
    expect(zeroed.psnr).toBeCloseTo(20 * Math.log10(0.9) - 10 * Math.log10(1.17 / 121), 4);
    // Second sample: both sides all zeros (no text on the photo at all): identical outputs, cosine 1, not counted.
    const bothZero = outputMetrics(zeros, zeros, dims);
    expect(bothZero.cosine).toBe(1);
    expect(bothZero.zeroOutput).toBe(0);
    // Third: quantized keeps the map exactly.
    const kept = outputMetrics(reference, reference, dims);
    expect(kept.cosine).toBe(1);
    const summaries = summarizeSamples([zeroed, bothZero, kept].map((metrics) => ({ output: 'map', metrics })));
    expect(summaries[0].allZero).toEqual({ samples: 1, of: 3 });
    expect(summaries[0].metrics.cosine!.mean).toBeCloseTo(2 / 3, 12);
    expect(summaries[0].metrics.cosine!.min).toBe(0);
    expect(meanOutputCosine(summaries)).toEqual({ cosine: summaries[0].metrics.cosine!.mean, undefinedOutputs: 0 });
    const text = renderSummary(summaries);
    expect(text).toContain('quantized output is all zeros on 1 of 3 samples');
    expect(text).toContain('Min cos similarity: 0.0');
    expect(text).not.toMatch(/nan/);
    // No note where nothing was zeroed.
    const clean = summarizeSamples([{ output: 'map', metrics: kept }]);
    expect(clean[0].allZero).toBeUndefined();
    expect(renderSummary(clean)).not.toContain('all zeros');
  });
});
