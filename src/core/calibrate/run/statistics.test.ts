/**
 * rangesOf: the method's range, and the extremes seen beside it where the method clipped them. stateBuffers: what a
 * worker may transfer of its states.
 */
import { describe, expect, it } from 'vitest';
import { createState, updateState, type CollectorState } from '../collectors/registry.ts';
import { rangesOf, stateBuffers, type TensorStates } from './statistics.ts';
import { gaussian } from '../testData.ts';

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
