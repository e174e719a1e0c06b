/**
 * The model types the rest of the code sees: ONNX's own messages (generated from onnx.proto, field
 * names as in the schema), plus the branded NodeId so that a derived node id and a node's `name` as the
 * file writes it cannot be mixed up.
 *
 * Decoded models keep every tensor's data in `raw_data` (decode.ts moves the typed fields there), so
 * code that reads weights has one place to look.
 */
import type * as schema from './proto/onnx.ts';
import { AttributeProto_AttributeType, TensorProto_DataType } from './proto/onnx.ts';

export type AttributeProto = schema.AttributeProto;
export type GraphProto = schema.GraphProto;
export type ModelProto = schema.ModelProto;
export type NodeProto = schema.NodeProto;
export type OperatorSetIdProto = schema.OperatorSetIdProto;
export type TensorProto = schema.TensorProto;
export type TensorShapeProto = schema.TensorShapeProto;
export type TypeProto = schema.TypeProto;
export type ValueInfoProto = schema.ValueInfoProto;
export { AttributeProto_AttributeType as AttributeType, TensorProto_DataType as DataType };

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

/**
 * The stable, unique id every node gets on load, shared by the UI, exclusions and reports. Branded because
 * it is derived (a node's `name` when that is unique and non-empty, else a generated one) and must not be
 * mixed up with the `name` field as written in the file. Tensor names need no brand: they are the file's own
 * strings (node inputs and outputs, initializer names), used as they are.
 */
export type NodeId = Brand<string, 'NodeId'>;

export const nodeId = (s: string): NodeId => s as NodeId;

/** The default ONNX domain, written either as '' or 'ai.onnx'. */
export function isDefaultDomain(domain: string | undefined): boolean {
  return !domain || domain === 'ai.onnx';
}

/** The opset version the model imports for a domain, or undefined. */
export function opsetOf(model: ModelProto, domain = ''): number | undefined {
  for (const o of model.opset_import) {
    if (isDefaultDomain(domain) ? isDefaultDomain(o.domain) : o.domain === domain) return Number(o.version ?? 0);
  }
  return undefined;
}

/** A node built in code (quantizer, augmentation), with every repeated field present. */
export function makeNode(
  opType: string,
  inputs: string[],
  outputs: string[],
  name = '',
  attributes: AttributeProto[] = [],
  domain = '',
): NodeProto {
  const node: NodeProto = {
    op_type: opType,
    input: inputs,
    output: outputs,
    attribute: attributes,
    metadata_props: [],
    device_configurations: [],
  };
  if (name) node.name = name;
  if (domain) node.domain = domain;
  return node;
}

/** An INT attribute. */
export function intAttribute(name: string, value: number): AttributeProto {
  return emptyAttribute(name, AttributeProto_AttributeType.INT, { i: value });
}

/** An INTS attribute. */
export function intsAttribute(name: string, values: readonly number[]): AttributeProto {
  return emptyAttribute(name, AttributeProto_AttributeType.INTS, { ints: [...values] });
}

/** A FLOAT attribute. */
export function floatAttribute(name: string, value: number): AttributeProto {
  return emptyAttribute(name, AttributeProto_AttributeType.FLOAT, { f: value });
}

/** A STRING attribute. */
export function stringAttribute(name: string, value: string): AttributeProto {
  return emptyAttribute(name, AttributeProto_AttributeType.STRING, { s: new TextEncoder().encode(value) });
}

/** A FLOATS attribute. */
export function floatsAttribute(name: string, values: readonly number[]): AttributeProto {
  return emptyAttribute(name, AttributeProto_AttributeType.FLOATS, { floats: [...values] });
}

/** A TENSOR attribute (a Constant's value). */
export function tensorAttribute(name: string, t: TensorProto): AttributeProto {
  return emptyAttribute(name, AttributeProto_AttributeType.TENSOR, { t });
}

/** A GRAPH attribute (If's branches, Loop's body). */
export function graphAttribute(name: string, g: GraphProto): AttributeProto {
  return emptyAttribute(name, AttributeProto_AttributeType.GRAPH, { g });
}

/** An attribute of `type` with every repeated field present (the shape decode gives). */
export function emptyAttribute(name: string, type: number, fields: Partial<AttributeProto>): AttributeProto {
  return {
    name,
    type,
    floats: [],
    ints: [],
    strings: [],
    tensors: [],
    graphs: [],
    sparse_tensors: [],
    type_protos: [],
    ...fields,
  };
}

/** A graph input or output description of a dense tensor with the given element type and shape. */
export function makeValueInfo(name: string, elemType: number, shape?: (number | string)[]): ValueInfoProto {
  const tensorType: NonNullable<TypeProto['tensor_type']> = { elem_type: elemType };
  if (shape) {
    tensorType.shape = {
      dim: shape.map((d) => (typeof d === 'number' ? { dim_value: d } : { dim_param: d })),
    };
  }
  return { name, type: { tensor_type: tensorType }, metadata_props: [] };
}

/** A fresh graph with every repeated field present. */
export function makeGraph(parts: Partial<GraphProto> & Pick<GraphProto, 'node' | 'input' | 'output'>): GraphProto {
  return {
    initializer: [],
    sparse_initializer: [],
    value_info: [],
    quantization_annotation: [],
    metadata_props: [],
    ...parts,
  };
}

/** A fresh model around a graph. */
export function makeModel(graph: GraphProto, opsets: Record<string, number> = { '': 13 }, irVersion = 8): ModelProto {
  return {
    ir_version: irVersion,
    producer_name: 'quant-studio',
    opset_import: Object.entries(opsets).map(([domain, version]) => ({ domain, version })),
    graph,
    metadata_props: [],
    training_info: [],
    functions: [],
    configuration: [],
  };
}
