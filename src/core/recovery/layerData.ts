/**
 * The data bias correction and fast finetune learn from: for each target layer, the input rows it multiplies
 * by its weight (im2col patches for Conv, feature vectors for Gemm/MatMul), as the float model computes them
 * and as the (partially) quantized model does, at the same sampled output positions of each calibration sample.
 *
 * The runtime is injected exactly as in core/evaluate/compareModels.ts (ComparisonRuntime / SampleSession), so
 * onnxruntime-node, onnxruntime-web in a worker, or a test fake can serve. Only `positionsPerSample` positions
 * per sample and layer are kept (seeded, the same for both models), so memory grows with samples × positions ×
 * row width, not with the feature maps. Must not import a runtime or read files.
 */
import { sessionModel, StudioError, type ModelProto } from '../onnx/index.ts';
import { exposeOnly } from '../calibrate/run/expose.ts';
import { exposeByName } from '../calibrate/run/exposeSubgraphs.ts';
import type { ComparisonRuntime, RunTensor } from '../evaluate/compareModels.ts';
import type { LinearLayer } from './linearLayers.ts';
import { seededRandom } from '../seededRandom.ts';
import { letMessagesIn } from '../runtime/letMessagesIn.ts';

/** Recovery that cannot run: a layer input the runtime cannot return, an unexpected tensor shape, a cancel. */
export class RecoveryError extends StudioError {
  override readonly name = 'RecoveryError';
}

/** The cancel signal: an AbortSignal, or anything with `aborted`. */
export interface CancelSignal {
  readonly aborted: boolean;
}

export function throwIfCancelled(signal: CancelSignal | undefined): void {
  if (signal?.aborted) throw new RecoveryError('recovery was cancelled');
}

/**
 * A cancel point inside a loop that never waits on anything slower than a resolved promise (the optimizers' steps
 * are synchronous now): the thread takes its messages now and then (letMessagesIn) before the signal is checked.
 * Without it a 50,000-step fine-tune ran to the end after Cancel.
 */
export async function cancelPoint(signal: CancelSignal | undefined): Promise<void> {
  await letMessagesIn();
  throwIfCancelled(signal);
}

export interface LayerRows {
  readonly layer: LinearLayer;
  readonly rows: number;
  /** groups × inPerGroup values per row. */
  readonly width: number;
  readonly floatRows: Float32Array;
  readonly quantRows: Float32Array;
}

export interface GatherOptions {
  /** Output positions kept per sample and layer (all when a layer has fewer). */
  readonly positionsPerSample: number;
  /** Samples 0 … samples − 1 are used (≤ runtime.samples). */
  readonly samples: number;
  readonly seed: number;
  readonly signal?: CancelSignal;
}

/** Output height/width and the leading pads of a Conv on an input of size h × w. */
function convOutput(layer: LinearLayer, h: number, w: number) {
  const g = layer.conv!;
  const size = [h, w];
  const begin = [g.pads[0], g.pads[1]];
  const end = [g.pads[2], g.pads[3]];
  const out = [0, 0];
  for (let d = 0; d < 2; d++) {
    const span = g.dilations[d] * (g.kernel[d] - 1) + 1;
    if (g.autoPad === 'VALID') {
      begin[d] = 0;
      end[d] = 0;
    } else if (g.autoPad === 'SAME_UPPER' || g.autoPad === 'SAME_LOWER') {
      const total = Math.max(0, (Math.ceil(size[d] / g.strides[d]) - 1) * g.strides[d] + span - size[d]);
      begin[d] = g.autoPad === 'SAME_UPPER' ? Math.floor(total / 2) : Math.ceil(total / 2);
      end[d] = total - begin[d];
    }
    out[d] = Math.floor((size[d] + begin[d] + end[d] - span) / g.strides[d]) + 1;
  }
  return { oh: out[0], ow: out[1], top: begin[0], left: begin[1] };
}

