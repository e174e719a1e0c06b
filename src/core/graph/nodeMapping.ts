/**
 * Which node of one model is which node of another: the split view's panes follow each other through it (a
 * selection, the point in view), and it marks nodes added, removed and changed. It must hold across what the
 * studio and other tools do to a model between two files:
 * - Q/DQ insertion: Q/DQ nodes are not nodes of the comparison (qdqFold.ts); a DQ's output stands for the float
 *   tensor its Q read, and a dequantized weight for a weight.
 * - ONNX Runtime's integer forms: a ConvInteger or QLinearConv is the Conv it quantizes (MatMul likewise), read
 *   through its codes operands; quantize_dynamic's DynamicQuantizeLinear and the float rescale after the op (Cast,
 *   Mul by the scales, Add of the bias) are not nodes of the comparison, and the rescale's result is the op's.
 * - folded BatchNormalization and affine blocks (Mul/Add by constants after a Conv): an unmatched node of the first
 *   model that reads only a matched Conv/Gemm/MatMul's output is "merged" into that node's counterpart.
 * - opset upgrades: an op renamed across versions (Upsample → Resize) still matches; helper nodes an adapter adds
 *   are "added".
 * - renamed nodes and tensors: after names, nodes are matched by structure, from the graph inputs down (same op,
 *   same matched producers), in topological order.
 *
 * Passes, each only among nodes still unmatched: (1) the same stable id, where the second model's node bears it as
 * its name (a real name, or the positional id the studio writes back as the name; an unnamed node's position shifts
 * when another tool inserts nodes), (2) the same output tensor name, (3) structure. A pair from (1) or (2) is kept
 * only when its op types agree. Two models share nothing when fewer than MIN_COMMON_SHARE of the smaller one's
 * nodes match: coincidences (two unnamed exports both starting "Conv_0 → Relu_1") then do not pass for a relation.
 * Pure, linear-ish in the node count (maps and arrays; no cytoscape traversal).
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import type { AttributeProto } from '../onnx/model.ts';
import {
  foldedSourceNumber,
  foldedTensorNumber,
  foldQdq,
  hasQdq,
  integerOpCodeSlots,
  type QdqFold,
} from './qdqFold.ts';

/**
 * Ops written under another name for the same computation: by a later opset (Upsample → Resize), or as ONNX Runtime's
 * integer ops (QOperator and quantize_dynamic forms) for the float op they quantize.
 */
const SAME_OP: Record<string, string> = {
  Upsample: 'Resize',
  ConvInteger: 'Conv',
  QLinearConv: 'Conv',
  MatMulInteger: 'MatMul',
  QLinearMatMul: 'MatMul',
};
/** Ops a float model has that quantization tools fold into the preceding Conv/Gemm/MatMul. */
const FOLDABLE = new Set(['BatchNormalization', 'Mul', 'Add', 'Sub', 'Div', 'Identity', 'Dropout']);
const FOLD_TARGETS = new Set(['Conv', 'ConvTranspose', 'Gemm', 'MatMul']);
/** Below this share of the smaller model's nodes in common, two models are unrelated. */
export const MIN_COMMON_SHARE = 0.1;

export type SideAStatus = 'same' | 'changed' | 'removed' | 'merged' | 'ignored';
export type SideBStatus = 'same' | 'changed' | 'added' | 'ignored';
export type MatchKind = 'id' | 'tensor' | 'structure';

export interface NodeMapping {
  /** Node index in B of each node of A (-1: none; a merged node maps to the node it was folded into). */
  aToB: Int32Array;
  /** Node index in A of each node of B (-1: none). */
  bToA: Int32Array;
  statusA: SideAStatus[];
  statusB: SideBStatus[];
  /** How each matched node of A was matched (undefined: not matched, or merged). */
  kindA: (MatchKind | undefined)[];
  /** Nodes matched one to one. */
  common: number;
  /** Whether the models share enough nodes to be compared (see MIN_COMMON_SHARE). */
  related: boolean;
  counts: { same: number; changed: number; removed: number; merged: number; added: number };
}

