/**
 * QDQ files written the way ONNX Runtime's quantize_static and AMD Quark write them (tests/helpers/foreignQdq.ts:
 * their tensor and node names, int8 weight initializers behind a DequantizeLinear, per-channel axis, int32 biases
 * behind their own DQ, Quark's power-of-two scales and Extended Q/DQ) read as quantized: every Q/DQ folded (as many
 * boxes as the float model), the edge labels and weight parameters as the file holds them, precision labels, and
 * a split view against the float model in which every node has its counterpart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildGraphIndex, decode, encode, readTensorAsFloat32 } from '../src/core/onnx/index.ts';
import { buildGraphView } from '../src/core/graph/graphView.ts';
import { compareGraphs } from '../src/core/graph/comparison.ts';
import { qdqPrecisionLabels } from '../src/core/graph/qdqFold.ts';
import { weightlessGraph } from '../src/core/graph/structure.ts';
import { createSession } from '../src/cli/runtime/ortNode.ts';
import { readModel } from './helpers/fixtures.ts';
import { foreignQdq, type ForeignStyle } from './helpers/foreignQdq.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { seededFeeds } from './helpers/runModels.ts';

const FLOAT = 'ultraface-rfb-320.onnx';
const float = decode(readModel(FLOAT));
const written = (style: ForeignStyle) => decode(encode(foreignQdq(float, style)));

describe.each(['ort', 'quark-xint8', 'quark-a16w8'] as const)('a QDQ file written as %s writes it', (style) => {
  const model = written(style);
  const index = buildGraphIndex(model.graph!);
  const view = buildGraphView(index);
  const floatView = buildGraphView(buildGraphIndex(float.graph!));
  const init = (name: string) => readTensorAsFloat32(index.initializers.get(name)!);

  it("has the tool's names, and reads as quantized: every Q/DQ folded, edges labelled with the file's values", () => {
    expect(view.qdq).not.toBeNull();
    const dq = style === 'quark-a16w8' ? 'ExtendedDequantizeLinear' : 'DequantizeLinear';
    expect(model.graph!.node.filter((n) => n.op_type === dq).length).toBeGreaterThan(100);
    expect(view.qdq!.folded.reduce((a, b) => a + b, 0)).toBe(view.qdq!.qdqNodes);
    // No Q/DQ box left: the quantized graph has the prepared float graph's boxes (BatchNormalization folded, 35 fewer).
    expect(view.boxes.some((b) => /QuantizeLinear|DequantizeLinear/.test(b.title))).toBe(false);
    expect(view.boxes.length).toBe(floatView.boxes.length - 35);
    // A Conv's input edge: the pair `<t>_QuantizeLinear` → `<t>_DequantizeLinear`, its type, scale and zero point.
    const conv = model.graph!.node.find(
      (n) => n.op_type === 'Conv' && n.input[0].endsWith('_DequantizeLinear_Output'),
    )!;
    const tensor = conv.input[0].replace(/_DequantizeLinear_Output$/, '');
    const edge = view.edges.find((e) => e.tensor === conv.input[0])!;
    const scale = init(`${tensor}_scale`)[0],
      zp = init(`${tensor}_zero_point`)[0];
    const type = { ort: 'uint8', 'quark-xint8': 'int8', 'quark-a16w8': 'int16' }[style];
    expect(edge.quant!.params).toMatchObject({ type, channels: 1 });
    expect(edge.quant!.params.scales![0]).toBe(scale);
    expect(edge.label).toBe(
      `${type} · scale ${Number(scale.toPrecision(4)) < 1e-3 ? scale.toExponential(3) : Number(scale.toPrecision(4))} · zp ${zp}`,
    );
    if (style === 'quark-xint8') expect(Number.isInteger(Math.log2(scale))).toBe(true);
    // Its weight: int8 codes in `<W>_quantized`, per channel (axis 0) for ONNX Runtime, per tensor for Quark.
    const weight = view.qdq!.weights.get(conv.input[1])!;
    expect(weight.codes).toBe(conv.input[1].replace(/_DequantizeLinear_Output$/, '_quantized'));
    expect(weight.params.type).toBe('int8');
    const channels = index.initializers.get(weight.codes)!.dims.map(Number)[0];
    expect(weight.params.channels).toBe(style === 'ort' ? channels : 1);
    if (style === 'ort') expect(weight.params.axis).toBe(0);
    // Its bias: int32 behind a DQ that writes the bias's own name.
    const bias = view.qdq!.weights.get(conv.input[2])!;
    expect(bias.params.type).toBe('int32');
    expect(bias.codes).toBe(`${conv.input[2]}_quantized`);
  });

  it('colours by precision: convolutions at 8 or 16 bits, none left float by mistake', () => {
    const labels = qdqPrecisionLabels(index, view.qdq!);
    const convLabels = new Set([...labels].filter(([i]) => index.nodes[i].op_type === 'Conv').map(([, l]) => l));
    expect([...convLabels]).toEqual([style === 'quark-a16w8' ? 'A16W8' : 'A8W8']);
  });

  it('maps against its float model: every float node has its counterpart (35 BatchNormalization folded in)', () => {
    const cmp = compareGraphs(
      { name: FLOAT, graph: weightlessGraph(float.graph!) },
      { name: 'q.onnx', graph: weightlessGraph(model.graph!) },
    );
    expect(cmp.mapping.related).toBe(true);
    expect(cmp.mapping.counts.merged).toBe(35);
    expect(cmp.mapping.counts.added).toBe(0);
    const missing = cmp.views.a.boxes.filter(
      (b, i) => b.kind === 'node' && cmp.counterpart.a[i] < 0 && cmp.marks.a[i] !== 'merged',
    );
    expect(missing.map((b) => b.id)).toEqual([]);
  });
});

describe('the ONNX Runtime-style file is a valid model', () => {
  it('passes onnx.checker and runs in onnxruntime at its default (all) and basic levels', async () => {
    const bytes = encode(foreignQdq(float, 'ort'));
    const file = path.join(os.tmpdir(), `qs-foreign-qdq-${process.pid}.onnx`);
    fs.writeFileSync(file, bytes);
    try {
      expect(checkModels([file])[0]).toMatchObject({ ok: true });
    } finally {
      fs.rmSync(file, { force: true });
    }
    for (const level of ['all', 'basic'] as const) {
      const session = await createSession(bytes, 1, level);
      const out = await session.run(seededFeeds(bytes));
      expect(Object.keys(out).sort()).toEqual(['boxes', 'scores']);
      await session.release();
    }
  });
});
