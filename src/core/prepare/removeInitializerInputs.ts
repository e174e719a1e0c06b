/**
 * Initializers that old files also list as graph inputs leave graph.input. Before IR version 4 every
 * initializer had to be a graph input as well (a default value the caller could override); IR 4
 * (onnx.proto, IR_VERSION_2019_1_22: "Relax constraint that initializers should be a subset of graph
 * inputs") lifted that. Runtimes treat such inputs as overridable, which keeps them out of constant folding
 * and makes every weight look like a model input to tools, the quantizer included.
 *
 * The only other IR 4 change is the BFLOAT16 type (an addition), so raising ir_version 3 → 4 changes
 * nothing else about the model. Outputs are unchanged as long as the caller does not feed those inputs,
 * which is what running the model normally means. Only the main graph has such inputs: a subgraph's
 * inputs are formal parameters.
 */
import type { ModelProto } from '../onnx/index.ts';
import { identityOrigin, type NodeOrigin } from './nodeOrigin.ts';

/** The IR version from which initializers need not be graph inputs. */
export const IR_INITIALIZERS_NOT_INPUTS = 4;

export interface InitializerInputsResult {
  readonly model: ModelProto;
  readonly origin: NodeOrigin;
  /** Number of graph inputs removed. */
  readonly removed: number;
}

/** Removes graph inputs that name an initializer; raises ir_version to 4 when it removed any. */
export function removeInitializerInputs(model: ModelProto): InitializerInputsResult {
  const origin = identityOrigin(model);
  const graph = model.graph;
  if (!graph) return { model: { ...model }, origin, removed: 0 };
  const initializers = new Set(graph.initializer.map((t) => t.name ?? ''));
  const input = graph.input.filter((v) => !initializers.has(v.name ?? ''));
  const removed = graph.input.length - input.length;
  if (removed === 0) return { model: { ...model }, origin, removed };
  return {
    model: {
      ...model,
      ir_version: Math.max(Number(model.ir_version ?? 0), IR_INITIALIZERS_NOT_INPUTS),
      graph: { ...graph, input },
    },
    origin,
    removed,
  };
}
