import { describe, expect, it } from 'vitest';
import { encode, intAttribute, makeNode, readTensorAsFloat32, type ModelProto } from '../onnx/index.ts';
import { compareRuns, f32, floatIO, smallModel } from '../../../tests/helpers/smallModels.ts';
import { seededFloats } from '../../../tests/helpers/fixtures.ts';
import { foldConvAffine } from './foldConvAffine.ts';
import { prepare } from './prepare.ts';

const C = 4;
const rand = (n: number, seed: number, lo = -1, hi = 1) => [...seededFloats(n, seed, lo, hi)];

/**
 * x (1×2×5×5) → Conv → Mul(s) → Add(t) → Relu → y, as PaddlePaddle writes PP-LCNetV3's learnable affine block;
 * `scale` and `shift` give the constants' shapes.
 */
function convAffine(opts: { scale?: number[]; shift?: number[]; group?: number; bias?: boolean } = {}): ModelProto {
  const group = opts.group ?? 1;
  const scaleDims = opts.scale ?? [];
  const shiftDims = opts.shift ?? [C, 1, 1];
  const size = (d: number[]) => d.reduce((a, b) => a * b, 1);
  const inits = [
    f32('w', [C, 2 / group, 3, 3], rand(C * (2 / group) * 9, 9)),
    f32('s', scaleDims, rand(size(scaleDims), 3, 0.5, 2)),
    f32('t', shiftDims, rand(size(shiftDims), 4)),
  ];
  const convInputs = ['x', 'w'];
  if (opts.bias) {
    inits.push(f32('b', [C], rand(C, 10)));
    convInputs.push('b');
  }
  return smallModel({
    nodes: [
      makeNode('Conv', convInputs, ['c'], 'conv', [intAttribute('group', group)]),
      makeNode('Mul', ['s', 'c'], ['m'], 'mul'),
      makeNode('Add', ['m', 't'], ['a'], 'add'),
      makeNode('Relu', ['a'], ['y'], 'relu'),
    ],
    inputs: [floatIO('x', [1, 2, 5, 5])],
    outputs: [floatIO('y')],
    initializers: inits,
    opset: 13,
  });
}

async function expectClose(a: ModelProto, b: ModelProto): Promise<void> {
  for (const d of await compareRuns(a, b)) expect(d.relative, `${d.name}: ${d.maxAbs}`).toBeLessThanOrEqual(1e-5);
}

describe('foldConvAffine', () => {
  it('folds Conv → Mul(scalar) → Add(per channel) into one Conv named as the chain, with W·s and b·s + t', async () => {
    for (const bias of [false, true]) {
      const model = convAffine({ bias });
      const { model: folded, folded: count, origin } = foldConvAffine(model);
      expect(count).toBe(2);
      expect(folded.graph!.node.map((n) => n.op_type)).toEqual(['Conv', 'Relu']);
      expect(folded.graph!.node[0].output).toEqual(['a']);
      expect(origin.absorbed.get(model.graph!.node[1])).toBe(model.graph!.node[0]);
      const get = (m: ModelProto, name: string) =>
        readTensorAsFloat32(m.graph!.initializer.find((t) => t.name === name)!);
      const [s] = get(model, 's');
      const w = get(model, 'w');
      expect([...get(folded, 'w')]).toEqual([...w].map((v) => Math.fround(v * s)));
      await expectClose(model, folded);
    }
  });

  it('folds grouped convolutions and constants of rank 4 on the channel axis', async () => {
    const model = convAffine({ group: 2, scale: [1, C, 1, 1], shift: [1] });
    const { model: folded, folded: count } = foldConvAffine(model);
    expect(count).toBe(2);
    await expectClose(model, folded);
  });

  it('leaves the chain alone when a constant broadcasts along another axis, the Conv output has another reader, or the constant is a graph input', () => {
    const spatial = convAffine({ scale: [1, 1, 1, 3], shift: [1, 1, 3, 1] });
    const shared = convAffine();
    shared.graph!.node.push(makeNode('Relu', ['c'], ['r']));
    shared.graph!.output.push(floatIO('r'));
    const overridable = convAffine();
    overridable.graph!.input.push(floatIO('s', []));
    for (const model of [spatial, shared, overridable]) {
      const { model: out, folded } = foldConvAffine(model);
      expect(folded).toBe(0);
      expect(out.graph!.node).toEqual(model.graph!.node);
    }
  });

  it('runs in prepare (and says so) unless turned off, without modifying the input model', () => {
    const model = convAffine();
    const before = encode(model);
    const on = prepare(model);
    expect(on.summary.affineFolded).toBe(2);
    expect(on.summary.actions).toContain('folded 2 Mul/Add by constants into Conv');
    expect(prepare(model, { foldConvAffine: false }).model.graph!.node).toHaveLength(4);
    expect(Buffer.compare(Buffer.from(encode(model)), Buffer.from(before))).toBe(0);
  });
});

describe('the fold as a quantization option (config.foldConvAffine)', () => {
  it('off keeps Mul/Add as written (each with its own Q/DQ); on or off, a scalar scale leaves the per-tensor weight codes the same', async () => {
    const { quantizeModel } = await import('../quantize/quantizeModel.ts');
    const { getPreset } = await import('../quantize/presets.ts');
    const { withOptions } = await import('../quantize/config.ts');
    const { rangesForEveryTensor } = await import('../quantize/testModels.ts');
    const { readTensor } = await import('../onnx/index.ts');
    const model = convAffine({ scale: [], shift: [] });
    const config = (fold: boolean) => withOptions(getPreset('A8W8'), { foldConvAffine: fold });
    expect(getPreset('A8W8').foldConvAffine).toBe(true);
    const on = quantizeModel(model, rangesForEveryTensor(model), config(true)).model;
    const off = quantizeModel(model, rangesForEveryTensor(model), config(false)).model;
    expect(on.graph!.node.some((n) => n.op_type === 'Mul')).toBe(false);
    expect(off.graph!.node.filter((n) => n.op_type === 'Mul' || n.op_type === 'Add').length).toBe(2);
    expect(off.graph!.node.filter((n) => n.op_type === 'QuantizeLinear').length).toBeGreaterThan(
      on.graph!.node.filter((n) => n.op_type === 'QuantizeLinear').length,
    );
    // W·s with s a positive scalar: per-tensor codes W·s / (s·max|W| / 127) are W's own codes; only the scale moves.
    const codes = (m: ModelProto) =>
      Array.from(readTensor(m.graph!.initializer.find((t) => t.data_type === 3 && t.dims.length === 4)!) as Int8Array);
    expect(codes(on)).toEqual(codes(off));
  });
});
