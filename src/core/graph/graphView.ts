/**
 * The graph as the view draws it, built from the core's GraphIndex: a box per node, titled by its op type and
 * coloured by family, with its name; a box per graph input and output; an edge per tensor from its producer to each
 * consumer, labelled with its shape where the model says it. Weights and constants are folded into the node that
 * uses them (the inspector lists them): initializers get no box, nor do Constant nodes whose outputs all feed other
 * nodes. A QDQ model is read as quantized (qdqFold.ts): unless asked to show Q/DQ as nodes, each Q → DQ pair is
 * folded onto the edge it quantizes (labelled "int8 · scale 0.0123 · zp 0") and each DQ of an integer weight into
 * the node that reads it, before anything is laid out. Pure (no DOM): the graph step builds it on the page, the
 * comparison worker for both panes of the split view, tests in Node.
 */
import { inputNumber, outputNumber, type GraphIndex } from '../onnx/graphIndex.ts';
import { tensorSummary, type TensorSummary } from '../onnx/modelSummary.ts';
import { elementTypeName } from '../onnx/elementTypes.ts';
import type { TensorProto, ValueInfoProto } from '../onnx/model.ts';
import { opFamily, type OpFamily } from './opFamily.ts';
import { foldQdq, hasQdq, isQuantizeNode, quantLabel, type FoldedEdge, type QdqFold } from './qdqFold.ts';

export type BoxKind = 'node' | 'input' | 'output';

export interface ViewBox {
  kind: BoxKind;
  /** A node's stable id; `input:<tensor>` / `output:<tensor>` for graph inputs and outputs. */
  id: string;
  /** Index into the graph index's nodes, or -1 for an input or output box. */
  node: number;
  /** Title: the op type, or the tensor name of an input/output. */
  title: string;
  /** Second line: the node's name (its id when unnamed), or the input/output's shape. */
  subtitle: string;
  family: OpFamily;
  width: number;
  height: number;
  /** An input of a subgraph that is a tensor of an enclosing scope (GraphViewOptions.outerScope). */
  outerScope?: boolean;
}

export interface ViewEdge {
  source: number;
  target: number;
  tensor: string;
  /** The tensor's shape ("1×3×240×320"), or its quantization when a Q/DQ pair is folded onto it. */
  label: string;
  /** The Q/DQ pair folded onto this edge. */
  quant?: FoldedEdge;
}

export interface GraphViewOptions {
  /** Show QuantizeLinear/DequantizeLinear as nodes instead of folding them (default false: folded). */
  showQdq?: boolean;
  /** Inputs of a subgraph that are tensors of an enclosing scope (read by name): their boxes say so. */
  outerScope?: ReadonlySet<string>;
}

export interface GraphView {
  index: GraphIndex;
  boxes: ViewBox[];
  edges: ViewEdge[];
  /** Box of each node index (-1: folded into its consumers). */
  boxOfNode: Int32Array;
  boxById: Map<string, number>;
  /** Element type and shape of every tensor the model describes (inputs, outputs, value_info, weights). */
  tensorInfo: TensorInfo;
  /** The Q/DQ of a QDQ model (null for a float model); its nodes have no box unless shown as nodes. */
  qdq: QdqFold | null;
  /** Whether the Q/DQ nodes are folded away in this view. */
  qdqFolded: boolean;
}

/** What a renderer draws: boxes and edges. */
export type DrawnView = Pick<GraphView, 'boxes' | 'edges'>;

/** A pane of the split view: what it draws and finds by id, without the graph behind it (comparison.ts). */
export interface PaneView extends DrawnView {
  boxById: Map<string, number>;
  qdqFolded: boolean;
}

const NODE_HEIGHT = 42;
const IO_HEIGHT = 32;
const MAX_SUBTITLE = 30;

/** A long scoped name shortened in the middle, keeping its informative tail: "/model.22/…/conv/Conv". */
export function shortName(name: string, max = MAX_SUBTITLE): string {
  if (name.length <= max) return name;
  const tail = Math.ceil((max - 1) * 0.65);
  return `${name.slice(0, max - 1 - tail)}…${name.slice(name.length - tail)}`;
}

/** "1×3×240×320", "batch×3×h×w", "scalar", or '' for an unknown shape. */
export function shapeLabel(info: TensorSummary | undefined): string {
  if (!info?.shape) return '';
  return info.shape.length === 0 ? 'scalar' : info.shape.join('×');
}

/** The longest symbolic dimension name the graph's boxes and edges show as written ("batch", "height"). */
const MAX_DRAWN_SYMBOL = 10;

/**
 * A shape as the graph draws it, on boxes and edges: "1×3×240×320", "batch×3×h×w", and "?" for a symbolic
 * dimension with a long name ("p2o.DynamicDimension.0×3×p2o.DynamicDimension.1×…", as Paddle exports name them,
 * reads "?×3×?×?"), as an unknown dimension reads: shortening the whole string cut it into "p2o.Dynami….Dimension.2",
 * which says neither the rank nor the fixed sizes. The inspector gives the names (shapeLabel).
 */
