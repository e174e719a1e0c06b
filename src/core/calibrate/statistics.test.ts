/** rangesOf: the method's range, and the extremes seen beside it where the method clipped them. */
import { describe, expect, it } from 'vitest';
import { createState, updateState, type CollectorState } from './collectors.ts';
import { rangesOf, type TensorStates } from './statistics.ts';
import { gaussian } from './test-data.ts';

describe('rangesOf', () => {
  it('keeps the observed extremes where Percentile clipped an outlier, and adds nothing for MinMax', () => {
    const values = gaussian(5000, 1);
    values[7] = 30;
    values[8] = -12;
    const states: TensorStates = new Map<string, CollectorState>([['p', createState('Percentile')], ['m', createState('MinMax')]]);
    for (const s of states.values()) updateState(s, values);
    const r = rangesOf(states);
    expect(r.get('p')!.max).toBeLessThan(30);
    expect(r.get('p')!.observed).toEqual({ min: -12, max: 30 });
    expect(r.get('m')).toEqual({ min: -12, max: 30 });
  });
});
