/**
 * A preprocessed image tensor back to something the eye can check: each value is denormalised to
 * 0–255 (x = (v · std + mean) / scale, the spec's arithmetic inverted), channels put back in RGB
 * order, and the layout read as the spec says. A wrong channel order shows as swapped colours, a wrong
 * mean or scale as a washed-out or black picture, a letterbox as its padding: what the model will see.
 */
import type { PreprocessSpec } from '../../../core/preprocess/spec.ts';

export interface PreviewPixels {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

/** RGBA pixels of one image tensor (batch 1) with `dims` [1, C, H, W] / [C, H, W] (NCHW) or the NHWC forms. */
export function tensorToRgba(tensor: ArrayLike<number>, dims: readonly number[], spec: PreprocessSpec): PreviewPixels {
  const d = dims.length === 4 ? dims.slice(1) : dims.slice();
  const [channels, height, width] = spec.layout === 'NCHW' ? d : [d[2], d[0], d[1]];
  const plane = width * height;
  const at = (c: number, p: number) => (spec.layout === 'NCHW' ? c * plane + p : p * channels + c);
  const back = (c: number, v: number) => {
    if (spec.elementType === 'uint8') return v;
    const mean = spec.mean.length === 1 ? spec.mean[0] : spec.mean[c];
    const std = spec.std.length === 1 ? spec.std[0] : spec.std[c];
    return (v * std + mean) / spec.scale;
  };
  const data = new Uint8ClampedArray(plane * 4);
  const bgr = spec.channelOrder === 'BGR';
  for (let p = 0; p < plane; p++) {
    if (channels === 1) {
      const g = back(0, tensor[at(0, p)]);
      data[p * 4] = data[p * 4 + 1] = data[p * 4 + 2] = g;
    } else {
      const first = back(0, tensor[at(0, p)]);
      const third = back(2, tensor[at(2, p)]);
      data[p * 4] = bgr ? third : first;
      data[p * 4 + 1] = back(1, tensor[at(1, p)]);
      data[p * 4 + 2] = bgr ? first : third;
    }
    data[p * 4 + 3] = 255;
  }
  return { data, width, height };
}
