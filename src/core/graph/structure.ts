/**
 * A weight-less structural copy of a graph, for the page: the graph view needs every node, tensor
 * name, shape and attribute (and builds the same GraphIndex, so the same stable node ids, and resolves
 * exclusions with the same core code), but not the weights, which stay in the model worker
 * (docs/ARCHITECTURE.md, principle 8). Tensors keep name, type and dims; only small ones (scalars, short
 * vectors that a reader wants to see, like a Mul's 0.1) keep their bytes, and so do the scales and zero points of
 * Q/DQ nodes whatever their size (per channel, one per channel): the view reads a QDQ model from them (qdqFold.ts).
 *
 * Every byte string left in the copy (small tensors, string attributes such as auto_pad) is copied out of the
 * model's buffer: a view would make a structured clone carry the whole file along, and would go empty on the
 * page once the file's buffer is transferred to the model worker after the page drew from it.
 */
import type { AttributeProto, GraphProto, NodeProto, TensorProto } from '../onnx/model.ts';
import { makeGraph } from '../onnx/model.ts';
import { emptyTensor } from '../onnx/tensorData.ts';
import { repeatedFields } from '../onnx/schemaDecoder.ts';

/** Tensors up to this many bytes keep their data in the copy. */
export const SMALL_TENSOR_BYTES = 64;
/** Q/DQ scales and zero points up to this many bytes keep their data. */
export const QDQ_PARAMETER_BYTES = 1 << 18;

const QDQ_OPS = new Set(['QuantizeLinear', 'DequantizeLinear', 'ExtendedQuantizeLinear', 'ExtendedDequantizeLinear']);
/** The inputs that hold scales and zero points, by op (Q/DQ and ONNX Runtime's QOperator/dynamic integer ops). */
const PARAMETER_INPUTS: Record<string, readonly number[]> = {
  ConvInteger: [2, 3],
  MatMulInteger: [2, 3],
  QLinearConv: [1, 2, 4, 5, 6, 7],
  QLinearMatMul: [1, 2, 4, 5, 6, 7],
};

/** Names of the scales and zero points the graph's Q/DQ nodes and integer ops read. */
function qdqParameters(graph: GraphProto): Set<string> {
  const names = new Set<string>();
  for (const n of graph.node) {
    const inputs = QDQ_OPS.has(n.op_type ?? '') ? [1, 2] : PARAMETER_INPUTS[n.op_type ?? ''];
    for (const k of inputs ?? []) if (n.input[k]) names.add(n.input[k]);
  }
  return names;
}

function tensorShell(t: TensorProto, keep = false): TensorProto {
  const limit = keep ? QDQ_PARAMETER_BYTES : SMALL_TENSOR_BYTES;
  const small = t.raw_data !== undefined && t.raw_data.byteLength <= limit && t.external_data.length === 0;
  const shell = emptyTensor(t.dims);
  if (t.name !== undefined) shell.name = t.name;
  if (t.data_type !== undefined) shell.data_type = t.data_type;
  if (small) shell.raw_data = t.raw_data!.slice();
  return shell;
}

function attributeShell(a: AttributeProto, keep = false): AttributeProto {
  const copy: AttributeProto = {
    ...a,
    strings: a.strings.map((s) => s.slice()),
    tensors: a.tensors.map((t) => tensorShell(t)),
    graphs: a.graphs.map(weightlessGraph),
    sparse_tensors: [],
  };
  if (copy.s) copy.s = copy.s.slice();
  if (a.t) copy.t = tensorShell(a.t, keep);
  if (a.g) copy.g = weightlessGraph(a.g);
  delete copy.sparse_tensor;
  return copy;
}

function nodeShell(n: NodeProto, keep: Set<string>): NodeProto {
  const keepValue = n.op_type === 'Constant' && n.output.some((o) => keep.has(o));
  return {
    ...n,
    input: [...n.input],
    output: [...n.output],
    attribute: n.attribute.map((a) => attributeShell(a, keepValue)),
  };
}

