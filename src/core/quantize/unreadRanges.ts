/**
 * The tensors whose calibrated ranges a configuration's quantization plan never reads: outputs of Conv-like nodes
 * that feed a fused Relu/Clip and the insides of functions written out whole (QuantPlan.folded). Where statistics
 * serve that one plan alone (`qstudio quantize --calib`), calibration need not expose them: at 1024² (ISNet) those
 * Conv outputs are a third of what onnxruntime hands back per run. Ranges only decide whether a tensor gets a Q/DQ
 * pair, not whether it is folded, so the plan is made on stand-in ranges for every tensor. The plan still asks
 * whether such a tensor has a range (a Relu is quantized where its input is calibrated), never what it is: the
 * calibrated ranges are completed with the same stand-in (withUnreadRanges) before the plan is made. Only the plan's
 * node decisions are made on the stand-ins (planNodes): no parameter, no weight quantized, nothing written.
 */
import type { QuantConfig } from './config.ts';
import { planPreparedNodes, type PreparedQuantization } from './quantizeModel.ts';
import type { Ranges, TensorRange } from './plan.ts';

/** A range the plan asks the presence of and never reads. */
const STAND_IN: TensorRange = { min: -1, max: 1 };

/**
 * The tensors `config`'s plan on the prepared model (prepareQuantization) reads no range of, planned with a stand-in
 * for every tensor of the model as given (its inputs and node outputs); empty where no plan can be made.
 */
export function unreadRanges(prepared: PreparedQuantization, config: QuantConfig): Set<string> {
  const graph = prepared.source.graph!;
  const ranges = new Map<string, TensorRange>();
  for (const v of graph.input) ranges.set(v.name ?? '', STAND_IN);
  for (const n of graph.node) for (const t of n.output) if (t) ranges.set(t, STAND_IN);
  try {
    return planPreparedNodes(prepared, ranges, config).folded;
  } catch {
    return new Set();
  }
}

/** `ranges` with a stand-in for each unread tensor not calibrated: what the plan asks of them is that they have one. */
export function withUnreadRanges(ranges: Ranges, unread: ReadonlySet<string>): Map<string, TensorRange> {
  const all = new Map(ranges);
  for (const t of unread) if (!all.has(t)) all.set(t, STAND_IN);
  return all;
}

/**
 * Whether the plan made on the completed ranges folded every tensor that got a stand-in (`unread`), so that no
 * stand-in reached a Q/DQ pair. Folding does not depend on range values but does on their presence (a fused
 * function's ends), so a caller checks this after quantizing and calibrates in full where it fails.
 */
export function standInsUnread(folded: ReadonlySet<string>, unread: ReadonlySet<string>): boolean {
  for (const t of unread) if (!folded.has(t)) return false;
  return true;
}
