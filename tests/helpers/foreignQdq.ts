/**
 * QDQ models written the way other tools write them, built in code from a float fixture, so tests can check that
 * the studio reads any QDQ file as quantized (not only its own). The conventions, read from ONNX Runtime's
 * python/tools/quantization (qdq_quantizer.py, quant_utils.py, onnx_quantizer.py) and Quark's ONNX quantizer,
 * which extends it:
 * - an activation T gets `T_QuantizeLinear` → `T_QuantizeLinear_Output` → `T_DequantizeLinear` →
 *   `T_DequantizeLinear_Output` (read by the consumers), with initializers `T_scale` and `T_zero_point`; a graph
 *   output keeps its name on the DQ's output and its producer writes `T_QuantizeLinear_Input` instead;
 * - a weight W is stored as integers in `W_quantized` with `W_scale` and `W_zero_point`, read through one
 *   `W_DequantizeLinear` (no Q) into `W_DequantizeLinear_Output`; per channel the scale and zero point hold one
 *   value a channel and the DQ has `axis` (0 for Conv);
 * - a bias B is stored as int32 in `B_quantized`, scale input scale × weight scale in `B_quantized_scale`, zero
 *   points int32 zeros in `B_quantized_zero_point`, and its `B_DequantizeLinear` writes the original name B;
 * - ONNX Runtime (U8S8, per_channel): uint8 asymmetric activations, int8 symmetric per-channel weights. Quark
 *   XINT8: int8 symmetric activations and per-tensor weights, power-of-two scales. Quark A16W8: its Extended
 *   Q/DQ (`ExtendedQuantizeLinear` in domain com.amd.quark) with int16 activations, int8 weights.
 * Ranges are stand-ins (activations -2…6, graph inputs 0…1): structure and parameters are real, accuracy is not
 * the point. The graph is prepared first as both tools' pre-processing does (BatchNormalization folded, opset 13).
 */
import {
  DataType,
  intAttribute,
  makeNode,
  makeTensor,
  readTensorAsFloat32,
  type ModelProto,
  type NodeProto,
  type TensorProto,
} from '../../src/core/onnx/index.ts';
import { inferElementTypes } from '../../src/core/onnx/elementTypeInference.ts';
import { prepare } from '../../src/core/prepare/prepare.ts';

export type ForeignStyle = 'ort' | 'quark-xint8' | 'quark-a16w8';

/** Ops whose float activation inputs the tools quantize (inputs that are not initializers). */
const QUANTIZED_OPS = new Set([
  'Conv',
  'Relu',
  'MaxPool',
  'AveragePool',
  'GlobalAveragePool',
  'Add',
  'Mul',
  'Concat',
  'Softmax',
  'Sigmoid',
  'MatMul',
  'Gemm',
]);
/** Of these, only the first input is an activation (the others are shapes, axes, …). */
const FIRST_INPUT_ONLY = new Set([
  'Conv',
  'Gemm',
  'MatMul',
  'Relu',
  'MaxPool',
  'AveragePool',
  'GlobalAveragePool',
  'Softmax',
  'Sigmoid',
]);

interface Activation {
  type: number;
  scale: number;
  zeroPoint: number;
}

const round = (x: number) => Math.round(x);
const pow2 = (s: number) => 2 ** Math.ceil(Math.log2(s));

function activationParams(style: ForeignStyle, min: number, max: number): Activation {
  if (style === 'ort') {
    const lo = Math.min(0, min),
      hi = Math.max(0, max);
    const scale = (hi - lo) / 255;
    return { type: DataType.UINT8, scale, zeroPoint: Math.min(255, Math.max(0, round(-lo / scale))) };
  }
  const bound = Math.max(Math.abs(min), Math.abs(max));
  if (style === 'quark-xint8') return { type: DataType.INT8, scale: pow2(bound / 127), zeroPoint: 0 };
  return { type: DataType.INT16, scale: bound / 32767, zeroPoint: 0 };
}

function integers(type: number, values: number[]) {
  if (type === DataType.UINT8) return Uint8Array.from(values);
  if (type === DataType.INT8) return Int8Array.from(values);
  if (type === DataType.INT16) return Int16Array.from(values);
  return Int32Array.from(values);
}

