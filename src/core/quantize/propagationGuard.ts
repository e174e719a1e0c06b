/**
 * Closes the chains onnxruntime's QDQ propagation would extend. At graph optimization 'extended' and above
 * (its default), onnxruntime copies a DequantizeLinear forward past the data-movement ops (MaxPool, Reshape,
 * Transpose, Squeeze, Unsqueeze, Slice) whose output reaches no QuantizeLinear, inserting Q/DQ pairs of its
 * own; at opset 21 such an inserted QuantizeLinear can end with an output_dtype that contradicts its zero point
 * after onnxruntime's int8 → uint8 rewrite, and the session refuses the model ("output_dtype INT8 does not match
 * y_zero_point type UINT8"; measured on PP-OCRv4's recognizer with an attention MatMul kept float).
 *
 * Here each such output gets the pair itself, with the scale and zero point of the DequantizeLinear it moves:
 * exact (the values a data-movement op passes on are already on that grid), and an edge that ends in a
 * QuantizeLinear is one onnxruntime does not propagate along. quantizeModel applies it to ai.onnx Q/DQ at
 * opset 21 and above only, where the refusal was seen (below, the user's kept-float sets stay free of Q/DQ).
 */
import { makeNode, type GraphProto, type NodeProto, type TensorProto } from '../onnx/index.ts';

/** The ops onnxruntime's QDQ propagation moves a DequantizeLinear past (first input, first output). */
const PROPAGATING = new Set(['MaxPool', 'Reshape', 'Transpose', 'Squeeze', 'Unsqueeze', 'Slice']);

/** A tensor of one element (onnxruntime propagates only scalar scales and zero points). */
const isScalar = (t: TensorProto | undefined) =>
  t !== undefined && (t.dims ?? []).reduce((a, d) => a * Number(d), 1) === 1;

/**
 * Returns `nodes` (in order) with a Q/DQ pair after every data-movement op that reads a per-tensor
 * DequantizeLinear and whose output no QuantizeLinear reads; its readers read the pair's output instead.
 * Graph outputs are left as they are.
 */
export function closePropagationChains(
  nodes: readonly NodeProto[],
  graph: GraphProto,
  initializers: readonly TensorProto[],
): NodeProto[] {
  const constants = new Map<string, TensorProto>();
  for (const t of [...graph.initializer, ...initializers]) constants.set(t.name ?? '', t);
  const outputs = new Set(graph.output.map((o) => o.name ?? ''));
  const taken = new Set<string>();
  for (const n of nodes) for (const t of [...n.input, ...n.output]) taken.add(t);
  const unique = (name: string) => {
    let k = 0;
    let out = name;
    while (taken.has(out)) out = `${name}_${++k}`;
    taken.add(out);
    return out;
  };

  const result = nodes.map((n) => ({ ...n, input: [...n.input] }));
  const producer = new Map<string, NodeProto>();
  for (const n of result) for (const o of n.output) producer.set(o, n);
  const readers = new Map<string, NodeProto[]>();
  for (const n of result) for (const i of n.input) if (i) readers.set(i, [...(readers.get(i) ?? []), n]);

  const out: NodeProto[] = [];
  for (const n of result) {
    out.push(n);
    if ((n.domain ?? '') !== '' || !PROPAGATING.has(n.op_type ?? '')) continue;
    const dq = producer.get(n.input[0]);
    if (!dq || dq.op_type !== 'DequantizeLinear') continue;
    const [, scale, zeroPoint] = dq.input;
    if (!isScalar(constants.get(scale)) || (zeroPoint && !isScalar(constants.get(zeroPoint)))) continue;
    const t = n.output[0];
    const after = readers.get(t) ?? [];
    if (outputs.has(t) || after.length === 0 || after.some((r) => r.op_type === 'QuantizeLinear')) continue;
    const params = zeroPoint ? [scale, zeroPoint] : [scale];
    const quantized = unique(`${t}_QuantizeLinear_Output`);
    const dequantized = unique(`${t}_DequantizeLinear_Output`);
    const q = makeNode(
      'QuantizeLinear',
      [t, ...params],
      [quantized],
      unique(`${t}_QuantizeLinear`),
      [],
      dq.domain ?? '',
    );
    const back = makeNode(
      'DequantizeLinear',
      [quantized, ...params],
      [dequantized],
      unique(`${t}_DequantizeLinear`),
      [],
      dq.domain ?? '',
    );
    out.push(q, back);
    producer.set(dequantized, back);
    for (const r of after) r.input = r.input.map((i) => (i === t ? dequantized : i));
    readers.set(dequantized, after);
    readers.set(t, [q]);
  }
  return out;
}
