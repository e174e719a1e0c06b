/**
 * Constant nodes → initializers. Exporters put weights in Constant nodes as often as in initializers
 * (super-resolution's reshape targets, UltraFace's priors); the quantizer, BatchNormalization folding and
 * the opset adapters all look for weights among initializers, so moving them there gives one place to look.
 * The computation is unchanged: a Constant's output and an initializer of the same name hold the same value.
 *
 * Left alone: Constant nodes inside subgraphs (their scope rules differ and the quantizer does not enter
 * subgraphs), Constants whose value is not a dense numeric or string tensor (sparse_value), Constants that
 * are graph outputs (an initializer listed as a graph output is not accepted everywhere), and Constants of
 * another domain. At IR < 4 every initializer must also be a graph input, so one is added there.
 */
import type { ModelProto, NodeProto, TensorProto, ValueInfoProto } from '../onnx/index.ts';
import { isDefaultDomain, makeValueInfo } from '../onnx/index.ts';
import { constantValue } from './attributes.ts';
import { OriginRecorder, type NodeOrigin } from './nodeOrigin.ts';

export interface ConstantsResult {
  readonly model: ModelProto;
  readonly origin: NodeOrigin;
  /** Number of Constant nodes that became initializers. */
  readonly converted: number;
}

/** Moves the main graph's dense Constant nodes into initializers named after their outputs. */
export function constantsToInitializers(model: ModelProto): ConstantsResult {
  const graph = model.graph;
  const origin = new OriginRecorder();
  if (!graph) return { model: { ...model }, origin: origin.finish(), converted: 0 };

  const outputs = new Set(graph.output.map((v) => v.name ?? ''));
  const taken = new Set(graph.initializer.map((t) => t.name ?? ''));
  const listInputs = Number(model.ir_version ?? 0) < 4;
  const nodes: NodeProto[] = [];
  const initializers: TensorProto[] = [...graph.initializer];
  const inputs: ValueInfoProto[] = [...graph.input];
  let converted = 0;

  for (const node of graph.node) {
    const name = node.output[0] ?? '';
    const tensor =
      node.op_type === 'Constant' &&
      isDefaultDomain(node.domain) &&
      node.output.length === 1 &&
      name &&
      !outputs.has(name) &&
      !taken.has(name)
        ? constantValue(node)
        : undefined;
    if (!tensor) {
      nodes.push(node);
      origin.keep(node);
      origin.keepSubgraphsOf(node);
      continue;
    }
    // The attribute's tensor keeps its own (often empty) name; the initializer is a renamed shallow copy.
    initializers.push(tensor.name === name ? tensor : { ...tensor, name });
    if (listInputs) inputs.push(makeValueInfo(name, tensor.data_type ?? 0, tensor.dims.map(Number)));
    taken.add(name);
    origin.absorb(node, null);
    converted++;
  }

  if (converted === 0) return { model: { ...model }, origin: origin.finish(), converted };
  return {
    model: { ...model, graph: { ...graph, node: nodes, initializer: initializers, input: inputs } },
    origin: origin.finish(),
    converted,
  };
}
