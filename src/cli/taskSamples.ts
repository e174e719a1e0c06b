/**
 * The bridge from images run through two models to core/task: each image's float outputs, its geometry
 * (how the model input maps onto the photo, from the preprocessing's resize plan) and its label.
 * Shared by evaluate and ladder.
 */
import path from 'node:path';
import type { PreprocessSpec } from '../core/preprocess/spec.ts';
import { inputGeometry, type RunOutputs, type TaskSample } from '../core/task/index.ts';
import type { ImageFeeds } from './images/imageFeed.ts';

/**
 * Each image's outputs, its geometry and its label, for core/task: `outputs[k]` is image k, or image `index` when
 * it names one (a search judging a few of the images).
 */
export function taskSamples(
  data: ImageFeeds,
  spec: PreprocessSpec,
  outputs: readonly { index?: number; float: RunOutputs; quant: RunOutputs }[],
  labels: ReadonlyMap<string, TaskSample['label']> | null,
): TaskSample[] {
  return outputs.map((o, k) => {
    const i = o.index ?? k;
    const name = path.basename(data.files[i]);
    return {
      name,
      geometry: inputGeometry(data.sizes[i], Object.values(data.feeds[i])[0].dims, spec),
      float: o.float,
      quant: o.quant,
      label: labels?.get(name),
    };
  });
}