/** `float` written as `style` writes it. */
export function foreignQdq(float: ModelProto, style: ForeignStyle): ModelProto {
  const prepared = prepare(float, { targetOpset: 13 }).model;
  const graph = prepared.graph!;
  const initializers = new Map(graph.initializer.map((t) => [t.name ?? '', t]));
  const graphOutputs = new Set(graph.output.map((o) => o.name ?? ''));
  const graphInputs = new Set(graph.input.map((i) => i.name ?? ''));
  const extended = style === 'quark-a16w8';
  const [qOp, dqOp, domain] = extended
    ? ['ExtendedQuantizeLinear', 'ExtendedDequantizeLinear', 'com.amd.quark']
    : ['QuantizeLinear', 'DequantizeLinear', ''];
  const perChannel = style === 'ort';

  // Which activations are quantized: the float, non-constant inputs of the ops the tools quantize.
  const types = inferElementTypes(graph);
  const isFloat = (t: string) => types.get(t) === DataType.FLOAT;
  const quantized = new Set<string>();
  for (const n of graph.node) {
    if (!QUANTIZED_OPS.has(n.op_type ?? '')) continue;
    const inputs = FIRST_INPUT_ONLY.has(n.op_type ?? '') ? n.input.slice(0, 1) : n.input;
    for (const t of inputs) if (t && !initializers.has(t) && isFloat(t)) quantized.add(t);
  }
  for (const o of graphOutputs)
    if (isFloat(o) && graph.node.some((n) => n.output.includes(o) && QUANTIZED_OPS.has(n.op_type ?? '')))
      quantized.add(o);

  const added: TensorProto[] = [];
  const params = new Map<string, Activation>();
  const pairFor = (t: string): NodeProto[] => {
    const p = activationParams(style, graphInputs.has(t) ? 0 : -2, graphInputs.has(t) ? 1 : 6);
    params.set(t, p);
    added.push(
      makeTensor(`${t}_scale`, DataType.FLOAT, [], Float32Array.of(p.scale)),
      makeTensor(`${t}_zero_point`, p.type, [], integers(p.type, [p.zeroPoint])),
    );
    const isOutput = graphOutputs.has(t);
    const input = isOutput ? `${t}_QuantizeLinear_Input` : t;
    const output = isOutput ? t : `${t}_DequantizeLinear_Output`;
    return [
      makeNode(
        qOp,
        [input, `${t}_scale`, `${t}_zero_point`],
        [`${t}_QuantizeLinear_Output`],
        `${t}_QuantizeLinear`,
        [],
        domain,
      ),
      makeNode(
        dqOp,
        [`${t}_QuantizeLinear_Output`, `${t}_scale`, `${t}_zero_point`],
        [output],
        `${t}_DequantizeLinear`,
        [],
        domain,
      ),
    ];
  };
  const reads = (t: string) => (quantized.has(t) && !graphOutputs.has(t) ? `${t}_DequantizeLinear_Output` : t);
  const writes = (t: string) => (quantized.has(t) && graphOutputs.has(t) ? `${t}_QuantizeLinear_Input` : t);

  const nodes: NodeProto[] = [];
  for (const i of graph.input) if (quantized.has(i.name ?? '')) nodes.push(...pairFor(i.name!));
  const dropped = new Set<string>();
  for (const n of graph.node) {
    const inputs = n.input.map((t) => (t && !initializers.has(t) ? reads(t) : t));
    if ((n.op_type === 'Conv' || n.op_type === 'Gemm') && initializers.get(n.input[1])?.data_type === DataType.FLOAT) {
      const axis = perChannel && n.op_type === 'Conv' ? 0 : undefined;
      const w = weightDq(initializers.get(n.input[1])!, axis, style, dqOp, domain);
      nodes.push(w.node);
      added.push(...w.tensors);
      dropped.add(n.input[1]);
      inputs[1] = w.node.output[0];
      const bias = initializers.get(n.input[2] ?? '');
      const inScale = params.get(n.input[0]) ?? activationParams(style, -2, 6);
      if (bias?.data_type === DataType.FLOAT) {
        const b = biasDq(bias, inScale.scale, w.scales, axis, dqOp, domain);
        nodes.push(b.node);
        added.push(...b.tensors);
        dropped.add(n.input[2]);
      }
    }
    nodes.push({ ...n, input: inputs, output: n.output.map(writes) });
    for (const o of n.output) if (quantized.has(o)) nodes.push(...pairFor(o));
  }

  const opsets = prepared.opset_import.filter((o) => o.domain !== 'com.amd.quark');
  if (extended) opsets.push({ domain: 'com.amd.quark', version: 1 });
  return {
    ...prepared,
    producer_name: style === 'ort' ? 'onnx.quantize' : 'quark.onnx',
    producer_version: style === 'ort' ? '0.1.0' : '0.10',
    opset_import: opsets,
    graph: {
      ...graph,
      node: nodes,
      initializer: [...graph.initializer.filter((t) => !dropped.has(t.name ?? '')), ...added],
    },
  };
}

