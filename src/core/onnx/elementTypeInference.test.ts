import { describe, expect, it } from 'vitest';
import {
  DataType,
  makeGraph,
  makeNode,
  makeValueInfo,
  intAttribute,
  intsAttribute,
  graphAttribute,
  stringAttribute,
  tensorAttribute,
  type GraphProto,
  type ValueInfoProto,
} from './model.ts';
import { makeTensor } from './tensorData.ts';
import { inferElementTypes } from './elementTypeInference.ts';
import { maxPoolWithIndicesModel, shapeArithmeticModel } from '../quantize/testModels.ts';

const T = DataType;
const f32 = (name: string) => makeValueInfo(name, T.FLOAT);
const typesOf = (graph: GraphProto, names: string[], opset = 13) => {
  const types = inferElementTypes(graph, { opset });
  return Object.fromEntries(names.map((n) => [n, types.get(n)]));
};

describe('element type inference', () => {
  it('tells int64 shape arithmetic from the float path of an expanded LayerNormalization', () => {
    const graph = shapeArithmeticModel().graph!;
    expect(
      typesOf(graph, [
        'x_shape',
        'batch',
        'flat_shape',
        'flat',
        'mean',
        'centred',
        'batch_float',
        'scaled',
        'positive',
        'y',
      ]),
    ).toEqual({
      x_shape: T.INT64,
      batch: T.INT64,
      flat_shape: T.INT64, // Shape → Gather → Concat
      flat: T.FLOAT,
      mean: T.FLOAT,
      centred: T.FLOAT, // Reshape, ReduceMean, Sub: like their data input
      batch_float: T.FLOAT,
      scaled: T.FLOAT, // Cast `to`
      positive: T.BOOL, // a comparison
      y: T.FLOAT, // Where: like input 1
    });
  });

  it("gives each output of a multi-output op its own type (MaxPool's Indices are int64)", () => {
    const graph = maxPoolWithIndicesModel().graph!;
    graph.output = []; // nothing declared: the schema alone decides
    expect(typesOf(graph, ['pooled', 'indices'])).toEqual({ pooled: T.FLOAT, indices: T.INT64 });
  });

  it('reads types given by attributes: Cast-1 by name, ConstantOfShape, Constant, RandomNormal, LayerNormalization stash_type', () => {
    const graph = makeGraph({
      node: [
        makeNode('Cast', ['x'], ['as_int'], '', [stringAttribute('to', 'INT32')]),
        makeNode('Shape', ['x'], ['s']),
        makeNode('ConstantOfShape', ['s'], ['zeros_default']),
        makeNode('ConstantOfShape', ['s'], ['ones_int'], '', [
          tensorAttribute('value', makeTensor('', T.INT32, [1], Int32Array.of(1))),
        ]),
        makeNode('Constant', [], ['k_ints'], '', [intsAttribute('value_ints', [1, 2])]),
        makeNode('Constant', [], ['k_tensor'], '', [
          tensorAttribute('value', makeTensor('', T.DOUBLE, [1], Float64Array.of(1))),
        ]),
        makeNode('RandomNormal', [], ['noise'], '', [intAttribute('dtype', T.DOUBLE)]),
        makeNode('RandomUniformLike', ['x'], ['noise_like']),
        makeNode('LayerNormalization', ['x', 'g'], ['ln', 'ln_mean', 'ln_inv_std']),
        makeNode('TopK', ['x', 'k'], ['top_values', 'top_indices']),
        makeNode('Dropout', ['x'], ['dropped', 'mask']),
      ],
      input: [f32('x'), makeValueInfo('g', T.FLOAT), makeValueInfo('k', T.INT64)],
      output: [],
    });
    expect(
      typesOf(graph, [
        'as_int',
        'zeros_default',
        'ones_int',
        'k_ints',
        'k_tensor',
        'noise',
        'noise_like',
        'ln',
        'ln_mean',
        'ln_inv_std',
        'top_values',
        'top_indices',
        'dropped',
        'mask',
      ]),
    ).toEqual({
      as_int: T.INT32,
      zeros_default: T.FLOAT,
      ones_int: T.INT32,
      k_ints: T.INT64,
      k_tensor: T.DOUBLE,
      noise: T.DOUBLE,
      noise_like: T.FLOAT,
      ln: T.FLOAT,
      ln_mean: T.FLOAT,
      ln_inv_std: T.FLOAT,
      top_values: T.FLOAT,
      top_indices: T.INT64,
      dropped: T.FLOAT,
      mask: T.BOOL,
    });
  });

  it('leaves unknown what no rule tells: custom-domain ops, what they feed, sequences', () => {
    const sequence: ValueInfoProto = {
      name: 'seq',
      type: { sequence_type: { elem_type: { tensor_type: { elem_type: T.FLOAT } } } },
      metadata_props: [],
    };
    const graph = makeGraph({
      node: [
        makeNode('FusedThing', ['x'], ['custom'], '', [], 'com.example'),
        makeNode('Relu', ['custom'], ['after_custom']),
        makeNode('SequenceConstruct', ['x'], ['seq']),
        makeNode('SequenceAt', ['seq', 'i'], ['element']),
        makeNode('Identity', ['seq'], ['seq_copy']),
      ],
      input: [f32('x'), makeValueInfo('i', T.INT64)],
      output: [],
      value_info: [sequence],
    });
    expect(typesOf(graph, ['custom', 'after_custom', 'seq', 'element', 'seq_copy', 'nowhere'])).toEqual({
      custom: undefined,
      after_custom: undefined,
      seq: undefined,
      element: undefined,
      seq_copy: undefined,
      nowhere: undefined,
    });
  });

  it('lets what the file states win over the schema, and types a graph stored out of order', () => {
    const graph = makeGraph({
      node: [
        makeNode('Relu', ['b'], ['c']), // reads b, produced below
        makeNode('Shape', ['x'], ['a']),
        makeNode('Cast', ['a'], ['b'], '', [intAttribute('to', T.FLOAT)]),
        makeNode('Custom', ['x'], ['d'], '', [], 'com.example'),
      ],
      input: [f32('x')],
      output: [],
      value_info: [makeValueInfo('d', T.UINT8)],
    });
    expect(typesOf(graph, ['a', 'b', 'c', 'd'])).toEqual({ a: T.INT64, b: T.FLOAT, c: T.FLOAT, d: T.UINT8 });
  });

  it("types If and Loop outputs from their subgraphs' outputs, which see the enclosing graph and the node's inputs", () => {
    const branch = (out: string, node: ReturnType<typeof makeNode>) =>
      makeGraph({ node: [node], input: [], output: [{ name: out, metadata_props: [] }] });
    const body = makeGraph({
      node: [
        makeNode('Identity', ['cond_in'], ['cond_out']),
        makeNode('Add', ['carried', 'x'], ['carried_out']),
        makeNode('Shape', ['x'], ['scanned']),
      ],
      // The carried value states no type: it takes the type of the Loop's input 2.
      input: [
        makeValueInfo('iter', T.INT64),
        makeValueInfo('cond_in', T.BOOL),
        { name: 'carried', metadata_props: [] },
      ],
      output: [
        { name: 'cond_out', metadata_props: [] },
        { name: 'carried_out', metadata_props: [] },
        { name: 'scanned', metadata_props: [] },
      ],
    });
    const graph = makeGraph({
      node: [
        makeNode('If', ['flag'], ['chosen'], '', [
          graphAttribute('then_branch', branch('then_out', makeNode('Neg', ['x'], ['then_out']))),
          graphAttribute('else_branch', branch('else_out', makeNode('Abs', ['x'], ['else_out']))),
        ]),
        makeNode('Loop', ['trip', 'flag', 'x'], ['final', 'stacked'], '', [graphAttribute('body', body)]),
      ],
      input: [f32('x'), makeValueInfo('flag', T.BOOL), makeValueInfo('trip', T.INT64)],
      output: [],
    });
    expect(typesOf(graph, ['chosen', 'final', 'stacked'])).toEqual({
      chosen: T.FLOAT,
      final: T.FLOAT,
      stacked: T.INT64,
    });
  });
});
