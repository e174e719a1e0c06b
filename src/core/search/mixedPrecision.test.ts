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
import type { OutputJudge } from '../evaluate/outputJudge.ts';

const N = 400;
const acts = Array.from({ length: N }, (_, k) => `a${k}`);
const weights = Array.from({ length: N }, (_, k) => `w${k}`);
const nodes = Array.from({ length: N }, (_, k) => `n${k}`);

/**
 * The written model's node order as the windows read it: node n<k> reads a<k−1> and its weight w<k> (through a
 * DequantizeLinear of `w<k>_quantized`) and writes a<k>.
 */
const graph = {
  input: [{ name: 'a-1' }],
  initializer: weights.map((w) => ({ name: `${w}_quantized` })),
  node: nodes.flatMap((n, k) => [
    { op_type: 'DequantizeLinear', input: [`w${k}_quantized`], output: [`w${k}_dq`] },
    { op_type: 'Conv', name: n, input: [`a${k - 1}`, `w${k}_dq`], output: [`a${k}`], attribute: [] },
  ]),
};

/** A quantization result as the search reads it: groups, weights, activations and quantized nodes. */
const result = (config: QuantConfig) =>
  ({
    // The judge below reads the configuration back from the "model".
    model: { ...config, graph } as unknown as ModelProto,
    plan: {
      groups: acts.map((a) => [a]),
      weights: new Map(weights.map((w) => [w, {}])),
      activations: new Map(acts.map((a) => [a, {}])),
    },
    report: { quantized: nodes.map((id) => ({ id })) },
  }) as unknown as QuantizeResult;

/** Noise: a small share per candidate left at 8 bits, and a large one for the few that matter. */
function judge(
  heavy: Record<string, number>,
  together?: { readonly all: readonly string[]; readonly noise: number },
): OutputJudge {
  return {
    samples: 1,
    async score(model) {
      const config = model as unknown as QuantConfig;
      const wide = new Set([...Object.keys(config.extraOptions.TensorQuantOverrides), ...config.nodesToExclude]);
      // A loss that only goes when all of `together` leave 8 bits at once (a stage whose parts gain nothing apart).
      let noise = together && !together.all.every((t) => wide.has(t)) ? together.noise : 0;
      for (const name of [...acts, ...weights, ...nodes]) if (!wide.has(name)) noise += heavy[name] ?? 0.0001;
      return { noise, error: noise / 10, cosine: 1 - noise / 10 };
    },
  };
}

describe('searchMixedPrecision', () => {
  it("goes on splitting past a round's share of measurements until a measured set fits the budget", async () => {
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

  it('finds a stretch at the front whose units gain only together, and keeps it over the units chosen apart', async () => {
    // The first two nodes float and the activation after them wide remove 0.5 of noise, none of them alone anything:
    // no single unit or block of one kind shows it. a333 alone gains 0.2. The windows take what the unit search left
    // of the measurements.
    const found = await searchMixedPrecision({
      config: getPreset('A8W8'),
      budget: { act16: 0.01, w16: 0.01, float: 0.01 },
      target: 0.9999,
      quantize: result,
      judge: judge({ a333: 0.2 }, { all: ['n0', 'n1', 'a4'], noise: 0.5 }),
      maxMeasurements: 100,
    });
    expect(found.window).toBeDefined();
    expect(found.chosen.float).toEqual(expect.arrayContaining(['n0', 'n1']));
    expect(found.chosen.act16).toContain('a4');
    // The window measured better than what the units reached apart (a333 only): 0.5 of noise gone, not 0.2
    // (about 0.12 of small noise stays either way).
    expect(found.cosine).toBeGreaterThan(1 - 0.4 / 10);
    for (const kind of ['act16', 'w16', 'float'] as const) expect(found.budget[kind].used).toBeLessThanOrEqual(4);
    expect(found.steps.length).toBeLessThanOrEqual(100);
  });

  it('measures no window where the units reach the target, or where windows are switched off', async () => {
    const options = {
      config: getPreset('A8W8'),
      budget: { act16: 0.01, w16: 0.01, float: 0.01 },
      quantize: result,
      judge: judge({ a333: 0.2, n77: 0.3 }, { all: ['n0', 'n1', 'a4'], noise: 0.5 }),
      maxMeasurements: 60,
    };
    const off = await searchMixedPrecision({ ...options, target: 0.9999, windowStarts: 0 });
    expect(off.steps.some((s) => s.phase === 'window')).toBe(false);
    expect(off.window).toBeUndefined();
    const reached = await searchMixedPrecision({ ...options, judge: judge({ a333: 0.2 }), target: 0.98 });
    expect(reached.reached).toBe(true);
    expect(reached.steps.some((s) => s.phase === 'window')).toBe(false);
  });

  it('a task figure reached by a block within the budget is the choice, though the noise ranks other units first', async () => {
    // The noise says a333 (0.2) and n77 (0.3); top-1 (the figure) only comes back with a334 wide, a unit of no noise
    // that a block holding a333 measures on the way down.
    const noise = judge({ a333: 0.2, n77: 0.3 });
    const figureJudge: OutputJudge = {
      samples: 1,
      async score(model) {
        const base = await noise.score(model);
        const config = model as unknown as QuantConfig;
        const figure = Object.keys(config.extraOptions.TensorQuantOverrides).includes('a334') ? 1 : 0.5;
        return { ...base, error: 1 - figure, figure };
      },
    };
    const found = await searchMixedPrecision({
      config: getPreset('A8W8'),
      budget: { act16: 0.01, w16: 0.01, float: 0.01 },
      target: 0.99,
      quantize: result,
      judge: figureJudge,
      maxMeasurements: 60,
      stages: [['act16', 'w16', 'float']],
    });
    expect(found.reached).toBe(true);
    expect(found.cosine).toBe(1);
    expect(found.chosen.act16).toContain('a334');
    for (const kind of ['act16', 'w16', 'float'] as const) expect(found.budget[kind].used).toBeLessThanOrEqual(4);
    // It ends once such a block is measured (and the round's choice checked), not at the measurement limit.
    expect(found.steps.length).toBeLessThan(60);
    expect(found.steps.some((st) => st.figure === 1)).toBe(true);
  });
});
