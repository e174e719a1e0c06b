/**
 * Excluded subgraphs stay float in the written model, with Q/DQ only at their borders: UltraFace's
 * post-processing tail picked by start and end nodes (the golden set is what the no-post-processing
 * export lacks), and YOLOX's named output tail.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as ortWeb from 'onnxruntime-web';
import { buildGraphIndex, encode, type ModelProto } from '../src/core/onnx/index.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { validateConfig, configToJSON } from '../src/core/quantize/config.ts';
import { fixtureRanges } from './helpers/calibration.ts';
import { readModel } from './helpers/fixtures.ts';
import { structuralDifference, ULTRAFACE_TAIL } from './exclude-fixtures.test.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { runModel, seededFeeds } from './helpers/runModels.ts';

/** Nodes of the written model (by name) that read a DequantizeLinear output or feed a QuantizeLinear. */
function qdqNeighbours(model: ModelProto, names: Set<string>) {
  const index = buildGraphIndex(model.graph!);
  const inside = (i: number | undefined) => i !== undefined && names.has(index.nodes[i].name ?? '');
  const violations: string[] = [];
  index.nodes.forEach((node) => {
    if (!names.has(node.name ?? '')) return;
    for (const t of node.input) {
      const p = index.producer.get(t as never);
      if (p === undefined) continue;
      const producer = index.nodes[p];
      // A DequantizeLinear is allowed only where the value comes from outside the excluded set.
      if (producer.op_type === 'DequantizeLinear') {
        const q = index.producer.get(producer.input[0] as never);
        const source = q === undefined ? undefined : index.producer.get(index.nodes[q].input[0] as never);
        if (inside(source)) violations.push(`${node.name} reads ${t} quantized inside the excluded set`);
      }
    }
  });
  return { index, violations };
}

describe('quantizing with exclusions', () => {
  it('UltraFace: the tail picked by start and end nodes stays float, exactly the nodes the no-post export lacks', async () => {
    const config = validateConfig({
      ...JSON.parse(configToJSON(getPreset('U8S8'))),
      subgraphsToExclude: [ULTRAFACE_TAIL],
    });
    const { model, ranges } = await fixtureRanges('ultraface-rfb-320.onnx', config);
    const { model: quantized, report } = quantizeModel(model, ranges, config, 'U8S8');
    const golden = structuralDifference(
      readModel('ultraface-rfb-320.onnx'),
      readModel('ultraface-rfb-320-nopost.onnx'),
    );
    const excluded = report.float.filter((f) => f.reason.startsWith('excluded')).map((f) => f.id);
    expect([...excluded].sort()).toEqual([...golden].sort());
    const { index, violations } = qdqNeighbours(quantized, new Set(golden));
    expect(violations).toEqual([]);
    // Every golden node is in the written model under its id, and none of them is a quantized one.
    for (const id of golden) expect(index.nodes.some((n) => n.name === id)).toBe(true);
    expect(report.quantized.some((q) => golden.includes(q.id))).toBe(false);
  });

  it('YOLOX: excluding its output tail by name (Concat_397 … Transpose_423 and kin) keeps it float', async () => {
    // The tail: the three per-scale Concats of box, objectness and class outputs (Concat_331, Concat_364,
    // Concat_397), their Reshapes, the Concat joining the scales and the final Transpose.
    const tail = { starts: ['Concat_331', 'Concat_364', 'Concat_397'], ends: ['Transpose_423'] };
    const config = validateConfig({ ...JSON.parse(configToJSON(getPreset('XINT8'))), subgraphsToExclude: [tail] });
    const { model, ranges } = await fixtureRanges('yolox-nano.onnx', config);
    const { model: quantized, report } = quantizeModel(model, ranges, config, 'XINT8');
    const excluded = new Set<string>(report.float.filter((f) => f.reason.startsWith('excluded')).map((f) => f.id));
    expect(excluded.has('Concat_397')).toBe(true);
    expect(excluded.has('Transpose_423')).toBe(true);
    expect([...excluded].sort()).toEqual([
      'Concat_331',
      'Concat_364',
      'Concat_397',
      'Concat_422',
      'Reshape_405',
      'Reshape_413',
      'Reshape_421',
      'Transpose_423',
    ]);
    const { violations } = qdqNeighbours(quantized, new Set(excluded));
    expect(violations).toEqual([]);
  });

  it('an exclusion that names nothing is a named error', async () => {
    const config = validateConfig({ ...JSON.parse(configToJSON(getPreset('U8S8'))), nodesToExclude: ['Conv_9999'] });
    const { model, ranges } = await fixtureRanges('mnist.onnx', config);
    expect(() => quantizeModel(model, ranges, config)).toThrow(expect.objectContaining({ name: 'ExclusionError' }));
  });
});

