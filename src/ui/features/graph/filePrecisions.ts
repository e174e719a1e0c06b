/**
 * The precision of each node of a model that is already quantized (a QDQ file the studio, ONNX Runtime or Quark
 * wrote), read from its Q/DQ (core/graph/qdqFold.ts) and named in the same classes as a quantization's report, so
 * "colour by precision", its legend and the layer table work on the file as they do after a run.
 */
import { qdqPrecisionLabels } from '../../../core/graph/qdqFold.ts';
import { precisionClassOf, type NodePrecision } from '../../../core/quantize/precisionClasses.ts';
import type { GraphView } from './viewModel.ts';

/** By node id; empty for a float model. */
export function filePrecisions(view: GraphView): Record<string, NodePrecision> {
  const out: Record<string, NodePrecision> = {};
  if (!view.qdq) return out;
  for (const [i, label] of qdqPrecisionLabels(view.index, view.qdq))
    out[view.index.ids[i]] = { label, class: precisionClassOf(label) };
  return out;
}
