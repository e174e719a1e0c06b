import { describe, expect, it } from 'vitest';
import { growPrecision, sensitivityRanking } from './precisionGrowth.ts';
import { getPreset } from '../quantize/presets.ts';
import type { PrecisionUnit } from './precisionUnit.ts';
import type { QuantConfig } from '../quantize/config.ts';

const act = (name: string, cost = 1): PrecisionUnit => ({ kind: 'act16', names: [name], cost });
const units = Array.from({ length: 40 }, (_, i) => act(`t${i}`));
const position = (u: PrecisionUnit) => units.indexOf(u);
const wide = (c: QuantConfig) => Object.keys(c.extraOptions.TensorQuantOverrides);

describe('sizing mixed precision by measured sensitivity', () => {
  it('ranks the search choice first, then the units whose smallest measured block gained, in graph order, then the rest in graph order', () => {
    const measured = [
      { kind: 'act16' as const, units, cost: 40, gain: 4 },
      { kind: 'act16' as const, units: units.slice(0, 10), cost: 10, gain: 1 },
      { kind: 'act16' as const, units: units.slice(10, 20), cost: 10, gain: -0.5 },
      { kind: 'act16' as const, units: [units[12]], cost: 1, gain: 2 },
    ];
    const ranking = sensitivityRanking(units, measured, [units[30]], position);
    expect(ranking[0]).toBe(units[30]);
    // Block 0–9 gained, unit 12 gained alone, 20–39 only in the whole (which gained): graph order among them.
    expect(ranking.slice(1, 31)).toEqual([
      ...units.slice(0, 10),
      units[12],
      ...units.slice(20, 30),
      ...units.slice(31, 40),
    ]);
    // Block 10–19 made the output worse: last, in graph order.
    expect(ranking.slice(31)).toEqual(units.slice(10, 20).filter((u) => u !== units[12]));
  });

  it('doubles the 16-bit set from the search choice until the held-in target is met, then bisects to the smallest that meets it', async () => {
    const config = getPreset('A8W8');
    const sizes: number[] = [];
    // The target holds from 13 wide units on.
    const result = await growPrecision({
      config,
      ranking: units,
      start: 3,
      limit: 20,
      resolution: 0,
      score: async (c) => {
        sizes.push(wide(c).length);
        return { score: wide(c).length >= 13 ? 0.9 : 0.5, metrics: {} };
      },
      met: (v) => v >= 0.875,
    });
    expect(sizes).toEqual([3, 6, 12, 20, 16, 14, 13]);
    expect(result.met).toBe(true);
    expect(result.stopped).toBe('met');
    expect(result.chosen.units).toBe(13);
    expect(wide(result.config)).toEqual(units.slice(0, 13).map((u) => u.names[0]));
  });

  it('stops at its limit with the best size measured, and when told to stop', async () => {
    const config = getPreset('A8W8');
    const capped = await growPrecision({
      config,
      ranking: units,
      start: 4,
      limit: 10,
      score: async (c) => ({ score: wide(c).length === 8 ? 0.7 : 0.6, metrics: {} }),
      met: (v) => v >= 0.875,
    });
    expect(capped.steps.map((s) => s.units)).toEqual([4, 8, 10]);
    expect(capped.met).toBe(false);
    expect(capped.stopped).toBe('limit');
    expect(capped.chosen.units).toBe(8);
    let calls = 0;
    const stopped = await growPrecision({
      config,
      ranking: units,
      start: 4,
      limit: 40,
      score: async () => ({ score: (calls++, 0.5), metrics: {} }),
      met: () => false,
      stop: () => calls >= 2,
    });
    expect(stopped.stopped).toBe('time');
    expect(stopped.steps).toHaveLength(2);
  });
});
