/**
 * Mixed precision run for real in onnxruntime-node: TensorQuantOverrides put single activations and weights at
 * 16 bits inside an 8-bit model with well-formed Q/DQ at every border (ai.onnx opset 21, or com.microsoft Q/DQ
 * that keep the model's opset and pass onnx.checker), and the measured search stays within its budget, never
 * makes the model worse than 8 bits, and returns a configuration that reproduces what it measured.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encode, opsetOf, type ModelProto } from '../src/core/onnx/index.ts';
import { configFromJSON, configToJSON, validateConfig, type QuantConfig } from '../src/core/quantize/config.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { DEFAULT_PRECISION_BUDGET, parsePrecisionBudget } from '../src/core/quantize/precisionBudget.ts';
import { chooseMixedPrecision, precisionUnits, withUnits } from '../src/core/search/mixedPrecision.ts';
import { precisionWindow, unitPositions } from '../src/core/search/precisionWindows.ts';
import { createOutputJudge, sampleSubset } from '../src/core/evaluate/outputJudge.ts';
import { calibrateOnTensors } from '../src/cli/calibration/calibrateOnImages.ts';
import { nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { convChainFeeds, convChainModel } from './helpers/recoverModels.ts';
import { checkQdqStructure } from './helpers/qdqStructure.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { f32, floatIO, outputsOf, smallModel } from './helpers/smallModels.ts';
import { makeNode } from '../src/core/onnx/index.ts';
import { prepare } from '../src/core/prepare/prepare.ts';
import { rangesForEveryTensor } from '../src/core/quantize/testModels.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-mixed-'));
const feeds = convChainFeeds(6);
const model = convChainModel();

function preset(name: string, extra: Record<string, unknown> = {}): QuantConfig {
  const json = JSON.parse(configToJSON(getPreset(name)));
  return validateConfig({
    ...json,
    ...extra,
    extraOptions: { ...json.extraOptions, ...((extra.extraOptions as object) ?? {}) },
  });
}

async function rangesFor(config: QuantConfig) {
  return (
    await calibrateOnTensors(
      model,
      feeds.map((f) => f.x),
      { config },
    )
  ).ranges;
}

const zeroPointType = (m: ModelProto, tensor: string) => {
  const q = m.graph!.node.find((n) => n.op_type === 'QuantizeLinear' && n.input[0] === tensor)!;
  return m.graph!.initializer.find((t) => t.name === q.input[2])!.data_type;
};

describe('TensorQuantOverrides in the quantizer', () => {
  it('puts one activation and one weight at 16 bits, raises the opset to 21, and the model runs', async () => {
    const config = preset('A8W8', {
      perChannel: true,
      extraOptions: { TensorQuantOverrides: { r1: [{ quant_type: 'int16' }], w3: [{ quant_type: 'int16' }] } },
    });
    const { model: q, report } = quantizeModel(model, await rangesFor(config), config);
    expect(checkQdqStructure(q, report, config)).toEqual([]);
    expect(opsetOf(q)).toBe(21);
    expect(zeroPointType(q, 'r1')).toBe(5); // int16
    expect(zeroPointType(q, 'm4')).toBe(3); // int8, untouched
    expect(report.precision).toMatchObject({ wideActivations: ['r1'], wideWeights: ['w3'], unmatchedOverrides: [] });
    const byId = Object.fromEntries(report.quantized.map((n) => [n.id, n.precision]));
    expect(byId).toMatchObject({ dw2: 'A16W8', conv3: 'A8W16', conv5: 'A8W8' });
    const out = await outputsOf(q, feeds[0]);
    expect(out.y.data.length).toBe(6 * 12 * 12);
  });

  it('with UseQDQContribOps keeps the opset and writes com.microsoft Q/DQ that onnx.checker accepts', async () => {
    const config = preset('XINT8', {
      extraOptions: { UseQDQContribOps: true, TensorQuantOverrides: { c4: [{ quant_type: 'int16' }] } },
    });
    const { model: q, report } = quantizeModel(model, await rangesFor(config), config);
    expect(report.opset).toMatchObject({ after: 13, qdqDomain: 'com.microsoft' });
    expect(checkQdqStructure(q, report, config)).toEqual([]);
    const file = path.join(tmp, 'contrib.onnx');
    fs.writeFileSync(file, encode(q));
    expect(checkModels([file])).toEqual([{ path: file, ok: true }]);
    await outputsOf(q, feeds[1]);
  });

  it('warns about overrides that name no quantized tensor, and refuses ill-formed ones', async () => {
    const config = preset('A8W8', { extraOptions: { TensorQuantOverrides: { nowhere: [{ quant_type: 'int16' }] } } });
    const { report } = quantizeModel(model, await rangesFor(config), config);
    expect(report.precision.unmatchedOverrides).toEqual(['nowhere']);
    expect(report.warnings.join()).toMatch(/nowhere/);
    expect(() => preset('A8W8', { extraOptions: { TensorQuantOverrides: { r1: [{ quant_type: 'int12' }] } } })).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: expect.stringMatching(/quant_type/) }),
    );
    expect(() =>
      preset('A8W8', { extraOptions: { TensorQuantOverrides: { r1: [{ quant_type: 'int16', scale: 0.1 }] } } }),
    ).toThrow(/scale: unknown field/);
    // The overrides survive the config file round trip.
    const round = configFromJSON(
      configToJSON(preset('A8W8', { extraOptions: { TensorQuantOverrides: { r1: [{ quant_type: 'int16' }] } } })),
    );
    expect(round.extraOptions.TensorQuantOverrides).toEqual({ r1: [{ quant_type: 'int16' }] });
  });
});

describe('float candidates', () => {
  it('are nodes of the model as loaded: a Softmax that opset 13 spells out as Flatten → Softmax → Reshape is one candidate, and each one quantizes', () => {
    // Conv → Softmax(axis 1, rank 4) at opset 9: per-channel weights raise it to 13, which writes the Softmax out.
    const old = smallModel({
      nodes: [makeNode('Conv', ['x', 'w'], ['c'], 'conv'), makeNode('Softmax', ['c'], ['y'], 'softmax')],
      inputs: [floatIO('x', [1, 1, 3, 3])],
      outputs: [floatIO('y', [1, 2, 3, 3])],
      initializers: [f32('w', [2, 1, 1, 1], [1, -2])],
      opset: 9,
    });
    const config = preset('A8W8', { perChannel: true });
    const ranges = rangesForEveryTensor(prepare(old, { targetOpset: 13 }).model);
    const base = quantizeModel(old, ranges, config);
    expect(base.report.quantized.map((q) => q.source ?? q.id)).toContain('softmax');
    expect(base.report.quantized.some((q) => q.source === 'softmax' && q.id !== 'softmax')).toBe(true);
    const float = precisionUnits(base, config).float.map((u) => u.names[0]);
    expect(float.sort()).toEqual(['conv', 'softmax']);
    for (const id of float)
      expect(
        quantizeModel(
          old,
          ranges,
          withUnits(
            config,
            precisionUnits(base, config).float.filter((u) => u.names[0] === id),
          ),
        ).report.float.map((f) => f.id),
      ).toContain(id);
  });
});

describe('precision windows', () => {
  it("place every candidate in the written model's node order and take a window as float nodes, then 16 bits after them", async () => {
    const config = preset('A8W8', { perChannel: true });
    const base = quantizeModel(model, await rangesFor(config), config);
    const units = precisionUnits(base, config);
    const at = unitPositions(base.model, units);
    const position = (kind: 'act16' | 'w16' | 'float', name: string) =>
      at.get(units[kind].find((u) => u.names.includes(name))!)!;
    // Node order in the written model, Q/DQ left out: the graph's own topological order.
    const order = base.model
      .graph!.node.filter((n) => n.op_type !== 'QuantizeLinear' && n.op_type !== 'DequantizeLinear')
      .map((n) => n.name);
    expect(position('act16', 'x')).toBe(-1);
    for (const [weight, node] of [
      ['w1', 'conv1'],
      ['w2', 'dw2'],
      ['w3', 'conv3'],
      ['w4', 'conv4'],
      ['w5', 'conv5'],
    ]) {
      expect(position('w16', weight)).toBe(order.indexOf(node));
      expect(position('float', node)).toBe(order.indexOf(node));
    }
    expect(position('act16', 'r1')).toBe(order.indexOf('relu1'));
    // Two float nodes from the front, then the activations and weights that come after the last of them.
    const window = precisionWindow(units, at, { act16: 1, w16: 1, float: 2 }, { start: -1, floatNodes: 2 }, [
      'act16',
      'w16',
      'float',
    ]);
    const first = units.float
      .map((u) => u.names[0])
      .sort((a, b) => order.indexOf(a) - order.indexOf(b))
      .slice(0, 2);
    expect(window.filter((u) => u.kind === 'float').map((u) => u.names[0])).toEqual(first);
    const end = Math.max(...first.map((id) => order.indexOf(id)));
    for (const u of window.filter((u) => u.kind !== 'float')) expect(at.get(u)!).toBeGreaterThan(end);
    expect(window.filter((u) => u.kind === 'act16')).toHaveLength(1);
    expect(window.filter((u) => u.kind === 'w16')).toHaveLength(1);
    // No float kind: the window starts with the graph input.
    expect(
      precisionWindow(units, at, { act16: 1, w16: 0, float: 2 }, { start: -1, floatNodes: 2 }, ['act16'])[0].names,
    ).toContain('x');
  });
});

describe('the precision budget', () => {
  it('reads act16, w16 and float shares and names what it cannot read', () => {
    expect(parsePrecisionBudget('')).toEqual(DEFAULT_PRECISION_BUDGET);
    expect(parsePrecisionBudget('act16=0.2, float=0')).toEqual({ act16: 0.2, w16: 0.1, float: 0 });
    for (const bad of ['act16=2', 'bits=0.1', 'w16', 'float=x'])
      expect(() => parsePrecisionBudget(bad)).toThrow(expect.objectContaining({ name: 'PrecisionBudgetError' }));
  });
});

describe('the mixed-precision search', () => {
  it('measures, stays within the budget, improves on 8 bits, and its configuration reproduces the measurement', async () => {
    const config = preset('XINT8');
    const ranges = await rangesFor(config);
    const runtime = nodeRuntime(feeds);
    const budget = { act16: 0.25, w16: 0.2, float: 0.1 };
    const result = await chooseMixedPrecision(model, ranges, config, runtime, {
      budget,
      target: 0.99999,
      samples: 3,
      maxMeasurements: 40,
    });
    const base = quantizeModel(model, ranges, config);
    const units = precisionUnits(base, config);
    expect(result.steps.length).toBeLessThanOrEqual(40);
    expect(result.cosine).toBeGreaterThan(result.startCosine);
    for (const kind of ['act16', 'w16', 'float'] as const)
      expect(result.budget[kind].used).toBeLessThanOrEqual(result.budget[kind].limit);
    expect(result.budget.act16.of).toBe(base.plan.activations.size);
    expect(result.chosen.act16.length + result.chosen.w16.length).toBeGreaterThan(0);
    // Every chosen name is a candidate of the 8-bit quantization.
    const all = new Set([...units.act16, ...units.w16, ...units.float].flatMap((u) => u.names));
    for (const n of [...result.chosen.act16, ...result.chosen.w16, ...result.chosen.float])
      expect(all.has(n)).toBe(true);
    // Judged again from the configuration alone, on the same samples: the same cosine.
    const judge = await createOutputJudge(model, sampleSubset(runtime, 3));
    const again = await judge.score(quantizeModel(model, ranges, result.config).model);
    expect(again.cosine).toBeCloseTo(result.cosine, 6);
    // withUnits only adds: the start's overrides and exclusions stay.
    const one = withUnits(result.config, [units.float[0]]);
    expect(one.nodesToExclude).toEqual([...new Set([...result.config.nodesToExclude, units.float[0].names[0]])]);
  });
});