/** Number of output positions of a layer for an input of these dims, and a writer of position p's row. */
function rowReader(
  layer: LinearLayer,
  dims: readonly number[],
  data: Float32Array,
): { positions: number; width: number; write(p: number, out: Float32Array, at: number): void } {
  if (layer.opType === 'Conv') {
    if (dims.length !== 4 && dims.length !== 3)
      throw new RecoveryError(`${layer.id}: expected a 3-D or 4-D input, got [${dims.join(', ')}]`);
    // A 1-D convolution's input [N, C, W] is read as [N, C, 1, W] (linearLayers.ts gives it a kernel of height 1).
    const [n, c, h, w] = dims.length === 3 ? [dims[0], dims[1], 1, dims[2]] : dims;
    const g = layer.conv!;
    const [kh, kw] = g.kernel;
    if (c * kh * kw !== layer.groups * layer.inPerGroup)
      throw new RecoveryError(
        `${layer.id}: input has ${c} channels, the weight expects ${(layer.groups * layer.inPerGroup) / (kh * kw)}`,
      );
    const { oh, ow, top, left } = convOutput(layer, h, w);
    const offsets = new Int32Array(kh * kw);
    return {
      positions: n * oh * ow,
      width: c * kh * kw,
      write(p, out, at) {
        const b = Math.floor(p / (oh * ow));
        const oy = Math.floor(p / ow) % oh;
        const ox = p % ow;
        // The kernel's offsets in an input plane at this position (−1 where it reads padding): the same for every channel.
        let taps = 0;
        for (let ky = 0; ky < kh; ky++) {
          const y = oy * g.strides[0] - top + ky * g.dilations[0];
          for (let kx = 0; kx < kw; kx++) {
            const x = ox * g.strides[1] - left + kx * g.dilations[1];
            offsets[taps++] = y >= 0 && y < h && x >= 0 && x < w ? y * w + x : -1;
          }
        }
        let k = at;
        for (let ch = 0; ch < c; ch++) {
          const plane = (b * c + ch) * h * w;
          for (let t = 0; t < taps; t++) {
            const o = offsets[t];
            out[k++] = o < 0 ? 0 : data[plane + o];
          }
        }
      },
    };
  }
  const width = dims[dims.length - 1];
  if (width !== layer.inPerGroup)
    throw new RecoveryError(`${layer.id}: input's last dimension is ${width}, the weight expects ${layer.inPerGroup}`);
  return {
    positions: data.length / width,
    width,
    write: (p, out, at) => out.set(data.subarray(p * width, (p + 1) * width), at),
  };
}

function floatData(t: RunTensor | undefined, name: string): { data: Float32Array; dims: readonly number[] } {
  if (!t || t.type !== 'float32')
    throw new RecoveryError(`tensor "${name}" is ${t?.type ?? 'missing'}: a layer input must be float32`);
  return { data: t.data as Float32Array, dims: t.dims };
}

