/**
 * Fine-tuning (AdaRound, AdaQuant) and bias correction on 1-D convolutions, as audio models have them (Silero VAD's
 * STFT and encoder): each 1-D Conv is tuned as a 2-D one of height 1, its input rows gathered as a plain 1-D im2col
 * reads them (strides, dilations, uneven pads, groups). They were skipped ("a 1-D convolution (only 2-D is tuned)").
 * The written model runs in onnxruntime-node at default options and 'basic' and passes onnx.checker. Whether tuning
 * gains held out is measured on a real model (bench/README.md, silero_vad_half), not on this small chain.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encode, type ModelProto } from '../src/core/onnx/index.ts';
import { validateConfig, type QuantConfigInput } from '../src/core/quantize/config.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { layerRowsOf } from '../src/core/recovery/layerData.ts';
import { findLinearLayers } from '../src/core/recovery/linearLayers.ts';
import { quantizeWithRecovery } from '../src/core/recovery/quantizeWithRecovery.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { createSession, nodeRuntime, type Feeds } from '../src/cli/runtime/ortNode.ts';
import { conv1dChainFeeds, conv1dChainModel } from './helpers/recoverModels.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { outputsOf } from './helpers/smallModels.ts';
import { seededFloats } from './helpers/fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-finetune-conv1d-'));

function config(extra: QuantConfigInput) {
  const base = getPreset('A8W8');
  return validateConfig({ ...base, ...extra, extraOptions: { ...base.extraOptions, ...extra.extraOptions } });
}

/** Mean squared difference of output y between the float model and `model` over held-out feeds. */
async function heldOutError(model: ModelProto, held: readonly Feeds[]): Promise<number> {
  let sum = 0,
    count = 0;
  for (const f of held) {
    const want = (await outputsOf(conv1dChainModel(), f)).y.data;
    const got = (await outputsOf(model, f)).y.data;
    for (let i = 0; i < want.length; i++) sum += (want[i] - got[i]) ** 2;
    count += want.length;
  }
  return sum / count;
}

describe('fine-tuning 1-D convolutions', () => {
  const calib = conv1dChainFeeds(32);
  const held = conv1dChainFeeds(8, 131);
  const calibrate = async (m: ModelProto) => (await calibrateOnFeeds(m, calib, { config: getPreset('A8W8') })).ranges;

  it("gathers a 1-D convolution's input rows as a plain 1-D im2col (stride 2, dilation 2, pads 4/3)", async () => {
    const model = conv1dChainModel();
    const plain = quantizeModel(model, await calibrate(model), getPreset('A8W8'), 'A8W8').model;
    const { layers, skipped } = findLinearLayers(model, plain);
    expect(skipped).toEqual([]);
    const dw = layers.find((l) => l.id === 'dw1d_2')!;
    expect(dw.conv).toMatchObject({ kernel: [1, 5], strides: [1, 2], dilations: [1, 2], pads: [0, 4, 0, 3] });
    const [c, w] = [8, 40];
    const data = seededFloats(c * w, 5, -1, 1);
    const [side] = await layerRowsOf(
      [dw],
      () => 'x',
      async (onSample) => onSample(0, { x: { type: 'float32', data, dims: [1, c, w] } }),
      { positionsPerSample: 1000, samples: 1, seed: 1 },
    );
    const want: number[] = [];
    for (let o = 0; o < 20; o++)
      for (let ch = 0; ch < c; ch++)
        for (let k = 0; k < 5; k++) {
          const x = o * 2 - 4 + k * 2;
          want.push(x >= 0 && x < w ? data[ch * w + x] : 0);
        }
    expect(side.rows * side.width).toBe(want.length);
    expect(Array.from(side.data)).toEqual(want.map((v) => Math.fround(v)));
  });

  for (const algorithm of ['adaround', 'adaquant'] as const) {
    it(`${algorithm} tunes every 1-D Conv, lowers each layer's loss, and writes a model that loads and runs`, async () => {
      const model = conv1dChainModel();
      const plain = quantizeModel(model, await calibrate(model), getPreset('A8W8'), 'A8W8').model;
      const tuned = await quantizeWithRecovery(
        model,
        config({
          includeFastFt: true,
          extraOptions: {
            FastFinetune: {
              OptimAlgorithm: algorithm,
              NumIterations: 300,
              PositionsPerSample: 1000,
              ...(algorithm === 'adaquant' ? { LearningRate: 1e-3 } : {}),
            },
          },
        }),
        { runtime: nodeRuntime(calib), calibrate },
      );
      expect(tuned.recovery.skippedLayers).toEqual([]);
      const ft = tuned.recovery.finetune!;
      expect(ft.layers.map((l) => l.id).sort()).toEqual(['conv1d_1', 'conv1d_3', 'dw1d_2']);
      for (const l of ft.layers) expect(l.lossAfter, l.id).toBeLessThanOrEqual(l.lossBefore);
      expect(ft.lossAfter).toBeLessThan(ft.lossBefore);
      // The same function as the float model, quantized: its error held out is nearest rounding's order, not noise.
      expect(await heldOutError(tuned.model, held)).toBeLessThan(2 * (await heldOutError(plain, held)));
      const file = path.join(tmp, `${algorithm}.onnx`);
      fs.writeFileSync(file, encode(tuned.model));
      expect(checkModels([file])).toEqual([{ path: file, ok: true }]);
      for (const level of ['all', 'basic'] as const) {
        const session = await createSession(file, 1, level);
        expect((await session.run(held[0])).y.dims).toEqual([1, 6, 20]);
        await session.release();
      }
    });
  }
});
