/**
 * FP16 source models, as the Ryzen AI guide's "INT8 Quantization for FP16 Models" quantizes them: float16
 * versions of the fixtures, made here in code (float32ToFloat16, Resize's scales left float32), calibrate,
 * quantize with QuantizeFP16 (float16 scales, float parts kept float16), with UseFP32Scale, with chosen
 * subgraphs converted to float32 first (subgraphs_to_include), and run in onnxruntime-node.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { decode, encode, DataType, type ModelProto } from '../src/core/onnx/index.ts';
import { float16ToNumber, numberToFloat16 } from '../src/core/onnx/halfFloat.ts';
import { float32ToFloat16 } from '../src/core/halfFloat/float16.ts';
import { inferElementTypes } from '../src/core/onnx/elementTypeInference.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { configToJSON, validateConfig } from '../src/core/quantize/config.ts';
import { cosineSimilarity } from '../src/core/metrics/index.ts';
import { calibrateOnImages } from '../src/cli/calibration/calibrateOnImages.ts';
import { createSession } from '../src/cli/runtime/ortNode.ts';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { IMAGES, readModel, seededFloats } from './helpers/fixtures.ts';
import { ULTRAFACE_TAIL } from './helpers/ultrafaceTail.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { qstudio } from './helpers/qstudio.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-fp16-'));
const UF_SHAPE = [1, 3, 240, 320];

/** Runs a model on one input given as float32 numbers (fed as float16 where the model takes float16); outputs as numbers. */
async function run(model: ModelProto, input: Float32Array, dims: number[]): Promise<Record<string, Float32Array>> {
  const session = await createSession(encode(model));
  try {
    const half = model.graph!.input[0].type!.tensor_type!.elem_type === DataType.FLOAT16;
    const feed = half
      ? new ort.Tensor('float16', Uint16Array.from(input, numberToFloat16), dims)
      : new ort.Tensor('float32', input, dims);
    const out = await session.run({ [session.inputNames[0]]: feed });
    return Object.fromEntries(
      Object.entries(out).map(([k, t]) => [
        k,
        t.type === 'float16' ? Float32Array.from(t.data as Uint16Array, float16ToNumber) : (t.data as Float32Array),
      ]),
    );
  } finally {
    await session.release();
  }
}

const withOptions = (preset: string, fields: object) =>
  validateConfig({ ...JSON.parse(configToJSON(getPreset(preset as never))), ...fields });

