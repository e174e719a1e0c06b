/**
 * One recovery run (the page's "Recover"): quantizes with the user's recovery steps (core quantizeWithRecovery:
 * CLE, AdaRound / AdaQuant, bias correction), optionally after a mixed-precision choice, and judges the result
 * on the evaluation samples; the measured model is kept by handle.
 */
import { compareModels } from '../../src/core/evaluate/compareModels.ts';
import { configToJSON, validateConfig } from '../../src/core/quantize/config.ts';
import { withoutRecoverySteps } from '../../src/core/recovery/recoverySwitches.ts';
import type { PresetName } from '../../src/core/quantize/presets.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { LadderTargetError, parseLadderTarget } from '../../src/core/recovery/ladder.ts';
import { ladderMetrics } from '../../src/core/recovery/ladderMeasure.ts';
import { mixedPrecisionAim } from '../../src/core/recovery/targetMeasure.ts';
import { runtimeGramProduct } from './gramProduct.ts';
import { chooseMixedPrecision, type MixedPrecisionResult } from '../../src/core/search/mixedPrecision.ts';
import { assertTargetFits } from '../../src/core/recovery/ladderMeasure.ts';
import { recipeLabel } from './rungSummary.ts';
import type { RecoveryOutcome, RecoveryRequest, RecoveryWorkerProgressCallback } from './recoveryTypes.ts';
import { denseOf, forward, withSignal, type RecoveryContext } from './recoveryContext.ts';
import { ladderTask, prepareData } from './recoveryData.ts';

/**
 * Quantizes with the configuration's recovery steps and judges the result on the evaluation samples.
 * Named errors: NoRecoveryDataError, NoUsableSamplesError, RecoveryCancelledError, RecoveryError,
 * ConfigError and what the quantizer throws.
 */
export async function runRecovery(
  ctx: RecoveryContext,
  handle: string,
  request: RecoveryRequest,
  onProgress?: RecoveryWorkerProgressCallback,
): Promise<RecoveryOutcome> {
  const { models, forgetPrevious, summarize } = ctx;
  const h = models.get(handle);
  const progress = onProgress ?? (() => undefined);
  return withSignal(h, async (signal, check) => {
    const start = performance.now();
    let config = validateConfig(request.config);
    const data = await prepareData(ctx.deps, h, request, check, progress);
    let mixed: MixedPrecisionResult | undefined;
    if (request.mixedPrecision) {
      const { budget, target, maxMeasurements = 100, metric = 'cosine' } = request.mixedPrecision;
      // One aim with the ladder's and qstudio quantize --mixed-precision's (core mixedPrecisionAim): a task target
      // (agreement with the float model's boxes or masks) read on the calibration images, top-1 and sequence agreement
      // from the outputs; a PSNR target has no bound the search can aim at, and is refused by name.
      const goal = parseLadderTarget(`${metric}:${target}`);
      // A target the outputs cannot give (a cosine of a wake-word score, always 1) is refused as the ladder refuses it.
      assertTargetFits(h.model, goal.metric);
      if (goal.metric === 'psnr')
        throw new LadderTargetError(
          'mixed precision aims at an output cosine, top-1 or sequence agreement, or a task figure (map50, map, miou), not psnr',
        );
      const aim = mixedPrecisionAim(goal, ladderTask(request, data.tuning, goal.metric));
      progress({ rung: null, phase: 'calibrate' });
      const plain = withoutRecoverySteps(config);
      mixed = await chooseMixedPrecision(h.model, await data.calibrate(h.model, plain), config, data.tuningRuntime, {
        budget,
        ...aim,
        maxMeasurements,
        signal,
        onStep: (s) =>
          progress({ rung: null, phase: 'mixed', done: s.index, total: maxMeasurements, cosine: s.cosine }),
      });
      check();
      config = mixed.config;
    }
    const result = await quantizeWithRecovery(h.model, config, {
      calibrate: (m) => data.calibrate(m, config),
      runtime: data.tuningRuntime,
      // The optimizers' inner product and the layer problems' products as onnxruntime MatMuls (many times faster
      // than TypeScript, bench/README.md).
      gramProduct: runtimeGramProduct(h.runtime),
      denseProduct: config.includeFastFt ? (await denseOf(h))?.product : undefined,
      signal,
      onProgress: forward(progress, null),
      configName: request.configName,
      sensitiveShare: request.sensitiveShare,
    });
    progress({ rung: null, phase: 'evaluate' });
    const comparison = await compareModels(h.model, result.model, data.judgingRuntime, {
      layers: false,
      floatIndex: h.index,
    });
    const metrics = ladderMetrics(comparison.outputs);
    const seconds = (performance.now() - start) / 1000;
    forgetPrevious(h);
    const rung = summarize(
      h,
      {
        quantized: result.model,
        report: result.report,
        recovery: result.recovery,
        comparison,
        mixedPrecision: mixed,
      },
      {
        index: 1,
        label: recipeLabel(config, request.configName, mixed !== undefined),
        step: null,
        score: metrics.cosine,
        metrics,
        met: false,
        seconds,
        error: null,
        config: configToJSON(config),
        preset: request.configName as PresetName,
      },
    );
    return { rung, used: data.tuning.feeds.length, skipped: data.skipped, seconds, ranOn: h.runtime.ranOn() };
  });
}
