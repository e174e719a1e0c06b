import { WASM_INT8_KERNELS_EXACT } from '../runtime/wasmInt8Kernels.ts';
import { describe, expect, it } from 'vitest';
import { tinyModel } from '../onnx/tinyModel.ts';
import type { ComparisonRuntime } from '../evaluate/compareModels.ts';
import { getPreset } from '../quantize/presets.ts';
import { parseLadderTarget } from './ladder.ts';
import { ladderClimbOptions } from './ladderSetup.ts';
import type { LadderRuntime } from './ladderMeasure.ts';

/** A runtime that is never run: the options are built, not climbed. */
const idle = (graphOptimization: 'basic' | 'all'): ComparisonRuntime => ({
  samples: 1,
  graphOptimization,
  open: () => Promise.reject(new Error('not run in this test')),
});
const runtime = (level: 'basic' | 'all'): LadderRuntime => ({
  model: tinyModel(),
  calibrate: () => Promise.reject(new Error('not run in this test')),
  tuning: idle('basic'),
  evaluation: idle(level),
});
const target = parseLadderTarget('cosine:0.99');
const host = { calibrationSamples: 4, evaluationSamples: 2 };

describe('ladderClimbOptions: the climb the page and qstudio ladder both run', () => {
  it('the defaults: algorithms re-applied, the per-channel, exclusion and mixed-precision rungs on', () => {
    const o = ladderClimbOptions(runtime('basic'), { target }, host);
    expect(o).toMatchObject({
      target,
      reapplyAlgorithms: true,
      perChannelRung: true,
      calibrationRungs: true,
      mixedBiasCorrection: true,
    });
    expect(typeof o.measure).toBe('function');
    expect(typeof o.exclude).toBe('function');
    expect(typeof o.mixed).toBe('function');
    expect(o.costPrior).toBeDefined();
  });

  it('passes the user choices through', () => {
    const base = getPreset('A8W8');
    const o = ladderClimbOptions(
      runtime('basic'),
      {
        target,
        base,
        order: 'fastest',
        formats: ['A8W8'],
        reapplyAlgorithms: false,
        perChannelRung: false,
        exclusions: false,
        mixedPrecision: false,
        finetuneReach: 0.5,
        timeBudget: 60,
      },
      host,
    );
    expect(o).toMatchObject({
      base,
      order: 'fastest',
      formats: ['A8W8'],
      reapplyAlgorithms: false,
      perChannelRung: false,
      finetuneReach: 0.5,
      timeBudget: 60,
    });
    expect(o.exclude).toBeUndefined();
    expect(o.mixed).toBeUndefined();
  });

  it('a saturation-safe rung where the judge runs the int8 kernels, unless the host knows they cannot saturate', () => {
    expect(ladderClimbOptions(runtime('basic'), { target }, host).saturationRisk).toBeUndefined();
    expect(ladderClimbOptions(runtime('all'), { target }, host).saturationRisk).toBeTypeOf('function');
    expect(
      ladderClimbOptions(runtime('all'), { target }, { ...host, kernelsSaturate: true }).saturationRisk,
    ).toBeTypeOf('function');
    expect(
      ladderClimbOptions(runtime('all'), { target }, { ...host, kernelsSaturate: false }).saturationRisk,
    ).toBeUndefined();
    expect(ladderClimbOptions(runtime('all'), { target }, host).saturationSafeSkipped).toBeUndefined();
    // Known not to saturate, with the measured reason (the page's onnxruntime-web): the rung is listed as skipped.
    const exact = ladderClimbOptions(
      runtime('all'),
      { target },
      { ...host, kernelsSaturate: false, kernelsExactBecause: WASM_INT8_KERNELS_EXACT },
    );
    expect(exact.saturationRisk).toBeTypeOf('function');
    expect(exact.saturationSafeSkipped).toBe(WASM_INT8_KERNELS_EXACT);
    expect(
      ladderClimbOptions(runtime('all'), { target }, { ...host, kernelsSaturate: true, kernelsExactBecause: 'x' })
        .saturationSafeSkipped,
    ).toBeUndefined();
  });
});
