/**
 * How a flat output tensor splits into the 2-D planes that SSIM slides its window over.
 *
 * SSIM is an image metric: its window moves along height and width, never across channels or
 * batch items. Quark hands arrays straight to OpenCV, which reads a 2-D array as one plane and a
 * 3-D array as height × width × channels (its `cv2.imread` images are H×W×3, BGR) and rejects 4-D
 * arrays; ONNX image outputs are mostly N×C×H×W. This module names the layouts, picks OpenCV's
 * reading where OpenCV has one, and describes each plane by an offset and two strides so no data is
 * copied. Must not guess beyond rank: a rank-3 output is read as OpenCV reads it unless told.
 */

import { assertDims, MetricInputError } from './input.ts';

/** Axis order of an image-like output. HW is one plane; rank 0 and 1 are read as a 1-row plane. */
export type ImageLayout = 'NCHW' | 'NHWC' | 'CHW' | 'HWC' | 'HW';

/** One 2-D plane inside a flat array: element (y, x) is at offset + y·rowStride + x·colStride. */
export interface Plane {
  readonly offset: number;
  readonly height: number;
  readonly width: number;
  readonly rowStride: number;
  readonly colStride: number;
}

const RANK: Readonly<Record<ImageLayout, readonly number[]>> = {
  NCHW: [4],
  NHWC: [4],
  CHW: [3],
  HWC: [3],
  HW: [0, 1, 2],
};

/**
 * The layout assumed when none is given: rank ≤ 2 → HW (OpenCV's single plane), rank 3 → HWC
 * (what `cv2.GaussianBlur` makes of a 3-D array, so Quark's own reading), rank 4 → NCHW (the ONNX
 * convention; Quark's tool cannot read rank 4 at all). Higher ranks have no image reading.
 */
export function defaultLayout(rank: number): ImageLayout {
  if (rank <= 2) return 'HW';
  if (rank === 3) return 'HWC';
  if (rank === 4) return 'NCHW';
  throw new MetricInputError(`SSIM needs an image-like output of rank ≤ 4; this one has rank ${rank}.`);
}

/** The planes of a tensor of shape `dims` (length `length`) read in `layout`, in memory order. */
export function imagePlanes(
  dims: readonly number[],
  length: number,
  layout: ImageLayout = defaultLayout(dims.length),
): Plane[] {
  assertDims(dims, length);
  if (!RANK[layout].includes(dims.length)) {
    throw new MetricInputError(`Layout ${layout} does not fit shape [${dims.join(', ')}] (rank ${dims.length}).`);
  }
  const planes: Plane[] = [];
  switch (layout) {
    case 'HW': {
      const height = dims.length === 2 ? dims[0] : 1;
      const width = dims.length === 2 ? dims[1] : dims.length === 1 ? dims[0] : 1;
      planes.push({ offset: 0, height, width, rowStride: width, colStride: 1 });
      break;
    }
    case 'CHW':
    case 'NCHW': {
      const [n, c, h, w] = layout === 'CHW' ? [1, dims[0], dims[1], dims[2]] : dims;
      for (let p = 0; p < n * c; p++)
        planes.push({ offset: p * h * w, height: h, width: w, rowStride: w, colStride: 1 });
      break;
    }
    case 'HWC':
    case 'NHWC': {
      const [n, h, w, c] = layout === 'HWC' ? [1, dims[0], dims[1], dims[2]] : dims;
      for (let i = 0; i < n; i++) {
        for (let ch = 0; ch < c; ch++) {
          planes.push({ offset: i * h * w * c + ch, height: h, width: w, rowStride: w * c, colStride: c });
        }
      }
      break;
    }
  }
  return planes;
}
