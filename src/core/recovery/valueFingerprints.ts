/**
 * What determines each tensor's values in a model, as a digest: a graph input by its name (the runtime feeds it), an
 * initializer by its type, shape and bytes, a node's output by its op, domain, attributes, output index and the
 * fingerprints of its inputs (a Merkle hash over the graph). Two models, or one model before and after a change, give
 * a tensor the same fingerprint exactly when the same computation on the same feeds produces it, so the recovery can
 * tell which layers' inputs a change left alone (the exclusion search adds a node near the outputs; a mixed-precision
 * rung widens a few activations). Node names do not count. A tensor that cannot be told (external data, a node with a
 * subgraph, an input nothing produces) has none, and neither has anything computed from it. Digests of initializers and
 * attributes are kept per object, so a model whose updates replace a few initializers is digested again only there.
 * Inside an If branch (ofScoped) a tensor the branch reads from an enclosing scope takes that scope's fingerprint, and
 * every fingerprint of the branch also carries its If's condition and which branch it is (with the enclosing scope's):
 * the same computation on the samples that run the branch.
 * Pure; must not import a runtime.
 */
import { bytesOf, digestBytes, digestText } from '../digest.ts';
import { isExternal } from '../onnx/externalData.ts';
import { assignNodeIds } from '../onnx/nodeIds.ts';
import {
  isDefaultDomain,
  type AttributeProto,
  type GraphProto,
  type ModelProto,
  type NodeProto,
  type TensorProto,
} from '../onnx/model.ts';

/** A tensor's fingerprint, or null where it cannot be told. */
export type Fingerprint = string | null;

export class ValueFingerprints {
  private readonly tensors = new WeakMap<TensorProto, Fingerprint>();
  private readonly attributes = new WeakMap<NodeProto, Fingerprint>();
  private readonly nodes = new WeakMap<NodeProto, { readonly inputs: string; readonly base: Fingerprint }>();

  /**
   * The fingerprints of `wanted` in `model`'s main graph (of every tensor when not given), by name, with those of the
   * tensors they are computed from.
   */
  of(model: ModelProto, wanted?: readonly string[]): Map<string, Fingerprint> {
    return this.ofGraph(model.graph!, wanted);
  }

  /**
   * The fingerprints of `wanted` tensors of the main graph (scope '') and of If branches (scope: the branch's prefix,
   * `if/then_branch/`, as a body layer's scope), keyed by scopedTensorKey. A scope that is no If branch gives null.
   */
  ofScoped(model: ModelProto, wanted: readonly { scope: string; tensor: string }[]): Map<string, Fingerprint> {
    const out = new Map<string, Fingerprint>();
    const byScope = new Map<string, string[]>();
    for (const w of wanted) {
      const names = byScope.get(w.scope);
      if (names) names.push(w.tensor);
      else byScope.set(w.scope, [w.tensor]);
    }
    const branches = byScope.size > 1 || !byScope.has('') ? ifBranches(model.graph!) : new Map<string, Branch>();
    /** What every fingerprint of a branch carries: its enclosing scope's, its If's condition and its name. */
    const salts = new Map<string, string>();
    /** The fingerprints of `names` in `scope`, those of its enclosing scopes first. */
    const printsIn = (scope: string, names: readonly string[]): Map<string, Fingerprint> | undefined => {
      if (scope === '') return this.ofGraph(model.graph!, names);
      const b = branches.get(scope);
      if (!b) return undefined;
      const outer = printsIn(b.parent, [...outerReads(b.graph), b.holder.input[0] ?? '']);
      if (!outer) return undefined;
      const parentSalt = salts.get(b.parent) ?? '';
      const condition = outer.get(b.holder.input[0] ?? '') ?? null;
      const salt = condition === null ? null : digestText(JSON.stringify([parentSalt, condition, b.branch]));
      const own = this.ofGraph(b.graph, names, (name) => outer.get(name) ?? null);
      if (salt !== null) salts.set(scope, salt);
      return new Map([...own].map(([t, f]) => [t, f === null || salt === null ? null : digestText(salt + f)]));
    };
    for (const [scope, names] of byScope) {
      const prints = printsIn(scope, names);
      for (const t of names) out.set(scopedTensorKey(scope, t), prints?.get(t) ?? null);
    }
    return out;
  }

  /** of for one graph; a tensor it reads from an enclosing scope takes `outer`'s fingerprint (none without it). */
  private ofGraph(
    graph: GraphProto,
    wanted?: readonly string[],
    outer?: (name: string) => Fingerprint,
  ): Map<string, Fingerprint> {
    const out = new Map<string, Fingerprint>();
    const initializers = new Map(graph.initializer.map((t) => [t.name ?? '', t]));
    const inputs = new Set(graph.input.map((v) => v.name ?? ''));
    const producer = new Map<string, number>();
    graph.node.forEach((n, i) => n.output.forEach((o) => o && producer.set(o, i)));
    const leaf = (name: string): Fingerprint | undefined => {
      const t = initializers.get(name);
      if (t) return this.tensor(t);
      if (inputs.has(name)) return `input:${name}`;
      if (producer.has(name)) return undefined;
      return outer ? outer(name) : null;
    };
    // Depth first from each wanted tensor: a node is fingerprinted on its second visit, once its inputs are (an input
    // still being expanded closes a cycle, which a valid graph has none of: then it has none).
    const expanded = new Set<string>();
    const stack: string[] = [...(wanted ?? [...producer.keys()])].reverse();
    while (stack.length) {
      const name = stack[stack.length - 1];
      if (out.has(name)) {
        stack.pop();
        continue;
      }
      const known = leaf(name);
      if (known !== undefined) {
        out.set(name, known);
        stack.pop();
        continue;
      }
      const node = graph.node[producer.get(name)!];
      if (!expanded.has(name)) {
        expanded.add(name);
        for (const i of node.input) if (i && !out.has(i) && !expanded.has(i)) stack.push(i);
        continue;
      }
      stack.pop();
      let joined: string | null = '';
      for (const i of node.input) {
        const f = i ? out.get(i) : '';
        if (f === undefined || f === null) {
          joined = null;
          break;
        }
        joined += `${f},`;
      }
      const base = joined === null ? null : this.nodeFingerprint(node, joined);
      node.output.forEach((o, k) => {
        if (o) out.set(o, base === null ? null : `${base}:${k}`);
      });
    }
    return out;
  }

