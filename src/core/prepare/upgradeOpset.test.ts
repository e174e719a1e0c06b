/**
 * Raising the opset keeps what each node computes: one small model per rule, run in onnxruntime-node
 * before and after (or, where onnxruntime has no kernel for the old version, against values computed
 * here), plus the refusals that must name the node, the op and the versions.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DataType,
  UnsupportedModelError,
  encode,
  floatAttribute,
  forEachGraph,
  intAttribute,
  makeGraph,
  makeNode,
  makeTensor,
  makeValueInfo,
  opsetOf,
  readTensor,
  type AttributeProto,
  type ModelProto,
  type NodeProto,
} from '../onnx/index.ts';
import { compareRuns, f32, feedsFor, floatIO, outputsOf, smallModel } from '../../../tests/helpers/smallModels.ts';
import type { OutputDiff } from '../../../tests/helpers/runModels.ts';
import { checkModels } from '../../../tests/helpers/onnxChecker.ts';
import { floatsAttribute, graphAttribute, intsAttribute, stringAttribute } from './attributes.ts';
import { OpsetUpgradeError, upgradeOpset } from './upgradeOpset.ts';

const node = (op: string, inputs: string[], outputs: string[], attrs: AttributeProto[] = [], name = '') =>
  makeNode(op, inputs, outputs, name, attrs);

function expectIdentical(diffs: OutputDiff[]): void {
  expect(diffs.length).toBeGreaterThan(0);
  for (const d of diffs) expect(d.identical, `${d.name}: max |Δ| ${d.maxAbs}`).toBe(true);
}

/** The main-graph nodes of the upgraded model, as "OpType" strings. */
const opTypes = (m: ModelProto) => m.graph!.node.map((n) => n.op_type);
const attr = (n: NodeProto, name: string) => n.attribute.find((a) => a.name === name);

/** Upgraded models the installed onnx.checker knows (opset ≤ 17, IR ≤ 8), checked at the end of the file. */
const forChecker: { label: string; model: ModelProto }[] = [];

/** upgradeOpset, remembering the result for onnx.checker when the target is at most 17. */
function upgrade(model: ModelProto, target: number) {
  const result = upgradeOpset(model, target);
  if (target <= 17 && Number(result.model.ir_version) <= 8)
    forChecker.push({ label: `${expect.getState().currentTestName} → ${target}`, model: result.model });
  return result;
}

/** The refusal `fn` throws. */
function refusal(fn: () => unknown): OpsetUpgradeError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(OpsetUpgradeError);
    expect(e).toBeInstanceOf(UnsupportedModelError);
    expect((e as Error).name).toBe('UnsupportedModelError');
    return e as OpsetUpgradeError;
  }
  throw new Error('expected an OpsetUpgradeError');
}

