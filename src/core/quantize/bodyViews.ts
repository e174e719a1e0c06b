/**
 * An If/Loop/Scan body seen as a graph of its own, with the constants it computes with as initializers: its Constant
 * nodes moved to its initializers, and the initializers of enclosing scopes it reads lent to it. What the quantizer
 * writes Q/DQ on (quantizeSubgraphs.ts) and what the recovery steps look for layers in (recovery/bodyLayers.ts): one
 * view, so that both see the same weights. Pure: reads the model, changes nothing.
 */
import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import { isDefaultDomain, type GraphProto, type ModelProto, type NodeProto, type TensorProto } from '../onnx/model.ts';
import { CONTROL_FLOW_OPS } from '../onnx/scopes.ts';
import { constantsToInitializers } from '../prepare/constantsToInitializers.ts';

export interface BodyView {
  /** The body with its Constant weights as its own initializers (nothing lent). */
  readonly own: GraphProto;
  /** `own` with the enclosing scopes' initializers it reads appended: what rules and layer finders index. */
  readonly view: GraphProto;
  /** Names of the lent initializers (to take back out after a write). */
  readonly lent: ReadonlySet<string>;
}

/** Initializers visible from a scope: its own and every enclosing scope's. */
export function visibleInitializers(g: GraphProto, outer: ReadonlyMap<string, TensorProto>): Map<string, TensorProto> {
  return new Map([...outer, ...g.initializer.map((t) => [t.name ?? '', t] as const)]);
}

/** The view of `body`, whose enclosing scopes' initializers are `visible`. */
export function bodyView(model: ModelProto, body: GraphProto, visible: ReadonlyMap<string, TensorProto>): BodyView {
  // Constant weights become the body's initializers (ir 8: none listed as inputs), so rules find them.
  const own = constantsToInitializers({ ...model, ir_version: 8, graph: body }).model.graph!;
  const ownNames = new Set(own.initializer.map((t) => t.name ?? ''));
  const read = new Set(own.node.flatMap((n) => n.input));
  const lent = [...visible].filter(([name]) => read.has(name) && !ownNames.has(name)).map(([, t]) => t);
  return {
    own,
    view: { ...own, initializer: [...own.initializer, ...lent] },
    lent: new Set(lent.map((t) => t.name ?? '')),
  };
}

/** Whether a node's bodies are entered: ONNX's own If, Loop and Scan with a body attribute. */
export function entersBodies(node: NodeProto): boolean {
  return CONTROL_FLOW_OPS.has(node.op_type ?? '') && isDefaultDomain(node.domain) && node.attribute.some((a) => a.g);
}

/** One body reached from the main graph: its view, its index, and the prefix its nodes' scoped ids take. */
export interface ScopedBody extends BodyView {
  readonly index: GraphIndex;
  /** `holder/then_branch/`, `outer/body/inner/else_branch/`: a body node's scoped id is this and its id in `index`. */
  readonly prefix: string;
  /** The op types of the control-flow nodes from the main graph down to it ('If', 'Loop', 'Scan'). */
  readonly holders: readonly string[];
}

/** Whether a body is an If branch at any depth of If: no Loop or Scan on its way from the main graph. */
export function isIfBranch(body: ScopedBody): boolean {
  return body.holders.every((op) => op === 'If');
}

/** Every body of the model's control-flow nodes, at any depth (outer bodies before the bodies they hold). */
export function scopedBodies(model: ModelProto): ScopedBody[] {
  const out: ScopedBody[] = [];
  const visit = (
    index: GraphIndex,
    visible: ReadonlyMap<string, TensorProto>,
    prefix: string,
    holders: readonly string[],
  ) => {
    index.nodes.forEach((node, i) => {
      if (!entersBodies(node)) return;
      const holder = `${prefix}${node.name || index.ids[i]}`;
      for (const a of node.attribute) {
        if (!a.g) continue;
        const v = bodyView(model, a.g, visible);
        const bIndex = buildGraphIndex(v.view);
        const bPrefix = `${holder}/${a.name}/`;
        const path = [...holders, node.op_type ?? ''];
        out.push({ ...v, index: bIndex, prefix: bPrefix, holders: path });
        visit(bIndex, visibleInitializers(v.own, visible), bPrefix, path);
      }
    });
  };
  const graph = model.graph!;
  visit(buildGraphIndex(graph), visibleInitializers(graph, new Map()), '', []);
  return out;
}
