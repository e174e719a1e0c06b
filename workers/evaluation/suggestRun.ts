/**
 * "Suggest exclusions": the core's greedy search (core/search/suggest.ts) on a held model, each candidate quantized
 * here with the calibrated ranges and measured on the samples by the core's suggestMeasure, the same measure as
 * `qstudio suggest`; the target read as the ladder reads it (core targetMeasure). Progress reports every measured step.
 */
import { tailSubgraph } from '../../src/core/search/candidates.ts';
import { addedExclusions, suggestExclusions } from '../../src/core/search/suggest.ts';
import { suggestMeasure } from '../../src/core/search/suggestMeasure.ts';
import { ConfigError, validateConfig } from '../../src/core/quantize/config.ts';
import { LadderTargetError, parseLadderTarget } from '../../src/core/recovery/ladder.ts';
import { measuredDecision, targetMeasure } from '../../src/core/recovery/targetMeasure.ts';
import { rangesFromTable } from '../../src/core/calibrate/run/rangeTable.ts';
import { comparisonRuntime } from './comparisonRuntime.ts';
import { decodeSamples, type EvaluationRun } from './heldEvaluation.ts';
import { taskTargetReading } from './taskRuns.ts';
import type { SuggestOutcome, SuggestRequest, SuggestStepMeasured } from './evaluationTypes.ts';

/** Named errors as evaluateQuantized's, plus the target's (ConfigError, LadderTargetError) and the quantizer's. */
export async function suggestOn(run: EvaluationRun, request: SuggestRequest): Promise<SuggestOutcome> {
  const { held: h, check, progress } = run;
  const start = performance.now();
  const config = validateConfig(request.config);
  const metric = request.metric ?? 'cosine';
  if (metric === 'cosine' && !(request.target > -1 && request.target <= 1))
    throw new ConfigError('target', `${request.target}: give an output cosine in (-1, 1]`);
  const goal = parseLadderTarget(`${metric}:${request.target}`);
  if (goal.metric !== 'cosine' && request.npuBf16)
    throw new LadderTargetError(
      `"as the NPU runs it" judges the output cosine; a ${goal.metric} target is judged as written: choose one or the other`,
    );
  const maxSteps = request.maxSteps ?? 8;
  const ranges = rangesFromTable(request.ranges);
  const data = await decodeSamples(run, request.samples, request.spec);
  const runtime = comparisonRuntime(h.runtime, data.feeds, check);
  const aim = request.aim ?? 'all';
  const aimed = aim === 'basic' ? null : comparisonRuntime(h.runtime, data.feeds, check, aim);
  // The same reading of the target as the ladder's and qstudio suggest's (core targetMeasure).
  const measure =
    goal.metric === 'cosine'
      ? undefined
      : targetMeasure(goal, taskTargetReading(request.task, request.spec, data, goal.metric));
  let measured = 0;
  // Each step's decisions alike, where the model has an output of one number a sample (as qstudio suggest reads them).
  let lastDecision: number | undefined;
  const decisions = new Map<number, number>();
  const withDecision = <S extends { step: number }>(s: S): S & { decision?: number } =>
    decisions.has(s.step) ? { ...s, decision: decisions.get(s.step)! } : s;
  const stepProgress = () => ({ done: measured, total: maxSteps + 1 });
  const result = await suggestExclusions({
    config,
    target: request.target,
    maxSteps,
    maxTailNodes: request.maxTailNodes,
    tailOf: (id) => tailSubgraph(h.index, id),
    evaluate: suggestMeasure({
      model: h.model,
      index: h.index,
      ranges,
      configName: request.configName,
      runtime,
      // The cosine at the aimed level: the outputs alone again at 'all' (the layers stay at 'basic').
      judge: aimed ?? undefined,
      rankBy: request.rankBy,
      npuBf16: request.npuBf16,
      sequence: goal.metric === 'sequence' ? 'always' : 'auto',
      figure: measure,
      check,
      onProgress: (done, total) => progress({ phase: 'searching', done, total, step: stepProgress() }),
      onMeasured: (m) => {
        lastDecision = measuredDecision(m.comparison.outputs);
      },
    }),
    onStep(step) {
      measured++;
      if (!step.error && lastDecision !== undefined) decisions.set(step.step, lastDecision);
      lastDecision = undefined;
      // A cancel during a measurement is recorded by the search as a failed step: stop here instead.
      check();
      progress({
        phase: 'searching',
        done: data.feeds.length,
        total: data.feeds.length,
        step: stepProgress(),
        measured: withDecision(step),
      });
    },
  }).catch((e: unknown) => {
    check(); // the starting measurement failed because of a cancel: say so, not "could not be evaluated"
    throw e;
  });
  return {
    target: request.target,
    metric: goal.metric,
    ...(measure ? { figure: result.figure, startFigure: result.steps[0].figure } : {}),
    aim,
    npuBf16: request.npuBf16 ?? false,
    reached: result.reached,
    stopped: result.stopped,
    cosine: result.cosine,
    startCosine: result.steps[0].cosine,
    steps: result.steps.map((s): SuggestStepMeasured => withDecision(s)),
    added: addedExclusions(config, result.config),
    used: data.feeds.length,
    skipped: data.skipped,
    seconds: (performance.now() - start) / 1000,
  };
}