describe('Softmax, LogSoftmax and Hardmax before 13', () => {
  it('Softmax-11 with axis=1 on a rank-3 input is spelled out as Flatten → Softmax → Reshape and computes the same', async () => {
    const model = smallModel({
      nodes: [node('Softmax', ['x'], ['y'], [intAttribute('axis', 1)], 'sm')],
      inputs: [floatIO('x', [2, 3, 4])],
      outputs: [floatIO('y', [2, 3, 4])],
      opset: 11,
    });
    const { model: up, origin, changes } = upgrade(model, 13);
    expect(opTypes(up)).toEqual(['Shape', 'Flatten', 'Softmax', 'Reshape']);
    const softmax = up.graph!.node[2];
    expect(attr(softmax, 'axis')?.i).toBe(-1);
    expect(origin.source.get(softmax)).toBe(model.graph!.node[0]);
    expect(origin.helpers.has(softmax)).toBe(false);
    expect(up.graph!.node.filter((n) => origin.helpers.has(n)).map((n) => n.op_type)).toEqual([
      'Shape',
      'Flatten',
      'Reshape',
    ]);
    expect(changes).toEqual([
      { opType: 'Softmax', action: 'spelled out as Flatten → op → Reshape (axis 1 of rank 3)', count: 1 },
    ]);
    expectIdentical(await compareRuns(model, up));
  });

  it('Softmax whose rank the file does not state is spelled out too (correct for any rank)', async () => {
    const model = smallModel({
      nodes: [node('Relu', ['x'], ['r']), node('Softmax', ['r'], ['s']), node('Relu', ['s'], ['y'])],
      inputs: [floatIO('x', [2, 3, 4])],
      outputs: [floatIO('y', [2, 3, 4])],
      opset: 12,
    });
    const { model: up, changes } = upgrade(model, 13);
    expect(opTypes(up)).toEqual(['Relu', 'Shape', 'Flatten', 'Softmax', 'Reshape', 'Relu']);
    expect(changes[0].action).toContain('rank unknown');
    expectIdentical(await compareRuns(model, up));
  });

  it('Softmax on the last axis is kept as it is (axis=2 of rank 3, axis=-1)', () => {
    for (const axis of [2, -1]) {
      const model = smallModel({
        nodes: [node('Softmax', ['x'], ['y'], [intAttribute('axis', axis)])],
        inputs: [floatIO('x', [2, 3, 4])],
        outputs: [floatIO('y', [2, 3, 4])],
        opset: 11,
      });
      const { model: up, changes } = upgrade(model, 13);
      expect(up.graph!.node[0]).toBe(model.graph!.node[0]);
      expect(changes).toEqual([{ opType: 'Softmax', action: 'kept (last axis)', count: 1 }]);
    }
  });

  it('the old default axis (1) on a rank-2 input is the last axis: kept, with the axis written out', async () => {
    const model = smallModel({
      nodes: [node('Softmax', ['x'], ['y'])],
      inputs: [floatIO('x', [3, 5])],
      outputs: [floatIO('y', [3, 5])],
      opset: 9,
    });
    const { model: up } = upgrade(model, 13);
    expect(opTypes(up)).toEqual(['Softmax']);
    expect(attr(up.graph!.node[0], 'axis')?.i).toBe(1);
    expectIdentical(await compareRuns(model, up));
  });

  it('LogSoftmax-1 and Hardmax-11 on an inner axis compute the same after the rewrite', async () => {
    for (const [op, opset, axis] of [
      ['LogSoftmax', 1, 1],
      ['Hardmax', 11, 0],
    ] as const) {
      const model = smallModel({
        nodes: [node(op, ['x'], ['y'], [intAttribute('axis', axis)])],
        inputs: [floatIO('x', [2, 3, 2, 2])],
        outputs: [floatIO('y', [2, 3, 2, 2])],
        opset: Math.max(opset, 7),
      });
      const { model: up } = upgrade(model, 21);
      expect(opTypes(up)).toEqual(['Shape', 'Flatten', op, 'Reshape']);
      expectIdentical(await compareRuns(model, up));
    }
  });
});

