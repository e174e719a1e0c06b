import { describe, expect, it } from 'vitest';
import { decode } from '../../../core/onnx/index.ts';
import { weightlessGraph } from '../../../core/graph/structure.ts';
import { compareGraphs } from '../../../core/graph/comparison.ts';
import { quantizedFixture } from '../../../../tests/helpers/quantizedFixtures.ts';
import { readModel } from '../../../../tests/helpers/fixtures.ts';
import { buildGraphIndex } from '../../../core/onnx/graphIndex.ts';
import { foldQdq } from '../../../core/graph/qdqFold.ts';
import { outputScaleValues } from '../../../core/graph/nodeValues.ts';
import { compareValueSets, paintValues } from './compareModel.ts';

const float = (name: string) => ({ name, graph: weightlessGraph(decode(readModel(name)).graph!) });

describe('the split view model', () => {
  const model = compareGraphs(float('yolox-nano.onnx'), {
    name: 'q.onnx',
    graph: weightlessGraph(quantizedFixture('yolox-nano.onnx').graph!),
  });

  it('float ↔ quantized YOLOX: every box of the float model has its counterpart, and back', () => {
    const { a, b } = model.views;
    expect(model.mapping.related).toBe(true);
    a.boxes.forEach((box, i) => {
      const j = model.counterpart.a[i];
      expect(j, box.id).toBeGreaterThanOrEqual(0);
      expect(b.boxes[j].id).toBe(box.id);
      expect(model.counterpart.b[j]).toBe(i);
    });
  });

  it('values painted on one scale for both panes; a value known on one side reaches its counterpart', () => {
    const convs = model.views.a.boxes.filter((b) => b.title === 'Conv').map((b) => b.id);
    const sets = compareValueSets(
      model,
      new Map([['heat', { label: 'SQNR (dB)', higherIsBetter: true, values: { [convs[0]]: 10, [convs[1]]: 40 } }]]),
    );
    const bits = paintValues(model, sets.get('bits')!);
    expect([bits.min, bits.max]).toEqual([8, 32]);
    const conv = model.views.a.boxById.get(convs[1])!;
    expect(bits.values.a[conv]).toBe(32);
    expect(bits.values.b[model.counterpart.a[conv]]).toBe(8);
    expect(bits.colours.a[conv]).not.toBe(bits.colours.b[model.counterpart.a[conv]]);
    const sqnr = paintValues(model, sets.get('heat')!);
    expect(sqnr.values.b[model.counterpart.a[conv]]).toBe(40);
    expect([sqnr.min, sqnr.max]).toEqual([10, 40]);
  });

  it("the quantized file's values lie on its boxes: output scales as the file's Q/DQ hold them, kept float 0 or 1", () => {
    const q = weightlessGraph(quantizedFixture('yolox-nano.onnx').graph!);
    const index = buildGraphIndex(q);
    const byId = outputScaleValues(index, foldQdq(index)).values;
    const scale = model.fileValues.scale;
    expect(scale.a).toBeNull();
    let seen = 0;
    model.views.b.boxes.forEach((box, i) => {
      const want = byId[box.id];
      if (want === undefined) expect(scale.b![i], box.id).toBeNaN();
      else {
        expect(scale.b![i], box.id).toBe(want);
        seen++;
      }
    });
    expect(seen).toBeGreaterThan(100);
    const float = model.fileValues.float.b!;
    model.views.b.boxes.forEach((box, i) => {
      if (box.kind === 'node') expect([0, 1], box.id).toContain(float[i]);
      else expect(float[i]).toBeNaN();
    });
  });

  it('unrelated models: not related, no counterparts between op boxes', () => {
    const m = compareGraphs(float('mnist.onnx'), float('ultraface-rfb-320.onnx'));
    expect(m.mapping.related).toBe(false);
  });
});
