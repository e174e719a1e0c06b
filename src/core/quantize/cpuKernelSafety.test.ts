import { describe, expect, it } from 'vitest';
import {
  DataType,
  intAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  readTensor,
  type ModelProto,
} from '../onnx/index.ts';
import { overflowingChannels, runsInSaturatingKernel, SAFE_PAIR_MAGNITUDE } from './cpuKernelSafety.ts';
import { quantizeModel } from './quantizeModel.ts';
import { getPreset } from './presets.ts';
import { configToJSON, validateConfig } from './config.ts';
import { seededRandom } from '../seededRandom.ts';

describe('overflowingChannels', () => {
  it('flags a channel whose two largest same-sign codes add past 128, per channel along the axis', () => {
    // [2 channels, 4]: channel 0 = 127, 2 (129: can overflow); channel 1 = 127, -127, 1, -1 (128 either sign: cannot).
    const codes = Int8Array.of(127, 2, 0, -5, 127, -127, 1, -1);
    expect(overflowingChannels(codes, [2, 4], 0)).toEqual([true, false]);
    expect(overflowingChannels(codes, [2, 4], undefined)).toEqual([true]);
    // Negative side: -64 and -65.
    expect(overflowingChannels(Int8Array.of(-64, -65, 10), [3], 0)).toEqual([false, false, false]);
    expect(overflowingChannels(Int8Array.of(-64, -65, 10), [3], undefined)).toEqual([true]);
    expect(SAFE_PAIR_MAGNITUDE).toBe(128);
  });

  it('reads channels on the last axis too (MatMul weights [K, N])', () => {
    // K = 2, N = 2: column 0 = 100, 100; column 1 = 100, -100.
    expect(overflowingChannels(Int8Array.of(100, 100, 100, -100), [2, 2], 1)).toEqual([true, false]);
  });
  it('settles each channel as a full read of it does: the two largest same-sign magnitudes, on random layouts', () => {
    // The definition read off whole channels (sorted magnitudes), against the scan that stops once a channel passes.
    const byDefinition = (codes: Int8Array, dims: number[], axis: number | undefined): boolean[] => {
      const channels = axis === undefined ? 1 : dims[axis];
      const inner = axis === undefined ? codes.length : dims.slice(axis + 1).reduce((p, d) => p * d, 1);
      const of = (i: number) => (axis === undefined ? 0 : Math.floor(i / inner) % channels);
      const pos = Array.from({ length: channels }, (): number[] => []);
      const neg = Array.from({ length: channels }, (): number[] => []);
      codes.forEach((v, i) => (v > 0 ? pos[of(i)].push(v) : v < 0 ? neg[of(i)].push(-v) : undefined));
      const top2 = (l: number[]) =>
        l
          .sort((a, b) => b - a)
          .slice(0, 2)
          .reduce((a, b) => a + b, 0);
      return pos.map((p, c) => top2(p) > SAFE_PAIR_MAGNITUDE || top2(neg[c]) > SAFE_PAIR_MAGNITUDE);
    };
    const random = seededRandom(33);
    for (let trial = 0; trial < 300; trial++) {
      const rank = 1 + Math.floor(random() * 4);
      const dims = Array.from({ length: rank }, () => 1 + Math.floor(random() * 5));
      const codes = new Int8Array(dims.reduce((p, d) => p * d, 1));
      // Mostly small codes, some near the bound (pairs around 64 + 65), a few at the ends of the type.
      for (let i = 0; i < codes.length; i++) {
        const r = random();
        const m =
          r < 0.6
            ? Math.floor(random() * 20)
            : r < 0.95
              ? 58 + Math.floor(random() * 12)
              : 120 + Math.floor(random() * 9);
        codes[i] = Math.max(-128, Math.min(127, random() < 0.5 ? -m : m));
      }
      const axis = random() < 0.2 ? undefined : Math.floor(random() * rank);
      expect(overflowingChannels(codes, dims, axis), `dims [${dims.join(', ')}], axis ${axis}`).toEqual(
        byDefinition(codes, dims, axis),
      );
    }
  });
});

describe('runsInSaturatingKernel', () => {
  const conv = (group: number) =>
    makeNode('Conv', ['x', 'w'], ['y'], 'c', group > 1 ? [intAttribute('group', group)] : []);
  it('Conv, MatMul and Gemm with 8-bit activations and int8 weights; not depthwise, 16-bit, uint8 weights or other ops', () => {
    expect(runsInSaturatingKernel(conv(1), [4, 3, 3, 3], 'uint8', 'int8')).toBe(true);
    expect(runsInSaturatingKernel(conv(1), [4, 3, 3, 3], 'int8', 'int8')).toBe(true);
    expect(runsInSaturatingKernel(conv(2), [4, 2, 3, 3], 'int8', 'int8')).toBe(true);
    expect(runsInSaturatingKernel(conv(4), [4, 1, 3, 3], 'int8', 'int8')).toBe(false);
    expect(runsInSaturatingKernel(conv(1), [4, 3, 3, 3], 'int16', 'int8')).toBe(false);
    expect(runsInSaturatingKernel(conv(1), [4, 3, 3, 3], undefined, 'int8')).toBe(false);
    expect(runsInSaturatingKernel(conv(1), [4, 3, 3, 3], 'uint8', 'uint8')).toBe(false);
    expect(runsInSaturatingKernel(makeNode('MatMul', ['x', 'w'], ['y']), [8, 4], 'uint8', 'int8')).toBe(true);
    expect(runsInSaturatingKernel(makeNode('Gemm', ['x', 'w'], ['y']), [8, 4], 'int8', 'int8')).toBe(true);
    expect(runsInSaturatingKernel(makeNode('Mul', ['x', 'w'], ['y']), [8], 'int8', 'int8')).toBe(false);
  });
});

