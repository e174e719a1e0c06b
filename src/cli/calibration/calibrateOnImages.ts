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
import { readImageFeed } from '../imageFeed.ts';
import { createSession, hasNodeTensorType, type Feeds, type NodeSession } from '../runtime/ortNode.ts';

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
  const input = singleInput(model);
  return calibrate(model, files.length, (i) => {
    const feed = readImageFeed(files[i], input, options.spec);
    return 'skipped' in feed ? feed : { feeds: { [input.name]: feed.tensor } };
  }, options);
}

/**
 * Runs calibration over feeds already decoded, one record of named inputs per run (as a command that
 * also tunes or evaluates on the same images holds them, or a test set stored as tensors). Models with
 * several inputs calibrate this way.
 */
export async function calibrateOnFeeds(model: ModelProto, feeds: readonly Feeds[], options: Omit<CalibrationOptions, 'spec'>): Promise<CalibrationResult> {
  return calibrate(model, feeds.length, (i) => ({ feeds: feeds[i] }), options);
}

/** The one input an image feeds; a model with several inputs needs its feeds given as tensors. */
function singleInput(model: ModelProto): TensorSummary {
  const inputs = buildGraphIndex(model.graph!).inputs;
  if (inputs.length !== 1) {
    throw new CalibrationError(`the model has ${inputs.length} inputs; calibrate it with .npy files per input`);
  }
  return tensorSummary(inputs[0]);
}

type RunFeed = { feeds: Feeds } | { skipped: { file: string; reason: string } };

async function calibrate(
  model: ModelProto,
  total: number,
  read: (i: number) => RunFeed,
  options: Omit<CalibrationOptions, 'spec'>,
): Promise<CalibrationResult> {
  const index = buildGraphIndex(model.graph!);
  const custom = summarize(model, index).customOps;
  if (custom.length > 0) {
    const ops = custom.map((o) => `${o.domain}.${o.opType}`).join(', ');
    throw new CalibrationError(`the model uses ops of custom domains (${ops}) that onnxruntime cannot run without their library, so it cannot be calibrated`);
  }
  if (total === 0) throw new CalibrationError('no images to calibrate on: give a folder of .jpg or .png files');
  const foreign = [...index.inputs, ...index.outputs].filter((v) => {
    const t = v.type?.tensor_type?.elem_type;
    return t !== undefined && t !== null && t > 0 && !hasNodeTensorType(t);
  });
  if (foreign.length > 0) {
    const list = foreign.map((v) => `${v.name} (${tensorSummary(v).elemType})`).join(', ');
    throw new CalibrationError(`onnxruntime-node takes no tensors of the type of ${list}, so it cannot run the model to calibrate it`);
  }
  // Graph inputs are folded from their feeds; the runs observe every float32 tensor the nodes compute.
  const inputNames = new Set(index.inputs.map((v) => v.name ?? ''));
  const tensors = observableTensors(model).filter((n) => !inputNames.has(n));
  const start = performance.now();
  const states: TensorStates = new Map();
  const skipped: CalibrationResult['skipped'] = [];
  let sessions: { session: NodeSession; tensors: string[] }[] = [];
  let done = 0;

  for (let i = 0; i < total; i++) {
    const feed = read(i);
    if ('skipped' in feed) {
      skipped.push(feed.skipped);
      continue;
    }
    const feeds = feed.feeds;
    foldRun(states, feeds, options.config);
    // The first run also sizes the outputs; when one session observes everything, its run is used as is.
    const opened = sessions.length === 0 && tensors.length > 0 ? await inRuntime(() => openSessions(model, tensors, feeds, options.budgetBytes ?? 512 * 2 ** 20)) : undefined;
    if (opened) sessions = opened.sessions;
    for (const { session, tensors: names } of sessions) {
      foldRun(states, opened?.firstOutputs ?? (await inRuntime(() => session.run(feeds, names))), options.config);
    }
    done++;
    const seconds = (performance.now() - start) / 1000;
    options.onProgress?.({ done, total, imagesPerSecond: done / seconds, etaSeconds: ((total - done) * seconds) / done });
  }
  await Promise.all(sessions.map((s) => s.session.release()));
  if (done === 0) throw new CalibrationError(`none of the ${total} images could be read (${skipped[0]?.reason ?? ''})`);
  return { ranges: rangesOf(states), states, images: done, skipped, seconds: (performance.now() - start) / 1000, chunks: sessions.length };
}

/** onnxruntime's own failures (an op it has no kernel for, a value it cannot return) as a CalibrationError that says so. */
async function inRuntime<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    if (e instanceof StudioError) throw e;
    const message = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    throw new CalibrationError(`onnxruntime cannot run the float model, so it cannot be calibrated: ${message}`);
  }
}

/** One session observing everything (with the outputs of its sizing run), or several over chunks when one run's outputs exceed the budget. */
async function openSessions(model: ModelProto, tensors: string[], feeds: Feeds, budget: number) {
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
