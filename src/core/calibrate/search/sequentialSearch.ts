/**
 * Sequential calibration's consumer search: after a depth group's statistics are gathered on the partly
 * quantized model (sequential.ts), each of the group's tensors takes, among candidate ranges from its
 * histogram (ConsumerMSE's candidates, consumerSearch.ts, plus the range Sequential would give it), the one
 * whose quantization errs least at its consumers' outputs, measured on the partly quantized model: the
 * consumers' other inputs and weights are quantized as the ranges fixed so far quantize them, and only the
 * searched tensor's quantization changes. ConsumerMSE measures the same on the float model, where a range never
 * sees the error the layers before it add.
 *
 * The search model is ConsumerMSE's (consumerSearch.ts `searchModel`), built on the quantized model with the
 * group's own QuantizeLinear/DequantizeLinear pairs taken out (`withoutRequantization`): each searched tensor's
 * consumers are copied and fed its fake-quantized value, so one run measures candidate k of every tensor of the
 * group at once, each in isolation. The copies' outputs are compared with the float model's outputs of the same
 * consumers (`reference: 'float'`: the error the whole partly quantized model has there), or with the
 * consumers fed the partly quantized value before its own quantization (`'unquantized'`: the error this
 * quantization adds alone).
 *
 * Errors are sums over samples, so a run split over workers or shards adds its shares' errors and chooses
 * exactly what one run over all the samples chooses.
 *
 * Measured, not adopted: on the PP-OCRv4 detector every form of it lost held out against Sequential as it is
 * (bench/NOTEBOOK.md "Sequential with a choice after each round"; bench/cases/sequentialSearch.ts reruns it), so no
 * calibration method calls it; it stays for that measurement, tested against onnxruntime's own Q/DQ.
 *
 * Must not know a runtime (it is injected) nor how samples are made.
 */
import { DataType, opsetOf, type ModelProto, type NodeProto } from '../../onnx/model.ts';
import { inferElementTypes } from '../../onnx/elementTypeInference.ts';
import { sessionModel } from '../../onnx/index.ts';
import type { QuantType } from '../../quantize/numeric.ts';
import type { Feed, Runtime } from '../../runtime/session.ts';
import { type Candidate, candidateErrors, candidateRanges, searchModel } from './consumerSearch.ts';
import { exposeOnly } from '../run/expose.ts';
import type { Histogram } from '../histogram/histogram.ts';
import { searchBounds } from '../collectors/qdqError.ts';
import { quantizedReadout } from '../run/sequential.ts';
import type { CalibrationRange } from '../collectors/types.ts';

/** What the consumers' outputs are compared with (see the module note). */
export type SearchReference = 'float' | 'unquantized';

/**
 * `quantized` with the QuantizeLinear → DequantizeLinear pairs that quantize the values of `readout` (tensor →
 * its value before its own quantization, sequential.ts quantizedReadout) taken out: their consumers read the
 * value itself. A dequantized value that is a graph output keeps its name, as an Identity of the value.
 */
export function withoutRequantization(quantized: ModelProto, values: Iterable<string>): ModelProto {
  const graph = quantized.graph!;
  const wanted = new Set(values);
  const consumers = new Map<string, NodeProto[]>();
  for (const node of graph.node)
    for (const i of node.input) if (i) (consumers.get(i) ?? consumers.set(i, []).get(i)!).push(node);
  const dropped = new Set<NodeProto>();
  const rename = new Map<string, string>();
  for (const v of wanted) {
    for (const q of consumers.get(v) ?? []) {
      if (q.op_type !== 'QuantizeLinear' || q.input[0] !== v) continue;
      const dqs = consumers.get(q.output[0]) ?? [];
      if (dqs.length === 0 || dqs.some((d) => d.op_type !== 'DequantizeLinear')) continue;
      dropped.add(q);
      for (const d of dqs) {
        dropped.add(d);
        rename.set(d.output[0], v);
      }
    }
  }
  const outputs = new Set(graph.output.map((o) => o.name ?? ''));
  const node: NodeProto[] = [];
  for (const n of graph.node) {
    if (dropped.has(n)) {
      if (n.op_type === 'DequantizeLinear' && outputs.has(n.output[0]))
        node.push({ ...n, op_type: 'Identity', domain: '', input: [rename.get(n.output[0])!], attribute: [] });
      continue;
    }
    node.push(n.input.some((i) => rename.has(i)) ? { ...n, input: n.input.map((i) => rename.get(i) ?? i) } : n);
  }
  return { ...quantized, graph: { ...graph, node } };
}