/** A stable number per layer (FNV-1a of its id), so a layer samples the same positions in every pass and rung. */
function layerKey(layer: LinearLayer): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < layer.id.length; i++) h = Math.imul(h ^ layer.id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** One side's rows of each layer: the rows, and how many positions its input had (float and quantized must agree). */
export interface SideRows {
  readonly rows: number;
  readonly width: number;
  readonly positions: number;
  readonly data: Float32Array;
}

/** Each sample's tensors in sample order, handed to `onSample`: from one session, or from the quantized passes. */
export type SampleTensors = (
  onSample: (sample: number, tensors: Readonly<Record<string, RunTensor>>) => void,
) => Promise<void>;

/**
 * The input rows of `layers` as `model` computes them (`side` names which input tensor of each layer to read),
 * at positions seeded per layer and sample: one session of the model cut down to those tensors (exposeOnly), one
 * run per sample. Throws RecoveryError (also when cancelled).
 */
export async function sampleLayerInputs(
  model: ModelProto,
  layers: readonly LinearLayer[],
  side: 'float' | 'quant',
  runtime: ComparisonRuntime,
  options: GatherOptions,
): Promise<SideRows[]> {
  const tensorOf = (l: LinearLayer) => (side === 'float' ? l.floatInput : l.quantInput);
  const graphInputs = new Set(model.graph!.input.map((v) => v.name ?? ''));
  const needsFeeds = layers.some((l) => graphInputs.has(tensorOf(l)));
  if (needsFeeds && !runtime.feeds)
    throw new RecoveryError('a tuned layer reads a graph input, and the runtime gives no feeds');
  const names = [...new Set(layers.map(tensorOf).filter((n) => !graphInputs.has(n)))];
  const samples = Math.min(options.samples, runtime.samples);
  // Inputs of layers inside If branches are carried up to the main graph (exposeSubgraphs.ts) and read back by name.
  const inBodies = layers.some((l) => l.scope);
  const exposed = inBodies ? exposeByName(model, names) : undefined;
  const outputs = exposed ? [...exposed.outputs] : names;
  const runs: SampleTensors = async (onSample) => {
    const session = names.length
      ? await runtime.open(sessionModel(exposed ? exposed.model : exposeOnly(model, names)))
      : undefined;
    try {
      for (let s = 0; s < samples; s++) {
        throwIfCancelled(options.signal);
        const read = session ? await session.run(s, outputs) : {};
        const named = exposed
          ? Object.fromEntries(Object.entries(read).map(([k, v]) => [exposed.tensorOf.get(k) ?? k, v]))
          : read;
        onSample(s, { ...(needsFeeds ? runtime.feeds!(s) : {}), ...named });
      }
    } finally {
      await session?.release();
    }
  };
  return layerRowsOf(layers, tensorOf, runs, options);
}

/** The rows of `layers` read from each sample's tensors (`tensorOf` names a layer's input among them). */
export async function layerRowsOf(
  layers: readonly LinearLayer[],
  tensorOf: (l: LinearLayer) => string,
  runs: SampleTensors,
  options: GatherOptions,
): Promise<SideRows[]> {
  const parts = layers.map(() => ({ chunks: [] as Float32Array[], rows: 0, width: 0, positions: -1 }));
  await runs((s, out) => {
    layers.forEach((layer, li) => {
      const x = floatData(out[tensorOf(layer)], tensorOf(layer));
      // An If branch no sample ran gives an empty tensor for the sample: no rows.
      if (layer.scope && x.data.length === 0) return;
      const reader = rowReader(layer, x.dims, x.data);
      const random = seededRandom(options.seed + 7919 * s + 104729 * layerKey(layer));
      const count = Math.min(options.positionsPerSample, reader.positions);
      const rows = new Float32Array(count * reader.width);
      // All positions when they fit, else a seeded uniform draw (with replacement).
      for (let r = 0; r < count; r++)
        reader.write(count === reader.positions ? r : Math.floor(random() * reader.positions), rows, r * reader.width);
      const part = parts[li];
      if (part.positions >= 0 && part.positions !== reader.positions)
        throw new RecoveryError(`${layer.id}: its input changes shape between samples`);
      part.chunks.push(rows);
      part.rows += count;
      part.width = reader.width;
      part.positions = reader.positions;
    });
  });
  return parts.map((p) => {
    const data = new Float32Array(p.rows * p.width);
    let at = 0;
    for (const a of p.chunks) {
      data.set(a, at);
      at += a.length;
    }
    return { rows: p.rows, width: p.width, positions: p.positions, data };
  });
}

/** Float and quantized rows of one layer as LayerRows, checked to come from inputs of the same shape. */
export function pairRows(layer: LinearLayer, float: SideRows, quant: SideRows): LayerRows {
  // A branch no sample ran has no quantized rows, though its float input may be a graph input read from the feeds; a
  // branch some samples ran gives rows of different samples on each side then: neither pairs.
  if (layer.scope && (float.rows === 0 || quant.rows !== float.rows))
    return { layer, rows: 0, width: 0, floatRows: new Float32Array(0), quantRows: new Float32Array(0) };
  if (float.positions !== quant.positions || float.rows !== quant.rows)
    throw new RecoveryError(`${layer.id}: float and quantized inputs differ in shape`);
  return { layer, rows: quant.rows, width: quant.width, floatRows: float.data, quantRows: quant.data };
}

/**
 * Gathers the layers' input rows on the first `samples` samples: the float model's and the quantized model's, at
 * the same positions. Float rows already gathered (by layer id, e.g. by an earlier pass) are taken as given;
 * `quantRuns`, when given, serves the quantized model's tensors (the quantized passes) instead of a session.
 * Throws RecoveryError (also when cancelled).
 */
export async function gatherLayerRows(
  floatModel: ModelProto,
  quantModel: ModelProto,
  layers: readonly LinearLayer[],
  runtime: ComparisonRuntime,
  options: GatherOptions,
  floatRows?: ReadonlyMap<string, SideRows>,
  quantRuns?: SampleTensors,
): Promise<LayerRows[]> {
  const missing = layers.filter((l) => !floatRows?.has(l.id));
  const gathered = missing.length ? await sampleLayerInputs(floatModel, missing, 'float', runtime, options) : [];
  const float = new Map(missing.map((l, i) => [l.id, gathered[i]] as const));
  const quant = quantRuns
    ? await layerRowsOf(layers, (l) => l.quantInput, quantRuns, options)
    : await sampleLayerInputs(quantModel, layers, 'quant', runtime, options);
  return layers.map((layer, li) => pairRows(layer, floatRows?.get(layer.id) ?? float.get(layer.id)!, quant[li]));
}
