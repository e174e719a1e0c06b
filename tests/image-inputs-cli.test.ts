/**
 * Image inputs as other exporters write them, through the command line: a batch fixed at 2 (onnxruntime
 * refused the one-image tensor: "Got invalid dimensions for input") and a uint8 NHWC input, as TensorFlow
 * exports often have (`--preprocess auto` chose float32 and calibration stopped with NotAnImageModelError).
 * Small models built in code; each is calibrated, quantized and evaluated on real photos.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DataType,
  encode,
  intAttribute,
  intsAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  type NodeProto,
  type ValueInfoProto,
} from '../src/core/onnx/index.ts';
import { IMAGES } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-image-inputs-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const data = path.join(tmp, 'data');
fs.mkdirSync(data);
for (const f of ['astronaut.png', 'chelsea.png']) fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(data, f));

/** `before` nodes turn the input into `x` (NCHW float); then Conv → Relu → GlobalAveragePool → Flatten → Gemm → scores. */
function classifier(input: ValueInfoProto, before: NodeProto[]): Uint8Array {
  const w = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 1.37) * 0.3);
  const graph = makeGraph({
    name: 'classifier',
    node: [
      ...before,
      makeNode('Conv', ['x', 'cw', 'cb'], ['c'], 'conv', [
        intsAttribute('kernel_shape', [3, 3]),
        intsAttribute('pads', [1, 1, 1, 1]),
      ]),
      makeNode('Relu', ['c'], ['r'], 'relu'),
      makeNode('GlobalAveragePool', ['r'], ['g'], 'gap'),
      makeNode('Flatten', ['g'], ['f'], 'flatten'),
      makeNode('Gemm', ['f', 'fw', 'fb'], ['scores'], 'fc', [intAttribute('transB', 1)]),
    ],
    input: [input],
    output: [makeValueInfo('scores', DataType.FLOAT)],
    initializer: [
      makeTensor('cw', DataType.FLOAT, [8, 3, 3, 3], w(216)),
      makeTensor('cb', DataType.FLOAT, [8], w(8)),
      makeTensor('fw', DataType.FLOAT, [5, 8], w(40)),
      makeTensor('fb', DataType.FLOAT, [5], w(5)),
    ],
  });
  return encode(makeModel(graph, { '': 13 }, 7));
}

function quantizeAndEvaluate(name: string, bytes: Uint8Array, preprocess: string) {
  const floatPath = path.join(tmp, `${name}.onnx`);
  const quantPath = path.join(tmp, `${name}.a8w8.onnx`);
  fs.writeFileSync(floatPath, bytes);
  const q = qstudio(
    'quantize',
    floatPath,
    '--calib',
    data,
    '--preprocess',
    preprocess,
    '--config',
    'A8W8',
    '-o',
    quantPath,
  );
  expect(q.code, q.stderr).toBe(0);
  expect(q.stderr).toContain('calibrated on 2 images');
  const e = qstudio('evaluate', floatPath, quantPath, '--data', data, '--preprocess', preprocess);
  expect(e.code, e.stderr).toBe(0);
  expect(Number(e.stdout.match(/Mean cos similarity: ([\d.]+)/)![1])).toBeGreaterThan(0.99);
  return q;
}

describe('image inputs of other exporters, on the command line', () => {
  it('a batch fixed at 2: every slot of the batch holds the image', () => {
    quantizeAndEvaluate('batch2', classifier(makeValueInfo('x', DataType.FLOAT, [2, 3, 32, 32]), []), 'imagenet');
  });

  it('a uint8 NHWC input: --preprocess auto feeds raw bytes', () => {
    const input = makeValueInfo('image', DataType.UINT8, [1, 32, 32, 3]);
    const before = [
      makeNode('Cast', ['image'], ['image_f'], 'cast', [intAttribute('to', DataType.FLOAT)]),
      makeNode('Transpose', ['image_f'], ['x'], 'to_nchw', [intsAttribute('perm', [0, 3, 1, 2])]),
    ];
    const q = quantizeAndEvaluate('uint8', classifier(input, before), 'auto');
    expect(q.stderr).toContain('takes uint8: raw bytes 0–255');
  });

  it('a model with two inputs: calibration on images stops with a named error that says how to give .npy tensors', () => {
    const graph = makeGraph({
      name: 'two_inputs',
      node: [makeNode('Add', ['a', 'b'], ['x'], 'add'), makeNode('Relu', ['x'], ['y'], 'relu')],
      input: [makeValueInfo('a', DataType.FLOAT, [1, 3, 32, 32]), makeValueInfo('b', DataType.FLOAT, [1, 3, 32, 32])],
      output: [makeValueInfo('y', DataType.FLOAT)],
    });
    const floatPath = path.join(tmp, 'two-inputs.onnx');
    fs.writeFileSync(floatPath, encode(makeModel(graph, { '': 13 }, 7)));
    const q = qstudio(
      'quantize',
      floatPath,
      '--calib',
      data,
      '--preprocess',
      'imagenet',
      '--config',
      'A8W8',
      '-o',
      path.join(tmp, 'two-inputs.q.onnx'),
    );
    expect(q.code).not.toBe(0);
    expect(q.stderr).toMatch(/NotAnImageModelError/);
    expect(q.stderr).toMatch(/2 inputs \(a, b\)/);
    expect(q.stderr).toMatch(/Give --calib a folder of \.npy\/\.npz tensors instead: .*<input>_<k>\.npy/);
  });
});
