import { describe, expect, it } from 'vitest';
import { asSessionModel, DataType, decode, makeValueInfo } from '../onnx/index.ts';
import { quantizeModel } from '../quantize/quantizeModel.ts';
import { getPreset } from '../quantize/presets.ts';
import { CONV_RELU_RANGES, convReluModel } from '../quantize/testModels.ts';
import { compareModels, type ComparisonRuntime, type RunTensor } from './compareModels.ts';

/** x → Conv → c → Relu → y (output), y → Exp → z (output). */
const float = convReluModel();
const quant = quantizeModel(float, CONV_RELU_RANGES, getPreset('U8S8')).model;

/**
 * A fake runtime: no arithmetic, just a table of values per tensor and sample. The float model's
 * tensors are v(sample, k); the quantized model's are shifted by `shift[name]`. It records which
 * outputs each session was asked for, so the test can see the chunking.
 */
function fakeRuntime(samples: number, shift: Record<string, number>) {
  const asked: string[][] = [];
  let open = 0;
  let maxOpen = 0;
  const value = (name: string, sample: number, isQuant: boolean) =>
    Float32Array.from(
      { length: 8 },
      (_, k) => (sample + 1) * (k + 1) + (isQuant ? (shift[name] ?? 0) * (k % 2 ? 1 : -1) : 0),
    );
  const runtime: ComparisonRuntime = {
    samples,
    async open(bytes) {
      const model = decode(asSessionModel(bytes).bytes);
      const isQuant = model.graph!.node.some((n) => n.op_type === 'QuantizeLinear');
      const outputs = model.graph!.output.map((o) => o.name ?? '');
      open++;
      maxOpen = Math.max(maxOpen, open);
      return {
        async run(sample, names) {
          expect([...names].sort()).toEqual([...outputs].sort());
          asked.push([...names]);
          const out: Record<string, RunTensor> = {};
          for (const n of names) out[n] = { type: 'float32', data: value(n, sample, isQuant), dims: [1, 2, 2, 2] };
          return out;
        },
        async release() {
          open--;
        },
      };
    },
    feeds: (sample) => ({ x: { type: 'float32', data: value('x', sample, false), dims: [1, 1, 2, 2] } }),
  };
  return { runtime, asked, openSessions: () => open, maxOpen: () => maxOpen };
}

describe('compareModels', () => {
  it('compares the outputs sample by sample with Quark metrics', async () => {
    const fake = fakeRuntime(3, { y: 0.5 });
    const result = await compareModels(float, quant, fake.runtime);
    expect(result.samples).toBe(3);
    expect(result.records.map((r) => r.output)).toEqual(['y', 'z', 'y', 'z', 'y', 'z']);
    const z = result.outputs.find((o) => o.output === 'z')!;
    expect(z.metrics.cosine).toEqual({ count: 3, mean: 1, min: 1, max: 1 });
    const y = result.outputs.find((o) => o.output === 'y')!;
    expect(y.metrics.l2!.mean).toBeCloseTo(Math.sqrt(8 * 0.25), 12);
    expect(result.layerwise).toBeUndefined();
    expect(fake.openSessions()).toBe(0);
  });

  it('compares every paired tensor layer by layer, graph inputs included when the runtime gives its feeds', async () => {
    const fake = fakeRuntime(2, { x_DequantizeLinear_Output: 0.0625, c: 0.125, y_QuantizeLinear_Input: 0.25, y: 0.5 });
    const { layerwise } = await compareModels(float, quant, fake.runtime, { layers: true });
    const byTensor = new Map(layerwise!.rows.map((r) => [r.tensor, r]));
    expect([...byTensor.keys()]).toEqual(['x', 'c', 'y', 'z']);
    // Two samples of 8 values (exact in float32): Σx² over both, noise 8·d² per sample.
    const signal = [1, 2].reduce(
      (s, m) => s + Array.from({ length: 8 }, (_, k) => (m * (k + 1)) ** 2).reduce((a, b) => a + b, 0),
      0,
    );
    const sqnr = (d: number) => 10 * Math.log10(signal / (16 * d * d));
    expect(byTensor.get('x')!.sqnr).toBeCloseTo(sqnr(0.0625), 10);
    expect(byTensor.get('c')).toMatchObject({ source: 'value', dequantizedSqnr: null });
    expect(byTensor.get('c')!.sqnr).toBeCloseTo(sqnr(0.125), 10);
    expect(byTensor.get('y')!.sqnr).toBeCloseTo(sqnr(0.5), 10);
    expect(byTensor.get('y')!.valueSqnr).toBeCloseTo(sqnr(0.25), 10);
    expect(byTensor.get('z')!.sqnr).toBe(Infinity);
    expect(layerwise!.chunks).toBe(1);
  });

  it('splits the exposed tensors into chunks when one run would exceed the budget, with the same results', async () => {
    const shift = { c: 0.1, y: 0.25, z: 0.5 };
    const whole = await compareModels(float, quant, fakeRuntime(3, shift).runtime, { layers: true });
    const fake = fakeRuntime(3, shift);
    // Each tensor is 32 bytes; 3 × 32 × 4 exceeds 200 bytes, so chunks of at most 2 float tensors.
    const split = await compareModels(float, quant, fake.runtime, { layers: true, budgetBytes: 200 });
    expect(split.layerwise!.chunks).toBeGreaterThan(1);
    expect(split.layerwise!.rows).toEqual(whole.layerwise!.rows);
    expect(split.outputs).toEqual(whole.outputs);
    expect(fake.openSessions()).toBe(0);
  });

  it('refuses models whose outputs do not correspond', async () => {
    const other = convReluModel();
    other.graph!.output = [makeValueInfo('c', DataType.FLOAT, [1, 2, 2, 2])];
    await expect(compareModels(float, other, fakeRuntime(1, {}).runtime)).rejects.toMatchObject({
      name: 'ComparisonError',
      message: expect.stringMatching(/"y"/),
    });
  });
});
