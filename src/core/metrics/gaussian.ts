/**
 * The Gaussian window SSIM averages over: a normalised 1-D kernel and a separable 2-D blur.
 *
 * AMD Quark's SSIM (quark/onnx/tools/evaluate.py, `calculate_ssim`) takes every local statistic
 * through `cv2.GaussianBlur(img, (11, 11), 1.5)`. To give the same numbers without OpenCV this
 * module reproduces what that call does: the kernel of `cv2.getGaussianKernel` (exp(−(i−c)²/2σ²),
 * scaled to sum to 1), applied along rows and then columns, with OpenCV's default border,
 * BORDER_REFLECT_101 (… c b | a b c d | c b …, the edge pixel not repeated). Blurs one plane of
 * float64 values; knows nothing of channels, layouts or SSIM.
 */

/** Window side and standard deviation of Quark's SSIM blur, in pixels. */
export const SSIM_WINDOW = 11;
export const SSIM_SIGMA = 1.5;

/** A 1-D Gaussian kernel of odd `size` taps and standard deviation `sigma` (> 0), summing to 1. */
export function gaussianKernel(size: number, sigma: number): Float64Array {
  if (!Number.isInteger(size) || size < 1 || size % 2 === 0)
    throw new RangeError(`Kernel size must be odd, got ${size}.`);
  if (!(sigma > 0)) throw new RangeError(`Kernel sigma must be > 0, got ${sigma}.`);
  const kernel = new Float64Array(size);
  const center = (size - 1) / 2;
  let sum = 0;
  for (let i = 0; i < size; i++) {
    const x = i - center;
    kernel[i] = Math.exp(-(x * x) / (2 * sigma * sigma));
    sum += kernel[i];
  }
  for (let i = 0; i < size; i++) kernel[i] /= sum;
  return kernel;
}

/**
 * Index that an out-of-range position `p` reads on an axis of `length` pixels under
 * BORDER_REFLECT_101, folding as often as needed (OpenCV's borderInterpolate). A 1-pixel axis
 * always reads pixel 0.
 */
export function reflect101(p: number, length: number): number {
  if (length === 1) return 0;
  while (p < 0 || p >= length) {
    p = p < 0 ? -p : 2 * length - 2 - p;
  }
  return p;
}

/** For each output position and tap, the source index it reads: a `length × taps` table. */
function tapTable(length: number, taps: number): Int32Array {
  const radius = (taps - 1) / 2;
  const table = new Int32Array(length * taps);
  for (let i = 0; i < length; i++) {
    for (let t = 0; t < taps; t++) table[i * taps + t] = reflect101(i + t - radius, length);
  }
  return table;
}

/**
 * Blur a row-major `height × width` plane with `kernel` along both axes (rows first, as OpenCV's
 * separable filter does). Writes into `out` (allocated when absent) and returns it; `src` is kept.
 */
export function gaussianBlur(
  src: Float64Array,
  height: number,
  width: number,
  kernel: Float64Array,
  out: Float64Array = new Float64Array(height * width),
): Float64Array {
  const taps = kernel.length;
  const tmp = new Float64Array(height * width);
  const cols = tapTable(width, taps);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      let acc = 0;
      const base = x * taps;
      for (let t = 0; t < taps; t++) acc += kernel[t] * src[row + cols[base + t]];
      tmp[row + x] = acc;
    }
  }
  const rows = tapTable(height, taps);
  for (let y = 0; y < height; y++) {
    const base = y * taps;
    for (let x = 0; x < width; x++) {
      let acc = 0;
      for (let t = 0; t < taps; t++) acc += kernel[t] * tmp[rows[base + t] * width + x];
      out[y * width + x] = acc;
    }
  }
  return out;
}
