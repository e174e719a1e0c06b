/**
 * The recovery worker's ladder climb: the reference's best-practice ladder (core climbLadder with
 * ladderClimbOptions) toward a target on the evaluation samples, each rung's model kept by handle; the climb is
 * held from its start so a cancel keeps the rungs it measured.
 */
import { budgetDeadline } from '../../src/core/recovery/budgetDeadline.ts';
import { configToJSON, validateConfig } from '../../src/core/quantize/config.ts';
import {
  climbLadder,
  ladderReport,
  ladderSoFar,
  parseLadderTarget,
  type LadderStop,
  type Rung,
  type RungResult,
  type SkippedRung,
} from '../../src/core/recovery/ladder.ts';
import type { RungDetail } from '../../src/core/recovery/ladderMeasure.ts';
import { ladderClimbOptions } from '../../src/core/recovery/ladderSetup.ts';
import { WASM_INT8_KERNELS_EXACT } from '../../src/core/runtime/wasmInt8Kernels.ts';
import { RecoveryCancelledError } from '../../src/core/recovery/errors.ts';
import { runtimeGramProduct } from './gramProduct.ts';
import type {
  LadderOutcome,
  LadderRequest,
  RecoveryWorkerProgress,
  RecoveryWorkerProgressCallback,
  RungSummary,
} from './recoveryTypes.ts';
import { denseOf, forward, type HeldLadder, type RecoveryContext } from './recoveryContext.ts';
import { ladderTask, prepareData } from './recoveryData.ts';

/**
 * Climbs the ladder until a rung meets the target (core climbLadder with ladderClimbOptions, as qstudio ladder).
 * Progress says the rung, its phase and layer, and each rung's numbers as it ends. A cancel ends the
 * climb with what was measured (stopped: 'cancelled'); a bad target is LadderTargetError.
 */
