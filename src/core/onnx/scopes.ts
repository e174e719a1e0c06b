/**
 * A model's scopes: the main graph and every subgraph (If's branches, Loop's and Scan's body, at any depth), each
 * with the path of control-flow nodes that leads to it and the element types its nodes see (its own tensors and
 * every enclosing scope's). What calibration needs to read tensors inside bodies (calibrate/exposeSubgraphs.ts),
 * layer-wise comparison to pair them (metrics/layerwiseTensors.ts) and the quantizer to write Q/DQ there
 * (quantize/quantizeSubgraphs.ts).
 */
import { inferElementTypes } from './elementTypeInference.ts';
import { assignNodeIds } from './nodeIds.ts';
import type { GraphProto, ModelProto, NodeProto } from './model.ts';
import { DataType, isDefaultDomain, opsetOf } from './model.ts';

/** One step down from a graph into a subgraph: the node that holds it and the attribute it sits in. */
export interface ScopeStep {
  readonly holder: NodeProto;
  readonly attribute: string;
}

export interface Scope {
  readonly graph: GraphProto;
  /** The steps from the main graph down to this graph (empty for the main graph). */
  readonly path: readonly ScopeStep[];
  /** Element types of this scope's tensors and of every enclosing scope's. */
  readonly types: ReadonlyMap<string, number>;
}

/** The ops whose subgraphs calibration and the quantizer enter (ONNX's control flow). */
export const CONTROL_FLOW_OPS: ReadonlySet<string> = new Set(['If', 'Loop', 'Scan']);

/** Every scope of the model, the main graph first, then depth first in node order. */
export function modelScopes(model: ModelProto): Scope[] {
  const graph = model.graph!;
  const opset = opsetOf(model) ?? 1;
  const inner = new Map<GraphProto, Map<string, number>>();
  const mainTypes = inferElementTypes(graph, { opset, scopes: inner });
  const out: Scope[] = [];
  const visit = (g: GraphProto, path: ScopeStep[], types: ReadonlyMap<string, number>) => {
    out.push({ graph: g, path, types });
    for (const node of g.node) {
      for (const a of node.attribute) {
        for (const sub of a.g ? [a.g] : a.graphs) {
          // A body the inference never reached (its holder's inputs untyped) is typed from its parent alone.
          const subTypes = inner.get(sub) ?? inferElementTypes(sub, { opset, outer: types, scopes: inner });
          visit(sub, [...path, { holder: node, attribute: a.name ?? '' }], subTypes);
        }
      }
    }
  };
  visit(graph, [], mainTypes);
  return out;
}

/** Whether calibration can read a tensor of a scope: each holder on the path is If, Loop or Scan, and no If sits inside a Loop or Scan (its branches could alternate between iterations). */
export function readableScope(path: readonly ScopeStep[]): boolean {
  let inLoop = false;
  for (const step of path) {
    const op = step.holder.op_type ?? '';
    if (!CONTROL_FLOW_OPS.has(op) || !isDefaultDomain(step.holder.domain)) return false;
    if (op === 'If' && inLoop) return false;
    if (op !== 'If') inLoop = true;
  }
  return true;
}

/**
 * Float32 tensors inside bodies calibration can read (readableScope): body inputs (a Loop's carried values, a Scan's
 * slices) and node outputs but Constants', each with its path, in scope order.
 */
export function readableBodyTensors(model: ModelProto): Map<string, readonly ScopeStep[]> {
  const out = new Map<string, readonly ScopeStep[]>();
  for (const scope of modelScopes(model)) {
    if (scope.path.length === 0 || !readableScope(scope.path)) continue;
    const float = (t: string) => !!t && scope.types.get(t) === DataType.FLOAT;
    for (const v of scope.graph.input) if (float(v.name ?? '')) out.set(v.name!, scope.path);
    for (const node of scope.graph.node)
      if (node.op_type !== 'Constant') for (const o of node.output) if (float(o)) out.set(o, scope.path);
  }
  return out;
}

/**
 * Every node inside a control-flow body, by the id the per-layer table and the quantizer give it (the holder's id,
 * the attribute and its id in the body, joined by `/`: `node_cond__1/then_branch/node_conv1d_4`, at any depth), with
 * its id in the body itself (its name, where that is unique there). What lets `nodes_to_exclude` name a body node.
 */
export function bodyNodeIds(graph: GraphProto): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (g: GraphProto, prefix: string) => {
    const ids = assignNodeIds(g.node);
    g.node.forEach((node, i) => {
      if (!CONTROL_FLOW_OPS.has(node.op_type ?? '') || !isDefaultDomain(node.domain)) return;
      for (const a of node.attribute) {
        if (!a.g) continue;
        const inner = `${prefix}${ids[i]}/${a.name}/`;
        for (const id of assignNodeIds(a.g.node)) out.set(`${inner}${id}`, id);
        visit(a.g, inner);
      }
    });
  };
  visit(graph, '');
  return out;
}
