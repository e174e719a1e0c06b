/**
 * Task targets on the command line, one reading for every command that aims at a target — `qstudio ladder`,
 * `qstudio suggest` and `qstudio quantize --mixed-precision`: `--target map50:0.95` (map, miou, top1 with labels),
 * `--task`, `--labels` and `--max-drop 1%`. The head is recognised (or named) and printed with its evidence; the
 * task figures of a measurement come from each judged image's outputs (core/recovery/targetMeasure.ts reads them);
 * with `--max-drop` the target is the float model's figure against the labels less the drop.
 */
import path from 'node:path';
import type { ModelProto } from '../core/onnx/index.ts';
import { compareModels } from '../core/evaluate/compareModels.ts';
import type { GraphOptimization } from '../core/runtime/graphOptimization.ts';
import {
  LadderTargetError,
  TASK_LADDER_METRICS,
  type LadderMetric,
  type LadderTarget,
} from '../core/recovery/ladder.ts';
import {
  assertTaskGivesTarget,
  maxDropTarget,
  runCollector,
  type SampleRun,
  type TaskFiguresOf,
} from '../core/recovery/targetMeasure.ts';
import {
  DEFAULT_TASK_METRIC,
  evaluateTask,
  floatLabelFigures,
  parseMaxDrop,
  runOutputs,
  taskTargetFigures,
} from '../core/task/index.ts';
import type { FolderFeeds } from './data/dataFeeds.ts';
import { nodeRuntime } from './runtime/ortNode.ts';
import { readTaskLabels, TASK_OPTIONS, taskHeadArgument } from './taskArgument.ts';
import { taskSamples } from './taskSamples.ts';
import { UsageError } from './usage.ts';

/** The options of a task target (the task head's, and --max-drop). */
export const TASK_TARGET_OPTIONS = { ...TASK_OPTIONS, 'max-drop': { type: 'string' } } as const;

export const TASK_TARGET_USAGE = `  --task <auto|detect|classify|segment|text>  the task head for task targets (default auto; see qstudio evaluate)
  --labels <file|dir>         judge task targets against labels (COCO JSON, YOLO txt, CSV, class folders, masks)
  --max-drop <share>          with --labels: the target is the float model's figure against the labels less
                              this drop (1% or 0.01), on --target's metric or the task's (mAP@0.5:0.95, top-1,
                              mIoU, sequence)
  --score, --min-score, --nms, --max-detections   the detection head's thresholds (see qstudio evaluate)`;

type Values = { [K in keyof typeof TASK_TARGET_OPTIONS]?: string } & { target?: string };

/**
 * The task a target needs, when a task target, --task, --labels or --max-drop asks for one: the target (with
 * --max-drop: from the float model's figure against the labels) and the task figures of a measurement's runs on
 * `data`'s images. Null when no task is asked. `what` names the command's judged images in messages.
 */
export async function taskTargetArgument(
  values: Values,
  target: LadderTarget,
  model: ModelProto,
  fileName: string,
  data: FolderFeeds,
  level: GraphOptimization,
  what = '--data',
  heldIn?: FolderFeeds,
): Promise<{ target: LadderTarget; task: TaskFiguresOf; heldInTask?: TaskFiguresOf } | null> {
  const taskMetric = (TASK_LADDER_METRICS as readonly string[]).includes(target.metric);
  if (!values.task && !values.labels && !values['max-drop'] && !taskMetric) return null;
  if (data.kind !== 'images')
    throw new UsageError(
      `task targets (--task, --labels, --max-drop, map50/map/miou) are judged on images: ${what} must hold images`,
    );
  let head = taskHeadArgument({ ...values, task: values.task ?? 'auto' }, model, fileName)!;
  process.stderr.write(`${head.note}\n`);
  const read = values.labels
    ? await readTaskLabels(
        values.labels,
        head.head,
        model,
        data.files.map((f, i) => ({ name: path.basename(f), ...data.sizes[i] })),
      )
    : null;
  if (read) head = { ...head, head: read.head };
  assertTaskGivesTarget(target.metric, head.head.task);
  const labels = read?.labels ?? null;
  const evaluateOn = (images: typeof data, withLabels: typeof labels) => (runs: readonly SampleRun[]) =>
    evaluateTask(
      head.head,
      taskSamples(
        images,
        images.spec,
        runs.map((r) => ({ index: r.index, float: runOutputs(r.float), quant: runOutputs(r.quant) })),
        withLabels,
      ),
    );
  const evaluate = evaluateOn(data, labels);
  let goal = target;
  if (values['max-drop'] !== undefined) {
    const drop = parseMaxDrop(values['max-drop']);
    const metric = (values.target ? target.metric : DEFAULT_TASK_METRIC[head.head.task]) as LadderMetric;
    const runs = runCollector();
    await compareModels(model, model, nodeRuntime(data.feeds, level), { onOutputs: runs.onOutputs });
    const floatFigure = floatLabelFigures(evaluate(runs.runs))[metric];
    if (floatFigure === undefined)
      throw new LadderTargetError(`--max-drop: the ${head.head.task} figures against labels have no ${metric}`);
    goal = maxDropTarget(metric, floatFigure, drop);
    process.stderr.write(
      `the float model's ${metric} against the labels: ${floatFigure.toFixed(5)}; with --max-drop ${values['max-drop']} the target is ${metric} ≥ ${goal.value.toFixed(5)}\n`,
    );
  }
  // The held-in images (a search's sensitivity samples) read agreement with the float model: only a target of
  // agreement means the same there (a target against labels has no labels on them).
  const heldInEvaluate = heldIn?.kind === 'images' && !labels ? evaluateOn(heldIn, null) : null;
  return {
    target: goal,
    task: (runs) => taskTargetFigures(evaluate(runs)),
    ...(heldInEvaluate ? { heldInTask: (runs: readonly SampleRun[]) => taskTargetFigures(heldInEvaluate(runs)) } : {}),
  };
}
