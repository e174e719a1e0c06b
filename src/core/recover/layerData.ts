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
import { encode, StudioError, type ModelProto } from '../onnx/index.ts';
import { exposeTensors } from '../calibrate/expose.ts';
import type { ComparisonRuntime, RunTensor } from '../evaluate/compareModels.ts';
import type { LinearLayer } from './linearLayers.ts';
import { seededRandom } from '../seededRandom.ts';

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
    if (g.autoPad === 'VALID') { begin[d] = 0; end[d] = 0; }
    else if (g.autoPad === 'SAME_UPPER' || g.autoPad === 'SAME_LOWER') {
      const total = Math.max(0, (Math.ceil(size[d] / g.strides[d]) - 1) * g.strides[d] + span - size[d]);
      begin[d] = g.autoPad === 'SAME_UPPER' ? Math.floor(total / 2) : Math.ceil(total / 2);
      end[d] = total - begin[d];
    }
    out[d] = Math.floor((size[d] + begin[d] + end[d] - span) / g.strides[d]) + 1;
  }
  return { oh: out[0], ow: out[1], top: begin[0], left: begin[1] };
}

/** Number of output positions of a layer for an input of these dims, and a writer of position p's row. */
function rowReader(layer: LinearLayer, dims: readonly number[], data: Float32Array): { positions: number; width: number; write(p: number, out: Float32Array, at: number): void } {
  if (layer.opType === 'Conv') {
    if (dims.length !== 4) throw new RecoveryError(`${layer.id}: expected a 4-D input, got [${dims.join(', ')}]`);
    const [n, c, h, w] = dims;
    const g = layer.conv!;
    const [kh, kw] = g.kernel;
    if (c * kh * kw !== layer.groups * layer.inPerGroup) throw new RecoveryError(`${layer.id}: input has ${c} channels, the weight expects ${(layer.groups * layer.inPerGroup) / (kh * kw)}`);
    const { oh, ow, top, left } = convOutput(layer, h, w);
    return {
      positions: n * oh * ow,
      width: c * kh * kw,
      write(p, out, at) {
        const b = Math.floor(p / (oh * ow));
        const oy = Math.floor(p / ow) % oh;
        const ox = p % ow;
        let k = at;
        for (let ch = 0; ch < c; ch++) {
          const plane = (b * c + ch) * h * w;
          for (let ky = 0; ky < kh; ky++) {
            const y = oy * g.strides[0] - top + ky * g.dilations[0];
            for (let kx = 0; kx < kw; kx++) {
              const x = ox * g.strides[1] - left + kx * g.dilations[1];
              out[k++] = y >= 0 && y < h && x >= 0 && x < w ? data[plane + y * w + x] : 0;
            }
          }
        }
      },
    };
  }
  const width = dims[dims.length - 1];
  if (width !== layer.inPerGroup) throw new RecoveryError(`${layer.id}: input's last dimension is ${width}, the weight expects ${layer.inPerGroup}`);
  return { positions: data.length / width, width, write: (p, out, at) => out.set(data.subarray(p * width, (p + 1) * width), at) };
}

function floatData(t: RunTensor | undefined, name: string): { data: Float32Array; dims: readonly number[] } {
  if (!t || t.type !== 'float32') throw new RecoveryError(`tensor "${name}" is ${t?.type ?? 'missing'}: a layer input must be float32`);
  return { data: t.data as Float32Array, dims: t.dims };
}

/** Gathers the layers' input rows on the first `samples` samples. Throws RecoveryError (also when cancelled). */
export async function gatherLayerRows(floatModel: ModelProto, quantModel: ModelProto, layers: readonly LinearLayer[], runtime: ComparisonRuntime, options: GatherOptions): Promise<LayerRows[]> {
  const fInputs = new Set(floatModel.graph!.input.map((v) => v.name ?? ''));
  const qInputs = new Set(quantModel.graph!.input.map((v) => v.name ?? ''));
  const needsFeeds = layers.some((l) => fInputs.has(l.floatInput) || qInputs.has(l.quantInput));
  if (needsFeeds && !runtime.feeds) throw new RecoveryError('a tuned layer reads a graph input, and the runtime gives no feeds');
  const fNames = [...new Set(layers.map((l) => l.floatInput).filter((n) => !fInputs.has(n)))];
  const qNames = [...new Set(layers.map((l) => l.quantInput).filter((n) => !qInputs.has(n)))];
  const samples = Math.min(options.samples, runtime.samples);
  const parts = layers.map(() => ({ float: [] as Float32Array[], quant: [] as Float32Array[], rows: 0, width: 0 }));
  const fSession = await runtime.open(encode(exposeTensors(floatModel, fNames)));
  let qSession;
  try {
    qSession = await runtime.open(encode(exposeTensors(quantModel, qNames)));
    for (let s = 0; s < samples; s++) {
      throwIfCancelled(options.signal);
      const feeds = needsFeeds ? runtime.feeds!(s) : {};
      const f = { ...feeds, ...(fNames.length ? await fSession.run(s, fNames) : {}) };
      const q = { ...feeds, ...(qNames.length ? await qSession.run(s, qNames) : {}) };
      layers.forEach((layer, li) => {
        const fx = floatData(f[layer.floatInput], layer.floatInput);
        const qx = floatData(q[layer.quantInput], layer.quantInput);
        const fr = rowReader(layer, fx.dims, fx.data);
        const qr = rowReader(layer, qx.dims, qx.data);
        if (fr.positions !== qr.positions) throw new RecoveryError(`${layer.id}: float and quantized inputs differ in shape`);
        const random = seededRandom(options.seed + 7919 * s + 104729 * li);
        const count = Math.min(options.positionsPerSample, fr.positions);
        const fOut = new Float32Array(count * fr.width);
        const qOut = new Float32Array(count * fr.width);
        for (let r = 0; r < count; r++) {
          // All positions when they fit, else a seeded uniform draw (with replacement).
          const p = count === fr.positions ? r : Math.floor(random() * fr.positions);
          fr.write(p, fOut, r * fr.width);
          qr.write(p, qOut, r * fr.width);
        }
        parts[li].float.push(fOut);
        parts[li].quant.push(qOut);
        parts[li].rows += count;
        parts[li].width = fr.width;
      });
    }
  } finally {
    await fSession.release();
    await qSession?.release();
  }
  return layers.map((layer, li) => {
    const p = parts[li];
    const concat = (arrays: Float32Array[]) => {
      const out = new Float32Array(p.rows * p.width);
      let at = 0;
      for (const a of arrays) { out.set(a, at); at += a.length; }
      return out;
    };
    return { layer, rows: p.rows, width: p.width, floatRows: concat(p.float), quantRows: concat(p.quant) };
  });
}