/** The graph without its weights' bytes (subgraphs included); everything else is kept. */
export function weightlessGraph(graph: GraphProto): GraphProto {
  const keep = qdqParameters(graph);
  return {
    ...graph,
    node: graph.node.map((n) => nodeShell(n, keep)),
    initializer: graph.initializer.map((t) => tensorShell(t, keep.has(t.name ?? ''))),
    sparse_initializer: [],
    input: graph.input,
    output: graph.output,
    value_info: graph.value_info,
  };
}

/** Nodes a part of the structure carries (structurePart): each part is one message, one task on the page. */
export const STRUCTURE_PART_NODES = 8000;

/** The repeated fields every decoded node, attribute and tensor carries as an array, most of them empty. */
const NODE_LISTS = repeatedFields('onnx.NodeProto');
const ATTRIBUTE_LISTS = repeatedFields('onnx.AttributeProto');
const TENSOR_LISTS = repeatedFields('onnx.TensorProto');

/** A copy of `message` without its empty lists (what structured cloning need not carry); its other fields as they are. */
function withoutEmptyLists<T extends object>(message: T): T {
  const m = message as Record<string, unknown>;
  const lean: Record<string, unknown> = {};
  for (const key in m) {
    const value = m[key];
    if (!(Array.isArray(value) && value.length === 0)) lean[key] = value;
  }
  return lean as T;
}

/** `message` (a copy received from a worker) with each of `lists` it lacks given back as an empty array. */
function withLists<T extends object>(message: T, lists: readonly string[]): T {
  const m = message as Record<string, unknown>;
  for (const key of lists) if (m[key] === undefined) m[key] = [];
  return message;
}

/**
 * A node or tensor as a structure part carries it: without its empty lists. A 67,000-node QDQ structure holds some
 * 800,000 empty arrays (nine a tensor shell, five a node, seven an attribute): cloning them doubled the bytes a part
 * carries and made the page allocate every one of them again. joinStructureParts gives them back.
 */
function leanNode(n: NodeProto): NodeProto {
  const lean = withoutEmptyLists(n);
  if (n.attribute.length) lean.attribute = n.attribute.map(withoutEmptyLists);
  return lean;
}

function restoredNode(n: NodeProto): NodeProto {
  withLists(n, NODE_LISTS);
  for (const a of n.attribute) withLists(a, ATTRIBUTE_LISTS);
  return n;
}

/**
 * Part `part` of a structure split for the page: its slice of the nodes, initializers and value infos (the same
 * share of each), part 0 with every other field too; its nodes, their attributes and its tensors without their empty
 * lists, for joinStructureParts to give back. `parts`: how many there are. One structured clone of a
 * 67,000-node structure is a 0.5–1 s task on the page; the parts are that many short ones.
 */
export function structurePart(
  graph: GraphProto,
  part: number,
  partNodes = STRUCTURE_PART_NODES,
): { graph: GraphProto; parts: number } {
  const parts = Math.max(1, Math.ceil(graph.node.length / partNodes));
  const slice = <T>(xs: T[]) => {
    const size = Math.ceil(xs.length / parts);
    return xs.slice(part * size, (part + 1) * size);
  };
  const arrays = {
    node: slice(graph.node).map(leanNode),
    initializer: slice(graph.initializer).map(withoutEmptyLists),
    value_info: slice(graph.value_info),
  };
  if (part === 0) return { graph: { ...graph, ...arrays }, parts };
  return { graph: makeGraph({ ...arrays, input: [], output: [] }), parts };
}

/** The structure again from its parts, in order (their nodes', attributes' and tensors' empty lists given back). */
export function joinStructureParts(parts: readonly GraphProto[]): GraphProto {
  return {
    ...parts[0],
    node: parts.flatMap((p) => p.node.map(restoredNode)),
    initializer: parts.flatMap((p) => p.initializer.map((t) => withLists(t, TENSOR_LISTS))),
    value_info: parts.flatMap((p) => p.value_info),
  };
}
