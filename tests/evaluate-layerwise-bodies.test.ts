/**
 * Layer-wise comparison inside If/Loop bodies: on a model whose compute sits in control flow (Silero VAD at opset 18
 * puts every node in one If), the per-layer table and the error jumps must point at the body's nodes, not only at
 * the If. Built in code (core/quantize/testModels.ts's controlFlowModel: an If whose then branch holds a Gemm and a
 * nested If, whose else branch holds a MatMul, then a Loop running MatMul → Add → Tanh three times), quantized A8W8
 * with EnableSubgraph, both models run in onnxruntime-node on eight inputs that take either branch.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGraphIndex, type ModelProto } from '../src/core/onnx/index.ts';
import { controlFlowModel } from '../src/core/quantize/testModels.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { withOptions } from '../src/core/quantize/config.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { compareModels, type LayerwiseResult } from '../src/core/evaluate/compareModels.ts';
import { errorJumps, nodeErrors } from '../src/core/metrics/layerwiseJumps.ts';
import type { LayerRow } from '../src/core/metrics/layerwise.ts';
import { createSession, float32Tensor, nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { encode } from '../src/core/onnx/index.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { activationHistograms } from '../workers/evaluation/activationHistograms.ts';

const feeds = Array.from({ length: 8 }, (_, k) => ({ x: float32Tensor(seededFloats(4, 40 + k, -1.5, 1.5), [1, 4]) }));

/** How many of the feeds take the If's then branch (sum of the first Gemm's output > 0), read from the float model. */
async function thenSamples(model: ModelProto): Promise<number> {
  const exposed: ModelProto = { ...model, graph: { ...model.graph!, output: [{ name: 'cond', metadata_props: [] }] } };
  const session = await createSession(encode(exposed), 1, 'basic');
  try {
    let n = 0;
    for (const f of feeds) n += Number((await session.run(f)).cond.data[0]);
    return n;
  } finally {
    await session.release();
  }
}

describe('layer-wise comparison inside control-flow bodies (If, nested If, Loop)', () => {
  const model = controlFlowModel();
  const index = buildGraphIndex(model.graph!);
  let lw: LayerwiseResult;
  let row: (tensor: string) => LayerRow;
  let taken: number;

  beforeAll(async () => {
    const config = withOptions(getPreset('A8W8'), { extraOptions: { EnableSubgraph: true } });
    const { ranges } = await calibrateOnFeeds(model, feeds, { config });
    const { model: quantized } = quantizeModel(model, ranges, config, 'A8W8');
    const comparison = await compareModels(model, quantized, nodeRuntime(feeds), { layers: true, floatIndex: index });
    lw = comparison.layerwise!;
    row = (tensor) => {
      const r = lw.rows.find((x) => x.tensor === tensor);
      if (!r) throw new Error(`no row for ${tensor}: ${lw.rows.map((x) => x.tensor).join(', ')}`);
      return r;
    };
    taken = await thenSamples(model);
  });

  it('the feeds take both branches (else the test would not cover an If branch left unrun)', () => {
    expect(taken).toBeGreaterThan(0);
    expect(taken).toBeLessThan(feeds.length);
  });

  it('rows for body tensors, each named by its holder, attribute and node, just before the holder’s output', () => {
    expect(row('t1')).toMatchObject({ node: 'if/then_branch/then_gemm', opType: 'Gemm' });
    expect(row('nt')).toMatchObject({ node: 'if/then_branch/inner_if/then_branch/inner_matmul', opType: 'MatMul' });
    expect(row('ye')).toMatchObject({ node: 'if/else_branch/else_matmul', opType: 'MatMul' });
    expect(row('m')).toMatchObject({ node: 'loop/body/body_matmul', opType: 'MatMul' });
    expect(row('v_next')).toMatchObject({ node: 'loop/body/body_tanh', opType: 'Tanh' });
    const order = lw.rows.map((r) => r.tensor);
    expect(order.indexOf('t1')).toBeLessThan(order.indexOf('y'));
    expect(order.indexOf('ye')).toBeLessThan(order.indexOf('y'));
    expect(order.indexOf('m')).toBeLessThan(order.indexOf('z'));
  });

  it('a branch counts only the samples that ran it; a Loop body counts every iteration', () => {
    expect(row('t1').samples).toBe(taken);
    expect(row('ye').samples).toBe(feeds.length - taken);
    expect(row('m').samples).toBe(feeds.length);
    expect(row('m').elementsPerSample).toBe(3 * 4); // three iterations of a [1, 4] value, concatenated
    for (const t of ['t1', 'nt', 'ye', 'm', 'v_next']) {
      expect(Number.isFinite(row(t).sqnr), t).toBe(true);
      expect(row(t).source, t).toBe('dequantized'); // each has its own Q/DQ inside the body
    }
  });

  it('the values read out are the right ones: the If output’s float energy is its two branches’ outputs’ summed', () => {
    // y is t2 (the nested If's output) where the then branch ran and ye where the else branch did.
    const energy = (t: string) => lw.state.get(t)!.value.signal;
    expect(energy('t2') + energy('ye')).toBeCloseTo(energy('y'), 4);
    expect(energy('ye')).toBeGreaterThan(0);
    expect(energy('t2')).toBeGreaterThan(0);
  });

  it('error jumps point at body nodes and leave out the holder whose drop is theirs', () => {
    const errors = nodeErrors(lw.rows, index);
    const ids = errors.map((e) => e.node as string);
    expect(ids).toContain('if/then_branch/then_gemm');
    expect(ids).toContain('loop/body/body_tanh');
    expect(errors.find((e) => e.node === 'if')?.holdsListed).toBe(true);
    const jumps = errorJumps(lw.rows, index, -Infinity);
    expect(jumps.some((j) => j.node === 'if' || j.node === 'loop')).toBe(false);
    expect(jumps.some((j) => (j.node as string).startsWith('if/'))).toBe(true);
  });

  it('the report’s histograms of the worst layers read body tensors too (the page’s evaluation opened a model exposing them unread)', async () => {
    const spans = new Map([
      ['t1', { min: -1, max: 1 }],
      ['m', { min: -1, max: 1 }],
      ['h', { min: -1, max: 1 }],
    ]);
    const histograms = await activationHistograms(model, spans, nodeRuntime(feeds));
    const count = (t: string) => histograms.get(t)!.counts.reduce((a, b) => a + b, 0);
    expect(count('h')).toBe(feeds.length * 4);
    expect(count('t1')).toBe(taken * 4);
    expect(count('m')).toBe(feeds.length * 3 * 4);
  });
});
