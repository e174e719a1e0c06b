import { describe, expect, it } from 'vitest';
import { DataType, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo, type NodeId } from '../onnx/index.ts';
import { fewNodeIndex } from '../../../tests/helpers/graphIndex.ts';
import { quantizeModel } from '../quantize/quantizeModel.ts';
import { getPreset } from '../quantize/presets.ts';
import { configToJSON, validateConfig } from '../quantize/config.ts';
import { cosineSimilarity } from './cosine.ts';
import {
  EMPTY_SUMS,
  foldLayerwise,
  layerwiseTable,
  mergeLayerwise,
  mergeSums,
  pooledCosine,
  sampleSums,
  sortByError,
  sqnrOf,
} from './layerwise.ts';
import { exposedNames, pairLayerTensors, type TensorPair } from './layerwiseTensors.ts';
import { errorJumps, nodeErrors } from './layerwiseJumps.ts';
import { CONV_RELU_RANGES, convReluModel } from '../quantize/testModels.ts';
import { valueRow } from '../../../tests/helpers/layerRow.ts';

const convRelu = convReluModel;
const ranges = CONV_RELU_RANGES;

describe('pairLayerTensors', () => {
  it('pairs each float tensor with its computed value and its dequantized value in the quantized model', () => {
    const float = convRelu();
    const { model } = quantizeModel(float, ranges, getPreset('U8S8'));
    const { pairs, missing } = pairLayerTensors(float, model);
    expect(missing).toEqual([]);
    expect(pairs).toEqual([
      // The graph input: the feed itself, and its Q/DQ.
      { tensor: 'x', node: null, opType: 'input', value: 'x', dequantized: 'x_DequantizeLinear_Output' },
      // Conv → Relu is fused: no Q/DQ on c.
      { tensor: 'c', node: 'Conv_0', opType: 'Conv', value: 'c', dequantized: null },
      // A quantized graph output keeps its name on the DequantizeLinear; the computed value was renamed.
      { tensor: 'y', node: 'Relu_1', opType: 'Relu', value: 'y_QuantizeLinear_Input', dequantized: 'y' },
      // Exp has no rule: float, no Q/DQ after it.
      { tensor: 'z', node: 'Exp_2', opType: 'Exp', value: 'z', dequantized: null },
    ]);
    expect(exposedNames(pairs, { float: ['y', 'z'], quant: ['y', 'z'] })).toEqual({
      float: ['y', 'z', 'x', 'c'],
      quant: ['y', 'z', 'x', 'x_DequantizeLinear_Output', 'c', 'y_QuantizeLinear_Input'],
    });
  });

  it('follows the Q → DQ structure, not names: dedicated pairs give the first DequantizeLinear', () => {
    const float = convRelu();
    float.graph!.node.push(makeNode('Exp', ['y'], ['z2']));
    float.graph!.output.push(makeValueInfo('z2', DataType.FLOAT, [1, 2, 2, 2]));
    const config = validateConfig({
      ...JSON.parse(configToJSON(getPreset('U8S8'))),
      extraOptions: { DedicatedQDQPair: true },
    });
    const { model } = quantizeModel(float, ranges, config);
    const y = pairLayerTensors(float, model).pairs.find((p) => p.tensor === 'y')!;
    expect(y.value).toBe('y_QuantizeLinear_Input');
    expect(y.dequantized).toBe('y'); // the pair that writes the graph output
  });

  it('lists tensors that graph preparation folded away as missing', () => {
    const f = (name: string, v: number[]) => makeTensor(name, DataType.FLOAT, [v.length], Float32Array.from(v));
    const float = makeModel(
      makeGraph({
        node: [makeNode('Conv', ['x', 'w'], ['c']), makeNode('BatchNormalization', ['c', 's', 'bb', 'm', 'v'], ['y'])],
        input: [makeValueInfo('x', DataType.FLOAT, [1, 1, 2, 2])],
        output: [makeValueInfo('y', DataType.FLOAT, [1, 2, 2, 2])],
        initializer: [
          makeTensor('w', DataType.FLOAT, [2, 1, 1, 1], Float32Array.of(1, 2)),
          f('s', [1, 1]),
          f('bb', [0, 0]),
          f('m', [0, 0]),
          f('v', [1, 1]),
        ],
      }),
      { '': 13 },
    );
    const { model } = quantizeModel(
      float,
      new Map([
        ['x', { min: -1, max: 1 }],
        ['y', { min: -2, max: 2 }],
      ]),
      getPreset('U8S8'),
    );
    const { pairs, missing } = pairLayerTensors(float, model);
    expect(missing).toEqual(['c']);
    expect(pairs.map((p) => p.tensor)).toEqual(['x', 'y']);
  });
});

