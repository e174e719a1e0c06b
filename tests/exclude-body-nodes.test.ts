/**
 * Keeping float a node inside an If/Loop body, named as the per-layer table names it (`if/then_branch/then_gemm`):
 * on a model whose compute sits in one If (Silero VAD at opset 18) that is the only way the exclusion search can act
 * on the layer it found. Built in code (controlFlowModel), quantized A8W8 with EnableSubgraph, run in
 * onnxruntime-node; the search's candidates are the body nodes the quantizer quantized.
 */
import { describe, expect, it } from 'vitest';
import { buildGraphIndex, forEachGraph, type ModelProto } from '../src/core/onnx/index.ts';
import { controlFlowModel } from '../src/core/quantize/testModels.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { withOptions } from '../src/core/quantize/config.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { compareModels } from '../src/core/evaluate/compareModels.ts';
import { rankLayers } from '../src/core/search/candidates.ts';
import { snippetExclusions } from '../src/core/export/snippetExclusions.ts';
import { nodePrecisions } from '../src/core/quantize/precisionClasses.ts';
import { createSession, float32Tensor, nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { encode } from '../src/core/onnx/index.ts';
import { seededFloats } from './helpers/fixtures.ts';

const feeds = Array.from({ length: 8 }, (_, k) => ({ x: float32Tensor(seededFloats(4, 40 + k, -1.5, 1.5), [1, 4]) }));

/** The inputs of the node named `nodeName`, in whichever graph of the model it sits. */
function readsOf(model: ModelProto, nodeName: string): string[] {
  let inputs: string[] = [];
  forEachGraph(model.graph!, (g) => {
    const n = g.node.find((x) => x.name === nodeName);
    if (n) inputs = [...n.input];
  });
  return inputs;
}

describe('nodes_to_exclude inside control-flow bodies', () => {
  const model = controlFlowModel();
  const base = withOptions(getPreset('A8W8'), { extraOptions: { EnableSubgraph: true } });

  it('keeps the named body node float, says so, and the file loads and runs at all and basic', async () => {
    const { ranges } = await calibrateOnFeeds(model, feeds, { config: base });
    const plain = quantizeModel(model, ranges, base, 'A8W8');
    expect(plain.report.subgraphs?.quantizedNodes).toContain('if/then_branch/then_gemm');
    // Quantized: the Gemm reads its weight through a DequantizeLinear.
    expect(readsOf(plain.model, 'then_gemm')[1]).not.toBe('wt');

    const config = withOptions(base, { nodesToExclude: ['if/then_branch/then_gemm', 'loop/body/body_matmul'] });
    const { model: q, report } = quantizeModel(model, ranges, config, 'A8W8');
    expect(readsOf(q, 'then_gemm')).toEqual(['h', 'wt', 'bt']);
    expect(readsOf(q, 'body_matmul')[1]).toBe('w0');
    expect(readsOf(q, 'else_matmul')[1]).not.toBe('we'); // the other branch's MatMul is still quantized
    expect(report.subgraphs?.excludedNodes).toEqual(['if/then_branch/then_gemm', 'loop/body/body_matmul']);
    // The report's exclusions list them (it read "No exclusions" when only body nodes were kept float).
    expect(report.exclusions).toEqual(
      expect.arrayContaining([{ rule: 'node if/then_branch/then_gemm', ids: ['if/then_branch/then_gemm'] }]),
    );
    expect(report.subgraphs?.quantizedNodes).not.toContain('if/then_branch/then_gemm');
    expect(report.subgraphs?.floatCompute).toMatchObject({
      'Gemm: excluded (node if/then_branch/then_gemm)': 1,
      'MatMul: excluded (node loop/body/body_matmul)': 1,
    });
    for (const level of ['all', 'basic'] as const) {
      const session = await createSession(encode(q), 1, level);
      const out = await session.run(feeds[0]);
      expect(Number.isFinite((out.out.data as Float32Array)[0])).toBe(true);
      await session.release();
    }
  });

  it('the Quark and ONNX Runtime snippets name a body node as its body does (their nodes_to_exclude match names in subgraphs)', () => {
    const spec = { nodesToExclude: ['gemm', 'if/then_branch/inner_if/then_branch/inner_matmul'] };
    const out = snippetExclusions(buildGraphIndex(model.graph!), spec);
    expect(out.nodes).toEqual(['gemm', 'inner_matmul']);
    expect(out.allNodes).toEqual(['gemm', 'inner_matmul']);
  });

  it('a scoped id that names no body node is refused by name', () => {
    const config = withOptions(base, { nodesToExclude: ['if/then_branch/no_such_node'] });
    expect(() => quantizeModel(model, new Map(), config, 'A8W8')).toThrow(
      expect.objectContaining({ name: 'ExclusionError', message: expect.stringMatching(/no_such_node/) }),
    );
  });

  it('the exclusion search ranks the quantized body nodes among its candidates', async () => {
    const { ranges } = await calibrateOnFeeds(model, feeds, { config: base });
    const { model: q, report } = quantizeModel(model, ranges, base, 'A8W8');
    const index = buildGraphIndex(model.graph!);
    const rows = (await compareModels(model, q, nodeRuntime(feeds), { layers: true, floatIndex: index })).layerwise!
      .rows;
    const quantized = new Set([...report.quantized.map((n) => n.id as string), ...report.subgraphs!.quantizedNodes!]);
    const ranked = rankLayers(rows, index, quantized).map((l) => l.node as string);
    expect(ranked).toContain('if/then_branch/then_gemm');
    expect(ranked).toContain('loop/body/body_matmul');
    expect(ranked).toContain('gemm'); // and the main graph's
  });

  it("names each body node's precision as the main graph's (nodePrecisions, the layer table and the graph): quantized, 16-bit, kept float", async () => {
    const { ranges } = await calibrateOnFeeds(model, feeds, { config: base });
    const config = withOptions(base, {
      nodesToExclude: ['loop/body/body_matmul'],
      extraOptions: { TensorQuantOverrides: { t1: [{ quant_type: 'int16' }] } },
    });
    const { report } = quantizeModel(model, ranges, config, 'A8W8');
    const precisions = nodePrecisions(report);
    expect(precisions['gemm']).toEqual({ label: 'A8W8', class: 'int8' });
    expect(precisions['if/else_branch/else_matmul']).toEqual({ label: 'A8W8', class: 'int8' });
    // The Gemm writes t1 at 16 bits, and the MatMul inside the nested If reads it so.
    expect(precisions['if/then_branch/then_gemm'].class).toBe('act16');
    expect(precisions['if/then_branch/inner_if/then_branch/inner_matmul'].class).toBe('act16');
    expect(precisions['loop/body/body_matmul']).toEqual({ label: 'float', class: 'float' });
  });

  it('labels a nested If and a body node without a rule "float", as the main graph\'s If (was "—": no label)', async () => {
    const { ranges } = await calibrateOnFeeds(model, feeds, { config: base });
    const { report } = quantizeModel(model, ranges, base, 'A8W8');
    const precisions = nodePrecisions(report);
    expect(precisions['if']).toEqual({ label: 'float', class: 'float' });
    expect(precisions['if/then_branch/inner_if']).toEqual({ label: 'float', class: 'float' });
    expect(precisions['loop/body/body_cond']).toEqual({ label: 'float', class: 'float' });
    // Every body node has a label: quantized or float.
    const bodyNodes = ['if/then_branch/then_gemm', 'if/then_branch/inner_if', 'if/else_branch/else_matmul'];
    for (const id of bodyNodes) expect(precisions[id], id).toBeDefined();
  });
});