describe('float Conv, ConvTranspose and Gemm after a quantized tensor', () => {
  it('read the float tensor, so onnxruntime neither quantizes them itself nor inserts Round below opset 11', async () => {
    // Super-resolution is opset 10. XINT8 with every Conv kept float: before, each Conv read a DequantizeLinear
    // output and onnxruntime's WeightBiasQuantization turned its weight to int8 and its bias through Round,
    // which opset 10 does not have ("No Op registered for Round with domain_version of 10").
    const config = validateConfig({ ...JSON.parse(configToJSON(getPreset('XINT8'))), opTypesToExclude: ['Conv'] });
    const { model, ranges } = await fixtureRanges('super-resolution-10.onnx', config);
    const { model: quantized } = quantizeModel(model, ranges, config, 'XINT8');
    expect(quantized.opset_import.find((o) => (o.domain ?? '') === '')?.version).toBe(10);
    const index = buildGraphIndex(quantized.graph!);
    const convs = index.nodes.filter((n) => n.op_type === 'Conv');
    expect(convs.length).toBe(4);
    for (const conv of convs) {
      const p = index.producer.get(conv.input[0] as never);
      expect(p === undefined ? 'graph input' : index.nodes[p].op_type).not.toBe('DequantizeLinear');
    }
    const bytes = encode(quantized);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-float-conv-'));
    const file = path.join(dir, 'sr-xint8-float-conv.onnx');
    fs.writeFileSync(file, bytes);
    expect(checkModels([file])).toEqual([{ path: file, ok: true }]);
    // Both runtimes load it with graph optimizations on (node: basic as the CLI runs it; web: its default, all),
    // and the float Convs stay float: the output is the float model's up to the 8-bit rounding of the few
    // quantized tensors left (noise power 1.2e-4 of the signal; 4.7e-3 when onnxruntime quantized the Convs).
    const feeds = seededFeeds(readModel('super-resolution-10.onnx'));
    const [reference] = Object.values(await runModel(readModel('super-resolution-10.onnx'), feeds));
    const [out] = Object.values(await runModel(bytes, feeds));
    let noise = 0;
    let signal = 0;
    reference.data.forEach((v, k) => {
      noise += (v - out.data[k]) ** 2;
      signal += v * v;
    });
    expect(noise / signal).toBeLessThan(1e-3);
    const web = await ortWeb.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
    await web.release();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('a tensor read only by float Conv/Gemm keeps its Q/DQ pair', () => {
  it('so onnxruntime at its default level (all) loads the model: its QDQ propagation has no DequantizeLinear to carry past a MaxPool', async () => {
    // MNIST at opset 21 (A16W8) with Convolution110 kept float: MaxPool Pooling66 reads a DequantizeLinear and only
    // that float Conv reads its output. Without the pair, onnxruntime's extended-level propagation wrote
    // "Pooling66_Output_0_q" with output_dtype INT8 against a UINT8 zero point and refused the model.
    const config = validateConfig({
      ...JSON.parse(configToJSON(getPreset('A16W8'))),
      nodesToExclude: ['Convolution110'],
    });
    const { model, ranges } = await fixtureRanges('mnist.onnx', config);
    const { model: quantized } = quantizeModel(model, ranges, config, 'A16W8');
    expect(quantized.opset_import.find((o) => (o.domain ?? '') === '')?.version).toBe(21);
    const index = buildGraphIndex(quantized.graph!);
    const conv = index.nodes.find((n) => n.name === 'Convolution110')!;
    expect(index.nodes.some((n) => n.op_type === 'QuantizeLinear' && n.input[0] === conv.input[0])).toBe(true);
    const ortNode = await import('onnxruntime-node');
    for (const level of ['basic', 'all'] as const) {
      const session = await ortNode.InferenceSession.create(encode(quantized), { graphOptimizationLevel: level });
      await session.release();
    }
    const web = await ortWeb.InferenceSession.create(encode(quantized), { executionProviders: ['wasm'] });
    await web.release();
  });
});
