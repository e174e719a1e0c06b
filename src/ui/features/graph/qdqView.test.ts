import { describe, expect, it } from 'vitest';
import { buildGraphIndex, decode } from '../../../core/onnx/index.ts';
import { weightlessGraph } from '../../../core/graph/structure.ts';
import { quantizedFixture } from '../../../../tests/helpers/quantizedFixtures.ts';
import { readModel } from '../../../../tests/helpers/fixtures.ts';
import { boxOfId, buildGraphView } from './viewModel.ts';
import { filePrecisions } from './filePrecisions.ts';

describe('a QDQ model in the graph view', () => {
  const quantized = buildGraphIndex(weightlessGraph(quantizedFixture('ultraface-rfb-320.onnx').graph!));

  it('folded by default: no Q/DQ box, the quantized edges labelled with type, scale and zero point', () => {
    const view = buildGraphView(quantized);
    expect(view.qdqFolded).toBe(true);
    expect(view.boxes.some((b) => /QuantizeLinear|DequantizeLinear/.test(b.title))).toBe(false);
    const labelled = view.edges.filter((e) => e.quant);
    expect(labelled.length).toBeGreaterThan(50);
    for (const e of labelled) expect(e.label).toMatch(/^u?int\d+ · scale [\d.e-]+ · zp -?\d+$/);
    // A Q/DQ id still finds a box (its reader's), so a search or an exclusion naming it lands somewhere.
    const dq = quantized.ids[quantized.nodes.findIndex((n) => n.op_type === 'DequantizeLinear')];
    expect(boxOfId(view, dq)).toBeGreaterThanOrEqual(0);
  });

  it('reads like the float model it came from: the same op boxes (Q/DQ aside) and as many edges between them', () => {
    const float = buildGraphView(buildGraphIndex(decode(readModel('ultraface-rfb-320.onnx')).graph!));
    const folded = buildGraphView(quantized);
    const ops = (v: typeof float) => v.boxes.map((b) => b.title).sort();
    // The quantizer folds BatchNormalization into Conv: compare without those.
    const noBn = (titles: string[]) => titles.filter((t) => t !== 'BatchNormalization');
    expect(noBn(ops(folded))).toEqual(noBn(ops(float)));
  });

  it('shows Q/DQ as nodes when asked, and colours precision from the file', () => {
    const view = buildGraphView(quantized, { showQdq: true });
    expect(view.qdqFolded).toBe(false);
    expect(view.boxes.filter((b) => b.title === 'QuantizeLinear').length).toBeGreaterThan(10);
    const precisions = filePrecisions(buildGraphView(quantized));
    const conv = quantized.ids[quantized.nodes.findIndex((n) => n.op_type === 'Conv')];
    expect(precisions[conv]).toEqual({ label: 'A8W8', class: 'int8' });
    // A Relu fused after its Conv reads the Conv's float output; its own output is quantized.
    expect(precisions.Relu_2).toEqual({ label: 'A8', class: 'int8' });
  });
});
