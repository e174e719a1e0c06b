/**
 * The comparison worker's API: everything the split view needs before it draws, off the main thread. Both files
 * are decoded here, once each (or the open model's weight-less structure is taken as sent), their Q/DQ folded onto
 * edges, the node mapping made (core/graph/comparison.ts) and both views laid out (core/graph/layeredLayout.ts),
 * so the page receives boxes, edges and positions and only draws. A file that is not a model fails with the core's
 * named errors (NotOnnxError, …), which reach the page by name.
 *
 * Plain object: tests call it directly; compare.worker.ts only exposes it. No comlink, no DOM.
 */
import { decode } from '../../src/core/onnx/decode.ts';
import type { GraphProto } from '../../src/core/onnx/model.ts';
import { compareGraphs, CompareInputError, type Comparison } from '../../src/core/graph/comparison.ts';
import { layoutInputOf } from '../../src/core/graph/graphView.ts';
import { layeredLayout, type LayoutResult } from '../../src/core/graph/layeredLayout.ts';

/** One model of a comparison: a file (decoded here) or a graph already decoded (the open model's structure). */
export type CompareSource = { name: string; blob: Blob } | { name: string; graph: GraphProto };

export interface ComparisonResult {
  comparison: Comparison;
  layouts: { a: LayoutResult; b: LayoutResult };
  /** Where the worker's time went, seconds: reading both files, views and mapping, both layouts. */
  seconds: { read: number; map: number; layout: number };
  /** The files this comparison decoded (a graph given decoded is not among them). */
  decoded: string[];
}

/** Progress of a comparison: the phase's words and a fraction 0…1. */
export type CompareProgress = (fraction: number, phase: string) => void;

async function graphOf(source: CompareSource): Promise<GraphProto> {
  if ('graph' in source) return source.graph;
  const graph = decode(new Uint8Array(await source.blob.arrayBuffer()), { fileName: source.name }).graph;
  if (!graph) throw new CompareInputError(`${source.name} holds no graph to compare`);
  return graph;
}

export const compareApi = {
  async compare(a: CompareSource, b: CompareSource, onProgress?: CompareProgress): Promise<ComparisonResult> {
    const report = (fraction: number, phase: string) => void onProgress?.(fraction, phase);
    let t = performance.now();
    const lap = () => {
      const now = performance.now();
      const s = (now - t) / 1000;
      t = now;
      return s;
    };
    // A graph given decoded (the open model) is not read again.
    const reading = (s: CompareSource) => `${'graph' in s ? 'taking' : 'reading'} ${s.name}`;
    report(0, reading(a));
    const ga = await graphOf(a);
    report(0.1, reading(b));
    const gb = await graphOf(b);
    const read = lap();
    const comparison = compareGraphs({ name: a.name, graph: ga }, { name: b.name, graph: gb }, (step, phase) =>
      report(0.25 + 0.15 * step, phase),
    );
    const map = lap();
    report(0.7, `laying out ${comparison.names.a}`);
    const la = layeredLayout(layoutInputOf(comparison.views.a));
    report(0.85, `laying out ${comparison.names.b}`);
    const lb = layeredLayout(layoutInputOf(comparison.views.b));
    report(1, 'done');
    const decoded = [a, b].filter((s) => !('graph' in s)).map((s) => s.name);
    return { comparison, layouts: { a: la, b: lb }, seconds: { read, map, layout: lap() }, decoded };
  },
};

export type CompareApi = typeof compareApi;

/** The buffers of a comparison's result that a worker entry transfers back rather than copies (its typed arrays). */
export function comparisonBuffers(out: ComparisonResult): ArrayBuffer[] {
  const { layouts, comparison } = out;
  return [
    ...[layouts.a, layouts.b].flatMap((l) => [l.x.buffer, l.y.buffer, l.rank.buffer]),
    comparison.counterpart.a.buffer,
    comparison.counterpart.b.buffer,
  ] as ArrayBuffer[];
}
