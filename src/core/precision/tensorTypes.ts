/**
 * The element type of every tensor of a graph, inferred forward from what the file states (graph inputs,
 * initializers, Constant values, value_info) through each op's type rule. Changing the float precision of
 * part of a graph (float16 ↔ float32, bfloat16 round trips) needs to know which tensors are float and of
 * which width; the precision code never guesses beyond these rules, and a tensor it cannot type is left
 * alone. Ops not listed take the type of their first input, which is the rule of most float ops.
 */
import { DataType, type GraphProto, type NodeProto } from '../onnx/index.ts';
import { constantValue, findAttribute } from '../prepare/attributes.ts';

/** Outputs of these ops are int64 whatever their inputs. */
const INT64_OUTPUTS = new Set(['Shape', 'Size', 'NonZero', 'ArgMax', 'ArgMin', 'NonMaxSuppression']);
/** Outputs of these ops are bool. */
const BOOL_OUTPUTS = new Set(['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual', 'Not', 'And', 'Or', 'Xor', 'IsNaN', 'IsInf']);
/** Ops whose second output is int64 indices (the first has the data's type). */
const INDICES_SECOND = new Set(['TopK', 'MaxPool', 'Unique']);

/** Element types of a graph's tensors by name (DataType codes); tensors it cannot type are absent. */
export function inferElementTypes(graph: GraphProto, outer?: ReadonlyMap<string, number>): Map<string, number> {
  const types = new Map<string, number>(outer);
  const declare = (name: string | undefined, type: number | undefined) => {
    if (name && type) types.set(name, type);
  };
  for (const v of graph.input) declare(v.name, v.type?.tensor_type?.elem_type);
  for (const t of graph.initializer) declare(t.name, t.data_type);
  const declared = new Map<string, number>();
  for (const v of [...graph.value_info, ...graph.output]) {
    const e = v.type?.tensor_type?.elem_type;
    if (v.name && e) declared.set(v.name, e);
  }
  for (const node of graph.node) {
    const outs = outputTypes(node, (name) => types.get(name));
    node.output.forEach((o, k) => declare(o, outs[k] ?? declared.get(o)));
  }
  return types;
}

/** The element types of a node's outputs, by position (undefined where unknown). */
export function outputTypes(node: NodeProto, typeOf: (name: string) => number | undefined): (number | undefined)[] {
  const op = node.op_type ?? '';
  const first = node.input[0] ? typeOf(node.input[0]) : undefined;
  const all = (t: number | undefined) => node.output.map(() => t);
  if (node.domain && node.domain !== 'ai.onnx') {
    if (node.domain === 'com.microsoft' && op === 'DequantizeLinear') return all(typeOf(node.input[1]));
    if (node.domain === 'com.microsoft' && op === 'QuantizeLinear') return all(node.input[2] ? typeOf(node.input[2]) : DataType.UINT8);
    return all(undefined);
  }
  if (op === 'Cast') return all(findAttribute(node, 'to')?.i);
  if (op === 'CastLike') return all(typeOf(node.input[1]));
  if (op === 'Constant') return all(constantValue(node)?.data_type);
  if (op === 'ConstantOfShape') return all(findAttribute(node, 'value')?.t?.data_type ?? DataType.FLOAT);
  if (op === 'DequantizeLinear') return all(typeOf(node.input[1]));
  if (op === 'QuantizeLinear') return all(node.input[2] ? typeOf(node.input[2]) : DataType.UINT8);
  if (op === 'Where') return all(typeOf(node.input[1]));
  if (INT64_OUTPUTS.has(op)) return all(DataType.INT64);
  if (BOOL_OUTPUTS.has(op)) return all(DataType.BOOL);
  if (INDICES_SECOND.has(op)) return node.output.map((_, k) => (k === 0 ? first : DataType.INT64));
  if (op === 'Dropout') return node.output.map((_, k) => (k === 0 ? first : DataType.BOOL));
  if (op === 'If' || op === 'Loop' || op === 'Scan') return all(undefined);
  return all(first);
}

/** Whether a DataType code is float32 or float16 (the precisions this module converts between). */
export function isConvertibleFloat(type: number | undefined): type is 1 | 10 {
  return type === DataType.FLOAT || type === DataType.FLOAT16;
}
