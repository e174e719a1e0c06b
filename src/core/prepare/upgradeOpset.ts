/**
 * Raising a model's ai.onnx opset without changing what any node computes. Per-channel Q/DQ needs opset 13
 * and 16-bit Q/DQ opset 21, but setting the opset number alone changes the meaning of every op whose schema
 * changed in between (docs/NOTES.md: onnxruntime's quantizer writes models that do not load, or worse, compute
 * something else). Here each node crosses every version boundary of its op (OP_HISTORY) between the
 * model's opset and the target, and each crossing is either proven harmless or rewritten by an adapter
 * (OPSET_STEPS). A crossing nobody has checked stops the upgrade with an UnsupportedModelError that names
 * the node, the op and the versions, so the caller can fall back (per-tensor at the model's own opset).
 *
 * Subgraphs (If/Loop/Scan bodies) and model-local functions get the same treatment. Nodes of other domains
 * are left as they are. The model's ai.onnx import becomes the target, and ir_version is raised to what the
 * target needs (irVersion.ts). Upgrading never lowers an opset: a model already at or above the target is
 * returned as it is.
 */
import type { GraphProto, ModelProto, NodeProto, TensorArray, TensorProto } from '../onnx/index.ts';
import {
  DataType,
  UnsupportedModelError,
  assignNodeIds,
  isDefaultDomain,
  makeNode,
  makeTensor,
  opsetOf,
} from '../onnx/index.ts';
import { tensorAttribute, toInt64 } from './attributes.ts';
import type { AdapterContext, Rewrite } from './adapters/types.ts';
import { minIrVersionForOpset } from './irVersion.ts';
import { NameAllocator } from './names.ts';
import { OriginRecorder, type NodeOrigin } from './nodeOrigin.ts';
import { OP_HISTORY, OP_REMOVED_AT } from './opsetHistory.ts';
import { MAX_TARGET_OPSET, OPSET_STEPS } from './opsetSteps.ts';
import { ValueFacts } from './valueFacts.ts';

export { MAX_TARGET_OPSET };

/** A model-local function (ONNX's FunctionProto). */
type FunctionProto = ModelProto['functions'][number];

/** What the upgrade did to the nodes of one op type (for the report). */
export interface OpsetChange {
  readonly opType: string;
  /** What was done, e.g. 'starts/ends/axes attributes → inputs' or 'kept (last axis)'. */
  readonly action: string;
  readonly count: number;
}

export interface UpgradeResult {
  readonly model: ModelProto;
  readonly origin: NodeOrigin;
  readonly fromOpset: number;
  readonly toOpset: number;
  /** Nodes that needed more than the new version number, grouped by op type and action. */
  readonly changes: readonly OpsetChange[];
  /** Number of ai.onnx nodes carried over as they were. */
  readonly unchanged: number;
}

/** Why an upgrade stopped: an UnsupportedModelError (same name) that also says where. */
export class OpsetUpgradeError extends UnsupportedModelError {
  constructor(
    message: string,
    readonly opType: string,
    readonly nodeId: string,
    readonly fromOpset: number,
    readonly toOpset: number,
    /** The version boundary that could not be crossed (undefined for an unknown op). */
    readonly atOpset: number | undefined,
  ) {
    super(message);
  }
}

/** `model` with its ai.onnx opset raised to `targetOpset`; throws OpsetUpgradeError where meaning could change. */
export function upgradeOpset(model: ModelProto, targetOpset: number): UpgradeResult {
  if (!Number.isInteger(targetOpset) || targetOpset < 1 || targetOpset > MAX_TARGET_OPSET) {
    throw new UnsupportedModelError(
      `Opset ${targetOpset} is not a target Quant Studio can raise models to (1–${MAX_TARGET_OPSET}).`,
    );
  }
  const from = opsetOf(model, '');
  if (from === undefined) {
    throw new UnsupportedModelError(
      'The model does not import the ai.onnx operator set, so its opset cannot be raised.',
    );
  }
  const upgrader = new Upgrader(model, from, targetOpset);
  if (from >= targetOpset) {
    if (model.graph) upgrader.origin.keepGraph(model.graph);
    return {
      model: { ...model },
      origin: upgrader.origin.finish(),
      fromOpset: from,
      toOpset: from,
      changes: [],
      unchanged: 0,
    };
  }

  const graph = model.graph ? upgrader.graph(model.graph, undefined, '') : undefined;
  const functions = model.functions.map((f) => upgrader.fn(f));
  const opsetImport = model.opset_import.map((o) => (isDefaultDomain(o.domain) ? { ...o, version: targetOpset } : o));
  return {
    model: {
      ...model,
      ir_version: Math.max(Number(model.ir_version ?? 0), minIrVersionForOpset(targetOpset)),
      opset_import: opsetImport,
      graph,
      functions,
    },
    origin: upgrader.origin.finish(),
    fromOpset: from,
    toOpset: targetOpset,
    changes: [...upgrader.changes.values()],
    unchanged: upgrader.unchanged,
  };
}

