/**
 * Windows for automatic mixed precision: every budget spent on one contiguous stretch of the graph, in
 * topological order. Where a model's quantization loss sits in a whole stage (its stem, say) rather than in a few
 * tensors, the noises of neighbouring tensors do not add up (a wide weight gains only once its input activation is
 * wide, a float node only once its neighbours are), so measuring units apart or in blocks of one kind misses what a
 * stage at higher precision as a whole gains. A window is measured as one candidate: the first nodes from its start
 * kept float (as many as the float budget allows), then the activation groups and weights after them at 16 bits (as
 * many as their budgets allow). Pure: positions come from the written model's node order.
 */
import type { GraphProto, ModelProto } from '../onnx/model.ts';
import type { PrecisionKind, PrecisionUnit } from './precisionUnit.ts';

const QDQ = new Set(['QuantizeLinear', 'DequantizeLinear']);

/**
 * Where each unit sits in topological order: the position (among the written model's nodes that are not Q/DQ) of an
 * activation group's first producer (−1 for a graph input), of a weight's first reader, of a float candidate's node.
 * The nodes of an If/Loop/Scan body come just before their holder, bodies in attribute order (a body node by its
 * scoped id, `holder/then_branch/Conv_3`, as precisionUnits names it; a body's inputs at its first node's position).
 * Units not found in the written model take their predecessor's position in their own list.
 */
export function unitPositions(
  written: ModelProto,
  units: Readonly<Record<PrecisionKind, readonly PrecisionUnit[]>>,
): Map<PrecisionUnit, number> {
  const graphInputs = new Set((written.graph?.input ?? []).map((i) => i.name ?? ''));
  const producedAt = new Map<string, number>();
  const nodeAt = new Map<string, number>();
  // DequantizeLinear output of a constant → the constant's codes (`<weight>_quantized…`).
  const constantOf = new Map<string, string>();
  const readAt = new Map<string, number>();
  let p = 0;
  const visit = (graph: GraphProto, prefix: string) => {
    const initializers = new Set(graph.initializer.map((t) => t.name ?? ''));
    if (prefix) for (const i of graph.input) if (!producedAt.has(i.name ?? '')) producedAt.set(i.name ?? '', p);
    for (const node of graph.node) {
      if (QDQ.has(node.op_type ?? '')) {
        if (node.op_type === 'DequantizeLinear' && initializers.has(node.input[0]))
          constantOf.set(node.output[0], node.input[0]);
        continue;
      }
      // The writer names an unnamed body node by its scoped id, a named one keeps its name.
      const name = node.name ?? '';
      const id = name.startsWith(prefix) ? name : `${prefix}${name}`;
      for (const a of node.attribute) if (a.g) visit(a.g, `${id}/${a.name}/`);
      nodeAt.set(id, p);
      for (const o of node.output) if (!producedAt.has(o)) producedAt.set(o, p);
      for (const i of node.input) {
        const codes = constantOf.get(i);
        if (codes !== undefined && !readAt.has(codes)) readAt.set(codes, p);
      }
      p++;
    }
  };
  if (written.graph) visit(written.graph, '');
  // A graph output quantized by the writer is produced under `<name>_QuantizeLinear_Input`.
  const producer = (t: string) => producedAt.get(t) ?? producedAt.get(`${t}_QuantizeLinear_Input`);
  const weightAt = (w: string) => {
    let best: number | undefined;
    for (const [codes, at] of readAt)
      if ((codes === `${w}_quantized` || codes.startsWith(`${w}_quantized_`)) && (best === undefined || at < best))
        best = at;
    return best;
  };
  const out = new Map<PrecisionUnit, number>();
  for (const kind of ['act16', 'w16', 'float'] as const) {
    let last = -1;
    for (const u of units[kind]) {
      const found =
        kind === 'act16'
          ? Math.min(...u.names.map((t) => producer(t) ?? (graphInputs.has(t) ? -1 : Infinity)))
          : kind === 'w16'
            ? weightAt(u.names[0])
            : nodeAt.get(u.names[0]);
      const at = found !== undefined && Number.isFinite(found) ? found : last;
      out.set(u, at);
      last = at;
    }
  }
  return out;
}

/** A window: where it starts (a position) and how many float nodes open it (the rest of it is at 16 bits). */
export interface WindowShape {
  readonly start: number;
  readonly floatNodes: number;
}

/**
 * The units of a window: of each kind in `kinds`, in position order, the first `floatNodes` float candidates from
 * `start` (at most the float room), then the activation groups and weights after the last of those, each kind as
 * far as its `room` goes.
 */
export function precisionWindow(
  units: Readonly<Record<PrecisionKind, readonly PrecisionUnit[]>>,
  positions: ReadonlyMap<PrecisionUnit, number>,
  room: Readonly<Record<PrecisionKind, number>>,
  shape: WindowShape,
  kinds: readonly PrecisionKind[],
): PrecisionUnit[] {
  const take = (kind: PrecisionKind, from: number, limit: number) => {
    const picked: PrecisionUnit[] = [];
    if (!kinds.includes(kind)) return picked;
    let spent = 0;
    const sorted = units[kind]
      .filter((u) => positions.get(u)! >= from)
      .sort((a, b) => positions.get(a)! - positions.get(b)!);
    for (const u of sorted) {
      if (spent + u.cost > limit) break;
      picked.push(u);
      spent += u.cost;
    }
    return picked;
  };
  const float = take('float', shape.start, Math.min(room.float, shape.floatNodes));
  const after = float.length ? Math.max(...float.map((u) => positions.get(u)!)) + 1 : shape.start;
  return [...float, ...take('act16', after, room.act16), ...take('w16', after, room.w16)];
}
