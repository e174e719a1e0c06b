import { describe, expect, it } from 'vitest';
import { parseLadderTarget, LadderTargetError } from '../recovery/ladder.ts';
import { ladderScore } from '../recovery/ladderMeasure.ts';
import { floatLabelFigures, parseMaxDrop, taskTargetFigures } from './taskTarget.ts';
import type { TaskEvaluation } from './taskEvaluation.ts';
import { TaskLabelError } from './errors.ts';

const evaluation = (labels: boolean): TaskEvaluation => ({
  task: 'detect',
  head: {
    task: 'detect',
    head: { kind: 'yolov5', output: 'o' },
    params: { scoreThreshold: 0.3, minScore: 0.01, nmsIou: 0.45, maxDetections: 100 },
    classNames: null,
  },
  headText: '',
  images: 1,
  agreement: { map50: 0.8, map5095: 0.6, map75: 0.5 },
  labels: labels
    ? { float: { map50: 0.9, map5095: 0.7 }, quantized: { map50: 0.85, map5095: 0.65 }, figures: [] }
    : null,
  perImage: [],
});

describe('task targets', () => {
  it('parses map50, map and miou targets in 0…1; a task target without the task is a named error', () => {
    expect(parseLadderTarget('map50:0.95')).toEqual({ metric: 'map50', value: 0.95 });
    expect(parseLadderTarget('map:0.6')).toEqual({ metric: 'map', value: 0.6 });
    expect(() => parseLadderTarget('map50:1.5')).toThrow(LadderTargetError);
    expect(() => ladderScore([], 'map50')).toThrow(/task figure: give the task/);
  });

  it('figures against the float model without labels, the quantized figure against labels with them', () => {
    expect(taskTargetFigures(evaluation(false))).toEqual({ map50: 0.8, map: 0.6 });
    expect(taskTargetFigures(evaluation(true))).toEqual({ map50: 0.85, map: 0.65 });
    expect(floatLabelFigures(evaluation(true))).toEqual({ map50: 0.9, map: 0.7 });
    expect(() => floatLabelFigures(evaluation(false))).toThrow(TaskLabelError);
  });

  it('--max-drop reads 1% and 0.01 alike and refuses what is not a share', () => {
    expect(parseMaxDrop('1%')).toBeCloseTo(0.01, 12);
    expect(parseMaxDrop('0.01')).toBe(0.01);
    for (const bad of ['', '%', 'x', '-1%', '150%']) expect(() => parseMaxDrop(bad)).toThrow(TaskLabelError);
  });
});