describe('FP16 source models', () => {
  it.each([
    ['mnist.onnx', [1, 1, 28, 28]],
    ['ultraface-rfb-320.onnx', UF_SHAPE],
    ['yolox-nano.onnx', [1, 3, 416, 416]],
  ])('the float16 version of %s runs in onnxruntime-node and matches the float32 model', async (name, dims) => {
    const model = decode(readModel(name));
    const x = seededFloats(
      dims.reduce((a, b) => a * b, 1),
      3,
    );
    const [a, b] = [await run(model, x, dims), await run(float32ToFloat16(model), x, dims)];
    for (const k of Object.keys(a)) expect(cosineSimilarity(a[k], b[k])).toBeGreaterThan(0.997);
  });

  const ultraface = decode(readModel('ultraface-rfb-320.onnx'));
  const half = float32ToFloat16(ultraface);
  let rangesPromise: Promise<Map<string, { min: number; max: number }>> | undefined;
  /** Ranges calibrated on the float16 model itself (calibration runs its float32 form). */
  const ranges = () =>
    (rangesPromise ??= calibrateOnImages(half, PHOTOS, {
      spec: FIXTURE_PREPROCESS['ultraface-rfb-320.onnx'],
      config: getPreset('XINT8'),
    }).then((r) => r.ranges));
  const input = seededFloats(
    UF_SHAPE.reduce((a, b) => a * b, 1),
    9,
    -1,
    1,
  );

  it('calibrates and quantizes (XINT8, QuantizeFP16): float16 end to end, and as close to the float model as the float32 path', async () => {
    const r = await ranges();
    expect(r.size).toBeGreaterThan(150);
    const { model, report } = quantizeModel(half, r, getPreset('XINT8'));
    expect(report.float16).toEqual({ keptNodes: expect.any(Number), scales: 'float16' });
    expect(model.graph!.input[0].type!.tensor_type!.elem_type).toBe(DataType.FLOAT16);
    // Float16 scales where onnxruntime takes them; float32 (with a Cast) next to the ops its CPU provider fuses
    // into QLinear kernels, which refuse float16 scales at onnxruntime's default options.
    const scales = model.graph!.initializer.filter((t) => /_scale$/.test(t.name ?? ''));
    expect(scales.some((t) => t.data_type === DataType.FLOAT16)).toBe(true);
    expect(report.warnings.some((w) => /keep float32 scales/.test(w))).toBe(true);
    await (await createSession(encode(model), 0, 'all')).release();
    const viaFp32 = quantizeModel(ultraface, r, getPreset('XINT8')).model;
    const [reference, q16, q32] = [
      await run(half, input, UF_SHAPE),
      await run(model, input, UF_SHAPE),
      await run(viaFp32, input, UF_SHAPE),
    ];
    const fp16Cosine = cosineSimilarity(reference.scores, q16.scores);
    expect(fp16Cosine).toBeGreaterThan(0.99);
    expect(Math.abs(fp16Cosine - cosineSimilarity(reference.scores, q32.scores))).toBeLessThan(0.01);
  });

  it('keeps an excluded subgraph in float16, and converts the chosen subgraph to float32 with Casts at its borders', async () => {
    const r = await ranges();
    const config = withOptions('XINT8', {
      subgraphsToExclude: [ULTRAFACE_TAIL],
      fp16SubgraphsToFp32: [{ starts: ['Conv_0'], ends: ['Relu_8'] }],
      extraOptions: { QuantizeFP16: true, UseFP32Scale: false },
    });
    const { model, report } = quantizeModel(half, r, config);
    const g = model.graph!;
    const types = inferElementTypes(g);
    const tail = new Set(report.exclusions[0].ids);
    const tailNodes = g.node.filter((n) => tail.has(n.name as never));
    expect(tailNodes.length).toBe(18);
    expect(
      tailNodes
        .filter((n) => n.op_type !== 'Shape' && n.op_type !== 'Gather' && n.op_type !== 'Unsqueeze')
        .every((n) => n.output.every((o) => types.get(o) !== DataType.FLOAT)),
    ).toBe(true);
    const conv0 = g.node.find((n) => n.name === 'Conv_0')!;
    expect(types.get(conv0.output[0])).toBe(DataType.FLOAT);
    expect(g.node.some((n) => n.op_type === 'Cast')).toBe(true);
    const out = await run(model, input, UF_SHAPE);
    const reference = await run(half, input, UF_SHAPE);
    expect(cosineSimilarity(reference.boxes, out.boxes)).toBeGreaterThan(0.99);
  });

  it("UseFP32Scale at the model's own opset: float32 scales, Casts around the Q/DQ, and onnx.checker accepts the file", async () => {
    const config = withOptions('U8S8', { extraOptions: { QuantizeFP16: true, UseFP32Scale: true } });
    const { model } = quantizeModel(half, await ranges(), config);
    expect(model.opset_import.find((o) => !o.domain)!.version).toBeLessThan(19);
    const file = path.join(tmp, 'uf-fp32-scale.onnx');
    fs.writeFileSync(file, encode(model));
    expect(checkModels([file])).toEqual([{ path: file, ok: true }]);
    const out = await run(model, input, UF_SHAPE);
    expect(cosineSimilarity((await run(half, input, UF_SHAPE)).scores, out.scores)).toBeGreaterThan(0.99);
  });

  it('qstudio quantize --calib and evaluate take a float16 model (no onnxruntime type error)', () => {
    const file = path.join(tmp, 'mnist-fp16.onnx');
    fs.writeFileSync(file, encode(float32ToFloat16(decode(readModel('mnist.onnx')))));
    const calib = path.join(tmp, 'calib');
    fs.mkdirSync(calib);
    for (const f of ['grace_hopper.jpg', 'astronaut.png', 'camera.png'])
      fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
    const out = path.join(tmp, 'mnist-q.onnx');
    const q = qstudio('quantize', file, '--calib', calib, '--preprocess', 'unit', '--config', 'XINT8', '-o', out);
    expect(q.stderr).not.toMatch(/Unexpected input data type/);
    expect(q.code).toBe(0);
    expect(q.stderr).toMatch(/quantized as with QuantizeFP16/);
    const e = qstudio('evaluate', file, out, '--data', calib, '--preprocess', 'unit');
    expect(e.code).toBe(0);
    expect(Number(/Mean cos similarity: ([\d.]+)/.exec(e.stdout)?.[1])).toBeGreaterThan(0.9);
  });
});
