/**
 * The comparison worker's API: everything the split view needs before it draws, off the main thread. Both files
 * are decoded here, once each (or the open model's weight-less structure is taken as sent), each pane's view made with
 * its Q/DQ folded onto edges and laid out (laidOutPane.ts, as the graph step's single pane), and the node mapping made
 * (core/graph/comparison.ts),
 * so the page receives boxes, edges and positions and only draws. A file that is not a model fails with the core's
 * named errors (NotOnnxError, …), which reach the page by name.
 *
 * Plain object: tests call it directly; compare.worker.ts only exposes it. No comlink, no DOM.
 */
import { decode } from '../../src/core/onnx/decode.ts';
import type { GraphProto } from '../../src/core/onnx/model.ts';
import { buildGraphIndex } from '../../src/core/onnx/graphIndex.ts';
import { compareViews, CompareInputError, type Comparison } from '../../src/core/graph/comparison.ts';
import type { LayoutResult } from '../../src/core/graph/layeredLayout.ts';
import { laidOutPane } from './laidOutPane.ts';

/** One model of a comparison: a file (decoded here) or a graph already decoded (the open model's structure). */
export type CompareSource = { name: string; blob: Blob } | { name: string; graph: GraphProto };

export interface ComparisonResult {
  comparison: Comparison;
  layouts: { a: LayoutResult; b: LayoutResult };
  /** Where the worker's time went, seconds: reading both files, both panes (Q/DQ folded, laid out), the mapping. */
  seconds: { read: number; views: number; map: number };
  /** The files this comparison decoded (a graph given decoded is not among them). */
  decoded: string[];
}

/** Progress of a comparison: the phase's words and a fraction 0…1. */
export type CompareProgress = (fraction: number, phase: string) => void;

/**
 * A source's bytes, asked for at once (null: a graph given decoded), so that the second file is read while the first
 * decodes. A read that fails is reported where it is awaited, not as an unhandled rejection when the first file fails.
 */
function bytesOf(source: CompareSource): Promise<ArrayBuffer> | null {
  if ('graph' in source) return null;
  const pending = source.blob.arrayBuffer();
  pending.catch(() => undefined);
  return pending;
}

async function graphOf(source: CompareSource, pending: Promise<ArrayBuffer> | null): Promise<GraphProto> {
  if ('graph' in source) return source.graph;
  // Only read here (folded, indexed, laid out, mapped): decoded without arrays for absent repeated fields.
  const graph = decode(new Uint8Array(await (pending ?? source.blob.arrayBuffer())), {
    fileName: source.name,
    readOnly: true,
  }).graph;
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
    const [bytesA, bytesB] = [bytesOf(a), bytesOf(b)];
    report(0, reading(a));
    const ga = await graphOf(a, bytesA);
    report(0.1, reading(b));
    const gb = await graphOf(b, bytesB);
    const read = lap();
    // Each pane as the graph step's single pane is made (laidOutPane.ts), then the mapping between the two views.
    const pane = (graph: GraphProto, name: string, from: number) =>
      laidOutPane(buildGraphIndex(graph), {}, (f, phase) => report(from + 0.3 * f, `${name}: ${phase}`));
    const pa = pane(ga, a.name, 0.2);
    const pb = pane(gb, b.name, 0.5);
    const laid = lap();
    report(0.8, 'matching nodes');
    const comparison = compareViews(pa.view, pb.view, { a: a.name, b: b.name });
    const map = lap();
    report(1, 'done');
    const decoded = [a, b].filter((s) => !('graph' in s)).map((s) => s.name);
    return {
      comparison,
      layouts: { a: pa.layout, b: pb.layout },
      seconds: { read, views: laid, map },
      decoded,
    };
  },
};
