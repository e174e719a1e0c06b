/**
 * Makes a set of nodes compute in another float precision (float32 ↔ float16), with a Cast at every border.
 *
 * One routine serves every precision change the studio makes: the guide's convert_fp16_to_fp32 (the whole
 * model, or only `subgraphs_to_include`), putting the float16 parts of an FP16 source model back after
 * quantization, and float32 → float16 copies of test models. Inside the region, every float tensor of the
 * other width becomes `to`: initializers only the region reads are converted in place, Cast and Constant
 * values follow. Every reader that expects the other width (a node outside the region, a graph output
 * whose type stays) reads a Cast instead, made once per tensor and placed before its first reader, so the
 * node order stays topological. Inputs that ONNX types as float32 whatever the data (Resize's scales) are
 * never converted. Node names are kept; new Casts get names derived from their tensor.
 */
import { DataType, makeNode, intAttribute, type GraphProto, type NodeProto, type TensorProto } from '../onnx/index.ts';
import { makeTensor, readTensorAsFloat32 } from '../onnx/tensorData.ts';
import { numberToFloat16 } from '../onnx/halfFloat.ts';
import { UnsupportedModelError } from '../onnx/errors.ts';
import { NameAllocator } from '../prepare/names.ts';
import { inferElementTypes } from '../onnx/elementTypeInference.ts';
import { isConvertibleFloat } from './tensorTypes.ts';

/** Inputs that stay float32 in every precision: op type → input positions (Resize-11+ scales, Upsample scales). */
const FLOAT32_INPUTS: Readonly<Record<string, readonly number[]>> = { Resize: [2], Upsample: [1] };

/** Whether input `k` of `node` is typed float32 by ONNX whatever the model's precision. */
export function isFixedFloat32Input(node: NodeProto, k: number, opset: number): boolean {
  if (node.op_type === 'Resize' && opset < 11) return k === 1;
  return FLOAT32_INPUTS[node.op_type ?? '']?.includes(k) ?? false;
}

export interface CastRegionOptions {
  /** The nodes to convert (objects of `graph.node`). */
  region: ReadonlySet<NodeProto>;
  /** Their new float type. */
  to: typeof DataType.FLOAT | typeof DataType.FLOAT16;
  /** The ai.onnx opset (where Resize's scales sit depends on it). */
  opset: number;
  /** Graph inputs and outputs whose declared type changes (name → new type); the rest keep theirs. */
  io?: ReadonlyMap<string, number>;
}

const TYPE_SUFFIX: Record<number, string> = { [DataType.FLOAT]: 'fp32', [DataType.FLOAT16]: 'fp16' };