export function drawnShapeLabel(info: TensorSummary | undefined): string {
  if (!info?.shape) return '';
  if (info.shape.length === 0) return 'scalar';
  return info.shape.map((d) => (typeof d === 'string' && d.length > MAX_DRAWN_SYMBOL ? '?' : d)).join('×');
}

/** A graph input's or output's shape as its box shows it, shortened in the middle if still too long for the box. */
function boxShape(info: TensorSummary | undefined): string {
  return shortName(drawnShapeLabel(info));
}

function boxWidth(title: string, subtitle: string): number {
  return Math.round(Math.min(260, Math.max(76, title.length * 7.4 + 22, subtitle.length * 6.1 + 18)));
}

/** The box of a graph input or output: its tensor's name over `subtitle`. */
function ioBox(kind: 'input' | 'output', name: string, subtitle: string): ViewBox {
  return {
    kind,
    id: `${kind}:${name}`,
    node: -1,
    title: name,
    subtitle,
    family: 'io',
    width: boxWidth(name, subtitle),
    height: IO_HEIGHT,
  };
}

/** Element type and shape of the tensors a model describes, looked up by name (GraphView.tensorInfo). */
export interface TensorInfo {
  get(name: string): TensorSummary | undefined;
}

/**
 * The tensors' descriptions: the value infos (value_info, inputs, outputs) at once, a weight's (initializer, else
 * Constant node's output) when first asked for. A QDQ model has tens of thousands of scale and zero-point
 * initializers whose descriptions only the inspector reads: one object and one copied shape each, made up front,
 * were a share of the split view's garbage. An initializer's description wins over a value info of its name.
 */
class TensorDescriptions implements TensorInfo {
  private readonly weights = new Map<string, TensorSummary>();

  constructor(
    private readonly index: GraphIndex,
    private readonly described: ReadonlyMap<string, TensorSummary>,
  ) {}

  get(name: string): TensorSummary | undefined {
    const initializer = this.index.initializers.get(name);
    if (initializer) return this.ofWeight(name, initializer);
    const info = this.described.get(name);
    if (info) return info;
    const constant = this.index.constants.get(name);
    return constant ? this.ofWeight(name, constant) : undefined;
  }

  /** Every description in one Map (value infos first, then the weights'): what a worker sends to the page. */
  toMap(): Map<string, TensorSummary> {
    const all = new Map(this.described);
    for (const [name, t] of this.index.initializers) all.set(name, this.ofWeight(name, t));
    for (const [name, t] of this.index.constants) if (!all.has(name)) all.set(name, this.ofWeight(name, t));
    return all;
  }

  private ofWeight(name: string, t: TensorProto): TensorSummary {
    let info = this.weights.get(name);
    if (!info) this.weights.set(name, (info = { name, elemType: elementTypeName(t.data_type), shape: [...t.dims] }));
    return info;
  }
}

/** The descriptions as a Map, which structured cloning can carry (a view made by buildGraphView holds them lazily). */
export function tensorInfoMap(info: TensorInfo): Map<string, TensorSummary> {
  return info instanceof TensorDescriptions ? info.toMap() : new Map(info as Map<string, TensorSummary>);
}

function describeTensors(index: GraphIndex): TensorInfo {
  const described = new Map<string, TensorSummary>();
  const add = (v: ValueInfoProto) => {
    if (v.name && v.type?.tensor_type) described.set(v.name, tensorSummary(v));
  };
  index.graph.value_info.forEach(add);
  index.graph.input.forEach(add);
  index.graph.output.forEach(add);
  return new TensorDescriptions(index, described);
}

/** A Constant node whose every output feeds some node is a weight of those nodes, not a box. */
function isFoldedConstant(index: GraphIndex, i: number, graphOutputs: Set<string>): boolean {
  const node = index.nodes[i];
  if (node.op_type !== 'Constant' || node.domain) return false;
  return node.output.every((o) => {
    const k = index.tensorNumber.get(o);
    return !graphOutputs.has(o) && k !== undefined && index.consumerStart[k + 1] > index.consumerStart[k];
  });
}

/**
 * The box producing each tensor, by tensor number (-1: none), and by name for the graph inputs no node reads (they
 * have no number; a graph output may still be one).
 */
function producerBoxes(index: GraphIndex) {
  const byNumber = new Int32Array(index.tensorNames.length).fill(-1);
  const unread = new Map<string, number>();
  return {
    byNumber,
    set(name: string, box: number) {
      const k = index.tensorNumber.get(name);
      if (k === undefined) unread.set(name, box);
      else byNumber[k] = box;
    },
    get(name: string): number | undefined {
      const k = index.tensorNumber.get(name);
      const box = k === undefined ? unread.get(name) : byNumber[k];
      return box === undefined || box < 0 ? undefined : box;
    },
  };
}

