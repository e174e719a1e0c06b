/**
 * Tensors everywhere on the command line: --calib and --data folders of .npy and .npz samples in the page's
 * convention (<input>_<k>.npy side by side, <sample>/<input>.npy, one .npz per sample), for a model with several
 * inputs of several element types (float32, a float16 state, an int64 scalar, a uint8 mask), through calibrate,
 * quantize and evaluate; mixed folders name what they ignore, empty ones say what they hold.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DataType,
  encode,
  intAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
} from '../src/core/onnx/index.ts';
import { numberToFloat16 } from '../src/core/onnx/halfFloat.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { npyBytes, npzBytes } from './helpers/npyFiles.ts';
import { qstudio } from './helpers/qstudio.ts';

/** input·(1 + state)·mask·(sr/16000) → MatMul → Relu: every input changes the result. */
function statefulModel() {
  const cast = (x: string, y: string) => makeNode('Cast', [x], [y], `cast_${x}`, [intAttribute('to', DataType.FLOAT)]);
  return makeModel(
    makeGraph({
      name: 'stateful',
      node: [
        cast('state', 's32'),
        cast('mask', 'm32'),
        cast('sr', 'r32'),
        makeNode('Div', ['r32', 'rate'], ['rs'], 'rate_scale'),
        makeNode('Add', ['input', 's32'], ['a'], 'add_state'),
        makeNode('Mul', ['a', 'm32'], ['b'], 'mask_mul'),
        makeNode('Mul', ['b', 'rs'], ['c'], 'rate_mul'),
        makeNode('MatMul', ['c', 'w'], ['mm'], 'matmul'),
        makeNode('Relu', ['mm'], ['out'], 'relu'),
      ],
      input: [
        makeValueInfo('input', DataType.FLOAT, [1, 8]),
        makeValueInfo('state', DataType.FLOAT16, [1, 8]),
        makeValueInfo('sr', DataType.INT64, []),
        makeValueInfo('mask', DataType.UINT8, [1, 8]),
      ],
      output: [makeValueInfo('out', DataType.FLOAT, [1, 4])],
      initializer: [
        makeTensor('rate', DataType.FLOAT, [], Float32Array.of(16000)),
        makeTensor('w', DataType.FLOAT, [8, 4], seededFloats(32, 3, -1, 1)),
      ],
    }),
    { '': 13 },
    7,
  );
}

/** Sample k's four arrays as .npy bytes. */
function sample(k: number): Record<string, Uint8Array> {
  return {
    input: npyBytes(seededFloats(8, 10 + k, -1, 1), [1, 8], '<f4'),
    state: npyBytes(Uint16Array.from(seededFloats(8, 30 + k, 0, 0.5), numberToFloat16), [1, 8], '<f2'),
    sr: npyBytes(BigInt64Array.of(k % 2 ? 8000n : 16000n), [], '<i8'),
    mask: npyBytes(
      Uint8Array.from({ length: 8 }, (_, j) => ((j + k) % 3 ? 1 : 0)),
      [1, 8],
      '|u1',
    ),
  };
}

const SAMPLES = 6;
let dir = '';
let model = '';
const folder = (name: string) => path.join(dir, name);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-tensors-'));
  model = path.join(dir, 'stateful.onnx');
  fs.writeFileSync(model, encode(statefulModel()));
  for (const name of ['flat', 'sub', 'npz', 'empty', 'text']) fs.mkdirSync(folder(name));
  for (let k = 0; k < SAMPLES; k++) {
    const arrays = sample(k);
    fs.mkdirSync(path.join(folder('sub'), `s${k}`));
    for (const [input, bytes] of Object.entries(arrays)) {
      fs.writeFileSync(path.join(folder('flat'), `${input}_${k}.npy`), bytes);
      fs.writeFileSync(path.join(folder('sub'), `s${k}`, `${input}.npy`), bytes);
    }
    fs.writeFileSync(path.join(folder('npz'), `${k}.npz`), npzBytes(arrays, k % 2 === 1));
  }
  // A mixed folder: a photo and a note beside the tensors; one sample's sr saved as int32 (the input is int64).
  fs.writeFileSync(path.join(folder('flat'), 'photo.png'), new Uint8Array(8));
  fs.writeFileSync(path.join(folder('flat'), 'notes.txt'), 'calibration set');
  fs.writeFileSync(path.join(folder('flat'), `sr_${SAMPLES}.npy`), npyBytes(Int32Array.of(16000), [], '<i4'));
  for (const input of ['input', 'state', 'mask'])
    fs.writeFileSync(path.join(folder('flat'), `${input}_${SAMPLES}.npy`), sample(SAMPLES)[input]);
  fs.writeFileSync(path.join(folder('text'), 'readme.md'), '#');
});

const ranges = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')).ranges as Record<string, [number, number]>;

