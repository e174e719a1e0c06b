/**
 * ConsumerMSE: for each activation, the range is chosen among a few candidates by the measured error of what
 * its consumers compute, not by the tensor's own error (NNCF's range search idea: candidates from the
 * statistics, chosen by the consumer's output error on a few samples). A range that clips a tensor's tail
 * matters little when the next convolution averages it away, and a lot when the next node is a sigmoid head.
 *
 * Efficiently: one search model holds, for every searched tensor T, a fake-quantized copy of T
 * (x → clamp(round(x / s) + z, qmin, qmax) − z, times s, in float ops; s and z are graph inputs), a copy of
 * each consumer fed that copy, and the squared error of each copy's float outputs against the consumer's own
 * outputs, summed to one scalar per tensor. So one run on one sample measures candidate k of every tensor at
 * once, each in isolation (every other input of the consumer stays float); K candidates on S samples are
 * K × S runs of a model about twice the size of the original, and the outputs are scalars (no memory budget
 * to mind). The candidates of a tensor come from its histogram (the one the MinMSE collector keeps): the
 * whole range, the float-scale MinMSE choice, the Entropy window and two-sided percentiles 99.99 and 99.999,
 * repeated scales removed.
 *
 * Must not know a runtime (it is injected) nor how samples are made.
 */
import {
  type ModelProto,
  type NodeProto,
  type ValueInfoProto,
  DataType,
  intAttribute,
  makeNode,
  makeValueInfo,
  opsetOf,
} from '../../onnx/model.ts';
import { makeTensor } from '../../onnx/tensorData.ts';
import { prepare } from '../../prepare/prepare.ts';
import type { QuantType } from '../../quantize/numeric.ts';
import type { Feed, Runtime } from '../../runtime/session.ts';
import { sessionModel } from '../../onnx/index.ts';
import { exposeOnly } from '../run/expose.ts';
import { entropyThreshold } from '../collectors/entropy.ts';
import type { Histogram } from '../histogram/histogram.ts';
import { centeredReference, histogramQuantile } from '../histogram/histogramViews.ts';
import { minMseSearch } from '../collectors/minmse.ts';
import { clipToData } from '../collectors/percentile.ts';
import { type IntegerBounds, type ScaleZeroPoint, floatScaleZeroPoint, searchBounds } from '../collectors/qdqError.ts';
import type { CalibrationRange } from '../collectors/types.ts';

/** Samples the errors are measured on (the first usable calibration samples). */
export const SEARCH_SAMPLES = 4;

/** A candidate range with the scale and zero point the quantizer derives from it. */
export interface Candidate extends CalibrationRange, ScaleZeroPoint {}

/**
 * The candidate ranges of one tensor, from its histogram, MinMax's first (see module note); `lead`, where given,
 * before them all (Sequential's search, sequentialSearch.ts, starts from the range the tensor has). Ranges giving a
 * scale and zero point an earlier one gave are left out.
 */