/** The boxes and edges of a graph. */
export function buildGraphView(index: GraphIndex, options: GraphViewOptions = {}): GraphView {
  const tensorInfo = describeTensors(index);
  const qdq = hasQdq(index) ? foldQdq(index) : null;
  const fold = qdq && !options.showQdq ? qdq : null;
  const graphOutputs = new Set(index.outputs.map((v) => v.name ?? ''));
  const boxes: ViewBox[] = [];
  const boxById = new Map<string, number>();
  const addBox = (box: ViewBox) => {
    boxById.set(box.id, boxes.length);
    boxes.push(box);
    return boxes.length - 1;
  };
  const producerBox = producerBoxes(index);

  for (const input of index.inputs) {
    const name = input.name ?? '';
    const shape = boxShape(tensorInfo.get(name));
    const subtitle = options.outerScope?.has(name) ? (shape ? `outer scope · ${shape}` : 'outer scope') : shape;
    producerBox.set(
      name,
      addBox({ ...ioBox('input', name, subtitle), ...(options.outerScope?.has(name) ? { outerScope: true } : {}) }),
    );
  }
  const boxOfNode = new Int32Array(index.nodes.length).fill(-1);
  for (const i of index.order) {
    if (isFoldedConstant(index, i, graphOutputs)) continue;
    const node = index.nodes[i];
    if (fold?.folded[i]) {
      // A folded DQ's output stands for the float tensor its Q read: edges run from that tensor's producer. (A folded
      // Q's output is read by DQs only, so no edge is keyed by it.)
      const edge = isQuantizeNode(node) ? undefined : fold.edges.get(node.output[0] ?? '');
      if (edge?.dequantize === i) {
        // By number: the DQ's output and its Q's input.
        const source = producerBox.byNumber[inputNumber(index, edge.quantize, 0)];
        if (source >= 0) producerBox.byNumber[outputNumber(index, i, 0)] = source;
      } else if (edge) {
        const source = producerBox.get(edge.source);
        if (source !== undefined) producerBox.set(edge.tensor, source);
      }
      continue;
    }
    const title = node.domain && node.domain !== 'ai.onnx' ? `${node.op_type}` : (node.op_type ?? '?');
    const subtitle = shortName(node.name || index.ids[i]);
    const b = addBox({
      kind: 'node',
      id: index.ids[i],
      node: i,
      title,
      subtitle,
      family: opFamily(node.op_type ?? ''),
      width: boxWidth(title, subtitle),
      height: NODE_HEIGHT,
    });
    boxOfNode[i] = b;
    for (let k = index.outputStart[i]; k < index.outputStart[i + 1]; k++) producerBox.byNumber[k] = b;
    // quantize_dynamic's float rescale after an integer op is folded: its result comes out of the op's box.
    const rescaled = fold?.rescaled.get(i);
    if (rescaled !== undefined) producerBox.byNumber[rescaled] = b;
  }

  const edges: ViewEdge[] = [];
  /** The edge carrying `tensor`: labelled by its quantization where a Q/DQ pair is folded onto it, else its shape. */
  const edgeOf = (source: number, target: number, tensor: string): ViewEdge => {
    const quant = fold?.edges.get(tensor);
    return quant
      ? { source, target, tensor, label: quantLabel(quant.params), quant }
      : { source, target, tensor, label: drawnShapeLabel(tensorInfo.get(tensor)) };
  };
  for (const i of index.order) {
    const target = boxOfNode[i];
    if (target < 0) continue;
    for (let r = index.readStart[i]; r < index.readStart[i + 1]; r++) {
      const t = index.reads[r];
      const source = producerBox.byNumber[t];
      if (source < 0 || source === target) continue;
      edges.push(edgeOf(source, target, index.tensorNames[t]));
    }
  }
  for (const output of index.outputs) {
    const name = output.name ?? '';
    const b = addBox(ioBox('output', name, boxShape(tensorInfo.get(name))));
    const source = producerBox.get(name);
    if (source !== undefined) edges.push(edgeOf(source, b, name));
  }
  return { index, boxes, edges, boxOfNode, boxById, tensorInfo, qdq, qdqFolded: fold !== null };
}

/** The layout's input: box sizes and edges as typed arrays (transferable to the layout worker). */
export function layoutInputOf(view: DrawnView) {
  const n = view.boxes.length;
  const widths = new Float32Array(n);
  const heights = new Float32Array(n);
  view.boxes.forEach((b, i) => {
    widths[i] = b.width;
    heights[i] = b.height;
  });
  return {
    widths,
    heights,
    edgeSources: Int32Array.from(view.edges, (e) => e.source),
    edgeTargets: Int32Array.from(view.edges, (e) => e.target),
  };
}
