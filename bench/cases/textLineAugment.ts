/**
 * Augmented copies of the recognizer's tuning lines (issue 36 point 5, route (b)): each copy of a text line is the
 * line shifted, cropped or padded (a small change of scale), and given another brightness and contrast, drawn from a
 * seeded generator, then preprocessed as the line itself (stretched to 48 × 320). Padding repeats the edge pixels.
 */
import { decodeImageFile } from '../../src/cli/images/decode.ts';
import { float32Tensor } from '../../src/cli/runtime/ortNode.ts';
import { imageToTensor } from '../../src/core/preprocess/toTensor.ts';
import type { RgbaImage } from '../../src/core/preprocess/resize.ts';
import { seededRandom } from '../../src/core/seededRandom.ts';
import { TEXT_LINE_SPEC } from './recognizerSetup.ts';

/** How far a copy may move: pixels of shift and of crop (negative: padding) on each side, contrast and brightness. */
export interface AugmentLimits {
  readonly shiftX: number;
  readonly shiftY: number;
  readonly cropX: number;
  readonly cropY: number;
  readonly contrast: number;
  readonly brightness: number;
}

export const DEFAULT_LIMITS: AugmentLimits = {
  shiftX: 4,
  shiftY: 2,
  cropX: 8,
  cropY: 3,
  contrast: 0.2,
  brightness: 20,
};

/** One augmented copy of an image (the draws from `random`). */
export function augmentImage(
  image: RgbaImage,
  random: () => number,
  limits: AugmentLimits = DEFAULT_LIMITS,
): RgbaImage {
  const between = (a: number) => Math.round((2 * random() - 1) * a);
  const dx = between(limits.shiftX),
    dy = between(limits.shiftY);
  const x0 = between(limits.cropX) + dx,
    x1 = image.width - between(limits.cropX) + dx;
  const y0 = between(limits.cropY) + dy,
    y1 = image.height - between(limits.cropY) + dy;
  const contrast = 1 + (2 * random() - 1) * limits.contrast;
  const brightness = (2 * random() - 1) * limits.brightness;
  const width = x1 - x0,
    height = y1 - y0;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(image.height - 1, Math.max(0, y + y0));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(image.width - 1, Math.max(0, x + x0));
      const s = (sy * image.width + sx) * 4,
        d = (y * width + x) * 4;
      for (let c = 0; c < 3; c++)
        data[d + c] = Math.min(255, Math.max(0, Math.round(contrast * (image.data[s + c] - 128) + 128 + brightness)));
      data[d + 3] = 255;
    }
  }
  return { data, width, height };
}

/** The lines themselves, then `copies` augmented copies of each (seeded), as recognizer input tensors. */
export function augmentedTextLines(files: readonly string[], copies: number, seed = 36) {
  const random = seededRandom(seed);
  const images = files.map((f) => decodeImageFile(f));
  const out = images.map((image) => imageToTensor(image, [1, 3, 48, 320], TEXT_LINE_SPEC));
  for (let k = 0; k < copies; k++)
    for (const image of images) out.push(imageToTensor(augmentImage(image, random), [1, 3, 48, 320], TEXT_LINE_SPEC));
  return out.map((t) => float32Tensor(t.data, t.dims));
}
