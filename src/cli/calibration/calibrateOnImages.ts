/**
 * Calibration in Node: the core's calibration runner (core/calibrate/run/runner.ts), the same one the page's
 * workers use, with onnxruntime-node as its runtime and the Node image decoder reading the user's files.
 * So the command line and the studio share one loop, one memory budget and one chunking rule, and compute
 * the same ranges. Corrupt images are skipped and named; problems that stop calibration are the core's
 * named errors (CustomOpsError, NotAnImageModelError, NoCalibrationDataError, NoUsableSamplesError).
 */
import path from 'node:path';
import os from 'node:os';
import { buildGraphIndex } from '../../core/onnx/graphIndex.ts';
import {
  summarize,
  tensorSummary,
  type ModelProto,
  type ModelSummary,
  type TensorSummary,
} from '../../core/onnx/index.ts';
import {
  InferenceError,
  NoCalibrationDataError,
  NoUsableSamplesError,
  NotAnImageModelError,
} from '../../core/calibrate/errors.ts';
import {
  assertCalibratable,
  ModelCalibrator,
  RUN_OUTPUT_BUDGET_BYTES,
  type Progress,
  type SampleSource,
  type SequentialRound,
} from '../../core/calibrate/run/runner.ts';
import { sampleSource } from '../../core/calibrate/run/samples.ts';
import { rangesOf, type TensorStates } from '../../core/calibrate/run/statistics.ts';
import { asFloat32 } from '../../core/halfFloat/float16.ts';
import type { QuantConfig } from '../../core/quantize/config.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';
import type { Feed } from '../../core/runtime/session.ts';
import { decodeImageFile } from '../images/decode.ts';
import { hasNodeTensorType, ortNodeRuntime, type OrtTensor, type TensorLike } from '../runtime/ortNode.ts';
import { TENSOR_CONVENTION } from '../data/dataFolder.ts';

export type CalibrationProgress = Progress;

export interface CalibrationResult {
  /** Ranges in graph order (graph inputs, then node outputs). */
  ranges: Map<string, { min: number; max: number }>;
  states: TensorStates;
  images: number;
  skipped: { file: string; reason: string }[];
  seconds: number;
  /** Passes over the images: 1, or the number of chunks when one run's outputs exceeded the budget. */
  chunks: number;
  /** Rounds of a sequential calibration (the core's SequentialRound); absent for other methods. */
  rounds?: number;
  /** The statistics of each of the options' `alsoFor` configurations, from the same runs. */
  alsoStates?: TensorStates[];
}

export interface CalibrationOptions {
  spec: PreprocessSpec;
  config: QuantConfig;
  onProgress?: (p: CalibrationProgress) => void;
  /** Most bytes one run may return before tensors are observed in chunks (the core's budget unless given). */
  budgetBytes?: number;
  /** One round of a sequential calibration only (its statistics alone; `images` counts the float pass's samples or the round's). */
  round?: SequentialRound;
  /** More configurations whose statistics the same runs gather (`alsoStates`; the core runner's `alsoFor`). */
  alsoFor?: readonly QuantConfig[];
  /** Node outputs not to observe (the core runner's `unobserved`): ranges the one plan using them never reads. */
  unobserved?: ReadonlySet<string>;
}

/** Runs calibration over image files, decoding each as it is reached. */
export async function calibrateOnImages(
  model: ModelProto,
  files: readonly string[],
  options: CalibrationOptions,
): Promise<CalibrationResult> {
  return calibrate(
    model,
    (inputs) => {
      if (files.length === 0)
        throw new NoCalibrationDataError(
          'no images to calibrate on: give a folder of .jpg or .png files, or of .npy/.npz tensors',
        );
      try {
        return imageFileSource(files, inputs, options.spec);
      } catch (e) {
        throw inCommandLineTerms(e);
      }
    },
    options,
  );
}

/** Image files as the core's SampleSource over `inputs`, each decoded by the Node decoder when it is reached. */
export function imageFileSource(
  files: readonly string[],
  inputs: readonly TensorSummary[],
  spec: PreprocessSpec | null,
): SampleSource {
  const samples = files.map((file) => ({ kind: 'image' as const, name: path.basename(file), file }));
  return sampleSource(samples, inputs, spec, async (file: string) => decodeImageFile(file));
}

/**
 * The core's "images cannot feed this model" error as the command line can act on it: the core suggests .npy
 * tensors, which the studio's page takes for calibration but the command line does not read.
 */
function inCommandLineTerms(e: unknown): unknown {
  if (!(e instanceof NotAnImageModelError) || !/\.npy/.test(e.message)) return e;
  return new NotAnImageModelError(
    `${e.message} Give --calib a folder of .npy/.npz tensors instead: ${TENSOR_CONVENTION}.`,
  );
}