/**
 * x [1, 4, 2, 2] → Conv 1×1 (dense, 3 out channels) → a → depthwise Conv 1×1 (3 groups) → b → Flatten → MatMul [12, 2] → y.
 * Dense conv channel 2 has codes 127, -127, ±1 only: no same-sign pair can pass 128.
 */
function model(): ModelProto {
  const dense = Float32Array.of(1, 0.9, 0.5, -0.2, /**/ -1, -0.8, 0.3, 0.1, /**/ 1, -1, 0.004, -0.004);
  const depthwise = Float32Array.of(1, -0.7, 0.9);
  const fc = new Float32Array(24).map((_, i) => ((i * 7) % 11) / 5 - 1);
  return makeModel(
    makeGraph({
      node: [
        makeNode('Conv', ['x', 'wd'], ['a'], 'dense'),
        makeNode('Conv', ['a', 'wg'], ['b'], 'depthwise', [intAttribute('group', 3)]),
        makeNode('Flatten', ['b'], ['f'], 'flatten'),
        makeNode('MatMul', ['f', 'wf'], ['y'], 'fc'),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 4, 2, 2])],
      output: [makeValueInfo('y', DataType.FLOAT, [1, 2])],
      initializer: [
        makeTensor('wd', DataType.FLOAT, [3, 4, 1, 1], dense),
        makeTensor('wg', DataType.FLOAT, [3, 1, 1, 1], depthwise),
        makeTensor('wf', DataType.FLOAT, [12, 2], fc),
      ],
    }),
    { '': 13 },
  );
}

const RANGES = new Map([
  ['x', { min: 0, max: 1 }],
  ['a', { min: -2, max: 2 }],
  ['b', { min: -2, max: 2 }],
  ['f', { min: -2, max: 2 }],
  ['y', { min: -5, max: 5 }],
]);

/** The int8 codes written for a weight (its DequantizeLinear's input initializer). */
function writtenCodes(m: ModelProto, weight: string): Int8Array {
  const dq = m.graph!.node.find((n) => n.op_type === 'DequantizeLinear' && n.output[0].startsWith(weight))!;
  return readTensor(m.graph!.initializer.find((t) => t.name === dq.input[0])!) as Int8Array;
}

function quantize(preset: string, extra: Record<string, unknown>) {
  return quantizeModel(
    model(),
    RANGES,
    validateConfig({ ...JSON.parse(configToJSON(getPreset(preset))), ...extra }),
    preset,
  );
}

describe('saturationSafeWeights', () => {
  it('per channel: 7-bit codes only in the channels that could overflow; depthwise and safe channels keep 8 bits', () => {
    const { model: q, report } = quantize('A8W8', { perChannel: true, saturationSafeWeights: true });
    const dense = writtenCodes(q, 'wd');
    expect([...dense.slice(0, 4)].map(Math.abs)).toContain(64);
    expect(Math.max(...dense.slice(0, 8).map(Math.abs))).toBe(64);
    expect([...dense.slice(8)]).toEqual([127, -127, 1, -1]);
    expect(Math.max(...writtenCodes(q, 'wg').map(Math.abs))).toBe(127);
    expect(Math.max(...writtenCodes(q, 'wf').map(Math.abs))).toBeLessThanOrEqual(64);
    expect(overflowingChannels(writtenCodes(q, 'wf'), [12, 2], 1)).toEqual([false, false]);
    expect(report.saturationSafeWeights?.sort()).toEqual(['wd', 'wf']);
  });

  it('per tensor: the whole weight at 7 bits when any channel could overflow; off by default, Quark presets unchanged', () => {
    const safe = quantize('U8S8', { saturationSafeWeights: true }).model;
    expect(Math.max(...writtenCodes(safe, 'wd').map(Math.abs))).toBe(64);
    const plain = quantize('U8S8', {});
    expect(Math.max(...writtenCodes(plain.model, 'wd').map(Math.abs))).toBe(127);
    expect(plain.report.saturationSafeWeights).toBeUndefined();
    expect(getPreset('XINT8').saturationSafeWeights).toBe(false);
    expect(getPreset('A8W8').saturationSafeWeights).toBe(false);
  });

  it('leaves layers with 16-bit inputs alone (they run float DequantizeLinear → op, not an int8 kernel)', () => {
    const { model: q, report } = quantize('A16W8', { perChannel: true, saturationSafeWeights: true });
    expect(Math.max(...writtenCodes(q, 'wd').map(Math.abs))).toBe(127);
    expect(report.saturationSafeWeights).toEqual([]);
  });
});

describe('saturationRisk (the quantize report)', () => {
  it('lists the weights whose written codes could saturate, by the same rule; none with saturation-safe weights, 16-bit inputs or reduce range', () => {
    // Per channel: the dense conv's channels 0 and 1 and the MatMul's columns can overflow; the depthwise conv runs apart.
    expect(quantize('A8W8', { perChannel: true }).report.saturationRisk?.sort()).toEqual(['wd', 'wf']);
    expect(quantize('U8S8', {}).report.saturationRisk?.sort()).toEqual(['wd', 'wf']);
    expect(quantize('A8W8', { perChannel: true, saturationSafeWeights: true }).report.saturationRisk).toBeUndefined();
    expect(quantize('A8W8', { perChannel: true, reduceRange: true }).report.saturationRisk).toBeUndefined();
    expect(quantize('A16W8', { perChannel: true }).report.saturationRisk).toBeUndefined();
  });
});