const FLOAT_TYPES = new Set<number>([DataType.FLOAT, DataType.DOUBLE, DataType.FLOAT16, DataType.BFLOAT16]);

/** Where new weights of a graph or function go while its nodes are rewritten. */
interface WeightSink {
  /** `owner`: the node (of the input model) whose rewrite needed the weight. */
  add(tensor: TensorProto, owner: NodeProto): void;
}

class Upgrader {
  readonly origin = new OriginRecorder();
  readonly changes = new Map<string, OpsetChange & { count: number }>();
  unchanged = 0;
  private readonly names: NameAllocator;

  constructor(
    model: ModelProto,
    private readonly from: number,
    private readonly target: number,
  ) {
    this.names = new NameAllocator(model);
  }

  /** The upgraded graph (the same object when nothing in it changed). */
  graph(graph: GraphProto, parent: ValueFacts | undefined, where: string, from = this.from): GraphProto {
    const added: TensorProto[] = [];
    const nodes = this.nodes(graph, graph.node, parent, where, from, { add: (t) => added.push(t) });
    if (!nodes) return graph;
    const defined = new Set<string>([
      ...graph.input.map((v) => v.name ?? ''),
      ...graph.initializer.map((t) => t.name ?? ''),
      ...nodes.flatMap((n) => n.output),
    ]);
    return {
      ...graph,
      node: nodes,
      initializer: added.length > 0 ? [...graph.initializer, ...added] : graph.initializer,
      // Descriptions of tensors that no longer exist (a dropped Dropout mask) would contradict the graph.
      value_info: graph.value_info.filter((v) => defined.has(v.name ?? '')),
    };
  }

  /** A model-local function with its ai.onnx nodes upgraded; new weights become Constant nodes. */
  fn(f: FunctionProto): FunctionProto {
    const imported = f.opset_import.find((o) => isDefaultDomain(o.domain));
    if (!imported) return f;
    const version = Number(imported.version ?? 0);
    if (version >= this.target) return f;
    const constants: NodeProto[] = [];
    const sink: WeightSink = {
      add: (t, owner) => {
        const c = makeNode('Constant', [], [t.name ?? ''], '', [tensorAttribute('value', t)]);
        constants.push(c);
        this.origin.helper(c, owner);
      },
    };
    // The function's outputs count as readers (a Dropout mask returned by the function is read).
    const output = f.output.map((name) => ({ name, metadata_props: [] }));
    const pseudo: GraphProto = {
      node: f.node,
      input: [],
      output,
      initializer: [],
      sparse_initializer: [],
      value_info: f.value_info,
      quantization_annotation: [],
      metadata_props: [],
    };
    const nodes = this.nodes(pseudo, f.node, undefined, `function ${f.name ?? ''}: `, version, sink) ?? f.node;
    return {
      ...f,
      node: [...constants, ...nodes],
      opset_import: f.opset_import.map((o) => (o === imported ? { ...o, version: this.target } : o)),
    };
  }

  /** The upgraded node list of a graph, or undefined when no node changed. */
  private nodes(
    graph: GraphProto,
    list: readonly NodeProto[],
    parent: ValueFacts | undefined,
    where: string,
    from: number,
    sink: WeightSink,
  ): NodeProto[] | undefined {
    const facts = new ValueFacts(graph, parent, from);
    const ids = assignNodeIds(list);
    const out: NodeProto[] = [];
    let changed = false;
    list.forEach((node, i) => {
      let current = this.withUpgradedSubgraphs(node, facts, `${where}${ids[i]}`, from);
      if (isDefaultDomain(current.domain)) {
        const result = this.node(current, node, facts, `${where}${ids[i]}`, from, sink);
        for (const h of result.before) this.origin.helper(h, node);
        for (const h of result.after) this.origin.helper(h, node);
        out.push(...result.before);
        current = result.node;
        out.push(current);
        out.push(...result.after);
        if (result.before.length + result.after.length > 0) changed = true;
      } else {
        out.push(current);
      }
      this.origin.keep(current, node);
      if (current !== node) changed = true;
    });
    return changed ? out : undefined;
  }

