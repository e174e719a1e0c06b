/**
 * The bridge from images run through two models to core/task: each image's float outputs, its geometry
 * (how the model input maps onto the photo, from the preprocessing's resize plan) and its label.
 * Shared by evaluate and ladder.
 */
import path from 'node:path';
import { planResize } from '../core/preprocess/resize.ts';
import type { PreprocessSpec } from '../core/preprocess/spec.ts';
import type { RunTensor } from '../core/runtime/session.ts';
import type { RunOutputs, TaskSample } from '../core/task/index.ts';
import type { ImageFeeds } from './images/imageFeed.ts';

/** A run's float outputs, as the task decoders read them. */
export function floatOutputs(run: Readonly<Record<string, RunTensor>>): RunOutputs {
  const out: Record<string, { data: Float32Array; dims: readonly number[] }> = {};
  for (const [k, t] of Object.entries(run)) if (t.type === 'float32') out[k] = { data: t.data as Float32Array, dims: t.dims as number[] };
  return out;
}

/** Each image's outputs, its geometry and its label, for core/task. */
export function taskSamples(data: ImageFeeds, spec: PreprocessSpec, outputs: readonly { float: RunOutputs; quant: RunOutputs }[], labels: ReadonlyMap<string, TaskSample['label']> | null): TaskSample[] {
  return data.files.map((file, i) => {
    const dims = Object.values(data.feeds[i])[0].dims;
    const [height, width] = spec.layout === 'NHWC' ? dims.slice(-3, -1) : dims.slice(-2);
    const { width: w, height: h } = data.sizes[i];
    const plan = planResize(w, h, width, height, spec.resize, spec.letterboxAlign);
    const name = path.basename(file);
    return { name, geometry: { ...plan, width, height }, float: outputs[i].float, quant: outputs[i].quant, label: labels?.get(name) };
  });
}
