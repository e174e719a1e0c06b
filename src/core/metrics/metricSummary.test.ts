import { describe, expect, it } from 'vitest';
import {
  allZeroLines,
  EMPTY_STAT,
  finishStat,
  foldValue,
  mergeStats,
  renderSummary,
  summarizeSamples,
  summarizeValues,
  type SampleRecord,
} from './metricSummary.ts';

describe('summarizeValues', () => {
  it('gives mean, min and max', () => {
    // (0.9 + 0.8 + 1.0) / 3 = 0.9
    expect(summarizeValues([0.9, 0.8, 1.0])).toEqual({ count: 3, mean: expect.closeTo(0.9, 15), min: 0.8, max: 1.0 });
  });

  it('propagates NaN into every statistic, as numpy mean, min and max do', () => {
    expect(summarizeValues([1, NaN, 3])).toEqual({ count: 3, mean: NaN, min: NaN, max: NaN });
  });

  it('gives NaN statistics for no values', () => {
    expect(summarizeValues([])).toEqual({ count: 0, mean: NaN, min: NaN, max: NaN });
  });

  it('keeps infinities: an identical sample with the PSNR floor off makes the mean infinite', () => {
    expect(summarizeValues([30, Infinity])).toEqual({ count: 2, mean: Infinity, min: 30, max: Infinity });
  });
});

describe('running statistics', () => {
  it('merge in any grouping to the same result as one fold', () => {
    const values = [3, -1, 4, 1, -5, 9, 2, 6];
    const fold = (vs: number[]) => vs.reduce(foldValue, EMPTY_STAT);
    const whole = fold(values);
    const left = mergeStats(mergeStats(fold(values.slice(0, 3)), fold(values.slice(3, 5))), fold(values.slice(5)));
    const right = mergeStats(fold(values.slice(0, 3)), mergeStats(fold(values.slice(3, 5)), fold(values.slice(5))));
    expect(left).toEqual(whole);
    expect(right).toEqual(whole);
    expect(mergeStats(EMPTY_STAT, whole)).toEqual(whole);
    expect(finishStat(whole)).toEqual({ count: 8, mean: 19 / 8, min: -5, max: 9 });
  });

  it('do not mutate their inputs', () => {
    const one = foldValue(EMPTY_STAT, 1);
    foldValue(one, 2);
    expect(one).toEqual({ count: 1, sum: 1, min: 1, max: 1, nanCount: 0 });
    expect(EMPTY_STAT.count).toBe(0);
  });
});

describe('summarizeSamples', () => {
  it('groups per output, in order of first appearance, and per metric', () => {
    const records: SampleRecord[] = [
      { output: 'logits', metrics: { cosine: 0.99, top1: 1 } },
      { output: 'boxes', metrics: { l2: 2 } },
      { output: 'logits', metrics: { cosine: 0.97, top1: 0 } },
    ];
    const summaries = summarizeSamples(records);
    expect(summaries.map((s) => s.output)).toEqual(['logits', 'boxes']);
    expect(summaries[0].metrics.cosine).toEqual({ count: 2, mean: expect.closeTo(0.98, 15), min: 0.97, max: 0.99 });
    expect(summaries[0].metrics.top1).toEqual({ count: 2, mean: 0.5, min: 0, max: 1 });
    expect(summaries[0].metrics.l2).toBeUndefined();
    expect(summaries[1].metrics).toEqual({ l2: { count: 1, mean: 2, min: 2, max: 2 } });
  });
});

