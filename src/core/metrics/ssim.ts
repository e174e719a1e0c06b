/**
 * Structural similarity (SSIM) between a float model's output and a quantized model's output.
 *
 * For image-to-image models (super-resolution, denoising, segmentation maps) SSIM says whether the
 * quantized output keeps the float output's local structure. The default definition is AMD Quark's
 * `calculate_ssim` in quark/onnx/tools/evaluate.py, which differs from the textbook one:
 *
 *   μx = G∗x, μy = G∗y            G: 11×11 Gaussian, σ = 1.5, OpenCV's reflect-101 border
 *   Sxx = G∗x², Syy = G∗y², Sxy = G∗(x·y)   — raw second moments, the means NOT subtracted
 *   map = (2μxμy + C1)(2Sxy + C2) / ((μx² + μy² + C1)(Sxx + Syy + C2) + 1e-10)
 *   SSIM = mean of map over every pixel of every plane
 *   C1 = (0.01·255)², C2 = (0.03·255)² — fixed for 0..255 data, whatever the output's range
 *
 * `variant: 'standard'` subtracts the means (σx² = Sxx − μx², σxy = Sxy − μxμy), which is Wang et
 * al. 2004's SSIM with a Gaussian window. (Quark's quark/onnx/quantization/output_eval.py has a third,
 * window-less `calculate_ssim` from global statistics; its evaluate tool does not use it.) Planes come
 * from ./planes.ts; the window never crosses a channel or batch item. Must not rescale the data.
 */

import { gaussianBlur, gaussianKernel, SSIM_SIGMA, SSIM_WINDOW } from './gaussian.ts';
import { assertSameLength, MetricInputError, type FloatArray } from './input.ts';
import { imagePlanes, type ImageLayout } from './planes.ts';

/** 'quark': raw second moments, as quark/onnx/tools/evaluate.py; 'standard': centred (co)variances. */
export type SsimVariant = 'quark' | 'standard';

/** Quark's guard against a zero denominator, added to every pixel's denominator. */
export const SSIM_EPSILON = 1e-10;

export interface SsimOptions {
  /** How the flat data splits into planes. Default by rank: see `defaultLayout` in ./planes.ts. */
  readonly layout?: ImageLayout;
  /** The R in C1 = (0.01·R)² and C2 = (0.03·R)². Default 255, as Quark hard-codes. */
  readonly dataRange?: number;
  /** Default 'quark'. */
  readonly variant?: SsimVariant;
}

/**
 * Mean SSIM of two outputs of shape `dims` (unitless; 1 for identical outputs up to the 1e-10
 * guard, in [-1, 1] for the standard variant). Symmetric in its arguments. A NaN anywhere spreads
 * through the blur to the result, as in numpy; an output with no pixels gives NaN.
 */
export function ssim(
  reference: FloatArray,
  test: FloatArray,
  dims: readonly number[],
  options: SsimOptions = {},
): number {
  assertSameLength(reference, test);
  const range = options.dataRange ?? 255;
  if (!(range > 0 && Number.isFinite(range)))
    throw new MetricInputError(`SSIM dataRange must be a finite number > 0, got ${range}.`);
  const centred = (options.variant ?? 'quark') === 'standard';
  const planes = imagePlanes(dims, reference.length, options.layout);
  if (reference.length === 0 || planes.length === 0) return NaN;

  const c1 = (0.01 * range) ** 2;
  const c2 = (0.03 * range) ** 2;
  const kernel = gaussianKernel(SSIM_WINDOW, SSIM_SIGMA);
  const { height, width } = planes[0];
  const size = height * width;
  const x = new Float64Array(size);
  const y = new Float64Array(size);
  const xx = new Float64Array(size);
  const yy = new Float64Array(size);
  const xy = new Float64Array(size);
  const muX = new Float64Array(size);
  const muY = new Float64Array(size);
  const sXX = new Float64Array(size);
  const sYY = new Float64Array(size);
  const sXY = new Float64Array(size);

  let sum = 0;
  for (const plane of planes) {
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) {
        const src = plane.offset + r * plane.rowStride + c * plane.colStride;
        const i = r * width + c;
        const a = reference[src];
        const b = test[src];
        x[i] = a;
        y[i] = b;
        xx[i] = a * a;
        yy[i] = b * b;
        xy[i] = a * b;
      }
    }
    gaussianBlur(x, height, width, kernel, muX);
    gaussianBlur(y, height, width, kernel, muY);
    gaussianBlur(xx, height, width, kernel, sXX);
    gaussianBlur(yy, height, width, kernel, sYY);
    gaussianBlur(xy, height, width, kernel, sXY);
    for (let i = 0; i < size; i++) {
      const mx = muX[i];
      const my = muY[i];
      const vx = centred ? sXX[i] - mx * mx : sXX[i];
      const vy = centred ? sYY[i] - my * my : sYY[i];
      const cxy = centred ? sXY[i] - mx * my : sXY[i];
      const numerator = (2 * mx * my + c1) * (2 * cxy + c2);
      const denominator = (mx * mx + my * my + c1) * (vx + vy + c2);
      sum += numerator / (denominator + SSIM_EPSILON);
    }
  }
  return sum / reference.length;
}
