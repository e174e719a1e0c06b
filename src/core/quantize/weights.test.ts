import { describe, expect, it } from 'vitest';
import { DataType, makeTensor } from '../onnx/index.ts';
import { dequantizeValue, quantizeValue } from './numeric.ts';
import { computePowerOfTwoScaleZeroPoint, tensorRange } from './qparams.ts';
import { quantizeInt32Bias, quantizeWeight } from './weights.ts';

function seeded(n: number, seed: number, spread = 1): Float32Array {
  let a = seed;
  return Float32Array.from({ length: n }, () => {
    a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
    return ((a / 2 ** 32) * 2 - 1) * spread;
  });
}

/** The squared error of a scale, computed with the reference quantizeValue/dequantizeValue. */
function referenceError(data: Float32Array, scale: number): number {
  let e = 0;
  for (const x of data) {
    const d = dequantizeValue(quantizeValue(x, scale, 0, 'int8'), scale, 0) - x;
    e += d * d;
  }
  return e;
}

describe('weight quantization', () => {
  it('power-of-two MinMSE picks the candidate exponent with the least error (checked by brute force)', () => {
    // Mostly small values and a few outliers: clipping the outliers (a finer scale) wins.
    const data = seeded(4096, 7, 0.05);
    data[0] = 1.9;
    data[1] = -1.7;
    const w = quantizeWeight(makeTensor('w', DataType.FLOAT, [4096], data), undefined, {
      type: 'int8',
      symmetric: true,
      scaleType: 'powerOfTwo',
      reduceRange: false,
      minMse: true,
    });
    const chosen = w.scales[0];
    expect(Number.isInteger(Math.log2(chosen))).toBe(true);
    const candidates = [-1, 0, 1, 2, 3].map((k) => 2 ** (-6 - k)).concat([2 ** -4, 2 ** -5]);
    const best = Math.min(...candidates.map((s) => referenceError(data, s)));
    expect(referenceError(data, chosen)).toBeCloseTo(best, 10);
  });

  it('power-of-two MinMSE over many elements and per channel: the same choice and codes as a brute-force search', () => {
    // More elements than one step of the search (whose losing candidates stop early), and odd values: ties, an
    // exact half, a huge value; per channel on axis 0 of [3, 5000] with channels of different spreads.
    const perTensor = seeded(20000, 11, 0.2);
    perTensor[5] = 3.5 * 2 ** -6;
    perTensor[6] = 1e30;
    const options = {
      type: 'int8',
      symmetric: true,
      scaleType: 'powerOfTwo',
      reduceRange: false,
      minMse: true,
    } as const;
    const referenceScale = (data: Float32Array): number => {
      const { min, max } = tensorRange(data);
      const n = computePowerOfTwoScaleZeroPoint(min, max, 'int8', { symmetric: true }).exponent;
      let best = 2 ** -n;
      for (const k of [-1, 1, 2, 3])
        if (referenceError(data, 2 ** -(n + k)) < referenceError(data, best)) best = 2 ** -(n + k);
      return best;
    };
    const w = quantizeWeight(makeTensor('w', DataType.FLOAT, [20000], perTensor), undefined, options);
    expect(w.scales[0]).toBe(referenceScale(perTensor));
    expect(Array.from(w.codes)).toEqual(Array.from(perTensor, (x) => quantizeValue(x, w.scales[0], 0, 'int8')));
    const rows = [seeded(5000, 1, 0.01), seeded(5000, 2, 1), seeded(5000, 3, 40)];
    rows[1][0] = 9;
    const c = quantizeWeight(
      makeTensor('c', DataType.FLOAT, [3, 5000], Float32Array.from(rows.flatMap((r) => Array.from(r)))),
      0,
      options,
    );
    expect(Array.from(c.scales)).toEqual(rows.map(referenceScale));
    expect(Array.from(c.codes)).toEqual(
      rows.flatMap((r, i) => Array.from(r, (x) => quantizeValue(x, c.scales[i], 0, 'int8'))),
    );
  });

  it('per channel: one scale per output channel along the axis, codes from each channel’s own scale', () => {
    // Conv weight [2, 1, 1, 2]: channel 0 spans ±127 (scale 1), channel 1 ±254 (scale 2);
    // -63 / 2 = -31.5 is a tie and goes to the even -32.
    const data = Float32Array.of(127, -127, 254, -63);
    const w = quantizeWeight(makeTensor('w', DataType.FLOAT, [2, 1, 1, 2], data), 0, {
      type: 'int8',
      symmetric: true,
      scaleType: 'float32',
      reduceRange: false,
      minMse: false,
    });
    expect(Array.from(w.scales)).toEqual([1, 2]);
    expect(Array.from(w.codes)).toEqual([127, -127, 127, -32]);
    expect(w.axis).toBe(0);
  });

  it('int32 bias: scale = input scale × weight scale per channel, round half to even', () => {
    // 0.75 / (0.5 × 0.5) = 3; -0.3125 / (0.5 × 0.25) = -2.5, a tie → -2 (even).
    const b = quantizeInt32Bias(
      makeTensor('b', DataType.FLOAT, [2], Float32Array.of(0.75, -0.3125)),
      0.5,
      Float32Array.of(0.5, 0.25),
    );
    expect(Array.from(b.codes)).toEqual([3, -2]);
    expect(b.zeroPoints).toBeUndefined();
    expect(Array.from(b.scales)).toEqual([0.25, 0.125]);
  });

  // A Conv weight [2, 1, 1, 3]: channel 0 in [-1, 0.5], channel 1 in [0.125, 0.5].
  const twoChannels = (scaleType: 'float32' | 'powerOfTwo') =>
    quantizeWeight(makeTensor('w', DataType.FLOAT, [2, 1, 1, 3], Float32Array.of(-1, 0.5, 0.25, 0.125, 0.25, 0.5)), 0, {
      type: 'int8',
      symmetric: true,
      scaleType,
      reduceRange: false,
      minMse: false,
    });

  it('per channel, symmetric int8 (ORT quantize_weight_per_channel): channel 0 absmax 1 → 2/254, channel 1 absmax 0.5 → 1/254', () => {
    const w = twoChannels('float32');
    expect(Array.from(w.scales)).toEqual([Math.fround(2 / 254), Math.fround(1 / 254)]);
    expect(Array.from(w.zeroPoints!)).toEqual([0, 0]);
  });

  it('per channel, power-of-two (min/max): 2/254 → 2^-7, 1/254 → 2^-8', () => {
    expect(Array.from(twoChannels('powerOfTwo').scales)).toEqual([2 ** -7, 2 ** -8]);
  });
});
