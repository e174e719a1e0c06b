/**
 * One decoded image to one model input tensor, in a single pass over the tensor.
 *
 * The model's input shape decides the target: layout (from the spec) says where channels, height and
 * width sit, symbolic dimensions take their values from `spec.dims`, and the channel count picks
 * the colour path: three channels get R, G, B (or B, G, R), one channel gets luma. Alpha is dropped,
 * as `cv2.imread` and Pillow's `convert('RGB')` drop it; grayscale files arrive here as RGBA with
 * R = G = B already (the decoders expand them).
 *
 * Each tensor element is: bilinear sample (resize.ts's plan and rounding, so it equals resizing to
 * an 8-bit image first, as the reference pipelines do) → colour → `(x · scale − mean[c]) / std[c]`.
 * Because x is a whole number 0–255 at that point, the normalisation is a 256-entry table per
 * channel, computed in double precision once and rounded to float32 once. No allocation happens per
 * pixel. Batching is not done here: one image makes a batch of one, and callers stack images (the
 * `out` option writes into a slice of a larger buffer).
 *
 * Luma formulas (Pillow's, bit-exact for the same RGB bytes):
 * - 'gray', `Image.convert('L')` (libImaging/Convert.c): (19595 R + 38470 G + 7471 B + 32768) >> 16,
 *   ITU-R 601-2 weights 0.299, 0.587, 0.114 in 16-bit fixed point, rounded; a gray pixel keeps its
 *   level.
 * - 'Y', the Y plane of `Image.convert('YCbCr')` (libImaging/ConvertYCbCr.c, full-range JFIF):
 *   (round(19.136 R) + round(37.568 G) + round(7.296 B)) >> 6, the same weights in 6-bit fixed point,
 *   truncated; it can be one level below 'gray'.
 */
import { PreprocessError } from './errors.ts';
import { checkRgbaImage, planResize, type RgbaImage } from './resize.ts';
import type { PreprocessSpec, TensorLayout } from './spec.ts';

/** A model input dimension as the ONNX summary gives it: a size, or a symbolic name ('?' when unnamed). */
export type InputDim = number | string;

/** What an image input expects, with every dimension resolved. */
export interface ImageInputGeometry {
  readonly layout: TensorLayout;
  /** Images the model takes in one run (the resolved batch dimension; 1 when it has none or leaves it open). */
  readonly batch: number;
  readonly channels: 1 | 3;
  readonly height: number;
  readonly width: number;
  /**
   * Dims of the tensor one image makes: the input's rank, batch 1 where the batch is open. A model whose
   * batch is fixed above 1 gets the image in every slot of it (ranges and metrics are those of the image).
   */
  readonly dims: number[];
}

export interface ImageTensorOptions {
  /** The input's name, for messages. */
  inputName?: string;
  /** Where to write (e.g. one image's slice of a batch buffer); its length must be exactly the image's element count. */
  out?: Float32Array;
}

const AXES: Record<TensorLayout, { rank3: string; rank4: string; channel: number; height: number; width: number }> = {
  NCHW: { rank3: 'CHW', rank4: 'NCHW', channel: 0, height: 1, width: 2 },
  NHWC: { rank3: 'HWC', rank4: 'NHWC', channel: 2, height: 0, width: 1 },
};
const AXIS_NAMES: Record<string, string> = { N: 'batch', C: 'channel', H: 'height', W: 'width' };

function quoted(name: string | undefined): string {
  return name ? `Input '${name}'` : 'The model input';
}

function shapeText(shape: readonly InputDim[]): string {
  return `[${shape.join(', ')}]`;
}

/** The value of one dimension: a positive size as is, a symbolic one from `dims`, else undefined. */
function resolveDim(dim: InputDim, dims: Readonly<Record<string, number>>): number | undefined {
  if (typeof dim === 'number') return Number.isInteger(dim) && dim > 0 ? dim : undefined;
  return Object.prototype.hasOwnProperty.call(dims, dim) ? dims[dim] : undefined;
}

/**
 * The input's layout, channels, height, width and batch, resolved against the spec; throws a
 * PreprocessError naming the dimension that has no value, or the shape that is not an image.
 */
