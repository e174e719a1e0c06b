/**
 * Coarser grids on a written model's 16-bit Q/DQ (core/quantize/coarserGrids.ts), run for real in onnxruntime-node:
 * every weight re-rounded to 8 bits reads the 8-bit quantizer's own dequantized weights, and every activation pair
 * stepped as 8 bits moves the output about as far from the float model as the 8-bit model does, where the 16-bit model
 * it came from stays close.
 */
import { describe, expect, it } from 'vitest';
import { getPreset } from '../src/core/quantize/presets.ts';
import { withOptions } from '../src/core/quantize/config.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { withCoarserGrids } from '../src/core/quantize/coarserGrids.ts';
import { precisionUnits, withUnits } from '../src/core/search/mixedPrecision.ts';
import { calibrateOnTensors } from '../src/cli/calibration/calibrateOnImages.ts';
import { readTensor, readTensorAsFloat32 } from '../src/core/onnx/tensorData.ts';
import type { ModelProto } from '../src/core/onnx/index.ts';
import { convChainFeeds, convChainModel } from './helpers/recoverModels.ts';
import { outputsOf } from './helpers/smallModels.ts';

const model = convChainModel();
const feeds = convChainFeeds(4);
const config = withOptions(getPreset('A8W8'), { perChannel: true });
const { ranges } = await calibrateOnTensors(
  model,
  feeds.map((f) => f.x),
  { config },
);
const narrow = quantizeModel(model, ranges, config).model;
const units = precisionUnits(quantizeModel(model, ranges, config), config);
const wide = quantizeModel(model, ranges, withUnits(config, [...units.act16, ...units.w16])).model;

const initializer = (m: ModelProto, name: string) => m.graph!.initializer.find((t) => t.name === name)!;
/** Dequantized values of weight `w` as the model's DequantizeLinear reads them (symmetric: code × channel scale). */
function dequantizedWeight(m: ModelProto, w: string): Float32Array {
  const codes = readTensor(initializer(m, `${w}_quantized`)) as Int8Array | Int16Array;
  const scales = readTensorAsFloat32(initializer(m, `${w}_scale`));
  const per = codes.length / scales.length;
  return Float32Array.from(codes, (q, i) => q * scales[Math.floor(i / per)]);
}

/** Mean squared difference of every output of `m` from the float model's, over the feeds. */
async function outputError(m: ModelProto): Promise<number> {
  let sum = 0,
    count = 0;
  for (const f of feeds) {
    const [reference, quantized] = [await outputsOf(model, f), await outputsOf(m, f)];
    for (const name of Object.keys(reference)) {
      const a = reference[name].data as Float32Array,
        b = quantized[name].data as Float32Array;
      for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
      count += a.length;
    }
  }
  return sum / count;
}

describe('coarser grids on a 16-bit model', () => {
  it('re-rounds every weight onto the 8-bit grid the quantizer writes', () => {
    const coarse = withCoarserGrids(wide, { weights: 8 });
    const weights = units.w16.flatMap((u) => u.names);
    expect(weights.length).toBeGreaterThan(3);
    for (const w of weights) {
      const codes = readTensor(initializer(coarse, `${w}_quantized`)) as Int16Array;
      expect(Math.max(...codes.map(Math.abs))).toBeLessThanOrEqual(127);
      const emulated = dequantizedWeight(coarse, w);
      const eight = dequantizedWeight(narrow, w);
      const step = Math.max(...readTensorAsFloat32(initializer(narrow, `${w}_scale`)));
      // Rounded once from 16-bit codes rather than from the float weight: a code may land one step off on a tie.
      let same = 0;
      for (let i = 0; i < eight.length; i++) {
        expect(Math.abs(emulated[i] - eight[i])).toBeLessThanOrEqual(step * 1.0001);
        if (Math.abs(emulated[i] - eight[i]) <= step * 1e-4) same++;
      }
      expect(same / eight.length).toBeGreaterThan(0.95);
    }
  });

  it('steps every activation pair 256 times coarser, and the outputs move as far as the 8-bit model’s', async () => {
    const coarse = withCoarserGrids(wide, { activations: 8 });
    let pairs = 0;
    for (const n of wide.graph!.node.filter((n) => n.op_type === 'QuantizeLinear')) {
      const before = readTensorAsFloat32(initializer(wide, n.input[1]))[0];
      const after = readTensorAsFloat32(initializer(coarse, n.input[1]))[0];
      expect(after).toBeCloseTo(before * 256, 9);
      pairs++;
    }
    expect(pairs).toBe(units.act16.flatMap((u) => u.names).length);
    const [wideError, narrowError, coarseError] = [
      await outputError(wide),
      await outputError(narrow),
      await outputError(coarse),
    ];
    expect(coarseError).toBeGreaterThan(100 * wideError);
    expect(coarseError).toBeGreaterThan(narrowError / 4);
    expect(coarseError).toBeLessThan(narrowError * 4);
  });

  it('changes only the named tensors, and leaves a model without 16-bit Q/DQ as it was', () => {
    const [first] = units.act16[0].names;
    const coarse = withCoarserGrids(wide, { activations: 10, only: new Set([first]) });
    const changed = coarse.graph!.initializer.filter((t, i) => t !== wide.graph!.initializer[i]).map((t) => t.name);
    expect(changed).toEqual([`${first}_scale`]);
    expect(withCoarserGrids(narrow, { activations: 8, weights: 8 })).toBe(narrow);
  });
});
