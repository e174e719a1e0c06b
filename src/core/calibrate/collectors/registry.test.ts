import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_METHODS,
  COLLECTORS,
  activationCollectorMethod,
  createState,
  finalizeState,
  getCollector,
  mergeStates,
  updateState,
  weightCollectorMethod,
} from './registry.ts';
import { CollectorMismatchError } from './types.ts';
import { concat, randomPartition, unevenBatches } from '../testData.ts';

describe('collector registry', () => {
  it('has a collector for every method name, keyed by the name its states carry', () => {
    expect(CALIBRATION_METHODS).toEqual([
      'MinMax',
      'NonOverflow',
      'Percentile',
      'Entropy',
      'Distribution',
      'MinMSE',
      'PowerOfTwoMinMSE',
      'LayerwisePercentile',
      'ConsumerMSE',
    ]);
    for (const m of CALIBRATION_METHODS) {
      expect(COLLECTORS[m].method).toBe(m);
      expect(createState(m).method).toBe(m);
    }
  });

  it('rejects an unknown method name', () => {
    expect(() => getCollector('Median' as never)).toThrow(RangeError);
  });

  it('passes options through to the collector', () => {
    expect(createState('Percentile', { percentile: 99 }).options.percentile).toBe(99);
  });

  it('keeps the default for an option passed as undefined (unset configuration fields)', () => {
    expect(createState('Percentile', { percentile: undefined, numBins: 512 }).options).toEqual({
      percentile: 99.999,
      numBins: 512,
      symmetric: true,
    });
    expect(createState('MinMax', { symmetric: undefined, movingAverage: undefined }).options).toEqual({
      symmetric: false,
      movingAverage: false,
    });
  });
});

describe('every collector, through state dispatch', () => {
  const batches = unevenBatches(12, 1000, 81);

  for (const method of CALIBRATION_METHODS) {
    it(`${method}: merges of partial states in any order equal one fold, also across structuredClone`, () => {
      const fold = (bs: Float32Array[]) => bs.reduce((s, b) => updateState(s, b), createState(method));
      const whole = finalizeState(fold(batches));
      expect(Number.isFinite(whole.min) && Number.isFinite(whole.max)).toBe(true);
      expect(whole.min).toBeLessThanOrEqual(whole.max);
      for (let seed = 1; seed <= 3; seed++) {
        // Partial states cross a (simulated) worker boundary before being merged.
        const parts = randomPartition(batches, 2 + seed, seed).map((g) => structuredClone(fold(g)));
        expect(finalizeState(parts.reduce((a, b) => mergeStates(a, b)))).toEqual(whole);
        expect(finalizeState(parts.reverse().reduce((a, b) => mergeStates(b, a)))).toEqual(whole);
      }
    });
  }

  for (const method of CALIBRATION_METHODS.filter((m) => m !== 'MinMax' && m !== 'NonOverflow')) {
    it(`${method}: one batch of everything equals the batches one by one`, () => {
      // Histogram methods depend on the values only, not on how they were batched.
      const byBatch = batches.reduce((s, b) => updateState(s, b), createState(method));
      expect(finalizeState(updateState(createState(method), concat(batches)))).toEqual(finalizeState(byBatch));
    });
  }

  it('refuses to merge states of different methods', () => {
    expect(() => mergeStates(createState('MinMax'), createState('Percentile') as never)).toThrow(
      CollectorMismatchError,
    );
  });

  it('refuses to merge states with different options', () => {
    expect(() => mergeStates(createState('Entropy'), createState('Entropy', { numBins: 256 }))).toThrow(
      CollectorMismatchError,
    );
  });

  it('finalizes an empty state to [0, 0]', () => {
    for (const m of CALIBRATION_METHODS) {
      const r = finalizeState(createState(m));
      expect([r.min, r.max]).toEqual([0, 0]);
    }
  });
});

describe('configuration → collector (Quark maps.py)', () => {
  it('maps activation methods by scale type', () => {
    expect(activationCollectorMethod('MinMax', 'Float32')).toBe('MinMax');
    expect(activationCollectorMethod('MinMax', 'PowerOf2')).toBe('NonOverflow');
    expect(activationCollectorMethod('MinMSE', 'PowerOf2')).toBe('PowerOfTwoMinMSE');
    expect(activationCollectorMethod('MinMSE', 'Float32')).toBe('MinMSE');
    expect(activationCollectorMethod('Percentile', 'Float32')).toBe('Percentile');
    expect(activationCollectorMethod('LayerwisePercentile', 'Float32')).toBe('LayerwisePercentile');
  });

  it('maps float-scale weight methods: MinMSE searches, the rest is MinMax', () => {
    expect(weightCollectorMethod('MinMSE')).toBe('MinMSE');
    expect(weightCollectorMethod('Percentile')).toBe('MinMax');
  });
});
