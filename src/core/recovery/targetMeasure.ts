/**
 * One target for every search that aims at one — the ladder, the exclusion search (qstudio suggest, the page's
 * search, the ladder's exclusion rung) and automatic mixed precision — in the ladder's syntax (parseLadderTarget:
 * `cosine:0.99`, `top1:0.99`, `map50:0.95`, `map:0.6`, `miou:0.9`, …, and `--max-drop 1%` against labels): the
 * target's figure measured from a comparison's output metrics, or from the task figures of each sample's outputs
 * (core/task/taskTarget.ts, injected by the caller, who knows the head, the images' geometry and the labels).
 */
import type { RunsFigure, SampleRun } from '../evaluate/sampleRuns.ts';

export { runCollector, type SampleRun } from '../evaluate/sampleRuns.ts';
import { summarizeSamples, type FloatArray, type OutputSummary, type SampleRecord } from '../metrics/index.ts';
import {
  LadderTargetError,
  mixedPrecisionCosine,
  TASK_LADDER_METRICS,
  type LadderMetric,
  type LadderTarget,
} from './ladder.ts';
import { meanOutputCosine, outputMetrics, UNREAD_BY_FIGURES } from '../evaluate/outputMetrics.ts';
import type { TaskKind } from '../task/heads.ts';

/** The task figures of a set of runs, by ladder metric name (taskTargetFigures of an evaluation). */
export type TaskFiguresOf = (runs: readonly SampleRun[]) => Readonly<Record<string, number>>;

/** How a metric's figure is read from a measurement: the comparison's output metrics, or the task figures of the runs. */
export interface FigureReader {
  readonly metric: LadderMetric;
  /** A task reads each sample's outputs (compareModels' onOutputs): collect them (runCollector). */
  readonly readsOutputs: boolean;
  /** The metric's figure of one measurement. A task figure the head does not give is a LadderTargetError. */
  figure(outputs: readonly OutputSummary[], runs: readonly SampleRun[]): number;
  /** Every figure of the measurement (the output metrics, and the task figures with a task), for what is shown. */
  figures(outputs: readonly OutputSummary[], runs: readonly SampleRun[]): Record<string, number>;
}

export interface TargetMeasure extends FigureReader {
  readonly target: LadderTarget;
  /** Whether a figure meets the target. */
  reached(figure: number): boolean;
}

const isTaskMetric = (m: string) => (TASK_LADDER_METRICS as readonly string[]).includes(m);

/**
 * How `metric` is read; `task` reads task figures (needed for map50, map and miou, and for top1 against labels:
 * a task figure of the same name wins over the output metric).
 */
export function figureReader(metric: LadderMetric, task?: TaskFiguresOf | null): FigureReader {
  if (isTaskMetric(metric) && !task) {
    throw new LadderTargetError(
      `a ${metric} target is a task figure: give the task (--task auto|detect|segment, or choose the head on the page)`,
    );
  }
  const taskFigures = (runs: readonly SampleRun[]) => (task ? task(runs) : {});
  return {
    metric,
    readsOutputs: !!task,
    figure(outputs, runs) {
      const t = taskFigures(runs);
      if (metric in t) return t[metric];
      if (isTaskMetric(metric))
        throw new LadderTargetError(
          `the task's figures have no ${metric} (they have ${Object.keys(t).join(', ') || 'none'})`,
        );
      return ladderScore(outputs, metric);
    },
    figures(outputs, runs) {
      return { ...ladderMetrics(outputs), ...taskFigures(runs) };
    },
  };
}

/** The task figures a head of each kind gives as targets (task/taskTarget.ts taskTargetFigures). */
const TARGETS_OF_TASK: Readonly<Record<TaskKind, readonly LadderMetric[]>> = {
  detect: ['map50', 'map'],
  segment: ['miou'],
  classify: [],
  text: [],
};
const TASK_WORDS: Readonly<Record<TaskKind, string>> = {
  detect: 'detection (boxes)',
  segment: 'segmentation (masks)',
  classify: 'classification',
  text: 'text recognition',
};

/**
 * A task target the chosen head cannot give is refused before any rung runs (LadderTargetError naming both), instead
 * of every rung failing in turn: a map50 target on a classifier measured 14 rungs, each "the task's figures have no
 * map50".
 */
export function assertTaskGivesTarget(metric: LadderMetric, task: TaskKind): void {
  if (!isTaskMetric(metric) || TARGETS_OF_TASK[task].includes(metric)) return;
  const wants = (Object.keys(TARGETS_OF_TASK) as TaskKind[]).find((k) => TARGETS_OF_TASK[k].includes(metric));
  const instead =
    task === 'classify' ? 'top1 (agreement, or accuracy against labels)' : task === 'text' ? 'sequence' : 'cosine';
  throw new LadderTargetError(
    `a ${metric} target is a figure of ${wants ? TASK_WORDS[wants] : 'another task'}, but the task judged is ${TASK_WORDS[task]}: aim at ${instead}, or judge the model as ${wants ?? 'that task'} (qstudio --task ${wants ?? 'auto'}; on the page, "Task judged")`,
  );
}

/** The measure of `target` (figureReader of its metric, and whether a figure meets it). */
export function targetMeasure(target: LadderTarget, task?: TaskFiguresOf | null): TargetMeasure {
  return { ...figureReader(target.metric, task), target, reached: (figure) => figure >= target.value };
}

/**
 * The output metrics of judged runs (each sample's outputs, float against quantized), as compareModels summarises
 * them: what an output target (top1, sequence) reads where a search keeps runs rather than a comparison. SSIM is
 * left out (no target reads it); a sequence target reads every rank-3 output, as the ladder's judge does.
 */
