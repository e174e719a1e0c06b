/**
 * BF16 as the Ryzen AI guide's CPU validation makes it (Quark's BF16 with BF16QDQToCast: Casts instead of
 * Q/DQ), and a quantized model's float parts judged as the NPU runs them (BF16), in onnxruntime-node.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode, encode, DataType, makeGraph, makeModel, makeNode, makeValueInfo } from '../src/core/onnx/index.ts';
import { bfloat16ToNumber, numberToBfloat16 } from '../src/core/onnx/halfFloat.ts';
import { bf16Model, floatParts, floatPartsAsBf16 } from '../src/core/halfFloat/bfloat16.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { configToJSON, validateConfig } from '../src/core/quantize/config.ts';
import { cosineSimilarity } from '../src/core/metrics/index.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { fixtureRanges } from './helpers/calibration.ts';
import { IMAGES, MODELS, readModel, seededFloats } from './helpers/fixtures.ts';
import { ULTRAFACE_TAIL } from './helpers/ultrafaceTail.ts';
import { qstudio } from './helpers/qstudio.ts';
import { bf16DocumentToJSON, readBf16Document } from '../src/core/export/index.ts';
import { quantizeBf16 } from '../src/core/quantize/bf16Preset.ts';

async function run(bytes: Uint8Array, input: Float32Array, dims: number[]) {
  const s = await createSession(bytes);
  try {
    const out = await s.run({ [s.inputNames[0]]: float32Tensor(input, dims) });
    return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, t.data as Float32Array]));
  } finally {
    await s.release();
  }
}

describe('BF16 with-cast', () => {
  it("rounds every value to bfloat16 exactly as the studio's own rounding (ties to even), even below opset 13", async () => {
    const model = makeModel(
      makeGraph({
        node: [makeNode('Relu', ['x'], ['y'])],
        input: [makeValueInfo('x', DataType.FLOAT, [6])],
        output: [makeValueInfo('y', DataType.FLOAT, [6])],
      }),
      { '': 11 },
    );
    const x = Float32Array.of(Math.PI, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1e-3, 123456.789, 0.1);
    const { model: bf16 } = bf16Model(model);
    expect(bf16.opset_import.find((o) => !o.domain)!.version).toBe(13); // Cast takes bfloat16 from 13
    const { y } = await run(encode(bf16), x, [6]);
    expect(Array.from(y)).toEqual(Array.from(x, (v) => bfloat16ToNumber(numberToBfloat16(v))));
  });

  it('MNIST in BF16: weights stored as bfloat16, outputs close to float32 but not identical', async () => {
    const model = decode(readModel('mnist.onnx'));
    const { model: bf16, summary } = bf16Model(model);
    expect(summary.weights).toBeGreaterThan(0);
    expect(bf16.graph!.initializer.filter((t) => t.data_type === DataType.BFLOAT16)).toHaveLength(summary.weights);
    const x = seededFloats(784, 4);
    const [a, b] = [await run(readModel('mnist.onnx'), x, [1, 1, 28, 28]), await run(encode(bf16), x, [1, 1, 28, 28])];
    const out = Object.keys(a)[0];
    expect(cosineSimilarity(a[out], b[out])).toBeGreaterThan(0.999);
    expect(Array.from(a[out])).not.toEqual(Array.from(b[out]));
  });
});

describe('float parts judged as the NPU runs them', () => {
  it('finds the excluded UltraFace tail as the float parts and runs them in BF16; a fully quantized model has none', async () => {
    const config = validateConfig({
      ...JSON.parse(configToJSON(getPreset('XINT8'))),
      subgraphsToExclude: [ULTRAFACE_TAIL],
    });
    const { model, ranges } = await fixtureRanges('ultraface-rfb-320.onnx', config);
    const { model: quantized, report } = quantizeModel(model, ranges, config);
    const excluded = new Set<string>(report.exclusions[0].ids);
    const parts = [...floatParts(quantized)].map((n) => n.name ?? '');
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.every((p) => excluded.has(p))).toBe(true);
    expect(floatParts(quantizeModel(model, ranges, getPreset('XINT8')).model).size).toBe(0);

    const npu = floatPartsAsBf16(quantized);
    expect(npu.nodes).toBeGreaterThanOrEqual(parts.length); // raising the opset to 13 for bfloat16 Casts may add helper nodes
    const x = seededFloats(3 * 240 * 320, 12, -1, 1);
    const dims = [1, 3, 240, 320];
    const [written, asNpu] = [await run(encode(quantized), x, dims), await run(encode(npu.model), x, dims)];
    expect(cosineSimilarity(written.boxes, asNpu.boxes)).toBeGreaterThan(0.999);
    expect(Array.from(written.boxes)).not.toEqual(Array.from(asNpu.boxes));
  });

  it("the BF16 preset as the page runs it: every node in BF16, none float, a report like a quantization's; already quantized models refused", async () => {
    const source = decode(readModel('mnist.onnx'));
    const { model, report, summary } = quantizeBf16(source);
    expect(report.config).toBe('BF16');
    expect(report.counts).toMatchObject({
      nodes: source.graph!.node.length,
      quantized: source.graph!.node.length,
      float: 0,
      activationPairs: summary.activations,
    });
    expect(report.bf16).toEqual(summary);
    expect(report.opset.after).toBeGreaterThanOrEqual(13);
    expect(model.graph!.node.filter((n) => n.op_type === 'Cast').length).toBe(
      2 * summary.activations + summary.weights,
    );
    const { ranges } = await fixtureRanges('mnist.onnx', getPreset('XINT8'));
    const xint8 = quantizeModel(source, ranges, getPreset('XINT8')).model;
    expect(() => quantizeBf16(xint8)).toThrow(expect.objectContaining({ name: 'UnsupportedModelError' }));
  });

  it('the BF16 config document: read back, and anything but with-cast refused by name', () => {
    const studio = {
      model: 'm.onnx',
      settings: { preset: 'BF16', perChannel: false, useRandomData: false },
      exclusions: [{ kind: 'nodes' as const, name: 'a', nodes: ['Conv_1'] }],
    };
    expect(readBf16Document(JSON.parse(bf16DocumentToJSON(studio)))).toEqual(studio);
    expect(readBf16Document({ activationType: 'int8' })).toBeNull();
    expect(() => readBf16Document({ preset: 'BF16', extraOptions: { BF16QDQToCast: false } })).toThrow(
      expect.objectContaining({ name: 'ConfigError', field: 'extraOptions' }),
    );
    expect(() => readBf16Document({ preset: 'BF16', perChannel: true })).toThrow(
      expect.objectContaining({ name: 'ConfigError', field: 'perChannel' }),
    );
  });

  it('qstudio: quantize --config BF16 needs no calibration; evaluate --npu-bf16 prints both figures, labelled', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-bf16-'));
    const out = path.join(tmp, 'mnist-bf16.onnx');
    const q = qstudio('quantize', path.join(MODELS, 'mnist.onnx'), '--config', 'BF16', '-o', out);
    expect(q.code).toBe(0);
    expect(q.stdout).toMatch(/BF16 with-cast, \d+ activations and \d+ weights/);
    const data = path.join(tmp, 'data');
    fs.mkdirSync(data);
    fs.copyFileSync(path.join(IMAGES, 'photos', 'camera.png'), path.join(data, 'camera.png'));
    const e = qstudio(
      'evaluate',
      path.join(MODELS, 'mnist.onnx'),
      out,
      '--data',
      data,
      '--preprocess',
      'unit',
      '--npu-bf16',
    );
    expect(e.code).toBe(0);
    expect(e.stdout).toMatch(
      /The model.s own arithmetic \(onnxruntime at graph optimization .basic.[^\n]*; float parts in float32\)/,
    );
    expect(e.stdout).toMatch(/As the NPU runs it \(float parts in BF16: \d+ nodes/);
    // The page's exported BF16 configuration reproduces the same model through the command line.
    const doc = path.join(tmp, 'mnist.qstudio.json');
    fs.writeFileSync(
      doc,
      bf16DocumentToJSON({
        model: 'mnist.onnx',
        settings: { preset: 'BF16', perChannel: false, useRandomData: false },
        exclusions: [],
      }),
    );
    const fromFile = path.join(tmp, 'mnist-from-file.onnx');
    expect(qstudio('quantize', path.join(MODELS, 'mnist.onnx'), '--config', doc, '-o', fromFile).code).toBe(0);
    expect(Buffer.compare(fs.readFileSync(fromFile), fs.readFileSync(out))).toBe(0);
    const other = qstudio(
      'calibrate',
      path.join(MODELS, 'mnist.onnx'),
      '--calib',
      path.join(IMAGES, 'photos'),
      '--config',
      doc,
      '-o',
      path.join(tmp, 'r.json'),
    );
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain('BF16 preset');
    // The report file carries both figures.
    const json = qstudio(
      'evaluate',
      path.join(MODELS, 'mnist.onnx'),
      out,
      '--data',
      data,
      '--preprocess',
      'unit',
      '--npu-bf16',
      '--json',
    );
    const report = JSON.parse(json.stdout);
    expect(report.npu.floatNodes).toBeGreaterThan(0);
    expect(typeof report.npu.fidelity.meanCosine).toBe('number');
    // The exclusion search can aim at that figure.
    const s = qstudio(
      'suggest',
      path.join(MODELS, 'mnist.onnx'),
      '--calib',
      data,
      '--preprocess',
      'unit',
      '--config',
      'XINT8',
      '--target',
      '0.999999',
      '--max-steps',
      '1',
      '--npu-bf16',
    );
    expect(s.stderr).not.toMatch(/Error/);
    expect(s.stdout).toMatch(/step 1: exclude .* → cosine/);
  });
});
