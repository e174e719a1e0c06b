/**
 * A comparison's result as it crosses from a worker to the page: the panes' boxes and edges as columns instead of
 * objects. Structured cloning 40,000 boxes and 50,000 edges as objects was most of the 0.2 s between the worker's
 * last step and the result on the page in a 20,000-node split view (serialized in the worker, rebuilt on the page's
 * main thread). Here each box and edge field is a typed array, an array of strings, or for the few distinct strings
 * (kinds, families, op types, shapes) a table and a code each, and the page rebuilds the very same objects
 * (`fromWire(toWire(r))` equals `r`), so nothing past the crossing changes. The files' values are box-aligned
 * Float64Arrays already (comparison.ts SidedValues) and are transferred.
 *
 * Plain functions: no comlink, no DOM.
 */
import type { BoxKind, PaneView, ViewBox, ViewEdge } from '../../src/core/graph/graphView.ts';
import type { OpFamily } from '../../src/core/graph/opFamily.ts';
import type { Comparison } from '../../src/core/graph/comparison.ts';
import type { CompareProgress, CompareSource, ComparisonResult } from './compareApi.ts';

/** Strings as a table of the distinct ones and each one's code. */
interface StringColumn {
  table: string[];
  codes: Int32Array;
}

interface PaneWire {
  kind: StringColumn;
  id: string[];
  node: Int32Array;
  title: StringColumn;
  subtitle: string[];
  family: StringColumn;
  width: Float64Array;
  height: Float64Array;
  /** 0: no outerScope field, 1: true, 2: false. */
  outerScope: Uint8Array;
  source: Int32Array;
  target: Int32Array;
  tensor: string[];
  label: StringColumn;
  qdqFolded: boolean;
}

export interface ComparisonWire extends Omit<ComparisonResult, 'comparison'> {
  comparison: Omit<Comparison, 'views'> & {
    views: { a: PaneWire; b: PaneWire };
  };
}

function column(strings: readonly string[]): StringColumn {
  const codeOf = new Map<string, number>();
  const table: string[] = [];
  const codes = new Int32Array(strings.length);
  for (let i = 0; i < strings.length; i++) {
    let code = codeOf.get(strings[i]);
    if (code === undefined) {
      codeOf.set(strings[i], (code = table.length));
      table.push(strings[i]);
    }
    codes[i] = code;
  }
  return { table, codes };
}

function strings({ table, codes }: StringColumn): string[] {
  const out = new Array<string>(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = table[codes[i]];
  return out;
}

/** `f` of each item into a typed array, in a plain loop (TypedArray.from with a map function is several times slower). */
function typed<A extends Int32Array | Float64Array | Uint8Array, T>(
  make: new (n: number) => A,
  items: readonly T[],
  f: (item: T) => number,
): A {
  const out = new make(items.length);
  for (let i = 0; i < items.length; i++) out[i] = f(items[i]);
  return out;
}

function paneToWire(view: PaneView): PaneWire {
  const { boxes, edges } = view;
  return {
    kind: column(boxes.map((b) => b.kind)),
    id: boxes.map((b) => b.id),
    node: typed(Int32Array, boxes, (b) => b.node),
    title: column(boxes.map((b) => b.title)),
    subtitle: boxes.map((b) => b.subtitle),
    family: column(boxes.map((b) => b.family)),
    width: typed(Float64Array, boxes, (b) => b.width),
    height: typed(Float64Array, boxes, (b) => b.height),
    outerScope: typed(Uint8Array, boxes, (b) => (b.outerScope === undefined ? 0 : b.outerScope ? 1 : 2)),
    source: typed(Int32Array, edges, (e) => e.source),
    target: typed(Int32Array, edges, (e) => e.target),
    tensor: edges.map((e) => e.tensor),
    label: column(edges.map((e) => e.label)),
    qdqFolded: view.qdqFolded,
  };
}

function paneFromWire(w: PaneWire): PaneView {
  const [kind, title, family] = [w.kind, w.title, w.family].map(strings);
  const { id, subtitle } = w;
  const boxes: ViewBox[] = new Array<ViewBox>(w.node.length);
  const boxById = new Map<string, number>();
  for (let i = 0; i < boxes.length; i++) {
    boxes[i] = {
      kind: kind[i] as BoxKind,
      id: id[i],
      node: w.node[i],
      title: title[i],
      subtitle: subtitle[i],
      family: family[i] as OpFamily,
      width: w.width[i],
      height: w.height[i],
    };
    if (w.outerScope[i]) boxes[i].outerScope = w.outerScope[i] === 1;
    boxById.set(id[i], i);
  }
  const label = strings(w.label);
  const { tensor } = w;
  const edges: ViewEdge[] = new Array<ViewEdge>(w.source.length);
  for (let e = 0; e < edges.length; e++)
    edges[e] = { source: w.source[e], target: w.target[e], tensor: tensor[e], label: label[e] };
  return { boxes, edges, boxById, qdqFolded: w.qdqFolded };
}

/** The result in columns, for the worker to send. */
export function toWire(out: ComparisonResult): ComparisonWire {
  const { views, ...rest } = out.comparison;
  return {
    ...out,
    comparison: { ...rest, views: { a: paneToWire(views.a), b: paneToWire(views.b) } },
  };
}

/** The result as the worker made it, rebuilt on the page. */
export function fromWire(wire: ComparisonWire): ComparisonResult {
  const { views, ...rest } = wire.comparison;
  return {
    ...wire,
    comparison: { ...rest, views: { a: paneFromWire(views.a), b: paneFromWire(views.b) } },
  };
}

/** The typed arrays of a wire result, transferred rather than copied. */
export function wireBuffers(wire: ComparisonWire): ArrayBuffer[] {
  const { layouts, comparison } = wire;
  const pane = (p: PaneWire) => [
    ...[p.kind, p.title, p.family, p.label].map((c) => c.codes),
    p.node,
    p.width,
    p.height,
    p.outerScope,
    p.source,
    p.target,
  ];
  return [
    ...[layouts.a, layouts.b].flatMap((l) => [l.x, l.y, l.rank]),
    comparison.counterpart.a,
    comparison.counterpart.b,
    ...Object.values(comparison.fileValues).flatMap((s) => [s.a, s.b].filter((v) => v !== null)),
    ...pane(comparison.views.a),
    ...pane(comparison.views.b),
  ].map((t) => t.buffer as ArrayBuffer);
}

/** The comparison worker as the page calls it: compareApi's comparison, sent in columns. */
export interface CompareWorkerApi {
  compare(a: CompareSource, b: CompareSource, onProgress?: CompareProgress): Promise<ComparisonWire>;
}
