/**
 * Reading and rewriting node attributes without touching the node they belong to. Transforms copy a node
 * before changing it (the input model stays as it was), so every helper here returns new arrays.
 *
 * 64-bit integers: the decoder gives int64 attributes as JS numbers, so INT64_MAX (the usual "to the end"
 * of Slice-1) arrives as 2**63, which BigInt64Array would wrap to INT64_MIN. `toInt64` saturates instead.
 */
import type { AttributeProto, NodeProto, TensorProto } from '../onnx/index.ts';
import { DataType, constantNodeTensor, makeTensor } from '../onnx/index.ts';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** A decoded int64 as a bigint, saturated to the int64 range (2**63 from INT64_MAX becomes INT64_MAX again). */
export function toInt64(v: number | bigint): bigint {
  const b = typeof v === 'bigint' ? v : BigInt(Math.trunc(v));
  return b > INT64_MAX ? INT64_MAX : b < INT64_MIN ? INT64_MIN : b;
}

/**
 * The value of a Constant node as a dense tensor (constantNodeTensor), with value_int/value_ints saturated
 * to the int64 range: constantNodeTensor converts them with BigInt() and a decoded INT64_MAX (2**63) would
 * wrap to INT64_MIN in the BigInt64Array.
 */
export function constantValue(node: NodeProto): TensorProto | undefined {
  const t = constantNodeTensor(node);
  const ints = node.attribute.find((a) => a.name === 'value_int' || a.name === 'value_ints');
  if (!t || !ints) return t;
  const values = ints.name === 'value_int' ? [ints.i ?? 0] : ints.ints;
  return makeTensor(t.name ?? '', DataType.INT64, t.dims.map(Number), BigInt64Array.from(values, toInt64));
}

export function findAttribute(node: NodeProto, name: string): AttributeProto | undefined {
  return node.attribute.find((a) => a.name === name);
}

export function intOf(node: NodeProto, name: string): number | undefined {
  const a = findAttribute(node, name);
  return a && a.i !== undefined ? Number(a.i) : undefined;
}

export function intsOf(node: NodeProto, name: string): number[] | undefined {
  const a = findAttribute(node, name);
  return a ? a.ints.map(Number) : undefined;
}

export function floatOf(node: NodeProto, name: string): number | undefined {
  const a = findAttribute(node, name);
  return a && a.f !== undefined ? a.f : undefined;
}

export function floatsOf(node: NodeProto, name: string): number[] | undefined {
  const a = findAttribute(node, name);
  return a ? [...a.floats] : undefined;
}

export function stringOf(node: NodeProto, name: string): string | undefined {
  const a = findAttribute(node, name);
  return a?.s ? new TextDecoder().decode(a.s) : undefined;
}

export {
  floatAttribute,
  floatsAttribute,
  graphAttribute,
  intAttribute,
  intsAttribute,
  stringAttribute,
  tensorAttribute,
} from '../onnx/index.ts';

/** A copy of `node` with the given fields replaced (attributes, inputs, … are new arrays when given). */
export function editNode(node: NodeProto, changes: Partial<NodeProto>): NodeProto {
  return { ...node, input: [...node.input], output: [...node.output], attribute: [...node.attribute], ...changes };
}

/** `node`'s attributes without those named. */
export function attributesWithout(node: NodeProto, ...names: string[]): AttributeProto[] {
  return node.attribute.filter((a) => !names.includes(a.name ?? ''));
}

/** `node`'s attributes with `attr` set (replacing one of the same name, else appended). */
export function attributesWith(node: NodeProto, attr: AttributeProto, ...without: string[]): AttributeProto[] {
  return [...attributesWithout(node, attr.name ?? '', ...without), attr];
}
