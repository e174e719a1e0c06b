/**
 * The value of a Constant node as a tensor. Exporters put weights there as often as in initializers,
 * and Constant carries its value in one of several attributes (value, value_float, value_ints, …).
 */
import type { GraphProto, NodeProto, TensorProto } from './model.ts';
import { DataType } from './model.ts';
import { makeTensor, saturatingBigInt } from './tensorData.ts';

/** The tensor a Constant node produces, or undefined for forms that hold no dense numbers (strings, sparse). */
export function constantNodeTensor(node: NodeProto): TensorProto | undefined {
  const name = node.output[0] ?? '';
  for (const a of node.attribute) {
    switch (a.name) {
      case 'value':
        return a.t;
      case 'value_float':
        return makeTensor(name, DataType.FLOAT, [], Float32Array.of(a.f ?? 0));
      case 'value_floats':
        return makeTensor(name, DataType.FLOAT, [a.floats.length], Float32Array.from(a.floats));
      case 'value_int':
        return makeTensor(name, DataType.INT64, [], BigInt64Array.of(saturatingBigInt(a.i ?? 0)));
      case 'value_ints':
        return makeTensor(
          name,
          DataType.INT64,
          [a.ints.length],
          BigInt64Array.from(a.ints, (v) => saturatingBigInt(v)),
        );
    }
  }
  return undefined;
}

/** A graph's constants by name: its initializers and its (default-domain) Constant nodes' values. */
export function graphConstants(graph: GraphProto): Map<string, TensorProto> {
  const out = new Map<string, TensorProto>(graph.initializer.map((t) => [t.name ?? '', t]));
  for (const node of graph.node) {
    const value = node.op_type === 'Constant' && !node.domain ? constantNodeTensor(node) : undefined;
    if (value && node.output[0]) out.set(node.output[0], value);
  }
  return out;
}