describe('attributes that became inputs', () => {
  it('Slice-1 with INT64_MAX ends (decoded as 2**63) gets saturated int64 inputs and computes the same', async () => {
    const model = smallModel({
      nodes: [
        node(
          'Slice',
          ['x'],
          ['y'],
          [intsAttribute('starts', [1, -3]), intsAttribute('ends', [2 ** 63, 2 ** 63]), intsAttribute('axes', [0, 1])],
        ),
      ],
      inputs: [floatIO('x', [3, 8])],
      outputs: [floatIO('y', [2, 3])],
      opset: 9,
    });
    const { model: up } = upgrade(model, 13);
    const slice = up.graph!.node[0];
    expect(slice.attribute).toEqual([]);
    const init = new Map(up.graph!.initializer.map((t) => [t.name, t]));
    expect([...readTensor(init.get(slice.input[2])!)]).toEqual([2n ** 63n - 1n, 2n ** 63n - 1n]);
    expect([...readTensor(init.get(slice.input[1])!)]).toEqual([1n, -3n]);
    expect([...readTensor(init.get(slice.input[3])!)]).toEqual([0n, 1n]);
    expectIdentical(await compareRuns(model, up));
  });

  it('Clip-6 → 13: min/max become scalar inputs of the data type (one or both)', async () => {
    for (const attrs of [[floatAttribute('min', -0.5), floatAttribute('max', 0.75)], [floatAttribute('max', 0.25)]]) {
      const model = smallModel({
        nodes: [node('Clip', ['x'], ['y'], attrs)],
        inputs: [floatIO('x', [4, 5])],
        outputs: [floatIO('y', [4, 5])],
        opset: 6,
      });
      const { model: up } = upgrade(model, 13);
      const clip = up.graph!.node[0];
      expect(clip.attribute).toEqual([]);
      expect(clip.input.length).toBe(3);
      if (attrs.length === 1) expect(clip.input[1]).toBe('');
      for (const t of up.graph!.initializer) expect([t.data_type, t.dims]).toEqual([DataType.FLOAT, []]);
      expectIdentical(await compareRuns(model, up));
    }
  });

  it('Pad-2 → 13: pads and value become inputs; constant and reflect modes compute the same', async () => {
    for (const attrs of [
      [intsAttribute('pads', [0, 0, 1, 2, 0, 0, 2, 1]), floatAttribute('value', 1.5)],
      [intsAttribute('pads', [0, 0, 1, 2, 0, 0, 2, 1]), stringAttribute('mode', 'reflect')],
    ]) {
      const model = smallModel({
        nodes: [node('Pad', ['x'], ['y'], attrs)],
        inputs: [floatIO('x', [1, 2, 3, 4])],
        outputs: [floatIO('y', [1, 2, 6, 7])],
        opset: 2,
        ir: 3,
      });
      const { model: up } = upgrade(model, 13);
      const pad = up.graph!.node[0];
      expect(pad.input.length).toBe(attrs[1].name === 'value' ? 3 : 2);
      expect(pad.attribute.map((a) => a.name)).toEqual(attrs[1].name === 'mode' ? ['mode'] : []);
      expectIdentical(await compareRuns(model, up));
    }
  });

  it('Unsqueeze-1 and Squeeze-1 → 13: axes become an int64 input', async () => {
    const model = smallModel({
      nodes: [
        node('Unsqueeze', ['x'], ['u'], [intsAttribute('axes', [0, 3])]),
        node('Squeeze', ['u'], ['y'], [intsAttribute('axes', [0])]),
      ],
      inputs: [floatIO('x', [2, 3])],
      outputs: [floatIO('y', [2, 3, 1])],
      opset: 1,
      ir: 3,
    });
    const { model: up } = upgrade(model, 13);
    expect(up.graph!.node.map((n) => [n.input.length, n.attribute.length])).toEqual([
      [2, 0],
      [2, 0],
    ]);
    expectIdentical(await compareRuns(model, up));
  });

  it('ReduceSum-1 → 13 and ReduceMean-1 → 18/21: axes become an input; no axes still reduces everything', async () => {
    for (const target of [18, 21]) {
      const model = smallModel({
        nodes: [
          node('ReduceSum', ['x'], ['s'], [intsAttribute('axes', [1]), intAttribute('keepdims', 0)]),
          node('ReduceMean', ['x'], ['m'], [intsAttribute('axes', [0, 2])]),
          node('ReduceMax', ['x'], ['a']),
        ],
        inputs: [floatIO('x', [2, 3, 4])],
        outputs: [floatIO('s', [2, 4]), floatIO('m', [1, 3, 1]), floatIO('a', [1, 1, 1])],
        opset: 1,
        ir: 3,
      });
      const { model: up } = upgrade(model, target);
      expect(up.graph!.node.map((n) => n.input.length)).toEqual([2, 2, 1]);
      expectIdentical(await compareRuns(model, up));
    }
  });

  it('TopK-1 → 13: k becomes a 1-D int64 input', async () => {
    const model = smallModel({
      nodes: [node('TopK', ['x'], ['v', 'i'], [intAttribute('k', 3)])],
      inputs: [floatIO('x', [2, 6])],
      outputs: [floatIO('v', [2, 3]), makeValueInfo('i', DataType.INT64, [2, 3])],
      opset: 1,
      ir: 3,
    });
    const { model: up } = upgrade(model, 13);
    expect(up.graph!.initializer.map((t) => [t.data_type, t.dims])).toEqual([[DataType.INT64, [1]]]);
    expectIdentical(await compareRuns(model, up));
  });

  it('Split-2 → 13 moves split to an input; Split-11 → 18 without sizes gets num_outputs', async () => {
    const sized = smallModel({
      nodes: [node('Split', ['x'], ['a', 'b'], [intAttribute('axis', 1), intsAttribute('split', [2, 3])])],
      inputs: [floatIO('x', [2, 5, 3])],
      outputs: [floatIO('a', [2, 2, 3]), floatIO('b', [2, 3, 3])],
      opset: 2,
      ir: 3,
    });
    const up13 = upgrade(sized, 13).model;
    expect(up13.graph!.node[0].input.length).toBe(2);
    expectIdentical(await compareRuns(sized, up13));

    const equal = smallModel({
      nodes: [node('Split', ['x'], ['a', 'b'], [intAttribute('axis', 1)])],
      inputs: [floatIO('x', [2, 4, 3])],
      outputs: [floatIO('a', [2, 2, 3]), floatIO('b', [2, 2, 3])],
      opset: 11,
    });
    const up18 = upgrade(equal, 18).model;
    expect(attr(up18.graph!.node[0], 'num_outputs')?.i).toBe(2);
    expectIdentical(await compareRuns(equal, up18));
  });
});

