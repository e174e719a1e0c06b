/**
 * The search's bookkeeping on a model whose sensitivities are known exactly: the quantizer hands back the
 * configuration itself and the judge scores it by a sum of independent per-candidate noises, so what the search
 * must find is fixed (onnxruntime runs of the real search are in tests/mixed-precision.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ModelProto } from '../onnx/model.ts';
import type { QuantConfig } from '../quantize/config.ts';
import { getPreset } from '../quantize/presets.ts';
import type { QuantizeResult } from '../quantize/quantizeModel.ts';
import { searchMixedPrecision } from './mixedPrecision.ts';
import type { OutputJudge } from './outputJudge.ts';

const N = 400;
const acts = Array.from({ length: N }, (_, k) => `a${k}`);
const weights = Array.from({ length: N }, (_, k) => `w${k}`);
const nodes = Array.from({ length: N }, (_, k) => `n${k}`);

/** A quantization result as the search reads it: groups, weights, activations and quantized nodes. */
const result = (config: QuantConfig) =>
  ({
    model: config as unknown as ModelProto,
    plan: { groups: acts.map((a) => [a]), weights: new Map(weights.map((w) => [w, {}])), activations: new Map(acts.map((a) => [a, {}])) },
    report: { quantized: nodes.map((id) => ({ id })) },
  }) as unknown as QuantizeResult;

/** Noise: a small share per candidate left at 8 bits, and a large one for the few that matter. */
function judge(heavy: Record<string, number>): OutputJudge {
  return {
    samples: 1,
    async score(model) {
      const config = model as unknown as QuantConfig;
      const wide = new Set([...Object.keys(config.extraOptions.TensorQuantOverrides), ...config.nodesToExclude]);
      let noise = 0;
      for (const name of [...acts, ...weights, ...nodes]) if (!wide.has(name)) noise += heavy[name] ?? 0.0001;
      return { noise, error: noise / 10, cosine: 1 - noise / 10 };
    },
  };
}

describe('searchMixedPrecision', () => {
  it('goes on splitting past a round\'s share of measurements until a measured set fits the budget', async () => {
    // Three kinds searched together: each whole kind and its parts down to three splits are larger than its budget (4 of 400),
    // so the round's share (10 of 40 measurements) ends before any measured set fits. Stopping there would
    // choose nothing.
    const result40 = await searchMixedPrecision({
      config: getPreset('A8W8'),
      budget: { act16: 0.01, w16: 0.01, float: 0.01 },
      target: 0.9999,
      quantize: result,
      judge: judge({ a333: 0.2, n77: 0.3 }),
      maxMeasurements: 40,
      stages: [['act16', 'w16', 'float']],
    });
    console.log(JSON.stringify(result40.steps.map((s) => [s.phase, s.units])), JSON.stringify(result40.chosen));
    expect(result40.chosen.float).toContain('n77');
    expect(result40.chosen.act16).toContain('a333');
    for (const kind of ['act16', 'w16', 'float'] as const) expect(result40.budget[kind].used).toBeLessThanOrEqual(4);
    expect(result40.steps.length).toBeLessThanOrEqual(40);
  });
});
