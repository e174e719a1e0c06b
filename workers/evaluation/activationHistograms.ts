/**
 * Histograms of the worst layers' float activations, for the report's range table: one more run of
 * the float model over the evaluation samples with just those tensors exposed, each folded into the
 * core's mergeable histogram (core/calibrate/histogram/histogram.ts) and re-binned to a few dozen equal bins
 * over the tensor's range in the report, widened to the values seen. Drawn over the same span as the
 * calibrated range and the quantization grid beside it, it shows whether the range clips the tails
 * or wastes levels on outliers. Graph inputs are read from the feeds
 * (onnxruntime cannot return an input as an output); a tensor inside an If/Loop/Scan body (the worst layers of a model
 * whose compute sits in one If) is carried up to be read. Must not compare or quantize.
 */
import { sessionModel, type ModelProto } from '../../src/core/onnx/index.ts';
import { exposeByName } from '../../src/core/calibrate/run/exposeSubgraphs.ts';
import {
  capacityFor,
  createHistogram,
  foldIntoHistogram,
  type Histogram,
} from '../../src/core/calibrate/histogram/histogram.ts';
import { referenceHistogram } from '../../src/core/calibrate/histogram/histogramViews.ts';
import type { ComparisonRuntime } from '../../src/core/evaluate/compareModels.ts';
import type { ReportHistogram } from '../../src/core/report/index.ts';

/** Equal-width bins of each histogram. */
export const HISTOGRAM_BINS = 48;

/** Histograms of the tensors of `spans` (float32 ones; others are left out) over the runtime's samples, binned over each span widened to the values seen. */
export async function activationHistograms(
  model: ModelProto,
  spans: ReadonlyMap<string, { readonly min: number; readonly max: number }>,
  runtime: ComparisonRuntime,
  onSample?: (done: number, total: number) => void,
): Promise<Map<string, ReportHistogram>> {
  const out = new Map<string, ReportHistogram>();
  const tensors = [...spans.keys()];
  if (tensors.length === 0) return out;
  const inputs = new Set(model.graph!.input.map((v) => v.name ?? ''));
  const exposed = tensors.filter((t) => !inputs.has(t));
  const fromFeeds = tensors.filter((t) => inputs.has(t));
  const histograms = new Map<string, Histogram>(tensors.map((t) => [t, createHistogram(capacityFor(HISTOGRAM_BINS))]));
  const fold = (name: string, data: unknown) => {
    if (data instanceof Float32Array) histograms.set(name, foldIntoHistogram(histograms.get(name)!, data));
  };
  const exposure = exposeByName(model, exposed);
  const session = exposed.length > 0 ? await runtime.open(sessionModel(exposure.model)) : null;
  try {
    for (let sample = 0; sample < runtime.samples; sample++) {
      if (session) {
        const values = await session.run(sample, exposure.outputs);
        for (const name of exposure.outputs) fold(exposure.tensorOf.get(name) ?? name, values[name]?.data);
      }
      const feeds = runtime.feeds?.(sample);
      for (const name of fromFeeds) fold(name, feeds?.[name]?.data);
      onSample?.(sample + 1, runtime.samples);
    }
  } finally {
    await session?.release();
  }
  for (const [name, h] of histograms) {
    if (h.count === 0) continue;
    const span = spans.get(name)!;
    const lo = Math.min(span.min, h.valueMin);
    const hi = Math.max(span.max, h.valueMax);
    out.set(name, { min: lo, max: hi, counts: Array.from(referenceHistogram(h, lo, hi, HISTOGRAM_BINS).counts) });
  }
  return out;
}
