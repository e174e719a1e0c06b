/**
 * The quantizer's preparation and planning apart from its write (core/quantize/quantizeModel.ts
 * prepareQuantization, planPreparedNodes, quantizePrepared; issue 33.5): the node decisions and folded tensors
 * planned alone equal those of the whole quantization, so unreadRanges plans only; and one preparation shared by
 * several plans (the held-in choice's candidate methods) writes each model byte for byte as a fresh quantization.
 * On UltraFace (Conv → Relu folds), its float16 form (as ISNet: planned and written on a float32 form, float16
 * parts put back), the super-resolution model, and a transformer block with written-out functions (their insides folded).
 */
import { describe, expect, it } from 'vitest';
import { decode, encode, type ModelProto } from '../src/core/onnx/index.ts';
import { float32ToFloat16 } from '../src/core/halfFloat/float16.ts';
import { validateConfig, configToJSON, type QuantConfig } from '../src/core/quantize/config.ts';
import { getPreset, presetWithMethod } from '../src/core/quantize/presets.ts';
import {
  planPreparedNodes,
  prepareQuantization,
  quantizeModel,
  quantizePrepared,
} from '../src/core/quantize/quantizeModel.ts';
import type { NodeDecision, QuantPlan } from '../src/core/quantize/plan.ts';
import { attentionBlockModel, rangesForEveryTensor } from '../src/core/quantize/testModels.ts';
import { unreadRanges } from '../src/core/quantize/unreadRanges.ts';
import { readModel } from './helpers/fixtures.ts';

const ultraface = () => decode(readModel('ultraface-rfb-320.onnx'));
const transformer = (): QuantConfig =>
  validateConfig({ ...JSON.parse(configToJSON(getPreset('A8W8'))), enableNpuTransformer: true });

/** Ranges for every tensor of a model as given: its inputs and node outputs. */
function everyRange(model: ModelProto): Map<string, { min: number; max: number }> {
  const out = rangesForEveryTensor(model);
  for (const v of model.graph!.input) out.set(v.name ?? '', { min: -1, max: 1 });
  return out;
}

/** Node decisions as planned before parameters: the whole plan adds each quantized node's precision label. */
const withoutPrecision = (decisions: readonly NodeDecision[]) => decisions.map(({ precision: _, ...d }) => d);

const CASES: [string, () => ModelProto, () => QuantConfig][] = [
  ['UltraFace XINT8', ultraface, () => getPreset('XINT8')],
  ['UltraFace A8W8', ultraface, () => getPreset('A8W8')],
  ['float16 UltraFace XINT8 (as ISNet)', () => float32ToFloat16(ultraface()), () => getPreset('XINT8')],
  ['super-resolution XINT8', () => decode(readModel('super-resolution-10.onnx')), () => getPreset('XINT8')],
  ['transformer block, written-out functions', attentionBlockModel, transformer],
];

describe('planning without writing', () => {
  it.each(CASES)('%s: the plan alone decides and folds as the whole quantization', (_, makeModel, makeConfig) => {
    const model = makeModel();
    const config = makeConfig();
    const ranges = everyRange(model);
    const whole = quantizeModel(model, ranges, config).plan;
    const prepared = prepareQuantization(model, config);
    const alone = planPreparedNodes(prepared, ranges, config);
    expect(alone.folded.size).toBeGreaterThan(0);
    expect([...alone.folded].sort()).toEqual([...whole.folded].sort());
    expect(alone.decisions).toEqual(withoutPrecision(whole.decisions));
    expect(unreadRanges(prepared, config)).toEqual(whole.folded);
  });

  it('a partial calibration plans alike: tensors without a range are decided on as the whole quantization does', () => {
    const model = ultraface();
    const config = getPreset('XINT8');
    const ranges = everyRange(model);
    [...ranges.keys()].filter((_, k) => k % 3 === 1).forEach((t) => ranges.delete(t));
    const whole = quantizeModel(model, ranges, config).plan;
    const alone = planPreparedNodes(prepareQuantization(model, config), ranges, config);
    expect(alone.decisions).toEqual(withoutPrecision(whole.decisions));
    expect([...alone.folded].sort()).toEqual([...whole.folded].sort());
  });

  it('a preparation serves only the configuration it was made for, its calibration method aside', () => {
    const model = ultraface();
    const prepared = prepareQuantization(model, getPreset('A8W8'));
    expect(() => quantizePrepared(prepared, everyRange(model), presetWithMethod('A8W8', 'Entropy'))).not.toThrow();
    expect(() => quantizePrepared(prepared, everyRange(model), getPreset('XINT8'))).toThrow(/another configuration/);
  });
});

describe('one preparation for several plans', () => {
  it.each([
    ['UltraFace A8W8', ultraface, 'A8W8', ['MinMax', 'MinMSE', 'Entropy', 'Percentile']],
    ['float16 UltraFace (as ISNet) A8W8', () => float32ToFloat16(ultraface()), 'A8W8', ['MinMax', 'Entropy']],
    // Power-of-two weights differ between MinMSE and MinMax: the shared weights must keep them apart.
    ['UltraFace XINT8', ultraface, 'XINT8', ['MinMSE', 'MinMax', 'MinMSE']],
  ] as const)(
    '%s: each method written from a shared preparation is byte for byte a fresh quantization',
    (_, make, preset, methods) => {
      const model = make();
      const prepared = prepareQuantization(model, getPreset(preset));
      const ranges = everyRange(model);
      const weightsOf = (plan: QuantPlan) => new Set(plan.constants.values());
      let first: Set<unknown> | undefined;
      // Each method its own ranges, as the held-in candidates have.
      for (const [k, method] of methods.entries()) {
        const config = presetWithMethod(preset, method);
        const own = new Map([...ranges].map(([t, r]) => [t, { min: r.min * (1 + k / 10), max: r.max * (1 - k / 20) }]));
        const shared = quantizePrepared(prepared, own, config, preset);
        const fresh = encode(quantizeModel(model, own, config, preset).model);
        expect(Buffer.from(encode(shared.model)).equals(Buffer.from(fresh))).toBe(true);
        // The weights are quantized once: a later plan with the same weight options hands out the same constants.
        if (first && method === methods[0]) expect([...weightsOf(shared.plan)].some((c) => first!.has(c))).toBe(true);
        first ??= weightsOf(shared.plan);
      }
    },
    60_000,
  );
});
