import { describe, expect, it } from 'vitest';
import { compareToMinMax } from '../bench/suites/calibration.ts';

describe('compareToMinMax', () => {
  const minmax = {
    model: 'm',
    method: 'MinMax',
    perTensor: 0.96,
    perChannel: 0.97,
    perTensorZeroOutputs: 2,
    perTensorShared: 0.96,
    perTensorMinMaxShared: 0.96,
  };

  it('compares fresh rows on the outputs both define', () => {
    const rows = compareToMinMax([
      {
        ...minmax,
        perTensorOutputs: [
          [0.9, null],
          [0.9, 0.9],
        ] as never,
      },
      {
        model: 'm',
        method: 'A',
        perTensor: 0.8,
        perChannel: 0.98,
        perTensorZeroOutputs: 1,
        perTensorOutputs: [
          [0.95, 0.5],
          [0.95, 0.95],
        ] as never,
      },
    ]);
    expect(rows[1].perTensorShared).toBe(0.95);
    expect(rows[1].perTensorMinMaxShared).toBe(0.9);
    expect(rows[1].atLeastMinMax).toBe('yes');
    expect(rows[1].perTensorOutputs).toBeUndefined();
  });

  it('judges a carried-over row by the shared cosines it was recorded with, not its plain mean', () => {
    // Plain means say worse (0.95 < 0.96), the shared comparison says better: the recorded verdict must follow it.
    const better = {
      model: 'm',
      method: 'B',
      perTensor: 0.95,
      perChannel: 0.98,
      perTensorZeroOutputs: 3,
      perTensorShared: 0.981,
      perTensorMinMaxShared: 0.977,
    };
    // Plain means say better, shared says worse.
    const worse = {
      model: 'm',
      method: 'C',
      perTensor: 0.97,
      perChannel: 0.98,
      perTensorZeroOutputs: 1,
      perTensorShared: 0.975,
      perTensorMinMaxShared: 0.977,
    };
    const rows = compareToMinMax([{ ...minmax }, better, worse]);
    expect(rows[1].atLeastMinMax).toBe('yes');
    expect(rows[2].atLeastMinMax).toBe('no');
  });

  it('compares a row with the function rules against MinMax with the function rules', () => {
    const rows = compareToMinMax([
      { model: 'm', method: 'MinMax', perTensor: 0.9, perChannel: 0.9 },
      { model: 'm', method: 'MinMax', functionRules: 'on', perTensor: 0.95, perChannel: 0.95 },
      { model: 'm', method: 'E', functionRules: 'on', perTensor: 0.93, perChannel: 0.96 },
      { model: 'm', method: 'E', perTensor: 0.93, perChannel: 0.96 },
    ]);
    expect(rows[2].atLeastMinMax).toBe('no');
    expect(rows[3].atLeastMinMax).toBe('yes');
  });
});