describe('renderSummary', () => {
  // Two samples chosen so the means reproduce the example output in AMD's Ryzen AI documentation
  // ("Evaluating Quantization Quality"): e.g. cosine (0.9973 + 0.9761) / 2 = 0.9867.
  const records: SampleRecord[] = [
    { output: 'out', metrics: { cosine: 0.9973, l2: 7.35, psnr: 33.4, ssim: 0.9974 } },
    { output: 'out', metrics: { cosine: 0.9761, l2: 15.47, psnr: 26.92, ssim: 0.9888 } },
  ];

  it("prints Quark evaluate.py's eight lines for one output: mean and worst of each metric", () => {
    expect(renderSummary(summarizeSamples(records))).toBe(
      [
        'Mean cos similarity: 0.9867',
        'Min cos similarity: 0.9761',
        'Mean l2 distance: 11.41',
        'Max l2 distance: 15.47',
        'Mean psnr: 30.16',
        'Min psnr: 26.92',
        'Mean ssim: 0.9931',
        'Min ssim: 0.9888',
        '',
      ].join('\n'),
    );
  });

  it('adds a header per output when there are several, and our agreement lines after Quark’s', () => {
    const text = renderSummary(
      summarizeSamples([
        { output: 'logits', metrics: { cosine: 1, top1: 1, top5: 1 } },
        { output: 'aux', metrics: { l2: 0.5 } },
      ]),
    );
    expect(text).toBe(
      [
        '[logits]',
        'Mean cos similarity: 1.0',
        'Min cos similarity: 1.0',
        'Mean top1 agreement: 1.0',
        'Min top1 agreement: 1.0',
        'Mean top5 agreement: 1.0',
        'Min top5 agreement: 1.0',
        '',
        '[aux]',
        'Mean l2 distance: 0.5',
        'Max l2 distance: 0.5',
        '',
      ].join('\n'),
    );
  });

  it('prints all three statistics on request, with a custom number format, and nan as numpy does', () => {
    const text = renderSummary(
      summarizeSamples([
        { output: 'y', metrics: { psnr: 20 } },
        { output: 'y', metrics: { psnr: 40 } },
      ]),
      {
        allStats: true,
        headers: true,
        format: (v) => v.toFixed(1),
      },
    );
    expect(text).toBe(['[y]', 'Mean psnr: 30.0', 'Min psnr: 20.0', 'Max psnr: 40.0', ''].join('\n'));
    expect(renderSummary(summarizeSamples([{ output: 'y', metrics: { cosine: NaN } }]))).toBe(
      'Mean cos similarity: nan\nMin cos similarity: nan\n',
    );
  });

  it('renders nothing for no outputs', () => {
    expect(renderSummary([])).toBe('');
  });
});

describe('allZeroLines', () => {
  const records = (output: string, zeros: number[]): SampleRecord[] =>
    zeros.map((z) => ({ output, metrics: { cosine: z ? 0 : 0.99, zeroOutput: z } }));

  it('counts the samples whose quantized output was all zeros, in the CLI summary’s words; none when none', () => {
    const one = summarizeSamples(records('maps', [1, 1, 0, 1, 1, 1]));
    expect(allZeroLines(one)).toEqual([
      {
        output: 'maps',
        samples: 5,
        of: 6,
        text: 'quantized output is all zeros on 5 of 6 samples (cosine counts each as 0)',
      },
    ]);
    expect(renderSummary(one)).toContain(allZeroLines(one)[0].text);
    expect(allZeroLines(summarizeSamples(records('maps', [0, 0])))).toEqual([]);
  });

  it('names the output where there are several, and only those that collapsed', () => {
    const two = summarizeSamples([...records('scores', [0, 0]), ...records('boxes', [1, 0])]);
    expect(allZeroLines(two).map((l) => l.text)).toEqual([
      'boxes: quantized output is all zeros on 1 of 2 samples (cosine counts each as 0)',
    ]);
  });
});

describe('the mean CER of a set', () => {
  it('is pooled, errors over characters, not the mean of the lines’ rates', () => {
    // A short line with 1 error in 2 characters and a long one with 1 in 38: pooled 2 / 40, lines' mean 0.263.
    const [s] = summarizeSamples([
      { output: 'y', metrics: { cer: 0.5, charErrors: 1, referenceChars: 2, sequence: 0 } },
      { output: 'y', metrics: { cer: 1 / 38, charErrors: 1, referenceChars: 38, sequence: 0 } },
    ]);
    expect(s.metrics.cer!.mean).toBeCloseTo(0.05, 12);
    expect(s.metrics.cer!.max).toBe(0.5);
    expect(s.metrics.cer!.min).toBeCloseTo(1 / 38, 12);
  });
});
