/**
 * Evaluation samples → model feeds, decoded once and kept for the whole evaluation (and for every
 * step of a suggest-exclusions search, which runs the same samples again and again). Reuses the
 * calibration's sample source (images decoded off the main thread, .npy tensors, ready-made feeds),
 * so the page's "use calibration images" means exactly the same tensors calibration saw.
 *
 * Corrupt samples are skipped and named; none usable is NoUsableSamplesError. Must not run a model.
 */
import type { TensorSummary } from '../../src/core/onnx/index.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { validatePreprocess } from '../../src/core/preprocess/spec.ts';
import type { SkippedSample } from '../../src/core/calibrate/run/runner.ts';
import { NoUsableSamplesError } from '../../src/core/calibrate/errors.ts';
import { sampleSource, type CalibrationSample, type ImageDecoder } from '../../src/core/calibrate/run/samples.ts';
import type { Feed } from '../../src/core/runtime/session.ts';
import { NoEvaluationDataError } from '../../src/core/evaluate/errors.ts';

export interface EvaluationFeeds {
  /** One feed set per usable sample, in the order given. */
  readonly feeds: Readonly<Record<string, Feed>>[];
  /** The usable samples' names, parallel to `feeds`. */
  readonly names: string[];
  /** Parallel to `feeds`: the sample's index in the request, and an image's size in pixels (null for tensors). */
  readonly indices: number[];
  readonly sizes: ({ width: number; height: number } | null)[];
  readonly skipped: SkippedSample[];
  /** Seconds spent decoding and preprocessing. */
  readonly seconds: number;
}

/** Decodes every sample; `onSample(done, total)` after each; `cancelled()` is checked between samples. */
export async function loadFeeds(
  samples: readonly CalibrationSample[],
  inputs: readonly TensorSummary[],
  spec: PreprocessSpec | null,
  decode: ImageDecoder,
  hooks: {
    cancelled?: () => boolean;
    onSample?: (done: number, total: number) => void;
    cancelledError?: () => Error;
  } = {},
): Promise<EvaluationFeeds> {
  const start = performance.now();
  if (samples.length === 0)
    throw new NoEvaluationDataError('No evaluation data: add images (or use the calibration images) to evaluate on.');
  const source = sampleSource(samples, inputs, spec ? validatePreprocess(spec) : null, decode);
  const feeds: Readonly<Record<string, Feed>>[] = [];
  const names: string[] = [];
  const indices: number[] = [];
  const sizes: ({ width: number; height: number } | null)[] = [];
  const skipped: SkippedSample[] = [];
  for (let i = 0; i < source.count; i++) {
    if (hooks.cancelled?.()) throw hooks.cancelledError?.() ?? new Error('cancelled');
    const produced = await source.produce(i);
    if ('skip' in produced) skipped.push({ file: source.name(i), reason: produced.skip });
    else {
      feeds.push(produced.feeds);
      names.push(source.name(i));
      indices.push(i);
      sizes.push(produced.size ?? null);
    }
    hooks.onSample?.(i + 1, source.count);
  }
  if (feeds.length === 0) {
    throw new NoUsableSamplesError(
      `None of the ${source.count} evaluation samples could be used: ${skipped
        .slice(0, 3)
        .map((s) => `${s.file} (${s.reason})`)
        .join('; ')}${skipped.length > 3 ? '; …' : ''}.`,
    );
  }
  return { feeds, names, indices, sizes, skipped, seconds: (performance.now() - start) / 1000 };
}
