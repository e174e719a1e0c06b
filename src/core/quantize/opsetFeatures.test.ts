import { describe, expect, it } from 'vitest';
import type { QuantType } from './numeric.ts';
import { MS_DOMAIN, MS_QDQ_OPSET, QDQ_OPSET_TABLE, opsetSupportsQdq, qdqRequirement } from './opsetFeatures.ts';

describe('qdqRequirement', () => {
  // types, perAxis, minOpset, msDomainAlternative — from the ONNX changelog (Q/DQ-10, -13, -21) and ORT's
  // qdq_quantizer, which uses com.microsoft for 16-bit and 4-bit types below opset 21.
  const cases: [QuantType[], boolean, number, boolean][] = [
    [['uint8'], false, 10, false], // U8S8 per tensor: any opset ≥ 10
    [['uint8', 'int8', 'int32'], false, 10, false],
    [['uint8', 'int8'], true, 13, false], // per-channel weights need axis (opset 13); contrib ops don't help here
    [['int32'], true, 13, false], // per-channel int32 bias DequantizeLinear
    [['int16'], false, 21, true], // A16W8: opset 21, or com.microsoft (int16 at opset 13 is rejected)
    [['int16', 'int8', 'int32'], true, 21, true],
    [['uint16'], false, 21, true],
    [['int4'], false, 21, true],
    [['uint4', 'uint8'], true, 21, true],
    [[], false, 10, false],
  ];
  it.each(cases)('%j perAxis=%s → opset %i, com.microsoft alternative %s', (types, perAxis, minOpset, ms) => {
    expect(qdqRequirement(types, perAxis)).toEqual({ minOpset, msDomainAlternative: ms });
  });
});

describe('opsetSupportsQdq', () => {
  it.each([
    [9, ['uint8'], false, false],
    [10, ['uint8'], false, true],
    [11, ['int8'], true, false], // docs/NOTES.md: per-channel at opset 11 writes models ORT refuses
    [13, ['int8'], true, true],
    [13, ['int16'], false, false],
    [21, ['int16'], true, true],
  ] as [number, QuantType[], boolean, boolean][])('opset %i, %j perAxis=%s → %s', (opset, types, perAxis, ok) => {
    expect(opsetSupportsQdq(opset, types, perAxis)).toBe(ok);
  });
});

describe('QDQ_OPSET_TABLE', () => {
  it('has no QuantizeLinear to int32 (int32 is only read, by bias DequantizeLinear)', () => {
    expect(QDQ_OPSET_TABLE.int32.quantize).toBeNull();
    expect(QDQ_OPSET_TABLE.int32.dequantize.perTensor).toBe(10);
  });
  it('names the contrib domain and its version', () => {
    expect([MS_DOMAIN, MS_QDQ_OPSET]).toEqual(['com.microsoft', 1]);
  });
});
