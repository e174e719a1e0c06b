/**
 * Values for an image input's symbolic dimensions, so that a model exported with an open batch,
 * height or width can be calibrated without the user typing numbers first.
 *
 * The batch takes 1 and an open channel count 3. Height and width take, in this order: the usual
 * input size of the model's family when it was recognised (recognize.ts), else the size of the
 * first image scaled down to fit `maxSide` and rounded to a multiple of 32 (what strided detectors
 * need), else a square fallback. The result is only a starting value: it is written into the spec's
 * `dims`, shown in the form, and the user may change it. It never touches fixed dimensions.
 */
import type { TensorLayout } from './spec.ts';
import type { InputDim } from './toTensor.ts';

/** Height and width in pixels. */
export interface ImageSize {
  height: number;
  width: number;
}

/** Where height and width came from: the family's size, the first image, the fallback, or nowhere (none was open). */
export type DimsSource = 'family' | 'images' | 'fallback' | 'none';

/** Side of the square used when neither a family size nor an image is known. */
export const FALLBACK_IMAGE_SIDE = 640;

export interface DefaultDimsOptions {
  /** The recognised family's usual input size. */
  familySize?: ImageSize | null;
  /** The first calibration image's size. */
  image?: ImageSize | null;
  /** Height and width are rounded to a multiple of this (32: the largest stride of common detectors). */
  multiple?: number;
  /** An image larger than this on its longer side is scaled down first. */
  maxSide?: number;
}

/** The names of the symbolic axes of an image input (rank 3 or 4), by role. */
export function symbolicImageAxes(
  shape: readonly InputDim[],
  layout: TensorLayout,
): { batch?: string; channel?: string; height?: string; width?: string } {
  if (shape.length !== 3 && shape.length !== 4) return {};
  const first = shape.length - 3;
  const at =
    layout === 'NCHW'
      ? { channel: first, height: first + 1, width: first + 2 }
      : { height: first, width: first + 1, channel: first + 2 };
  const named = (i: number) =>
    typeof shape[i] === 'string' && shape[i] !== '?' && shape[i] !== '' ? (shape[i] as string) : undefined;
  return {
    batch: shape.length === 4 ? named(0) : undefined,
    channel: named(at.channel),
    height: named(at.height),
    width: named(at.width),
  };
}

const roundTo = (v: number, multiple: number) => Math.max(multiple, Math.round(v / multiple) * multiple);

/** An image's size scaled to fit `maxSide` (never up) and rounded to `multiple`. */
export function sizeFromImage(image: ImageSize, multiple = 32, maxSide = FALLBACK_IMAGE_SIDE): ImageSize {
  const s = Math.min(1, maxSide / Math.max(image.height, image.width));
  return { height: roundTo(image.height * s, multiple), width: roundTo(image.width * s, multiple) };
}

/**
 * Values for every symbolic dimension of the input, and where height and width came from
 * ('none' when neither is symbolic). A dimension named twice (height = width) takes the height.
 */
export function defaultImageDims(
  shape: readonly InputDim[],
  layout: TensorLayout,
  options: DefaultDimsOptions = {},
): { dims: Record<string, number>; source: DimsSource } {
  const { multiple = 32, maxSide = FALLBACK_IMAGE_SIDE } = options;
  const axes = symbolicImageAxes(shape, layout);
  const dims: Record<string, number> = {};
  if (axes.batch) dims[axes.batch] = 1;
  if (axes.channel) dims[axes.channel] = 3;
  if (!axes.height && !axes.width) return { dims, source: 'none' };

  let size: ImageSize;
  let source: DimsSource;
  if (options.familySize) {
    size = options.familySize;
    source = 'family';
  } else if (options.image && options.image.height > 0 && options.image.width > 0) {
    const image = options.image;
    // One side fixed by the model (a text-line recognizer's height): the other keeps the image's aspect.
    const fixedH =
      typeof shape[shape.length - (layout === 'NCHW' ? 2 : 3)] === 'number'
        ? (shape[shape.length - (layout === 'NCHW' ? 2 : 3)] as number)
        : null;
    const fixedW =
      typeof shape[shape.length - (layout === 'NCHW' ? 1 : 2)] === 'number'
        ? (shape[shape.length - (layout === 'NCHW' ? 1 : 2)] as number)
        : null;
    if (fixedH && !fixedW)
      size = { height: fixedH, width: Math.min(roundTo((fixedH * image.width) / image.height, multiple), 4 * maxSide) };
    else if (fixedW && !fixedH)
      size = { width: fixedW, height: Math.min(roundTo((fixedW * image.height) / image.width, multiple), 4 * maxSide) };
    else size = sizeFromImage(image, multiple, maxSide);
    source = 'images';
  } else {
    size = { height: FALLBACK_IMAGE_SIDE, width: FALLBACK_IMAGE_SIDE };
    source = 'fallback';
  }
  if (axes.height) dims[axes.height] = size.height;
  if (axes.width && axes.width !== axes.height) dims[axes.width] = size.width;
  return { dims, source };
}
