/**
 * The graph index numbers each tensor name once and keeps producers, consumers and each node's reads in number arrays
 * (graphIndex.ts, tensorNumbers.ts): on every fixture model, its U8S8 quantization and the split view benchmark's
 * synthetic scoped graph with its quantization, they say what a plain Map-of-names reading of the graph says, and the
 * Map views the rest of the studio reads (producer, consumers, nodeInputs) hold the same entries in the same order;
 * each node's inputs and outputs by position and each tensor's weight by number are what the names say.
 */
import { describe, expect, it } from 'vitest';
import { decode, type GraphProto, type ModelProto } from '../src/core/onnx/index.ts';
import { buildGraphIndex, inputNumber, outerScopeInputs, outputNumber, weightOf } from '../src/core/onnx/graphIndex.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import type { TensorRange } from '../src/core/quantize/plan.ts';
import { syntheticScopedGraph } from '../bench/syntheticGraph.ts';
import { readModel } from './helpers/fixtures.ts';
import { quantizedFixture } from './helpers/quantizedFixtures.ts';

/** Producers, consumers and reads by name, as a plain reading of the nodes gives them. */
function plainReading(graph: GraphProto) {
  const producer = new Map<string, number>();
  const consumers = new Map<string, number[]>();
  const nodeInputs: string[][] = [];
  graph.node.forEach((n, i) => n.output.forEach((o) => o && producer.set(o, i)));
  graph.node.forEach((n, i) => {
    const reads: string[] = [];
    for (const x of [...n.input, ...outerScopeInputs(n)]) if (x && !reads.includes(x)) reads.push(x);
    nodeInputs.push(reads);
    for (const x of reads) consumers.set(x, [...(consumers.get(x) ?? []), i]);
  });
  return { producer, consumers, nodeInputs };
}

function quantizedSynthetic(model: ModelProto): ModelProto {
  const ranges = new Map<string, TensorRange>();
  for (const n of model.graph!.node) for (const t of [...n.input, ...n.output]) ranges.set(t, { min: -2, max: 6 });
  for (const i of model.graph!.input) ranges.set(i.name!, { min: 0, max: 1 });
  return quantizeModel(model, ranges, getPreset('U8S8'), 'U8S8').model;
}

const fixtures = [
  'mnist.onnx',
  'super-resolution-10.onnx',
  'ultraface-rfb-320.onnx',
  'yolox-nano.onnx',
  'yunet-n-dynamic.onnx',
];

describe('tensor numbers in the graph index', () => {
  const synthetic = syntheticScopedGraph(3000);
  const models: [string, () => GraphProto][] = [
    ...fixtures.flatMap((f): [string, () => GraphProto][] => [
      [f, () => decode(readModel(f)).graph!],
      [`${f} U8S8`, () => quantizedFixture(f, { perChannel: true }).graph!],
    ]),
    ['synthetic 3,000 nodes', () => synthetic.graph!],
    ['synthetic 3,000 nodes U8S8', () => quantizedSynthetic(synthetic).graph!],
  ];
  it.each(models)('%s: producers, consumers and reads as a plain reading says', (_, graphOf) => {
    const graph = graphOf();
    const index = buildGraphIndex(graph);
    const plain = plainReading(graph);
    expect([...index.producer]).toEqual([...plain.producer]);
    expect([...index.consumers]).toEqual([...plain.consumers]);
    expect(index.nodeInputs).toEqual(plain.nodeInputs);
    expect(index.producer.size).toBe(plain.producer.size);
    expect(index.consumers.size).toBe(plain.consumers.size);
    // The numbers behind them: one per name, producers and consumers by number, reads by node.
    expect(new Set(index.tensorNames).size).toBe(index.tensorNames.length);
    index.tensorNames.forEach((name, k) => {
      expect(index.tensorNumber.get(name)).toBe(k);
      expect(index.producerOf[k]).toBe(plain.producer.get(name) ?? -1);
      expect(Array.from(index.consumerNodes.subarray(index.consumerStart[k], index.consumerStart[k + 1]))).toEqual(
        plain.consumers.get(name) ?? [],
      );
    });
    plain.nodeInputs.forEach((reads, i) =>
      expect(
        Array.from(index.reads.subarray(index.readStart[i], index.readStart[i + 1]), (k) => index.tensorNames[k]),
      ).toEqual(reads),
    );
    // Names the graph does not hold read as absent.
    expect(index.producer.get('no such tensor')).toBeUndefined();
    expect(index.consumers.has('no such tensor')).toBe(false);
  });

  it.each(models)('%s: inputs and outputs by position, weights by number, as the names say', (_, graphOf) => {
    const graph = graphOf();
    const index = buildGraphIndex(graph);
    const numberOf = (name: string) => (name ? index.tensorNumber.get(name)! : -1);
    graph.node.forEach((n, i) => {
      expect(Array.from(index.inputNumbers.subarray(index.inputStart[i], index.inputStart[i + 1]))).toEqual(
        n.input.map(numberOf),
      );
      n.input.forEach((name, x) => expect(inputNumber(index, i, x)).toBe(numberOf(name)));
      n.output.forEach((name, x) => expect(outputNumber(index, i, x)).toBe(numberOf(name)));
      expect(inputNumber(index, i, n.input.length)).toBe(-1);
      expect(outputNumber(index, i, n.output.length)).toBe(-1);
      const outputs = n.output.filter((o) => o).map(numberOf);
      expect(
        Array.from({ length: index.outputStart[i + 1] - index.outputStart[i] }, (_, y) => index.outputStart[i] + y),
      ).toEqual(outputs);
    });
    // The weight of every name as the initializers (the last of a name) and the Constant nodes say, in that order.
    const initializers = new Map(graph.initializer.map((t) => [t.name ?? '', t]));
    const plainWeight = (name: string) => initializers.get(name) ?? index.constants.get(name);
    for (const name of [...index.tensorNames, ...initializers.keys(), 'no such tensor']) {
      expect(weightOf(index, name)).toBe(plainWeight(name));
      const k = index.tensorNumber.get(name);
      if (k !== undefined) expect(index.weightAt[k]).toBe(plainWeight(name));
    }
  });
});