describe('Upsample and Resize', () => {
  const image = (opset: number, nodes: NodeProto[], out: number[], inits = [] as ReturnType<typeof f32>[]) =>
    smallModel({
      nodes,
      inputs: [floatIO('x', [1, 2, 4, 4])],
      outputs: [floatIO('y', out)],
      initializers: inits,
      opset,
    });

  it('Upsample-7 (scales attribute) and Upsample-9 become Resize with asymmetric/floor, same results', async () => {
    const scales = [1, 1, 1.5, 2.5];
    const cases = [
      image(7, [node('Upsample', ['x'], ['y'], [floatsAttribute('scales', scales)])], [1, 2, 6, 10]),
      image(9, [node('Upsample', ['x', 's'], ['y'])], [1, 2, 6, 10], [f32('s', [4], scales)]),
      image(
        9,
        [node('Upsample', ['x', 's'], ['y'], [stringAttribute('mode', 'linear')])],
        [1, 2, 6, 10],
        [f32('s', [4], scales)],
      ),
    ];
    for (const model of cases) {
      for (const target of [13, 21]) {
        const { model: up } = upgrade(model, target);
        const resize = up.graph!.node[0];
        expect(resize.op_type).toBe('Resize');
        expect(resize.input[1]).toBe('');
        const mode = new TextDecoder().decode(attr(resize, 'mode')?.s ?? new Uint8Array());
        expect(new TextDecoder().decode(attr(resize, 'coordinate_transformation_mode')!.s)).toBe('asymmetric');
        if (mode !== 'linear') expect(new TextDecoder().decode(attr(resize, 'nearest_mode')!.s)).toBe('floor');
        expectIdentical(await compareRuns(model, up));
      }
    }
  });

  it('Resize-10 → 13: nearest upsampling (floor), nearest downsampling (ceil) and linear compute the same', async () => {
    const cases: [string, number[], number[]][] = [
      ['nearest', [1, 1, 1.5, 2.5], [1, 2, 6, 10]],
      ['nearest', [1, 1, 0.5, 0.75], [1, 2, 2, 3]],
      ['linear', [1, 1, 2, 1.5], [1, 2, 8, 6]],
    ];
    for (const [mode, scales, out] of cases) {
      const model = image(10, [node('Resize', ['x', 's'], ['y'], [stringAttribute('mode', mode)])], out, [
        f32('s', [4], scales),
      ]);
      const { model: up } = upgrade(model, 13);
      expectIdentical(await compareRuns(model, up));
    }
  });

  it('ONNX defaults for Resize-11 (half_pixel, round_prefer_floor) would change the result: the adapter is needed', async () => {
    for (const [mode, scales, out] of [
      ['nearest', [1, 1, 1, 0.75], [1, 2, 4, 3]],
      ['linear', [1, 1, 2, 2], [1, 2, 8, 8]],
    ] as const) {
      const model = image(
        10,
        [node('Resize', ['x', 's'], ['y'], [stringAttribute('mode', mode)])],
        [...out],
        [f32('s', [4], [...scales])],
      );
      const naive = smallModel({
        nodes: [node('Resize', ['x', '', 's'], ['y'], [stringAttribute('mode', mode)])],
        inputs: [floatIO('x', [1, 2, 4, 4])],
        outputs: [floatIO('y', [...out])],
        initializers: [f32('s', [4], [...scales])],
        opset: 13,
      });
      expect(
        (await compareRuns(model, naive)).some((d) => !d.identical),
        mode,
      ).toBe(true);
      expectIdentical(await compareRuns(model, upgrade(model, 13).model));
    }
  });

  it('refuses a nearest Resize-10 that upsamples one axis and downsamples another', () => {
    const model = image(
      10,
      [node('Resize', ['x', 's'], ['y'], [], 'mixed')],
      [1, 2, 8, 2],
      [f32('s', [4], [1, 1, 2, 0.5])],
    );
    const e = refusal(() => upgradeOpset(model, 13));
    expect(e.message).toContain('"mixed" (Resize)');
    expect(e.atOpset).toBe(11);
  });

  it('refuses Resize with tf_half_pixel_for_nn at opset 13', () => {
    const model = image(
      11,
      [
        node(
          'Resize',
          ['x', 'roi', 's'],
          ['y'],
          [stringAttribute('coordinate_transformation_mode', 'tf_half_pixel_for_nn')],
        ),
      ],
      [1, 2, 8, 8],
      [f32('roi', [0], []), f32('s', [4], [1, 1, 2, 2])],
    );
    expect(refusal(() => upgradeOpset(model, 13)).message).toContain('tf_half_pixel_for_nn');
  });
});

