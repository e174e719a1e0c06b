/**
 * Parity across runtimes (core/evaluate/parity.ts) on real onnxruntime: mnist and its U8S8 quantization run on
 * onnxruntime-web's WASM backend (the reference, as in the page), onnxruntime-node (agrees to float rounding),
 * and a runtime whose int8 DequantizeLinear is wrong the way onnxruntime-web's JSEP WebGPU is (onnxruntime #32578):
 * here onnxruntime-node running the model with one weight DequantizeLinear's scale off by half. That runtime is
 * flagged on the quantized model only, and located at that DequantizeLinear, shown on the float graph as the
 * node it feeds.
 */
import { describe, expect, it } from 'vitest';
import { buildGraphIndex, decode, encode, openModel, type ModelProto } from '../src/core/onnx/index.ts';
import { makeTensor, readTensorAsFloat32 } from '../src/core/onnx/tensorData.ts';
import { DataType } from '../src/core/onnx/model.ts';
import { asSessionModel } from '../src/core/onnx/externalize.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { runParity, type ParityRuntime } from '../src/core/evaluate/parity.ts';
import { createSession } from '../src/cli/runtime/ortNode.ts';
import { parityRuntimes } from '../workers/runtime/ort.ts';
import { fixtureRanges } from './helpers/calibration.ts';
import type { Feed } from '../src/core/runtime/session.ts';

const nodeRuntime = (id: string, label: string, edit?: (m: ModelProto) => ModelProto): ParityRuntime => ({
  id,
  label,
  async createSession(bytes) {
    const model = asSessionModel(bytes);
    const s = await createSession(
      edit ? { bytes: encode(edit(decode(model.bytes))), externalData: [] } : model,
      1,
      'basic',
      false,
    );
    return {
      inputNames: s.inputNames,
      outputNames: s.outputNames,
      run: async (feeds) =>
        Object.fromEntries(
          Object.entries(await s.run(feeds)).map(([k, t]) => [k, { type: t.type, data: t.data, dims: t.dims }]),
        ),
      release: () => s.release(),
    };
  },
});

/** The first DequantizeLinear of an int8 weight, with its scale halved. */
function wrongDequantize(m: ModelProto): ModelProto {
  const graph = m.graph!;
  const inits = new Map(graph.initializer.map((t) => [t.name ?? '', t]));
  const dq = graph.node.find(
    (n) => n.op_type === 'DequantizeLinear' && inits.get(n.input[0])?.data_type === DataType.INT8,
  )!;
  const scale = inits.get(dq.input[1])!;
  const halved = makeTensor(
    scale.name!,
    DataType.FLOAT,
    scale.dims.map(Number),
    readTensorAsFloat32(scale).map((v) => v / 2),
  );
  return { ...m, graph: { ...graph, initializer: graph.initializer.map((t) => (t === scale ? halved : t)) } };
}

describe('parity across runtimes', () => {
  it('flags the runtime with a wrong int8 DequantizeLinear on the quantized model only, and locates it', async () => {
    const { model: float, ranges } = await fixtureRanges('mnist.onnx', getPreset('U8S8'));
    const quantized = quantizeModel(float, ranges, getPreset('U8S8')).model;
    const feeds: Record<string, Feed>[] = [0, 1].map((k) => ({
      Input3: {
        type: 'float32',
        data: new Float32Array(784).map((_, i) => Math.abs(Math.sin((i * (k + 1)) / 37))),
        dims: [1, 1, 28, 28],
      },
    }));
    const { available } = await parityRuntimes(1);
    expect(available.map((r) => r.id)).toEqual(['wasm']); // Node: no WebGPU, no WebNN
    const wasm = available[0];
    const result = await runParity(
      float,
      quantized,
      [
        wasm,
        nodeRuntime('node', 'onnxruntime-node'),
        nodeRuntime('bad-dq', 'wrong int8 DequantizeLinear', wrongDequantize),
      ],
      feeds,
    );
    const row = (r: string, m: string) => result.rows.find((x) => x.runtime === r && x.model === m)!;
    expect(row('wasm', 'float')).toMatchObject({ cosine: 1, agreement: 1, flagged: false });
    expect(row('wasm', 'quantized').cosine).toBeGreaterThan(0.99);
    expect(row('wasm', 'quantized').cosine).toBeLessThan(1);
    for (const m of ['float', 'quantized']) expect(row('node', m).flagged, `onnxruntime-node ${m}`).toBe(false);
    expect(row('bad-dq', 'float').flagged).toBe(false);
    const bad = row('bad-dq', 'quantized');
    expect(bad.flagged).toBe(true);
    expect(bad.agreement!).toBeLessThan(0.9999);
    const dq = quantized.graph!.node.find(
      (n) => n.op_type === 'DequantizeLinear' && n.output[0] === bad.parting!.tensor,
    )!;
    expect(bad.parting).toMatchObject({ opType: 'DequantizeLinear' });
    expect(dq).toBeDefined();
    // Shown on the float graph as the node its weight feeds (the float graph has no DequantizeLinear).
    const floatIndex = buildGraphIndex(float.graph!);
    const shown = floatIndex.nodes[floatIndex.ids.findIndex((id) => id === bad.parting!.floatNodeId)];
    const consumer = quantized.graph!.node.find((n) => n.input.includes(dq.output[0]))!;
    expect(shown.name).toBe(consumer.name);
    expect(openModel(encode(quantized)).summary.quantization.state).not.toBe('float');
  });
});