  /** A node's outputs' common part for these inputs' fingerprints: kept per node, digested again only when they change. */
  private nodeFingerprint(node: NodeProto, inputs: string): Fingerprint {
    const last = this.nodes.get(node);
    if (last && last.inputs === inputs) return last.base;
    const attributes = this.nodeAttributes(node);
    const base =
      attributes === null
        ? null
        : digestText(JSON.stringify([node.op_type ?? '', node.domain ?? '', attributes, inputs]));
    this.nodes.set(node, { inputs, base });
    return base;
  }

  /** An initializer's fingerprint: its type, shape and data (null when its data lies in an external file). */
  tensor(t: TensorProto): Fingerprint {
    let f = this.tensors.get(t);
    if (f === undefined) {
      f = isExternal(t)
        ? null
        : digestText(JSON.stringify(['tensor', t.data_type ?? 0, t.dims.map(Number), tensorData(t)]));
      this.tensors.set(t, f);
    }
    return f;
  }

  /** The node's attributes as text, the tensors among them by fingerprint; null when one holds a graph. */
  private nodeAttributes(node: NodeProto): Fingerprint {
    let f = this.attributes.get(node);
    if (f === undefined) {
      f = node.attribute.some((a) => a.g || a.graphs.length > 0) ? null : attributesText(node.attribute, this);
      this.attributes.set(node, f);
    }
    return f;
  }
}

/** The key of a tensor of `scope` ('' the main graph, else an If branch's prefix) in ofScoped's map. */
export function scopedTensorKey(scope: string, tensor: string): string {
  return `${scope}\u0000${tensor}`;
}

/** An If branch: its graph, the If node holding it, the attribute naming it, and the scope the If is in. */
interface Branch {
  readonly graph: GraphProto;
  readonly holder: NodeProto;
  readonly branch: string;
  readonly parent: string;
}

/** The If branches at any depth of If, by prefix (`holder/then_branch/`, as quantize/bodyViews.ts names them). */
function ifBranches(main: GraphProto): Map<string, Branch> {
  const out = new Map<string, Branch>();
  const visit = (graph: GraphProto, prefix: string) => {
    const ids = assignNodeIds(graph.node); // the ids a GraphIndex gives, without building one
    graph.node.forEach((node, i) => {
      if (node.op_type !== 'If' || !isDefaultDomain(node.domain)) return;
      for (const a of node.attribute) {
        if (!a.g) continue;
        const scope = `${prefix}${node.name || ids[i]}/${a.name}/`;
        out.set(scope, { graph: a.g, holder: node, branch: a.name ?? '', parent: prefix });
        visit(a.g, scope);
      }
    });
  };
  visit(main, '');
  return out;
}

/** The tensors a graph's nodes read that it neither computes nor holds: those of its enclosing scopes. */
function outerReads(graph: GraphProto): string[] {
  const own = new Set([
    ...graph.initializer.map((t) => t.name ?? ''),
    ...graph.input.map((v) => v.name ?? ''),
    ...graph.node.flatMap((n) => n.output),
  ]);
  return [...new Set(graph.node.flatMap((n) => n.input).filter((t) => t && !own.has(t)))];
}

/** Digests of a tensor's data fields (raw_data, and the typed fields an old exporter may use). */
function tensorData(t: TensorProto): string[] {
  const parts = [digestBytes(t.raw_data ?? new Uint8Array(0))];
  for (const field of ['float_data', 'int32_data', 'int64_data', 'double_data', 'uint64_data'] as const) {
    const values = t[field];
    if (values.length > 0) parts.push(field, digestText(values.map(numberText).join(',')));
  }
  if (t.string_data.length > 0) parts.push('string_data', ...t.string_data.map((s) => digestBytes(s)));
  return parts;
}

/** A number as text that keeps −0 and NaN apart from 0 and null. */
function numberText(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}

function attributesText(attributes: readonly AttributeProto[], fingerprints: ValueFingerprints): Fingerprint {
  const parts: unknown[] = [];
  for (const a of [...attributes].sort((x, y) => ((x.name ?? '') < (y.name ?? '') ? -1 : 1))) {
    if (a.sparse_tensor || a.sparse_tensors.length > 0 || a.tp || a.type_protos.length > 0) return null;
    const tensors = [...(a.t ? [a.t] : []), ...a.tensors].map((t) => fingerprints.tensor(t));
    if (tensors.includes(null)) return null;
    parts.push([
      a.name ?? '',
      a.type ?? 0,
      a.i === undefined || a.i === null ? null : String(a.i),
      a.f === undefined || a.f === null ? null : numberText(a.f),
      a.s ? digestBytes(a.s) : null,
      a.ints.map(String),
      a.floats.map(numberText),
      a.strings.map((s) => digestBytes(s)),
      tensors,
    ]);
  }
  return JSON.stringify(parts);
}

/** The digest of a typed array's values (a layer's float weights or bias). */
export function arrayFingerprint(a: ArrayBufferView): string {
  return digestBytes(bytesOf(a));
}