describe('other rewrites', () => {
  it('Dropout-7 → 13: the data passes through, an unread mask output is dropped', async () => {
    const model = smallModel({
      nodes: [node('Dropout', ['x'], ['d', 'mask'], [floatAttribute('ratio', 0.3)]), node('Relu', ['d'], ['y'])],
      inputs: [floatIO('x', [2, 3])],
      outputs: [floatIO('y', [2, 3])],
      valueInfo: [floatIO('mask', [2, 3])],
      opset: 7,
    });
    const { model: up } = upgrade(model, 13);
    expect(up.graph!.node[0].output).toEqual(['d']);
    expect(up.graph!.node[0].attribute).toEqual([]);
    expect(up.graph!.value_info).toEqual([]);
    expectIdentical(await compareRuns(model, up));
  });

  it('refuses a Dropout whose mask output is read', () => {
    const model = smallModel({
      nodes: [node('Dropout', ['x'], ['d', 'mask'], [], 'drop')],
      inputs: [floatIO('x', [2, 3])],
      outputs: [floatIO('d', [2, 3]), floatIO('mask', [2, 3])],
      opset: 7,
    });
    const e = refusal(() => upgradeOpset(model, 13));
    expect([e.opType, e.nodeId, e.fromOpset, e.toOpset, e.atOpset]).toEqual(['Dropout', 'drop', 7, 13, 10]);
  });

  it('Scatter-9 → ScatterElements with the same inputs and axis', async () => {
    const model = smallModel({
      nodes: [node('Scatter', ['x', 'idx', 'upd'], ['y'], [intAttribute('axis', 1)])],
      inputs: [floatIO('x', [3, 3])],
      outputs: [floatIO('y', [3, 3])],
      initializers: [
        makeTensor('idx', DataType.INT64, [3, 1], BigInt64Array.from([2n, 0n, 1n])),
        f32('upd', [3, 1], [10, 20, 30]),
      ],
      opset: 9,
    });
    const { model: up } = upgrade(model, 21);
    expect(opTypes(up)).toEqual(['ScatterElements']);
    expectIdentical(await compareRuns(model, up));
  });

  it('BatchNormalization-7 (spatial=1) → 15 unfolded computes the same', async () => {
    const c = 3;
    const model = smallModel({
      nodes: [
        node(
          'BatchNormalization',
          ['x', 'g', 'b', 'm', 'v'],
          ['y'],
          [intAttribute('spatial', 1), floatAttribute('epsilon', 1e-3)],
        ),
      ],
      inputs: [floatIO('x', [2, c, 2, 2])],
      outputs: [floatIO('y', [2, c, 2, 2])],
      initializers: [
        f32('g', [c], [1, 0.5, 2]),
        f32('b', [c], [0, 1, -1]),
        f32('m', [c], [0.1, -0.2, 0.3]),
        f32('v', [c], [1, 2, 0.5]),
      ],
      opset: 7,
    });
    const { model: up } = upgrade(model, 15);
    expect(up.graph!.node[0].attribute.map((a) => a.name)).toEqual(['epsilon']);
    expectIdentical(await compareRuns(model, up));
  });

  it('Reshape-1, Concat-1 and Cast-1 are carried to 13 (shape input, axis written out, type code)', () => {
    const model = smallModel({
      nodes: [
        node('Reshape', ['x'], ['r'], [intsAttribute('shape', [3, 0])]),
        node('Concat', ['r', 'r'], ['c']),
        node('Cast', ['c'], ['y'], [stringAttribute('to', 'DOUBLE')]),
      ],
      inputs: [floatIO('x', [2, 3])],
      outputs: [makeValueInfo('y', DataType.DOUBLE, [3, 4])],
      opset: 1,
      ir: 3,
    });
    const { model: up } = upgrade(model, 13);
    const [reshape, concat, cast] = up.graph!.node;
    expect(reshape.input.length).toBe(2);
    expect([...readTensor(up.graph!.initializer[0])]).toEqual([3n, 0n]);
    expect(attr(concat, 'axis')?.i).toBe(1);
    expect(attr(cast, 'to')?.i).toBe(DataType.DOUBLE);
  });

  it('Add-6 with broadcast=1 and axis=1: the weight gets trailing 1-dims and NumPy broadcasting gives the old result', async () => {
    const b = [10, 20, 30];
    const model = smallModel({
      nodes: [node('Add', ['x', 'b'], ['y'], [intAttribute('broadcast', 1), intAttribute('axis', 1)])],
      inputs: [floatIO('x', [2, 3, 2, 2])],
      outputs: [floatIO('y', [2, 3, 2, 2])],
      initializers: [f32('b', [3], b)],
      opset: 6,
      ir: 3,
    });
    const { model: up } = upgrade(model, 13);
    expect(up.graph!.node[0].attribute).toEqual([]);
    const aligned = up.graph!.initializer.find((t) => t.name === up.graph!.node[0].input[1])!;
    expect(aligned.dims).toEqual([3, 1, 1]);
    const feeds = feedsFor(model);
    const x = feeds.x.data as Float32Array;
    const y = (await outputsOf(up, feeds)).y.data;
    // Add-6 with axis=1: y[n, c, h, w] = x[n, c, h, w] + b[c] (ONNX Runtime has no Add-6 kernel to compare with).
    expect([...y]).toEqual([...x].map((v, i) => Math.fround(v + b[Math.floor(i / 4) % 3])));
  });

  it('Mul-6 with broadcast=1, axis=0 and a computed operand gets an Unsqueeze before it', async () => {
    const model = smallModel({
      nodes: [node('Mul', ['x', 's'], ['y'], [intAttribute('broadcast', 1), intAttribute('axis', 0)])],
      inputs: [floatIO('x', [2, 3]), floatIO('s', [2])],
      outputs: [floatIO('y', [2, 3])],
      opset: 6,
      ir: 3,
    });
    const { model: up } = upgrade(model, 13);
    expect(opTypes(up)).toEqual(['Unsqueeze', 'Mul']);
    const feeds = feedsFor(model);
    const x = feeds.x.data as Float32Array;
    const s = feeds.s.data as Float32Array;
    const y = (await outputsOf(up, feeds)).y.data;
    expect([...y]).toEqual([...x].map((v, i) => Math.fround(v * s[Math.floor(i / 3)])));
  });

  it('Selu-1 keeps its old default alpha and gamma', () => {
    const model = smallModel({
      nodes: [node('Selu', ['x'], ['y'])],
      inputs: [floatIO('x', [2])],
      outputs: [floatIO('y', [2])],
      opset: 1,
      ir: 3,
    });
    const selu = upgrade(model, 13).model.graph!.node[0];
    expect([attr(selu, 'alpha')?.f, attr(selu, 'gamma')?.f]).toEqual([1.6732, 1.0507]);
  });
});