export function candidateRanges(
  h: Histogram,
  quantType: QuantType,
  symmetric: boolean,
  lead?: CalibrationRange,
): Candidate[] {
  const bounds = searchBounds(quantType, symmetric);
  const ranges: CalibrationRange[] = lead ? [{ min: lead.min, max: lead.max }] : [];
  ranges.push({ min: h.min, max: h.max });
  const mse = minMseSearch(h, { mode: 'Percentile', quantType, symmetric, numBins: 2048, sweep: true });
  ranges.push({ min: mse.min, max: mse.max });
  ranges.push(clipToData(entropyThreshold(centeredReference(h, 2048), 128), h));
  for (const p of [99.999, 99.99]) {
    const cut = (100 - p) / 200;
    ranges.push({ min: Math.min(0, histogramQuantile(h, cut)), max: Math.max(0, histogramQuantile(h, 1 - cut)) });
  }
  const seen = new Set<string>();
  const out: Candidate[] = [];
  for (const r of ranges) {
    const sz = floatScaleZeroPoint(r.min, r.max, bounds, symmetric);
    const key = `${sz.scale}/${sz.zeroPoint}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...r, ...sz });
  }
  return out;
}

const scalarInput = (name: string) => makeValueInfo(name, DataType.FLOAT, []);

/**
 * The search model over `tensors` (float32 tensors of `model`): graph inputs `qs:s:i` and `qs:z:i` (scale
 * and zero point of tensor i, float scalars) besides the model's own, one output `qs:e:i` per tensor (the
 * summed squared error of its consumers' outputs). Tensors with no float consumer output and no graph output
 * role get no output; `searched` lists those that have one. The model is raised to opset 11 when older
 * (Round and Clip with bound inputs).
 */
export function searchModel(
  model: ModelProto,
  tensors: readonly string[],
  floatTensors: ReadonlySet<string>,
  bounds: IntegerBounds,
  referenceInputs = false,
): { model: ModelProto; searched: number[]; references: string[] } {
  const base =
    (opsetOf(model, '') ?? 0) < 11
      ? prepare(model, { targetOpset: 11, foldBatchNorm: false, foldConvAffine: false }).model
      : model;
  const graph = base.graph!;
  const consumers = new Map<string, NodeProto[]>();
  for (const node of graph.node) {
    if (node.attribute.some((a) => a.g || a.graphs.length > 0)) continue; // no subgraph ops
    for (const input of new Set(node.input)) {
      if (!input) continue;
      let list = consumers.get(input);
      if (!list) consumers.set(input, (list = []));
      list.push(node);
    }
  }
  const outputs = new Set(graph.output.map((o) => o.name ?? ''));
  const nodes: NodeProto[] = [...graph.node];
  const inputs = [...graph.input];
  const errorOutputs: ValueInfoProto[] = [];
  const searched: number[] = [];
  const references = new Set<string>();
  /** What a consumer output is compared with: itself in this graph, or a graph input fed from another model's run. */
  const referenceOf = (o: string) => {
    if (!referenceInputs) return o;
    if (!references.has(o)) {
      references.add(o);
      inputs.push(makeValueInfo(`qs:ref:${o}`, DataType.FLOAT));
    }
    return `qs:ref:${o}`;
  };
  const initializers = [...graph.initializer];
  initializers.push(makeTensor('qs:qmin', DataType.FLOAT, [], Float32Array.of(bounds.qmin)));
  initializers.push(makeTensor('qs:qmax', DataType.FLOAT, [], Float32Array.of(bounds.qmax)));

  tensors.forEach((t, i) => {
    const terms: string[] = [];
    const fq = `qs:fq:${i}`;
    // The tensor's nodes, in an order that runs (its fake quantization first): pruning walks them backwards.
    const quantization: NodeProto[] = [];
    const measured: NodeProto[] = [];
    const step = (op: string, ins: string[], out: string, into = measured) => into.push(makeNode(op, ins, [out]));
    const p = `qs:${i}:`;
    const squaredError = (a: string, b: string, k: string) => {
      step('Sub', [a, b], `${p}d${k}`);
      measured.push(makeNode('ReduceSumSquare', [`${p}d${k}`], [`${p}e${k}`], '', [intAttribute('keepdims', 0)]));
      terms.push(`${p}e${k}`);
    };
    (consumers.get(t) ?? []).forEach((c, j) => {
      const floatOuts = c.output.filter((o) => o && floatTensors.has(o));
      if (floatOuts.length === 0) return;
      const renamed = c.output.map((o) => (o ? `${p}c${j}:${o}` : ''));
      measured.push({
        ...c,
        name: c.name ? `${c.name}:qs${i}` : undefined,
        input: c.input.map((x) => (x === t ? fq : x)),
        output: renamed,
      });
      c.output.forEach((o, k) => {
        if (o && floatTensors.has(o)) squaredError(renamed[k], referenceOf(o), `${j}:${k}`);
      });
    });
    if (outputs.has(t)) squaredError(fq, referenceOf(t), 'out');
    if (terms.length === 0) return;
    // The fake quantization, in float ops: ONNX QuantizeLinear rounds half to even, as Round does.
    step('Div', [t, `qs:s:${i}`], `${p}a`, quantization);
    step('Round', [`${p}a`], `${p}r`, quantization);
    step('Add', [`${p}r`, `qs:z:${i}`], `${p}q`, quantization);
    step('Clip', [`${p}q`, 'qs:qmin', 'qs:qmax'], `${p}c`, quantization);
    step('Sub', [`${p}c`, `qs:z:${i}`], `${p}u`, quantization);
    step('Mul', [`${p}u`, `qs:s:${i}`], fq, quantization);
    nodes.push(...quantization, ...measured, makeNode(terms.length === 1 ? 'Identity' : 'Sum', terms, [`qs:e:${i}`]));
    inputs.push(scalarInput(`qs:s:${i}`), scalarInput(`qs:z:${i}`));
    errorOutputs.push(makeValueInfo(`qs:e:${i}`, DataType.FLOAT, []));
    searched.push(i);
  });
  return {
    model: {
      ...base,
      graph: { ...graph, node: nodes, input: inputs, initializer: initializers, output: errorOutputs },
    },
    searched,
    references: [...references],
  };
}

/**
 * The summed consumer errors of every candidate of every searched tensor of `built` (searchModel's result over
 * tensors whose candidates are `candidates[i]`), over `samples`; `extraFeeds` adds feeds of a sample (the
 * references a search model with reference inputs compares with). Errors of a tensor not searched stay empty.
 */
export async function candidateErrors(
  built: { model: ModelProto; searched: readonly number[] },
  candidates: readonly (readonly Candidate[])[],
  runtime: Runtime,
  samples: readonly Readonly<Record<string, Feed>>[],
  check: () => void = () => undefined,
  extraFeeds: (sample: Readonly<Record<string, Feed>>) => Promise<Record<string, Feed>> = async () => ({}),
): Promise<Float64Array[]> {
  const errors = candidates.map((list, i) => new Float64Array(built.searched.includes(i) ? list.length : 0));
  if (built.searched.length === 0 || samples.length === 0) return errors;
  const outputs = built.searched.map((i) => `qs:e:${i}`);
  // Only what the errors depend on runs (a search over an early group needs the model's first layers only).
  const K = Math.max(...built.searched.map((i) => candidates[i].length));
  // One run a sample and candidate: the runtime weighs a backend's start-up against them.
  const { runner } = await runtime.createSession(sessionModel(exposeOnly(built.model, outputs)), 'float', {
    runs: samples.length * K,
  });
  try {
    for (const sample of samples) {
      check();
      const base: Record<string, Feed> = { ...sample, ...(await extraFeeds(sample)) };
      for (let k = 0; k < K; k++) {
        check();
        const feeds: Record<string, Feed> = { ...base };
        for (const i of built.searched) {
          const list = candidates[i];
          const c = list[Math.min(k, list.length - 1)];
          feeds[`qs:s:${i}`] = { type: 'float32', data: Float32Array.of(c.scale), dims: [] };
          feeds[`qs:z:${i}`] = { type: 'float32', data: Float32Array.of(c.zeroPoint), dims: [] };
        }
        const out = await runner.run(feeds);
        for (const i of built.searched)
          if (k < errors[i].length) errors[i][k] += (out[`qs:e:${i}`].data as Float32Array)[0];
      }
    }
  } finally {
    await runner.release();
  }
  return errors;
}

/** The index of the least error (ties to the earlier candidate). */
export function leastError(errors: Float64Array): number {
  let best = 0;
  for (let k = 1; k < errors.length; k++) if (errors[k] < errors[best]) best = k;
  return best;
}

/**
 * Runs the search: `samples` gives the model's feeds of the first samples; returns, per searched tensor, the
 * candidate with the least summed consumer error (ties to the earlier candidate, MinMax first).
 */
export async function consumerSearch(
  model: ModelProto,
  histograms: ReadonlyMap<string, Histogram>,
  options: { quantType: QuantType; symmetric: boolean },
  runtime: Runtime,
  samples: readonly Readonly<Record<string, Feed>>[],
  check: () => void = () => undefined,
): Promise<Map<string, CalibrationRange>> {
  const tensors = [...histograms.keys()].filter((t) => histograms.get(t)!.count > 0);
  const candidates = tensors.map((t) => candidateRanges(histograms.get(t)!, options.quantType, options.symmetric));
  const chosen = new Map<string, CalibrationRange>();
  // A tensor with one distinct candidate has nothing to choose.
  const open = tensors.map((_, i) => i).filter((i) => candidates[i].length > 1);
  const searchedTensors = open.map((i) => tensors[i]);
  if (searchedTensors.length === 0 || samples.length === 0) return chosen;
  const bounds = searchBounds(options.quantType, options.symmetric);
  const built = searchModel(model, searchedTensors, new Set(histograms.keys()), bounds);
  const lists = open.map((i) => candidates[i]);
  const errors = await candidateErrors(built, lists, runtime, samples, check);
  for (const i of built.searched) {
    const best = lists[i][leastError(errors[i])];
    chosen.set(searchedTensors[i], { min: best.min, max: best.max });
  }
  return chosen;
}
