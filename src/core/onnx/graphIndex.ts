/**
 * The graph as the rest of the studio walks it: who produces and who consumes each tensor, a
 * topological order (also for graphs stored out of order), stable node ids, and where the weights are.
 *
 * Weights are found wherever real exporters put them: initializers (also when old IR versions list
 * them in graph.input too) and Constant nodes. Built once per model, read-only afterwards; adjacency is
 * kept in flat arrays because selection and layout traverse graphs of tens of thousands of nodes.
 */
import { InvalidModelError } from './errors.ts';
import type { GraphProto, NodeId, NodeProto, TensorProto, ValueInfoProto } from './model.ts';
import { assignNodeIds } from './nodeIds.ts';
import { subgraphsOf, forEachGraph } from './walk.ts';
import { constantNodeTensor } from './constantNode.ts';

export interface GraphIndex {
  readonly graph: GraphProto;
  /** Nodes in file order; every other per-node array is indexed alike. */
  readonly nodes: readonly NodeProto[];
  readonly ids: readonly NodeId[];
  readonly indexOfId: ReadonlyMap<NodeId, number>;
  /** Node index producing each tensor. */
  readonly producer: ReadonlyMap<string, number>;
  /** Node indices consuming each tensor (a node that reads a tensor twice is listed once). */
  readonly consumers: ReadonlyMap<string, readonly number[]>;
  /** Node indices in topological order (stable: file order where the graph allows it). */
  readonly order: Int32Array;
  /** Initializers by name. */
  readonly initializers: ReadonlyMap<string, TensorProto>;
  /** Tensors produced by Constant nodes, by output name. */
  readonly constants: ReadonlyMap<string, TensorProto>;
  /** Graph inputs that are real inputs (not initializers listed as inputs, as old IR versions do). */
  readonly inputs: readonly ValueInfoProto[];
  readonly outputs: readonly ValueInfoProto[];
  /** Tensors every node reads, explicit inputs first, then outer-scope names its subgraphs use. */
  readonly nodeInputs: readonly (readonly string[])[];
  /** CSR adjacency over node indices: successors of i are succ[succStart[i] .. succStart[i+1]). */
  readonly succStart: Int32Array;
  readonly succ: Int32Array;
  readonly predStart: Int32Array;
  readonly pred: Int32Array;
}

/** The weight value of a tensor name: an initializer or a Constant node's output, else undefined. */
export function weightOf(index: GraphIndex, name: string): TensorProto | undefined {
  return index.initializers.get(name) ?? index.constants.get(name);
}

/** Names a node's subgraphs read from the enclosing scopes (used by If/Loop/Scan bodies). */
export function outerScopeInputs(node: NodeProto): string[] {
  const used = new Set<string>();
  for (const sub of subgraphsOf(node)) {
    forEachGraph(sub, (g) => {
      const defined = new Set<string>([
        ...g.input.map((v) => v.name ?? ''),
        ...g.initializer.map((t) => t.name ?? ''),
        ...g.node.flatMap((n) => n.output),
      ]);
      for (const n of g.node) for (const i of n.input) if (i && !defined.has(i)) used.add(i);
    });
  }
  return [...used];
}

/**
 * Every tensor name the nodes read: their inputs and the outer-scope names their subgraphs (If, Loop, Scan, at any
 * depth) read. What a writer that drops unread initializers must keep: a subgraph's reads are not node inputs.
 */
export function tensorsReadBy(nodes: readonly NodeProto[]): Set<string> {
  const read = new Set<string>();
  for (const n of nodes) {
    for (const i of n.input) if (i) read.add(i);
    for (const i of outerScopeInputs(n)) read.add(i);
  }
  return read;
}

/** CSR adjacency of the edges from[k] → to[k]. */
function buildCsr(
  count: number,
  from: readonly number[],
  to: readonly number[],
): { start: Int32Array; targets: Int32Array } {
  const start = new Int32Array(count + 1);
  for (const a of from) start[a + 1]++;
  for (let i = 0; i < count; i++) start[i + 1] += start[i];
  const fill = start.slice(0, count);
  const targets = new Int32Array(from.length);
  for (let k = 0; k < from.length; k++) targets[fill[from[k]]++] = to[k];
  return { start, targets };
}

/** The tensors a node reads, each once, in order: its inputs, then the outer-scope names its subgraphs read. */
function readsOf(n: NodeProto): string[] {
  const reads: string[] = [];
  for (const x of n.input) if (x && !reads.includes(x)) reads.push(x);
  if (n.attribute.some((a) => a.g || a.graphs.length > 0))
    for (const x of outerScopeInputs(n)) if (!reads.includes(x)) reads.push(x);
  return reads;
}

/** Nodes between two pauses of buildGraphIndexInSlices. */
export const INDEX_SLICE_NODES = 8000;

/**
 * The index built in steps: it yields after every `sliceNodes` nodes of each pass over the nodes, so that a caller
 * on the page can give the event loop a turn in between (a 67,000-node graph is otherwise one task of 0.3–0.8 s).
 */