describe('subgraphs and functions', () => {
  it('nodes inside an If branch are upgraded too, and the If computes the same', async () => {
    const branch = (axes: number[], out: string) =>
      makeGraph({
        name: `${out}_branch`,
        node: [node('Unsqueeze', ['x'], [out], [intsAttribute('axes', axes)])],
        input: [],
        output: [floatIO(out, [1, 2, 3])],
      });
    const ifNode = node(
      'If',
      ['cond'],
      ['y'],
      [graphAttribute('then_branch', branch([0], 't')), graphAttribute('else_branch', branch([0], 'e'))],
    );
    const model = smallModel({
      nodes: [ifNode],
      inputs: [floatIO('x', [2, 3])],
      outputs: [floatIO('y', [1, 2, 3])],
      initializers: [makeTensor('cond', DataType.BOOL, [], Uint8Array.of(1))],
      opset: 11,
    });
    const { model: up, origin } = upgrade(model, 13);
    const inner: NodeProto[] = [];
    forEachGraph(up.graph!, (g, depth) => depth > 0 && inner.push(...g.node));
    expect(inner.map((n) => n.input.length)).toEqual([2, 2]);
    expect(origin.source.get(up.graph!.node[0])).toBe(ifNode);
    expectIdentical(await compareRuns(model, up));
  });

  it('a model-local function gets its ai.onnx nodes and import upgraded (weights as Constant nodes)', async () => {
    const fn = {
      name: 'AddAxis',
      domain: 'local',
      input: ['a'],
      output: ['b'],
      attribute: [],
      attribute_proto: [],
      node: [node('Unsqueeze', ['a'], ['b'], [intsAttribute('axes', [0])])],
      opset_import: [{ domain: '', version: 11 }],
      value_info: [],
      metadata_props: [],
    };
    const model = smallModel({
      nodes: [makeNode('AddAxis', ['x'], ['y'], '', [], 'local')],
      inputs: [floatIO('x', [2, 3])],
      outputs: [floatIO('y', [1, 2, 3])],
      opset: 11,
      ir: 8,
    });
    model.opset_import.push({ domain: 'local', version: 1 });
    model.functions = [fn];
    const { model: up } = upgrade(model, 13);
    const f = up.functions[0];
    expect(f.node.map((n) => n.op_type)).toEqual(['Constant', 'Unsqueeze']);
    expect(f.opset_import).toEqual([{ domain: '', version: 13 }]);
    expectIdentical(await compareRuns(model, up));
  });
});