/** The graph with `region` computing in `to`; see the module comment. Throws UnsupportedModelError on control flow. */
export function castRegion(graph: GraphProto, options: CastRegionOptions): GraphProto {
  const { region, to, opset } = options;
  const from = to === DataType.FLOAT ? DataType.FLOAT16 : DataType.FLOAT;
  for (const n of region) {
    if (n.attribute.some((a) => a.g || a.graphs.length)) {
      throw new UnsupportedModelError(
        `node ${n.name || n.op_type} holds a subgraph: changing the float precision inside If/Loop/Scan is not supported`,
      );
    }
  }
  const before = inferElementTypes(graph, { opset });
  const io = options.io ?? new Map<string, number>();
  const have = new Map<string, number>(before);

  // Graph inputs whose type changes.
  const input = graph.input.map((v) => {
    const t = io.get(v.name ?? '');
    if (t === undefined || t === before.get(v.name ?? '')) return v;
    have.set(v.name!, t);
    return withElemType(v, t);
  });

  // Initializers read only by the region (outside fixed-float32 slots) are converted in place.
  const readers = new Map<string, { inside: number; outside: number }>();
  graph.node.forEach((n) =>
    n.input.forEach((t, k) => {
      if (!t) return;
      const r = readers.get(t) ?? { inside: 0, outside: 0 };
      if (region.has(n) && !isFixedFloat32Input(n, k, opset)) r.inside++;
      else r.outside++;
      readers.set(t, r);
    }),
  );
  const outputNames = new Set(graph.output.map((o) => o.name ?? ''));
  const initializer = graph.initializer.map((t) => {
    const r = readers.get(t.name ?? '');
    if (t.data_type !== from || !r || r.outside > 0 || outputNames.has(t.name ?? '')) return t;
    have.set(t.name!, to);
    return convertTensor(t, to);
  });

  // Initializers listed as graph inputs too (IR < 4 models) are declared with their new type.
  const convertedInputs = new Set(initializer.filter((t, k) => t !== graph.initializer[k]).map((t) => t.name ?? ''));
  for (let k = 0; k < input.length; k++)
    if (convertedInputs.has(input[k].name ?? '')) input[k] = withElemType(input[k], to);

  // Node outputs: every float output of a region node takes the new type.
  const nodesOut: NodeProto[] = [];
  const casts = new Map<string, string>();
  const names = new NameAllocator();
  names.addGraph(graph);
  const unique = (base: string) => names.fresh(base);
  /** The name of `tensor` as type `type`: itself, or a Cast emitted now (once). */
  const as = (tensor: string, type: number): string => {
    const current = have.get(tensor);
    if (!isConvertibleFloat(current) || current === type) return tensor;
    const key = `${tensor}\u0000${type}`;
    let name = casts.get(key);
    if (!name) {
      name = unique(`${tensor}_${TYPE_SUFFIX[type]}`);
      casts.set(key, name);
      nodesOut.push(
        makeNode('Cast', [tensor], [name], unique(`${tensor}_Cast_${TYPE_SUFFIX[type]}`), [intAttribute('to', type)]),
      );
      have.set(name, type);
    }
    return name;
  };

  for (const n of graph.node) {
    const inside = region.has(n);
    const inputs = n.input.map((t, k) => {
      if (!t) return t;
      if (isFixedFloat32Input(n, k, opset)) return as(t, DataType.FLOAT);
      if (inside && n.op_type === 'Cast') return t;
      const was = before.get(t);
      const want = inside && isConvertibleFloat(was) ? to : was;
      return want === undefined ? t : as(t, want);
    });
    let node: NodeProto = { ...n, input: inputs };
    if (inside) node = convertNode(node, from, to);
    nodesOut.push(node);
    n.output.forEach((o) => {
      const was = before.get(o);
      if (o && inside && was === from) have.set(o, to);
    });
  }

  // Graph outputs: declared type as asked (or as before); a mismatch renames the producer side.
  const finalNodes = [...nodesOut];
  const output = graph.output.map((v) => {
    const name = v.name ?? '';
    const want = io.get(name) ?? before.get(name);
    const current = have.get(name);
    if (!isConvertibleFloat(current) || !isConvertibleFloat(want) || current === want) {
      return current !== undefined && current !== before.get(name) ? withElemType(v, current) : v;
    }
    const inner = unique(`${name}_${TYPE_SUFFIX[current]}`);
    for (const m of finalNodes) {
      m.output = m.output.map((o) => (o === name ? inner : o));
      m.input = m.input.map((i) => (i === name ? inner : i));
    }
    finalNodes.push(
      makeNode('Cast', [inner], [name], unique(`${name}_Cast_${TYPE_SUFFIX[want]}`), [intAttribute('to', want)]),
    );
    return withElemType(v, want);
  });

  // value_info follows the new types (stale entries would make onnxruntime reject the model).
  const value_info = graph.value_info.map((v) => {
    const t = have.get(v.name ?? '');
    return t !== undefined && t !== v.type?.tensor_type?.elem_type ? withElemType(v, t) : v;
  });
  return { ...graph, node: finalNodes, input, output, initializer, value_info };
}

/** A region node with its float attributes (Cast's target, Constant values) of width `from` moved to `to`. */
function convertNode(node: NodeProto, from: number, to: number): NodeProto {
  const attribute = node.attribute.map((a) => {
    if (node.op_type === 'Cast' && a.name === 'to' && a.i === from) return { ...a, i: to };
    if (
      (node.op_type === 'Constant' || node.op_type === 'ConstantOfShape') &&
      a.name === 'value' &&
      a.t?.data_type === from
    ) {
      return { ...a, t: convertTensor(a.t, to) };
    }
    if (node.op_type === 'EyeLike' || (node.op_type ?? '').startsWith('Random')) {
      if (a.name === 'dtype' && a.i === from) return { ...a, i: to };
    }
    return a;
  });
  return { ...node, attribute };
}

/** The same values in the other float width (float16 rounded to nearest even). */
export function convertTensor(t: TensorProto, to: number): TensorProto {
  const values = readTensorAsFloat32(t);
  const data = to === DataType.FLOAT ? values : Uint16Array.from(values, numberToFloat16);
  const dims = t.dims.map(Number);
  return { ...makeTensor(t.name ?? '', to, dims, data), doc_string: t.doc_string };
}

function withElemType<V extends { type?: { tensor_type?: { elem_type?: number } | null } | null }>(
  v: V,
  elemType: number,
): V {
  const tt = v.type?.tensor_type;
  if (!tt) return v;
  return { ...v, type: { ...v.type, tensor_type: { ...tt, elem_type: elemType } } };
}
