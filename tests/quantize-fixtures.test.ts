/**
 * The quantizer on every fixture with every preset, ranges from real photos: the model is written, loads
 * and runs in onnxruntime-node, has the Q/DQ structure the preset prescribes (walked node by node), and
 * passes onnx.checker where its opset is at most 17.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildGraphIndex, encode, opsetOf } from '../src/core/onnx/index.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset, PRESET_NAMES } from '../src/core/quantize/presets.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { imageToTensor } from '../src/core/preprocess/toTensor.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { tensorSummary } from '../src/core/onnx/modelSummary.ts';
import { checkQdqStructure } from './helpers/qdqStructure.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { FIXTURE_PREPROCESS, fixtureRanges, PHOTOS } from './helpers/calibration.ts';
import { FIXTURE_MODELS } from './helpers/fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-quantize-'));
const checkable: string[] = [];

describe.each(FIXTURE_MODELS)('%s', (name) => {
  it.each(PRESET_NAMES)('%s: written, runs in onnxruntime-node, Q/DQ structure as prescribed', async (preset) => {
    const config = getPreset(preset);
    const { model, ranges } = await fixtureRanges(name, config);
    const { model: quantized, report } = quantizeModel(model, ranges, config, preset);
    expect(report.counts.quantized).toBeGreaterThan(0);
    expect(checkQdqStructure(quantized, report, config)).toEqual([]);

    const file = path.join(tmp, `${name}.${preset}.onnx`);
    fs.writeFileSync(file, encode(quantized));
    if ((opsetOf(quantized) ?? 0) <= 17) checkable.push(file);

    const input = tensorSummary(buildGraphIndex(model.graph!).inputs[0]);
    const tensor = imageToTensor(decodeImageFile(PHOTOS[1]), input.shape ?? [], FIXTURE_PREPROCESS[name]);
    const session = await createSession(fs.readFileSync(file));
    const outputs = await session.run({ [input.name]: float32Tensor(tensor.data, tensor.dims) });
    for (const value of Object.values(outputs)) {
      expect(Array.from(value.data as Float32Array).every(Number.isFinite)).toBe(true);
    }
    await session.release();
  });
});

// Runs after the cases above (a file's tests run in order): one Python process checks them all.
it('onnx.checker accepts every written model whose opset it knows (≤ 17)', () => {
  const verdicts = checkModels(checkable);
  const failed = verdicts.filter((v) => !v.ok);
  expect(failed).toEqual([]);
  expect(verdicts.length).toBeGreaterThan(30);
});

describe('16-bit activations in com.microsoft Q/DQ (UseQDQContribOps)', () => {
  it('A16W8 on UltraFace keeps ai.onnx at 10, runs in onnxruntime-node and passes onnx.checker', async () => {
    const { configToJSON, validateConfig } = await import('../src/core/quantize/config.ts');
    const config = validateConfig({
      ...JSON.parse(configToJSON(getPreset('A16W8'))),
      extraOptions: { UseQDQContribOps: true },
    });
    const { model, ranges } = await fixtureRanges('ultraface-rfb-320.onnx', config);
    const { model: quantized, report } = quantizeModel(model, ranges, config, 'A16W8');
    expect(report.opset).toEqual({ before: 9, after: 10, qdqDomain: 'com.microsoft' });
    expect(quantized.opset_import).toContainEqual({ domain: 'com.microsoft', version: 1 });
    expect(checkQdqStructure(quantized, report, config)).toEqual([]);
    const file = path.join(tmp, 'ultraface.A16W8.msdomain.onnx');
    fs.writeFileSync(file, encode(quantized));
    expect(checkModels([file])).toEqual([{ path: file, ok: true }]);
    const session = await createSession(fs.readFileSync(file));
    const out = await session.run({ input: float32Tensor(new Float32Array(3 * 240 * 320), [1, 3, 240, 320]) });
    expect(out.scores.dims).toEqual([1, 4420, 2]);
  });
});
