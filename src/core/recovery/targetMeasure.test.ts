import { describe, expect, it } from 'vitest';
import { summarizeSamples } from '../metrics/index.ts';
import { figureReader, maxDropTarget, targetMeasure } from './targetMeasure.ts';
import { parseLadderTarget } from './ladder.ts';

const outputs = summarizeSamples([
  { output: 'y', metrics: { cosine: 0.9, psnr: 30 } },
  { output: 'y', metrics: { cosine: 0.8, psnr: 20 } },
]);

describe('one target for the ladder, the exclusion search and mixed precision', () => {
  it('reads an output metric from the comparison and a task figure from the runs', () => {
    expect(targetMeasure(parseLadderTarget('cosine:0.85'), null).figure(outputs, [])).toBeCloseTo(0.85, 12);
    expect(targetMeasure(parseLadderTarget('0.86'), null).reached(0.85)).toBe(false);
    let runsSeen = -1;
    const task = (runs: readonly unknown[]) => ((runsSeen = runs.length), { map50: 0.75, map: 0.5 });
    const m = targetMeasure(parseLadderTarget('map50:0.7'), task);
    expect(m.readsOutputs).toBe(true);
    expect(m.figure(outputs, [{ index: 3, float: {}, quant: {} }])).toBe(0.75);
    expect(runsSeen).toBe(1);
    expect(m.reached(0.75)).toBe(true);
    expect(m.figures(outputs, [])).toMatchObject({ cosine: expect.closeTo(0.85, 12), psnr: 25, map50: 0.75, map: 0.5 });
    // An output metric with a task: still the comparison's, unless the task gives the same name (top1 against labels).
    expect(figureReader('psnr', task).figure(outputs, [])).toBe(25);
  });

  it('refuses a task figure without a task, or one the task does not give, by name', () => {
    expect(() => targetMeasure(parseLadderTarget('miou:0.9'), null)).toThrow(
      /a miou target is a task figure: give the task/,
    );
    expect(() => targetMeasure(parseLadderTarget('miou:0.9'), () => ({ map50: 1 })).figure(outputs, [])).toThrow(
      /the task's figures have no miou \(they have map50\)/,
    );
  });

  it('--max-drop: the float figure against the labels less the drop, never below 0', () => {
    expect(maxDropTarget('map', 0.62, 0.01)).toEqual({ metric: 'map', value: expect.closeTo(0.61, 12) });
    expect(maxDropTarget('top1', 0.005, 0.01)).toEqual({ metric: 'top1', value: 0 });
  });
});