export function runsOutputSummaries(runs: readonly SampleRun[], metric: LadderMetric): OutputSummary[] {
  const records: SampleRecord[] = [];
  for (const run of runs)
    for (const [name, f] of Object.entries(run.float)) {
      const q = run.quant[name];
      if (!q || !isFloatArray(f.data) || !isFloatArray(q.data)) continue;
      records.push({
        output: name,
        metrics: outputMetrics(f.data, q.data, f.dims, {
          ...UNREAD_BY_FIGURES,
          sequence: metric === 'sequence' ? 'always' : 'auto',
        }),
      });
    }
  return summarizeSamples(records);
}

const isFloatArray = (d: unknown): d is FloatArray => d instanceof Float32Array || d instanceof Float64Array;

/** What automatic mixed precision aims at for a target (chooseMixedPrecision's target, figure and metric). */
export interface MixedPrecisionAim {
  readonly target: number;
  /** The target's figure of the judged runs (higher is better, at most 1); absent: the search aims at the cosine. */
  readonly figure?: RunsFigure;
  readonly metric?: string;
}

/**
 * One aim for the CLI's `quantize --mixed-precision`, the ladder's mixed rung and the page: a cosine target as it is;
 * a target in [0, 1] where higher is better (top1, sequence: agreement with the float model; map50, map, miou through
 * `task`; top1 against labels through `task` too) by its own figure on the judged runs, read as the ladder reads it
 * (figureReader); a PSNR target, which has no upper bound the search's error can be taken from, by a high cosine.
 */
export function mixedPrecisionAim(target: LadderTarget, task?: TaskFiguresOf | null): MixedPrecisionAim {
  if (target.metric === 'cosine' || target.metric === 'psnr') return { target: mixedPrecisionCosine(target) };
  const reader = figureReader(target.metric, task);
  return {
    target: target.value,
    figure: (runs) => reader.figure(runsOutputSummaries(runs, target.metric), runs),
    metric: target.metric,
  };
}

/** The target a `--max-drop` sets: the float model's figure against the labels less the drop (at least 0). */
export function maxDropTarget(metric: LadderMetric, floatFigure: number, drop: number): LadderTarget {
  return { metric, value: Math.max(0, floatFigure - drop) };
}

/** The target metric of a comparison: mean over outputs (with a defined value) of each output's mean. */
export function ladderScore(outputs: readonly OutputSummary[], metric: LadderMetric | 'cer'): number {
  if (metric === 'cosine') return meanOutputCosine(outputs).cosine;
  if (metric === 'map50' || metric === 'map' || metric === 'miou')
    throw new LadderTargetError(
      `a ${metric} target is a task figure: give the task (qstudio ladder --task auto|detect|segment)`,
    );
  const values = outputs
    .map((o) => o.metrics[metric]?.mean)
    .filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (values.length === 0) {
    throw new LadderTargetError(
      metric === 'top1'
        ? 'top-1 agreement needs a classifier-like output (scores of shape [N, classes]); this model has none'
        : metric === 'sequence'
          ? 'sequence agreement needs a sequence output (scores of shape [batch, steps, classes]); this model has none'
          : metric === 'decision'
            ? 'decision agreement needs an output of one probability a sample ([batch, 1], values in 0…1: a voice-activity or wake-word score); this model has none'
            : `no output has a finite ${metric}`,
    );
  }
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * Where the target reads a figure that an output of one number a sample does not have (the cosine, PSNR, top-1) and the
 * model has such an output beside others (Silero VAD's speech probability beside its state), what the target leaves
 * unjudged and how to aim at it: the ladder on a 16 kHz Silero export met cosine 0.99 on its state while 2 of 32
 * speech decisions differed. `figures` are a ladder rung's or a suggest step's (ladderMetrics); `each` names which;
 * `decisionTarget` names the decision target as the reader chooses it (the CLI's option, the page's menu entry).
 * Null where there is nothing to say.
 */
export function unjudgedScoreNote(
  metric: string,
  figures: Readonly<Record<string, number>>,
  each: 'rung' | 'step' = 'rung',
  decisionTarget = '--target decision:<share>',
): string | null {
  const decision = figures.decision;
  if (metric === 'decision' || decision === undefined || !Number.isFinite(decision)) return null;
  return `note: the ${metric} target judges only the outputs of more than one number a sample; this model also has an output of one number a sample (a score or probability), which has no ${metric}: its decisions at 0.5 are shown beside each ${each} ("decision", ${decision.toFixed(5)} here), and ${decisionTarget} aims at them`;
}

/**
 * The decisions-alike figure of a measured comparison where the model has an output of one number a sample (what a
 * suggest step reads beside its target, for unjudgedScoreNote); undefined where it has none.
 */
export function measuredDecision(outputs: readonly OutputSummary[]): number | undefined {
  const decision = ladderMetrics(outputs).decision;
  return decision !== undefined && Number.isFinite(decision) ? decision : undefined;
}

/**
 * The numbers shown side by side for every rung: each that the model's outputs define (no cosine where every output is
 * one number a sample, a wake-word score: its rungs read "decision 1.00000", not "cosine NaN").
 */
export function ladderMetrics(outputs: readonly OutputSummary[]): Record<string, number> {
  const cosine = meanOutputCosine(outputs).cosine;
  const out: Record<string, number> = Number.isFinite(cosine) ? { cosine } : {};
  for (const m of ['psnr', 'top1', 'sequence', 'decision', 'cer'] as const) {
    try {
      out[m] = ladderScore(outputs, m);
    } catch {
      // not defined for this model's outputs
    }
  }
  return out;
}
