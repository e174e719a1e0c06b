/**
 * Every model the product writes must also run in onnxruntime-web (the studio's runtime), not only in
 * onnxruntime-node. onnxruntime-web's WASM backend runs in Node too: each preset's model of two real
 * detectors (ai.onnx 10/11/13/21 and com.microsoft Q/DQ among them) runs there and agrees with
 * onnxruntime-node on a real photo.
 */
import { describe, expect, it } from 'vitest';
import * as ortWeb from 'onnxruntime-web';
import { buildGraphIndex, encode, tensorSummary } from '../src/core/onnx/index.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset, PRESET_NAMES } from '../src/core/quantize/presets.ts';
import { configToJSON, validateConfig } from '../src/core/quantize/config.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { imageToTensor } from '../src/core/preprocess/toTensor.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { FIXTURE_PREPROCESS, fixtureRanges, PHOTOS } from './helpers/calibration.ts';

ortWeb.env.wasm.numThreads = 1;

const cases: [string, string, boolean][] = [
  ...PRESET_NAMES.map((p) => ['ultraface-rfb-320.onnx', p, false] as [string, string, boolean]),
  ['ultraface-rfb-320.onnx', 'A16W8', true],
  ['yolox-nano.onnx', 'XINT8', false],
  ['yolox-nano.onnx', 'U8S8', false],
];

function cosineOf(a: Float32Array, b: Float32Array): number {
  let dot = 0,
    na = 0,
    nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

describe('quantized models in onnxruntime-web (WASM)', () => {
  it.each(cases)('%s %s (per channel: %s) runs and matches onnxruntime-node', async (name, preset, perChannel) => {
    const config = validateConfig({ ...JSON.parse(configToJSON(getPreset(preset))), perChannel });
    const { model, ranges } = await fixtureRanges(name, config);
    const bytes = encode(quantizeModel(model, ranges, config, preset).model);
    const input = tensorSummary(buildGraphIndex(model.graph!).inputs[0]);
    const t = imageToTensor(decodeImageFile(PHOTOS[2]), input.shape ?? [], FIXTURE_PREPROCESS[name]);

    const web = await ortWeb.InferenceSession.create(bytes, {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'basic',
    });
    const webOut = await web.run({ [input.name]: new ortWeb.Tensor('float32', t.data, t.dims) });
    const native = await createSession(bytes);
    const nativeOut = await native.run({ [input.name]: float32Tensor(t.data, t.dims) });
    // onnxruntime-node against itself, at its default level (int8 kernels where it fuses Q/DQ): how far the model
    // carries a rounding difference.
    const nativeAll = await createSession(bytes, 0, 'all');
    const nativeAllOut = await nativeAll.run({ [input.name]: float32Tensor(t.data, t.dims) });
    for (const key of Object.keys(nativeOut)) {
      const a = nativeOut[key].data as Float32Array;
      const b = webOut[key].data as Float32Array;
      expect(b.length).toBe(a.length);
      const differing = a.reduce((n, v, i) => n + (v !== b[i] ? 1 : 0), 0);
      // The builds compute float ops in a different order; a value that lands within rounding error of a
      // quantization tie can flip one code and carry on. Outputs must agree closely: to 0.999, or, where the model
      // carries such a flip through many layers (YOLOX-nano per tensor, whose codes sit near ties: node at 'basic'
      // and at 'all' agree to about 0.994), no worse than onnxruntime-node agrees with itself across levels.
      const cosine = cosineOf(a, b);
      const itself = cosineOf(a, nativeAllOut[key].data as Float32Array);
      console.log(
        `${name} ${preset}${perChannel ? ' per-channel' : ''} ${key}: cosine(node, web) ${cosine.toFixed(6)}, ${differing} of ${a.length} values differ; node 'basic' against 'all' ${itself.toFixed(6)}`,
      );
      expect(cosine).toBeGreaterThan(Math.min(0.999, itself - 0.0005));
    }
    await web.release();
    await native.release();
    await nativeAll.release();
  });
});