  /** `node` with the graphs in its attributes upgraded (the same object when none changed). */
  private withUpgradedSubgraphs(node: NodeProto, facts: ValueFacts, where: string, from: number): NodeProto {
    let changed = false;
    const attribute = node.attribute.map((a) => {
      if (!a.g && a.graphs.length === 0) return a;
      const g = a.g ? this.graph(a.g, facts, `${where}.${a.name ?? ''}/`, from) : undefined;
      const graphs = a.graphs.map((sub, k) => this.graph(sub, facts, `${where}.${a.name ?? ''}[${k}]/`, from));
      if (g === a.g && graphs.every((sub, k) => sub === a.graphs[k])) return a;
      changed = true;
      return { ...a, g, graphs };
    });
    return changed ? { ...node, attribute } : node;
  }

  /** Carries one ai.onnx node across every boundary of its op between `from` and the target. */
  private node(
    node: NodeProto,
    original: NodeProto,
    facts: ValueFacts,
    nodeId: string,
    from: number,
    sink: WeightSink,
  ): Required<Rewrite> {
    const before: NodeProto[] = [];
    let after: NodeProto[] = [];
    const actions: string[] = [];
    let current = node;
    let op = node.op_type ?? '';
    let version = from;
    const fail: (at: number | undefined, reason: string) => never = (at, reason) => {
      const originalOp = original.op_type ?? '';
      throw new OpsetUpgradeError(
        `Raising the opset from ${from} to ${this.target} would change what node "${nodeId}" (${originalOp}) computes: ${reason}.`,
        originalOp,
        nodeId,
        from,
        this.target,
        at,
      );
    };

    for (let switched = true; switched;) {
      switched = false;
      const history = OP_HISTORY[op];
      if (!history) fail(undefined, `${op} is not an ai.onnx operator that Quant Studio knows`);
      if (history[0] > version)
        fail(undefined, `${op} does not exist at opset ${version} (it was introduced at ${history[0]})`);
      if (version >= (OP_REMOVED_AT[op] ?? Infinity)) fail(undefined, `${op} no longer exists at opset ${version}`);
      for (const v of history) {
        if (v <= version || v > this.target) continue;
        const step = OPSET_STEPS[op]?.[v];
        if (!step) fail(v, `${op} changed at opset ${v} and Quant Studio has no rule to carry it across`);
        if (step.kind === 'refuse') fail(v, `${op}-${v}: ${step.why}`);
        if (step.kind === 'same') {
          const type = step.floatOnly ? facts.elemType(current.input[0]) : undefined;
          if (type !== undefined && !FLOAT_TYPES.has(type))
            fail(v, `${op}-${v} accepts float inputs only (${step.why})`);
          continue;
        }
        const notes: string[] = [];
        const ctx = this.context(original, facts, sink, notes, (reason) => fail(v, `${op}-${v}: ${reason}`));
        const result = step.adapt(current, ctx);
        const rewrite: Rewrite = 'node' in result ? result : { node: result };
        const grew = (rewrite.before?.length ?? 0) + (rewrite.after?.length ?? 0) > 0;
        if (rewrite.node !== current || grew) actions.push(notes[0] ?? step.does);
        else if (notes.length > 0) actions.push(notes[0]);
        before.push(...(rewrite.before ?? []));
        after = [...(rewrite.after ?? []), ...after];
        current = rewrite.node;
        if ((current.op_type ?? '') !== op) {
          op = current.op_type ?? '';
          version = v;
          switched = true;
          break;
        }
      }
    }

    if (actions.length === 0) this.unchanged++;
    else {
      const action = actions.join('; ');
      const key = `${original.op_type ?? ''}\u0000${action}`;
      const entry = this.changes.get(key) ?? { opType: original.op_type ?? '', action, count: 0 };
      entry.count++;
      this.changes.set(key, entry);
    }
    return { before, node: current, after };
  }

  private context(
    original: NodeProto,
    facts: ValueFacts,
    sink: WeightSink,
    notes: string[],
    refuse: (reason: string) => never,
  ): AdapterContext {
    const names = this.names;
    const constant = (hint: string, dataType: number, dims: readonly number[], data: TensorArray): string => {
      const name = names.fresh(hint);
      sink.add(makeTensor(name, dataType, dims, data), original);
      return name;
    };
    return {
      targetOpset: this.target,
      original,
      facts,
      constant,
      int64s: (hint, values) => constant(hint, DataType.INT64, [values.length], BigInt64Array.from(values, toInt64)),
      freshName: (hint) => names.fresh(hint),
      readers: (name) => facts.readers(name),
      note: (what) => notes.push(what),
      refuse,
    };
  }
}
