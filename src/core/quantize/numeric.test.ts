import { describe, expect, it } from 'vitest';
import { QUANT_TYPES, dequantizeValue, quantizeValue, roundHalfToEven, saturate } from './numeric.ts';

describe('roundHalfToEven', () => {
  it('rounds ties to the even neighbour, unlike Math.round', () => {
    expect([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5].map(roundHalfToEven)).toEqual([0, 2, 2, 4, 0, -2, -2]);
  });
  it('rounds non-ties to the nearest integer', () => {
    expect([0.49, 0.51, -0.51, 2.4999, 1e9 + 0.7].map(roundHalfToEven)).toEqual([0, 1, -1, 2, 1e9 + 1]);
  });
});

describe('QuantizeLinear arithmetic (ONNX spec vectors)', () => {
  it('uint8, scale 2, zero point 128', () => {
    const x = [0, 2, 3, 1000, -254, -1000];
    expect(x.map((v) => quantizeValue(v, 2, 128, 'uint8'))).toEqual([128, 129, 130, 255, 1, 0]);
  });
  it('int8, scale 2, zero point 1 (saturates at -128 and 127)', () => {
    const x = [0, 2, 3, 1000, -254, -1000];
    expect(x.map((v) => quantizeValue(v, 2, 1, 'int8'))).toEqual([1, 2, 3, 127, -126, -128]);
  });
  it('int16, scale 2, zero point 256', () => {
    const x = [0, -514, 3, 1000, -70000, 70000];
    expect(x.map((v) => quantizeValue(v, 2, 256, 'int16'))).toEqual([256, -1, 258, 756, -32768, 32767]);
  });
  it('uint16 and int4 saturate at their own ranges', () => {
    expect(quantizeValue(1e9, 1, 0, 'uint16')).toBe(65535);
    expect(quantizeValue(-100, 1, 0, 'int4')).toBe(-8);
    expect(quantizeValue(100, 1, 0, 'uint4')).toBe(15);
  });
  it('DequantizeLinear spec vector: uint8 [0,3,128,255], scale 2, zp 128', () => {
    expect([0, 3, 128, 255].map((q) => dequantizeValue(q, 2, 128))).toEqual([-256, -250, 0, 254]);
  });
});

describe('type table', () => {
  it('gives each type its ONNX data type and full range', () => {
    expect(QUANT_TYPES.int8).toMatchObject({ min: -128, max: 127, onnxType: 3 });
    expect(QUANT_TYPES.uint8).toMatchObject({ min: 0, max: 255, onnxType: 2 });
    expect(QUANT_TYPES.int16.onnxType).toBe(5);
    expect(QUANT_TYPES.uint16.onnxType).toBe(4);
    expect(saturate(40000, 'int16')).toBe(32767);
  });
});
