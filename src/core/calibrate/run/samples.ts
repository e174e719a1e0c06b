/**
 * Calibration samples → model feeds: images (decoded here, off the main thread, then preprocessed by
 * the core's `imageToInputTensor`), ready-made tensors, and random inputs for `UseRandomData`.
 *
 * A sample that cannot be read (a corrupt image) is skipped with a reason; a problem that would hit
 * every sample (a preprocessing spec that does not fit the input) is thrown before the run starts.
 * Decoding is injected (`ImageDecoder`): OffscreenCanvas over a Blob in the worker, the Node decoder over a
 * file path in the command line, a fake in tests. Core code: no DOM, no file system.
 */
import type { TensorSummary } from '../../onnx/index.ts';
import type { RgbaImage } from '../../preprocess/resize.ts';
import type { PreprocessSpec } from '../../preprocess/spec.ts';
import { imageToInputTensor, resolveImageInput, type ImageInputGeometry } from '../../preprocess/toTensor.ts';
import { checkNpyInput, parseNpy } from '../../preprocess/npy.ts';
import { seededRandom } from '../../seededRandom.ts';
import type { Feed, FeedType } from '../../runtime/session.ts';
import type { Produced, SampleSource } from './runner.ts';
import { NoCalibrationDataError, NotAnImageModelError } from '../errors.ts';

/**
 * Decodes an encoded image file (PNG, JPEG, WebP, …) to RGBA pixels; rejects when it cannot. `F` is what
 * names the file: a Blob on the page, a path in the command line.
 */
export type ImageDecoder<F = Blob> = (file: F) => Promise<RgbaImage>;

/**
 * One calibration sample. The page sends files as File/Blob handles (no bytes are read on the page); the
 * command line gives image paths.
 */
export type CalibrationSample<F = Blob> =
  | { readonly kind: 'image'; readonly name: string; readonly file: F }
  | { readonly kind: 'pixels'; readonly name: string; readonly pixels: RgbaImage }
  | { readonly kind: 'tensors'; readonly name: string; readonly feeds: Readonly<Record<string, Feed>> }
  /** One .npy file per model input (by input name), parsed here. */
  | { readonly kind: 'npy'; readonly name: string; readonly files: Readonly<Record<string, Blob>> };

/** How many random samples `UseRandomData` runs when no data is given (as Quark, a handful is enough for ranges). */
export const RANDOM_SAMPLES = 8;

/** The one image input of a model, or a NotAnImageModelError saying why images cannot feed it. */
export function imageInputOf(
  inputs: readonly TensorSummary[],
  spec: PreprocessSpec,
): { input: TensorSummary; geometry: ImageInputGeometry } {
  if (inputs.length !== 1) {
    throw new NotAnImageModelError(
      `The model has ${inputs.length} inputs (${inputs.map((i) => i.name).join(', ')}); images feed a model with one image input. Give .npy tensors for each input instead.`,
    );
  }
  const input = inputs[0];
  if (!input.shape)
    throw new NotAnImageModelError(
      `Input '${input.name}' has no known shape, so images cannot be fitted to it; give .npy tensors instead.`,
    );
  const want = spec.elementType === 'uint8' ? 'uint8' : 'float32';
  if (input.elemType !== want) {
    throw new NotAnImageModelError(
      `Input '${input.name}' takes ${input.elemType} but the preprocessing makes ${want}` +
        (input.elemType === 'uint8' || input.elemType === 'float32'
          ? `: set "elementType" to "${input.elemType}".`
          : '; give .npy tensors instead.'),
    );
  }
  return { input, geometry: resolveImageInput(input.shape, spec, input.name) };
}

function describeFailure(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message || (e instanceof Error ? e.name : 'unknown error');
}

/** Samples as a SampleSource over `inputs`. Throws before any run when the spec cannot fit the model. */
export function sampleSource<F = Blob>(
  samples: readonly CalibrationSample<F>[],
  inputs: readonly TensorSummary[],
  spec: PreprocessSpec | null,
  decode: ImageDecoder<F>,
): SampleSource {
  const hasImages = samples.some((s) => s.kind === 'image' || s.kind === 'pixels');
  let image: { input: TensorSummary; geometry: ImageInputGeometry } | null = null;
  if (hasImages) {
    if (!spec) throw new NotAnImageModelError('Images need a preprocessing spec to become tensors.');
    image = imageInputOf(inputs, spec);
  }

  const fromPixels = (pixels: RgbaImage): Record<string, Feed> => {
    const { input } = image!;
    return { [input.name]: imageToInputTensor(pixels, input.shape!, spec!, input.name) };
  };

  return {
    count: samples.length,
    name: (i) => samples[i].name,
    async produce(i): Promise<Produced> {
      const sample = samples[i];
      if (sample.kind === 'tensors') return { feeds: { ...sample.feeds } };
      if (sample.kind === 'npy') return npyFeeds(sample.files, inputs, spec?.dims ?? {});
      let pixels: RgbaImage;
      if (sample.kind === 'pixels') pixels = sample.pixels;
      else {
        try {
          pixels = await decode(sample.file);
        } catch (e) {
          return { skip: `not a readable image (${describeFailure(e)})` };
        }
      }
      if (pixels.width < 1 || pixels.height < 1) return { skip: 'the image has no pixels' };
      return { feeds: fromPixels(pixels), size: { width: pixels.width, height: pixels.height } };
    },
  };
}

