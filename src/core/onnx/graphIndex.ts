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
import { NumberedTensorMap } from './tensorNumbers.ts';

export interface GraphIndex {
  readonly graph: GraphProto;
  /** Nodes in file order; every other per-node array is indexed alike. */
  readonly nodes: readonly NodeProto[];
  readonly ids: readonly NodeId[];
  readonly indexOfId: ReadonlyMap<NodeId, number>;
  /** Node index producing each tensor (read from producerOf). */
  readonly producer: ReadonlyMap<string, number>;
  /** Node indices consuming each tensor (a node that reads a tensor twice is listed once; read from the CSR below). */
  readonly consumers: ReadonlyMap<string, readonly number[]>;
  /** Every tensor name the nodes write or read, numbered once: node outputs first (file order), then other reads. */
  readonly tensorNumber: ReadonlyMap<string, number>;
  readonly tensorNames: readonly string[];
  /** Node index producing each tensor number (-1: a graph input, a weight, an outer-scope name). */
  readonly producerOf: Int32Array;
  /** CSR by tensor number: the nodes reading tensor k, in node order, are consumerNodes[consumerStart[k] .. consumerStart[k+1]). */
  readonly consumerStart: Int32Array;
  readonly consumerNodes: Int32Array;
  /** CSR by node: nodeInputs[i] as tensor numbers, reads[readStart[i] .. readStart[i+1]). */
  readonly readStart: Int32Array;
  readonly reads: Int32Array;
  /**
   * Each node's inputs as written, by position: node i's input x is tensor number inputNumbers[inputStart[i] + x]
   * (-1 for an empty name). Unlike `reads`, a tensor read twice is there twice (see inputNumber).
   */
  readonly inputStart: Int32Array;
  readonly inputNumbers: Int32Array;
  /** Node i's non-empty outputs are the tensor numbers outputStart[i] .. outputStart[i+1] - 1, in order (see outputNumber). */
  readonly outputStart: Int32Array;
  /** The weight (initializer, else Constant node's output) of each tensor number; undefined for an activation. */
  readonly weightAt: readonly (TensorProto | undefined)[];
  /** Node indices in topological order (stable: file order where the graph allows it). */
  readonly order: Int32Array;
  /** Initializers by name. */
  readonly initializers: ReadonlyMap<string, TensorProto>;
  /** Tensors produced by Constant nodes, by output name. */
  readonly constants: ReadonlyMap<string, TensorProto>;
  /** Graph inputs that are real inputs (not initializers listed as inputs, as old IR versions do). */
  readonly inputs: readonly ValueInfoProto[];
  readonly outputs: readonly ValueInfoProto[];
  /** Tensors every node reads, explicit inputs first, then outer-scope names its subgraphs use (made when first read). */
  readonly nodeInputs: readonly (readonly string[])[];
  /** CSR adjacency over node indices: successors of i are succ[succStart[i] .. succStart[i+1]). */
  readonly succStart: Int32Array;
  readonly succ: Int32Array;
  readonly predStart: Int32Array;
  readonly pred: Int32Array;
}

/** The weight value of a tensor name: an initializer or a Constant node's output, else undefined. */
export function weightOf(index: GraphIndex, name: string): TensorProto | undefined {
  const k = index.tensorNumber.get(name);
  // A name no node reads or writes has no number: only an unread initializer can be one.
  return k !== undefined ? index.weightAt[k] : index.initializers.get(name);
}

/** The tensor number of node i's input at position x (-1: none, or an empty name). */
export function inputNumber(index: GraphIndex, i: number, x: number): number {
  const at = index.inputStart[i] + x;
  return at < index.inputStart[i + 1] ? index.inputNumbers[at] : -1;
}

/** The tensor number of node i's output at position x (-1: none, or an empty name). */
export function outputNumber(index: GraphIndex, i: number, x: number): number {
  const outputs = index.nodes[i].output;
  if (!outputs[x]) return -1;
  let k = index.outputStart[i];
  for (let y = 0; y < x; y++) if (outputs[y]) k++;
  return k;
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
  from: ArrayLike<number>,
  to: ArrayLike<number>,
): { start: Int32Array; targets: Int32Array } {
  const start = new Int32Array(count + 1);
  for (let k = 0; k < from.length; k++) start[from[k] + 1]++;
  for (let i = 0; i < count; i++) start[i + 1] += start[i];
  const fill = start.slice(0, count);
  const targets = new Int32Array(from.length);
  for (let k = 0; k < from.length; k++) targets[fill[from[k]]++] = to[k];
  return { start, targets };
}

