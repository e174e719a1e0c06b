/** Where a model input's pixels lie on the photo it was made from: the preprocessing's resize plan, read back. */
import { planResize } from '../preprocess/resize.ts';
import type { PreprocessSpec } from '../preprocess/spec.ts';
import type { InputGeometry } from './boxes.ts';
import type { InputSize } from './outputs.ts';

/** The geometry of an image of `source` size fed as a tensor of `dims` (NCHW or NHWC as the spec says). */
export function inputGeometry(
  source: { readonly width: number; readonly height: number },
  dims: readonly number[],
  spec: PreprocessSpec,
): InputGeometry & InputSize {
  const [height, width] = spec.layout === 'NHWC' ? dims.slice(-3, -1) : dims.slice(-2);
  const plan = planResize(source.width, source.height, width, height, spec.resize, spec.letterboxAlign);
  return {
    sourceWidth: plan.sourceWidth,
    sourceHeight: plan.sourceHeight,
    scaledWidth: plan.scaledWidth,
    scaledHeight: plan.scaledHeight,
    offsetX: plan.offsetX,
    offsetY: plan.offsetY,
    width,
    height,
  };
}
