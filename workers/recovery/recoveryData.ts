/**
 * The data of one recovery run: calibration and evaluation samples decoded once (the evaluation worker's
 * loadFeeds), the float model's calibration on them, the runtimes that judge on them, and the task reading a
 * target is measured by.
 */
import type { ModelProto } from '../../src/core/onnx/index.ts';
import type { ComparisonRuntime } from '../../src/core/evaluate/compareModels.ts';
import { rangesOf, type TensorStates } from '../../src/core/calibrate/run/statistics.ts';
import type { QuantConfig } from '../../src/core/quantize/config.ts';
import type { Ranges } from '../../src/core/quantize/plan.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { ModelCalibrator, type SampleSource } from '../../src/core/calibrate/run/runner.ts';
import { comparisonRuntime } from '../evaluation/comparisonRuntime.ts';
import { loadFeeds, type EvaluationFeeds } from '../evaluation/feeds.ts';
import { taskTargetReading } from '../evaluation/taskRuns.ts';
import type { TaskHead } from '../../src/core/task/index.ts';
import type { Feed } from '../../src/core/runtime/session.ts';
import { NoRecoveryDataError, RecoveryCancelledError } from '../../src/core/recovery/errors.ts';
import type { RecoveryData, RecoveryWorkerProgressCallback } from './recoveryTypes.ts';
import type { HeldModel, RecoveryApiDeps } from './recoveryContext.ts';

/** The task figures a ladder's target reads on `data` (taskTargetReading with the request's head). */
export const ladderTask = (
  request: { task?: TaskHead | null; spec: PreprocessSpec | null },
  data: EvaluationFeeds,
  metric: string,
) => taskTargetReading(request.task, request.spec, data, metric);

/** Decoded feeds as a calibration sample source (no second decode). */
function feedSource(data: EvaluationFeeds): SampleSource {
  return {
    count: data.feeds.length,
    name: (i) => data.names[i],
    produce: async (i) => ({ feeds: data.feeds[i] as Record<string, Feed> }),
  };
}

/** Decodes calibration and evaluation samples once; the calibrate callback runs the float model on them. */
export async function prepareData(
  deps: Pick<RecoveryApiDeps, 'decodeImage'>,
  h: HeldModel,
  request: RecoveryData,
  check: () => void,
  progress: RecoveryWorkerProgressCallback,
) {
  if (request.samples.length === 0) {
    throw new NoRecoveryDataError(
      'No calibration images: recovery calibrates, fine-tunes and measures on real data. Add images in the calibration step.',
    );
  }
  const hooks = (what: string) => ({
    cancelled: () => (check(), false),
    onSample: (done: number, total: number) => progress({ rung: null, phase: 'decoding', done, total }),
    cancelledError: () => new RecoveryCancelledError(`cancelled while decoding the ${what}`),
  });
  const tuning = await loadFeeds(
    request.samples,
    h.inputs,
    request.spec,
    deps.decodeImage,
    hooks('calibration samples'),
  );
  const own = request.evaluationSamples && request.evaluationSamples.length > 0;
  const judging = own
    ? await loadFeeds(request.evaluationSamples!, h.inputs, request.spec, deps.decodeImage, hooks('evaluation samples'))
    : tuning;
  const calibrate = async (model: ModelProto, config: QuantConfig): Promise<Ranges> => {
    const calibrator = new ModelCalibrator(model, h.runtime);
    try {
      const outcome = await calibrator.calibrate(
        feedSource(tuning),
        config,
        () => (check(), false),
        () => undefined,
      );
      return rangesOf(outcome.states as TensorStates);
    } finally {
      await calibrator.release();
    }
  };
  return {
    tuning,
    judging,
    calibrate,
    tuningRuntime: comparisonRuntime(h.runtime, tuning.feeds, check) as ComparisonRuntime,
    judgingRuntime: comparisonRuntime(h.runtime, judging.feeds, check, request.aim ?? 'all') as ComparisonRuntime,
    aim: request.aim ?? 'all',
    skipped: [...tuning.skipped, ...(own ? judging.skipped : [])],
    dataSource: own ? `${judging.feeds.length} evaluation sample(s)` : `${judging.feeds.length} calibration sample(s)`,
  };
}