describe('refusals name the op, the node and the versions', () => {
  it('an op with a changed version and no rule (Tile-1)', () => {
    const model = smallModel({
      nodes: [node('Tile', ['x', 't', 'a'], ['y'])],
      inputs: [floatIO('x', [2])],
      outputs: [floatIO('y')],
      opset: 5,
      ir: 3,
    });
    const e = refusal(() => upgradeOpset(model, 13));
    expect(e.message).toMatch(
      /^Raising the opset from 5 to 13 would change what node "Tile_0" \(Tile\) computes: Tile-6: /,
    );
    expect([e.opType, e.nodeId, e.atOpset]).toEqual(['Tile', 'Tile_0', 6]);
  });

  it('an op Quant Studio does not know', () => {
    const model = smallModel({
      nodes: [node('FancyOp', ['x'], ['y'], [], 'fancy')],
      inputs: [floatIO('x', [2])],
      outputs: [floatIO('y')],
      opset: 11,
    });
    const e = refusal(() => upgradeOpset(model, 13));
    expect(e.message).toContain('"fancy" (FancyOp)');
    expect(e.message).toContain('FancyOp is not an ai.onnx operator that Quant Studio knows');
  });

  it('an op that changed with no rule written (GroupNormalization 18 → 21), and one refused on purpose (OneHot-11)', () => {
    const gn = smallModel({
      nodes: [node('GroupNormalization', ['x', 's', 'b'], ['y'], [intAttribute('num_groups', 2)])],
      inputs: [floatIO('x', [1, 4, 2])],
      outputs: [floatIO('y')],
      opset: 18,
      ir: 8,
    });
    expect(refusal(() => upgradeOpset(gn, 21)).message).toContain('GroupNormalization-21');
    expect(() => upgradeOpset(gn, 20)).not.toThrow();
    const oneHot = smallModel({
      nodes: [node('OneHot', ['i', 'd', 'v'], ['y'])],
      inputs: [floatIO('i', [2])],
      outputs: [floatIO('y')],
      opset: 9,
    });
    expect(refusal(() => upgradeOpset(oneHot, 13)).atOpset).toBe(11);
  });

  it('a boundary that removed types, on a tensor of a removed type (Erf on int32 at 13)', () => {
    const model = smallModel({
      nodes: [node('Erf', ['x'], ['y'])],
      inputs: [makeValueInfo('x', DataType.INT32, [2])],
      outputs: [makeValueInfo('y', DataType.INT32, [2])],
      opset: 9,
    });
    expect(refusal(() => upgradeOpset(model, 13)).message).toContain('float inputs only');
  });

  it('ConvTranspose with SAME auto_pad at 11, and nodes inside subgraphs with their path', () => {
    const ct = smallModel({
      nodes: [node('ConvTranspose', ['x', 'w'], ['y'], [stringAttribute('auto_pad', 'SAME_UPPER')])],
      inputs: [floatIO('x', [1, 1, 2, 2])],
      outputs: [floatIO('y')],
      opset: 10,
    });
    expect(refusal(() => upgradeOpset(ct, 11)).atOpset).toBe(11);
    const body = makeGraph({
      node: [node('Tile', ['x', 't', 'a'], ['z'], [], 'inner')],
      input: [],
      output: [floatIO('z')],
    });
    const model = smallModel({
      nodes: [
        node('If', ['c'], ['y'], [graphAttribute('then_branch', body), graphAttribute('else_branch', body)], 'cond'),
      ],
      inputs: [floatIO('x', [2])],
      outputs: [floatIO('y')],
      opset: 5,
      ir: 3,
    });
    expect(refusal(() => upgradeOpset(model, 7)).nodeId).toBe('cond.then_branch/inner');
  });
});

