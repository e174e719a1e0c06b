/**
 * onnxruntime has no API for intermediate tensors, so calibration rewrites the model to make them graph
 * outputs. Outputs are added without a type (onnxruntime infers it and reports it per run); the runner
 * keeps the float32 ones. Large models are exposed in chunks so that one run's outputs fit in memory.
 *
 * Only tensors known to be float32 are observed (core/onnx/elementTypeInference.ts): the quantizer puts
 * Q/DQ on nothing else, and onnxruntime cannot return some other values at all (sequences, bfloat16).
 */
import { DataType, opsetOf, type ModelProto } from '../../onnx/model.ts';
import { inferElementTypes } from '../../onnx/elementTypeInference.ts';
import { subgraphsOf } from '../../onnx/walk.ts';

/** Every float32 tensor a node produces, plus the graph's real float32 inputs, in graph order: what calibration observes. */
export function observableTensors(model: ModelProto): string[] {
  const graph = model.graph!;
  const types = inferElementTypes(graph, { opset: opsetOf(model) ?? 1 });
  const float = (n: string) => !!n && types.get(n) === DataType.FLOAT;
  const initializers = new Set(graph.initializer.map((t) => t.name ?? ''));
  const names = graph.input.map((v) => v.name ?? '').filter((n) => float(n) && !initializers.has(n));
  for (const node of graph.node) for (const o of node.output) if (float(o)) names.push(o);
  return names;
}

/** A copy of the model whose outputs are exactly `tensors` (graph inputs among them are read from the feeds). */
export function exposeTensors(model: ModelProto, tensors: readonly string[]): ModelProto {
  const graph = model.graph!;
  const inputs = new Set(graph.input.map((v) => v.name ?? ''));
  const typed = new Map(graph.output.map((v) => [v.name ?? '', v]));
  const output = tensors.filter((t) => !inputs.has(t)).map((name) => typed.get(name) ?? { name, metadata_props: [] });
  return { ...model, graph: { ...graph, output } };
}

/**
 * exposeTensors, and only the nodes those tensors depend on: a run then computes no more of the model than it
 * must (fine-tuning reads layer inputs at every depth; the early ones need a fraction of the graph). A model with
 * control flow (subgraphs that may read outer tensors) is only exposed, not pruned.
 */
export function exposeOnly(model: ModelProto, tensors: readonly string[]): ModelProto {
  const exposed = exposeTensors(model, tensors);
  const nodes = exposed.graph!.node;
  if (nodes.some((n) => subgraphsOf(n).length > 0)) return exposed;
  const needed = new Set(tensors);
  const keep = new Uint8Array(nodes.length);
  for (let i = nodes.length - 1; i >= 0; i--) {
    if (!nodes[i].output.some((o) => needed.has(o))) continue;
    keep[i] = 1;
    for (const input of nodes[i].input) if (input) needed.add(input);
  }
  return { ...exposed, graph: { ...exposed.graph!, node: nodes.filter((_, i) => keep[i]) } };
}

/**
 * Splits tensors into chunks whose outputs together stay under `budgetBytes` per run, given each tensor's
 * byte size from a first run (unknown sizes count as `fallbackBytes`).
 */
export function chunkTensors(
  tensors: readonly string[],
  bytes: ReadonlyMap<string, number>,
  budgetBytes: number,
  fallbackBytes = 0,
): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const t of tensors) {
    const b = bytes.get(t) ?? fallbackBytes;
    if (current.length > 0 && size + b > budgetBytes) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(t);
    size += b;
  }
  if (current.length) chunks.push(current);
  return chunks;
}
