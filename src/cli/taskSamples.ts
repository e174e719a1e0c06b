/**
 * The bridge from images run through two models to core/task: each image's float outputs, its geometry
 * (how the model input maps onto the photo, from the preprocessing's resize plan) and its label.
 * Shared by evaluate and ladder.
 */
import path from 'node:path';
import type { PreprocessSpec } from '../core/preprocess/spec.ts';
import { inputGeometry, type RunOutputs, type TaskSample } from '../core/task/index.ts';
import type { ImageFeeds } from './images/imageFeed.ts';

/** Each image's outputs, its geometry and its label, for core/task. */
export function taskSamples(data: ImageFeeds, spec: PreprocessSpec, outputs: readonly { float: RunOutputs; quant: RunOutputs }[], labels: ReadonlyMap<string, TaskSample['label']> | null): TaskSample[] {
  return data.files.map((file, i) => {
    const name = path.basename(file);
    return { name, geometry: inputGeometry(data.sizes[i], Object.values(data.feeds[i])[0].dims, spec), float: outputs[i].float, quant: outputs[i].quant, label: labels?.get(name) };
  });
}