describe('the model as a whole', () => {
  const relu = (opset: number, ir: number) =>
    smallModel({
      nodes: [node('Relu', ['x'], ['y'])],
      inputs: [floatIO('x', [2])],
      outputs: [floatIO('y', [2])],
      opset,
      ir,
    });

  it('sets the ai.onnx import to the target and raises ir_version as the target needs (never lowers it)', () => {
    const up = upgrade(relu(9, 4), 13).model;
    expect(opsetOf(up, '')).toBe(13);
    expect(up.ir_version).toBe(7);
    expect(upgrade(relu(11, 9), 13).model.ir_version).toBe(9);
    expect(upgrade(relu(11, 6), 21).model.ir_version).toBe(10);
  });

  it('never lowers an opset: a model at or above the target comes back as it is', () => {
    const model = relu(14, 7);
    const r = upgrade(model, 13);
    expect([r.fromOpset, r.toOpset, opsetOf(r.model, '')]).toEqual([14, 14, 14]);
    expect(r.model.graph).toBe(model.graph);
  });

  it('rejects targets it has no table for', () => {
    expect(() => upgradeOpset(relu(11, 6), 22)).toThrow(UnsupportedModelError);
    expect(() => upgradeOpset(relu(11, 6), 12.5)).toThrow(/not a target/);
  });

  it('does not modify the input model, and shares the weights it does not edit', () => {
    const model = smallModel({
      nodes: [node('Conv', ['x', 'w'], ['c']), node('Unsqueeze', ['c'], ['y'], [intsAttribute('axes', [0])])],
      inputs: [floatIO('x', [1, 1, 3, 3])],
      outputs: [floatIO('y', [1, 1, 1, 3, 3])],
      initializers: [f32('w', [1, 1, 1, 1], [2])],
      opset: 11,
    });
    const before = encode(model);
    const { model: up } = upgrade(model, 13);
    expect(Buffer.compare(Buffer.from(encode(model)), Buffer.from(before))).toBe(0);
    expect(up.graph!.node[0]).toBe(model.graph!.node[0]);
    expect(up.graph!.initializer[0]).toBe(model.graph!.initializer[0]);
    expect(model.graph!.node[1].attribute.length).toBe(1);
  });
});

describe('onnx.checker (onnx 1.12, opsets ≤ 17)', () => {
  it('accepts every upgraded model of this file', () => {
    expect(forChecker.length).toBeGreaterThan(20);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-upgrade-'));
    const files = forChecker.map(({ model }, i) => {
      const file = path.join(dir, `${i}.onnx`);
      fs.writeFileSync(file, encode(model));
      return file;
    });
    checkModels(files).forEach((v, i) => expect(v.error ?? '', forChecker[i].label).toBe(''));
  });
});