export function resolveImageInput(
  inputShape: readonly InputDim[],
  spec: Pick<PreprocessSpec, 'layout' | 'dims'>,
  inputName?: string,
): ImageInputGeometry {
  const rank = inputShape.length;
  const axes = AXES[spec.layout];
  if (rank !== 3 && rank !== 4) {
    throw new PreprocessError(
      `${quoted(inputName)} has shape ${shapeText(inputShape)} (rank ${rank}); an image input has rank 4 (${axes.rank4}) or 3 (${axes.rank3}).`,
    );
  }
  const first = rank - 3;
  const letters = rank === 4 ? axes.rank4 : axes.rank3;
  const value = (index: number, letter: string, allowDefault: boolean): number => {
    const dim = inputShape[index];
    const v = resolveDim(dim, spec.dims);
    if (v !== undefined) return v;
    if (allowDefault) return 1;
    const which = `${AXIS_NAMES[letter]} (${letter} in ${letters})`;
    if (typeof dim === 'string' && dim !== '?' && dim !== '') {
      throw new PreprocessError(
        `${quoted(inputName)} has the symbolic ${which} dimension "${dim}" in ${shapeText(inputShape)}; ` +
          `give its value in the preprocessing "dims", e.g. {"dims": {"${dim}": 320}}.`,
      );
    }
    throw new PreprocessError(
      `${quoted(inputName)} leaves its ${which} dimension unknown (${shapeText(inputShape)}) and unnamed, so "dims" cannot set it; ` +
        `fix the model's input shape.`,
    );
  };
  const batch = rank === 4 ? value(0, 'N', true) : 1;
  const channels = value(first + axes.channel, 'C', false);
  const height = value(first + axes.height, 'H', false);
  const width = value(first + axes.width, 'W', false);
  if (channels !== 1 && channels !== 3) {
    const other: TensorLayout = spec.layout === 'NCHW' ? 'NHWC' : 'NCHW';
    const otherChannels = resolveDim(inputShape[first + AXES[other].channel], spec.dims);
    const hint = otherChannels === 1 || otherChannels === 3 ? ` It looks like ${other}: set "layout": "${other}".` : '';
    throw new PreprocessError(
      `${quoted(inputName)} ${shapeText(inputShape)} read as ${spec.layout} has ${channels} channels; images give 1 (luma) or 3 (RGB/BGR).${hint}`,
    );
  }
  const dims = spec.layout === 'NCHW' ? [channels, height, width] : [height, width, channels];
  // A batch fixed in the model must be filled; an open one takes one image.
  const slots = typeof inputShape[0] === 'number' ? batch : 1;
  return { layout: spec.layout, batch, channels, height, width, dims: rank === 4 ? [slots, ...dims] : dims };
}

/** Pillow's YCbCr Y tables: round(weight · 64 · v) for v = 0…255 (ConvertYCbCr.c, SCALE 6). */
function yTable(weight: number): Int32Array {
  const table = new Int32Array(256);
  for (let v = 0; v < 256; v++) table[v] = Math.round(weight * 64 * v);
  return table;
}
const Y_FROM_R = yTable(0.299);
const Y_FROM_G = yTable(0.587);
const Y_FROM_B = yTable(0.114);

