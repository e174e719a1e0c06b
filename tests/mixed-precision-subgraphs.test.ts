/**
 * Mixed precision inside If/Loop/Scan bodies (EnableSubgraph), run for real in onnxruntime-node: the bodies'
 * activation groups, weights and quantized nodes are candidates (a tensor several scopes read is one), placed in
 * graph order just before their holder; a body tensor put at 16 bits and a body node kept float are written so,
 * counted in the report and budget, and the model loads at 'all' and 'basic' and passes onnx.checker; the search on
 * a Scan whose compute is all in its body chooses body units and reproduces what it measured.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encode, forEachGraph, type ModelProto } from '../src/core/onnx/index.ts';
import { controlFlowModel, scanModel } from '../src/core/quantize/testModels.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { withOptions, type QuantConfig } from '../src/core/quantize/config.ts';
import { budgetCounts } from '../src/core/quantize/precisionBudget.ts';
import { chooseMixedPrecision, precisionUnits, withUnits } from '../src/core/search/mixedPrecision.ts';
import { unitPositions } from '../src/core/search/precisionWindows.ts';
import { createOutputJudge, sampleSubset } from '../src/core/evaluate/outputJudge.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { createSession, float32Tensor, nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { checkModels } from './helpers/onnxChecker.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-mixed-bodies-'));
const cfFeeds = Array.from({ length: 8 }, (_, k) => ({ x: float32Tensor(seededFloats(4, 40 + k, -1.5, 1.5), [1, 4]) }));
const scanFeeds = Array.from({ length: 6 }, (_, k) => ({
  x: float32Tensor(seededFloats(20, 70 + k, -1.5, 1.5), [5, 1, 4]),
}));
const withBodies = (preset: string, extra: Record<string, unknown> = {}): QuantConfig =>
  withOptions(getPreset(preset), { extraOptions: { EnableSubgraph: true, ...extra } });

/** The zero point's element type of the QuantizeLinear of `tensor`, in whichever graph writes it. */
function zeroPointType(m: ModelProto, tensor: string): number | undefined {
  let type: number | undefined;
  forEachGraph(m.graph!, (g) => {
    const q = g.node.find((n) => n.op_type === 'QuantizeLinear' && n.input[0] === tensor);
    const zp = q && g.initializer.find((t) => t.name === q.input[2]);
    if (zp) type = zp.data_type;
  });
  return type;
}

async function loadsAndRuns(m: ModelProto, feeds: readonly Record<string, unknown>[]): Promise<void> {
  for (const level of ['all', 'basic'] as const) {
    const session = await createSession(encode(m), 1, level);
    try {
      for (const f of feeds) {
        const out = await session.run(f as never);
        for (const t of Object.values(out)) expect([...(t.data as Float32Array)].every(Number.isFinite)).toBe(true);
      }
    } finally {
      await session.release();
    }
  }
}