/** A weight as integers and its DequantizeLinear: int8 symmetric, per channel along `axis` or per tensor. */
function weightDq(weight: TensorProto, axis: number | undefined, style: ForeignStyle, dqOp: string, domain: string) {
  const name = weight.name ?? '';
  const values = readTensorAsFloat32(weight);
  const dims = weight.dims.map(Number);
  const channels = axis === undefined ? 1 : dims[0];
  const per = values.length / channels;
  const scales = Array.from({ length: channels }, (_, c) => {
    let m = 0;
    for (let k = c * per; k < (c + 1) * per; k++) m = Math.max(m, Math.abs(values[k]));
    const s = (m || 1) / 127;
    return style === 'ort' ? s : pow2(s);
  });
  const codes = Array.from(values, (v, k) => Math.max(-128, Math.min(127, round(v / scales[Math.floor(k / per)]))));
  const shape = axis === undefined ? [] : [channels];
  const tensors = [
    makeTensor(`${name}_quantized`, DataType.INT8, dims, Int8Array.from(codes)),
    makeTensor(`${name}_scale`, DataType.FLOAT, shape, Float32Array.from(scales)),
    makeTensor(`${name}_zero_point`, DataType.INT8, shape, new Int8Array(channels)),
  ];
  const node = makeNode(
    dqOp,
    [`${name}_quantized`, `${name}_scale`, `${name}_zero_point`],
    [`${name}_DequantizeLinear_Output`],
    `${name}_DequantizeLinear`,
    axis === undefined ? [] : [intAttribute('axis', axis)],
    domain,
  );
  return { node, tensors, scales };
}

/** A bias as int32 at scale input × weight scale, read through a DequantizeLinear that writes its own name. */
function biasDq(
  bias: TensorProto,
  inputScale: number,
  weightScales: number[],
  axis: number | undefined,
  dqOp: string,
  domain: string,
) {
  const name = bias.name ?? '';
  const values = readTensorAsFloat32(bias);
  const scales = Array.from(values, (_, c) => inputScale * weightScales[weightScales.length === 1 ? 0 : c]);
  const shared = axis === undefined;
  const shape = shared ? [] : [values.length];
  const tensors = [
    makeTensor(
      `${name}_quantized`,
      DataType.INT32,
      bias.dims.map(Number),
      Int32Array.from(values, (v, c) => round(v / scales[c])),
    ),
    makeTensor(
      `${name}_quantized_scale`,
      DataType.FLOAT,
      shape,
      Float32Array.from(shared ? scales.slice(0, 1) : scales),
    ),
    makeTensor(`${name}_quantized_zero_point`, DataType.INT32, shape, new Int32Array(shared ? 1 : values.length)),
  ];
  const node = makeNode(
    dqOp,
    [`${name}_quantized`, `${name}_quantized_scale`, `${name}_quantized_zero_point`],
    [name],
    `${name}_DequantizeLinear`,
    shared ? [] : [intAttribute('axis', 0)],
    domain,
  );
  return { node, tensors };
}
