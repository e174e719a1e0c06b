import { describe, expect, it } from 'vitest';
import type { TensorSummary } from '../onnx/modelSummary.ts';
import { headChoiceKind, headFields, headForChoice, withHeadField } from './headChoice.ts';
import { recognizeHead, type HeadFacts } from './recognizeHead.ts';

const t = (name: string, shape: (number | string)[]): TensorSummary =>
  ({ name, elemType: 'float32', shape }) as TensorSummary;
const facts = (outputs: TensorSummary[], ops: string[] = []): HeadFacts => ({
  inputs: [t('images', [1, 3, 416, 416])],
  outputs,
  ops: ops.map((opType) => ({ opType })),
});

describe('choosing a task head', () => {
  it('keeps the recognised head when its kind is chosen, and builds another kind on the outputs with its defaults', () => {
    const f = facts([t('output', [1, 3549, 85])]);
    const guess = recognizeHead(f);
    expect(guess.head && headChoiceKind(guess.head)).toBe('yolox');
    expect(headForChoice(f, guess, 'yolox').head).toBe(guess.head);
    const v5 = headForChoice(f, guess, 'yolov5', guess.head).head!;
    expect(v5).toMatchObject({
      task: 'detect',
      head: { kind: 'yolov5', output: 'output' },
      classNames: (guess.head as { classNames: string[] | null }).classNames,
    });
    // Thresholds the user set are carried to the new decoder.
    const edited = withHeadField(guess.head!, 'scoreThreshold', 0.55).head!;
    expect(headForChoice(f, guess, 'yolov8', edited).head).toMatchObject({ params: { scoreThreshold: 0.55 } });
  });

  it('refuses a decoder the outputs cannot be read as, with the reason, never a head on the wrong outputs', () => {
    const f = facts([t('weird', [7])]);
    const guess = recognizeHead(f);
    expect(guess.head).toBeNull();
    for (const kind of ['yolox', 'ssd', 'yunet', 'db-text', 'classify', 'segment', 'text'] as const) {
      const r = headForChoice(f, guess, kind);
      expect(r.head).toBeNull();
      expect(r.reason).toContain('"weird" [7]');
    }
  });

  it('reads a model not recognised as the task the user chooses, on the output they name', () => {
    const f = facts([t('a', [1, 1000]), t('b', [1, 10])]);
    const guess = { head: null, label: 'not recognised', evidence: [], confidence: 'low' as const };
    expect(headForChoice(f, guess, 'classify').head).toEqual({ task: 'classify', output: 'a', classNames: null });
    expect(headForChoice(f, guess, 'classify', null, 'b').head).toEqual({
      task: 'classify',
      output: 'b',
      classNames: null,
    });
    const ssd = headForChoice(facts([t('scores', [1, 100, 3]), t('boxes', [1, 100, 4])], ['Exp']), guess, 'ssd').head!;
    expect(ssd).toMatchObject({ head: { kind: 'ssd', scores: 'scores', boxes: 'boxes', encoding: 'corners' } });
  });

  it('edits each field within its range and refuses a value outside it by name', () => {
    const f = facts([t('maps', [1, 1, 416, 416])]);
    const guess = { head: null, label: 'not recognised', evidence: [], confidence: 'low' as const };
    const db = headForChoice(f, guess, 'db-text').head!;
    expect(headFields(db).map((x) => x.key)).toEqual([
      'scoreThreshold',
      'minScore',
      'nmsIou',
      'maxDetections',
      'binaryThreshold',
      'unclipRatio',
      'minSize',
    ]);
    expect(withHeadField(db, 'unclipRatio', 2).head).toMatchObject({ head: { unclipRatio: 2 } });
    expect(withHeadField(db, 'nmsIou', 1.5)).toEqual({ head: null, reason: 'NMS IoU: give a number from 0 to 1' });
    expect(withHeadField(db, 'maxDetections', 2.5).reason).toContain('a whole number');
    expect(withHeadField(db, 'scoreThreshold', NaN).head).toBeNull();
    const seg = headForChoice(f, guess, 'segment').head!;
    expect(withHeadField(seg, 'maskThreshold', 0.2).head).toMatchObject({ maskThreshold: 0.2 });
  });
});
