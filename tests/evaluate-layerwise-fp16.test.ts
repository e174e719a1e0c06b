/**
 * Layer-wise comparison of a float16 model: its inside computes in float16 (ISNet ships so), and onnxruntime hands
 * those tensors back as float16, so the per-layer table must read them too, not only the float32 Casts at the
 * interface. MNIST turned to float16 in code (float32ToFloat16), quantized XINT8 (as with QuantizeFP16), both
 * models run in onnxruntime-node.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { decode, type ModelProto } from '../src/core/onnx/index.ts';
import { float32ToFloat16 } from '../src/core/halfFloat/float16.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { calibrateOnImages } from '../src/cli/calibration/calibrateOnImages.ts';
import { compareModels, type LayerwiseResult } from '../src/core/evaluate/compareModels.ts';
import { float32Tensor, nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { readModel, seededFloats } from './helpers/fixtures.ts';

describe('layer-wise comparison of a float16 model (MNIST in float16, XINT8)', () => {
  let half: ModelProto;
  let lw: LayerwiseResult;

  beforeAll(async () => {
    half = float32ToFloat16(decode(readModel('mnist.onnx')));
    const config = getPreset('XINT8');
    const { ranges } = await calibrateOnImages(half, PHOTOS.slice(0, 4), {
      config,
      spec: FIXTURE_PREPROCESS['mnist.onnx'],
    });
    const { model: quantized } = quantizeModel(half, ranges, config, 'XINT8');
    const feeds = Array.from({ length: 3 }, (_, k) => ({
      Input3: float32Tensor(seededFloats(784, 11 + k, 0, 1), [1, 1, 28, 28]),
    }));
    lw = (await compareModels(half, quantized, nodeRuntime(feeds), { layers: true })).layerwise!;
  });

  it('compares the float16 tensors inside (every node output the quantized model keeps), with finite SQNR', () => {
    // (A Conv whose bias Add graph preparation folded in has its output listed as missing instead.)
    const outputs = half
      .graph!.node.filter((n) => n.op_type !== 'Cast' && n.op_type !== 'Constant')
      .flatMap((n) => n.output)
      .filter((t) => !lw.missing.includes(t));
    expect(outputs.length).toBeGreaterThan(6);
    for (const t of outputs) {
      const row = lw.rows.find((r) => r.tensor === t);
      expect(row, t).toBeDefined();
      expect(row!.sqnr, t).toBeGreaterThan(10);
      expect(Number.isFinite(row!.sqnr), t).toBe(true);
      expect(row!.samples).toBe(3);
    }
  });
});