export async function climbRecoveryLadder(
  ctx: RecoveryContext,
  handle: string,
  request: LadderRequest,
  onProgress?: RecoveryWorkerProgressCallback,
): Promise<LadderOutcome> {
  const { models, ladders, forgetPrevious, summarize } = ctx;
  const h = models.get(handle);
  const progress = onProgress ?? (() => undefined);
  const target = parseLadderTarget(request.target);
  // `budgetSpent`: the abort is the time budget's deadline, not the user's Cancel (the climb then ends 'budget').
  const signal = { aborted: false, budgetSpent: false };
  h.active.add(signal);
  const check = () => {
    if (signal.aborted) throw new RecoveryCancelledError('The ladder was cancelled.');
  };
  try {
    const start = performance.now();
    const base = validateConfig(request.config);
    const data = await prepareData(ctx.deps, h, request, check, progress);
    const info = (r: Rung): RecoveryWorkerProgress['rung'] => ({
      index: r.index,
      label: r.label,
      step: r.step,
      of: r.of,
      estimate: r.estimate ? { ...r.estimate } : undefined,
      why: r.why,
    });
    forgetPrevious(h);
    // The climb is held from its start, its result the rungs measured so far: after a Cancel (or while it runs) its
    // report and every finished rung's model are there, whatever becomes of the rung in flight.
    const measuredSoFar: RungResult[] = [];
    const skippedSoFar: SkippedRung[] = [];
    const order = request.order ?? 'eight-bit-first';
    const held: HeldLadder = {
      model: handle,
      result: ladderSoFar(target, order, [], [], 'cancelled'),
      handles: [],
      dataSource: data.dataSource,
      npuBf16: request.npuBf16 ?? false,
      aim: data.aim,
    };
    const ladderHandle = ladders.add(held);
    h.kept.ladders.push(ladderHandle);
    const update = () => {
      held.result = ladderSoFar(target, order, measuredSoFar, skippedSoFar, 'cancelled');
    };
    const climb = ladderClimbOptions(
      {
        model: h.model,
        calibrate: data.calibrate,
        tuning: data.tuningRuntime,
        evaluation: data.judgingRuntime,
        // The calibration samples as the judge runs models (one onnxruntime-web level here), as qstudio ladder gives it.
        sensitivity: data.tuningRuntime,
        signal,
        gramProduct: runtimeGramProduct(h.runtime),
        denseProduct: (await denseOf(h))?.product,
        floatPartsAsBf16: request.npuBf16 ?? false,
        onProgress: (rung, p) => forward(progress, info(rung), ladderHandle)(p),
        task: ladderTask(request, data.judging, target.metric),
        // The mixed-precision rung aims at a task target on the calibration images' own task reading.
        heldInTask: ladderTask(request, data.tuning, target.metric),
      },
      {
        target,
        base,
        order: request.order,
        formats: request.formats,
        perChannelRung: request.perChannelRung,
        exclusions: request.exclusions,
        mixedPrecision: request.mixedPrecision,
        maxExclusionSteps: request.maxExclusionSteps,
        finetuneReach: request.finetuneReach,
        timeBudget: request.timeBudget,
        sensitiveShare: request.sensitiveShare,
        adaquantStride: request.adaquantStride,
      },
      // The judge is onnxruntime-web, whose WASM int8 kernels do not saturate (measured, core/runtime/wasmInt8Kernels.ts):
      // a model at risk lists its saturation-safe rung as skipped, with the reason.
      {
        calibrationSamples: data.tuning.feeds.length,
        evaluationSamples: data.judging.feeds.length,
        kernelsSaturate: false,
        kernelsExactBecause: WASM_INT8_KERNELS_EXACT,
      },
    );
    const summaries: RungSummary[] = [];
    // The budget's deadline stops the rung in flight (the climb then ends 'budget'), once a rung has ended.
    const deadline = request.timeBudget === undefined ? undefined : budgetDeadline(signal, request.timeBudget);
    const result = await climbLadder({
      ...climb,
      signal,
      onSkip: (k) => {
        skippedSoFar.push(k);
        update();
      },
      onRung: (rung, r?: RungResult) => {
        if (!r) return progress({ rung: info(rung), ladder: ladderHandle, phase: 'prepare' });
        const stoppedBy = signal.aborted && r.error ? (signal.budgetSpent ? 'budget' : 'cancel') : undefined;
        const s = summarize(h, r.detail as RungDetail | undefined, {
          index: rung.index,
          label: rung.label,
          step: rung.step,
          score: r.score,
          metrics: { ...r.metrics },
          met: r.met,
          seconds: r.seconds,
          error:
            stoppedBy === 'budget'
              ? 'TimeBudgetError: the time budget ran out while this rung was measured'
              : stoppedBy === 'cancel'
                ? 'RecoveryCancelledError: cancelled while this rung was measured'
                : (r.error ?? null),
          ...(stoppedBy ? { stoppedBy } : {}),
          ...(r.stoppedEarly ? { stoppedEarly: r.stoppedEarly } : {}),
          config: configToJSON(r.config),
          preset: rung.recipe.preset,
          ...(rung.why ? { why: rung.why } : {}),
          ...(rung.estimate ? { estimate: { seconds: rung.estimate.seconds, basis: rung.estimate.basis } } : {}),
        });
        summaries.push(s);
        measuredSoFar.push(r);
        held.handles.push(s.handle);
        update();
        progress({
          rung: info(rung),
          ladder: ladderHandle,
          phase: 'rung-done',
          finished: s,
          ladderSoFar: {
            ladder: ladderReport(held.result),
            dataSource: held.dataSource,
            samples: data.judging.feeds.length,
            graphOptimization: held.aim,
            npuBf16: held.npuBf16,
          },
        });
        deadline?.rungEnded();
      },
    });
    deadline?.clear();
    // A rung that ended the climb as the user's Cancel arrived reads 'cancelled'; the deadline's abort is the core's 'budget'.
    const stopped: LadderStop =
      signal.aborted && !signal.budgetSpent && result.stopped !== 'budget' && result.stopped !== 'target'
        ? 'cancelled'
        : result.stopped;
    held.result = { ...result, stopped };
    return {
      handle: ladderHandle,
      target,
      rungs: summaries,
      stopped,
      chosen: result.chosen,
      order: result.order,
      skippedRungs: [...result.skipped],
      shortfall: ladderReport(result).shortfall,
      used: data.tuning.feeds.length,
      evaluated: data.judging.feeds.length,
      skipped: data.skipped,
      seconds: (performance.now() - start) / 1000,
      ranOn: h.runtime.ranOn(),
    };
  } catch (e) {
    check();
    throw e;
  } finally {
    h.active.delete(signal);
  }
}
