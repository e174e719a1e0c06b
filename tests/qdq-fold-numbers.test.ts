/**
 * The Q/DQ fold and what is read off it find tensors by number (graphIndex.ts inputNumbers, outputStart, weightAt)
 * instead of looking names up: on the fixtures' U8S8 files (per tensor and per channel), the QDQ files written as
 * ONNX Runtime and Quark write them, ONNX Runtime's QOperator and dynamic forms, and the split view benchmark's
 * synthetic graph, every folded pair's parameters, the precision labels and the output scales are what a reading
 * by name gives.
 */
import { describe, expect, it } from 'vitest';
import { buildGraphIndex, decode, type GraphProto } from '../src/core/onnx/index.ts';
import type { GraphIndex } from '../src/core/onnx/graphIndex.ts';
import {
  foldedSourceNumber,
  foldedTensorNumber,
  foldQdq,
  isDequantizeNode,
  isQuantizeNode,
  qdqPrecisionLabels,
  quantParamsOf,
  type QdqFold,
} from '../src/core/graph/qdqFold.ts';
import { outputScaleValues } from '../src/core/graph/nodeValues.ts';
import { weightlessGraph } from '../src/core/graph/structure.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import type { TensorRange } from '../src/core/quantize/plan.ts';
import { syntheticScopedGraph } from '../bench/syntheticGraph.ts';
import { readModel } from './helpers/fixtures.ts';
import { quantizedFixture } from './helpers/quantizedFixtures.ts';
import { foreignQdq } from './helpers/foreignQdq.ts';
import { integerOpsGraph } from './helpers/integerOpsGraph.ts';

/** Precision labels read by name, as qdqPrecisionLabels read them before tensors had numbers. */
function labelsByName(index: GraphIndex, fold: QdqFold): Map<number, string> {
  const out = new Map<number, string>();
  const quantizedOutputs = new Map<string, number>();
  for (const e of fold.edges.values())
    if (!e.params.dynamic) quantizedOutputs.set(e.source, Math.max(quantizedOutputs.get(e.source) ?? 0, e.params.bits));
  index.nodes.forEach((node, i) => {
    if (isQuantizeNode(node) || isDequantizeNode(node) || node.op_type === 'DynamicQuantizeLinear') return;
    let a = 0,
      w = 0;
    for (const t of node.output) a = Math.max(a, quantizedOutputs.get(t) ?? 0);
    for (const t of node.input) {
      const edge = fold.edges.get(t);
      if (edge) a = Math.max(a, edge.params.bits);
      const weight = fold.weights.get(t);
      if (weight && weight.params.bits < 32) w = Math.max(w, weight.params.bits);
    }
    out.set(i, a || w ? `${a ? `A${a}` : ''}${w ? `W${w}` : ''}` : 'float');
  });
  return out;
}

/** Output scales read by name. */
function scalesByName(index: GraphIndex, fold: QdqFold): Record<string, number> {
  const scaleOf = new Map<string, number>();
  for (const e of fold.edges.values()) if (e.params.scales?.length === 1) scaleOf.set(e.source, e.params.scales[0]);
  const values: Record<string, number> = {};
  index.nodes.forEach((node, i) => {
    if (fold.folded[i]) return;
    const s = node.output.map((o) => scaleOf.get(o)).find((v) => v !== undefined);
    if (s !== undefined) values[index.ids[i]] = s;
  });
  return values;
}

function quantizedSynthetic(): GraphProto {
  const model = syntheticScopedGraph(3000);
  const ranges = new Map<string, TensorRange>();
  for (const n of model.graph!.node) for (const t of [...n.input, ...n.output]) ranges.set(t, { min: -2, max: 6 });
  for (const i of model.graph!.input) ranges.set(i.name!, { min: 0, max: 1 });
  return quantizeModel(model, ranges, getPreset('U8S8'), 'U8S8').model.graph!;
}

const ultraface = () => decode(readModel('ultraface-rfb-320.onnx'));
const models: [string, () => GraphProto][] = [
  ...['mnist.onnx', 'ultraface-rfb-320.onnx', 'yolox-nano.onnx'].flatMap((f): [string, () => GraphProto][] => [
    [`${f} U8S8 per tensor`, () => quantizedFixture(f, { perChannel: false }).graph!],
    [`${f} U8S8 per channel`, () => quantizedFixture(f, { perChannel: true }).graph!],
  ]),
  ...(['ort', 'quark-xint8', 'quark-a16w8'] as const).map((style): [string, () => GraphProto] => [
    `UltraFace written as ${style} writes it`,
    () => foreignQdq(ultraface(), style).graph!,
  ]),
  ['QOperator and dynamic forms', integerOpsGraph],
  ['QOperator and dynamic forms, weight-less', () => weightlessGraph(integerOpsGraph())],
  ['synthetic 3,000 nodes U8S8', quantizedSynthetic],
];

describe('the Q/DQ fold by tensor number', () => {
  it.each(models)('%s: parameters, labels and output scales as a reading by name gives them', (_, graphOf) => {
    const index = buildGraphIndex(graphOf());
    const fold = foldQdq(index);
    expect(fold.edges.size + fold.weights.size).toBeGreaterThan(0);
    const numberOf = (name: string) => index.tensorNumber.get(name) ?? -1;
    for (const e of fold.edges.values()) {
      expect(index.tensorNames[foldedTensorNumber(index, e)]).toBe(e.tensor);
      expect(foldedSourceNumber(index, e)).toBe(numberOf(e.source));
      if (e.dequantize >= 0) expect(e.params).toEqual(quantParamsOf(index, index.nodes[e.quantize]));
    }
    for (const w of fold.weights.values()) {
      expect(index.tensorNames[foldedTensorNumber(index, w)]).toBe(w.tensor);
      if (w.dequantize < 0) continue;
      const dq = index.nodes[w.dequantize];
      const params = w.quantizedAtRun
        ? quantParamsOf(index, index.nodes[index.producer.get(dq.input[0])!])
        : quantParamsOf(
            index,
            dq,
            index.initializers.get(w.codes)?.data_type ?? index.constants.get(w.codes)?.data_type,
          );
      expect(w.params).toEqual(params);
    }
    expect([...qdqPrecisionLabels(index, fold)]).toEqual([...labelsByName(index, fold)]);
    expect(outputScaleValues(index, fold).values).toEqual(scalesByName(index, fold));
  });
});