describe('mixed precision inside control-flow bodies', () => {
  it('candidates: every body group, weight and quantized node, once, in graph order before their holder', async () => {
    const model = controlFlowModel();
    const config = withBodies('A8W8');
    const { ranges } = await calibrateOnFeeds(model, cfFeeds, { config });
    const base = quantizeModel(model, ranges, config);
    const units = precisionUnits(base, config);
    const acts = units.act16.flatMap((u) => u.names);
    // Tensors computed inside the If's then branch and the Loop's body.
    for (const t of ['t1', 'nt', 'ye', 'm', 'v_next']) expect(acts, t).toContain(t);
    // t1 is quantized by the then branch and again by both branches of the If inside it: one candidate.
    expect(acts.filter((t) => t === 't1')).toHaveLength(1);
    expect(new Set(acts).size).toBe(acts.length);
    // Weights read only inside bodies, and w0 shared by the main Gemm and the Loop's MatMul once.
    expect(units.w16.map((u) => u.names[0]).sort()).toEqual(['w0', 'we', 'wn', 'wt']);
    const nodes = units.float.map((u) => u.names[0]);
    for (const id of [
      'if/then_branch/then_gemm',
      'if/then_branch/inner_if/then_branch/inner_matmul',
      'loop/body/body_matmul',
    ])
      expect(nodes, id).toContain(id);
    // The budget counts what the bodies hold: 4 weights (not 1), the report's activation pairs.
    expect(budgetCounts({ act16: 1, w16: 1, float: 1 }, base)).toEqual({
      act16: base.report.precision.activations,
      w16: 4,
      float: nodes.length,
    });
    const at = unitPositions(base.model, units);
    const pos = (kind: 'act16' | 'w16' | 'float', name: string) =>
      at.get(units[kind].find((u) => u.names.includes(name))!)!;
    expect(pos('float', 'gemm')).toBeLessThan(pos('float', 'if/then_branch/then_gemm'));
    expect(pos('float', 'if/then_branch/then_gemm')).toBeLessThan(pos('float', 'loop/body/body_matmul'));
    expect(pos('float', 'loop/body/body_matmul')).toBeLessThan(pos('float', 'relu'));
    expect(pos('w16', 'wt')).toBe(pos('float', 'if/then_branch/then_gemm'));
    expect(pos('act16', 'm')).toBe(pos('float', 'loop/body/body_matmul'));
  });

  it('a body activation and weight at 16 bits and a body node float: written so, reported, loads at all and basic, passes onnx.checker', async () => {
    const model = controlFlowModel();
    // com.microsoft Q/DQ carry int16 at the model's own opset (13), which onnx.checker reads.
    const config = withBodies('A8W8', { UseQDQContribOps: true });
    const { ranges } = await calibrateOnFeeds(model, cfFeeds, { config });
    const base = quantizeModel(model, ranges, config);
    const units = precisionUnits(base, config);
    const pick = (kind: 'act16' | 'w16' | 'float', name: string) => units[kind].find((u) => u.names.includes(name))!;
    const wide = withUnits(config, [
      pick('act16', 'm'),
      pick('w16', 'wt'),
      pick('float', 'if/else_branch/else_matmul'),
    ]);
    const { model: q, report } = quantizeModel(model, ranges, wide);
    // uint8 or int8 (2, 3) at the start, uint16 or int16 (4, 5) once widened.
    expect([2, 3]).toContain(zeroPointType(base.model, 'm'));
    expect([4, 5]).toContain(zeroPointType(q, 'm'));
    expect([2, 3]).toContain(zeroPointType(q, 't1'));
    expect(report.precision.wideActivations).toEqual(['m']);
    expect(report.precision.wideWeights).toEqual(['wt']);
    expect(report.precision.unmatchedOverrides).toEqual([]);
    expect(report.warnings.join('\n')).not.toMatch(/TensorQuantOverrides name no quantized tensor/);
    expect(report.subgraphs!.excludedNodes).toEqual(['if/else_branch/else_matmul']);
    expect(report.subgraphs!.quantizedNodes).not.toContain('if/else_branch/else_matmul');
    await loadsAndRuns(q, cfFeeds);
    const file = path.join(tmp, 'control_flow_mixed.onnx');
    fs.writeFileSync(file, encode(q));
    for (const v of checkModels([file])) expect(v.ok, `${v.path}: ${v.error}`).toBe(true);
  });

  it('the search on a Scan whose compute is in its body chooses body units within the budget and reproduces its figure', async () => {
    const model = scanModel();
    const config = withBodies('XINT8', { UseQDQContribOps: true });
    const { ranges } = await calibrateOnFeeds(model, scanFeeds, { config });
    const runtime = nodeRuntime(scanFeeds);
    const budget = { act16: 0.25, w16: 0.25, float: 0.2 };
    const result = await chooseMixedPrecision(model, ranges, config, runtime, {
      budget,
      target: 0.999999,
      samples: 3,
      maxMeasurements: 30,
    });
    // The body's tensors with Q/DQ (my is folded into the Relu after it).
    const bodyActs = ['xt', 'h', 'mx', 'mh', 'pre', 'pre_b', 'h_next', 'yt'];
    expect(result.units.act16.flatMap((u) => u.names)).toEqual(expect.arrayContaining(bodyActs));
    expect(result.units.float.filter((u) => u.names[0].startsWith('scan/body/'))).toHaveLength(7);
    const chosen = [...result.chosen.act16, ...result.chosen.w16, ...result.chosen.float];
    expect(
      chosen.some((n) => bodyActs.includes(n) || ['wx', 'wh', 'wy'].includes(n) || n.startsWith('scan/body/')),
    ).toBe(true);
    // The best configuration measured is at least the 8-bit start (the choice itself is accepted on noise power,
    // which at this model's 1e-4 error can disagree with the cosine in the fifth digit).
    expect(result.bestMeasured.cosine).toBeGreaterThan(result.startCosine);
    for (const kind of ['act16', 'w16', 'float'] as const)
      expect(result.budget[kind].used).toBeLessThanOrEqual(result.budget[kind].limit);
    const q = quantizeModel(model, ranges, result.config);
    const judge = await createOutputJudge(model, sampleSubset(runtime, 3));
    expect((await judge.score(q.model)).cosine).toBeCloseTo(result.cosine, 6);
    await loadsAndRuns(q.model, scanFeeds);
    const file = path.join(tmp, 'scan_mixed.onnx');
    fs.writeFileSync(file, encode(q.model));
    for (const v of checkModels([file])) expect(v.ok, `${v.path}: ${v.error}`).toBe(true);
  });
});