/** Luma 0–255 of 8-bit R, G, B as Pillow's `convert('L')` computes it. */
export function grayLuma(r: number, g: number, b: number): number {
  return (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16;
}

/** Y 0–255 of 8-bit R, G, B as Pillow's `convert('YCbCr')` computes it. */
export function ycbcrY(r: number, g: number, b: number): number {
  return (Y_FROM_R[r] + Y_FROM_G[g] + Y_FROM_B[b]) >> 6;
}

/** Per output channel, the tensor value of each byte 0–255: (x · scale − mean[c]) / std[c], as float32. */
function normalisationTables(spec: PreprocessSpec, channels: number, inputName?: string): Float32Array[] {
  for (const field of ['mean', 'std'] as const) {
    const n = spec[field].length;
    if (n !== 1 && n !== channels) {
      throw new PreprocessError(
        `Preprocessing field "${field}" has ${n} values but ${inputName ? `input '${inputName}'` : 'the input'} has ${channels} ` +
          `channel${channels === 1 ? '' : 's'}; give 1 value or ${channels}.`,
      );
    }
  }
  const tables: Float32Array[] = [];
  for (let c = 0; c < channels; c++) {
    const mean = spec.mean.length === 1 ? spec.mean[0] : spec.mean[c];
    const std = spec.std.length === 1 ? spec.std[0] : spec.std[c];
    const table = new Float32Array(256);
    for (let x = 0; x < 256; x++) table[x] = (x * spec.scale - mean) / std;
    tables.push(table);
  }
  return tables;
}

/** Writes one image into `out` (float32 or uint8 values of the tables). */
function fill(
  out: Float32Array | Uint8Array,
  image: RgbaImage,
  geometry: ImageInputGeometry,
  spec: PreprocessSpec,
  tables: Float32Array[],
): void {
  const { width, height, channels } = geometry;
  const plan = planResize(image.width, image.height, width, height, spec.resize, spec.letterboxAlign);
  const src = image.data;
  const rowBytes = image.width * 4;
  const { x, y } = plan;
  const planar = geometry.layout === 'NCHW';
  // Offsets of one channel from the next, and of one pixel from the next, in `out`.
  const channelStep = planar ? width * height : 1;
  const pixelStep = planar ? 1 : channels;
  const pad = spec.padValue;
  const useY = spec.colorSpace === 'Y';
  const t0 = tables[0];
  const t1 = channels === 3 ? tables[1] : t0;
  const t2 = channels === 3 ? tables[2] : t0;
  const bgr = spec.channelOrder === 'BGR';
  // The luma of a gray pad pixel: itself under 'gray', possibly one less under Pillow's 'Y' (e.g. 11 → 10).
  const padLuma = useY ? ycbcrY(pad, pad, pad) : pad;
  const xs = x.start,
    xe = x.end,
    xl = x.lower,
    xu = x.upper,
    xw = x.weight;

  let o = 0;
  for (let dy = 0; dy < height; dy++) {
    const inRow = dy >= y.start && dy < y.end;
    const top = y.lower[dy] * rowBytes;
    const bottom = y.upper[dy] * rowBytes;
    const fy = y.weight[dy];
    for (let dx = 0; dx < width; dx++, o += pixelStep) {
      if (!inRow || dx < xs || dx >= xe) {
        if (channels === 3) {
          out[o] = t0[pad];
          out[o + channelStep] = t1[pad];
          out[o + 2 * channelStep] = t2[pad];
        } else {
          out[o] = t0[padLuma];
        }
        continue;
      }
      const fx = xw[dx];
      const i00 = top + xl[dx] * 4;
      const i01 = top + xu[dx] * 4;
      const i10 = bottom + xl[dx] * 4;
      const i11 = bottom + xu[dx] * 4;
      // Same arithmetic as resize.ts's bilinearByte (kept inline: this is the hot loop).
      let u = src[i00] + (src[i01] - src[i00]) * fx;
      let l = src[i10] + (src[i11] - src[i10]) * fx;
      const r = Math.floor(u + (l - u) * fy + 0.5);
      u = src[i00 + 1] + (src[i01 + 1] - src[i00 + 1]) * fx;
      l = src[i10 + 1] + (src[i11 + 1] - src[i10 + 1]) * fx;
      const g = Math.floor(u + (l - u) * fy + 0.5);
      u = src[i00 + 2] + (src[i01 + 2] - src[i00 + 2]) * fx;
      l = src[i10 + 2] + (src[i11 + 2] - src[i10 + 2]) * fx;
      const b = Math.floor(u + (l - u) * fy + 0.5);
      if (channels === 3) {
        out[o] = t0[bgr ? b : r];
        out[o + channelStep] = t1[g];
        out[o + 2 * channelStep] = t2[bgr ? r : b];
      } else {
        out[o] =
          t0[useY ? (Y_FROM_R[r] + Y_FROM_G[g] + Y_FROM_B[b]) >> 6 : (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16];
      }
    }
  }
}

function prepare(pixels: RgbaImage, inputShape: readonly InputDim[], spec: PreprocessSpec, inputName?: string) {
  checkRgbaImage(pixels);
  const geometry = resolveImageInput(inputShape, spec, inputName);
  const count = geometry.dims.reduce((a, b) => a * b, 1);
  return { geometry, count, tables: normalisationTables(spec, geometry.channels, inputName) };
}

/** Fills the first slot of the batch with the image, then copies it into the others (a batch fixed above 1). */
function fillBatch(
  out: Float32Array | Uint8Array,
  pixels: RgbaImage,
  geometry: ImageInputGeometry,
  spec: PreprocessSpec,
  tables: ReturnType<typeof normalisationTables>,
): void {
  const slots = geometry.dims.length === 4 ? geometry.dims[0] : 1;
  const one = out.length / slots;
  fill(slots === 1 ? out : out.subarray(0, one), pixels, geometry, spec, tables);
  for (let b = 1; b < slots; b++) out.copyWithin(b * one, 0, one);
}

/** A named error unless `spec` makes `type`, the element type `maker` makes (`other` makes the other one). */
function requireElementType(
  spec: PreprocessSpec,
  type: PreprocessSpec['elementType'],
  maker: string,
  other: string,
): void {
  if (spec.elementType !== type) {
    throw new PreprocessError(
      `Preprocessing field "elementType" is "${spec.elementType}"; ${maker} makes ${type} (use ${other}).`,
    );
  }
}

/**
 * One image's tensor written into `options.out`, or into a fresh buffer from `fresh`. A uint8 tensor takes the
 * bytes as they are, so its preprocessing must leave every value unchanged (a named error otherwise).
 */
function imageInto<T extends Float32Array | Uint8Array>(
  pixels: RgbaImage,
  inputShape: readonly InputDim[],
  spec: PreprocessSpec,
  options: { inputName?: string; out?: T },
  fresh: (count: number) => T,
): { data: T; dims: number[] } {
  const { geometry, count, tables } = prepare(pixels, inputShape, spec, options.inputName);
  if (spec.elementType === 'uint8' && !tables.every((t) => t.every((v, x) => v === x))) {
    throw new PreprocessError('A uint8 input takes raw bytes: preprocessing "scale" must be 1, "mean" 0 and "std" 1.');
  }
  const data = outputBuffer(options.out ?? fresh(count), count, geometry.dims);
  fillBatch(data, pixels, geometry, spec, tables);
  return { data, dims: geometry.dims };
}

/** `data` as the buffer for one image of `dims`, or a named error where its length is not `count`. */
function outputBuffer<T extends Float32Array | Uint8Array>(data: T, count: number, dims: readonly number[]): T {
  if (data.length !== count) {
    throw new PreprocessError(
      `The output buffer has ${data.length} elements but one image for ${shapeText(dims)} has ${count}.`,
    );
  }
  return data;
}

/** The float32 tensor (values `(x · scale − mean) / std`, dims as geometry.dims) of one image for an input of `inputShape`. */
export function imageToTensor(
  pixels: RgbaImage,
  inputShape: readonly InputDim[],
  spec: PreprocessSpec,
  options: ImageTensorOptions = {},
): { data: Float32Array; dims: number[] } {
  requireElementType(spec, 'float32', 'imageToTensor', 'imageToUint8Tensor');
  return imageInto(pixels, inputShape, spec, options, (count) => new Float32Array(count));
}

/** The uint8 tensor (raw 0–255 values, dims as geometry.dims) of one image, for models that take bytes. */
export function imageToUint8Tensor(
  pixels: RgbaImage,
  inputShape: readonly InputDim[],
  spec: PreprocessSpec,
  options: { inputName?: string; out?: Uint8Array } = {},
): { data: Uint8Array; dims: number[] } {
  requireElementType(spec, 'uint8', 'imageToUint8Tensor', 'imageToTensor');
  return imageInto(pixels, inputShape, spec, options, (count) => new Uint8Array(count));
}

/** One image as the tensor an image input takes: uint8 bytes where the spec says so, else float32. */
export function imageToInputTensor(
  pixels: RgbaImage,
  inputShape: readonly InputDim[],
  spec: PreprocessSpec,
  inputName?: string,
): { type: 'float32'; data: Float32Array; dims: number[] } | { type: 'uint8'; data: Uint8Array; dims: number[] } {
  if (spec.elementType === 'uint8')
    return { type: 'uint8', ...imageToUint8Tensor(pixels, inputShape, spec, { inputName }) };
  return { type: 'float32', ...imageToTensor(pixels, inputShape, spec, { inputName }) };
}
