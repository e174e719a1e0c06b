/**
 * The preprocessing spec: how an image becomes a model's input tensor, as plain JSON.
 *
 * One spec travels everywhere: the CLI reads it from `--preprocess <json>`, the page exports and
 * imports the same JSON, and calibration records it beside the ranges it produced, because ranges
 * calibrated under one normalisation are wrong under another. So the spec is data (no functions, no
 * defaults hidden in code paths) and `validatePreprocess` is the only door in: it checks every field
 * of untrusted JSON, fills the fields left out with the defaults below, and names the bad field in
 * a `PreprocessError`. It does not know any model; fitting a spec to an input shape is toTensor.ts.
 *
 * Pixel arithmetic, per channel c of 0–255 values x: `(x * scale - mean[c]) / std[c]`.
 */
import { PreprocessError } from './errors.ts';
import type { LetterboxAlign, ResizeMode } from './resize.ts';

export type { LetterboxAlign, ResizeMode } from './resize.ts';
export type ChannelOrder = 'RGB' | 'BGR';
export type TensorLayout = 'NCHW' | 'NHWC';
/**
 * What a one-channel model receives. Both are full-range (JFIF) BT.601 luma of the 8-bit RGB,
 * 0–255 before `scale`, computed bit-exactly as Pillow does (see toTensor.ts for the formulas):
 * 'gray' = `Image.convert('L')` (MNIST-style grayscale), 'Y' = the Y plane of
 * `Image.convert('YCbCr')` (the super-resolution model). They differ by at most one level.
 */
export type ColorSpace = 'gray' | 'Y';
/** 'float32' for the usual float input; 'uint8' for a model that takes raw 0–255 bytes. */
export type ImageElementType = 'float32' | 'uint8';

export interface PreprocessSpec {
  /** 'stretch' to the input size, 'crop' (resize the short side to fit, center crop), 'letterbox' (fit inside, pad). */
  resize: ResizeMode;
  /** Where a letterboxed image sits: 'center', or 'topLeft' (padding right and bottom only, as YOLOX). */
  letterboxAlign: LetterboxAlign;
  /** Pixel value (0–255, every channel) of letterbox padding, before normalisation. */
  padValue: number;
  /** Channel order of a three-channel input. */
  channelOrder: ChannelOrder;
  /** Which luma a one-channel input receives. */
  colorSpace: ColorSpace;
  /** Multiplies 0–255 pixel values first (1/255 maps them to 0–1). */
  scale: number;
  /** Subtracted per channel after scaling: one value for all channels, or one per input channel. */
  mean: number[];
  /** Divides per channel after the mean: one value for all channels, or one per input channel. */
  std: number[];
  /** Memory layout of the input: channels first (NCHW) or last (NHWC). */
  layout: TensorLayout;
  /** Values of symbolic input dimensions, by name, e.g. `{ "height": 320, "width": 320 }`. */
  dims: Record<string, number>;
  /** Element type of the tensor made. */
  elementType: ImageElementType;
}

/** The JSON form: any subset of the fields; those left out take `DEFAULT_PREPROCESS`'s values. */
export type PreprocessJson = Partial<PreprocessSpec>;

/** Values of fields a JSON spec leaves out: the 'unit' preset (RGB in 0–1, stretched, NCHW float32). */
export const DEFAULT_PREPROCESS: Readonly<PreprocessSpec> = Object.freeze({
  resize: 'stretch',
  letterboxAlign: 'center',
  padValue: 0,
  channelOrder: 'RGB',
  colorSpace: 'gray',
  scale: 1 / 255,
  mean: [0],
  std: [1],
  layout: 'NCHW',
  dims: {},
  elementType: 'float32',
}) as Readonly<PreprocessSpec>;

/** The fields, in the order the JSON form writes them. */
export const PREPROCESS_FIELDS = [
  'resize',
  'letterboxAlign',
  'padValue',
  'channelOrder',
  'colorSpace',
  'scale',
  'mean',
  'std',
  'layout',
  'dims',
  'elementType',
] as const satisfies readonly (keyof PreprocessSpec)[];

const CHOICES = {
  resize: ['stretch', 'crop', 'letterbox'],
  letterboxAlign: ['center', 'topLeft'],
  channelOrder: ['RGB', 'BGR'],
  colorSpace: ['gray', 'Y'],
  layout: ['NCHW', 'NHWC'],
  elementType: ['float32', 'uint8'],
} as const;

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value); // NaN, Infinity (JSON says null)
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function bad(field: string, expected: string, value: unknown): PreprocessError {
  return new PreprocessError(`Preprocessing field "${field}" must be ${expected}; got ${describe(value)}.`);
}