describe('error sums', () => {
  it('give cosine and SQNR by their definitions', () => {
    // x = [1, 2, 3], y = [1, 2, 2]: Σx² = 14, Σ(x−y)² = 1, Σxy = 11, Σy² = 9.
    const s = sampleSums(Float32Array.of(1, 2, 3), Float32Array.of(1, 2, 2));
    expect(s).toMatchObject({ samples: 1, elements: 3, signal: 14, noise: 1, dot: 11, testEnergy: 9 });
    expect(sqnrOf(s)).toBeCloseTo(10 * Math.log10(14), 12);
    expect(pooledCosine(s)).toBeCloseTo(11 / Math.sqrt(14 * 9), 15);
  });

  it('pool samples as one concatenated vector, and merge in any grouping', () => {
    const a = [Float32Array.of(1, -2, 3), Float32Array.of(0.5, 0.25)];
    const b = [Float32Array.of(1.1, -1.9, 2.7), Float32Array.of(0.4, 0.3)];
    const s0 = sampleSums(a[0], b[0]);
    const s1 = sampleSums(a[1], b[1]);
    const pooled = mergeSums(s0, s1);
    expect(pooledCosine(pooled)).toBeCloseTo(
      cosineSimilarity(Float64Array.of(...a[0], ...a[1]), Float64Array.of(...b[0], ...b[1])),
      14,
    );
    expect(pooled.worstSampleCosine).toBe(Math.min(s0.worstSampleCosine, s1.worstSampleCosine));
    expect(mergeSums(EMPTY_SUMS, pooled)).toEqual(pooled);
    expect(mergeSums(s1, s0)).toEqual(pooled);
  });

  it('say +∞ dB for identical values, −∞ for noise on a zero signal, NaN for nothing', () => {
    expect(sqnrOf(sampleSums(Float32Array.of(1, 2), Float32Array.of(1, 2)))).toBe(Infinity);
    expect(sqnrOf(sampleSums(Float32Array.of(0, 0), Float32Array.of(1, 0)))).toBe(-Infinity);
    expect(sqnrOf(EMPTY_SUMS)).toBeNaN();
    expect(pooledCosine(sampleSums(Float32Array.of(0, 0), Float32Array.of(1, 0)))).toBeNaN();
  });

  it('refuse tensors of different sizes', () => {
    expect(() => sampleSums(Float32Array.of(1, 2), Float32Array.of(1))).toThrow(
      expect.objectContaining({ name: 'MetricInputError' }),
    );
  });
});

describe('foldLayerwise and layerwiseTable', () => {
  const pairs: TensorPair[] = [
    { tensor: 'a', node: 'A' as NodeId, opType: 'Conv', value: 'a', dequantized: 'a_dq' },
    { tensor: 'b', node: 'B' as NodeId, opType: 'Exp', value: 'b', dequantized: null },
  ];
  const floatRun = (k: number) => ({ a: Float32Array.of(1, 2, k), b: Float32Array.of(3, k) });
  const quantRun = (k: number) => ({
    a: Float32Array.of(1, 2, k),
    a_dq: Float32Array.of(1, 2.5, k),
    b: Float32Array.of(3.5, k),
  });

  it('reports the dequantized comparison where there is one, the computed value otherwise', () => {
    const state = foldLayerwise(new Map(), pairs, floatRun(3), quantRun(3));
    const [a, b] = layerwiseTable(state, pairs);
    expect(a).toMatchObject({
      tensor: 'a',
      source: 'dequantized',
      valueSqnr: Infinity,
      dequantizedSqnr: 10 * Math.log10(14 / 0.25),
    });
    expect(a.sqnr).toBe(a.dequantizedSqnr);
    expect(b).toMatchObject({
      tensor: 'b',
      source: 'value',
      dequantizedSqnr: null,
      dequantizedCosine: null,
      sqnr: 10 * Math.log10(18 / 0.25),
    });
    expect(a.elementsPerSample).toBe(3);
  });

  it('skips tensors missing from a run (other chunk, not float32) and merges partial states', () => {
    const one = foldLayerwise(new Map(), pairs, floatRun(3), { a: quantRun(3).a });
    expect(layerwiseTable(one, pairs).map((r) => r.tensor)).toEqual(['a']);
    const whole = foldLayerwise(
      foldLayerwise(new Map(), pairs, floatRun(3), quantRun(3)),
      pairs,
      floatRun(5),
      quantRun(5),
    );
    const split = mergeLayerwise(
      foldLayerwise(new Map(), pairs, floatRun(5), quantRun(5)),
      foldLayerwise(new Map(), pairs, floatRun(3), quantRun(3)),
    );
    expect(layerwiseTable(split, pairs)).toEqual(layerwiseTable(whole, pairs));
  });

  it('sorts worst first: lowest SQNR, exact layers after finite ones, undefined ones last', () => {
    const row = (tensor: string, sqnr: number, cosine = 1) =>
      valueRow(tensor, sqnr, { opType: 'X', cosine, worstSampleCosine: cosine, valueCosine: cosine });
    const sorted = sortByError([
      row('inf', Infinity),
      row('nan', NaN),
      row('b', 20, 0.9),
      row('a', 20, 0.8),
      row('c', 5),
    ]);
    expect(sorted.map((r) => r.tensor)).toEqual(['c', 'a', 'b', 'inf', 'nan']);
  });
});