/** A graph with Q/DQ and Constants taken out: what the comparison sees. Tensors by their number in the index. */
interface Semantic {
  index: GraphIndex;
  /**
   * Whether a node takes part: not a folded Q/DQ, not a Constant, not what quantize_dynamic writes around an integer
   * op (DynamicQuantizeLinear, the float rescale after a ConvInteger or MatMulInteger: qdqFold.ts integerOpRescale).
   */
  part: Uint8Array;
  /** The node computing each tensor, by number (-1: none): a rescale's float result is its integer op's. */
  producer: Int32Array;
  /** The float result of each integer op with a rescale, by node (its own output otherwise). */
  rescaled: Map<number, number>;
  /**
   * The activation inputs each node reads, as tensors of the float graph (a DQ output → the tensor it stands for): node
   * i's are inputs[inputStart[i] .. inputStart[i+1]).
   */
  inputStart: Int32Array;
  inputs: Int32Array;
  /** Position of each graph input by tensor number (-1: not a graph input). */
  inputPosition: Int32Array;
  /** For a node that reads only constants: its op, attributes and rank among such nodes alike, in topological order. */
  constantKey: (string | null)[];
}

function semantic(index: GraphIndex, known?: QdqFold | null): Semantic {
  const fold: QdqFold | null = known !== undefined ? known : hasQdq(index) ? foldQdq(index) : null;
  const { tensorNumber, producerOf } = index;
  const tensors = index.tensorNames.length;
  // Per tensor number: whether it is a weight (an initializer, a Constant's output, a dequantized constant), and
  // the tensor it stands for (a folded DQ's output stands for the float tensor its Q read).
  const weight = new Uint8Array(tensors);
  for (let k = 0; k < tensors; k++) if (index.weightAt[k]) weight[k] = 1;
  const standsFor = new Int32Array(tensors);
  for (let k = 0; k < tensors; k++) standsFor[k] = k;
  if (fold) {
    for (const w of fold.weights.values()) {
      const k = foldedTensorNumber(index, w);
      if (k >= 0) weight[k] = 1;
    }
    for (const edge of fold.edges.values()) {
      const k = foldedTensorNumber(index, edge);
      const source = foldedSourceNumber(index, edge);
      if (k >= 0 && source >= 0) standsFor[k] = source;
    }
  }
  const part = new Uint8Array(index.nodes.length);
  index.nodes.forEach((node, i) => {
    part[i] = fold?.folded[i] || node.op_type === 'Constant' || node.op_type === 'DynamicQuantizeLinear' ? 0 : 1;
  });
  // quantize_dynamic's rescale after an integer op stands for nothing of its own (the fold folds its nodes): its
  // result is the op's.
  const producer = Int32Array.from(producerOf);
  const rescaled = fold?.rescaled ?? new Map<number, number>();
  for (const [op, output] of rescaled) producer[output] = op;
  const inputStart = new Int32Array(index.nodes.length + 1);
  const list: number[] = [];
  index.nodes.forEach((node, i) => {
    // An integer op's activations are its codes operands (its scales and zero points are not computations to match).
    const codeSlots = integerOpCodeSlots(node);
    for (let r = index.inputStart[i]; r < index.inputStart[i + 1]; r++) {
      const k = index.inputNumbers[r];
      if (k < 0 || weight[k] || (codeSlots && !codeSlots.includes(r - index.inputStart[i]))) continue;
      const source = standsFor[k];
      const p = producerOf[source];
      if (p >= 0 && index.nodes[p].op_type === 'Constant') continue;
      list.push(source);
    }
    inputStart[i + 1] = list.length;
  });
  const inputs = Int32Array.from(list);
  const inputPosition = new Int32Array(tensors).fill(-1);
  index.inputs.forEach((v, position) => {
    const k = tensorNumber.get(v.name ?? '');
    if (k !== undefined) inputPosition[k] = position;
  });
  const constantKey: (string | null)[] = new Array(index.nodes.length).fill(null);
  const seen = new Map<string, number>();
  for (const i of index.order) {
    if (!part[i] || inputStart[i + 1] > inputStart[i]) continue;
    const node = index.nodes[i];
    const base = `${SAME_OP[node.op_type ?? ''] ?? node.op_type}|const|${node.attribute.map(attributeKey).sort().join(',')}`;
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    constantKey[i] = `${base}#${k}`;
  }
  return { index, part, producer, rescaled, inputStart, inputs, inputPosition, constantKey };
}

