/**
 * Tensors inside If/Loop/Scan bodies read out for calibration. A body's tensor cannot be a graph output, so it is
 * carried up, for the calibration model only, one scope at a time: an Identity makes it an extra output of its body;
 * an If gets the same extra output in its other branch, an empty float tensor (a branch that did not run returns
 * nothing, and the collector skips empty outputs); a Loop or Scan gets it as an extra scan output, whose value is
 * every iteration's concatenated; the holder node gets the matching extra output, and so on up to the main graph.
 * The names added are fresh (`qs_expose/…`); `tensorOf` maps each main-graph output back to the tensor it carries.
 */
import {
  DataType,
  makeNode,
  makeValueInfo,
  tensorAttribute,
  type AttributeProto,
  type GraphProto,
  type ModelProto,
  type NodeProto,
} from '../../onnx/model.ts';
import { makeTensor } from '../../onnx/tensorData.ts';
import { namesInGraphs } from '../../onnx/walk.ts';
import { readableBodyTensors, type ScopeStep } from '../../onnx/scopes.ts';

export interface Exposure {
  /** The main graph's new outputs in order (the tensors asked for, or the names carrying them up). */
  readonly outputs: readonly string[];
  readonly graph: GraphProto;
  /** Main-graph output name → the subgraph tensor it carries (only for carried tensors). */
  readonly tensorOf: ReadonlyMap<string, string>;
}

/** The node's attributes with `extra` appended to the INTS attribute `name` (a Scan's scan_output_axes and directions). */
function withInts(node: NodeProto, name: string, extra: number): AttributeProto[] {
  return node.attribute.map((a) => (a.name === name ? { ...a, ints: [...a.ints, extra] } : a));
}

/**
 * Carries `tensors` (body tensors, with their paths from readableBodyTensors) up to `graph`: returns the graph with
 * its holder nodes rewritten, and each tensor's name in this graph.
 */
function carry(
  graph: GraphProto,
  depth: number,
  tensors: readonly [string, readonly ScopeStep[]][],
  fresh: (stem: string) => string,
): { graph: GraphProto; names: Map<string, string> } {
  const names = new Map<string, string>();
  const below = new Map<NodeProto, [string, readonly ScopeStep[]][]>();
  for (const [t, path] of tensors) {
    if (path.length === depth) names.set(t, t);
    else {
      const h = path[depth].holder;
      if (!below.has(h)) below.set(h, []);
      below.get(h)!.push([t, path]);
    }
  }
  if (below.size === 0) return { graph, names };
  const node = graph.node.map((n) => {
    const wanted = below.get(n);
    if (!wanted) return n;
    // Each body carries its own tensors up to itself first.
    const bodies = new Map<string, { graph: GraphProto; names: Map<string, string> }>();
    for (const a of n.attribute) {
      if (!a.g) continue;
      const mine = wanted.filter(([, p]) => p[depth].attribute === a.name);
      bodies.set(a.name ?? '', carry(a.g, depth + 1, mine, fresh));
    }
    const op = n.op_type ?? '';
    const addedOutputs: string[] = [];
    const bodyNodes = new Map<string, NodeProto[]>();
    const bodyOutputs = new Map<string, string[]>();
    const push = <V>(m: Map<string, V[]>, k: string, v: V) => {
      if (!m.has(k)) m.set(k, []);
      m.get(k)!.push(v);
    };
    for (const [t, p] of wanted) {
      const attr = p[depth].attribute;
      const inBody = bodies.get(attr)!.names.get(t)!;
      const out = fresh(`${t}/${attr}`);
      push(bodyNodes, attr, makeNode('Identity', [inBody], [out], fresh(`${t}/${attr}/Identity`)));
      push(bodyOutputs, attr, out);
      if (op === 'If') {
        const other = attr === 'then_branch' ? 'else_branch' : 'then_branch';
        const empty = fresh(`${t}/${other}/empty`);
        const value = tensorAttribute('value', makeTensor(empty, DataType.FLOAT, [0], new Float32Array(0)));
        push(bodyNodes, other, makeNode('Constant', [], [empty], fresh(`${t}/${other}/Constant`), [value]));
        push(bodyOutputs, other, empty);
      }
      const carried = fresh(`qs_expose/${t}`);
      addedOutputs.push(carried);
      names.set(t, carried);
    }
    let attribute = n.attribute.map((a) => {
      if (!a.g) return a;
      const key = a.name ?? '';
      const g = bodies.get(key)?.graph ?? a.g;
      const outs = bodyOutputs.get(key) ?? [];
      return {
        ...a,
        g: {
          ...g,
          node: [...g.node, ...(bodyNodes.get(key) ?? [])],
          output: [...g.output, ...outs.map((o) => makeValueInfo(o, DataType.FLOAT))],
        },
      };
    });
    if (op === 'Scan') {
      const has = (name: string) => attribute.some((a) => a.name === name);
      const withAxes = has('scan_output_axes') ? withInts({ ...n, attribute }, 'scan_output_axes', 0) : attribute;
      attribute = has('scan_output_directions')
        ? withInts({ ...n, attribute: withAxes }, 'scan_output_directions', 0)
        : withAxes;
    }
    return { ...n, attribute, output: [...n.output, ...addedOutputs] };
  });
  return { graph: { ...graph, node }, names };
}

/**
 * The main graph's outputs made exactly `tensors`: main-graph tensors as they are, body tensors (those of
 * readableBodyTensors) carried up. Graph inputs among `tensors` are left out (read from the feeds).
 */
export function exposeAcrossScopes(
  model: ModelProto,
  tensors: readonly string[],
  inBodies: ReadonlyMap<string, readonly ScopeStep[]>,
): Exposure {
  const graph = model.graph!;
  const inputs = new Set(graph.input.map((v) => v.name ?? ''));
  const wanted = tensors.filter((t) => !inputs.has(t));
  const deep = wanted
    .filter((t) => inBodies.has(t))
    .map((t) => [t, inBodies.get(t)!] as [string, readonly ScopeStep[]]);
  const typed = new Map(graph.output.map((v) => [v.name ?? '', v]));
  if (deep.length === 0) {
    return {
      outputs: wanted,
      graph: { ...graph, output: wanted.map((name) => typed.get(name) ?? { name, metadata_props: [] }) },
      tensorOf: new Map(),
    };
  }
  const taken = namesInGraphs(graph);
  const fresh = (stem: string) => {
    let name = stem;
    for (let k = 2; taken.has(name); k++) name = `${stem}_${k}`;
    taken.add(name);
    return name;
  };
  const carried = carry(graph, 0, deep, fresh);
  const tensorOf = new Map<string, string>();
  const outputs = wanted.map((t) => {
    const name = carried.names.get(t) ?? t;
    if (name !== t) tensorOf.set(name, t);
    return name;
  });
  return {
    outputs,
    graph: { ...carried.graph, output: outputs.map((name) => typed.get(name) ?? { name, metadata_props: [] }) },
    tensorOf,
  };
}

/**
 * A copy of the model whose outputs are `tensors` wherever they are computed (main-graph or body tensors; graph
 * inputs left out), with the output name each one is read under: what a caller exposing tensors by name (the
 * report's histograms of the worst layers, which may sit inside an If) needs in one call.
 */
export function exposeByName(
  model: ModelProto,
  tensors: readonly string[],
): { model: ModelProto; outputs: readonly string[]; tensorOf: ReadonlyMap<string, string> } {
  const exposure = exposeAcrossScopes(model, tensors, readableBodyTensors(model));
  return { model: { ...model, graph: exposure.graph }, outputs: exposure.outputs, tensorOf: exposure.tensorOf };
}