describe('tensor folders on the command line', () => {
  it('calibrate reads <input>_<k>.npy, <sample>/<input>.npy and .npz alike, names what a mixed folder ignores and why a sample is skipped', () => {
    const runs = ['flat', 'sub', 'npz'].map((layout) => {
      const out = path.join(dir, `ranges-${layout}.json`);
      const run = qstudio('calibrate', model, '--calib', folder(layout), '--config', 'A8W8', '-o', out);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(new RegExp(`calibrated on ${SAMPLES} tensor samples`));
      // Not a terminal: plain progress lines.
      expect(run.stderr).toMatch(new RegExp(`calibrating: ${SAMPLES}/${SAMPLES} samples`));
      return { run, ranges: ranges(out) };
    });
    expect(runs[0].run.stderr).toMatch(
      /holds \.npy\/\.npz tensors, which are used; ignored: 1 image\(s\) \(photo\.png\) and 1 other file\(s\) \(notes\.txt\)/,
    );
    expect(runs[0].run.stderr).toMatch(
      /skipped sr_6\.npy: NpyInputMismatchError: sr_6\.npy holds int32 but input 'sr' takes int64/,
    );
    expect(runs[0].run.stderr).toMatch(/skipped 6: the sample has no tensor for input sr/);
    expect(runs[1].ranges).toEqual(runs[0].ranges);
    expect(runs[2].ranges).toEqual(runs[0].ranges);
    expect(Object.keys(runs[0].ranges)).toEqual(expect.arrayContaining(['input', 'a', 'c', 'mm', 'out']));
  });

  it('a sample holding NaN is skipped once, by name and why; a folder of only such samples is refused', () => {
    const nan = folder('nan');
    fs.mkdirSync(nan, { recursive: true });
    for (let k = 0; k < 2; k++) fs.writeFileSync(path.join(nan, `${k}.npz`), npzBytes(sample(k), false));
    // A state saved before it was set: float16 NaN (0x7e00) in every element.
    const bad = { ...sample(2), state: npyBytes(new Uint16Array(8).fill(0x7e00), [1, 8], '<f2') };
    fs.writeFileSync(path.join(nan, 'bad.npz'), npzBytes(bad, false));
    const quant = path.join(dir, 'nan.quant.onnx');
    const q = qstudio('quantize', model, '--calib', nan, '--config', 'XINT8', '-o', quant);
    expect(q.code, q.stderr).toBe(0);
    expect(q.stderr).toMatch(/calibrated on 2 tensor samples/);
    expect(q.stderr.match(/skipped bad\.npz/g)).toEqual(['skipped bad.npz']);
    expect(q.stderr).toMatch(/skipped bad\.npz: NpyNonFiniteError: bad\.npz:state holds 8 NaN of its 8 values/);
    const only = folder('nan-only');
    fs.mkdirSync(only, { recursive: true });
    fs.writeFileSync(path.join(only, 'bad.npz'), npzBytes(bad, false));
    const refused = qstudio('quantize', model, '--calib', only, '--config', 'XINT8', '-o', quant);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /NoDataError: no usable tensor samples .*NpyNonFiniteError: bad\.npz:state holds 8 NaN/,
    );
  });

  it('quantize --calib and evaluate --data take tensor folders', () => {
    const quant = path.join(dir, 'stateful.quant.onnx');
    const q = qstudio('quantize', model, '--calib', folder('npz'), '--config', 'A8W8', '-o', quant);
    expect(q.code, q.stderr).toBe(0);
    const e = qstudio('evaluate', model, quant, '--data', folder('sub'));
    expect(e.code, e.stderr).toBe(0);
    expect(e.stderr).toMatch(new RegExp(`compared on ${SAMPLES} tensor samples`));
    const cosine = Number(/Mean cos similarity: ([\d.]+)/.exec(e.stdout)?.[1]);
    expect(cosine).toBeGreaterThan(0.99);
  });

  it('an empty folder and a folder of other files say what they hold and how tensors are laid out', () => {
    const empty = qstudio(
      'calibrate',
      model,
      '--calib',
      folder('empty'),
      '--config',
      'A8W8',
      '-o',
      path.join(dir, 'r.json'),
    );
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(
      /NoDataError: .*empty holds no images \(\.jpg, \.png\) and no tensors \(\.npy, \.npz\): it is empty\. Tensors: one \.npy or \.npz file per sample/,
    );
    const text = qstudio('evaluate', model, model, '--data', folder('text'));
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(/NoDataError: .*; it has readme\.md/);
  });

  it('--help shows the tensor convention', () => {
    for (const command of ['calibrate', 'quantize', 'evaluate', 'suggest', 'ladder']) {
      expect(qstudio(command, '--help').stdout.replace(/\s+/g, ' ')).toMatch(
        /tensors \(\.npy, \.npz, any element type the inputs declare: one file per sample for one input; <input>_<k>\.npy, <sample>\/<input>\.npy or one \.npz per sample/,
      );
    }
  });
});
