/**
 * Runs of decoded image samples as core/task reads them: each run's outputs with its image's name and geometry
 * (how the model input maps onto the photo, from the preprocessing). Shared by the evaluation worker (the task
 * figures and pictures) and the recovery worker (the ladder's task targets), so both read boxes the same way.
 */
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { assertTaskGivesTarget, type SampleRun, type TaskFiguresOf } from '../../src/core/recovery/targetMeasure.ts';
import { LadderTargetError, TASK_LADDER_METRICS, type LadderMetric } from '../../src/core/recovery/ladder.ts';
import {
  evaluateTask,
  inputGeometry,
  runOutputs,
  taskTargetFigures,
  type RunOutputs,
  type TaskHead,
  type TaskSample,
} from '../../src/core/task/index.ts';
import type { EvaluationFeeds } from './feeds.ts';

/** Image samples only: their sizes place the boxes (a tensor sample has none). */
export const judgesTask = (data: EvaluationFeeds, spec: PreprocessSpec | null): spec is PreprocessSpec =>
  spec !== null && data.sizes.every((s) => s !== null);

/** Run `index`'s outputs as a task sample of `data` (decoded with `spec`). */
export function taskSample(
  data: EvaluationFeeds,
  spec: PreprocessSpec,
  index: number,
  outputs: { float: RunOutputs; quant: RunOutputs },
): TaskSample {
  return {
    name: data.names[index],
    geometry: inputGeometry(data.sizes[index]!, Object.values(data.feeds[index])[0].dims, spec),
    float: outputs.float,
    quant: outputs.quant,
  };
}

/** The task figures (by ladder metric name) of runs over `data`, read through `head`: a task target's reading. */
export function taskFiguresOf(head: TaskHead, data: EvaluationFeeds, spec: PreprocessSpec): TaskFiguresOf {
  return (runs: readonly SampleRun[]) =>
    taskTargetFigures(
      evaluateTask(
        head,
        runs.map((r) => taskSample(data, spec, r.index, { float: runOutputs(r.float), quant: runOutputs(r.quant) })),
      ),
    );
}

/**
 * The task figures a page search's target reads (the ladder, the exclusion search, mixed precision): for a task metric
 * (map50, map, miou), through the chosen head on image samples; undefined for an output metric. A task target without
 * a head or on tensor samples is a LadderTargetError that says what is missing.
 */
export function taskTargetReading(
  task: TaskHead | null | undefined,
  spec: PreprocessSpec | null,
  data: EvaluationFeeds,
  metric: string,
): TaskFiguresOf | undefined {
  if (!(TASK_LADDER_METRICS as readonly string[]).includes(metric)) return undefined;
  if (!task)
    throw new LadderTargetError(
      `a ${metric} target is a task figure: choose the task head first (step 6, "Task judged")`,
    );
  assertTaskGivesTarget(metric as LadderMetric, task.task);
  if (!judgesTask(data, spec))
    throw new LadderTargetError(`a ${metric} target is judged on images: the samples are tensors`);
  return taskFiguresOf(task, data, spec);
}
