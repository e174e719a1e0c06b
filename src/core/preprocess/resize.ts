/**
 * Bilinear resampling of RGBA8 images to a model's input size: stretch, center crop, letterbox.
 *
 * Calibration data must be preprocessed the way the model's authors did it, and the same image must
 * give the same tensor in the browser and in Node. A canvas `drawImage` cannot promise either (its
 * smoothing is implementation-defined and antialiased), so resampling is done here, in plain
 * arithmetic on typed arrays. JavaScript numbers are IEEE-754 doubles and engines do not fuse
 * multiply-adds, so the results are bit-identical in every engine.
 *
 * Sampling convention (OpenCV `cv::resize` INTER_LINEAR; PyTorch `F.interpolate(mode='bilinear',
 * align_corners=False, antialias=False)`): pixel centres sit at half-integers, so destination pixel
 * d of an axis scaled from `src` to `scaled` pixels reads the source at
 *     u = (d + 0.5) · src / scaled − 0.5,
 * clamped to [0, src − 1] (edge pixels repeat; nothing outside the image is read), and mixes the two
 * neighbours floor(u) and floor(u) + 1 by the fraction of u. There is no antialiasing when shrinking,
 * as in OpenCV's INTER_LINEAR and unlike Pillow's BILINEAR (which widens its filter when
 * downscaling). Each channel is interpolated in double precision and rounded half up to 8 bits,
 * like the uint8 image `cv2.resize` returns; OpenCV itself uses 11-bit fixed-point weights, so its
 * bytes can differ from these by one level.
 *
 * Geometry (all sizes whole pixels, computed in exact integer arithmetic):
 * - stretch: the image is scaled to exactly the destination size (aspect ratio not kept).
 * - crop: scaled by the larger of the two ratios, the short side to the destination, the long side
 *   to floor(long · ratio) (torchvision's `Resize(size)`), then the middle is kept; when the excess is
 *   odd, the extra pixel is cut from the right/bottom (offset floor(excess / 2)).
 * - letterbox: scaled by the smaller ratio, the long side to the destination, the short side to
 *   floor(short · ratio) (YOLOX `preproc`: `int(h * r)`), then padded with `padValue`. 'center' puts
 *   the image in the middle with the odd padding pixel right/bottom (offset floor(pad / 2), as
 *   Ultralytics' letterbox); 'topLeft' puts it at (0, 0) and pads only right and bottom, as YOLOX's
 *   `preproc` (Megvii-BaseDetection/YOLOX, yolox/data/data_augment.py). YOLOX computes the sizes in
 *   floating point, which for some sizes makes the long side one pixel short (55 px wide to 224:
 *   `int(55 * (224 / 55))` is 223); exact arithmetic here does not.
 *
 * This module must not know tensors or normalisation: toTensor.ts samples through the same plan.
 */
import { PreprocessError } from './errors.ts';

export type ResizeMode = 'stretch' | 'crop' | 'letterbox';
export type LetterboxAlign = 'center' | 'topLeft';

/** Decoded pixels: 4 bytes a pixel (R, G, B, A), rows top to bottom, no padding between rows. */
export interface RgbaImage {
  readonly data: Uint8Array | Uint8ClampedArray;
  readonly width: number;
  readonly height: number;
}

/** How one destination axis reads the source axis. */
export interface AxisSampling {
  /** First destination index the image covers; indexes before it are padding. */
  readonly start: number;
  /** One past the last destination index the image covers; indexes from it on are padding. */
  readonly end: number;
  /** Per destination index (meaningful in [start, end)): the lower source index read. */
  readonly lower: Int32Array;
  /** Per destination index: the upper source index read (equal to `lower` at the edges). */
  readonly upper: Int32Array;
  /** Per destination index: the weight of `upper` (0 ≤ weight < 1); `lower` gets 1 − weight. */
  readonly weight: Float64Array;
}

/** Where the scaled image lands in the destination, and how each destination pixel samples the source. */
export interface ResizePlan {
  readonly sourceWidth: number;
  readonly sourceHeight: number;
  /** Destination size in pixels. */
  readonly width: number;
  readonly height: number;
  /** Size in pixels of the whole scaled image (larger than the destination when cropping). */
  readonly scaledWidth: number;
  readonly scaledHeight: number;
  /**
   * Destination position of the scaled image's top-left pixel (negative when cropping). A source
   * point (sx, sy) lands at (offsetX + sx · scaledWidth / sourceWidth, offsetY + …), which is how
   * detections map back to the photo.
   */
  readonly offsetX: number;
  readonly offsetY: number;
  readonly x: AxisSampling;
  readonly y: AxisSampling;
}

export interface ResizeOptions {
  mode: ResizeMode;
  /** Letterbox placement; 'center' unless given. */
  align?: LetterboxAlign;
  /** Letterbox padding, 0–255 for R, G and B (alpha 255); 0 unless given. */
  padValue?: number;
}

function checkSize(what: string, width: number, height: number): void {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new PreprocessError(`${what} size ${width}×${height} is not a positive whole number of pixels.`);
  }
}