/** The tensor numbers a node's result is read under: its outputs, or its rescale's float result. */
function resultsOf(s: Semantic, i: number): number[] {
  const out = s.rescaled.get(i);
  if (out !== undefined) return [out];
  const list: number[] = [];
  for (let k = s.index.outputStart[i]; k < s.index.outputStart[i + 1]; k++) list.push(k);
  return list;
}

const opOf = (s: Semantic, i: number) => {
  const op = s.index.nodes[i].op_type ?? '';
  return SAME_OP[op] ?? op;
};

function attributeKey(a: AttributeProto): string {
  return JSON.stringify([a.name, a.i, a.f, a.ints, a.floats, a.s ? Array.from(a.s) : null]);
}

function sameAttributes(a: GraphIndex, i: number, b: GraphIndex, j: number): boolean {
  const ka = a.nodes[i].attribute.map(attributeKey).sort();
  const kb = b.nodes[j].attribute.map(attributeKey).sort();
  return ka.length === kb.length && ka.every((k, n) => k === kb[n]);
}

/** Maps the nodes of `a` to those of `b`. `folds`: their Q/DQ folds when already at hand (the graph views have them). */
export function mapNodes(a: GraphIndex, b: GraphIndex, folds?: { a: QdqFold | null; b: QdqFold | null }): NodeMapping {
  const A = semantic(a, folds?.a),
    B = semantic(b, folds?.b);
  const aToB = new Int32Array(a.nodes.length).fill(-1);
  const bToA = new Int32Array(b.nodes.length).fill(-1);
  const mergedInto = new Int32Array(a.nodes.length).fill(-1);
  const kindA: (MatchKind | undefined)[] = new Array(a.nodes.length);
  const pair = (i: number, j: number, kind: MatchKind) => {
    aToB[i] = j;
    bToA[j] = i;
    kindA[i] = kind;
  };
  const free = (i: number, j: number) =>
    A.part[i] && B.part[j] && aToB[i] < 0 && bToA[j] < 0 && mergedInto[i] < 0 && opOf(A, i) === opOf(B, j);

  // (1) The same stable id, where the second file names the node so: an unnamed node's positional id
  // (`Conv_12`) says nothing once another tool has inserted nodes before it (ONNX Runtime's Q/DQ shift every
  // position), while the studio writes its positional ids back as names.
  b.ids.forEach((id, j) => {
    if (b.nodes[j].name !== id) return;
    const i = a.indexOfId.get(id);
    if (i !== undefined && free(i, j)) pair(i, j, 'id');
  });
  // (2) The same output tensor name (a rescaled integer op's: its float result's).
  a.nodes.forEach((_, i) => {
    if (!A.part[i] || aToB[i] >= 0) return;
    for (const t of resultsOf(A, i)) {
      const k = b.tensorNumber.get(a.tensorNames[t]);
      const j = k === undefined ? -1 : B.producer[k];
      if (j >= 0 && free(i, j)) {
        pair(i, j, 'tensor');
        return;
      }
    }
  });

  // (3) Structure, interleaved with (4) folds: a node's key is its op and the counterparts of what it reads.
  const counterpartA = (s: Semantic, t: number): string | null => {
    const p = s.producer[t];
    if (p < 0) {
      const k = s.inputPosition[t];
      return k < 0 ? null : `in${k}`;
    }
    const j = aToB[p] >= 0 ? aToB[p] : mergedInto[p];
    return j >= 0 ? `n${j}` : null;
  };
  const counterpartB = (s: Semantic, t: number): string | null => {
    const p = s.producer[t];
    if (p < 0) {
      const k = s.inputPosition[t];
      return k < 0 ? null : `in${k}`;
    }
    return s.part[p] ? `n${p}` : null;
  };
  const keyOf = (s: Semantic, i: number, side: 'a' | 'b'): string | null => {
    if (s.constantKey[i] !== null) return s.constantKey[i];
    const parts: string[] = [opOf(s, i)];
    for (let r = s.inputStart[i]; r < s.inputStart[i + 1]; r++) {
      const t = s.inputs[r];
      const c = side === 'a' ? counterpartA(s, t) : counterpartB(s, t);
      if (c === null) return null;
      parts.push(c);
    }
    return parts.length > 1 ? parts.join('|') : null;
  };
  for (let round = 0; round < 8; round++) {
    let changed = false;
    // Keys of B's unmatched nodes (B's own producer indices: A's keys name B nodes through aToB).
    const waiting = new Map<string, number[]>();
    for (const j of b.order) {
      if (!B.part[j] || bToA[j] >= 0) continue;
      const k = keyOf(B, j, 'b');
      if (k === null) continue;
      const list = waiting.get(k);
      if (list) list.push(j);
      else waiting.set(k, [j]);
    }
    for (const i of a.order) {
      if (!A.part[i] || aToB[i] >= 0 || mergedInto[i] >= 0) continue;
      const k = keyOf(A, i, 'a');
      const list = k === null ? undefined : waiting.get(k);
      const j = list?.find((x) => bToA[x] < 0);
      if (j !== undefined) {
        pair(i, j, 'structure');
        changed = true;
        continue;
      }
      // (4) A fold: a foldable op reading one matched Conv/Gemm/MatMul output (its other inputs constants).
      if (FOLDABLE.has(a.nodes[i].op_type ?? '') && A.inputStart[i + 1] - A.inputStart[i] === 1) {
        const p = A.producer[A.inputs[A.inputStart[i]]];
        const target = p < 0 ? -1 : aToB[p] >= 0 ? aToB[p] : mergedInto[p];
        if (p >= 0 && target >= 0 && FOLD_TARGETS.has(opOf(B, target))) {
          mergedInto[i] = target;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }

  const statusA: SideAStatus[] = a.nodes.map((_, i) =>
    !A.part[i] ? 'ignored' : aToB[i] >= 0 ? 'same' : mergedInto[i] >= 0 ? 'merged' : 'removed',
  );
  const statusB: SideBStatus[] = b.nodes.map((_, j) => (!B.part[j] ? 'ignored' : bToA[j] >= 0 ? 'same' : 'added'));
  const absorbed = new Set<number>();
  mergedInto.forEach((j) => j >= 0 && absorbed.add(j));
  for (let i = 0; i < a.nodes.length; i++) {
    const j = aToB[i];
    if (j < 0) continue;
    if ((a.nodes[i].op_type ?? '') !== (b.nodes[j].op_type ?? '') || !sameAttributes(a, i, b, j) || absorbed.has(j)) {
      statusA[i] = 'changed';
      statusB[j] = 'changed';
    }
  }
  // Merged nodes map to their target too (a selection there lands on what computes it now).
  mergedInto.forEach((j, i) => {
    if (j >= 0) aToB[i] = j;
  });
  const counts = { same: 0, changed: 0, removed: 0, merged: 0, added: 0 };
  for (const s of statusA) if (s === 'same' || s === 'changed' || s === 'removed' || s === 'merged') counts[s]++;
  for (const s of statusB) if (s === 'added') counts.added++;
  const common = counts.same + counts.changed;
  const smaller = Math.min(
    A.part.reduce((n, v) => n + v, 0),
    B.part.reduce((n, v) => n + v, 0),
  );
  return {
    aToB,
    bToA,
    statusA,
    statusB,
    kindA,
    common,
    related: smaller > 0 && common >= Math.max(1, MIN_COMMON_SHARE * smaller),
    counts,
  };
}
