/**
 * Run in Node by graph-pick.spec.ts (Playwright's loader cannot import the core's generated schema):
 * `node --import tsx e2e/builders/tailFloatNodes.ts [quantized.onnx]` prints, as JSON, the golden
 * UltraFace tail (tests/helpers/ultrafaceTail.ts, the quantizer golden test's set) and the nodes of
 * the quantized model that stayed float among the op types the tail has.
 *
 * In a QDQ model a quantized node's output feeds a QuantizeLinear (or a Relu/Clip fused with it does). Of the nodes of the tail's op types
 * (Slice, Mul, Add, Exp, Concat, Sub, Div) that compute on float data, exactly the golden nodes must
 * not: every other such node in UltraFace is quantized, so a missing or an extra exclusion changes the
 * set. (The integer Concats that build Reshape shapes are no float computation and are left out.)
 */
import fs from 'node:fs';
import { buildGraphIndex, DataType, decode } from '../../src/core/onnx/index.ts';
import { ultrafaceTailGolden } from '../../tests/helpers/ultrafaceTail.ts';

const TAIL_OPS = new Set(['Slice', 'Mul', 'Add', 'Exp', 'Concat', 'Sub', 'Div']);

const golden = ultrafaceTailGolden().sort();
if (!process.argv[2]) {
  console.log(JSON.stringify({ golden, float: [], quantizeNodes: 0 }));
} else {
  const index = buildGraphIndex(decode(new Uint8Array(fs.readFileSync(process.argv[2]))).graph!);
  // Which tensors hold float values: graph inputs and weights of a float type, DequantizeLinear
  // outputs, and what a node computes from a float first input (Shape and Size give integers).
  const floatTensors = new Set<string>();
  for (const v of index.graph.input)
    if (v.type?.tensor_type?.elem_type === DataType.FLOAT) floatTensors.add(v.name ?? '');
  for (const [name, t] of [...index.initializers, ...index.constants])
    if (t.data_type === DataType.FLOAT) floatTensors.add(name);
  const computesOnFloat = (i: number) => floatTensors.has(index.nodes[i].input[0] ?? '');
  for (const i of index.order) {
    const n = index.nodes[i];
    if (
      n.op_type === 'DequantizeLinear' ||
      (computesOnFloat(i) && n.op_type !== 'Shape' && n.op_type !== 'Size' && n.op_type !== 'QuantizeLinear')
    ) {
      n.output.forEach((o) => floatTensors.add(o));
    }
  }
  // Quantized: the output feeds a QuantizeLinear, or a Relu/Clip fused into it whose output does.
  const quantizedOutput = (i: number): boolean =>
    index.nodes[i].output.some((o) =>
      (index.consumers.get(o as never) ?? []).some((c) => {
        const op = index.nodes[c].op_type;
        return op === 'QuantizeLinear' || ((op === 'Relu' || op === 'Clip') && quantizedOutput(c));
      }),
    );
  const float = index.nodes.flatMap((n, i) =>
    TAIL_OPS.has(n.op_type ?? '') && computesOnFloat(i) && !quantizedOutput(i) ? [n.name || index.ids[i]] : [],
  );
  const quantizeNodes = index.nodes.filter((n) => n.op_type === 'QuantizeLinear').length;
  console.log(JSON.stringify({ golden, float: float.sort(), quantizeNodes }));
}
