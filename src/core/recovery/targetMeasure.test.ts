import { describe, expect, it } from 'vitest';
import { summarizeSamples } from '../metrics/index.ts';
import {
  assertTaskGivesTarget,
  figureReader,
  maxDropTarget,
  mixedPrecisionAim,
  targetMeasure,
  type SampleRun,
} from './targetMeasure.ts';
import { LadderTargetError } from './ladder.ts';
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

  it('reads a decision target from the single-probability outputs (Silero VAD, wake words), and refuses one none has', () => {
    const vad = summarizeSamples([
      { output: 'output', metrics: { decision: 1, absError: 0.01 } },
      { output: 'output', metrics: { decision: 0, absError: 0.6 } },
      { output: 'stateN', metrics: { cosine: 0.9 } },
      { output: 'stateN', metrics: { cosine: 0.8 } },
    ]);
    const m = targetMeasure(parseLadderTarget('decision:0.5'), null);
    expect(m.figure(vad, [])).toBe(0.5);
    expect(m.reached(0.5)).toBe(true);
    expect(m.figures(vad, [])).toMatchObject({ decision: 0.5, cosine: expect.closeTo(0.85, 12) });
    expect(() => targetMeasure(parseLadderTarget('decision:0.9'), null).figure(outputs, [])).toThrow(
      /decision agreement needs an output of one probability a sample/,
    );
  });

  it('shows no cosine beside a rung of a model whose every output is one number a sample (a wake-word score)', () => {
    const score = summarizeSamples([
      { output: 'score', metrics: { decision: 1, absError: 2e-5 } },
      { output: 'score', metrics: { decision: 1, absError: 4e-5 } },
    ]);
    const figures = targetMeasure(parseLadderTarget('decision:0.95'), null).figures(score, []);
    expect(figures).toEqual({ decision: 1 });
    expect(Object.values(figures).every(Number.isFinite)).toBe(true);
  });

  it('refuses a task figure without a task, or one the task does not give, by name', () => {
    expect(() => targetMeasure(parseLadderTarget('miou:0.9'), null)).toThrow(
      /a miou target is a task figure: give the task/,
    );
    expect(() => targetMeasure(parseLadderTarget('miou:0.9'), () => ({ map50: 1 })).figure(outputs, [])).toThrow(
      /the task's figures have no miou \(they have map50\)/,
    );
  });

  it('refuses, before any rung, a task target the chosen head does not give (map50 on a classifier)', () => {
    expect(() => assertTaskGivesTarget('map50', 'classify')).toThrow(
      'a map50 target is a figure of detection (boxes), but the task judged is classification: aim at top1',
    );
    expect(() => assertTaskGivesTarget('miou', 'detect')).toThrow('a miou target is a figure of segmentation (masks)');
    expect(() => assertTaskGivesTarget('map', 'detect')).not.toThrow();
    expect(() => assertTaskGivesTarget('miou', 'segment')).not.toThrow();
    expect(() => assertTaskGivesTarget('cosine', 'classify')).not.toThrow();
  });

  it('--max-drop: the float figure against the labels less the drop, never below 0', () => {
    expect(maxDropTarget('map', 0.62, 0.01)).toEqual({ metric: 'map', value: expect.closeTo(0.61, 12) });
    expect(maxDropTarget('top1', 0.005, 0.01)).toEqual({ metric: 'top1', value: 0 });
  });
});

/** A run of one output: float and quantized values of shape `dims`. */
const run = (index: number, dims: number[], float: number[], quant: number[]): SampleRun => ({
  index,
  float: { y: { type: 'float32', dims, data: Float32Array.from(float) } },
  quant: { y: { type: 'float32', dims, data: Float32Array.from(quant) } },
});

describe('what mixed precision aims at (mixedPrecisionAim)', () => {
  it('a cosine target as it is, a PSNR target by a high cosine: no figure', () => {
    expect(mixedPrecisionAim(parseLadderTarget('cosine:0.97'))).toEqual({ target: 0.97 });
    expect(mixedPrecisionAim(parseLadderTarget('psnr:30'))).toEqual({ target: 0.999 });
  });

  it("top-1: the share of rows whose arg-max is the float model's, over the judged runs", () => {
    const aim = mixedPrecisionAim(parseLadderTarget('top1:0.99'));
    expect(aim).toMatchObject({ target: 0.99, metric: 'top1' });
    // Sample 0: 2 rows, both agree (1); sample 1: 2 rows, the second's arg-max moves from class 0 to 2 (1/2).
    const runs = [
      run(0, [2, 3], [0.1, 0.7, 0.2, 0.5, 0.3, 0.2], [0.2, 0.6, 0.2, 0.6, 0.1, 0.3]),
      run(1, [2, 3], [0.9, 0.05, 0.05, 0.4, 0.3, 0.3], [0.8, 0.1, 0.1, 0.3, 0.3, 0.4]),
    ];
    expect(aim.figure!(runs)).toBeCloseTo((1 + 0.5) / 2, 12);
  });

  it("sequence: lines whose greedy CTC reading (blank 0, repeats merged) is the float model's", () => {
    const aim = mixedPrecisionAim(parseLadderTarget('sequence:0.9'));
    // [1, 3 steps, 3 classes], rows of probabilities. Float reads steps 1,1,2 → "1 2" (repeat merged).
    const f = [0.1, 0.8, 0.1, 0.1, 0.8, 0.1, 0.1, 0.1, 0.8];
    // Same reading with other scores: "1 2".
    const same = [0.2, 0.7, 0.1, 0.4, 0.5, 0.1, 0.0, 0.3, 0.7];
    // The last step turns to class 1: reads "1".
    const other = [0.1, 0.8, 0.1, 0.1, 0.8, 0.1, 0.1, 0.6, 0.3];
    const runs = [run(0, [1, 3, 3], f, same), run(1, [1, 3, 3], f, other), run(2, [1, 3, 3], f, f)];
    expect(aim.figure!(runs)).toBeCloseTo(2 / 3, 12);
  });

  it("a task target through the task's figures (top1 against labels wins over agreement), and refuses one without a task", () => {
    const labels = mixedPrecisionAim(parseLadderTarget('top1:0.8'), () => ({ top1: 0.75 }));
    expect(labels.figure!([run(0, [1, 2], [1, 0], [0, 1])])).toBe(0.75);
    const map = mixedPrecisionAim(parseLadderTarget('map50:0.9'), () => ({ map50: 0.5 }));
    expect(map.figure!([])).toBe(0.5);
    expect(() => mixedPrecisionAim(parseLadderTarget('map:0.9'))).toThrow(LadderTargetError);
    // A top-1 target on a model with no classifier-shaped output: named, never a number.
    expect(() =>
      mixedPrecisionAim(parseLadderTarget('top1:0.9')).figure!([
        run(0, [1, 3, 8, 8], Array(192).fill(1), Array(192).fill(1)),
      ]),
    ).toThrow(/top-1 agreement needs a classifier-like output/);
  });
});