/**
 * Node `n`'s inputs numbered (`numberOf`) as written, appended to `inputs` (-1 for an empty name), and the tensors it
 * reads, each once, in order, appended to `reads`: its inputs, then the outer-scope names its subgraphs read.
 */
function pushReads(n: NodeProto, numberOf: (name: string) => number, inputs: number[], reads: number[]): void {
  const start = reads.length;
  const names = n.input;
  for (let x = 0; x < names.length; x++) {
    const k = names[x] ? numberOf(names[x]) : -1;
    inputs.push(k);
    if (k >= 0) pushOnce(reads, start, k);
  }
  if (hasSubgraph(n)) for (const x of outerScopeInputs(n)) pushOnce(reads, start, numberOf(x));
}

function hasSubgraph(n: NodeProto): boolean {
  for (const a of n.attribute) if (a.g || a.graphs.length > 0) return true;
  return false;
}

/** Appends `k` to `list` unless it is already among list[start..]. */
function pushOnce(list: number[], start: number, k: number): void {
  for (let r = start; r < list.length; r++) if (list[r] === k) return;
  list.push(k);
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
  yield;
  // Each tensor name numbered once: node outputs in pass 1 (each produced once), the other names nodes read in pass 2.
  const tensorNumber = new Map<string, number>();
  const tensorNames: string[] = [];
  const producers: number[] = [];
  const constants = new Map<string, TensorProto>();
  const outputStart = new Int32Array(nodes.length + 1);
  for (let i = 0; i < nodes.length; i++) {
    if (i > 0 && i % sliceNodes === 0) yield;
    const n = nodes[i];
    outputStart[i] = tensorNames.length;
    for (const o of n.output) {
      if (!o) continue;
      // One Map operation a name: a name seen before leaves the size as it was.
      const size = tensorNumber.size;
      tensorNumber.set(o, tensorNames.length);
      if (tensorNumber.size === size) {
        const known = tensorNames.indexOf(o);
        throw new InvalidModelError(`tensor "${o}" is produced by two nodes (${ids[producers[known]]} and ${ids[i]})`);
      }
      tensorNames.push(o);
      producers.push(i);
    }
    if (n.op_type === 'Constant' && !n.domain && n.output[0]) {
      const t = constantNodeTensor(n);
      if (t) constants.set(n.output[0], t);
    }
  }
  const produced = tensorNames.length;
  outputStart[nodes.length] = produced;

  const initializers = new Map<string, TensorProto>();
  for (const t of graph.initializer) initializers.set(t.name ?? '', t);
  const inputs = graph.input.filter((v) => !initializers.has(v.name ?? ''));
  yield;

  const numberOf = (name: string) => {
    let k = tensorNumber.get(name);
    if (k === undefined) {
      tensorNumber.set(name, (k = tensorNames.length));
      tensorNames.push(name);
    }
    return k;
  };
  const readList: number[] = [];
  const readStart = new Int32Array(nodes.length + 1);
  const inputList: number[] = [];
  const inputStart = new Int32Array(nodes.length + 1);
  // Edges producer → consumer, as two flat lists (no pair arrays: a 67,000-node QDQ graph has ~100,000 edges).
  const edgeFrom: number[] = [];
  const edgeTo: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    if (i > 0 && i % sliceNodes === 0) yield;
    pushReads(nodes[i], numberOf, inputList, readList);
    inputStart[i + 1] = inputList.length;
    readStart[i + 1] = readList.length;
    for (let r = readStart[i]; r < readList.length; r++) {
      const t = readList[r];
      if (t < produced) {
        edgeFrom.push(producers[t]);
        edgeTo.push(i);
      }
    }
  }
  yield;
  const reads = Int32Array.from(readList);
  const inputNumbers = Int32Array.from(inputList);
  const weightAt = new Array<TensorProto | undefined>(tensorNames.length);
  for (const [name, t] of constants) weightAt[tensorNumber.get(name)!] = t;
  for (const [name, t] of initializers) {
    const k = tensorNumber.get(name);
    if (k !== undefined) weightAt[k] = t;
  }
  const producerOf = new Int32Array(tensorNames.length).fill(-1);
  producerOf.set(producers);
  const readers: number[] = new Array<number>(reads.length);
  for (let i = 0; i < nodes.length; i++) for (let r = readStart[i]; r < readStart[i + 1]; r++) readers[r] = i;
  const consumerCsr = buildCsr(tensorNames.length, reads, readers);
  const succCsr = buildCsr(nodes.length, edgeFrom, edgeTo);
  const predCsr = buildCsr(nodes.length, edgeTo, edgeFrom);
  const order = topologicalOrder(nodes.length, succCsr.start, succCsr.targets, predCsr.start);
  if (order.length < nodes.length) {
    const placed = new Set(order);
    const stuck = ids.filter((_, i) => !placed.has(i)).slice(0, 5);
    throw new InvalidModelError(`the graph has a cycle (it runs through ${stuck.join(', ')}…)`);
  }
  const consumerStart = consumerCsr.start;
  const consumerNodes = consumerCsr.targets;
  const producer = new NumberedTensorMap<number>(
    tensorNumber,
    tensorNames,
    (k) => (producerOf[k] >= 0 ? producerOf[k] : undefined),
    () => range(produced),
  );
  const consumers = new NumberedTensorMap<readonly number[]>(
    tensorNumber,
    tensorNames,
    (k) =>
      consumerStart[k + 1] > consumerStart[k]
        ? Array.from(consumerNodes.subarray(consumerStart[k], consumerStart[k + 1]))
        : undefined,
    () => firstReads(reads, tensorNames.length),
  );
  let nodeInputs: string[][] | undefined;
  let indexOfId: Map<NodeId, number> | undefined;
  return {
    graph,
    nodes,
    ids,
    // Made when first read: the split view's quantized pane (67,000 nodes) never looks a node up by id.
    get indexOfId() {
      if (!indexOfId) {
        indexOfId = new Map<NodeId, number>();
        for (let i = 0; i < ids.length; i++) indexOfId.set(ids[i], i);
      }
      return indexOfId;
    },
    producer,
    consumers,
    tensorNumber,
    tensorNames,
    producerOf,
    consumerStart,
    consumerNodes,
    readStart,
    reads,
    inputStart,
    inputNumbers,
    outputStart,
    weightAt,
    order,
    initializers,
    constants,
    inputs,
    outputs: graph.output,
    get nodeInputs() {
      return (nodeInputs ??= Array.from(nodes, (_, i) =>
        Array.from(reads.subarray(readStart[i], readStart[i + 1]), (k) => tensorNames[k]),
      ));
    },
    succStart: succCsr.start,
    succ: succCsr.targets,
    predStart: predCsr.start,
    pred: predCsr.targets,
  };
}

function* range(n: number): Generator<number> {
  for (let k = 0; k < n; k++) yield k;
}

/** The tensor numbers in `reads` in the order each is first read (a Map of consumers by name has that order). */
function* firstReads(reads: Int32Array, tensors: number): Generator<number> {
  const seen = new Uint8Array(tensors);
  for (const k of reads) {
    if (seen[k]) continue;
    seen[k] = 1;
    yield k;
  }
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

/**
 * Kahn's algorithm with a min-heap on node index, so a graph already in order keeps its order. Such a graph (every
 * edge to a later node: what exporters and the studio's writer store) is that order without the heap.
 */
function topologicalOrder(count: number, succStart: Int32Array, succ: Int32Array, predStart: Int32Array): Int32Array {
  if (inFileOrder(count, succStart, succ)) {
    const order = new Int32Array(count);
    for (let i = 0; i < count; i++) order[i] = i;
    return order;
  }
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

/** Whether every edge runs from a node to a later one: then file order is the min-heap Kahn order. */
function inFileOrder(count: number, succStart: Int32Array, succ: Int32Array): boolean {
  for (let i = 0; i < count; i++) for (let k = succStart[i]; k < succStart[i + 1]; k++) if (succ[k] <= i) return false;
  return true;
}
