/**
 * Graphs of a few named nodes for the tests that walk one (ranking layers, error jumps, reports, the graph view):
 * inputs and outputs are float tensors of one element, weights one-element float initializers of value 1.
 */
import {
  buildGraphIndex,
  DataType,
  makeGraph,
  makeTensor,
  makeValueInfo,
  type GraphIndex,
  type GraphProto,
  type NodeProto,
} from '../../src/core/onnx/index.ts';

export interface FewNodes {
  nodes: NodeProto[];
  inputs: string[];
  outputs: string[];
  /** Initializers the nodes read. */
  weights?: string[];
}

/** The graph of `nodes`, with float inputs, outputs and weights of one element. */
export function fewNodeGraph({ nodes, inputs, outputs, weights = [] }: FewNodes): GraphProto {
  const value = (name: string) => makeValueInfo(name, DataType.FLOAT, [1]);
  return makeGraph({
    node: nodes,
    input: inputs.map(value),
    output: outputs.map(value),
    initializer: weights.map((name) => makeTensor(name, DataType.FLOAT, [1], Float32Array.of(1))),
  });
}

/** The index of `fewNodeGraph(graph)`. */
export function fewNodeIndex(graph: FewNodes): GraphIndex {
  return buildGraphIndex(fewNodeGraph(graph));
}