describe('error jumps', () => {
  // x → A → a → B → b → C(b, a) → c, and K reads only a weight → k.
  const index = fewNodeIndex({
    nodes: [
      makeNode('Relu', ['x'], ['a'], 'A'),
      makeNode('Conv', ['a', 'w'], ['b'], 'B'),
      makeNode('Add', ['b', 'a'], ['c'], 'C'),
      makeNode('Identity', ['w'], ['k'], 'K'),
    ],
    inputs: ['x'],
    outputs: ['c', 'k'],
    weights: ['w'],
  });
  const row = (tensor: string, sqnr: number) => valueRow(tensor, sqnr);
  const rows = [row('x', 48), row('a', 47), row('b', 30), row('c', 29), row('k', Infinity)];

  it('measure each node against the worst input it reads', () => {
    expect(nodeErrors(rows, index)).toEqual([
      { node: 'A', opType: 'Relu', sqnr: 47, inputSqnr: 48, drop: 1, worstInput: 'x' },
      { node: 'B', opType: 'Conv', sqnr: 30, inputSqnr: 47, drop: 17, worstInput: 'a' },
      { node: 'C', opType: 'Add', sqnr: 29, inputSqnr: 30, drop: 1, worstInput: 'b' },
      // Reads only a weight, writes an exact tensor: adds nothing.
      { node: 'K', opType: 'Identity', sqnr: Infinity, inputSqnr: Infinity, drop: 0, worstInput: null },
    ]);
  });

  it('keep the nodes above the threshold, largest drop first (ties: lower SQNR first)', () => {
    expect(errorJumps(rows, index, 0.5).map((j) => j.node)).toEqual(['B', 'C', 'A']);
    expect(errorJumps(rows, index, 3).map((j) => j.node)).toEqual(['B']);
  });
});

describe('error jumps across folded tensors', () => {
  // x → Conv → c → BatchNormalization → y; graph preparation folds the BatchNormalization into the Conv,
  // so the quantized model has no tensor c: the jump belongs to the pair, measured from x.
  const index = fewNodeIndex({
    nodes: [
      makeNode('Conv', ['x', 'w'], ['c'], 'Conv_0'),
      makeNode('BatchNormalization', ['c', 's', 'b', 'm', 'v'], ['y'], 'BN_1'),
    ],
    inputs: ['x'],
    outputs: ['y'],
    weights: ['w', 's', 'b', 'm', 'v'],
  });
  const row = (tensor: string, sqnr: number) => valueRow(tensor, sqnr);

  it('measure a node that reads a folded tensor from what that tensor was made of, not as if its input were exact', () => {
    const [bn] = nodeErrors([row('x', 40), row('y', 25)], index);
    expect(bn).toEqual({
      node: 'BN_1',
      opType: 'BatchNormalization',
      sqnr: 25,
      inputSqnr: 40,
      drop: 15,
      worstInput: 'x',
    });
    expect(errorJumps([row('x', 40), row('y', 25)], index).map((j) => j.drop)).toEqual([15]);
  });
});
