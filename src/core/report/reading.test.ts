import { describe, expect, it } from 'vitest';
import { QUARK_TARGETS, aimedReading, headlineFigures, readResult } from './reading.ts';

const quark = {
  cosine: { value: QUARK_TARGETS.cosine, source: 'quark' as const },
  psnr: { value: QUARK_TARGETS.psnr, source: 'quark' as const },
};

describe('reading a result', () => {
  it('reads the sample-like figures against Quark’s thresholds, with no change on a first run', () => {
    const figures = headlineFigures({
      fidelity: { meanCosine: 0.949452 },
      outputs: [
        {
          output: 'y',
          metrics: {
            cosine: { mean: 0.949452, min: 0.9, max: 0.97, count: 6 },
            psnr: { mean: 25.01, min: 19, max: 31, count: 6 },
          },
        },
      ],
    });
    expect(figures).toEqual({ cosine: 0.949452, psnr: 25.01 });
    const [cos, psnr] = readResult(figures, quark, null);
    expect(cos).toMatchObject({ metric: 'cosine', meets: false, change: null });
    expect(cos.margin).toBeCloseTo(-0.030548, 6);
    expect(psnr).toMatchObject({ metric: 'psnr', meets: false });
  });

  it("reads the figure at the runtime's default options ('all') where the report has one: what a user's session computes", () => {
    const own = {
      output: 'y',
      metrics: { cosine: { mean: 0.99, min: 0.98, max: 1, count: 2 }, psnr: { mean: 40, min: 39, max: 41, count: 2 } },
    };
    const atAll = {
      output: 'y',
      metrics: {
        cosine: { mean: 0.97, min: 0.96, max: 0.98, count: 2 },
        psnr: { mean: 28, min: 27, max: 29, count: 2 },
      },
    };
    const figures = headlineFigures({
      fidelity: { meanCosine: 0.99 },
      outputs: [own],
      atDefault: { fidelity: { meanCosine: 0.97 }, outputs: [atAll] },
    });
    expect(figures).toEqual({ cosine: 0.97, psnr: 28 });
    expect(headlineFigures({ fidelity: { meanCosine: 0.99 }, outputs: [own], atDefault: null })).toEqual({
      cosine: 0.99,
      psnr: 40,
    });
  });

  it('takes the user’s target and measures the change from the previous run', () => {
    const [cos] = readResult(
      { cosine: 0.995, psnr: null },
      { ...quark, cosine: { value: 0.99, source: 'user' } },
      { cosine: 0.98, psnr: 31 },
    );
    expect(cos.meets).toBe(true);
    expect(cos.target.source).toBe('user');
    expect(cos.change).toBeCloseTo(0.015, 9);
  });

  it('leaves out a metric the report does not have', () => {
    expect(readResult({ cosine: 0.99, psnr: null }, quark, null).map((r) => r.metric)).toEqual(['cosine']);
  });

  it('aims the next step at the figure short of its target, not at a cosine already met (the sample: 0.983, 28.5 dB)', () => {
    const readings = readResult({ cosine: 0.98283, psnr: 28.5 }, quark, null);
    expect(aimedReading(readings)).toMatchObject({ metric: 'psnr', target: { value: 30 } });
    expect(aimedReading(readResult({ cosine: 0.95, psnr: 23 }, quark, null))?.metric).toBe('cosine');
    expect(aimedReading(readResult({ cosine: 0.999, psnr: 40 }, quark, null))).toBeNull();
  });
});