/** Runs calibration over input tensors already decoded (as a command that also tunes or evaluates on the same images holds them). */
export async function calibrateOnTensors(
  model: ModelProto,
  tensors: readonly OrtTensor[],
  options: Omit<CalibrationOptions, 'spec'>,
): Promise<CalibrationResult> {
  const input = buildGraphIndex(model.graph!).inputs[0]?.name ?? '';
  return calibrateOnFeeds(
    model,
    tensors.map((t) => ({ [input]: t })),
    options,
  );
}

/**
 * Runs calibration over feeds already decoded, one record of named inputs per sample: models with
 * several inputs, test sets stored as tensors. A model input of a type onnxruntime-node takes no tensors
 * of (bfloat16, …) is an InferenceError: the model cannot run here.
 */
export async function calibrateOnFeeds(
  model: ModelProto,
  feeds: readonly Readonly<Record<string, TensorLike>>[],
  options: Omit<CalibrationOptions, 'spec'>,
): Promise<CalibrationResult> {
  const index = buildGraphIndex(model.graph!);
  const foreign = [...index.inputs, ...index.outputs].filter((v) => {
    const t = v.type?.tensor_type?.elem_type;
    return !!t && !hasNodeTensorType(t);
  });
  if (foreign.length > 0) {
    const list = foreign.map((v) => `${v.name} (${tensorSummary(v).elemType})`).join(', ');
    throw new InferenceError(
      `onnxruntime-node passes no tensors of the type of ${list}, so it cannot run the model to calibrate it`,
    );
  }
  const plain = feeds.map((f) =>
    Object.fromEntries(
      Object.entries(f).map(([name, t]): [string, Feed] => [
        name,
        { type: t.type as Feed['type'], data: t.data as Feed['data'], dims: t.dims },
      ]),
    ),
  );
  const source: SampleSource = {
    count: plain.length,
    name: (i) => `sample ${i + 1}`,
    produce: async (i) => ({ feeds: plain[i] }),
  };
  return calibrate(model, () => source, options);
}

/**
 * How many bytes of exposed tensors one run may return in Node. The core's 256 MB budget is WASM's (4 GB in all);
 * onnxruntime-node has the machine's memory, and every chunk beyond the first is one more run of the whole model
 * on every sample: at 1024 × 1024 (PP-OCRv4's detector, 673 tensors) 256 MB made 7 passes. A quarter of the free
 * memory, between 256 MB and 4 GB.
 */
export function nodeOutputBudget(): number {
  return Math.min(4 * 1024 ** 3, Math.max(RUN_OUTPUT_BUDGET_BYTES, Math.floor(os.freemem() / 4)));
}

/** Checks the model, makes the samples for its inputs, runs the core's runner on onnxruntime-node. */
async function calibrate(
  given: ModelProto,
  samplesFor: (inputs: ModelSummary['inputs']) => SampleSource,
  options: Omit<CalibrationOptions, 'spec'>,
): Promise<CalibrationResult> {
  // A float16 model calibrates as its float32 form: the same tensors, fed and observed in float32.
  const model = asFloat32(given);
  const summary = summarize(model, buildGraphIndex(model.graph!));
  assertCalibratable(summary, 'The model');
  const source = samplesFor(summary.inputs);
  const calibrator = new ModelCalibrator(model, ortNodeRuntime(), options.budgetBytes ?? nodeOutputBudget(), {
    unobserved: options.unobserved,
  });
  try {
    const outcome = await calibrator.calibrate(
      source,
      options.config,
      () => false,
      options.onProgress ?? (() => undefined),
      options.round,
      options.alsoFor,
    );
    // A later round gathers nothing where the quantized model computes none of its tensors: no sample is read then.
    if (outcome.used === 0 && !(options.round && options.round.index > 0 && outcome.skipped.length < source.count)) {
      throw new NoUsableSamplesError(
        `none of the ${source.count} samples could be read (${outcome.skipped[0]?.reason ?? ''})`,
      );
    }
    const all = rangesOf(outcome.states);
    const ranges = new Map<string, { min: number; max: number }>();
    for (const name of calibrator.observable) if (all.has(name)) ranges.set(name, all.get(name)!);
    return {
      ranges,
      states: outcome.states,
      images: outcome.used,
      skipped: outcome.skipped,
      seconds: outcome.seconds,
      chunks: outcome.passes,
      ...(outcome.rounds ? { rounds: outcome.rounds } : {}),
      ...(outcome.alsoStates ? { alsoStates: outcome.alsoStates } : {}),
    };
  } finally {
    await calibrator.release();
  }
}