function choice<K extends keyof typeof CHOICES>(field: K, value: unknown): (typeof CHOICES)[K][number] {
  const options = CHOICES[field] as readonly string[];
  if (typeof value !== 'string' || !options.includes(value)) {
    throw bad(field, `one of ${options.map((o) => `"${o}"`).join(', ')}`, value);
  }
  return value as (typeof CHOICES)[K][number];
}

function finiteNumber(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw bad(field, 'a finite number', value);
  return value;
}

/** A per-channel list: a number stands for a one-element list; 1 to 4 finite values. */
function channelValues(field: 'mean' | 'std', value: unknown): number[] {
  const list = typeof value === 'number' ? [value] : value;
  if (
    !Array.isArray(list) ||
    list.length < 1 ||
    list.length > 4 ||
    !list.every((v) => typeof v === 'number' && Number.isFinite(v))
  ) {
    throw bad(field, 'a list of 1 to 4 finite numbers (one for all channels, or one per channel)', value);
  }
  if (field === 'std' && list.some((v) => v === 0)) throw bad(field, 'non-zero (it divides)', value);
  return [...list] as number[];
}

function dimValues(value: unknown): Record<string, number> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw bad('dims', 'an object of dimension names and whole numbers, e.g. {"height": 320}', value);
  }
  const out: Record<string, number> = {};
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
      throw new PreprocessError(
        `Preprocessing field "dims" gives dimension "${name}" the value ${describe(v)}; it must be a whole number ≥ 1.`,
      );
    }
    out[name] = v;
  }
  return out;
}

/** A checked spec from untrusted JSON (already parsed); fields left out take their defaults. */
export function validatePreprocess(json: unknown): PreprocessSpec {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new PreprocessError(
      `Preprocessing must be a JSON object such as {"channelOrder": "BGR"}; got ${describe(json)}.`,
    );
  }
  const input = json as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!(PREPROCESS_FIELDS as readonly string[]).includes(key)) {
      throw new PreprocessError(
        `Unknown preprocessing field "${key}"; the fields are ${PREPROCESS_FIELDS.join(', ')}.`,
      );
    }
  }
  const pick = (key: keyof PreprocessSpec): unknown =>
    input[key] === undefined ? DEFAULT_PREPROCESS[key] : input[key];

  const padValue = pick('padValue');
  if (typeof padValue !== 'number' || !Number.isInteger(padValue) || padValue < 0 || padValue > 255) {
    throw bad('padValue', 'a whole number from 0 to 255', padValue);
  }
  const scale = finiteNumber('scale', pick('scale'));
  if (scale === 0) throw bad('scale', 'non-zero', scale);

  const spec: PreprocessSpec = {
    resize: choice('resize', pick('resize')),
    letterboxAlign: choice('letterboxAlign', pick('letterboxAlign')),
    padValue,
    channelOrder: choice('channelOrder', pick('channelOrder')),
    colorSpace: choice('colorSpace', pick('colorSpace')),
    scale,
    mean: channelValues('mean', pick('mean')),
    std: channelValues('std', pick('std')),
    layout: choice('layout', pick('layout')),
    dims: dimValues(pick('dims')),
    elementType: choice('elementType', pick('elementType')),
  };

  if (spec.elementType === 'uint8') {
    // Raw bytes go in unchanged: a normalisation could not be represented in uint8.
    if (spec.scale !== 1)
      throw bad('scale', '1 when "elementType" is "uint8" (raw bytes are not normalised)', spec.scale);
    if (spec.mean.some((m) => m !== 0))
      throw bad('mean', '0 when "elementType" is "uint8" (raw bytes are not normalised)', spec.mean);
    if (spec.std.some((s) => s !== 1))
      throw bad('std', '1 when "elementType" is "uint8" (raw bytes are not normalised)', spec.std);
  }
  return spec;
}

/** A checked spec from JSON text (the CLI's `--preprocess` argument, an imported file). */
export function parsePreprocess(text: string): PreprocessSpec {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new PreprocessError(
      `Preprocessing is not valid JSON (${(e as Error).message}); expected an object such as {"channelOrder": "BGR"}.`,
    );
  }
  return validatePreprocess(json);
}

/** The JSON text of a spec, every field written, in `PREPROCESS_FIELDS` order; `parsePreprocess` reads it back equal. */
export function formatPreprocess(spec: PreprocessSpec): string {
  const ordered: Record<string, unknown> = {};
  for (const key of PREPROCESS_FIELDS) ordered[key] = spec[key];
  return JSON.stringify(ordered, null, 2);
}