/** The feeds of one .npy sample; a file that is unreadable or does not fit its input skips the sample. */
async function npyFeeds(
  files: Readonly<Record<string, Blob>>,
  inputs: readonly TensorSummary[],
  dims: Readonly<Record<string, number>>,
): Promise<Produced> {
  const feeds: Record<string, Feed> = {};
  for (const input of inputs) {
    const file = files[input.name];
    const label = file instanceof File ? file.name : `the .npy file for '${input.name}'`;
    if (!file) return { skip: `no .npy file for input '${input.name}'` };
    try {
      const array = parseNpy(new Uint8Array(await file.arrayBuffer()), label);
      checkNpyInput(array, input, label, dims);
      const type = (
        input.elemType === 'float64' || input.elemType === 'float16' ? 'float32' : input.elemType
      ) as FeedType;
      feeds[input.name] = { type, data: array.data as Feed['data'], dims: array.dims };
    } catch (e) {
      return { skip: describeFailure(e) };
    }
  }
  return { feeds };
}

/** Per channel, the smallest and largest value the spec makes from 0–255 pixels. */
function channelRanges(spec: PreprocessSpec, channels: number): [number, number][] {
  const out: [number, number][] = [];
  for (let c = 0; c < channels; c++) {
    const mean = spec.mean.length === 1 ? spec.mean[0] : spec.mean[c];
    const std = spec.std.length === 1 ? spec.std[0] : spec.std[c];
    const a = Math.fround((0 * spec.scale - mean) / std);
    const b = Math.fround((255 * spec.scale - mean) / std);
    out.push([Math.min(a, b), Math.max(a, b)]);
  }
  return out;
}

/**
 * `UseRandomData`: `count` random feeds for every input. An image input (one input, and a spec that
 * fits it) gets values uniform in the range its preprocessing can produce, per channel; other float
 * inputs get values uniform in [0, 1). Non-float inputs have no meaningful random values: refused.
 */
export function randomSource(
  inputs: readonly TensorSummary[],
  spec: PreprocessSpec | null,
  count = RANDOM_SAMPLES,
  seed = 1,
): SampleSource {
  const dims = spec?.dims ?? {};
  let image: { input: TensorSummary; geometry: ImageInputGeometry } | null = null;
  if (spec && inputs.length === 1) {
    try {
      image = imageInputOf(inputs, spec);
    } catch {
      image = null;
    }
  }
  const plans = inputs.map((input) => {
    if (image && image.input === input) {
      const g = image.geometry;
      const ranges = channelRanges(spec!, g.channels);
      const type: FeedType = spec!.elementType === 'uint8' ? 'uint8' : 'float32';
      return {
        input,
        type,
        dims: g.dims,
        channelOf: (k: number) =>
          g.layout === 'NCHW' ? Math.floor(k / (g.height * g.width)) % g.channels : k % g.channels,
        ranges,
      };
    }
    if (input.elemType !== 'float32') {
      throw new NoCalibrationDataError(
        `Random calibration data works for float32 inputs only; input '${input.name}' is ${input.elemType}. Give .npy tensors for it.`,
      );
    }
    const shape = (input.shape ?? []).map((d, axis) => {
      if (typeof d === 'number' && d > 0) return d;
      if (typeof d === 'string' && d in dims) return dims[d];
      if (axis === 0) return 1;
      throw new NoCalibrationDataError(
        `Input '${input.name}' has the open dimension ${JSON.stringify(d)} at axis ${axis}; give its value in the preprocessing "dims" to calibrate on random data.`,
      );
    });
    return {
      input,
      type: 'float32' as FeedType,
      dims: shape,
      channelOf: () => 0,
      ranges: [[0, 1]] as [number, number][],
    };
  });
  const next = seededRandom(seed);
  return {
    count,
    name: (i) => `random sample ${i + 1}`,
    async produce(): Promise<Produced> {
      const feeds: Record<string, Feed> = {};
      for (const p of plans) {
        const n = p.dims.reduce((a, b) => a * b, 1);
        if (p.type === 'uint8') {
          const data = new Uint8Array(n);
          for (let k = 0; k < n; k++) data[k] = Math.floor(next() * 256);
          feeds[p.input.name] = { type: 'uint8', data, dims: p.dims };
        } else {
          const data = new Float32Array(n);
          for (let k = 0; k < n; k++) {
            const [lo, hi] = p.ranges[p.channelOf(k)];
            data[k] = lo + (hi - lo) * next();
          }
          feeds[p.input.name] = { type: 'float32', data, dims: p.dims };
        }
      }
      return { feeds };
    },
  };
}
