import { describe, expect, it } from 'vitest';
import { encode, floatAttribute, intAttribute, makeNode, readTensorAsFloat32, type ModelProto } from '../onnx/index.ts';
import { compareRuns, f32, floatIO, smallModel } from '../../../tests/helpers/smallModels.ts';
import { seededFloats } from '../../../tests/helpers/fixtures.ts';
import { foldBatchNorm } from './foldBatchNorm.ts';

const C = 4;
const rand = (n: number, seed: number, lo = -1, hi = 1) => [...seededFloats(n, seed, lo, hi)];
const bnParams = () => [
  f32('gamma', [C], rand(C, 1, 0.5, 2)),
  f32('beta', [C], rand(C, 2)),
  f32('mean', [C], rand(C, 3)),
  f32('var', [C], rand(C, 4, 0.1, 3)),
];
const bn = (x: string, y = 'y', extra: string[] = []) =>
  makeNode('BatchNormalization', [x, 'gamma', 'beta', 'mean', 'var'], [y, ...extra], 'bn', [
    floatAttribute('epsilon', 1e-3),
  ]);

/** x (1×2×5×5) → Conv → BatchNormalization → y, optionally with a bias and groups. */
function convBn(opts: { bias?: boolean; group?: number; op?: 'Conv' | 'ConvTranspose' } = {}): ModelProto {
  const group = opts.group ?? 1;
  const op = opts.op ?? 'Conv';
  const inC = 2;
  const wDims = op === 'Conv' ? [C, inC / group, 3, 3] : [inC, C / group, 3, 3];
  const inits = [
    f32(
      'w',
      wDims,
      rand(
        wDims.reduce((a, b) => a * b, 1),
        9,
      ),
    ),
    ...bnParams(),
  ];
  const inputs = ['x', 'w'];
  if (opts.bias) {
    inits.push(f32('b', [C], rand(C, 10)));
    inputs.push('b');
  }
  return smallModel({
    nodes: [makeNode(op, inputs, ['c'], 'conv', [intAttribute('group', group)]), bn('c')],
    inputs: [floatIO('x', [1, inC, 5, 5])],
    outputs: [floatIO('y')],
    initializers: inits,
    opset: 13,
  });
}

async function expectClose(a: ModelProto, b: ModelProto): Promise<void> {
  for (const d of await compareRuns(a, b)) expect(d.relative, `${d.name}: ${d.maxAbs}`).toBeLessThanOrEqual(1e-5);
}

describe('foldBatchNorm', () => {
  it('folds Conv → BatchNormalization into one Conv that takes the BatchNormalization output name', async () => {
    for (const bias of [false, true]) {
      const model = convBn({ bias });
      const { model: folded, origin, folded: counts } = foldBatchNorm(model);
      expect(counts).toEqual({ Conv: 1 });
      expect(folded.graph!.node.map((n) => n.op_type)).toEqual(['Conv']);
      const conv = folded.graph!.node[0];
      expect(conv.output).toEqual(['y']);
      expect(conv.input[1]).toBe('w');
      expect(origin.source.get(conv)).toBe(model.graph!.node[0]);
      expect(origin.absorbed.get(model.graph!.node[1])).toBe(model.graph!.node[0]);
      expect(folded.graph!.initializer.map((t) => t.name).sort()).toEqual(bias ? ['b', 'w'] : ['w', 'w_bias']);
      await expectClose(model, folded);
    }
  });

  it('computes W·s and (b − mean)·s + β per output channel, s = γ/√(var + ε), in float64', () => {
    const model = convBn({ bias: true });
    const { model: folded } = foldBatchNorm(model);
    const get = (m: ModelProto, name: string) =>
      readTensorAsFloat32(m.graph!.initializer.find((t) => t.name === name)!);
    const [g, be, mu, v, w, b] = ['gamma', 'beta', 'mean', 'var', 'w', 'b'].map((n) => get(model, n));
    const s = [...g].map((gc, c) => gc / Math.sqrt(v[c] + Math.fround(1e-3)));
    const wf = get(folded, 'w');
    const per = w.length / C;
    for (let i = 0; i < w.length; i++) expect(wf[i]).toBe(Math.fround(w[i] * s[Math.floor(i / per)]));
    expect([...get(folded, 'b')]).toEqual(s.map((sc, c) => Math.fround((b[c] - mu[c]) * sc + be[c])));
  });

  it('handles grouped Conv and grouped ConvTranspose (output channel along dim 1 per group)', async () => {
    for (const op of ['Conv', 'ConvTranspose'] as const) {
      const model = convBn({ op, group: 2, bias: true });
      const { model: folded, folded: counts } = foldBatchNorm(model);
      expect(counts).toEqual({ [op]: 1 });
      await expectClose(model, folded);
    }
  });

  it('leaves the pair alone when the Conv output has another reader, is a graph output, the BatchNormalization is not in inference form, or a weight is not a constant', () => {
    const shared = convBn();
    shared.graph!.node.push(makeNode('Relu', ['c'], ['r']));
    shared.graph!.output.push(floatIO('r'));
    const asOutput = convBn();
    asOutput.graph!.output.push(floatIO('c'));
    const training = convBn();
    training.graph!.node[1] = bn('c', 'y', ['rm', 'rv']);
    const paramsAsInputs = convBn();
    paramsAsInputs.graph!.initializer = paramsAsInputs.graph!.initializer.filter((t) => t.name !== 'mean');
    paramsAsInputs.graph!.input.push(floatIO('mean', [C]));
    const overridable = convBn();
    overridable.graph!.input.push(floatIO('w', [C, 2, 3, 3]));
    for (const model of [shared, asOutput, training, paramsAsInputs, overridable]) {
      const { model: out, folded } = foldBatchNorm(model);
      expect(folded).toEqual({});
      expect(out.graph!.node).toEqual(model.graph!.node);
    }
  });

  it('gives folded weights new names while another node still reads the original (the last reader keeps the name)', async () => {
    const model = convBn();
    model.graph!.node.push(
      makeNode('Conv', ['x', 'w'], ['c2'], 'conv2'),
      makeNode('BatchNormalization', ['c2', 'gamma', 'beta', 'mean', 'var'], ['y2'], 'bn2'),
    );
    model.graph!.output.push(floatIO('y2'));
    const { model: folded, folded: counts } = foldBatchNorm(model);
    expect(counts).toEqual({ Conv: 2 });
    const names = folded.graph!.initializer.map((t) => t.name).sort();
    expect(names).toEqual(['w', 'w_bias', 'w_bias_2', 'w_bn']);
    expect(folded.graph!.node.map((n) => n.input[1])).toEqual(['w_bn', 'w']);
    await expectClose(model, folded);
  });

  it('does not modify the input model', () => {
    const model = convBn({ bias: true });
    const before = encode(model);
    foldBatchNorm(model);
    expect(Buffer.compare(Buffer.from(encode(model)), Buffer.from(before))).toBe(0);
  });
});