/** One tensor's candidates and their summed consumer errors (index 0: the range it had). */
export interface SearchedCandidates {
  readonly candidates: readonly Candidate[];
  readonly errors: Float64Array;
}

/**
 * The summed consumer errors of each candidate of each tensor of `group` (tensor → histogram and current
 * range) on `quantized` (the model quantized with the ranges fixed so far, the group's at their current range),
 * over `samples`. Tensors the quantized model does not quantize, or whose consumers give nothing to compare,
 * are left out.
 */
export async function searchPartlyQuantized(
  floatModel: ModelProto,
  quantized: ModelProto,
  group: ReadonlyMap<string, { hist: Histogram; current: CalibrationRange }>,
  options: { quantType: QuantType; symmetric: boolean; reference: SearchReference; everyQuantized?: boolean },
  runtime: Runtime,
  samples: readonly Readonly<Record<string, Feed>>[],
  check: () => void = () => undefined,
): Promise<Map<string, SearchedCandidates>> {
  const out = new Map<string, SearchedCandidates>();
  const readout = quantizedReadout(
    quantized,
    [...group.keys()].filter((t) => group.get(t)!.hist.count > 0),
    !options.everyQuantized,
  );
  if (readout.size === 0 || samples.length === 0) return out;
  const tensors = [...readout.keys()];
  // Each tensor's candidates: the range it has (index 0), then ConsumerMSE's from its histogram.
  const candidates = tensors.map((t) =>
    candidateRanges(group.get(t)!.hist, options.quantType, options.symmetric, group.get(t)!.current),
  );
  const open = tensors.map((_, i) => i).filter((i) => candidates[i].length > 1);
  if (open.length === 0) return out;
  const base = withoutRequantization(
    quantized,
    open.map((i) => readout.get(tensors[i])!),
  );
  const types = inferElementTypes(base.graph!, { opset: opsetOf(base) ?? 1 });
  let compared = new Set([...types].filter(([, t]) => t === DataType.FLOAT).map(([n]) => n));
  /** The float model's name of a value of the quantized one (a graph output's value is renamed there). */
  const floatName = new Map<string, string>();
  if (options.reference === 'float') {
    const floatTypes = inferElementTypes(floatModel.graph!, { opset: opsetOf(floatModel) ?? 1 });
    const isFloat = (n: string) => floatTypes.get(n) === DataType.FLOAT;
    for (const [t, v] of quantizedReadout(quantized, [...floatTypes.keys()].filter(isFloat), false))
      if (v !== t) floatName.set(v, t);
    compared = new Set([...compared].filter((n) => isFloat(floatName.get(n) ?? n)));
  }
  const built = searchModel(
    base,
    open.map((i) => readout.get(tensors[i])!),
    compared,
    searchBounds(options.quantType, options.symmetric),
    options.reference === 'float',
  );
  let references: ((s: Readonly<Record<string, Feed>>) => Promise<Record<string, Feed>>) | undefined;
  let release = async () => undefined as void;
  if (built.references.length > 0) {
    const names = built.references.map((o) => floatName.get(o) ?? o);
    const { runner } = await runtime.createSession(sessionModel(exposeOnly(floatModel, [...new Set(names)])), 'float', {
      runs: samples.length,
    });
    release = () => runner.release();
    references = async (sample) => {
      const ran = await runner.run(sample);
      const feeds: Record<string, Feed> = {};
      for (const [k, o] of built.references.entries()) {
        const r = ran[names[k]];
        feeds[`qs:ref:${o}`] = { type: 'float32', data: r.data as Float32Array, dims: r.dims };
      }
      return feeds;
    };
  }
  try {
    const lists = open.map((i) => candidates[i]);
    const errors = await candidateErrors(built, lists, runtime, samples, check, references);
    for (const j of built.searched) out.set(tensors[open[j]], { candidates: lists[j], errors: errors[j] });
  } finally {
    await release();
  }
  return out;
}