function* indexSteps(graph: GraphProto, sliceNodes: number): Generator<void, GraphIndex> {
  const nodes = graph.node;
  const ids = assignNodeIds(nodes);
  const indexOfId = new Map<NodeId, number>(ids.map((id, i) => [id, i]));
  yield;
  const producer = new Map<string, number>();
  const constants = new Map<string, TensorProto>();
  for (let i = 0; i < nodes.length; i++) {
    if (i > 0 && i % sliceNodes === 0) yield;
    const n = nodes[i];
    for (const o of n.output) {
      if (!o) continue;
      if (producer.has(o)) {
        throw new InvalidModelError(`tensor "${o}" is produced by two nodes (${ids[producer.get(o)!]} and ${ids[i]})`);
      }
      producer.set(o, i);
    }
    if (n.op_type === 'Constant' && !n.domain && n.output[0]) {
      const t = constantNodeTensor(n);
      if (t) constants.set(n.output[0], t);
    }
  }

  const initializers = new Map<string, TensorProto>(graph.initializer.map((t) => [t.name ?? '', t]));
  const inputs = graph.input.filter((v) => !initializers.has(v.name ?? ''));
  yield;

  const consumers = new Map<string, number[]>();
  const nodeInputs: string[][] = [];
  // Edges producer → consumer, as two flat lists (no pair arrays: a 67,000-node QDQ graph has ~100,000 edges).
  const edgeFrom: number[] = [];
  const edgeTo: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    if (i > 0 && i % sliceNodes === 0) yield;
    const reads = readsOf(nodes[i]);
    nodeInputs.push(reads);
    for (const t of reads) {
      let list = consumers.get(t);
      if (!list) consumers.set(t, (list = []));
      list.push(i);
      const p = producer.get(t);
      if (p !== undefined) {
        edgeFrom.push(p);
        edgeTo.push(i);
      }
    }
  }
  yield;
  const succCsr = buildCsr(nodes.length, edgeFrom, edgeTo);
  const predCsr = buildCsr(nodes.length, edgeTo, edgeFrom);
  const order = topologicalOrder(nodes.length, succCsr.start, succCsr.targets, predCsr.start);
  if (order.length < nodes.length) {
    const placed = new Set(order);
    const stuck = ids.filter((_, i) => !placed.has(i)).slice(0, 5);
    throw new InvalidModelError(`the graph has a cycle (it runs through ${stuck.join(', ')}…)`);
  }
  return {
    graph,
    nodes,
    ids,
    indexOfId,
    producer,
    consumers,
    order,
    initializers,
    constants,
    inputs,
    outputs: graph.output,
    nodeInputs,
    succStart: succCsr.start,
    succ: succCsr.targets,
    predStart: predCsr.start,
    pred: predCsr.targets,
  };
}

/** Builds the index. Throws InvalidModelError for a cycle or a tensor produced twice. */
export function buildGraphIndex(graph: GraphProto): GraphIndex {
  const steps = indexSteps(graph, Infinity);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The same index, built in slices with `pause()` awaited between them (the page passes its nextTask). */
export async function buildGraphIndexInSlices(
  graph: GraphProto,
  pause: () => Promise<void>,
  sliceNodes = INDEX_SLICE_NODES,
): Promise<GraphIndex> {
  const steps = indexSteps(graph, sliceNodes);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}

/** Kahn's algorithm with a min-heap on node index, so a graph already in order keeps its order. */
function topologicalOrder(count: number, succStart: Int32Array, succ: Int32Array, predStart: Int32Array): Int32Array {
  const indegree = new Int32Array(count);
  for (let i = 0; i < count; i++) indegree[i] = predStart[i + 1] - predStart[i];
  const heap: number[] = [];
  const push = (v: number) => {
    heap.push(v);
    for (let c = heap.length - 1; c > 0;) {
      const p = (c - 1) >> 1;
      if (heap[p] <= heap[c]) break;
      [heap[p], heap[c]] = [heap[c], heap[p]];
      c = p;
    }
  };
  const pop = (): number => {
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let p = 0; ;) {
        const l = 2 * p + 1,
          r = l + 1;
        let m = p;
        if (l < heap.length && heap[l] < heap[m]) m = l;
        if (r < heap.length && heap[r] < heap[m]) m = r;
        if (m === p) break;
        [heap[p], heap[m]] = [heap[m], heap[p]];
        p = m;
      }
    }
    return top;
  };
  for (let i = 0; i < count; i++) if (indegree[i] === 0) push(i);
  const order = new Int32Array(count);
  let n = 0;
  while (heap.length > 0) {
    const v = pop();
    order[n++] = v;
    for (let k = succStart[v]; k < succStart[v + 1]; k++) if (--indegree[succ[k]] === 0) push(succ[k]);
  }
  return order.subarray(0, n);
}