function axisSampling(sourceLength: number, scaledLength: number, offset: number, length: number): AxisSampling {
  const lower = new Int32Array(length);
  const upper = new Int32Array(length);
  const weight = new Float64Array(length);
  const start = Math.max(0, offset);
  const end = Math.min(length, offset + scaledLength);
  const ratio = sourceLength / scaledLength;
  const last = sourceLength - 1;
  for (let d = start; d < end; d++) {
    // Half-pixel centres (OpenCV INTER_LINEAR); clamping replicates the edge pixels.
    const u = (d - offset + 0.5) * ratio - 0.5;
    if (u <= 0) {
      lower[d] = 0;
      upper[d] = 0;
    } else if (u >= last) {
      lower[d] = last;
      upper[d] = last;
    } else {
      const i = Math.floor(u);
      lower[d] = i;
      upper[d] = i + 1;
      weight[d] = u - i;
    }
  }
  return { start, end, lower, upper, weight };
}

/** The sampling plan from a source size to a destination size under a resize mode. */
export function planResize(
  sourceWidth: number,
  sourceHeight: number,
  width: number,
  height: number,
  mode: ResizeMode,
  align: LetterboxAlign = 'center',
): ResizePlan {
  checkSize('Image', sourceWidth, sourceHeight);
  checkSize('Target', width, height);
  let scaledWidth = width;
  let scaledHeight = height;
  let offsetX = 0;
  let offsetY = 0;
  // Compare width/sourceWidth with height/sourceHeight exactly, as products of whole numbers.
  const widthRatioIsSmaller = width * sourceHeight <= height * sourceWidth;
  if (mode === 'letterbox') {
    if (widthRatioIsSmaller) scaledHeight = Math.max(1, Math.floor((sourceHeight * width) / sourceWidth));
    else scaledWidth = Math.max(1, Math.floor((sourceWidth * height) / sourceHeight));
    if (align === 'center') {
      offsetX = Math.floor((width - scaledWidth) / 2);
      offsetY = Math.floor((height - scaledHeight) / 2);
    }
  } else if (mode === 'crop') {
    if (widthRatioIsSmaller) scaledWidth = Math.max(width, Math.floor((sourceWidth * height) / sourceHeight));
    else scaledHeight = Math.max(height, Math.floor((sourceHeight * width) / sourceWidth));
    offsetX = 0 - Math.floor((scaledWidth - width) / 2); // 0 − x, not −x: no negative zero
    offsetY = 0 - Math.floor((scaledHeight - height) / 2);
  } else if (mode !== 'stretch') {
    throw new PreprocessError(`Unknown resize mode "${String(mode)}"; expected "stretch", "crop" or "letterbox".`);
  }
  return {
    sourceWidth,
    sourceHeight,
    width,
    height,
    scaledWidth,
    scaledHeight,
    offsetX,
    offsetY,
    x: axisSampling(sourceWidth, scaledWidth, offsetX, width),
    y: axisSampling(sourceHeight, scaledHeight, offsetY, height),
  };
}

/**
 * One bilinear sample of four neighbouring bytes (p00 top-left, p01 top-right, p10 bottom-left,
 * p11 bottom-right) at fractions fx (right) and fy (down), rounded half up to a byte. The one formula
 * every resampling path uses, so that they agree to the bit.
 */
export function bilinearByte(p00: number, p01: number, p10: number, p11: number, fx: number, fy: number): number {
  const upperRow = p00 + (p01 - p00) * fx;
  const lowerRow = p10 + (p11 - p10) * fx;
  // A convex mix of bytes stays within [0, 255]: no clamping needed.
  return Math.floor(upperRow + (lowerRow - upperRow) * fy + 0.5);
}

/** Throws unless `image.data` holds exactly width × height RGBA pixels. */
export function checkRgbaImage(image: RgbaImage): void {
  checkSize('Image', image.width, image.height);
  const expected = image.width * image.height * 4;
  if (image.data.length !== expected) {
    throw new PreprocessError(
      `Image data has ${image.data.length} bytes but a ${image.width}×${image.height} RGBA image needs ${expected} (4 a pixel).`,
    );
  }
}

/** The image resampled to width × height RGBA8 under `options` (padding opaque, alpha interpolated). */
export function resizeRgba(
  image: RgbaImage,
  width: number,
  height: number,
  options: ResizeOptions,
): RgbaImage & { data: Uint8ClampedArray } {
  checkRgbaImage(image);
  const pad = options.padValue ?? 0;
  if (!Number.isInteger(pad) || pad < 0 || pad > 255) {
    throw new PreprocessError(`Pad value ${pad} is not a whole number from 0 to 255.`);
  }
  const plan = planResize(image.width, image.height, width, height, options.mode, options.align ?? 'center');
  const src = image.data;
  const out = new Uint8ClampedArray(width * height * 4);
  const rowBytes = image.width * 4;
  const { x, y } = plan;
  for (let dy = 0; dy < height; dy++) {
    const inRow = dy >= y.start && dy < y.end;
    const top = y.lower[dy] * rowBytes;
    const bottom = y.upper[dy] * rowBytes;
    const fy = y.weight[dy];
    for (let dx = 0; dx < width; dx++) {
      const o = (dy * width + dx) * 4;
      if (!inRow || dx < x.start || dx >= x.end) {
        out[o] = pad;
        out[o + 1] = pad;
        out[o + 2] = pad;
        out[o + 3] = 255;
        continue;
      }
      const left = x.lower[dx] * 4;
      const right = x.upper[dx] * 4;
      const fx = x.weight[dx];
      for (let c = 0; c < 4; c++) {
        out[o + c] = bilinearByte(
          src[top + left + c],
          src[top + right + c],
          src[bottom + left + c],
          src[bottom + right + c],
          fx,
          fy,
        );
      }
    }
  }
  return { data: out, width, height };
}
