/**
 * Exposed tensors read back as one (issue 34). Calibration makes hundreds of intermediate tensors graph outputs
 * (expose.ts); on WebGPU every graph output is its own copy out of GPU memory and its own wait for the GPU, so a
 * run of a model with 300 exposed tensors paid 300 round trips, and calibration crawled. Packed, the model
 * flattens each exposed float32 tensor (Reshape to [-1]), concatenates them on the device (a tree of Concats of
 * at most PACK_FAN_IN inputs each, within WebGPU's storage buffers per shader), and returns two outputs: the
 * values and each tensor's element count. `unpackOutputs` cuts the values back into per-tensor views: the same
 * numbers as the unpacked run, without a copy.
 */
import {
  DataType,
  intAttribute,
  makeNode,
  opsetOf,
  type GraphProto,
  type ModelProto,
  type NodeProto,
  type TensorProto,
} from '../../onnx/model.ts';
import { makeTensor } from '../../onnx/tensorData.ts';
import type { RunTensor } from '../../runtime/session.ts';

/** Inputs of one Concat: WebGPU binds each input as a storage buffer, and 8 a shader stage is the guaranteed limit. */
export const PACK_FAN_IN = 6;

/** The first opset whose Reshape takes its shape as an input. */
const MIN_OPSET = 5;

export interface PackedOutputs {
  model: ModelProto;
  /** The float32 values of every tensor, flattened, in `tensors` order. */
  values: string;
  /** int64 element counts, one a tensor, in `tensors` order. */
  sizes: string;
  tensors: readonly string[];
}

/** Whether `packOutputs` can rewrite this model (Reshape with a shape input, no exposed tensor that is a graph input). */
export function canPackOutputs(model: ModelProto): boolean {
  return (opsetOf(model) ?? 0) >= MIN_OPSET;
}

/**
 * A name generator for nodes and tensors added to `graph` (`<prefix>/<stem>_<k>`): none clashes with the graph's own
 * names nor with another it gave.
 */
export function freshNames(graph: GraphProto, prefix: string): (stem: string) => string {
  const taken = new Set<string>();
  for (const v of graph.input) taken.add(v.name ?? '');
  for (const t of graph.initializer) taken.add(t.name ?? '');
  for (const n of graph.node) {
    for (const o of n.output) taken.add(o);
    if (n.name) taken.add(n.name);
  }
  let serial = 0;
  return (stem: string) => {
    let name: string;
    do name = `${prefix}/${stem}_${serial++}`;
    while (taken.has(name));
    taken.add(name);
    return name;
  };
}

/**
 * One 1-D tensor of `parts` (1-D tensors) concatenated: a tree of Concats of at most PACK_FAN_IN inputs each, whose
 * nodes are appended to `nodes`; returns the name of the result.
 */
export function concatTree(
  nodes: NodeProto[],
  parts: readonly string[],
  stem: string,
  fresh: (stem: string) => string,
): string {
  let level = parts;
  while (level.length > 1 || level === parts) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += PACK_FAN_IN) {
      const out = fresh(stem);
      nodes.push(
        makeNode('Concat', level.slice(i, i + PACK_FAN_IN), [out], fresh('concat'), [intAttribute('axis', 0)]),
      );
      next.push(out);
    }
    level = next;
  }
  return level[0];
}

/**
 * A copy of `model` whose only outputs are the packed values and sizes of `tensors` (float32 node outputs, as
 * observableTensors gives them). Names of the added nodes and tensors cannot clash with the model's own.
 */
export function packOutputs(model: ModelProto, tensors: readonly string[]): PackedOutputs {
  if (!canPackOutputs(model)) throw new RangeError(`packOutputs needs ai.onnx opset ${MIN_OPSET} or later`);
  if (tensors.length === 0) throw new RangeError('packOutputs needs at least one tensor');
  const graph = model.graph!;
  const fresh = freshNames(graph, 'qs_pack');
  const flatShape = fresh('flat_shape');
  const initializers: TensorProto[] = [makeTensor(flatShape, DataType.INT64, [1], BigInt64Array.of(-1n))];
  const nodes: NodeProto[] = [];
  const flats: string[] = [];
  const counts: string[] = [];
  for (const t of tensors) {
    const flat = fresh('flat');
    const count = fresh('count');
    nodes.push(makeNode('Reshape', [t, flatShape], [flat], fresh('reshape')));
    nodes.push(makeNode('Shape', [flat], [count], fresh('shape')));
    flats.push(flat);
    counts.push(count);
  }
  const values = concatTree(nodes, flats, 'values', fresh);
  const sizes = concatTree(nodes, counts, 'sizes', fresh);
  const output = [
    { name: values, metadata_props: [] },
    { name: sizes, metadata_props: [] },
  ];
  return {
    model: {
      ...model,
      graph: {
        ...graph,
        node: [...graph.node, ...nodes],
        initializer: [...graph.initializer, ...initializers],
        output,
      },
    },
    values,
    sizes,
    tensors,
  };
}

/** The packed run's outputs as the unpacked run's: one float32 view per tensor, by name. */
export function unpackOutputs(
  packed: Pick<PackedOutputs, 'values' | 'sizes' | 'tensors'>,
  outputs: Readonly<Record<string, RunTensor>>,
): Record<string, RunTensor> {
  const values = outputs[packed.values]?.data;
  const sizes = outputs[packed.sizes]?.data;
  if (
    !(values instanceof Float32Array) ||
    !(sizes instanceof BigInt64Array) ||
    sizes.length !== packed.tensors.length
  ) {
    throw new Error('the packed outputs are missing or do not match the tensors packed');
  }
  const out: Record<string, RunTensor> = {};
  let at = 0;
  for (let i = 0; i < packed.tensors.length; i++) {
    const n = Number(sizes[i]);
    out[packed.tensors[i]] = { type: 'float32', data: values.subarray(at, at + n), dims: [n] };
    at += n;
  }
  if (at !== values.length)
    throw new Error(`the packed values hold ${values.length} numbers, the sizes add up to ${at}`);
  return out;
}
