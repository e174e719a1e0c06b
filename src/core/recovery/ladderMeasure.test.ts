import { describe, expect, it } from 'vitest';
import { assertTargetFits, calibrationKey } from './ladderMeasure.ts';
import { attentionBlockModel, convReluModel } from '../quantize/testModels.ts';
import { getPreset } from '../quantize/presets.ts';
import { DataType, makeValueInfo } from '../onnx/model.ts';

describe("the ladder's shared calibrations", () => {
  it('shares one calibration between formats whose collector ignores the activation type, and not otherwise', () => {
    // A8W8 and A16W8 both collect MinMax ranges: one calibration serves both.
    expect(calibrationKey(getPreset('A16W8'))).toBe(calibrationKey(getPreset('A8W8')));
    expect(calibrationKey({ ...getPreset('A16W8'), perChannel: true })).toBe(calibrationKey(getPreset('A8W8')));
    // XINT8 collects power-of-two MinMSE, which searches the activation type's grid.
    expect(calibrationKey(getPreset('XINT8'))).not.toBe(calibrationKey(getPreset('A8W8')));
    const mse = { ...getPreset('A8W8'), calibrationMethod: 'MinMSE' as const };
    expect(calibrationKey({ ...mse, activationType: 'int16' as const })).not.toBe(calibrationKey(mse));
    // CLE changes the model calibrated.
    expect(calibrationKey({ ...getPreset('A8W8'), includeCle: true })).not.toBe(calibrationKey(getPreset('A8W8')));
  });

  it('gives Sequential its own calibration per weight setting: it gathers on the model quantized with them', () => {
    const entropy = { ...getPreset('A8W8'), calibrationMethod: 'Entropy' as const };
    const sequential = { ...getPreset('A8W8'), calibrationMethod: 'Sequential' as const };
    // Sequential runs Entropy's collector, but on the partly quantized model: never Entropy's ranges.
    expect(calibrationKey(sequential)).not.toBe(calibrationKey(entropy));
    expect(calibrationKey({ ...sequential, perChannel: true })).not.toBe(calibrationKey(sequential));
    expect(calibrationKey({ ...entropy, perChannel: true })).toBe(calibrationKey(entropy));
    // Fine-tuning and bias correction act after calibration: a fine-tuning rung reuses its start's ranges.
    const tuned = {
      ...sequential,
      includeFastFt: true,
      includeBiasCorrection: true,
      extraOptions: {
        ...sequential.extraOptions,
        FastFinetune: { ...sequential.extraOptions.FastFinetune, NumIterations: 200 },
      },
    };
    expect(calibrationKey(tuned)).toBe(calibrationKey(sequential));
    expect(calibrationKey({ ...sequential, includeCle: true })).not.toBe(calibrationKey(sequential));
  });
});

describe("a target the model's outputs cannot have", () => {
  it('refuses a sequence target by name before any rung when no output can be [batch, steps, classes]; rank 3 or an undeclared rank is let through', () => {
    expect(() => assertTargetFits(convReluModel(), 'sequence')).toThrow(
      expect.objectContaining({ name: 'LadderTargetError', message: expect.stringMatching(/rank 4, 4/) }),
    );
    expect(() => assertTargetFits(attentionBlockModel(), 'sequence')).not.toThrow();
    const undeclared = convReluModel();
    delete undeclared.graph!.output[0].type;
    expect(() => assertTargetFits(undeclared, 'sequence')).not.toThrow();
    expect(() => assertTargetFits(convReluModel(), 'cosine')).not.toThrow();
  });

  it('refuses a cosine, PSNR or top-1 target where every output is one number a sample (a wake-word score), and not where one output has more', () => {
    // openwakeword-js's hello_deepa.onnx: one output '39' [1, 1]; Silero VAD: [batch, 1] beside its state [2, batch, 128].
    const withOutputs = (...shapes: (number | string)[][]) => {
      const m = convReluModel();
      m.graph!.output = shapes.map((s, k) => makeValueInfo(`y${k}`, DataType.FLOAT, s));
      return m;
    };
    for (const metric of ['cosine', 'psnr', 'top1'] as const)
      expect(() => assertTargetFits(withOutputs([1, 1]), metric)).toThrow(
        expect.objectContaining({
          name: 'LadderTargetError',
          message: expect.stringMatching(/'y0' \[1, 1\] is one number a sample .*decision agreement/),
        }),
      );
    expect(() => assertTargetFits(withOutputs(['batch', 1], ['n']), 'cosine')).toThrow(/are one number each/);
    expect(() => assertTargetFits(withOutputs(['batch', 1], [2, 'batch', 128]), 'cosine')).not.toThrow();
    expect(() => assertTargetFits(withOutputs([1, 'steps']), 'cosine')).not.toThrow();
    // A decision target is what such a model can aim at, and needs such an output.
    expect(() => assertTargetFits(withOutputs([1, 1]), 'cosine')).toThrow(/aim at decision:<share>/);
    expect(() => assertTargetFits(withOutputs([1, 1]), 'decision')).not.toThrow();
    expect(() => assertTargetFits(withOutputs(['batch', 1], [2, 'batch', 128]), 'decision')).not.toThrow();
    expect(() => assertTargetFits(withOutputs([1, 10]), 'decision')).toThrow(
      expect.objectContaining({
        name: 'LadderTargetError',
        message: expect.stringMatching(/one probability a sample/),
      }),
    );
  });
});
