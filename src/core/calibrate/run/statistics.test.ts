/**
 * rangesOf: the method's range, and the extremes seen beside it where the method clipped them. stateBuffers: what a
 * worker may transfer of its states. foldRunInto: several methods' statistics from the same runs, each batch counted
 * once per histogram, the same states as folding each set on its own; within one run's folds, MinMax takes the
 * histogram kernel's extremes of a batch instead of scanning it again.
 */
import { describe, expect, it, vi } from 'vitest';
import { createState, updateState, type CollectorState } from '../collectors/registry.ts';
import { foldRun, foldRunInto, rangesOf, stateBuffers, type TensorStates } from './statistics.ts';
import { gaussian } from '../testData.ts';
import { getPreset } from '../../quantize/presets.ts';
import { sharingBatchExtremes } from '../collectors/minmax.ts';
import { histogramKernel } from '../histogram/histogramKernel.ts';
import { KERNEL_MIN_VALUES } from '../histogram/histogram.ts';
import { withOptions, type QuantConfig } from '../../quantize/config.ts';

describe('rangesOf', () => {
  it('keeps the observed extremes where Percentile clipped an outlier, and adds nothing for MinMax', () => {
    const values = gaussian(5000, 1);
    values[7] = 30;
    values[8] = -12;
    const states: TensorStates = new Map<string, CollectorState>([
      ['p', createState('Percentile')],
      ['m', createState('MinMax')],
    ]);
    for (const s of states.values()) updateState(s, values);
    const r = rangesOf(states);
    expect(r.get('p')!.max).toBeLessThan(30);
    expect(r.get('p')!.observed).toEqual({ min: -12, max: 30 });
    expect(r.get('m')).toEqual({ min: -12, max: 30 });
  });
});

describe('stateBuffers', () => {
  it("lists each histogram's bins once and nothing for MinMax; a view on part of a buffer is left to be copied", () => {
    const values = gaussian(5000, 1);
    const states: TensorStates = new Map<string, CollectorState>([
      ['e', createState('Entropy')],
      ['p', createState('Percentile')],
      ['m', createState('MinMax')],
    ]);
    for (const s of states.values()) updateState(s, values);
    const bins = (name: string) => (states.get(name) as unknown as { hist: { bins: Float64Array } }).hist.bins;
    expect(stateBuffers(states)).toEqual([bins('e').buffer, bins('p').buffer]);
    const whole = new Float64Array(2 * bins('p').length);
    (states.get('p') as unknown as { hist: { bins: Float64Array } }).hist.bins = whole.subarray(0, whole.length / 2);
    expect(stateBuffers(states)).toEqual([bins('e').buffer]);
  });
});

describe('foldRunInto', () => {
  const a8w8 = getPreset('A8W8');
  const methods = ['MinMax', 'MinMSE', 'Entropy', 'Percentile'] as const;
  const configs: QuantConfig[] = [
    ...methods.map((m) => withOptions(a8w8, { calibrationMethod: m })),
    // a histogram of |x| beside the signed ones, and a power-of-two search
    withOptions(a8w8, { calibrationMethod: 'Percentile', extraOptions: { CalibTensorRangeSymmetric: true } }),
    getPreset('XINT8'),
  ];
  /** Batches whose ranges grow (the layout widens), shrink, and one with NaN and infinities. */
  const batches = (): Float32Array[] => {
    const odd = gaussian(5000, 0.5);
    odd[3] = NaN;
    odd[9] = Infinity;
    odd[11] = -Infinity;
    return [gaussian(10000, 1), gaussian(20000, 8).map((x) => x + 3), gaussian(300, 0.01), odd, new Float32Array(5000)];
  };

  it('makes the same states as folding every configuration on its own, run by run', () => {
    const each = configs.map((): TensorStates => new Map());
    const shared = configs.map((): TensorStates => new Map());
    for (const [i, values] of batches().entries()) {
      const outputs = {
        t: { type: 'float32', data: values },
        [`only${i % 2}`]: { type: 'float32', data: values.slice(7) },
      };
      configs.forEach((c, k) => foldRun(each[k], outputs, c));
      foldRunInto(
        configs.map((config, k) => ({ states: shared[k], config })),
        outputs,
      );
      expect(shared.map((s) => Object.fromEntries(s))).toEqual(each.map((s) => Object.fromEntries(s)));
    }
    // the histograms are copies, not one object: a later fold into one set leaves the others alone
    const hist = (k: number) => (shared[k].get('t') as unknown as { hist: { bins: Float64Array } }).hist;
    expect(hist(1)).not.toBe(hist(2));
    expect(hist(1).bins).not.toBe(hist(2).bins);
    expect(hist(1).bins).toEqual(hist(2).bins);
  });

  it("inside sharingBatchExtremes, MinMax takes the extremes the histogram's kernel took of the batch: the same states, one scan fewer", () => {
    const kernel = histogramKernel();
    expect(kernel).not.toBeNull();
    const scans = vi.spyOn(kernel!, 'extremes');
    const pair = [configs[0], configs[2]]; // MinMax and Entropy, as the held-in choice folds them together
    const alone = pair.map((): TensorStates => new Map());
    const together = pair.map((): TensorStates => new Map());
    // A Relu-like batch whose minimum is a zero of either sign, after the growing, shrinking and non-finite ones.
    const relu = gaussian(6000, 1).map((x) => Math.max(x, 0));
    relu[10] = -0;
    try {
      for (const [i, values] of [...batches(), relu].entries()) {
        const outputs = { t: { type: 'float32', data: values } };
        pair.forEach((c, k) => foldRun(alone[k], outputs, c));
        scans.mockClear();
        sharingBatchExtremes(() =>
          foldRunInto(
            pair.map((config, k) => ({ states: together[k], config })),
            outputs,
          ),
        );
        expect(together.map((s) => Object.fromEntries(s))).toEqual(alone.map((s) => Object.fromEntries(s)));
        // The empty histogram's scan serves MinMax on the first batch; later, counting takes the extremes in its pass.
        if (values.length >= KERNEL_MIN_VALUES && values.every((x) => Number.isFinite(x)))
          expect(scans, `batch ${i}`).toHaveBeenCalledTimes(i === 0 ? 1 : 0);
      }
    } finally {
      scans.mockRestore();
    }
  });

  it('folds apart sets whose histograms already differ (no copy from a state that saw other batches)', () => {
    const [first, second] = [configs[1], configs[2]];
    const ahead: TensorStates = new Map();
    const behind: TensorStates = new Map();
    foldRun(ahead, { t: { type: 'float32', data: gaussian(4000, 2) } }, first);
    const soloAhead: TensorStates = new Map();
    foldRun(soloAhead, { t: { type: 'float32', data: gaussian(4000, 2) } }, first);
    const soloBehind: TensorStates = new Map();
    for (const values of batches()) {
      const outputs = { t: { type: 'float32', data: values } };
      foldRunInto(
        [
          { states: ahead, config: first },
          { states: behind, config: second },
        ],
        outputs,
      );
      foldRun(soloAhead, outputs, first);
      foldRun(soloBehind, outputs, second);
    }
    expect(Object.fromEntries(ahead)).toEqual(Object.fromEntries(soloAhead));
    expect(Object.fromEntries(behind)).toEqual(Object.fromEntries(soloBehind));
  });
});
