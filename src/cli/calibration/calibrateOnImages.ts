/**
 * Calibration in Node: the float model, with every tensor exposed as an output, runs on onnxruntime-node
 * over the user's images; each run folds into the same collectors the page's workers use
 * (core/calibrate/statistics.ts), so the command line and the studio compute the same ranges.
 * Corrupt images are skipped and named; when one run's outputs would not fit the memory budget, the
 * tensors are observed in chunks, one session per chunk.
 */
import { encode, type ModelProto } from '../../core/onnx/index.ts';
import { buildGraphIndex } from '../../core/onnx/graphIndex.ts';
import { summarize, tensorSummary, type TensorSummary } from '../../core/onnx/summary.ts';
import { chunkTensors, exposeTensors, observableTensors } from '../../core/calibrate/expose.ts';
import { foldRun, rangesOf, type TensorStates } from '../../core/calibrate/statistics.ts';
import type { QuantConfig } from '../../core/quantize/config.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';
import { StudioError } from '../../core/onnx/errors.ts';
import { asFloat32 } from '../../core/precision/float16.ts';
import { readImageFeed, type ImageFeed } from '../imageFeed.ts';
import { createSession, float32Tensor, type NodeSession, type OrtTensor } from '../runtime/ortNode.ts';

/** Calibration that cannot start: no images, a model input that is not an image. */
export class CalibrationError extends StudioError {
  override readonly name = 'CalibrationError';
}

export interface CalibrationProgress {
  done: number;
  total: number;
  imagesPerSecond: number;
  etaSeconds: number;
}

export interface CalibrationResult {
  ranges: Map<string, { min: number; max: number }>;
  states: TensorStates;
  images: number;
  skipped: { file: string; reason: string }[];
  seconds: number;
  chunks: number;
}

export interface CalibrationOptions {
  spec: PreprocessSpec;
  config: QuantConfig;
  onProgress?: (p: CalibrationProgress) => void;
  /** Most bytes one run may return before tensors are observed in chunks. */
  budgetBytes?: number;
}

/** Runs calibration over image files, decoding each as it is reached. Throws CalibrationError when nothing can be calibrated. */
export async function calibrateOnImages(model: ModelProto, files: readonly string[], options: CalibrationOptions): Promise<CalibrationResult> {
  return calibrate(model, files.length, (input, i) => readImageFeed(files[i], input, options.spec), options);
}

/** Runs calibration over input tensors already decoded (as a command that also tunes or evaluates on the same images holds them). */
export async function calibrateOnTensors(model: ModelProto, tensors: readonly OrtTensor[], options: Omit<CalibrationOptions, 'spec'>): Promise<CalibrationResult> {
  return calibrate(model, tensors.length, (_input, i) => ({ tensor: tensors[i] }), options);
}

async function calibrate(
  source: ModelProto,
  total: number,
  read: (input: TensorSummary, i: number) => ImageFeed,
  options: Omit<CalibrationOptions, 'spec'>,
): Promise<CalibrationResult> {
  // A float16 model calibrates as its float32 form: the same tensors, fed and observed in float32.
  const model = asFloat32(source);
  const index = buildGraphIndex(model.graph!);
  const custom = summarize(model, index).customOps;
  if (custom.length > 0) {
    const ops = custom.map((o) => `${o.domain}.${o.opType}`).join(', ');
    throw new CalibrationError(`the model uses ops of custom domains (${ops}) that onnxruntime cannot run without their library, so it cannot be calibrated`);
  }
  if (index.inputs.length !== 1) {
    throw new CalibrationError(`the model has ${index.inputs.length} inputs; calibrate it with .npy files per input`);
  }
  if (total === 0) throw new CalibrationError('no images to calibrate on: give a folder of .jpg or .png files');
  const input = tensorSummary(index.inputs[0]);
  // The graph input is folded from its feed; the runs observe everything the nodes compute.
  const tensors = observableTensors(model).filter((n) => n !== input.name);
  const start = performance.now();
  const states: TensorStates = new Map();
  const skipped: CalibrationResult['skipped'] = [];
  let sessions: { session: NodeSession; tensors: string[] }[] = [];
  let done = 0;

  for (let i = 0; i < total; i++) {
    const feed = read(input, i);
    if ('skipped' in feed) {
      skipped.push(feed.skipped);
      continue;
    }
    const feeds = { [input.name]: feed.tensor };
    foldRun(states, { [input.name]: { type: 'float32', data: feed.tensor.data } }, options.config);
    // The first image also sizes the outputs; when one session observes everything, its run is used as is.
    const opened = sessions.length === 0 ? await openSessions(model, tensors, feeds, options.budgetBytes ?? 512 * 2 ** 20) : undefined;
    if (opened) sessions = opened.sessions;
    for (const { session, tensors: names } of sessions) {
      foldRun(states, opened?.firstOutputs ?? (await session.run(feeds, names)), options.config);
    }
    done++;
    const seconds = (performance.now() - start) / 1000;
    options.onProgress?.({ done, total, imagesPerSecond: done / seconds, etaSeconds: ((total - done) * seconds) / done });
  }
  await Promise.all(sessions.map((s) => s.session.release()));
  if (done === 0) throw new CalibrationError(`none of the ${total} images could be read (${skipped[0]?.reason ?? ''})`);
  return { ranges: rangesOf(states), states, images: done, skipped, seconds: (performance.now() - start) / 1000, chunks: sessions.length };
}

/** One session observing everything (with the outputs of its sizing run), or several over chunks when one run's outputs exceed the budget. */
async function openSessions(model: ModelProto, tensors: string[], feeds: Record<string, ReturnType<typeof float32Tensor>>, budget: number) {
  const all = await createSession(encode(exposeTensors(model, tensors)));
  const probe = await all.run(feeds);
  const bytes = new Map(Object.entries(probe).map(([k, v]) => [k, (v.data as ArrayBufferView).byteLength]));
  const total = [...bytes.values()].reduce((a, b) => a + b, 0);
  if (total <= budget) return { sessions: [{ session: all, tensors }], firstOutputs: probe };
  await all.release();
  const chunks = chunkTensors(tensors, bytes, budget);
  const sessions = await Promise.all(chunks.map(async (names) => ({ session: await createSession(encode(exposeTensors(model, names))), tensors: names })));
  return { sessions, firstOutputs: undefined };
}
